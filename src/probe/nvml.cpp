// The one NVML loader (include/smcompat/probe/nvml.hpp).
#include "smcompat/probe/nvml.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstring>
#include <utility>

#include "smcompat/probe/driver_lookup.hpp"

namespace smcompat::driver {

std::string NvmlFunctions::error(nvmlReturn_t r) const {
  const char* s = error_string ? error_string(r) : nullptr;
  return s ? fmt::format("{} (NVML error {})", s, r) : fmt::format("NVML error {}", r);
}

std::unique_ptr<NvmlLibrary> NvmlLibrary::open(const std::string& path, std::string* why,
                                               std::string* loaded_from) {
  auto fail = [&](std::string text) -> std::unique_ptr<NvmlLibrary> {
    if (why) *why = std::move(text);
    return nullptr;
  };
  dlerror();
  // Not dlclosed: NVML stays loaded for the process, as libcuda does.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = dlerror();
    return fail(fmt::format("{} could not be loaded: {}", path, e ? e : "unknown"));
  }
  std::string file = loaded_library_path(handle);
  if (loaded_from) *loaded_from = file;
  std::unique_ptr<NvmlLibrary> lib(new NvmlLibrary());
  NvmlFunctions& f = lib->fn_;
  const std::pair<void*, const char*> entries[] = {
      {&f.init, "nvmlInit_v2"},
      {&f.shutdown, "nvmlShutdown"},
      {&f.error_string, "nvmlErrorString"},
      {&f.driver_version, "nvmlSystemGetDriverVersion"},
      {&f.cuda_driver_version, "nvmlSystemGetCudaDriverVersion_v2"},
      {&f.get_count, "nvmlDeviceGetCount_v2"},
      {&f.by_index, "nvmlDeviceGetHandleByIndex_v2"},
      {&f.by_pci, "nvmlDeviceGetHandleByPciBusId_v2"},
      {&f.cc, "nvmlDeviceGetCudaComputeCapability"},
      {&f.nvlink_state, "nvmlDeviceGetNvLinkState"},
      {&f.nvlink_remote, "nvmlDeviceGetNvLinkRemotePciInfo_v2"},
      {&f.common_ancestor, "nvmlDeviceGetTopologyCommonAncestor"},
      {&f.pcie_gen_current, "nvmlDeviceGetCurrPcieLinkGeneration"},
      {&f.pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration"},
      {&f.pcie_width_current, "nvmlDeviceGetCurrPcieLinkWidth"},
      {&f.pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth"},
      {&f.clock, "nvmlDeviceGetClockInfo"},
      {&f.temperature, "nvmlDeviceGetTemperature"},
      {&f.power, "nvmlDeviceGetPowerUsage"},
      {&f.clock_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons"},
  };
  // Function pointers are stored through their object representation (POSIX: dlsym's result
  // converts to a function pointer).
  auto resolve = [&](void* slot, const char* name) {
    void* p = dlsym(handle, name);
    std::memcpy(slot, &p, sizeof p);
  };
  for (const auto& [slot, name] : entries) resolve(slot, name);
  // Older drivers' names: the unversioned CUDA driver version query, and the clock event
  // reasons before their 535 rename.
  if (!f.cuda_driver_version) resolve(&f.cuda_driver_version, "nvmlSystemGetCudaDriverVersion");
  if (!f.clock_event_reasons)
    resolve(&f.clock_event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  auto shutdown = std::exchange(f.shutdown, nullptr);  // only once initialised
  if (!f.init) return fail(fmt::format("{} has no nvmlInit_v2", file));
  if (nvmlReturn_t r = f.init(); r != kNvmlSuccess)
    return fail(fmt::format("nvmlInit_v2 failed: {}", f.error(r)));
  f.shutdown = shutdown;
  return lib;
}

NvmlLibrary::~NvmlLibrary() {
  if (fn_.shutdown) fn_.shutdown();
}

}  // namespace smcompat::driver
