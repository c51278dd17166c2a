// The GPU kit's CUDA-runtime runner: dlopens one matrix_rt variant library (the runtime registers
// its fatbin), runs its kernel, and prints one JSON line; `cc` prints what the runtime reports as
// the device's compute capability (cudaGetDeviceProperties), which `smcompat trace --report-cc`
// changes.   kit_rt LIB [run|cc]
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace {
std::string q(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c >= 0x20) out += static_cast<char>(c);
  }
  return out + "\"";
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: kit_rt LIB [run|cc]\n");
    return 2;
  }
  std::string action = argc == 3 ? argv[2] : "run";
  auto t0 = std::chrono::steady_clock::now();
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  double open_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!h) {
    std::printf("{\"lib\":%s,\"error\":%s}\n", q(argv[1]).c_str(), q(dlerror()).c_str());
    return 2;
  }
  char msg[512] = "";
  if (action == "cc") {
    auto cc = reinterpret_cast<int (*)(int*, int*, char*, int)>(dlsym(h, "kit_rt_cc"));
    int major = -1, minor = -1;
    int rc = cc ? cc(&major, &minor, msg, sizeof msg) : 3;
    std::printf("{\"lib\":%s,\"action\":\"cc\",\"rc\":%d,\"major\":%d,\"minor\":%d,\"name\":%s}\n",
                q(argv[1]).c_str(), rc, major, minor, q(msg).c_str());
    return rc;
  }
  auto run = reinterpret_cast<int (*)(char*, int)>(dlsym(h, "kit_rt_run"));
  if (!run) {
    std::printf("{\"lib\":%s,\"error\":\"no kit_rt_run\"}\n", q(argv[1]).c_str());
    return 2;
  }
  t0 = std::chrono::steady_clock::now();
  int rc = run(msg, sizeof msg);
  double run_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "{\"lib\":%s,\"action\":\"run\",\"rc\":%d,\"message\":%s,\"open_ms\":%.3f,\"run_ms\":%.3f}\n",
      q(argv[1]).c_str(), rc, q(msg).c_str(), open_ms, run_ms);
  return rc;
}
