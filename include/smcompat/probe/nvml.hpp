// NVML, dlopened by one loader for every user (the probe's identity, PCIe and NVLink topology;
// bench's clocks, power and throttle reasons): entry points resolved by their exported names
// (NVML has no resolver), nvmlInit_v2 on open, nvmlShutdown when the library object goes.
#pragma once

#include <memory>
#include <string>

#include "smcompat/probe/driver_abi.hpp"

namespace smcompat::driver {

/// Every NVML entry point smcompat calls; null where the library does not export it.
struct NvmlFunctions {
  PFN_nvmlInit_v2 init = nullptr;
  PFN_nvmlShutdown shutdown = nullptr;
  PFN_nvmlErrorString error_string = nullptr;
  PFN_nvmlSystemGetDriverVersion driver_version = nullptr;
  PFN_nvmlSystemGetCudaDriverVersion_v2 cuda_driver_version = nullptr;
  PFN_nvmlDeviceGetCount_v2 get_count = nullptr;
  PFN_nvmlDeviceGetHandleByIndex_v2 by_index = nullptr;
  PFN_nvmlDeviceGetHandleByPciBusId_v2 by_pci = nullptr;
  PFN_nvmlDeviceGetCudaComputeCapability cc = nullptr;
  PFN_nvmlDeviceGetNvLinkState nvlink_state = nullptr;
  PFN_nvmlDeviceGetNvLinkRemotePciInfo_v2 nvlink_remote = nullptr;
  PFN_nvmlDeviceGetTopologyCommonAncestor common_ancestor = nullptr;
  PFN_nvmlDeviceGetCurrPcieLinkGeneration pcie_gen_current = nullptr;
  PFN_nvmlDeviceGetMaxPcieLinkGeneration pcie_gen_max = nullptr;
  PFN_nvmlDeviceGetCurrPcieLinkWidth pcie_width_current = nullptr;
  PFN_nvmlDeviceGetMaxPcieLinkWidth pcie_width_max = nullptr;
  PFN_nvmlDeviceGetClockInfo clock = nullptr;
  PFN_nvmlDeviceGetTemperature temperature = nullptr;
  PFN_nvmlDeviceGetPowerUsage power = nullptr;
  PFN_nvmlDeviceGetCurrentClocksEventReasons clock_event_reasons = nullptr;

  /// "Driver Not Loaded (NVML error 9)", or "NVML error 9" without nvmlErrorString.
  std::string error(nvmlReturn_t r) const;
};

class NvmlLibrary {
 public:
  /// Loads `path` (a name such as libnvidia-ml.so.1, or a path) and initialises NVML. On failure
  /// nullptr, and `why` says what failed: "<path> could not be loaded: <dlerror>", "<file> has no
  /// nvmlInit_v2", "nvmlInit_v2 failed: <error>". `loaded_from` receives the file the dynamic
  /// loader opened as soon as it opened one (also when initialisation then fails).
  static std::unique_ptr<NvmlLibrary> open(const std::string& path, std::string* why,
                                           std::string* loaded_from = nullptr);
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  const NvmlFunctions& fn() const { return fn_; }

 private:
  NvmlLibrary() = default;
  NvmlFunctions fn_;
};

}  // namespace smcompat::driver
