// Test helper for `smcompat check --pid`: dlopens each library named on the command line, says
// "ready" on stdout, and keeps them mapped until its stdin closes (the test then checks it from
// outside). Exits 3 naming the library that did not load.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!dlopen(argv[i], RTLD_NOW | RTLD_LOCAL)) {
      std::fprintf(stderr, "hold_libs: %s\n", dlerror());
      return 3;
    }
  }
  std::printf("ready\n");
  std::fflush(stdout);
  char c;
  while (read(0, &c, 1) > 0) {
  }
  return 0;
}
