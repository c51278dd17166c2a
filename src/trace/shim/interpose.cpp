// The trace shim's interposition: it sits between a program and the CUDA driver at every path
// the CUDA runtime and driver-API programs use to reach it: an interposed dlsym on libcuda,
// cuGetProcAddress/_v2 and the runtime's bootstrap request for "cuGetProcAddress", and plain PLT
// calls (the wrappers of loads.cpp and override.cpp are exported under the driver's names).
// Reference: ../shared/reference/driver-api.md sections 2 and 3. Rules kept here:
//  - fail-open: every exported entry catches everything; any internal problem turns the call into
//    a pass-through to the driver;
//  - wrappers are chosen by (name, cudaVersion, flags) and never handed out for another ABI;
//  - nothing is wrapped on launch paths (cuLaunchKernel & co. resolve to the driver's pointer).
#include <dlfcn.h>
#include <link.h>

#include <cstring>

#include "shim_internal.hpp"

namespace smcompat::trace_shim {

__thread int t_depth __attribute__((tls_model("initial-exec"))) = 0;

using DlsymFn = void* (*)(void*, const char*);

}  // namespace smcompat::trace_shim

// The real dlsym, read by the assembly entry below for RTLD_NEXT callers (hidden, not exported).
extern "C" {
__attribute__((visibility("hidden"))) smcompat::trace_shim::DlsymFn smcompat_real_dlsym_ptr =
    nullptr;
}

