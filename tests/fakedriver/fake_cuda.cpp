// The fake libcuda.so.1: devices, attributes, P2P, contexts, error names and the entry-point
// lookup (cuGetProcAddress{,_v2}) of the CUDA driver API, serving the GPU set of fake_state.cpp.
// Behaviour follows ../shared/reference/driver-api.md (§2.1 lookup rules, §7 probe APIs, §8
// testing without a GPU) and the CUDA 13.0 cuda.h / cudaTypedefs.h for ABI versions. Exported
// symbols are limited to cu* / nvml* by exports.map. Thread-safe: state is read once; contexts
// live in a mutex-guarded registry; the context stack is per thread. Entry points never call
// each other by exported name (an LD_PRELOAD shim would see those calls twice).
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "fake_state.hpp"
#include "smcompat/probe/driver_abi.hpp"

using namespace smcompat::driver;
using smcompat::fake::FakeGpu;
using smcompat::fake::state;

struct smcompat::driver::CUctx_st {
  int device = 0;
  bool primary = false;
  int refcount = 0;  // primary contexts only
};

namespace {

std::atomic<bool> g_initialized{false};

struct Contexts {
  std::mutex mu;
  std::set<CUcontext> live;                        // every valid handle
  std::vector<std::unique_ptr<CUctx_st>> primary;  // one per CUDA ordinal, created lazily
  std::vector<std::unique_ptr<CUctx_st>> owned;    // contexts from cuCtxCreate
};
Contexts& contexts() {
  static Contexts c;
  return c;
}
thread_local std::vector<CUcontext> t_stack;  // the calling thread's context stack

const FakeGpu* gpu(CUdevice d) {
  const auto& gpus = state().gpus;
  return d >= 0 && d < static_cast<int>(gpus.size()) ? &gpus[d] : nullptr;
}

CUresult check_init() { return g_initialized ? kCudaSuccess : kCudaErrorNotInitialized; }

// Common prologue for device queries: initialised, valid output pointer, valid ordinal.
CUresult check_device(const void* out, CUdevice d) {
  if (CUresult r = check_init()) return r;
  if (!out) return kCudaErrorInvalidValue;
  return gpu(d) ? kCudaSuccess : kCudaErrorInvalidDevice;
}

// Writes `text(gpu)` of device `dev` into the caller's buffer of `len` bytes (cut to fit).
template <class Text>
CUresult device_string(char* out, int len, CUdevice dev, Text text) {
  if (CUresult r = check_device(out, dev)) return r;
  if (len <= 0) return kCudaErrorInvalidValue;
  std::snprintf(out, static_cast<size_t>(len), "%s", text(*gpu(dev)).c_str());
  return kCudaSuccess;
}

bool is_live(CUcontext c) {
  std::lock_guard<std::mutex> lock(contexts().mu);
  return contexts().live.count(c) != 0;
}

CUresult create_context(CUcontext* pctx, CUdevice dev) {
  if (CUresult r = check_device(pctx, dev)) return r;
  auto ctx = std::make_unique<CUctx_st>();
  ctx->device = dev;
  CUcontext h = ctx.get();
  {
    std::lock_guard<std::mutex> lock(contexts().mu);
    contexts().live.insert(h);
    contexts().owned.push_back(std::move(ctx));
  }
  t_stack.push_back(h);  // a new context becomes current to the calling thread
  *pctx = h;
  return kCudaSuccess;
}

CUresult destroy_context(CUcontext ctx) {
  if (CUresult r = check_init()) return r;
  {
    std::lock_guard<std::mutex> lock(contexts().mu);
    auto& c = contexts();
    if (!ctx || !c.live.count(ctx) || ctx->primary) return kCudaErrorInvalidContext;
    c.live.erase(ctx);
    c.owned.erase(std::remove_if(c.owned.begin(), c.owned.end(),
                                 [&](const auto& p) { return p.get() == ctx; }),
                  c.owned.end());
  }
  t_stack.erase(std::remove(t_stack.begin(), t_stack.end(), ctx), t_stack.end());
  return kCudaSuccess;
}

CUresult primary_release(CUdevice dev) {
  if (CUresult r = check_init()) return r;
  if (!gpu(dev)) return kCudaErrorInvalidDevice;
  std::lock_guard<std::mutex> lock(contexts().mu);
  auto& p = contexts().primary;
  if (dev >= static_cast<int>(p.size()) || !p[dev] || p[dev]->refcount <= 0)
    return kCudaErrorInvalidContext;
  --p[dev]->refcount;  // the handle stays valid (as with the real driver), only inactive
  return kCudaSuccess;
}

CUresult get_uuid(CUuuid* uuid, CUdevice dev) {
  if (CUresult r = check_device(uuid, dev)) return r;
  std::string hex;
  for (char c : gpu(dev)->uuid.substr(4))
    if (c != '-') hex += c;
  for (int i = 0; i < 16; ++i)
    uuid->bytes[i] = static_cast<char>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return kCudaSuccess;
}

CUresult ctx_get_device(CUdevice* dev) {
  if (CUresult r = check_init()) return r;
  if (!dev) return kCudaErrorInvalidValue;
  int d = smcompat::fake::current_device();
  if (d < 0) return kCudaErrorInvalidContext;
  *dev = d;
  return kCudaSuccess;
}

// ABI versions of the versioned entry points the fake exports or may export (cudaTypedefs.h:
// PFN_<name>_v<version>; the n-th ABI of a name is exported as name_v<n>, the first as name).
struct AbiVersion {
  const char* base;
  int min_version;
  const char* symbol;
};
constexpr AbiVersion kAbiVersions[] = {
    {"cuGetProcAddress", 11030, "cuGetProcAddress"},
    {"cuGetProcAddress", 12000, "cuGetProcAddress_v2"},
    {"cuDeviceTotalMem", 2000, "cuDeviceTotalMem"},
    {"cuDeviceTotalMem", 3020, "cuDeviceTotalMem_v2"},
    {"cuDeviceGetUuid", 9020, "cuDeviceGetUuid"},
    {"cuDeviceGetUuid", 11040, "cuDeviceGetUuid_v2"},
    {"cuCtxCreate", 2000, "cuCtxCreate"},
    {"cuCtxCreate", 3020, "cuCtxCreate_v2"},
    {"cuCtxCreate", 11040, "cuCtxCreate_v3"},
    {"cuCtxCreate", 12050, "cuCtxCreate_v4"},
    {"cuCtxDestroy", 2000, "cuCtxDestroy"},
    {"cuCtxDestroy", 4000, "cuCtxDestroy_v2"},
    {"cuCtxPushCurrent", 2000, "cuCtxPushCurrent"},
    {"cuCtxPushCurrent", 4000, "cuCtxPushCurrent_v2"},
    {"cuCtxPopCurrent", 2000, "cuCtxPopCurrent"},
    {"cuCtxPopCurrent", 4000, "cuCtxPopCurrent_v2"},
    {"cuCtxGetDevice", 2000, "cuCtxGetDevice"},
    {"cuCtxGetDevice", 13000, "cuCtxGetDevice_v2"},
    {"cuDevicePrimaryCtxRelease", 7000, "cuDevicePrimaryCtxRelease"},
    {"cuDevicePrimaryCtxRelease", 11000, "cuDevicePrimaryCtxRelease_v2"},
    {"cuDevicePrimaryCtxReset", 7000, "cuDevicePrimaryCtxReset"},
    {"cuDevicePrimaryCtxReset", 11000, "cuDevicePrimaryCtxReset_v2"},
    {"cuDevicePrimaryCtxSetFlags", 7000, "cuDevicePrimaryCtxSetFlags"},
    {"cuDevicePrimaryCtxSetFlags", 11000, "cuDevicePrimaryCtxSetFlags_v2"},
    {"cuModuleGetGlobal", 2000, "cuModuleGetGlobal"},
    {"cuModuleGetGlobal", 3020, "cuModuleGetGlobal_v2"},
    {"cuLinkCreate", 5050, "cuLinkCreate"},
    {"cuLinkCreate", 6050, "cuLinkCreate_v2"},
    {"cuLinkAddData", 5050, "cuLinkAddData"},
    {"cuLinkAddData", 6050, "cuLinkAddData_v2"},
    {"cuLinkAddFile", 5050, "cuLinkAddFile"},
    {"cuLinkAddFile", 6050, "cuLinkAddFile_v2"},
    {"cuMemAlloc", 2000, "cuMemAlloc"},
    {"cuMemAlloc", 3020, "cuMemAlloc_v2"},
    {"cuMemFree", 2000, "cuMemFree"},
    {"cuMemFree", 3020, "cuMemFree_v2"},
    {"cuMemGetInfo", 2000, "cuMemGetInfo"},
    {"cuMemGetInfo", 3020, "cuMemGetInfo_v2"},
    {"cuMemcpyHtoD", 2000, "cuMemcpyHtoD"},
    {"cuMemcpyHtoD", 3020, "cuMemcpyHtoD_v2"},
    {"cuMemcpyDtoH", 2000, "cuMemcpyDtoH"},
    {"cuMemcpyDtoH", 3020, "cuMemcpyDtoH_v2"},
    {"cuStreamDestroy", 2000, "cuStreamDestroy"},
    {"cuStreamDestroy", 4000, "cuStreamDestroy_v2"},
    {"cuEventDestroy", 2000, "cuEventDestroy"},
    {"cuEventDestroy", 4000, "cuEventDestroy_v2"},
    {"cuEventElapsedTime", 2000, "cuEventElapsedTime"},
    {"cuEventElapsedTime", 12080, "cuEventElapsedTime_v2"},
    {"cuMemHostGetDevicePointer", 2020, "cuMemHostGetDevicePointer"},
    {"cuMemHostGetDevicePointer", 3020, "cuMemHostGetDevicePointer_v2"},
    {"cuMemcpyHtoDAsync", 2000, "cuMemcpyHtoDAsync"},
    {"cuMemcpyHtoDAsync", 3020, "cuMemcpyHtoDAsync_v2"},
    {"cuMemcpyDtoHAsync", 2000, "cuMemcpyDtoHAsync"},
    {"cuMemcpyDtoHAsync", 3020, "cuMemcpyDtoHAsync_v2"},
    {"cuMemcpyDtoDAsync", 3000, "cuMemcpyDtoDAsync"},
    {"cuMemcpyDtoDAsync", 3020, "cuMemcpyDtoDAsync_v2"},
    {"cuStreamBeginCapture", 10000, "cuStreamBeginCapture"},
    {"cuStreamBeginCapture", 10010, "cuStreamBeginCapture_v2"},
};

// This library's own handle and load base, so lookups find only the fake's own functions.
struct Self {
  void* handle = nullptr;
  void* base = nullptr;
};
const Self& self();

void* own_symbol(const std::string& name) {
  const Self& s = self();
  if (!s.handle) return nullptr;
  void* p = dlsym(s.handle, name.c_str());
  Dl_info info{};
  if (!p || !dladdr(p, &info) || info.dli_fbase != s.base) return nullptr;  // not ours
  return p;
}

CUresult lookup(const char* symbol, void** pfn, int version, std::uint64_t flags,
                ProcAddressQueryResult* status) {
  auto set_status = [&](ProcAddressQueryResult v) {
    if (status) *status = v;
  };
  if (!symbol || !pfn) return kCudaErrorInvalidValue;
  *pfn = nullptr;
  if (version > state().driver_cuda_version) return kCudaErrorInvalidValue;
  std::string name = symbol;
  if (name.rfind("cu", 0) != 0) {
    set_status(kProcAddressSymbolNotFound);
    return kCudaSuccess;
  }
  std::string chosen = name;
  bool versioned = false, sufficient = false;
  for (const auto& abi : kAbiVersions) {
    if (name != abi.base) continue;
    versioned = true;
    if (abi.min_version <= version) {
      chosen = abi.symbol;  // the table is ascending per name: the last match wins
      sufficient = true;
    }
  }
  if (versioned && !sufficient) {
    set_status(kProcAddressVersionNotSufficient);
    return kCudaSuccess;
  }
  void* p = nullptr;
  if (flags & 2) {  // CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM: _ptsz / _ptds variants
    p = own_symbol(chosen + "_ptsz");
    if (!p) p = own_symbol(chosen + "_ptds");
  }
  if (!p) p = own_symbol(chosen);
  if (!p) {
    set_status(kProcAddressSymbolNotFound);
    return kCudaSuccess;
  }
  *pfn = p;
  set_status(kProcAddressSuccess);
  return kCudaSuccess;
}

}  // namespace

