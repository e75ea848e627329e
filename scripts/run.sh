#!/usr/bin/env bash
# The main job: set up, build and publish the index bundle with `dvc repro`, then serve it.
#
# Serving needs the published bundle, the scope model and the concept pack: `dvc repro scope concepts`
# builds them (and every stage before). The evaluation stages after them (retrieval metrics, the scope
# model per source, the regression run: ~7 minutes on 2 cores) do not change what is served, so they run
# in the background at the lowest CPU priority while the server starts and answers, logged to
# data/processed/evaluate.log; so does the smoke question. YAKSA_EVALUATE_FIRST=1 runs the whole
# `dvc repro` and the smoke question before serving instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/offline-env.sh
source .venv/bin/activate
smoke=(yaksa ask "두통이 있는데 타이레놀 먹어도 되나요?" --user run-sh-smoke)
if [ "${YAKSA_EVALUATE_FIRST:-0}" = 1 ]; then
  dvc repro
  "${smoke[@]}" || true
else
  dvc repro scope concepts
  nohup nice -n 19 dvc repro > data/processed/evaluate.log 2>&1 &
  (nice -n 19 "${smoke[@]}" || true) &
  echo "run.sh: evaluations running in the background at low priority: tail -f data/processed/evaluate.log"
fi
exec yaksa serve --host "${YAKSA_HOST:-127.0.0.1}" --port "${YAKSA_PORT:-8000}"
