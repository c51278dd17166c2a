#!/bin/bash
# Copies a binary's shared-library dependencies (as ldd resolves them in the build stage) into
# DESTDIR/usr/local/lib/smcompat, leaving out the C library itself (libc, libm, ld-linux...: the
# runtime stage's own glibc, the same Debian release, provides them). The Dockerfile's slim stage
# then needs only these files and an ld.so.conf.d entry, no -dev packages.
#   collect-runtime-libs.sh BINARY DESTDIR
# libcuda.so.1 and libnvidia-ml.so.1 are not dependencies: smcompat dlopens them at run time, and
# the NVIDIA container runtime mounts them from the host.
set -euo pipefail
bin="${1:?usage: collect-runtime-libs.sh BINARY DESTDIR}"
dest="${2:?usage: collect-runtime-libs.sh BINARY DESTDIR}"
libdir="$dest/usr/local/lib/smcompat"
mkdir -p "$libdir" "$dest/etc/ld.so.conf.d"
echo /usr/local/lib/smcompat >"$dest/etc/ld.so.conf.d/smcompat.conf"
count=0
# ldd lines: "libfoo.so.1 => /usr/lib/x86_64-linux-gnu/libfoo.so.1 (0x...)"
while read -r name arrow path _; do
  if [ "$arrow" != "=>" ] || [ ! -f "$path" ]; then continue; fi
  case "$name" in
    libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | librt.so.* | libresolv.so.* | ld-linux*) continue ;;
  esac
  cp -L "$path" "$libdir/$name"
  count=$((count + 1))
done < <(ldd "$bin")
if ldd "$bin" | grep -q "not found"; then
  echo "collect-runtime-libs: $bin has unresolved libraries:" >&2
  ldd "$bin" | grep "not found" >&2
  exit 1
fi
echo "collect-runtime-libs: $count libraries into $libdir"