namespace smcompat::trace_shim {

// Runs before any sanitizer runtime has mapped its shadow memory (its interceptors are set up
// through dlsym first): the entry path of dlsym is not instrumented.
#define SMCOMPAT_EARLY __attribute__((no_sanitize("address", "undefined")))

SMCOMPAT_EARLY DlsymFn real_dlsym() {
  DlsymFn fn = __atomic_load_n(&smcompat_real_dlsym_ptr, __ATOMIC_ACQUIRE);
  if (fn) return fn;
  // glibc 2.34 moved dlsym into libc with a new version; older ones only have the 2.2.5 (x86-64)
  // or 2.17 (aarch64) version (driver-api.md 3.2). A plain array: no library code (in a debug
  // build, even std::initializer_list::begin is an instrumented call) before the shadow exists.
  static const char* const kVersions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"};
  for (size_t i = 0; !fn && i < sizeof kVersions / sizeof kVersions[0]; ++i)
    fn = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", kVersions[i]));
  if (fn) __atomic_store_n(&smcompat_real_dlsym_ptr, fn, __ATOMIC_RELEASE);
  return fn;
}

__attribute__((constructor(101))) static void init_real_dlsym() { (void)real_dlsym(); }

std::string basename_of(const char* path) {
  if (!path) return {};
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// True if `addr` lies in a library whose file name starts with "libcuda.so" (the driver, or the
// test suite's fake driver).
static bool in_libcuda(const void* addr) {
  Dl_info info{};
  if (!addr || dladdr(addr, &info) == 0 || !info.dli_fname) return false;
  return basename_of(info.dli_fname).rfind("libcuda.so", 0) == 0;
}

std::string object_of(const void* addr) {
  Dl_info info{};
  if (!addr || dladdr(addr, &info) == 0 || !info.dli_fname || !*info.dli_fname) return "";
  return info.dli_fname;
}

void* resolve_export(const char* name) {
  DlsymFn dl = real_dlsym();
  if (!dl) return nullptr;
  void* p = dl(RTLD_NEXT, name);
  if (p && in_libcuda(p)) return p;
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!handle) return nullptr;
  p = dl(handle, name);
  dlclose(handle);
  return p;
}

static bool is_wrapper(const void* p) {
  for (const Slot& s : g_slots)
    if (s.wrapper == p) return true;
  return false;
}

void remember_real(Slot& slot, void* real) {
  if (!real || is_wrapper(real)) return;
  void* expected = nullptr;
  slot.real.compare_exchange_strong(expected, real);
}

// Driver functions the shim calls for its own queries (never wrapped): resolved through the

static Aux g_aux;

const Aux& aux() {
  std::call_once(g_aux.once, [] {
    Guard g;
    auto get = [](const char* base, int version, const char* export_name) -> void* {
      if (auto gpa = reinterpret_cast<PFN_cuGetProcAddress_v12000>(
              g_slots[kGetProcAddressV2].real.load())) {
        void* p = nullptr;
        ProcAddressQueryResult status = kProcAddressSuccess;
        if (gpa(base, &p, version, 0, &status) == kCudaSuccess && p && !is_wrapper(p)) return p;
      }
      void* p = resolve_export(export_name);
      return is_wrapper(p) ? nullptr : p;
    };
    // (entry, base name, ABI version); the exported name of each of these ABIs is the base name.
    const struct {
      void* entry;
      const char* name;
      int version;
    } entries[] = {{&g_aux.ctx_get_device, "cuCtxGetDevice", 2000},
                   {&g_aux.device_get_attribute, "cuDeviceGetAttribute", 2000},
                   {&g_aux.device_get_count, "cuDeviceGetCount", 2000},
                   {&g_aux.driver_get_version, "cuDriverGetVersion", 2020},
                   {&g_aux.module_load_data_ex, "cuModuleLoadDataEx", 2010},
                   {&g_aux.module_get_function_count, "cuModuleGetFunctionCount", 12040},
                   {&g_aux.module_enumerate_functions, "cuModuleEnumerateFunctions", 12040},
                   {&g_aux.func_get_attribute, "cuFuncGetAttribute", 2020},
                   {&g_aux.func_get_name, "cuFuncGetName", 12030},
                   {&g_aux.library_get_kernel_count, "cuLibraryGetKernelCount", 12040},
                   {&g_aux.library_enumerate_kernels, "cuLibraryEnumerateKernels", 12040},
                   {&g_aux.kernel_get_attribute, "cuKernelGetAttribute", 12000},
                   {&g_aux.kernel_get_name, "cuKernelGetName", 12030},
                   {&g_aux.get_error_name, "cuGetErrorName", 6000}};
    // A function pointer is stored through its object representation (POSIX: a pointer from the
    // driver's resolver converts to a function pointer).
    for (const auto& e : entries) {
      void* p = get(e.name, e.version, e.name);
      std::memcpy(e.entry, &p, sizeof p);
    }
  });
  return g_aux;
}

// Substitution of a driver answer: returns the wrapper for (name, version, flags), or `real`.
static void* substitute(const char* name, void* real, int version, uint64_t flags) {
  if (!name || !real) return real;
  if (flags > 2) return real;
  for (Slot& slot : g_slots) {
    if (version < slot.min_version || version > slot.max_version) continue;
    if (std::strcmp(slot.name, name) != 0) continue;
    remember_real(slot, real);
    return slot.real.load() ? slot.wrapper : real;
  }
  return real;
}

static void record_lookup(const char* via, const char* name, int version, uint64_t flags,
                          CUresult r, void* before, void* after) {
  const Config& cfg = config();
  if (cfg.fd < 0 || !name) return;
  bool wrapped = before != after;
  bool bootstrap = std::strncmp(name, "cuGetProcAddress", 16) == 0;
  if (!wrapped && !bootstrap && !cfg.all_lookups) return;
  json ev = {{"ev", "lookup"}, {"via", via}, {"name", name}, {"wrapped", wrapped}};
  if (version >= 0) {
    ev["version"] = version;
    ev["flags"] = flags;
    add_result(ev, r);
  }
  ev["found"] = before != nullptr;
  emit(cfg, std::move(ev));
}

// The driver's answer to a cuGetProcAddress request (made by `call`), with the wrapper
// substituted for the pointer and the lookup recorded as coming through `via`.
template <class Call>
CUresult answer_lookup(const char* via, const char* symbol, void** pfn, int version, uint64_t flags,
                       Call call) {
  const bool outer = t_depth == 0;
  CUresult r;
  {
    Guard g;  // a driver that resolves through dlsym internally is passed through
    r = call();
  }
  if (!outer) return r;
  try {
    Guard g;
    void* before = r == kCudaSuccess && pfn ? *pfn : nullptr;
    if (before) *pfn = substitute(symbol, before, version, flags);
    record_lookup(via, symbol, version, flags, r, before, before ? *pfn : nullptr);
  } catch (...) {
  }
  return r;
}

extern "C" {

SMCOMPAT_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version,
                                             uint64_t flags, ProcAddressQueryResult* status) {
  auto real = real_of<PFN_cuGetProcAddress_v12000>(kGetProcAddressV2);
  if (!real) return kCudaErrorNotInitialized;
  return answer_lookup("cuGetProcAddress_v2", symbol, pfn, version, flags,
                       [&] { return real(symbol, pfn, version, flags, status); });
}

SMCOMPAT_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int version,
                                          uint64_t flags) {
  auto real = real_of<PFN_cuGetProcAddress_v11030>(kGetProcAddressV1);
  if (!real) return kCudaErrorNotInitialized;
  return answer_lookup("cuGetProcAddress", symbol, pfn, version, flags,
                       [&] { return real(symbol, pfn, version, flags); });
}

}  // extern "C"

}  // namespace smcompat::trace_shim

