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
  # pip byte-compiles on one core (~60 s of its ~115 s here); compileall on every core takes ~35 s. Compiled
  # here, not at first import: PYTHONDONTWRITEBYTECODE=1 may be set, and every process would pay ~4 s
  .venv/bin/pip install -q --no-compile -e ".[cpu,build,serve,eval,dev,docs]"
  # `|| true`: a few files no one imports are newer Python than ours (torch's py312 test helpers); pip skips them too
  .venv/bin/python -m compileall -q -j 0 .venv/lib >/dev/null 2>&1 || true
  echo "$want" > "$stamp"
fi
.venv/bin/yaksa link-data
