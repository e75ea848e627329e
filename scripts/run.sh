#!/usr/bin/env bash
# The main job: set up, build and publish the index bundle with `dvc repro`, then serve it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/offline-env.sh
source .venv/bin/activate
dvc repro
yaksa ask "두통이 있는데 타이레놀 먹어도 되나요?" --user run-sh-smoke || true
exec yaksa serve --host "${YAKSA_HOST:-127.0.0.1}" --port "${YAKSA_PORT:-8000}"
