# Cross-compiling for aarch64 Linux (DGX Spark GB10, Grace Hopper and Grace Blackwell hosts) on an
# x86_64 Debian or Ubuntu machine, with the distribution's cross toolchain and its arm64 multiarch
# libraries (scripts/install-deps.sh --aarch64 installs both, and qemu-user to run the result):
#   cmake --preset aarch64 && cmake --build --preset aarch64
# Programs built here run under qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR), so tests/aarch64/
# can compare their answers with the x86_64 build's.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Debian's multiarch layout: headers in /usr/include (shared by all architectures), libraries,
# pkg-config files and CMake packages in /usr/lib/aarch64-linux-gnu.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# No -L /usr/aarch64-linux-gnu: that is the cross toolchain's libc (a different build), and its
# ld.so with the multiarch libc6:arm64 that the binary loads hangs in pthread_create. The arm64
# multiarch loader sits at /lib/ld-linux-aarch64.so.1, where qemu finds it.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
