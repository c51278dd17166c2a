// The trace shim's compute-capability override (SMCOMPAT_REPORT_CC, optionally only for callers
// in SMCOMPAT_REPORT_CC_ONLY_FOR): cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR/MINOR) and
// cuDeviceComputeCapability answer the reported capability; every caller object and API is
// recorded once ("cc_query"). The driver itself still selects code by the real capability
// (driver-api.md 4.2); NVML is left truthful.
#include <mutex>
#include <utility>

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

// Applies the override to one answer of the driver, for `caller`: `real_cc()` returns the real
// (major, minor) before anything is changed, `report(cfg)` writes the reported capability into the
// caller's outputs. Records the query; never lets an exception out (the answer stays the driver's).
template <class RealCc, class Report>
void override_answer(const char* api, const void* caller, RealCc real_cc, Report report) {
  try {
    Guard g;
    const Config& cfg = config();
    if (!cfg.override_cc) return;
    bool applied = caller_allowed(cfg, caller);
    auto [major, minor] = real_cc();
    if (applied) report(cfg);
    record_override(cfg, api, caller, major, minor, applied);
  } catch (...) {
  }
}

extern "C" {

SMCOMPAT_EXPORT CUresult cuDeviceGetAttribute(int* value, int attr, CUdevice dev) {
  auto real = real_of<PFN_cuDeviceGetAttribute_v2000>(kDeviceGetAttribute);
  if (!real) return kCudaErrorNotInitialized;
  CUresult r = real(value, attr, dev);
  const bool major_asked = attr == kAttrComputeCapabilityMajor;
  if (r != kCudaSuccess || (!major_asked && attr != kAttrComputeCapabilityMinor) || t_depth > 0 ||
      !value)
    return r;
  override_answer(
      "cuDeviceGetAttribute", __builtin_return_address(0),
      [&] {
        // The other half of the capability, from the driver.
        int other = 0;
        real(&other, major_asked ? kAttrComputeCapabilityMinor : kAttrComputeCapabilityMajor, dev);
        return major_asked ? std::pair(*value, other) : std::pair(other, *value);
      },
      [&](const Config& cfg) { *value = major_asked ? cfg.cc_major : cfg.cc_minor; });
  return r;
}

SMCOMPAT_EXPORT CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
  auto real = real_of<PFN_cuDeviceComputeCapability_v2000>(kDeviceComputeCapability);
  if (!real) return kCudaErrorNotInitialized;
  CUresult r = real(major, minor, dev);
  if (r != kCudaSuccess || t_depth > 0 || !major || !minor) return r;
  override_answer(
      "cuDeviceComputeCapability", __builtin_return_address(0),
      [&] { return std::pair(*major, *minor); },
      [&](const Config& cfg) {
        *major = cfg.cc_major;
        *minor = cfg.cc_minor;
      });
  return r;
}

}  // extern "C"

}  // namespace smcompat::trace_shim
