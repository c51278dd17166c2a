// The fake libnvidia-ml.so.1: the NVML calls smcompat's probe makes (driver-api.md §7), serving
// every GPU of SMCOMPAT_FAKE_GPUS in NVML order (NVML ignores CUDA_VISIBLE_DEVICES) and always
// the true compute capability (a masquerade changes only what CUDA reports). Topology model: see
// README.md. Handles are pointers into the immutable GPU list, so lookups need no locking. Entry
// points never call each other by exported name.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include "fake_state.hpp"
#include "smcompat/probe/driver_abi.hpp"

using namespace smcompat::driver;
using smcompat::fake::FakeGpu;
using smcompat::fake::state;

namespace {

std::atomic<int> g_init_count{0};

nvmlReturn_t check_init() { return g_init_count > 0 ? kNvmlSuccess : kNvmlErrorUninitialized; }

const FakeGpu* from_handle(nvmlDevice_t h) {
  const auto& all = state().all_gpus;
  for (const auto& g : all)
    if (reinterpret_cast<const void*>(&g) == reinterpret_cast<const void*>(h)) return &g;
  return nullptr;
}

nvmlDevice_t to_handle(const FakeGpu& g) {
  return reinterpret_cast<nvmlDevice_t>(const_cast<FakeGpu*>(&g));
}

nvmlReturn_t copy_string(const std::string& s, char* out, unsigned len) {
  if (!out) return kNvmlErrorInvalidArgument;
  if (s.size() + 1 > len) return kNvmlErrorInsufficientSize;
  std::memcpy(out, s.c_str(), s.size() + 1);
  return kNvmlSuccess;
}

// "0000:01:00.0" or "00000000:01:00.0" (any case) -> (domain, bus, device, function).
bool parse_bus_id(const char* s, unsigned& dom, unsigned& bus, unsigned& dev, unsigned& fn) {
  char tail = 0;
  return s && std::sscanf(s, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) == 4;
}

void fill_pci(const FakeGpu& g, NvmlPciInfo* info) {
  std::memset(info, 0, sizeof *info);
  unsigned dom = 0, bus = 0, dev = 0, fn = 0;
  parse_bus_id(g.pci_bus_id.c_str(), dom, bus, dev, fn);
  std::snprintf(info->busIdLegacy, sizeof info->busIdLegacy, "%04x:%02x:%02x.%x", dom, bus, dev,
                fn);
  std::snprintf(info->busId, sizeof info->busId, "%08x:%02x:%02x.%x", dom, bus, dev, fn);
  info->domain = dom;
  info->bus = bus;
  info->device = dev;
  info->pciDeviceId = 0x10de;  // vendor NVIDIA; the device id is not modelled
}

nvmlReturn_t init() {
  if (!state().errors.empty()) return kNvmlErrorUnknown;
  if (state().nvml_init_error != 0) return state().nvml_init_error;
  ++g_init_count;
  return kNvmlSuccess;
}

nvmlReturn_t cuda_driver_version(int* v) {
  if (nvmlReturn_t r = check_init()) return r;
  if (!v) return kNvmlErrorInvalidArgument;
  *v = state().driver_cuda_version;
  return kNvmlSuccess;
}

// Common prologue of the NVLink queries: initialised, a known device and an output pointer, NVLink
// configured (SMCOMPAT_FAKE_NVLINK); sets `g`.
nvmlReturn_t nvlink_prologue(nvmlDevice_t h, const void* out, const FakeGpu*& g) {
  if (nvmlReturn_t r = check_init()) return r;
  g = from_handle(h);
  if (!g || !out) return kNvmlErrorInvalidArgument;
  return state().nvlink_per_pair > 0 ? kNvmlSuccess : kNvmlErrorNotSupported;
}

// The four PCIe link queries: initialised, a known device and an output pointer, a configured
// link (SMCOMPAT_FAKE_PCIE); then `field` of the GPU.
nvmlReturn_t pcie_query(nvmlDevice_t h, unsigned* out, unsigned FakeGpu::*field) {
  if (nvmlReturn_t r = check_init()) return r;
  const FakeGpu* g = from_handle(h);
  if (!g || !out) return kNvmlErrorInvalidArgument;
  if (g->pcie_error) return g->pcie_error;
  *out = g->*field;
  return kNvmlSuccess;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2() { return init(); }
nvmlReturn_t nvmlInit() { return init(); }

nvmlReturn_t nvmlShutdown() {
  if (g_init_count <= 0) return kNvmlErrorUninitialized;
  --g_init_count;
  return kNvmlSuccess;
}

const char* nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case 0:
      return "Success";
    case 1:
      return "Uninitialized";
    case 2:
      return "Invalid Argument";
    case 3:
      return "Not Supported";
    case 4:
      return "Insufficient Permissions";
    case 6:
      return "Not Found";
    case 7:
      return "Insufficient Size";
    case 9:
      return "Driver Not Loaded";
    default:
      return "Unknown Error";
  }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* out, unsigned len) {
  if (nvmlReturn_t r = check_init()) return r;
  return copy_string(state().driver_version, out, len);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* v) { return cuda_driver_version(v); }
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* v) { return cuda_driver_version(v); }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* count) {
  if (nvmlReturn_t r = check_init()) return r;
  if (!count) return kNvmlErrorInvalidArgument;
  *count = static_cast<unsigned>(state().all_gpus.size());
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t* dev) {
  if (nvmlReturn_t r = check_init()) return r;
  const auto& all = state().all_gpus;
  if (!dev || index >= all.size()) return kNvmlErrorInvalidArgument;
  *dev = to_handle(all[index]);
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, nvmlDevice_t* dev) {
  if (nvmlReturn_t r = check_init()) return r;
  unsigned d0, b0, s0, f0;
  if (!dev || !parse_bus_id(bus_id, d0, b0, s0, f0)) return kNvmlErrorInvalidArgument;
  for (const auto& g : state().all_gpus) {
    unsigned d1, b1, s1, f1;
    if (parse_bus_id(g.pci_bus_id.c_str(), d1, b1, s1, f1) && d0 == d1 && b0 == b1 && s0 == s1 &&
        f0 == f1) {
      *dev = to_handle(g);
      return kNvmlSuccess;
    }
  }
  return kNvmlErrorNotFound;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char* out, unsigned len) {
  if (nvmlReturn_t r = check_init()) return r;
  const FakeGpu* g = from_handle(h);
  return g ? copy_string(g->name, out, len) : kNvmlErrorInvalidArgument;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t h, char* out, unsigned len) {
  if (nvmlReturn_t r = check_init()) return r;
  const FakeGpu* g = from_handle(h);
  return g ? copy_string(g->uuid, out, len) : kNvmlErrorInvalidArgument;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t h, NvmlPciInfo* info) {
  if (nvmlReturn_t r = check_init()) return r;
  const FakeGpu* g = from_handle(h);
  if (!g || !info) return kNvmlErrorInvalidArgument;
  fill_pci(*g, info);
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t h, int* major, int* minor) {
  if (nvmlReturn_t r = check_init()) return r;
  const FakeGpu* g = from_handle(h);
  if (!g || !major || !minor) return kNvmlErrorInvalidArgument;
  *major = g->cc_major;  // always the truth
  *minor = g->cc_minor;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t h, unsigned link, int* active) {
  const FakeGpu* g = nullptr;
  if (nvmlReturn_t r = nvlink_prologue(h, active, g)) return r;
  const auto& st = state();
  if (static_cast<int>(link) >= smcompat::fake::nvlink_count(st, g->physical_index))
    return kNvmlErrorInvalidArgument;
  *active = 1;  // NVML_FEATURE_ENABLED
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t h, unsigned link, NvmlPciInfo* info) {
  const FakeGpu* g = nullptr;
  if (nvmlReturn_t r = nvlink_prologue(h, info, g)) return r;
  const auto& st = state();
  int peer = smcompat::fake::nvlink_peer(st, g->physical_index, static_cast<int>(link));
  if (peer < 0) return kNvmlErrorInvalidArgument;
  fill_pci(st.all_gpus[peer], info);
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t h1, nvmlDevice_t h2, int* level) {
  if (nvmlReturn_t r = check_init()) return r;
  const FakeGpu* a = from_handle(h1);
  const FakeGpu* b = from_handle(h2);
  if (!a || !b || !level || a == b) return kNvmlErrorInvalidArgument;
  int i = a->physical_index, j = b->physical_index;
  // Model: GPUs 2k and 2k+1 share a PCIe switch; groups of four share a NUMA node.
  *level = (i / 2 == j / 2)   ? kNvmlTopologySingle
           : (i / 4 == j / 4) ? kNvmlTopologyNode
                              : kNvmlTopologySystem;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t h1, nvmlDevice_t h2, int index, int* status) {
  if (nvmlReturn_t r = check_init()) return r;
  const FakeGpu* a = from_handle(h1);
  const FakeGpu* b = from_handle(h2);
  if (!a || !b || !status || a == b) return kNvmlErrorInvalidArgument;
  const auto& st = state();
  bool nvlink = smcompat::fake::nvlink_links(st, a->physical_index, b->physical_index) > 0;
  bool ok = false;
  switch (index) {
    case kNvmlP2PCapsRead:
    case kNvmlP2PCapsWrite:
      ok = st.p2p;
      break;
    case kNvmlP2PCapsNvlink:
      ok = nvlink;
      break;
    case kNvmlP2PCapsAtomics:
      ok = st.p2p && nvlink;
      break;
    default:
      ok = false;
      break;
  }
  *status = ok ? kNvmlP2PStatusOk : kNvmlP2PStatusNotSupported;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t h, unsigned* gen) {
  return pcie_query(h, gen, &FakeGpu::pcie_gen_current);
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t h, unsigned* gen) {
  return pcie_query(h, gen, &FakeGpu::pcie_gen_max);
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t h, unsigned* width) {
  return pcie_query(h, width, &FakeGpu::pcie_width_current);
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t h, unsigned* width) {
  return pcie_query(h, width, &FakeGpu::pcie_width_max);
}

