#!/usr/bin/env bash
# Set up (if needed) and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/offline-env.sh
exec .venv/bin/pytest -q "$@"