namespace smcompat::fake {
int current_device() {
  if (t_stack.empty()) return -1;
  CUcontext top = t_stack.back();
  std::lock_guard<std::mutex> lock(contexts().mu);  // read under the lock: no destroy in between
  return contexts().live.count(top) ? top->device : -1;
}
int context_device(const void* ctx) {
  std::lock_guard<std::mutex> lock(contexts().mu);
  auto* c = static_cast<CUcontext>(const_cast<void*>(ctx));
  return c && contexts().live.count(c) ? c->device : -1;
}
}  // namespace smcompat::fake

extern "C" {

// The marker by which smcompat tells this fake from a real driver (bench marks every figure
// measured through it as synthetic: the times come from the timing model of README.md).
extern const char smcompat_fake_driver[] = "smcompat fake libcuda (tests/fakedriver)";

CUresult cuInit(unsigned flags) {
  const auto& st = state();
  if (flags != 0) return kCudaErrorInvalidValue;
  if (!st.errors.empty()) return kCudaErrorUnknown;  // misconfigured fake (message on stderr)
  if (st.init_error != 0) return st.init_error;
  if (st.gpus.empty()) return kCudaErrorNoDevice;  // no GPU, or CUDA_VISIBLE_DEVICES hides all
  g_initialized = true;
  return kCudaSuccess;
}

CUresult cuDriverGetVersion(int* v) {
  if (!v) return kCudaErrorInvalidValue;
  *v = state().driver_cuda_version;
  return kCudaSuccess;
}

CUresult cuDeviceGetCount(int* count) {
  if (CUresult r = check_init()) return r;
  if (!count) return kCudaErrorInvalidValue;
  *count = static_cast<int>(state().gpus.size());
  return kCudaSuccess;
}

CUresult cuDeviceGet(CUdevice* dev, int ordinal) {
  if (CUresult r = check_device(dev, ordinal)) return r;
  *dev = ordinal;
  return kCudaSuccess;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  return device_string(name, len, dev, [](const FakeGpu& g) { return g.name; });
}

CUresult cuDeviceGetAttribute(int* value, int attrib, CUdevice dev) {
  if (CUresult r = check_device(value, dev)) return r;
  const auto& failing = state().failing_attributes;
  if (std::find(failing.begin(), failing.end(), attrib) != failing.end())
    return kCudaErrorNotSupported;  // fault injection (SMCOMPAT_FAKE_FAIL_ATTRIBUTES)
  const FakeGpu& g = *gpu(dev);
  unsigned bus = 0, device = 0, domain = 0;
  std::sscanf(g.pci_bus_id.c_str(), "%x:%x:%x", &domain, &bus, &device);
  switch (attrib) {
    case kAttrMaxThreadsPerBlock:
      *value = 1024;
      break;
    case kAttrMaxSharedMemoryPerBlock:
      *value = g.smem_per_block;
      break;
    case kAttrWarpSize:
      *value = 32;
      break;
    case kAttrMaxRegistersPerBlock:
      *value = g.regs_per_block;
      break;
    case kAttrClockRate:
      *value = g.clock_khz;
      break;
    case kAttrMultiprocessorCount:
      *value = g.sms;
      break;
    case kAttrPciBusId:
      *value = static_cast<int>(bus);
      break;
    case kAttrPciDeviceId:
      *value = static_cast<int>(device);
      break;
    case kAttrPciDomainId:
      *value = static_cast<int>(domain);
      break;
    case kAttrMemoryClockRate:
      *value = g.memory_clock_khz;
      break;
    case kAttrGlobalMemoryBusWidth:
      *value = g.bus_width_bits;
      break;
    case kAttrL2CacheSize:
      *value = g.l2_bytes;
      break;
    case kAttrMaxThreadsPerMultiprocessor:
      *value = g.threads_per_sm;
      break;
    case kAttrUnifiedAddressing:
      *value = 1;
      break;
    case kAttrComputeCapabilityMajor:
      *value = g.reported_cc_major;
      break;
    case kAttrComputeCapabilityMinor:
      *value = g.reported_cc_minor;
      break;
    case kAttrMaxSharedMemoryPerMultiprocessor:
      *value = g.smem_per_sm;
      break;
    case kAttrMaxRegistersPerMultiprocessor:
      *value = g.regs_per_sm;
      break;
    case kAttrMaxSharedMemoryPerBlockOptin:
      *value = g.smem_per_block_optin;
      break;
    case kAttrMaxBlocksPerMultiprocessor:
      *value = g.blocks_per_sm;
      break;
    case kAttrReservedSharedMemoryPerBlock:
      *value = g.reserved_smem_per_block;
      break;
    case kAttrClusterLaunch:
      *value = g.cluster_launch ? 1 : 0;
      break;
    default:
      return kCudaErrorNotSupported;  // not modelled by the fake (README.md)
  }
  return kCudaSuccess;
}

CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
  if (CUresult r = check_device(major, dev)) return r;
  if (!minor) return kCudaErrorInvalidValue;
  *major = gpu(dev)->reported_cc_major;
  *minor = gpu(dev)->reported_cc_minor;
  return kCudaSuccess;
}

