// Resolving CUDA driver entry points with explicit ABI versions (driver-api.md §7): through
// cuGetProcAddress_v2 (CUDA 12.0+) or cuGetProcAddress (11.3+) when the library exports them,
// falling back to dlsym of the versioned name. Shared by the probe (probe.cpp) and the benchmark
// session (bench/cuda_session.cpp), so that both load the driver the same way. Relies on a handle
// from dlopen; never links against CUDA.
#pragma once

#include <string>

#include "smcompat/probe/driver_abi.hpp"

namespace smcompat::driver {

/// Entry-point resolution for one dlopen()ed libcuda.so.1.
struct DriverLookup {
  void* handle = nullptr;  ///< from dlopen; not owned
  PFN_cuGetProcAddress_v12000 gpa2 = nullptr;
  PFN_cuGetProcAddress_v11030 gpa1 = nullptr;
  bool stub_seen = false;  ///< cuGetProcAddress answered CUDA_ERROR_STUB_LIBRARY
  std::string last_via;    ///< how the last successful resolve() found its symbol

  /// Finds cuGetProcAddress_v2 (else cuGetProcAddress) in `handle`.
  void bind_resolver();
  /// Resolves `base` at ABI `version`; `versioned` is the exported name of that ABI (the dlsym
  /// fallback). nullptr when absent.
  void* resolve(const char* base, int version, const char* versioned);
  template <class F>
  F get(const char* base, int version, const char* versioned) {
    return reinterpret_cast<F>(resolve(base, version, versioned));
  }
};

/// The entry points every user of the driver starts with (initialise, version, device count, error
/// names), resolved the same way for the probe and the benchmark session.
struct DriverCore : DriverLookup {
  PFN_cuInit_v2000 init = nullptr;
  PFN_cuDriverGetVersion_v2020 driver_get_version = nullptr;
  PFN_cuDeviceGetCount_v2000 device_get_count = nullptr;
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;
  std::string init_via;  ///< how cuInit was found (last_via right after it)

  /// bind_resolver(), then the four entry points above.
  void load_core();
  std::string error_name(CUresult r) const;
};

/// The name of `r` as the library gives it (cuGetErrorName, unless null or a stub), else from
/// kCudaErrorNames, else "CUresult <n>".
std::string cuda_error_text(PFN_cuGetErrorName_v6000 get_error_name, CUresult r);

/// The file the dynamic loader opened for `handle` (empty if unknown).
std::string loaded_library_path(void* handle);

}  // namespace smcompat::driver
