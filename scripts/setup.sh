#!/usr/bin/env bash
# Create .venv and install yaksa with every extra (cpu, build, serve, eval, dev, docs); link ../shared/data into data/raw.
# Idempotent: re-installs only when pyproject.toml changed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/offline-env.sh

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.yaksa-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install -q -U pip    # the stock pip cannot resolve this dependency set
  # torch is pinned to the CPU wheel (torch==2.13.0) in the cpu extra; an unpinned torch pulls CUDA
  .venv/bin/pip install -q -e ".[cpu,build,serve,eval,dev,docs]"
  echo "$want" > "$stamp"
fi
.venv/bin/yaksa link-data
