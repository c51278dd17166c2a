// DriverLookup (include/smcompat/probe/driver_lookup.hpp): cuGetProcAddress_v2 first, then
// cuGetProcAddress, then dlsym of the versioned name, remembering which path answered.
#include "smcompat/probe/driver_lookup.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <link.h>

namespace smcompat::driver {

void DriverLookup::bind_resolver() {
  gpa2 = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(handle, "cuGetProcAddress_v2"));
  if (!gpa2)
    gpa1 = reinterpret_cast<PFN_cuGetProcAddress_v11030>(dlsym(handle, "cuGetProcAddress"));
}

void* DriverLookup::resolve(const char* base, int version, const char* versioned) {
  void* p = nullptr;
  if (gpa2) {
    ProcAddressQueryResult status = kProcAddressSuccess;
    CUresult r = gpa2(base, &p, version, 0, &status);
    if (r == kCudaErrorStubLibrary) stub_seen = true;
    if (r == kCudaSuccess && p) {
      last_via = "cuGetProcAddress_v2";
      return p;
    }
  } else if (gpa1) {
    CUresult r = gpa1(base, &p, version, 0);
    if (r == kCudaErrorStubLibrary) stub_seen = true;
    if (r == kCudaSuccess && p) {
      last_via = "cuGetProcAddress";
      return p;
    }
  }
  p = dlsym(handle, versioned);
  if (p) last_via = "dlsym";
  return p;
}

void DriverCore::load_core() {
  bind_resolver();
  init = get<PFN_cuInit_v2000>("cuInit", 2000, "cuInit");
  init_via = last_via;
  driver_get_version =
      get<PFN_cuDriverGetVersion_v2020>("cuDriverGetVersion", 2020, "cuDriverGetVersion");
  device_get_count = get<PFN_cuDeviceGetCount_v2000>("cuDeviceGetCount", 2000, "cuDeviceGetCount");
  get_error_name = get<PFN_cuGetErrorName_v6000>("cuGetErrorName", 6000, "cuGetErrorName");
}

std::string DriverCore::error_name(CUresult r) const { return cuda_error_text(get_error_name, r); }

std::string cuda_error_text(PFN_cuGetErrorName_v6000 get_error_name, CUresult r) {
  const char* s = nullptr;
  if (get_error_name && r != kCudaErrorStubLibrary && get_error_name(r, &s) == kCudaSuccess && s)
    return s;
  if (const char* n = cuda_error_name(r)) return n;
  return fmt::format("CUresult {}", r);
}

std::string loaded_library_path(void* handle) {
  link_map* lm = nullptr;
  if (handle && dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name) return lm->l_name;
  return {};
}

}  // namespace smcompat::driver
