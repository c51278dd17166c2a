#!/usr/bin/env bash
# One command on a fresh machine: install what is needed, build, and run the main job
# (`smcompat`, which runs the doctor). Extra arguments are passed to smcompat.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the main job needs: the build's packages, the CLI and the trace shim, without debug
# information (scripts/test.sh installs and builds the rest: it turns the tests, the benchmarks and
# debug information back on in the same build/).
# Each phase's time goes to stderr at the end, before the doctor's report.
start=$SECONDS
scripts/install-deps.sh --build
t_deps=$((SECONDS - start))
cmake --preset default -DSMCOMPAT_BUILD_TESTS=OFF -DSMCOMPAT_BUILD_BENCH=OFF \
  -DSMCOMPAT_DEBUG_INFO=OFF >/dev/null
cmake --build --preset default --target smcompat_cli smcompat_trace
t_build=$((SECONDS - start - t_deps))
printf 'setup.sh: install %d s, build %d s\n' "$t_deps" "$t_build" >&2
exec build/bin/smcompat "$@"