CUresult cuDeviceTotalMem(unsigned* bytes, CUdevice dev) {  // the 2000 ABI (32-bit size)
  if (CUresult r = check_device(bytes, dev)) return r;
  uint64_t m = gpu(dev)->total_mem;
  *bytes = m > 0xffffffffull ? 0xffffffffu : static_cast<unsigned>(m);
  return kCudaSuccess;
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  if (CUresult r = check_device(bytes, dev)) return r;
  *bytes = gpu(dev)->total_mem;
  return kCudaSuccess;
}

CUresult cuDeviceGetPCIBusId(char* out, int len, CUdevice dev) {
  // The driver's form has a 4-digit domain ("0000:01:00.0"); NVML's busId has 8.
  return device_string(out, len, dev, [](const FakeGpu& g) { return g.pci_bus_id.substr(4); });
}

CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) { return get_uuid(uuid, dev); }
CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) { return get_uuid(uuid, dev); }

CUresult cuDeviceCanAccessPeer(int* can, CUdevice dev, CUdevice peer) {
  if (CUresult r = check_device(can, dev)) return r;
  if (!gpu(peer)) return kCudaErrorInvalidDevice;
  *can = (state().p2p && dev != peer) ? 1 : 0;
  return kCudaSuccess;
}

CUresult cuDeviceGetP2PAttribute(int* value, int attrib, CUdevice src, CUdevice dst) {
  if (CUresult r = check_device(value, src)) return r;
  if (!gpu(dst) || src == dst) return kCudaErrorInvalidDevice;
  const auto& st = state();
  bool p2p = st.p2p;
  bool nvlink =
      smcompat::fake::nvlink_links(st, gpu(src)->physical_index, gpu(dst)->physical_index) > 0;
  switch (attrib) {
    case kP2PPerformanceRank:
      *value = p2p ? (nvlink ? 0 : 1) : 0;
      break;
    case kP2PAccessSupported:
      *value = p2p ? 1 : 0;
      break;
    case kP2PNativeAtomicSupported:
      *value = (p2p && nvlink) ? 1 : 0;
      break;
    case kP2PCudaArrayAccessSupported:
      *value = p2p ? 1 : 0;
      break;
    default:
      return kCudaErrorInvalidValue;
  }
  return kCudaSuccess;
}

