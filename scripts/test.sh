#!/usr/bin/env bash
# One command: install what is needed, build everything, and run the whole test suite (CTest).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
ctest --preset default "$@"