// The C++ part of the interposed dlsym (the exported entry is the assembly stub below, which
// forwards RTLD_NEXT requests to the real dlsym by a tail jump so that glibc sees the caller's
// return address).
extern "C" SMCOMPAT_EARLY __attribute__((visibility("hidden"))) void* smcompat_dlsym_impl(
    void* handle, const char* name) {
  using namespace smcompat::trace_shim;
  DlsymFn dl = real_dlsym();
  if (!dl) return nullptr;
  void* p = dl(handle, name);
  if (t_depth > 0 || !p || !name || name[0] != 'c' || name[1] != 'u') return p;
  try {
    Guard g;
    // Only names the driver defines: the address must lie in libcuda.
    if (!in_libcuda(p)) return p;
    void* out = p;
    for (Slot& slot : g_slots) {
      if (std::strcmp(slot.export_name, name) != 0) continue;
      remember_real(slot, p);
      if (slot.real.load()) out = slot.wrapper;
      break;
    }
    record_lookup("dlsym", name, -1, 0, kCudaSuccess, p, out);
    return out;
  } catch (...) {
    return p;
  }
}

#if defined(__x86_64__)
// dlsym(handle, name): RTLD_NEXT ((void*)-1) goes straight to the real dlsym by a tail jump, with
// the caller's return address intact (glibc resolves RTLD_NEXT relative to the caller); if the
// real dlsym is not known yet (a preloaded library's constructor, or a sanitizer runtime, asking
// before ours ran) it is resolved first, preserving the arguments. Everything else goes through
// smcompat_dlsym_impl.
extern "C" SMCOMPAT_EARLY __attribute__((visibility("hidden"))) void*
smcompat_resolve_real_dlsym() {
  return reinterpret_cast<void*>(smcompat::trace_shim::real_dlsym());
}
asm(R"(
  .text
  .globl dlsym
  .type dlsym, @function
  .p2align 4
dlsym:
  cmpq $-1, %rdi
  jne 1f
  movq smcompat_real_dlsym_ptr(%rip), %rax
  testq %rax, %rax
  jne 2f
  pushq %rdi
  pushq %rsi
  subq $8, %rsp
  call smcompat_resolve_real_dlsym
  addq $8, %rsp
  popq %rsi
  popq %rdi
  testq %rax, %rax
  je 1f
2:
  jmp *%rax
1:
  jmp smcompat_dlsym_impl
  .size dlsym, .-dlsym
)");
#else
extern "C" SMCOMPAT_EXPORT void* dlsym(void* handle, const char* name) noexcept {
  return smcompat_dlsym_impl(handle, name);
}
#endif

