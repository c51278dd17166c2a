#!/usr/bin/env bash
# One command on a fresh machine: install what is needed, build, and run the main job
# (`smcompat`, which runs the doctor). Extra arguments are passed to smcompat.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
exec build/bin/smcompat "$@"
