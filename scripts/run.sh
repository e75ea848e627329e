#!/usr/bin/env bash
# The main job: set up, build and publish the index bundle with `dvc repro`, then serve it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/offline-env.sh
source .venv/bin/activate
dvc repro
yaksa search "두통에 먹는 약" --k 3 || true
exec yaksa serve --host "${YAKSA_HOST:-127.0.0.1}" --port "${YAKSA_PORT:-8000}"