// ---- contexts ----
CUresult cuCtxCreate(CUcontext* pctx, unsigned flags, CUdevice dev) {
  return create_context(pctx, dev);
}
CUresult cuCtxCreate_v2(CUcontext* pctx, unsigned flags, CUdevice dev) {
  return create_context(pctx, dev);
}
CUresult cuCtxCreate_v3(CUcontext* pctx, void* affinity, int n, unsigned flags, CUdevice dev) {
  return create_context(pctx, dev);
}
CUresult cuCtxCreate_v4(CUcontext* pctx, void* params, unsigned flags, CUdevice dev) {
  return create_context(pctx, dev);
}
CUresult cuCtxDestroy(CUcontext ctx) { return destroy_context(ctx); }
CUresult cuCtxDestroy_v2(CUcontext ctx) { return destroy_context(ctx); }

CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  if (CUresult r = check_device(pctx, dev)) return r;
  std::lock_guard<std::mutex> lock(contexts().mu);
  auto& c = contexts();
  if (c.primary.size() < state().gpus.size()) c.primary.resize(state().gpus.size());
  if (!c.primary[dev]) {
    c.primary[dev] = std::make_unique<CUctx_st>();
    c.primary[dev]->device = dev;
    c.primary[dev]->primary = true;
    c.live.insert(c.primary[dev].get());
  }
  ++c.primary[dev]->refcount;
  *pctx = c.primary[dev].get();
  return kCudaSuccess;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return primary_release(dev); }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) { return primary_release(dev); }

CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (CUresult r = check_init()) return r;
  if (!ctx) {  // NULL pops the top of the stack (a no-op on an empty stack)
    if (!t_stack.empty()) t_stack.pop_back();
    return kCudaSuccess;
  }
  if (!is_live(ctx)) return kCudaErrorInvalidContext;
  if (t_stack.empty())
    t_stack.push_back(ctx);
  else
    t_stack.back() = ctx;
  return kCudaSuccess;
}

CUresult cuCtxGetCurrent(CUcontext* pctx) {
  if (CUresult r = check_init()) return r;
  if (!pctx) return kCudaErrorInvalidValue;
  *pctx = t_stack.empty() ? nullptr : t_stack.back();
  return kCudaSuccess;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  if (CUresult r = check_init()) return r;
  if (!ctx || !is_live(ctx)) return kCudaErrorInvalidContext;
  t_stack.push_back(ctx);
  return kCudaSuccess;
}
CUresult cuCtxPopCurrent_v2(CUcontext* pctx) {
  if (CUresult r = check_init()) return r;
  if (t_stack.empty()) return kCudaErrorInvalidContext;
  if (pctx) *pctx = t_stack.back();
  t_stack.pop_back();
  return kCudaSuccess;
}

CUresult cuCtxGetDevice(CUdevice* dev) { return ctx_get_device(dev); }
CUresult cuCtxGetDevice_v2(CUdevice* dev, CUcontext ctx) {  // 13.0: NULL = the current context
  if (!ctx) return ctx_get_device(dev);
  if (CUresult r = check_init()) return r;
  if (!dev) return kCudaErrorInvalidValue;
  if (!is_live(ctx)) return kCudaErrorInvalidContext;
  *dev = ctx->device;
  return kCudaSuccess;
}

