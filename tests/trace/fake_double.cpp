// A minimal stand-in for the device/context half of the fake libcuda.so.1 (the real one is
// tests/fakedriver/, written for the probe work): devices, primary contexts, cuGetProcAddress and
// cuGetExportTable, enough for the trace tests to run the module-loading half
// (tests/fakedriver/fake_modules.cpp) and the shim against it. It implements the contract of
// tests/fakedriver/fake_state.hpp.
// Configuration: SMCOMPAT_FAKE_GPUS="NVIDIA GeForce RTX 5090=12.0;NVIDIA H100=9.0" (default one
// RTX 5090), SMCOMPAT_FAKE_DRIVER_CUDA=13000.
// cuGetProcAddress follows driver-api.md 2.1: the base name plus the ABI version picks the
// exported symbol (cuGetProcAddress@12000 -> cuGetProcAddress_v2, cuLinkAddData@6050 -> _v2 ...);
// unknown names give CUDA_SUCCESS with a NULL pointer and status 1; a version above the driver's
// gives CUDA_ERROR_INVALID_VALUE. cuGetExportTable answers CUDA_ERROR_NOT_SUPPORTED, so the CUDA
// runtime stops right after its bootstrap (driver-api.md 8).
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "fakedriver/fake_state.hpp"

namespace smcompat::fake {

namespace {

FakeState load_state() {
  FakeState st;
  st.driver_version = "580.95.05";
  if (const char* v = std::getenv("SMCOMPAT_FAKE_DRIVER_CUDA")) st.driver_cuda_version = std::atoi(v);
  std::string spec = "NVIDIA GeForce RTX 5090=12.0";
  if (const char* v = std::getenv("SMCOMPAT_FAKE_GPUS")) spec = v;
  size_t start = 0;
  int index = 0;
  while (start <= spec.size()) {
    size_t end = spec.find(';', start);
    if (end == std::string::npos) end = spec.size();
    std::string item = spec.substr(start, end - start);
    size_t eq = item.rfind('=');
    if (eq != std::string::npos) {
      FakeGpu g;
      g.name = item.substr(0, eq);
      std::string cc = item.substr(eq + 1);
      g.cc_major = std::atoi(cc.c_str());
      size_t dot = cc.find('.');
      g.cc_minor = dot == std::string::npos ? 0 : std::atoi(cc.c_str() + dot + 1);
      char bus[32];
      std::snprintf(bus, sizeof bus, "00000000:%02X:00.0", index + 1);
      g.pci_bus_id = bus;
      g.uuid = "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(index);
      st.gpus.push_back(g);
      ++index;
    }
    start = end + 1;
  }
  return st;
}

thread_local int t_current = -1;
// An address inside this library that symbol interposition cannot redirect (a preloaded shim
// exports cuGetProcAddress_v2 too, so &cuGetProcAddress_v2 may point into the shim).
int g_self_anchor = 0;
int g_contexts[64];  // a primary context is the address of its device's slot
bool g_initialized = false;

}  // namespace

const FakeState& state() {
  static const FakeState* st = new FakeState(load_state());
  return *st;
}

int current_device() { return t_current; }

}  // namespace smcompat::fake

using smcompat::fake::state;

