// A typical LD_PRELOAD interposer (as profilers and allocators are): it wraps getpid and finds
// the real one with dlsym(RTLD_NEXT). Preloaded after the trace shim, it checks that the shim's
// interposed dlsym keeps RTLD_NEXT relative to the real caller: if it did not, RTLD_NEXT would
// start after the shim, find this wrapper again and recurse until the stack overflows.
#include <dlfcn.h>
#include <unistd.h>

extern "C" __attribute__((visibility("default"))) pid_t getpid(void) {
  using Fn = pid_t (*)(void);
  static Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "getpid"));
  return real ? real() : -1;
}
