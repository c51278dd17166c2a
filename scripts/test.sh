#!/usr/bin/env bash
# One command: install what is needed, build everything, and run the whole test suite (CTest):
# first the normal build, then the same suite built with ASan+UBSan (clang), as CI does.
# SMCOMPAT_SKIP_ASAN=1 skips the sanitizer pass for a quicker local run.
# At the end: each phase's time, and per preset one table of tests run / passed / failed / skipped
# per label with every skip's reason (scripts/ci-summary.py).
set -euo pipefail
cd "$(dirname "$0")/.."
phases=()
phase_start=$SECONDS
phase() {  # name: closes the phase that was running
  phases+=("$(printf '%-34s %5d s' "$1" $((SECONDS - phase_start)))")
  phase_start=$SECONDS
}
summaries=()
summary() {  # title, build dir, junit file
  ctest --test-dir "$2" --show-only=json-v1 >"$2/ctest-tests.json"
  summaries+=("$(python3 scripts/ci-summary.py "$1" "$3" "$2/ctest-tests.json")")
}
report() {
  local rc=$?
  for s in "${summaries[@]}"; do echo "$s"; done
  echo
  echo "== phases"
  for p in "${phases[@]}"; do echo "$p"; done
  echo "total                              $(printf '%5d' "$SECONDS") s"
  return $rc
}
trap report EXIT

scripts/install-deps.sh
phase "install dependencies"
# Real PyPI wheels, NVIDIA's cuobjdump and venvs built from them, cached outside the checkout. The
# oracle layer needs them: when the cache cannot be filled while PyPI answers, that is a failure;
# without PyPI the corpus tests skip and the summary counts them.
if ! scripts/fetch-corpus.sh; then
  if python3 -c 'import urllib.request; urllib.request.urlopen("https://pypi.org/simple/pip/", timeout=15)' 2>/dev/null; then
    echo "test.sh: PyPI answers but the real-world corpus could not be filled (above): failing" >&2
    exit 1
  fi
  echo "test.sh: PyPI cannot be reached: the real-world corpus is not filled and every test labelled corpus will skip" >&2
fi
phase "fetch the real-world corpus"
# One compiler name for the default preset and the wheel that pip builds in the python test:
# ccache keys on the name it is called by (c++ and g++ are the same program but miss each
# other), and with the same name the wheel's library objects are the default build's.
export CC=${CC:-gcc} CXX=${CXX:-g++}
# (scripts/setup.sh may have configured build/ without them.)
cmake --preset default -DSMCOMPAT_BUILD_TESTS=ON -DSMCOMPAT_BUILD_BENCH=ON \
  -DSMCOMPAT_DEBUG_INFO=ON >/dev/null
cmake --build --preset default
phase "build (default preset)"
# The aarch64 CLI (DGX Spark GB10, Grace), cross-built with Debian's toolchain, for tests/aarch64:
# under qemu-aarch64 it must answer as the x86_64 build does. Only the CLI and the shim, without
# debug information (the preset says so).
if [ "$(uname -m)" = x86_64 ] && command -v aarch64-linux-gnu-g++ >/dev/null; then
  cmake --preset aarch64 >/dev/null
  cmake --build --preset aarch64
  phase "build (aarch64 preset, cross)"
fi
rc=0
ctest --preset default --output-junit "$PWD/build/ctest-junit.xml" "$@" || rc=$?
phase "tests (default preset)"
summary "default preset" build build/ctest-junit.xml
[ "$rc" = 0 ] || exit "$rc"
if [ "${SMCOMPAT_SKIP_ASAN:-0}" != "1" ]; then
  echo "== the test suite again under AddressSanitizer + UndefinedBehaviorSanitizer"
  cmake --preset asan >/dev/null
  cmake --build --preset asan
  phase "build (asan preset)"
  # Sanitizers are for the C++ that reads and writes bytes: the unit tests, the parsers on
  # malformed input, the shim, fuzz replay and the libFuzzer targets (built by this preset) run
  # here. What runs once, in the default pass above, and why (docs/testing.md, "Two passes"):
  #   corpus    gigabytes of real wheels through the same parsers the unit tests cover;
  #   python    the wheel is built by pip, not by this preset;
  #   deploy, format, layering, gpu-kit, browser   shell, YAML, clang-format, compile-only
  #             checks, nvcc and a headless browser: no sanitized C++ runs in them;
  #   aarch64   the cross-built CLI under qemu against the default build's, not sanitized code;
  #   IndexBuild.*, IndexBuildCli.*   a few hundred pip runs against a local repository: the
  #             time is pip's; the wheel and record code they reach is unit-tested here.
  #   ToolFit.*, MinedErrors.*, RealErrors.*   explain's scores over ~900 real error texts: the
  #             matcher and the fixes run here in explain's unit tests; a score cannot change.
  #   Redact.HostileMegabyteLinesAreLinear   a growth-rate check (its subject is time); the
  #             redaction runs here in the other Redact tests and the redact fuzzer.
  #   PtxToolkit.EveryEmbeddedPtxImage...   every PTX image of the toolkit through the parser
  #             that ptx_fuzz and the PTX unit tests run here (420 s under ASan for no new path).
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --preset asan -LE '^(corpus|python|deploy|format|layering|gpu-kit|browser|aarch64)$' \
    -E '^(IndexBuild(Cli)?|ToolFit|MinedErrors|RealErrors)\.|^Redact\.HostileMegabyteLinesAreLinear$|^PtxToolkit\.EveryEmbeddedPtxImage' \
    --output-junit "$PWD/build-asan/ctest-junit.xml" "$@" || rc=$?
  phase "tests (asan preset)"
  summary "asan preset" build-asan build-asan/ctest-junit.xml
fi
exit "$rc"
