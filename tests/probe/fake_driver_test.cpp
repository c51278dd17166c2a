// In-process tests of the fake driver itself (tests/fakedriver): entry-point lookup by name and
// ABI version (driver-api.md §2.1), the not-initialised rule, contexts, thread safety (16 threads,
// as the trace tests load modules), error names, and the NVML side's lookups and NVLink model.
// The fake reads its environment once per process, so this file uses one configuration.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "smcompat/probe/driver_abi.hpp"

namespace smcompat {
namespace {

using namespace driver;

struct Fake {
  void* cuda = nullptr;
  void* nvml = nullptr;
  CUresult count_before_init = -1;
  CUresult init_result = -1;

  template <class F>
  F cu(const char* name) const {
    return reinterpret_cast<F>(dlsym(cuda, name));
  }
  template <class F>
  F nv(const char* name) const {
    return reinterpret_cast<F>(dlsym(nvml, name));
  }
};

const Fake& fake() {
  static const Fake f = [] {
    setenv("SMCOMPAT_FAKE_GPUS", "RTX 5090, H100 ,B200", 1);
    setenv("SMCOMPAT_FAKE_NVLINK", "1", 1);
    setenv("SMCOMPAT_FAKE_P2P", "1", 1);
    setenv("SMCOMPAT_FAKE_PCIE", "5x16, 4x8/5x16 ,-", 1);  // per GPU; the B200 has none
    unsetenv("CUDA_VISIBLE_DEVICES");
    unsetenv("SMCOMPAT_FAKE_MASQUERADE");
    unsetenv("SMCOMPAT_FAKE_INIT_ERROR");
    Fake out;
    std::string dir = SMCOMPAT_FAKEDRIVER_DIR;
    out.cuda = dlopen((dir + "/libcuda.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
    out.nvml = dlopen((dir + "/libnvidia-ml.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (out.cuda) {
      int n = 0;
      out.count_before_init = out.cu<PFN_cuDeviceGetCount_v2000>("cuDeviceGetCount")(&n);
      out.init_result = out.cu<PFN_cuInit_v2000>("cuInit")(0);
    }
    return out;
  }();
  return f;
}

TEST(FakeDriver, LoadsAndInitialises) {
  ASSERT_NE(fake().cuda, nullptr) << dlerror();
  ASSERT_NE(fake().nvml, nullptr) << dlerror();
  EXPECT_EQ(fake().count_before_init, kCudaErrorNotInitialized);
  EXPECT_EQ(fake().init_result, kCudaSuccess);
  int n = 0;
  ASSERT_EQ(fake().cu<PFN_cuDeviceGetCount_v2000>("cuDeviceGetCount")(&n), kCudaSuccess);
  EXPECT_EQ(n, 3);
  char name[64];
  auto get_name = fake().cu<PFN_cuDeviceGetName_v2000>("cuDeviceGetName");
  ASSERT_EQ(get_name(name, sizeof name, 1), kCudaSuccess);
  EXPECT_STREQ(name, "NVIDIA H100 SXM");
  ASSERT_EQ(get_name(name, 8, 1), kCudaSuccess);  // truncated, still terminated
  EXPECT_STREQ(name, "NVIDIA ");
  EXPECT_EQ(get_name(name, sizeof name, 3), kCudaErrorInvalidDevice);
  int v = 0;
  auto attr = fake().cu<PFN_cuDeviceGetAttribute_v2000>("cuDeviceGetAttribute");
  EXPECT_EQ(attr(&v, kAttrComputeCapabilityMajor, 2), kCudaSuccess);
  EXPECT_EQ(v, 10);
  EXPECT_EQ(attr(&v, 9999, 0), kCudaErrorNotSupported);
  EXPECT_EQ(attr(nullptr, kAttrWarpSize, 0), kCudaErrorInvalidValue);
  int major = 0, minor = 0;
  using CcFn = CUresult (*)(int*, int*, CUdevice);
  ASSERT_EQ(fake().cu<CcFn>("cuDeviceComputeCapability")(&major, &minor, 0), kCudaSuccess);
  EXPECT_EQ(major * 10 + minor, 120);
}

TEST(FakeDriver, ProcAddressFollowsAbiVersions) {
  auto gpa = fake().cu<PFN_cuGetProcAddress_v12000>("cuGetProcAddress_v2");
  ASSERT_NE(gpa, nullptr);
  // For `base`, each (cudaVersion, exported symbol) of its ABI history.
  auto expect = [&](const char* base, std::initializer_list<std::pair<int, const char*>> versions) {
    for (const auto& [version, symbol] : versions) {
      void* p = nullptr;
      ProcAddressQueryResult st = kProcAddressSymbolNotFound;
      ASSERT_EQ(gpa(base, &p, version, 0, &st), kCudaSuccess) << base << "@" << version;
      EXPECT_EQ(st, kProcAddressSuccess) << base << "@" << version;
      EXPECT_EQ(p, dlsym(fake().cuda, symbol)) << base << "@" << version << " -> " << symbol;
    }
  };
  expect("cuInit", {{2000, "cuInit"}});
  expect(
      "cuDeviceTotalMem",
      {{2000, "cuDeviceTotalMem"}, {3020, "cuDeviceTotalMem_v2"}, {13000, "cuDeviceTotalMem_v2"}});
  expect("cuCtxCreate",
         {{3020, "cuCtxCreate_v2"}, {11040, "cuCtxCreate_v3"}, {12050, "cuCtxCreate_v4"}});
  expect("cuCtxGetDevice", {{12080, "cuCtxGetDevice"}, {13000, "cuCtxGetDevice_v2"}});
  expect("cuGetProcAddress", {{11030, "cuGetProcAddress"}, {12000, "cuGetProcAddress_v2"}});
  expect("cuDeviceGetUuid", {{11040, "cuDeviceGetUuid_v2"}});

  void* p = reinterpret_cast<void*>(1);
  ProcAddressQueryResult st = kProcAddressSuccess;
  EXPECT_EQ(gpa("cuDeviceGetUuid", &p, 9000, 0, &st), kCudaSuccess);  // before its first ABI
  EXPECT_EQ(st, kProcAddressVersionNotSufficient);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(gpa("cuNoSuchFunction", &p, 12000, 0, &st), kCudaSuccess);
  EXPECT_EQ(st, kProcAddressSymbolNotFound);
  EXPECT_EQ(gpa("", &p, 0, 0, &st), kCudaSuccess);  // cudart's first probe lookup
  EXPECT_EQ(st, kProcAddressSymbolNotFound);
  EXPECT_EQ(gpa("nvmlInit_v2", &p, 12000, 0, &st), kCudaSuccess);  // not a driver API name
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(gpa("cuInit", &p, 13010, 0, &st), kCudaErrorInvalidValue);  // newer than the driver
  EXPECT_EQ(gpa(nullptr, &p, 12000, 0, &st), kCudaErrorInvalidValue);

  // The legacy 4-argument entry point resolves the same way.
  auto gpa1 = fake().cu<PFN_cuGetProcAddress_v11030>("cuGetProcAddress");
  ASSERT_EQ(gpa1("cuCtxDestroy", &p, 4000, 0), kCudaSuccess);
  EXPECT_EQ(p, dlsym(fake().cuda, "cuCtxDestroy_v2"));

  using ExportFn = CUresult (*)(const void**, const void*);
  const void* table = &p;
  char uuid[16] = {};
  EXPECT_EQ(fake().cu<ExportFn>("cuGetExportTable")(&table, uuid), kCudaErrorNotSupported);
  EXPECT_EQ(table, nullptr);
}

TEST(FakeDriver, ErrorNames) {
  auto name = fake().cu<PFN_cuGetErrorName_v6000>("cuGetErrorName");
  auto text = fake().cu<PFN_cuGetErrorString_v6000>("cuGetErrorString");
  const char* s = nullptr;
  ASSERT_EQ(name(kCudaErrorStubLibrary, &s), kCudaSuccess);
  EXPECT_STREQ(s, "CUDA_ERROR_STUB_LIBRARY");
  ASSERT_EQ(text(kCudaErrorNoDevice, &s), kCudaSuccess);
  EXPECT_STREQ(s, "no CUDA-capable device is detected");
  EXPECT_EQ(name(123456, &s), kCudaErrorInvalidValue);
}

using CtxCreateFn = CUresult (*)(CUcontext*, unsigned, CUdevice);
using CtxFn = CUresult (*)(CUcontext);
using CtxOutFn = CUresult (*)(CUcontext*);
using DevOutFn = CUresult (*)(CUdevice*);
using RetainFn = CUresult (*)(CUcontext*, CUdevice);
using ReleaseFn = CUresult (*)(CUdevice);

// The fake's context API, resolved by exported name.
struct ContextApi {
  CtxCreateFn create;
  CtxFn destroy;
  CtxFn set_current;
  CtxOutFn get_current;
  DevOutFn get_device;
  RetainFn retain;
  ReleaseFn release;
};
ContextApi context_api() {
  return {fake().cu<CtxCreateFn>("cuCtxCreate_v2"),
          fake().cu<CtxFn>("cuCtxDestroy_v2"),
          fake().cu<CtxFn>("cuCtxSetCurrent"),
          fake().cu<CtxOutFn>("cuCtxGetCurrent"),
          fake().cu<DevOutFn>("cuCtxGetDevice"),
          fake().cu<RetainFn>("cuDevicePrimaryCtxRetain"),
          fake().cu<ReleaseFn>("cuDevicePrimaryCtxRelease_v2")};
}

TEST(FakeDriver, Contexts) {
  auto [create, destroy, set_current, get_current, get_device, retain, release] = context_api();
  CUdevice dev = -1;
  CUcontext cur = nullptr;
  ASSERT_EQ(set_current(nullptr), kCudaSuccess);
  EXPECT_EQ(get_device(&dev), kCudaErrorInvalidContext);  // nothing current yet

  CUcontext primary = nullptr, again = nullptr;
  ASSERT_EQ(retain(&primary, 2), kCudaSuccess);
  ASSERT_EQ(retain(&again, 2), kCudaSuccess);
  EXPECT_EQ(primary, again);  // one primary context per device
  ASSERT_EQ(set_current(primary), kCudaSuccess);
  ASSERT_EQ(get_device(&dev), kCudaSuccess);
  EXPECT_EQ(dev, 2);
  EXPECT_EQ(destroy(primary), kCudaErrorInvalidContext);  // primary contexts are released

  CUcontext own = nullptr;
  ASSERT_EQ(create(&own, 0, 1), kCudaSuccess);  // becomes current
  ASSERT_EQ(get_current(&cur), kCudaSuccess);
  EXPECT_EQ(cur, own);
  ASSERT_EQ(get_device(&dev), kCudaSuccess);
  EXPECT_EQ(dev, 1);
  ASSERT_EQ(destroy(own), kCudaSuccess);
  EXPECT_EQ(destroy(own), kCudaErrorInvalidContext);  // handle no longer valid
  EXPECT_EQ(set_current(own), kCudaErrorInvalidContext);
  ASSERT_EQ(get_device(&dev), kCudaSuccess);  // back to the primary context below it
  EXPECT_EQ(dev, 2);
  EXPECT_EQ(create(&own, 0, 7), kCudaErrorInvalidDevice);
  ASSERT_EQ(release(2), kCudaSuccess);
  ASSERT_EQ(release(2), kCudaSuccess);
  EXPECT_EQ(release(2), kCudaErrorInvalidContext);  // released more often than retained
  ASSERT_EQ(set_current(nullptr), kCudaSuccess);
}

TEST(FakeDriver, SixteenThreadsUseContextsConcurrently) {
  const ContextApi api = context_api();
  auto gpa = fake().cu<PFN_cuGetProcAddress_v12000>("cuGetProcAddress_v2");
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        int want = (t + i) % 3;
        CUcontext c = nullptr;
        CUdevice d = -1;
        if (api.create(&c, 0, want) || api.get_device(&d) || d != want || api.destroy(c))
          ++failures;
        CUcontext p = nullptr;
        if (api.retain(&p, want) || api.set_current(p) || api.get_device(&d) || d != want ||
            api.set_current(nullptr) || api.release(want))
          ++failures;
        void* fn = nullptr;
        ProcAddressQueryResult st;
        if (gpa("cuCtxCreate", &fn, 3020, 0, &st) || fn != reinterpret_cast<void*>(api.create))
          ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(FakeNvml, DevicesTopologyAndErrors) {
  auto init = fake().nv<PFN_nvmlInit_v2>("nvmlInit_v2");
  auto shutdown = fake().nv<PFN_nvmlShutdown>("nvmlShutdown");
  auto count = fake().nv<PFN_nvmlDeviceGetCount_v2>("nvmlDeviceGetCount_v2");
  unsigned n = 0;
  EXPECT_EQ(count(&n), kNvmlErrorUninitialized);
  ASSERT_EQ(init(), kNvmlSuccess);
  ASSERT_EQ(count(&n), kNvmlSuccess);
  EXPECT_EQ(n, 3u);
  char buf[96];
  EXPECT_EQ(fake().nv<PFN_nvmlSystemGetDriverVersion>("nvmlSystemGetDriverVersion")(buf, 4),
            kNvmlErrorInsufficientSize);
  nvmlDevice_t h = nullptr, h0 = nullptr;
  auto by_pci = fake().nv<PFN_nvmlDeviceGetHandleByPciBusId_v2>("nvmlDeviceGetHandleByPciBusId_v2");
  ASSERT_EQ(by_pci("0000:11:00.0", &h), kNvmlSuccess);  // CUDA's 4-digit domain form
  nvmlDevice_t h_long = nullptr;
  ASSERT_EQ(by_pci("00000000:11:00.0", &h_long), kNvmlSuccess);
  EXPECT_EQ(h, h_long);
  EXPECT_EQ(by_pci("0000:99:00.0", &h_long), kNvmlErrorNotFound);
  EXPECT_EQ(by_pci("garbage", &h_long), kNvmlErrorInvalidArgument);
  ASSERT_EQ(fake().nv<PFN_nvmlDeviceGetName>("nvmlDeviceGetName")(h, buf, sizeof buf),
            kNvmlSuccess);
  EXPECT_STREQ(buf, "NVIDIA H100 SXM");
  ASSERT_EQ(fake().nv<PFN_nvmlDeviceGetHandleByIndex_v2>("nvmlDeviceGetHandleByIndex_v2")(0, &h0),
            kNvmlSuccess);
  // NVLink: 1 link per pair among 3 GPUs = 2 links per GPU; link 0 of GPU 0 goes to GPU 1.
  auto state = fake().nv<PFN_nvmlDeviceGetNvLinkState>("nvmlDeviceGetNvLinkState");
  int active = 0;
  EXPECT_EQ(state(h0, 1, &active), kNvmlSuccess);
  EXPECT_EQ(active, 1);
  EXPECT_EQ(state(h0, 2, &active), kNvmlErrorInvalidArgument);
  NvmlPciInfo pci{};
  ASSERT_EQ(fake().nv<PFN_nvmlDeviceGetNvLinkRemotePciInfo_v2>(
                "nvmlDeviceGetNvLinkRemotePciInfo_v2")(h0, 0, &pci),
            kNvmlSuccess);
  EXPECT_STREQ(pci.busId, "00000000:11:00.0");
  EXPECT_STREQ(pci.busIdLegacy, "0000:11:00.0");
  EXPECT_EQ(pci.bus, 0x11u);
  int level = 0;
  ASSERT_EQ(fake().nv<PFN_nvmlDeviceGetTopologyCommonAncestor>(
                "nvmlDeviceGetTopologyCommonAncestor")(h0, h, &level),
            kNvmlSuccess);
  EXPECT_EQ(level, kNvmlTopologySingle);
  int status = -1;
  auto p2p = fake().nv<PFN_nvmlDeviceGetP2PStatus>("nvmlDeviceGetP2PStatus");
  ASSERT_EQ(p2p(h0, h, kNvmlP2PCapsNvlink, &status), kNvmlSuccess);
  EXPECT_EQ(status, kNvmlP2PStatusOk);
  EXPECT_STREQ(fake().nv<PFN_nvmlErrorString>("nvmlErrorString")(kNvmlErrorNotFound), "Not Found");
  ASSERT_EQ(shutdown(), kNvmlSuccess);
  EXPECT_EQ(shutdown(), kNvmlErrorUninitialized);
}

TEST(FakeNvml, PcieLinkPerGpu) {
  ASSERT_EQ(fake().nv<PFN_nvmlInit_v2>("nvmlInit_v2")(), kNvmlSuccess);
  auto by_index = fake().nv<PFN_nvmlDeviceGetHandleByIndex_v2>("nvmlDeviceGetHandleByIndex_v2");
  auto gen =
      fake().nv<PFN_nvmlDeviceGetCurrPcieLinkGeneration>("nvmlDeviceGetCurrPcieLinkGeneration");
  auto gen_max =
      fake().nv<PFN_nvmlDeviceGetMaxPcieLinkGeneration>("nvmlDeviceGetMaxPcieLinkGeneration");
  auto width = fake().nv<PFN_nvmlDeviceGetCurrPcieLinkWidth>("nvmlDeviceGetCurrPcieLinkWidth");
  auto width_max = fake().nv<PFN_nvmlDeviceGetMaxPcieLinkWidth>("nvmlDeviceGetMaxPcieLinkWidth");
  ASSERT_TRUE(gen && gen_max && width && width_max);
  nvmlDevice_t h[3] = {};
  for (unsigned i = 0; i < 3; ++i) ASSERT_EQ(by_index(i, &h[i]), kNvmlSuccess);
  // {current gen, max gen, current width, max width} per GPU.
  const unsigned want[2][4] = {{5, 5, 16, 16}, {4, 5, 8, 16}};
  for (int i = 0; i < 2; ++i) {
    unsigned v[4] = {};
    ASSERT_EQ(gen(h[i], &v[0]), kNvmlSuccess);
    ASSERT_EQ(gen_max(h[i], &v[1]), kNvmlSuccess);
    ASSERT_EQ(width(h[i], &v[2]), kNvmlSuccess);
    ASSERT_EQ(width_max(h[i], &v[3]), kNvmlSuccess);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(v[k], want[i][k]) << "GPU " << i << " value " << k;
  }
  unsigned v = 7;
  EXPECT_EQ(gen(h[2], &v), kNvmlErrorNotSupported);  // "-": no PCIe link, as on GB10
  EXPECT_EQ(width_max(h[2], &v), kNvmlErrorNotSupported);
  EXPECT_EQ(v, 7u);
  EXPECT_EQ(gen(h[0], nullptr), kNvmlErrorInvalidArgument);
  EXPECT_EQ(gen(nullptr, &v), kNvmlErrorInvalidArgument);
  ASSERT_EQ(fake().nv<PFN_nvmlShutdown>("nvmlShutdown")(), kNvmlSuccess);
  EXPECT_EQ(gen(h[0], &v), kNvmlErrorUninitialized);
}

}  // namespace
}  // namespace smcompat
