#!/usr/bin/env bash
# Installs the Debian packages smcompat needs, only if some are missing. Idempotent.
#   scripts/install-deps.sh           everything scripts/test.sh builds and runs with
#   scripts/install-deps.sh --build   only what the library, the CLI and the trace shim build with
#                                     (scripts/setup.sh: the main job on a fresh machine)
#   scripts/install-deps.sh --aarch64 the cross toolchain, the arm64 libraries and qemu-user for
#                                     the `aarch64` preset (on an x86_64 machine; part of the default)
set -euo pipefail
build=(cmake ninja-build g++ pkg-config ccache libzstd-dev liblz4-dev libzip-dev zlib1g-dev
       libcli11-dev libfmt-dev nlohmann-json3-dev libssl-dev libarchive-dev libre2-dev libisal-dev)
# The test suite adds: GoogleTest and Google Benchmark, clang with its sanitizer and libFuzzer
# runtimes, clang-format and shellcheck (the format and script checks), zip and libpng (fixtures,
# the bench plot), Python for the wheel and the scripts, chart.js and chromium (the HTML pages in a
# real browser), prometheus (promtool checks the exported metrics).
tests=(libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-14-dev clang-format shellcheck
       zip libpng-dev python3-dev python3-venv libjs-chart.js chromium prometheus)
# The aarch64 cross build (DGX Spark GB10, Grace): Debian's cross compiler, the build's libraries
# for arm64 (multiarch: they sit beside the amd64 ones) and qemu-user, which runs the result so
# tests/aarch64/ can compare its answers with the x86_64 build's. Only on x86_64 hosts.
aarch64=(g++-aarch64-linux-gnu qemu-user libzstd-dev:arm64 liblz4-dev:arm64 libzip-dev:arm64
         zlib1g-dev:arm64 libfmt-dev:arm64 libssl-dev:arm64 libarchive-dev:arm64 libre2-dev:arm64
         libbz2-dev:arm64 liblzma-dev:arm64)
[ "$(uname -m)" = x86_64 ] || aarch64=()
case "${1:-}" in
  --build) pkgs=("${build[@]}") ;;
  --aarch64) pkgs=("${aarch64[@]}") ;;
  "") pkgs=("${build[@]}" "${tests[@]}" "${aarch64[@]}") ;;
  *) echo "usage: scripts/install-deps.sh [--build|--aarch64]" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "smcompat: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  # The :arm64 packages need the architecture enabled before apt reads the package lists.
  if printf '%s\n' "${missing[@]}" | grep -q ':arm64$' &&
    ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $sudo dpkg --add-architecture arm64
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
