#!/usr/bin/env bash
# One command: install what is needed, build everything, and run the whole test suite (CTest):
# first the normal build, then the same suite built with ASan+UBSan (clang), as CI does.
# SMCOMPAT_SKIP_ASAN=1 skips the sanitizer pass for a quicker local run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Real PyPI wheels, NVIDIA's cuobjdump and venvs built from them, cached outside the checkout; the
# `corpus` tests skip, naming the missing cache, when this cannot fill it (offline).
scripts/fetch-corpus.sh || echo "test.sh: the real-world corpus could not be filled; corpus tests will skip" >&2
cmake --preset default >/dev/null
cmake --build --preset default
ctest --preset default "$@"
if [ "${SMCOMPAT_SKIP_ASAN:-0}" != "1" ]; then
  echo "== the test suite again under AddressSanitizer + UndefinedBehaviorSanitizer"
  cmake --preset asan >/dev/null
  cmake --build --preset asan
  # The libFuzzer side build is the default preset's job, the real-world corpus (gigabytes of
  # wheels), the Python wheel (built by pip, not by this preset) and the deployment files (label
  # deploy: shell and YAML, no C++) run once; here every other test runs sanitized.
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --preset asan -E '^fuzz_(build|compile|run)' -LE '^(corpus|python|deploy)$' "$@"
fi
