/* The GPU kit links Debian's libarchive.a and libstdc++.a; they call arc4random_buf and
 * arc4random (std::random_device), which glibc has only since 2.36. The kit promises glibc 2.34
 * (as the wheel's manylinux_2_34 tag), so these definitions, resolved at link time inside the
 * kit's own binaries, stand in: the same bytes from the kernel's getrandom(2), which glibc has had
 * since 2.25. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>

void arc4random_buf(void* buf, size_t n) {
  unsigned char* p = buf;
  while (n > 0) {
    ssize_t got = getrandom(p, n, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) abort(); /* no randomness at all: as glibc's own arc4random does */
    p += got;
    n -= (size_t)got;
  }
}

uint32_t arc4random(void) {
  uint32_t v;
  arc4random_buf(&v, sizeof v);
  return v;
}
