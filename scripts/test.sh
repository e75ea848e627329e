#!/usr/bin/env bash
# Set up (if needed) and run the test suite.
#
# With arguments they go to one pytest run (`bash scripts/test.sh tests/index`, `-m "not slow"`, `-k postgres`).
# Without, the whole suite runs as three pytest processes one after the other: one process for all of it
# grew past 10 GB (every test module's agent runtime, app and caches stay in memory until the process
# ends) and a CI machine killed it. The tiny test project is built once, by the first, and copied by the
# others (YAKSA_TEST_TINY_CACHE, a temporary directory removed at the end). Exit 1 if any run failed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/offline-env.sh
if [ "$#" -gt 0 ]; then
  exec .venv/bin/pytest -q "$@"
fi
GROUP_AGENT=(tests/agent tests/evaluation tests/regression tests/critique tests/flows)
GROUP_SERVING=(tests/serving)
if [ -z "${YAKSA_TEST_TINY_CACHE:-}" ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  export YAKSA_TEST_TINY_CACHE="$scratch/tiny-project"
fi
ignores=()
for path in "${GROUP_AGENT[@]}" "${GROUP_SERVING[@]}"; do ignores+=("--ignore=$path"); done
status=0
.venv/bin/pytest -q tests "${ignores[@]}" || status=1
.venv/bin/pytest -q "${GROUP_AGENT[@]}" || status=1
.venv/bin/pytest -q "${GROUP_SERVING[@]}" || status=1
exit $status