extern "C" {

#define FAKE_EXPORT __attribute__((visibility("default")))
using CUresult = int;

FAKE_EXPORT CUresult cuInit(unsigned flags) {
  if (flags != 0) return 1;
  smcompat::fake::g_initialized = true;
  return 0;
}

FAKE_EXPORT CUresult cuDriverGetVersion(int* v) {
  if (!v) return 1;
  *v = state().driver_cuda_version;
  return 0;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int* n) {
  if (!n) return 1;
  if (!smcompat::fake::g_initialized) return 3;
  *n = static_cast<int>(state().gpus.size());
  return 0;
}

FAKE_EXPORT CUresult cuDeviceGet(int* dev, int ordinal) {
  if (!dev) return 1;
  if (!smcompat::fake::g_initialized) return 3;
  if (ordinal < 0 || ordinal >= static_cast<int>(state().gpus.size())) return 101;
  *dev = ordinal;
  return 0;
}

FAKE_EXPORT CUresult cuDeviceGetName(char* name, int len, int dev) {
  if (!name || len <= 0 || dev < 0 || dev >= static_cast<int>(state().gpus.size())) return 1;
  std::snprintf(name, static_cast<size_t>(len), "%s", state().gpus[dev].name.c_str());
  return 0;
}

FAKE_EXPORT CUresult cuDeviceGetAttribute(int* v, int attr, int dev) {
  if (!v) return 1;
  if (!smcompat::fake::g_initialized) return 3;
  if (dev < 0 || dev >= static_cast<int>(state().gpus.size())) return 101;
  const auto& g = state().gpus[dev];
  switch (attr) {
    case 75: *v = g.cc_major; return 0;
    case 76: *v = g.cc_minor; return 0;
    case 16: *v = 100; return 0;
    default: *v = 0; return 0;
  }
}

FAKE_EXPORT CUresult cuDeviceComputeCapability(int* major, int* minor, int dev) {
  if (!major || !minor) return 1;
  if (!smcompat::fake::g_initialized) return 3;
  if (dev < 0 || dev >= static_cast<int>(state().gpus.size())) return 101;
  *major = state().gpus[dev].cc_major;
  *minor = state().gpus[dev].cc_minor;
  return 0;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(void** ctx, int dev) {
  if (!ctx) return 1;
  if (!smcompat::fake::g_initialized) return 3;
  if (dev < 0 || dev >= static_cast<int>(state().gpus.size()) || dev >= 64) return 101;
  *ctx = &smcompat::fake::g_contexts[dev];
  return 0;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int) { return 0; }

FAKE_EXPORT CUresult cuCtxSetCurrent(void* ctx) {
  if (!ctx) {
    smcompat::fake::t_current = -1;
    return 0;
  }
  auto* slot = static_cast<int*>(ctx);
  if (slot < smcompat::fake::g_contexts || slot >= smcompat::fake::g_contexts + 64) return 201;
  smcompat::fake::t_current = static_cast<int>(slot - smcompat::fake::g_contexts);
  return 0;
}

FAKE_EXPORT CUresult cuCtxGetDevice(int* dev) {
  if (!dev) return 1;
  if (smcompat::fake::t_current < 0) return 201;
  *dev = smcompat::fake::t_current;
  return 0;
}

FAKE_EXPORT CUresult cuGetErrorName(CUresult r, const char** name) {
  if (!name) return 1;
  switch (r) {
    case 0: *name = "CUDA_SUCCESS"; return 0;
    case 1: *name = "CUDA_ERROR_INVALID_VALUE"; return 0;
    case 3: *name = "CUDA_ERROR_NOT_INITIALIZED"; return 0;
    case 200: *name = "CUDA_ERROR_INVALID_IMAGE"; return 0;
    case 201: *name = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
    case 209: *name = "CUDA_ERROR_NO_BINARY_FOR_GPU"; return 0;
    case 222: *name = "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"; return 0;
    case 223: *name = "CUDA_ERROR_JIT_COMPILATION_DISABLED"; return 0;
    case 301: *name = "CUDA_ERROR_FILE_NOT_FOUND"; return 0;
    case 400: *name = "CUDA_ERROR_INVALID_HANDLE"; return 0;
    case 500: *name = "CUDA_ERROR_NOT_FOUND"; return 0;
    case 801: *name = "CUDA_ERROR_NOT_SUPPORTED"; return 0;
    default: *name = nullptr; return 1;
  }
}

FAKE_EXPORT CUresult cuGetExportTable(const void** table, const void*) {
  if (table) *table = nullptr;
  return 801;  // CUDA_ERROR_NOT_SUPPORTED: the runtime's dark API is not faked
}

FAKE_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version,
                                         unsigned long long flags, int* status) {
  if (!symbol || !pfn) return 1;
  *pfn = nullptr;
  if (version > state().driver_cuda_version) return 1;
  // Versioned exports a real driver maps these base names to.
  struct Versioned {
    const char* base;
    int from;
    const char* name;
  };
  static const Versioned kVersioned[] = {
      {"cuGetProcAddress", 12000, "cuGetProcAddress_v2"},
      {"cuLinkCreate", 6050, "cuLinkCreate_v2"},
      {"cuLinkAddData", 6050, "cuLinkAddData_v2"},
      {"cuLinkAddFile", 6050, "cuLinkAddFile_v2"},
      {"cuDevicePrimaryCtxRelease", 11000, "cuDevicePrimaryCtxRelease_v2"},
  };
  std::string name = symbol;
  for (const Versioned& v : kVersioned)
    if (name == v.base && version >= v.from) name = v.name;
  void* p = nullptr;
  if (!name.empty() && name.rfind("cu", 0) == 0) {
    Dl_info info{};
    if (dladdr(&smcompat::fake::g_self_anchor, &info) && info.dli_fname) {
      if (void* self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD)) {
        p = dlsym(self, name.c_str());
        dlclose(self);
      }
    }
  }
  *pfn = p;
  if (status) *status = p ? 0 : 1;
  return 0;
}

FAKE_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int version,
                                      unsigned long long flags) {
  return cuGetProcAddress_v2(symbol, pfn, version, flags, nullptr);
}

}  // extern "C"
