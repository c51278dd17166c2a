#!/usr/bin/env bash
# Builds gpu-kit/: everything a lent GPU machine needs to run scripts/gpu-checks.sh without
# installing anything (docs/gpu-checks/README.md). The smcompat CLI and the trace shim, linked
# portable (tests/gpu-checks/CMakeLists.txt) with the libraries they still need vendored beside
# them; the nvcc-built check programs and fixtures; MANIFEST.json (commit, sizes, checks passed).
#   scripts/gpu-kit.sh [--no-build] [--build-dir DIR] [--out DIR]
# --no-build assembles from an existing build (the CI test, which must not run a second ninja in
# the build directory it is testing). Fails when the kit is over 48 MiB, needs glibc symbols newer
# than 2.34 or a library it does not carry.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
out=$src/gpu-kit
do_build=1
while (($#)); do
  case $1 in
    --no-build) do_build=0 ;;
    --build-dir) build=$(cd "$2" && pwd); shift ;;
    --out) out=$2; shift ;;
    *) echo "usage: scripts/gpu-kit.sh [--no-build] [--build-dir DIR] [--out DIR]" >&2; exit 2 ;;
  esac
  shift
done
if ((do_build)); then
  cd "$src"
  cmake --preset default >/dev/null
  cmake --build --preset default --target smcompat_kit_cli smcompat_kit_trace gpu_kit_checks
fi
for f in "$build/gpu-kit-bin/bin/smcompat" "$build/gpu-kit-bin/lib/libsmcompat_trace.so" \
         "$build/gpu-kit-checks/kit_driver"; do
  [ -e "$f" ] || { echo "gpu-kit.sh: $f is missing (build the default preset; nvcc and libarchive.a needed)" >&2; exit 2; }
done

out_parent=$(mkdir -p "$(dirname "$out")" && cd "$(dirname "$out")" && pwd)
out=$out_parent/$(basename "$out")
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/checks"
cp "$build/gpu-kit-bin/bin/smcompat" "$out/bin/"
cp "$build/gpu-kit-bin/lib/libsmcompat_trace.so" "$out/lib/"
cp -r "$build/gpu-kit-checks/." "$out/checks/"
rm -f "$out/checks/rt/cudart.stamp"
# Debug information stays in the build; the kit carries code only.
strip --strip-unneeded "$out/bin/smcompat" "$out/lib/libsmcompat_trace.so" \
  "$out/checks/kit_driver" "$out/checks/kit_rt"

# Vendors what the two binaries still load (all but glibc and libgcc_s), then writes and checks
# the manifest.
python3 "$src/tests/gpu-checks/kit/manifest.py" "$out" --source "$src" --vendor