// ---- errors, lookup, dark API ----
CUresult cuGetErrorName(CUresult error, const char** str) {
  if (!str) return kCudaErrorInvalidValue;
  *str = cuda_error_name(error);
  return *str ? kCudaSuccess : kCudaErrorInvalidValue;
}

CUresult cuGetErrorString(CUresult error, const char** str) {
  if (!str) return kCudaErrorInvalidValue;
  switch (error) {
    case 0:
      *str = "no error";
      break;
    case 1:
      *str = "invalid argument";
      break;
    case 3:
      *str = "initialization error";
      break;
    case 34:
      *str = "CUDA driver is a stub library";
      break;
    case 100:
      *str = "no CUDA-capable device is detected";
      break;
    case 101:
      *str = "invalid device ordinal";
      break;
    case 201:
      *str = "invalid device context";
      break;
    case 209:
      *str = "no kernel image is available for execution on the device";
      break;
    case 801:
      *str = "operation not supported";
      break;
    case 999:
      *str = "unknown error";
      break;
    default:
      *str = cuda_error_name(error);
      break;  // the name stands in for text not modelled
  }
  return *str ? kCudaSuccess : kCudaErrorInvalidValue;
}

CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, std::uint64_t flags,
                             ProcAddressQueryResult* status) {
  return lookup(symbol, pfn, version, flags, status);
}

CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, std::uint64_t flags) {
  return lookup(symbol, pfn, version, flags, nullptr);
}

CUresult cuGetExportTable(const void** table, const void* uuid) {
  if (table) *table = nullptr;
  return kCudaErrorNotSupported;  // the undocumented tables are not faked (driver-api.md §8)
}

}  // extern "C"

namespace {
const Self& self() {
  static const Self s = [] {
    Self out;
    Dl_info info{};
    if (dladdr(static_cast<const void*>(&g_initialized), &info) && info.dli_fname) {
      out.handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
      out.base = info.dli_fbase;
    }
    return out;
  }();
  return s;
}
}  // namespace