// ---- device state (clocks at their catalog maxima, fixed temperature, power and throttling) ----
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t h, int type, unsigned* mhz) {
  if (nvmlReturn_t r = check_init()) return r;
  const FakeGpu* g = from_handle(h);
  if (!g || !mhz) return kNvmlErrorInvalidArgument;
  switch (type) {
    case kNvmlClockGraphics:
    case kNvmlClockSm:
      *mhz = static_cast<unsigned>(g->clock_khz / 1000);
      return kNvmlSuccess;
    case kNvmlClockMem:
      *mhz = static_cast<unsigned>(g->memory_clock_khz / 1000);
      return kNvmlSuccess;
    default:
      return kNvmlErrorInvalidArgument;
  }
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t h, int sensor, unsigned* celsius) {
  if (nvmlReturn_t r = check_init()) return r;
  if (!from_handle(h) || !celsius || sensor != kNvmlTemperatureGpu)
    return kNvmlErrorInvalidArgument;
  *celsius = state().temperature_c;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t h, unsigned* milliwatts) {
  if (nvmlReturn_t r = check_init()) return r;
  if (!from_handle(h) || !milliwatts) return kNvmlErrorInvalidArgument;
  *milliwatts = state().power_mw;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t h, unsigned long long* reasons) {
  if (nvmlReturn_t r = check_init()) return r;
  if (!from_handle(h) || !reasons) return kNvmlErrorInvalidArgument;
  *reasons = state().throttle_reasons;
  return kNvmlSuccess;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t h,
                                                       unsigned long long* reasons) {
  if (nvmlReturn_t r = check_init()) return r;  // the older name of the same query
  if (!from_handle(h) || !reasons) return kNvmlErrorInvalidArgument;
  *reasons = state().throttle_reasons;
  return kNvmlSuccess;
}

}  // extern "C"
