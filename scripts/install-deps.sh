#!/usr/bin/env bash
# Installs the Debian packages smcompat needs, only if some are missing. Idempotent.
#   scripts/install-deps.sh           everything scripts/test.sh builds and runs with
#   scripts/install-deps.sh --build   only what the library, the CLI and the trace shim build with
#                                     (scripts/setup.sh: the main job on a fresh machine)
set -euo pipefail
build=(cmake ninja-build g++ pkg-config ccache libzstd-dev liblz4-dev libzip-dev zlib1g-dev
       libcli11-dev libfmt-dev nlohmann-json3-dev libssl-dev libarchive-dev libre2-dev)
# The test suite adds: GoogleTest and Google Benchmark, clang with its sanitizer and libFuzzer
# runtimes, clang-format and shellcheck (the format and script checks), zip and libpng (fixtures,
# the bench plot), Python for the wheel and the scripts, chart.js and chromium (the HTML pages in a
# real browser), prometheus (promtool checks the exported metrics).
tests=(libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-14-dev clang-format shellcheck
       zip libpng-dev python3-dev python3-venv libjs-chart.js chromium prometheus)
case "${1:-}" in
  --build) pkgs=("${build[@]}") ;;
  "") pkgs=("${build[@]}" "${tests[@]}") ;;
  *) echo "usage: scripts/install-deps.sh [--build]" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "smcompat: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