namespace smcompat::trace_shim {

// The ABIs below are those of the CUDA 13.0 headers (cudaTypedefs.h). A request for a newer
// cudaVersion might mean a newer ABI of the same name, so it gets the driver's pointer, unwrapped.
constexpr int kKnownAbiLimit = 13999;

Slot g_slots[kSlotCount] = {
    {"cuGetProcAddress", 11030, 11999, "cuGetProcAddress",
     reinterpret_cast<void*>(&cuGetProcAddress)},
    {"cuGetProcAddress", 12000, kKnownAbiLimit, "cuGetProcAddress_v2",
     reinterpret_cast<void*>(&cuGetProcAddress_v2)},
    {"cuDeviceGetAttribute", 2000, kKnownAbiLimit, "cuDeviceGetAttribute",
     reinterpret_cast<void*>(&cuDeviceGetAttribute)},
    {"cuDeviceComputeCapability", 2000, kKnownAbiLimit, "cuDeviceComputeCapability",
     reinterpret_cast<void*>(&cuDeviceComputeCapability)},
    {"cuModuleLoad", 2000, kKnownAbiLimit, "cuModuleLoad", reinterpret_cast<void*>(&cuModuleLoad)},
    {"cuModuleLoadData", 2000, kKnownAbiLimit, "cuModuleLoadData",
     reinterpret_cast<void*>(&cuModuleLoadData)},
    {"cuModuleLoadDataEx", 2010, kKnownAbiLimit, "cuModuleLoadDataEx",
     reinterpret_cast<void*>(&cuModuleLoadDataEx)},
    {"cuModuleLoadFatBinary", 2000, kKnownAbiLimit, "cuModuleLoadFatBinary",
     reinterpret_cast<void*>(&cuModuleLoadFatBinary)},
    {"cuModuleUnload", 2000, kKnownAbiLimit, "cuModuleUnload",
     reinterpret_cast<void*>(&cuModuleUnload)},
    {"cuModuleGetFunction", 2000, kKnownAbiLimit, "cuModuleGetFunction",
     reinterpret_cast<void*>(&cuModuleGetFunction)},
    {"cuLibraryLoadData", 12000, kKnownAbiLimit, "cuLibraryLoadData",
     reinterpret_cast<void*>(&cuLibraryLoadData)},
    {"cuLibraryLoadFromFile", 12000, kKnownAbiLimit, "cuLibraryLoadFromFile",
     reinterpret_cast<void*>(&cuLibraryLoadFromFile)},
    {"cuLibraryUnload", 12000, kKnownAbiLimit, "cuLibraryUnload",
     reinterpret_cast<void*>(&cuLibraryUnload)},
    {"cuLibraryGetKernel", 12000, kKnownAbiLimit, "cuLibraryGetKernel",
     reinterpret_cast<void*>(&cuLibraryGetKernel)},
    {"cuKernelGetFunction", 12000, kKnownAbiLimit, "cuKernelGetFunction",
     reinterpret_cast<void*>(&cuKernelGetFunction)},
    // cuLinkAddData before 6.5 had another internal ABI; only the _v2 one is wrapped.
    {"cuLinkAddData", 6050, kKnownAbiLimit, "cuLinkAddData_v2",
     reinterpret_cast<void*>(&cuLinkAddData_v2)},
    {"cuLinkAddFile", 6050, kKnownAbiLimit, "cuLinkAddFile_v2",
     reinterpret_cast<void*>(&cuLinkAddFile_v2)},
    {"cuLinkComplete", 5050, kKnownAbiLimit, "cuLinkComplete",
     reinterpret_cast<void*>(&cuLinkComplete)},
};

}  // namespace smcompat::trace_shim
