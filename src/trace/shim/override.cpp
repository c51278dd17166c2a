// The trace shim's compute-capability override (SMCOMPAT_REPORT_CC, optionally only for callers
// in SMCOMPAT_REPORT_CC_ONLY_FOR): cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR/MINOR) and
// cuDeviceComputeCapability answer the reported capability; every caller object and API is
// recorded once ("cc_query"). The driver itself still selects code by the real capability
// (driver-api.md 4.2); NVML is left truthful.
#include <mutex>

#include "shim_internal.hpp"

namespace smcompat::trace_shim {

static bool caller_allowed(const Config& cfg, const void* caller) {
  if (cfg.only_for.empty()) return true;
  std::string obj = basename_of(object_of(caller).c_str());
  if (obj.empty()) return false;
  for (const std::string& want : cfg.only_for)
    if (obj.find(want) != std::string::npos) return true;
  return false;
}

static void record_override(const Config& cfg, const char* api, const void* caller, int real_major,
                            int real_minor, bool applied) {
  if (cfg.fd < 0) return;
  std::string obj = object_of(caller);
  {
    std::lock_guard<std::mutex> lock(g_registry.mu);
    std::string key = obj + "|" + api + (applied ? "|1" : "|0");
    for (const std::string& k : g_registry.override_seen)
      if (k == key) return;
    g_registry.override_seen.push_back(key);
  }
  emit(cfg,
       {{"ev", "cc_query"},
        {"api", api},
        {"caller", obj},
        {"real_cc", std::to_string(real_major) + "." + std::to_string(real_minor)},
        {"reported_cc", applied ? std::to_string(cfg.cc_major) + "." + std::to_string(cfg.cc_minor)
                                : std::to_string(real_major) + "." + std::to_string(real_minor)},
        {"overridden", applied}});
}

extern "C" {

SMCOMPAT_EXPORT CUresult cuDeviceGetAttribute(int* value, int attr, CUdevice dev) {
  auto real = real_of<PFN_cuDeviceGetAttribute_v2000>(kDeviceGetAttribute);
  if (!real) return kCudaErrorNotInitialized;
  CUresult r = real(value, attr, dev);
  if (r != kCudaSuccess ||
      (attr != kAttrComputeCapabilityMajor && attr != kAttrComputeCapabilityMinor) || t_depth > 0 ||
      !value)
    return r;
  try {
    Guard g;
    const Config& cfg = config();
    if (!cfg.override_cc) return r;
    const void* caller = __builtin_return_address(0);
    bool applied = caller_allowed(cfg, caller);
    int real_value = *value;
    if (applied) *value = attr == kAttrComputeCapabilityMajor ? cfg.cc_major : cfg.cc_minor;
    int major = 0, minor = 0;
    if (attr == kAttrComputeCapabilityMajor) {
      major = real_value;
      real(&minor, kAttrComputeCapabilityMinor, dev);
    } else {
      minor = real_value;
      real(&major, kAttrComputeCapabilityMajor, dev);
    }
    record_override(cfg, "cuDeviceGetAttribute", caller, major, minor, applied);
  } catch (...) {
  }
  return r;
}

SMCOMPAT_EXPORT CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
  auto real = real_of<PFN_cuDeviceComputeCapability_v2000>(kDeviceComputeCapability);
  if (!real) return kCudaErrorNotInitialized;
  CUresult r = real(major, minor, dev);
  if (r != kCudaSuccess || t_depth > 0 || !major || !minor) return r;
  try {
    Guard g;
    const Config& cfg = config();
    if (!cfg.override_cc) return r;
    const void* caller = __builtin_return_address(0);
    bool applied = caller_allowed(cfg, caller);
    int real_major = *major, real_minor = *minor;
    if (applied) {
      *major = cfg.cc_major;
      *minor = cfg.cc_minor;
    }
    record_override(cfg, "cuDeviceComputeCapability", caller, real_major, real_minor, applied);
  } catch (...) {
  }
  return r;
}

}  // extern "C"

}  // namespace smcompat::trace_shim
