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

#include "smcompat/probe/driver_abi.hpp"

namespace {

namespace fs = std::filesystem;
using namespace smcompat::driver;
using GpaFn = PFN_cuGetProcAddress_v12000;
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
    ProcAddressQueryResult status = kProcAddressSuccess;
    if (gpa(name, &p, version, 0, &status) != kCudaSuccess) return nullptr;
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
    using RetainFn = CUresult (*)(CUcontext*, CUdevice);
    using SetFn = CUresult (*)(CUcontext);
    auto init = st->via<PFN_cuInit_v2000>(st->fake_gpa, "cuInit", 2000);
    auto retain = st->via<RetainFn>(st->fake_gpa, "cuDevicePrimaryCtxRetain", 7000);
    auto set = st->via<SetFn>(st->fake_gpa, "cuCtxSetCurrent", 4000);
    CUcontext ctx = nullptr;
    if (!init || !retain || !set || init(0) != 0 || retain(&ctx, 0) != 0 || set(ctx) != 0)
      st->error = "fake driver did not initialise";
    return st;
  }();
  return *s;
}

GpaFn pick(const Setup& s, bool shim) { return shim ? s.shim_gpa : s.fake_gpa; }

// Runs `body(setup, resolver)` with the resolver of this run (argument 0: the driver's
// cuGetProcAddress, 1: the shim's), labelled; marks the benchmark skipped without a setup.
template <class Body>
void with_setup(benchmark::State& state, const char* shim_label, Body body) {
  const Setup& s = setup();
  if (!s.error.empty()) return state.SkipWithError(s.error.c_str());
  bool shim = state.range(0);
  state.SetLabel(shim ? shim_label : "driver only");
  body(s, pick(s, shim));
}

// The module API through one resolver (the driver's, or the shim's).
struct ModuleApi {
  PFN_cuModuleLoadData_v2000 load;
  PFN_cuModuleGetFunction_v2000 get;
  PFN_cuModuleUnload_v2000 unload;
};
ModuleApi module_api(const Setup& s, GpaFn gpa) {
  return {s.via<PFN_cuModuleLoadData_v2000>(gpa, "cuModuleLoadData", 2000),
          s.via<PFN_cuModuleGetFunction_v2000>(gpa, "cuModuleGetFunction", 2000),
          s.via<PFN_cuModuleUnload_v2000>(gpa, "cuModuleUnload", 2000)};
}

void BM_Launch(benchmark::State& state) {
  with_setup(state, "through the shim", [&](const Setup& s, GpaFn gpa) {
    auto launch = s.via<LaunchFn>(gpa, "cuLaunchKernel", 4000);
    if (launch != s.via<LaunchFn>(s.fake_gpa, "cuLaunchKernel", 4000))
      return state.SkipWithError("the shim wrapped cuLaunchKernel");
    ModuleApi driver = module_api(s, s.fake_gpa);
    CUmodule mod = nullptr;
    CUfunction fn = nullptr;
    if (driver.load(&mod, s.image.data()) != 0 || driver.get(&fn, mod, "scale") != 0)
      return state.SkipWithError("fixture did not load");
    for (auto _ : state) {
      CUresult r = launch(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr);
      benchmark::DoNotOptimize(r);
    }
  });
}

void BM_ModuleLoadUnload(benchmark::State& state) {
  with_setup(state, "through the shim (records to /dev/null)", [&](const Setup& s, GpaFn gpa) {
    ModuleApi api = module_api(s, gpa);
    for (auto _ : state) {
      CUmodule mod = nullptr;
      CUfunction fn = nullptr;
      if (api.load(&mod, s.image.data()) != 0 || api.get(&fn, mod, "scale") != 0 ||
          api.unload(mod) != 0)
        return state.SkipWithError("load failed");
    }
  });
}

void BM_DeviceGetAttributeCc(benchmark::State& state) {
  with_setup(state, "through the shim (no override)", [&](const Setup& s, GpaFn gpa) {
    auto attr = s.via<PFN_cuDeviceGetAttribute_v2000>(gpa, "cuDeviceGetAttribute", 2000);
    for (auto _ : state) {
      int v = 0;
      benchmark::DoNotOptimize(attr(&v, kAttrComputeCapabilityMajor, 0));
      benchmark::DoNotOptimize(v);
    }
  });
}

BENCHMARK(BM_Launch)->Arg(0)->Arg(1);
BENCHMARK(BM_ModuleLoadUnload)->Arg(0)->Arg(1);
BENCHMARK(BM_DeviceGetAttributeCc)->Arg(0)->Arg(1);

}  // namespace

BENCHMARK_MAIN();
