// Cost of the trace shim (libsmcompat_trace.so) against the test suite's fake driver: the entry
// points a program gets with and without the shim, called in the same process. The fake libcuda
// and the shim are dlopen'ed from the build tree (../tests/fakedriver/lib/libcuda.so.1 and
// ../lib/libsmcompat_trace.so next to this executable; override with SMCOMPAT_FAKE_LIBCUDA and
// SMCOMPAT_TRACE_LIB). The fixture is ../tests/trace/fixtures/sm120.fatbin (build trace_tests
// first). Records go to /dev/null (SMCOMPAT_TRACE_FILE), so the write(2) per event is counted
// but not the disk.
// Launches: the shim never wraps cuLaunchKernel; the benchmark checks that the pointer a program
// resolves through the shim is the driver's own, so the per-launch overhead is zero by
// construction, and measures both loops to show it.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using CUresult = int;
using GpaFn = CUresult (*)(const char*, void**, int, unsigned long long, int*);
using LoadDataFn = CUresult (*)(void**, const void*);
using UnloadFn = CUresult (*)(void*);
using GetFunctionFn = CUresult (*)(void**, void*, const char*);
using AttrFn = CUresult (*)(int*, int, int);
using LaunchFn = CUresult (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, void*, void**, void**);

struct Setup {
  std::string error;
  void* fake = nullptr;
  void* shim = nullptr;
  std::vector<char> image;
  GpaFn fake_gpa = nullptr, shim_gpa = nullptr;
  template <class F>
  F via(GpaFn gpa, const char* name, int version) const {
    void* p = nullptr;
    int status = 0;
    if (gpa(name, &p, version, 0, &status) != 0) return nullptr;
    return reinterpret_cast<F>(p);
  }
};

const Setup& setup() {
  static Setup* s = [] {
    auto* st = new Setup();
    fs::path bin = fs::canonical("/proc/self/exe").parent_path();
    const char* fake_env = std::getenv("SMCOMPAT_FAKE_LIBCUDA");
    const char* shim_env = std::getenv("SMCOMPAT_TRACE_LIB");
    std::string fake =
        fake_env ? fake_env : (bin.parent_path() / "tests/fakedriver/lib/libcuda.so.1").string();
    std::string shim =
        shim_env ? shim_env : (bin.parent_path() / "lib/libsmcompat_trace.so").string();
    fs::path fixture = bin.parent_path() / "tests/trace/fixtures/sm120.fatbin";
    setenv("SMCOMPAT_FAKE_GPUS", "RTX 5090", 1);
    setenv("SMCOMPAT_TRACE_FILE", "/dev/null", 1);
    st->fake = dlopen(fake.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!st->fake) {
      st->error = "fake driver not built: " + fake;
      return st;
    }
    st->shim = dlopen(shim.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!st->shim) {
      st->error = "shim not built: " + shim;
      return st;
    }
    std::ifstream in(fixture, std::ios::binary);
    if (!in) {
      st->error = "fixture not built: " + fixture.string();
      return st;
    }
    st->image.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    st->image.push_back(0);
    st->fake_gpa = reinterpret_cast<GpaFn>(dlsym(st->fake, "cuGetProcAddress_v2"));
    st->shim_gpa = reinterpret_cast<GpaFn>(dlsym(st->shim, "cuGetProcAddress_v2"));
    using InitFn = CUresult (*)(unsigned);
    using RetainFn = CUresult (*)(void**, int);
    using SetFn = CUresult (*)(void*);
    auto init = st->via<InitFn>(st->fake_gpa, "cuInit", 2000);
    auto retain = st->via<RetainFn>(st->fake_gpa, "cuDevicePrimaryCtxRetain", 7000);
    auto set = st->via<SetFn>(st->fake_gpa, "cuCtxSetCurrent", 4000);
    void* ctx = nullptr;
    if (!init || !retain || !set || init(0) != 0 || retain(&ctx, 0) != 0 || set(ctx) != 0)
      st->error = "fake driver did not initialise";
    return st;
  }();
  return *s;
}

GpaFn pick(const Setup& s, bool shim) { return shim ? s.shim_gpa : s.fake_gpa; }

void BM_Launch(benchmark::State& state) {
  const Setup& s = setup();
  if (!s.error.empty()) return state.SkipWithError(s.error.c_str());
  bool shim = state.range(0);
  auto launch = s.via<LaunchFn>(pick(s, shim), "cuLaunchKernel", 4000);
  auto direct = s.via<LaunchFn>(s.fake_gpa, "cuLaunchKernel", 4000);
  if (launch != direct) return state.SkipWithError("the shim wrapped cuLaunchKernel");
  auto load = s.via<LoadDataFn>(pick(s, false), "cuModuleLoadData", 2000);
  auto get = s.via<GetFunctionFn>(pick(s, false), "cuModuleGetFunction", 2000);
  void* mod = nullptr;
  void* fn = nullptr;
  if (load(&mod, s.image.data()) != 0 || get(&fn, mod, "scale") != 0)
    return state.SkipWithError("fixture did not load");
  for (auto _ : state) {
    CUresult r = launch(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr);
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(shim ? "through the shim" : "driver only");
}
BENCHMARK(BM_Launch)->Arg(0)->Arg(1);

void BM_ModuleLoadUnload(benchmark::State& state) {
  const Setup& s = setup();
  if (!s.error.empty()) return state.SkipWithError(s.error.c_str());
  bool shim = state.range(0);
  auto load = s.via<LoadDataFn>(pick(s, shim), "cuModuleLoadData", 2000);
  auto get = s.via<GetFunctionFn>(pick(s, shim), "cuModuleGetFunction", 2000);
  auto unload = s.via<UnloadFn>(pick(s, shim), "cuModuleUnload", 2000);
  for (auto _ : state) {
    void* mod = nullptr;
    void* fn = nullptr;
    if (load(&mod, s.image.data()) != 0 || get(&fn, mod, "scale") != 0 || unload(mod) != 0)
      return state.SkipWithError("load failed");
  }
  state.SetLabel(shim ? "through the shim (records to /dev/null)" : "driver only");
}
BENCHMARK(BM_ModuleLoadUnload)->Arg(0)->Arg(1);

void BM_DeviceGetAttributeCc(benchmark::State& state) {
  const Setup& s = setup();
  if (!s.error.empty()) return state.SkipWithError(s.error.c_str());
  bool shim = state.range(0);
  auto attr = s.via<AttrFn>(pick(s, shim), "cuDeviceGetAttribute", 2000);
  for (auto _ : state) {
    int v = 0;
    benchmark::DoNotOptimize(attr(&v, 75, 0));
    benchmark::DoNotOptimize(v);
  }
  state.SetLabel(shim ? "through the shim (no override)" : "driver only");
}
BENCHMARK(BM_DeviceGetAttributeCc)->Arg(0)->Arg(1);

}  // namespace

BENCHMARK_MAIN();
