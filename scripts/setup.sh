#!/usr/bin/env bash
# One command on a fresh machine: install what is needed, build, and run the main job
# (`smcompat`, which runs the doctor). Extra arguments are passed to smcompat.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default >/dev/null
# Only what the main job needs: the CLI and the trace shim (scripts/test.sh builds the rest).
cmake --build --preset default --target smcompat_cli smcompat_trace
exec build/bin/smcompat "$@"
