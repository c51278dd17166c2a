// libsmcompat_trace.so: the LD_PRELOAD shim behind `smcompat trace`. It sits between a program and
// the CUDA driver at every path the CUDA runtime and driver-API programs use to reach it (an
// interposed dlsym on libcuda, cuGetProcAddress/_v2 and the runtime's bootstrap request for
// "cuGetProcAddress", plain PLT calls), records module and library loads with the inventory of
// the image, the binary/PTX version the driver reports for each function, load and first-use
// times and failures as one JSON line per event, and can report another compute capability to
// chosen callers. Reference: ../shared/reference/driver-api.md sections 2, 3, 4 and 5; record
// format: docs/trace.md. Rules kept here:
//  - fail-open: every exported entry catches everything; any internal problem turns the call into
//    a pass-through to the driver;
//  - wrappers are chosen by (name, cudaVersion, flags) and never handed out for another ABI;
//  - nothing is wrapped on launch paths (cuLaunchKernel & co. resolve to the driver's pointer);
//  - records are written with one O_APPEND write(2) per line, so a crash loses nothing written.
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cuda_abi.hpp"
#include "readable_extent.hpp"
#include "smcompat/binary/inventory.hpp"

using namespace smcompat::trace_abi;
using nlohmann::json;

namespace {

// ---------------------------------------------------------------------------------------------
// Re-entrancy guard: calls made while the shim is already working on this thread pass straight
// through (our own calls into the driver, a driver calling its own exports through the PLT,
// allocators that call dlsym).
__attribute__((tls_model("initial-exec"))) thread_local int t_depth = 0;

struct Guard {
  Guard() { ++t_depth; }
  ~Guard() { --t_depth; }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
};

using DlsymFn = void* (*)(void*, const char*);

}  // namespace

// The real dlsym, read by the assembly entry below for RTLD_NEXT callers (hidden, not exported).
extern "C" {
__attribute__((visibility("hidden"))) DlsymFn smcompat_real_dlsym_ptr = nullptr;
}

namespace {

DlsymFn real_dlsym() {
  DlsymFn fn = __atomic_load_n(&smcompat_real_dlsym_ptr, __ATOMIC_ACQUIRE);
  if (fn) return fn;
  // glibc 2.34 moved dlsym into libc with a new version; older ones only have the 2.2.5 (x86-64)
  // or 2.17 (aarch64) version (driver-api.md 3.2).
  for (const char* version : {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"}) {
    fn = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", version));
    if (fn) break;
  }
  if (fn) __atomic_store_n(&smcompat_real_dlsym_ptr, fn, __ATOMIC_RELEASE);
  return fn;
}

__attribute__((constructor(101))) void init_real_dlsym() { (void)real_dlsym(); }

double ms_between(std::chrono::steady_clock::time_point a,
                  std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string basename_of(const char* path) {
  if (!path) return {};
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// True if `addr` lies in a library whose file name starts with "libcuda.so" (the driver, or the
// test suite's fake driver).
bool in_libcuda(const void* addr) {
  Dl_info info{};
  if (!addr || dladdr(addr, &info) == 0 || !info.dli_fname) return false;
  return basename_of(info.dli_fname).rfind("libcuda.so", 0) == 0;
}

std::string object_of(const void* addr) {
  Dl_info info{};
  if (!addr || dladdr(addr, &info) == 0 || !info.dli_fname || !*info.dli_fname) return "";
  return info.dli_fname;
}

// ---------------------------------------------------------------------------------------------
// Configuration from the environment (documented in docs/trace.md).
struct Config {
  int fd = -1;               // SMCOMPAT_TRACE_FILE, opened O_APPEND
  bool override_cc = false;  // SMCOMPAT_REPORT_CC
  int cc_major = 0, cc_minor = 0;
  std::vector<std::string> only_for;  // SMCOMPAT_REPORT_CC_ONLY_FOR (':' or ',' separated)
  bool enumerate = true;              // SMCOMPAT_TRACE_ENUMERATE (0 disables)
  bool jit_log = true;                // SMCOMPAT_TRACE_JIT_LOG (0 disables)
  bool all_lookups = false;           // SMCOMPAT_TRACE_LOOKUPS=all
};

bool env_flag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return !(std::strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0);
}

void write_line(int fd, const std::string& line) {
  if (fd < 0) return;
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = ::write(fd, line.data() + off, line.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    off += static_cast<size_t>(n);
  }
}

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void emit(const Config& cfg, json event);

Config make_config() {
  Config cfg;
  if (const char* path = std::getenv("SMCOMPAT_TRACE_FILE"); path && *path) {
    cfg.fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  }
  if (const char* cc = std::getenv("SMCOMPAT_REPORT_CC"); cc && *cc) {
    int major = 0, minor = 0;
    char dot = 0;
    int n = std::sscanf(cc, "%d%c%d", &major, &dot, &minor);
    if (n >= 1 && major > 0 && major < 100 &&
        (n == 1 || (dot == '.' && minor >= 0 && minor < 10))) {
      cfg.override_cc = true;
      cfg.cc_major = major;
      cfg.cc_minor = n == 3 ? minor : 0;
    }
  }
  if (const char* only = std::getenv("SMCOMPAT_REPORT_CC_ONLY_FOR"); only && *only) {
    std::string item;
    for (const char* p = only;; ++p) {
      if (*p == ':' || *p == ',' || *p == 0) {
        if (!item.empty()) cfg.only_for.push_back(item);
        item.clear();
        if (*p == 0) break;
      } else {
        item.push_back(*p);
      }
    }
  }
  cfg.enumerate = env_flag("SMCOMPAT_TRACE_ENUMERATE", true);
  cfg.jit_log = env_flag("SMCOMPAT_TRACE_JIT_LOG", true);
  const char* lookups = std::getenv("SMCOMPAT_TRACE_LOOKUPS");
  cfg.all_lookups = lookups && std::strcmp(lookups, "all") == 0;

  if (cfg.fd >= 0) {
    json start = {{"ev", "start"},
                  {"shim", SMCOMPAT_VERSION},
                  {"ppid", static_cast<int>(getppid())},
                  {"time_unix_ms", unix_ms()}};
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) start["exe"] = std::string(exe, static_cast<size_t>(n));
    json env = json::object();
    for (const char* name : {"CUDA_FORCE_PTX_JIT", "CUDA_DISABLE_PTX_JIT", "CUDA_MODULE_LOADING",
                             "CUDA_CACHE_DISABLE"}) {
      if (const char* v = std::getenv(name)) env[name] = v;
    }
    start["env"] = std::move(env);
    if (cfg.override_cc) {
      start["report_cc"] = std::to_string(cfg.cc_major) + "." + std::to_string(cfg.cc_minor);
      start["only_for"] = cfg.only_for;
    }
    emit(cfg, std::move(start));
  }
  return cfg;
}

const Config& config() {
  static const Config cfg = make_config();
  return cfg;
}

void emit(const Config& cfg, json event) {
  if (cfg.fd < 0) return;
  event["pid"] = static_cast<int>(getpid());
  event["t_ms"] = unix_ms();
  std::string line = event.dump(-1, ' ', false, json::error_handler_t::replace);
  line.push_back('\n');
  write_line(cfg.fd, line);
}

void emit(json event) { emit(config(), std::move(event)); }

bool recording() { return config().fd >= 0; }

// ---------------------------------------------------------------------------------------------
// The wrapper table: one slot per (base name, ABI). A slot is valid for a cuGetProcAddress request
// when min_version <= cudaVersion <= max_version; `export_name` is the symbol the driver exports
// for that ABI (used for dlsym/PLT callers). None of these functions has per-thread-stream
// variants (driver-api.md 3.3), so flags 0, 1 and 2 all map to the same ABI; other flag values are
// passed through unwrapped.
enum SlotId {
  kGetProcAddressV1,
  kGetProcAddressV2,
  kDeviceGetAttribute,
  kDeviceComputeCapability,
  kModuleLoad,
  kModuleLoadData,
  kModuleLoadDataEx,
  kModuleLoadFatBinary,
  kModuleUnload,
  kModuleGetFunction,
  kLibraryLoadData,
  kLibraryLoadFromFile,
  kLibraryUnload,
  kLibraryGetKernel,
  kKernelGetFunction,
  kLinkAddDataV2,
  kLinkAddFileV2,
  kLinkComplete,
  kSlotCount
};

struct Slot {
  const char* name;
  int min_version;
  int max_version;
  const char* export_name;
  void* wrapper;
  std::atomic<void*> real{nullptr};
};

extern Slot g_slots[kSlotCount];

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

bool is_wrapper(const void* p) {
  for (const Slot& s : g_slots)
    if (s.wrapper == p) return true;
  return false;
}

// Stores the driver's pointer for a slot (first one wins; our own wrappers are never stored).
void remember_real(Slot& slot, void* real) {
  if (!real || is_wrapper(real)) return;
  void* expected = nullptr;
  slot.real.compare_exchange_strong(expected, real);
}

template <class Fn>
Fn real_of(SlotId id) {
  Slot& slot = g_slots[id];
  void* p = slot.real.load(std::memory_order_acquire);
  if (!p) {
    Guard g;
    remember_real(slot, resolve_export(slot.export_name));
    p = slot.real.load(std::memory_order_acquire);
  }
  return reinterpret_cast<Fn>(p);
}

// Driver functions the shim calls for its own queries (never wrapped): resolved through the
// driver's cuGetProcAddress when the shim has it, else by name in the loaded libcuda.
struct Aux {
  std::once_flag once;
  PFN_cuCtxGetDevice ctx_get_device = nullptr;
  PFN_cuDeviceGetAttribute device_get_attribute = nullptr;
  PFN_cuDriverGetVersion driver_get_version = nullptr;
  PFN_cuModuleLoadDataEx module_load_data_ex = nullptr;
  PFN_cuModuleGetFunctionCount module_get_function_count = nullptr;
  PFN_cuModuleEnumerateFunctions module_enumerate_functions = nullptr;
  PFN_cuFuncGetAttribute func_get_attribute = nullptr;
  PFN_cuFuncGetName func_get_name = nullptr;
  PFN_cuLibraryGetKernelCount library_get_kernel_count = nullptr;
  PFN_cuLibraryEnumerateKernels library_enumerate_kernels = nullptr;
  PFN_cuKernelGetAttribute kernel_get_attribute = nullptr;
  PFN_cuKernelGetName kernel_get_name = nullptr;
  PFN_cuGetErrorName get_error_name = nullptr;
};
Aux g_aux;

const Aux& aux() {
  std::call_once(g_aux.once, [] {
    Guard g;
    auto get = [](const char* base, int version, const char* export_name) -> void* {
      if (auto gpa = reinterpret_cast<PFN_cuGetProcAddress_v12000>(
              g_slots[kGetProcAddressV2].real.load())) {
        void* p = nullptr;
        int status = 0;
        if (gpa(base, &p, version, 0, &status) == kSuccess && p && !is_wrapper(p)) return p;
      }
      void* p = resolve_export(export_name);
      return is_wrapper(p) ? nullptr : p;
    };
    g_aux.ctx_get_device =
        reinterpret_cast<PFN_cuCtxGetDevice>(get("cuCtxGetDevice", 2000, "cuCtxGetDevice"));
    g_aux.device_get_attribute = reinterpret_cast<PFN_cuDeviceGetAttribute>(
        get("cuDeviceGetAttribute", 2000, "cuDeviceGetAttribute"));
    g_aux.driver_get_version = reinterpret_cast<PFN_cuDriverGetVersion>(
        get("cuDriverGetVersion", 2020, "cuDriverGetVersion"));
    g_aux.module_load_data_ex = reinterpret_cast<PFN_cuModuleLoadDataEx>(
        get("cuModuleLoadDataEx", 2010, "cuModuleLoadDataEx"));
    g_aux.module_get_function_count = reinterpret_cast<PFN_cuModuleGetFunctionCount>(
        get("cuModuleGetFunctionCount", 12040, "cuModuleGetFunctionCount"));
    g_aux.module_enumerate_functions = reinterpret_cast<PFN_cuModuleEnumerateFunctions>(
        get("cuModuleEnumerateFunctions", 12040, "cuModuleEnumerateFunctions"));
    g_aux.func_get_attribute = reinterpret_cast<PFN_cuFuncGetAttribute>(
        get("cuFuncGetAttribute", 2020, "cuFuncGetAttribute"));
    g_aux.func_get_name =
        reinterpret_cast<PFN_cuFuncGetName>(get("cuFuncGetName", 12030, "cuFuncGetName"));
    g_aux.library_get_kernel_count = reinterpret_cast<PFN_cuLibraryGetKernelCount>(
        get("cuLibraryGetKernelCount", 12040, "cuLibraryGetKernelCount"));
    g_aux.library_enumerate_kernels = reinterpret_cast<PFN_cuLibraryEnumerateKernels>(
        get("cuLibraryEnumerateKernels", 12040, "cuLibraryEnumerateKernels"));
    g_aux.kernel_get_attribute = reinterpret_cast<PFN_cuKernelGetAttribute>(
        get("cuKernelGetAttribute", 12000, "cuKernelGetAttribute"));
    g_aux.kernel_get_name =
        reinterpret_cast<PFN_cuKernelGetName>(get("cuKernelGetName", 12030, "cuKernelGetName"));
    g_aux.get_error_name =
        reinterpret_cast<PFN_cuGetErrorName>(get("cuGetErrorName", 6000, "cuGetErrorName"));
  });
  return g_aux;
}

// ---------------------------------------------------------------------------------------------
// Record helpers.

std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx",
                static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p)));
  return buf;
}

void add_result(json& ev, CUresult r) {
  ev["result"] = r;
  if (r != kSuccess) {
    const char* name = nullptr;
    if (auto fn = aux().get_error_name; fn && fn(r, &name) == kSuccess && name) ev["error"] = name;
  }
}

// The record of a module/library unload (after the driver's call); fail-open like every record.
void emit_unload(std::optional<uint64_t> id, const char* api, CUresult r) {
  try {
    if (id && recording()) {
      json ev = {{"ev", "unload"}, {"id", *id}, {"api", api}};
      add_result(ev, r);
      emit(std::move(ev));
    }
  } catch (...) {
  }
}

// The device of the calling thread's context, its real compute capability and the driver's CUDA
// version (all read from the driver, bypassing any override).
void add_device(json& ev) {
  const Aux& a = aux();
  CUdevice dev = -1;
  if (a.ctx_get_device && a.ctx_get_device(&dev) == kSuccess && dev >= 0) {
    ev["device"] = dev;
    int major = 0, minor = 0;
    if (a.device_get_attribute && a.device_get_attribute(&major, kAttrCcMajor, dev) == kSuccess &&
        a.device_get_attribute(&minor, kAttrCcMinor, dev) == kSuccess) {
      ev["device_cc"] = std::to_string(major) + "." + std::to_string(minor);
    }
  }
  int version = 0;
  if (a.driver_get_version && a.driver_get_version(&version) == kSuccess) {
    ev["driver_cuda"] = version;
  }
}

json images_json(const smcompat::FileInventory& inv) {
  json images = json::array();
  for (const smcompat::DeviceImage& img : inv.images) {
    json j = {{"target", img.target.to_string()},
              {"offset", img.entry_offset},
              {"stored_size", img.stored_size}};
    if (img.ptx_version) j["ptx_isa"] = img.ptx_version->to_string();
    if (img.compression != smcompat::Compression::kNone)
      j["compression"] = smcompat::to_string(img.compression);
    images.push_back(std::move(j));
  }
  return images;
}

// Inventory of an in-memory image (header walk only); never throws out of here.
void add_memory_inventory(json& ev, const void* image) {
  if (!image) return;
  try {
    smcompat::InspectOptions opts;
    opts.bare_cubins = false;
    uint64_t extent = 0;
    const void* bytes = smcompat::trace_shim::unwrap_fatbin_wrapper(image, extent);
    if (extent == 0) {
      ev["inventory_error"] = "the image pointer is not in readable memory";
      return;
    }
    smcompat::FileInventory inv = smcompat::inspect_memory_image(bytes, extent, opts);
    ev["format"] = smcompat::to_string(inv.format);
    ev["size"] = inv.size;
    ev["images"] = images_json(inv);
    if (!inv.errors.empty()) ev["inventory_error"] = inv.errors.front().to_string();
  } catch (...) {
    ev["inventory_error"] = "internal error while reading the image";
  }
}

void add_file_inventory(json& ev, const char* path) {
  if (!path) return;
  try {
    smcompat::InspectOptions opts;
    opts.bare_cubins = false;
    std::vector<smcompat::FileInventory> invs = smcompat::inspect_file(path, opts);
    if (invs.empty()) return;
    ev["format"] = smcompat::to_string(invs.front().format);
    ev["size"] = invs.front().size;
    ev["images"] = images_json(invs.front());
    if (!invs.front().errors.empty())
      ev["inventory_error"] = invs.front().errors.front().to_string();
  } catch (...) {
    ev["inventory_error"] = "internal error while reading the file";
  }
}

std::optional<int> func_attr(CUfunction f, int attr) {
  int v = 0;
  if (auto fn = aux().func_get_attribute; fn && fn(&v, attr, f) == kSuccess) return v;
  return std::nullopt;
}

json function_json(CUfunction f, const char* name_hint) {
  json j;
  const char* name = name_hint;
  if (!name) {
    if (auto fn = aux().func_get_name; fn) fn(&name, f);
  }
  if (name) j["name"] = name;
  if (auto v = func_attr(f, kFuncBinaryVersion)) j["binary_version"] = *v;
  if (auto v = func_attr(f, kFuncPtxVersion)) j["ptx_version"] = *v;
  if (auto v = func_attr(f, kFuncNumRegs)) j["num_regs"] = *v;
  return j;
}

// Handles the application holds, mapped to the id of the load that produced them.
struct Registry {
  std::mutex mu;
  std::unordered_map<void*, uint64_t> modules;
  std::unordered_map<void*, uint64_t> libraries;
  std::unordered_map<void*, uint64_t> kernels;   // CUkernel -> library id
  std::unordered_map<uint64_t, bool> first_use;  // load id -> first use recorded
  std::vector<std::string> override_seen;        // "caller|api" already recorded
};
Registry g_registry;
std::atomic<uint64_t> g_next_id{1};

std::optional<uint64_t> lookup(std::unordered_map<void*, uint64_t>& map, void* key) {
  std::lock_guard<std::mutex> lock(g_registry.mu);
  auto it = map.find(key);
  if (it == map.end()) return std::nullopt;
  return it->second;
}

// True the first time it is called for `id` (first-use time of a module or library).
bool claim_first_use(uint64_t id) {
  std::lock_guard<std::mutex> lock(g_registry.mu);
  auto [it, inserted] = g_registry.first_use.emplace(id, true);
  return inserted;
}

void enumerate_module(json& ev, CUmodule mod) {
  const Aux& a = aux();
  if (!config().enumerate || !a.module_get_function_count || !a.module_enumerate_functions) return;
  unsigned count = 0;
  if (a.module_get_function_count(&count, mod) != kSuccess || count > 1000000) return;
  std::vector<CUfunction> fns(count);
  if (count && a.module_enumerate_functions(fns.data(), count, mod) != kSuccess) return;
  json list = json::array();
  for (CUfunction f : fns) list.push_back(function_json(f, nullptr));
  ev["functions"] = std::move(list);
}

void enumerate_library(json& ev, CUlibrary lib) {
  const Aux& a = aux();
  if (!config().enumerate || !a.library_get_kernel_count || !a.library_enumerate_kernels) return;
  unsigned count = 0;
  if (a.library_get_kernel_count(&count, lib) != kSuccess || count > 1000000) return;
  std::vector<CUkernel> ks(count);
  if (count && a.library_enumerate_kernels(ks.data(), count, lib) != kSuccess) return;
  CUdevice dev = 0;
  if (!a.ctx_get_device || a.ctx_get_device(&dev) != kSuccess) dev = 0;
  json list = json::array();
  for (CUkernel k : ks) {
    json j;
    const char* name = nullptr;
    if (a.kernel_get_name && a.kernel_get_name(&name, k) == kSuccess && name) j["name"] = name;
    int v = 0;
    if (a.kernel_get_attribute) {
      if (a.kernel_get_attribute(&v, kFuncBinaryVersion, k, dev) == kSuccess)
        j["binary_version"] = v;
      if (a.kernel_get_attribute(&v, kFuncPtxVersion, k, dev) == kSuccess) j["ptx_version"] = v;
      if (a.kernel_get_attribute(&v, kFuncNumRegs, k, dev) == kSuccess) j["num_regs"] = v;
    }
    list.push_back(std::move(j));
  }
  ev["functions"] = std::move(list);
}

// Reads the JIT options the caller passed that the report cares about (after the call).
void add_jit_outputs(json& ev, unsigned n, const CUjit_option* opts, void* const* vals) {
  if (!opts || !vals || n > 64) return;
  const char* error_log = nullptr;
  const char* info_log = nullptr;
  for (unsigned i = 0; i < n; ++i) {
    if (opts[i] == kJitWallTime) {
      float ms = 0;
      std::memcpy(&ms, &vals[i], sizeof ms);
      ev["jit_wall_ms"] = ms;
    } else if (opts[i] == kJitErrorLogBuffer) {
      error_log = static_cast<const char*>(vals[i]);
    } else if (opts[i] == kJitInfoLogBuffer) {
      info_log = static_cast<const char*>(vals[i]);
    }
  }
  for (unsigned i = 0; i < n; ++i) {
    size_t size = reinterpret_cast<uintptr_t>(vals[i]);
    if (opts[i] == kJitErrorLogBufferSize && error_log && size > 0 && size < (1u << 20)) {
      std::string log(error_log, strnlen(error_log, size));
      if (!log.empty()) ev["jit_error_log"] = log;
    } else if (opts[i] == kJitInfoLogBufferSize && info_log && size > 0 && size < (1u << 20)) {
      std::string log(info_log, strnlen(info_log, size));
      if (!log.empty()) ev["jit_info_log"] = log;
    }
  }
}

enum class LoadKind { kModule, kLibrary };

struct LoadRecord {
  const char* api;
  LoadKind kind;
  CUresult result;
  void* handle;       // module or library (null on failure)
  const void* image;  // in-memory image or null
  const char* path;   // file or null
  double load_ms;
  unsigned n_opts = 0;
  const CUjit_option* opts = nullptr;
  void* const* vals = nullptr;
};

void record_load(const LoadRecord& r) {
  uint64_t id = g_next_id.fetch_add(1);
  if (r.result == kSuccess && r.handle) {
    std::lock_guard<std::mutex> lock(g_registry.mu);
    (r.kind == LoadKind::kModule ? g_registry.modules : g_registry.libraries)[r.handle] = id;
  }
  if (!recording()) return;
  json ev = {{"ev", "load"},
             {"id", id},
             {"api", r.api},
             {"kind", r.kind == LoadKind::kModule ? "module" : "library"},
             {"source", r.path ? "file" : "memory"},
             {"load_ms", r.load_ms}};
  if (r.path) ev["path"] = r.path;
  add_result(ev, r.result);
  add_device(ev);
  add_jit_outputs(ev, r.n_opts, r.opts, r.vals);
  if (r.image) add_memory_inventory(ev, r.image);
  if (r.path) add_file_inventory(ev, r.path);
  if (r.result == kSuccess && r.handle) {
    ev["handle"] = hex(r.handle);
    if (r.kind == LoadKind::kModule) {
      enumerate_module(ev, r.handle);
    } else {
      enumerate_library(ev, r.handle);
    }
  }
  emit(std::move(ev));
}

// The options cuModuleLoadData is rewritten with (as a cuModuleLoadDataEx call): the JIT wall
// time and an error log, so JIT time and JIT errors show up in the record (driver-api.md 5.3).
struct JitCapture {
  static constexpr unsigned kLogSize = 8192;
  char error_log[kLogSize] = {};
  std::vector<CUjit_option> opts{kJitWallTime, kJitErrorLogBuffer, kJitErrorLogBufferSize};
  std::vector<void*> vals{nullptr, error_log,
                          reinterpret_cast<void*>(static_cast<uintptr_t>(kLogSize))};
};

// ---------------------------------------------------------------------------------------------
// Capability override.

bool caller_allowed(const Config& cfg, const void* caller) {
  if (cfg.only_for.empty()) return true;
  std::string obj = basename_of(object_of(caller).c_str());
  if (obj.empty()) return false;
  for (const std::string& want : cfg.only_for)
    if (obj.find(want) != std::string::npos) return true;
  return false;
}

void record_override(const Config& cfg, const char* api, const void* caller, int real_major,
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

// ---------------------------------------------------------------------------------------------
// Substitution of a driver answer: returns the wrapper for (name, version, flags), or `real`.
void* substitute(const char* name, void* real, int version, uint64_t flags) {
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

void record_lookup(const char* via, const char* name, int version, uint64_t flags, CUresult r,
                   void* before, void* after) {
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

CUresult gpa_common(bool v2, const char* symbol, void** pfn, int version, uint64_t flags,
                    int* status) {
  if (v2) {
    auto real = real_of<PFN_cuGetProcAddress_v12000>(kGetProcAddressV2);
    if (!real) return kErrorNotInitialized;
    const bool outer = t_depth == 0;
    CUresult r;
    {
      Guard g;  // a driver that resolves through dlsym internally is passed through
      r = real(symbol, pfn, version, flags, status);
    }
    if (!outer) return r;
    try {
      Guard g;
      if (r == kSuccess && pfn && *pfn) {
        void* before = *pfn;
        *pfn = substitute(symbol, before, version, flags);
        record_lookup("cuGetProcAddress_v2", symbol, version, flags, r, before, *pfn);
      } else {
        record_lookup("cuGetProcAddress_v2", symbol, version, flags, r, nullptr, nullptr);
      }
    } catch (...) {
    }
    return r;
  }
  auto real = real_of<PFN_cuGetProcAddress_v11030>(kGetProcAddressV1);
  if (!real) return kErrorNotInitialized;
  const bool outer = t_depth == 0;
  CUresult r;
  {
    Guard g;
    r = real(symbol, pfn, version, flags);
  }
  if (!outer) return r;
  try {
    Guard g;
    if (r == kSuccess && pfn && *pfn) {
      void* before = *pfn;
      *pfn = substitute(symbol, before, version, flags);
      record_lookup("cuGetProcAddress", symbol, version, flags, r, before, *pfn);
    } else {
      record_lookup("cuGetProcAddress", symbol, version, flags, r, nullptr, nullptr);
    }
  } catch (...) {
  }
  return r;
}

}  // namespace

// =============================================================================================
// Exported entries (C ABI). Each catches everything and falls back to the driver's function.
extern "C" {

#define SMCOMPAT_EXPORT __attribute__((visibility("default"), noinline))

SMCOMPAT_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version,
                                             uint64_t flags, int* status) {
  return gpa_common(true, symbol, pfn, version, flags, status);
}

SMCOMPAT_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int version,
                                          uint64_t flags) {
  return gpa_common(false, symbol, pfn, version, flags, nullptr);
}

SMCOMPAT_EXPORT CUresult cuDeviceGetAttribute(int* value, int attr, CUdevice dev) {
  auto real = real_of<PFN_cuDeviceGetAttribute>(kDeviceGetAttribute);
  if (!real) return kErrorNotInitialized;
  CUresult r = real(value, attr, dev);
  if (r != kSuccess || (attr != kAttrCcMajor && attr != kAttrCcMinor) || t_depth > 0 || !value)
    return r;
  try {
    Guard g;
    const Config& cfg = config();
    if (!cfg.override_cc) return r;
    const void* caller = __builtin_return_address(0);
    bool applied = caller_allowed(cfg, caller);
    int real_value = *value;
    if (applied) *value = attr == kAttrCcMajor ? cfg.cc_major : cfg.cc_minor;
    int major = 0, minor = 0;
    if (attr == kAttrCcMajor) {
      major = real_value;
      real(&minor, kAttrCcMinor, dev);
    } else {
      minor = real_value;
      real(&major, kAttrCcMajor, dev);
    }
    record_override(cfg, "cuDeviceGetAttribute", caller, major, minor, applied);
  } catch (...) {
  }
  return r;
}

SMCOMPAT_EXPORT CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
  auto real = real_of<PFN_cuDeviceComputeCapability>(kDeviceComputeCapability);
  if (!real) return kErrorNotInitialized;
  CUresult r = real(major, minor, dev);
  if (r != kSuccess || t_depth > 0 || !major || !minor) return r;
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

SMCOMPAT_EXPORT CUresult cuModuleLoad(CUmodule* module, const char* fname) {
  auto real = real_of<PFN_cuModuleLoad>(kModuleLoad);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(module, fname);
  Guard g;
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = real(module, fname);
  auto t1 = std::chrono::steady_clock::now();
  try {
    record_load({"cuModuleLoad", LoadKind::kModule, r, r == kSuccess && module ? *module : nullptr,
                 nullptr, fname, ms_between(t0, t1)});
  } catch (...) {
  }
  return r;
}

SMCOMPAT_EXPORT CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned n,
                                            CUjit_option* opts, void** vals) {
  auto real = real_of<PFN_cuModuleLoadDataEx>(kModuleLoadDataEx);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(module, image, n, opts, vals);
  Guard g;
  // With the caller's own options the call goes through unchanged; what the caller asked for
  // (wall time, logs) is read back afterwards.
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = real(module, image, n, opts, vals);
  auto t1 = std::chrono::steady_clock::now();
  try {
    LoadRecord rec{"cuModuleLoadDataEx",
                   LoadKind::kModule,
                   r,
                   r == kSuccess && module ? *module : nullptr,
                   image,
                   nullptr,
                   ms_between(t0, t1)};
    rec.n_opts = n;
    rec.opts = opts;
    rec.vals = vals;
    record_load(rec);
  } catch (...) {
  }
  return r;
}

SMCOMPAT_EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  auto real = real_of<PFN_cuModuleLoadData>(kModuleLoadData);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(module, image);
  Guard g;
  // Preferably through cuModuleLoadDataEx with the JIT wall time and error log requested
  // (driver-api.md 5.3); if anything about that is unavailable, the plain call.
  PFN_cuModuleLoadDataEx ex = nullptr;
  JitCapture* cap = nullptr;
  try {
    if (recording() && config().jit_log) {
      ex = aux().module_load_data_ex;
      if (ex) cap = new JitCapture();
    }
  } catch (...) {
    ex = nullptr;
  }
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = (ex && cap) ? ex(module, image, static_cast<unsigned>(cap->opts.size()),
                                cap->opts.data(), cap->vals.data())
                           : real(module, image);
  auto t1 = std::chrono::steady_clock::now();
  try {
    LoadRecord rec{"cuModuleLoadData",
                   LoadKind::kModule,
                   r,
                   r == kSuccess && module ? *module : nullptr,
                   image,
                   nullptr,
                   ms_between(t0, t1)};
    if (cap) {
      rec.n_opts = static_cast<unsigned>(cap->opts.size());
      rec.opts = cap->opts.data();
      rec.vals = cap->vals.data();
    }
    record_load(rec);
  } catch (...) {
  }
  delete cap;
  return r;
}

SMCOMPAT_EXPORT CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fat) {
  auto real = real_of<PFN_cuModuleLoadFatBinary>(kModuleLoadFatBinary);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(module, fat);
  Guard g;
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = real(module, fat);
  auto t1 = std::chrono::steady_clock::now();
  try {
    record_load({"cuModuleLoadFatBinary", LoadKind::kModule, r,
                 r == kSuccess && module ? *module : nullptr, fat, nullptr, ms_between(t0, t1)});
  } catch (...) {
  }
  return r;
}

SMCOMPAT_EXPORT CUresult cuModuleUnload(CUmodule module) {
  auto real = real_of<PFN_cuModuleUnload>(kModuleUnload);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(module);
  Guard g;
  std::optional<uint64_t> id;
  try {
    std::lock_guard<std::mutex> lock(g_registry.mu);
    auto it = g_registry.modules.find(module);
    if (it != g_registry.modules.end()) {
      id = it->second;
      g_registry.modules.erase(it);
    }
  } catch (...) {
  }
  CUresult r = real(module);
  emit_unload(id, "cuModuleUnload", r);
  return r;
}

SMCOMPAT_EXPORT CUresult cuModuleGetFunction(CUfunction* fn, CUmodule module, const char* name) {
  auto real = real_of<PFN_cuModuleGetFunction>(kModuleGetFunction);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(fn, module, name);
  Guard g;
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = real(fn, module, name);
  auto t1 = std::chrono::steady_clock::now();
  try {
    if (recording()) {
      auto id = lookup(g_registry.modules, module);
      json ev = {
          {"ev", "get_function"}, {"api", "cuModuleGetFunction"}, {"ms", ms_between(t0, t1)}};
      if (id) {
        ev["id"] = *id;
        if (claim_first_use(*id)) ev["first_use"] = true;
      }
      if (name) ev["name"] = name;
      add_result(ev, r);
      if (r == kSuccess && fn && *fn) ev.update(function_json(*fn, name));
      emit(std::move(ev));
    }
  } catch (...) {
  }
  return r;
}

SMCOMPAT_EXPORT CUresult cuLibraryLoadData(CUlibrary* lib, const void* code, CUjit_option* jo,
                                           void** jv, unsigned nj, CUlibraryOption* lo, void** lv,
                                           unsigned nl) {
  auto real = real_of<PFN_cuLibraryLoadData>(kLibraryLoadData);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(lib, code, jo, jv, nj, lo, lv, nl);
  Guard g;
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = real(lib, code, jo, jv, nj, lo, lv, nl);
  auto t1 = std::chrono::steady_clock::now();
  try {
    LoadRecord rec{"cuLibraryLoadData",
                   LoadKind::kLibrary,
                   r,
                   r == kSuccess && lib ? *lib : nullptr,
                   code,
                   nullptr,
                   ms_between(t0, t1)};
    rec.n_opts = nj;
    rec.opts = jo;
    rec.vals = jv;
    record_load(rec);
  } catch (...) {
  }
  return r;
}

SMCOMPAT_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary* lib, const char* path, CUjit_option* jo,
                                               void** jv, unsigned nj, CUlibraryOption* lo,
                                               void** lv, unsigned nl) {
  auto real = real_of<PFN_cuLibraryLoadFromFile>(kLibraryLoadFromFile);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(lib, path, jo, jv, nj, lo, lv, nl);
  Guard g;
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = real(lib, path, jo, jv, nj, lo, lv, nl);
  auto t1 = std::chrono::steady_clock::now();
  try {
    LoadRecord rec{"cuLibraryLoadFromFile",
                   LoadKind::kLibrary,
                   r,
                   r == kSuccess && lib ? *lib : nullptr,
                   nullptr,
                   path,
                   ms_between(t0, t1)};
    rec.n_opts = nj;
    rec.opts = jo;
    rec.vals = jv;
    record_load(rec);
  } catch (...) {
  }
  return r;
}

SMCOMPAT_EXPORT CUresult cuLibraryUnload(CUlibrary lib) {
  auto real = real_of<PFN_cuLibraryUnload>(kLibraryUnload);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(lib);
  Guard g;
  std::optional<uint64_t> id;
  try {
    std::lock_guard<std::mutex> lock(g_registry.mu);
    auto it = g_registry.libraries.find(lib);
    if (it != g_registry.libraries.end()) {
      id = it->second;
      g_registry.libraries.erase(it);
      for (auto k = g_registry.kernels.begin(); k != g_registry.kernels.end();) {
        k = k->second == *id ? g_registry.kernels.erase(k) : std::next(k);
      }
    }
  } catch (...) {
  }
  CUresult r = real(lib);
  emit_unload(id, "cuLibraryUnload", r);
  return r;
}

SMCOMPAT_EXPORT CUresult cuLibraryGetKernel(CUkernel* kernel, CUlibrary lib, const char* name) {
  auto real = real_of<PFN_cuLibraryGetKernel>(kLibraryGetKernel);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(kernel, lib, name);
  Guard g;
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = real(kernel, lib, name);
  auto t1 = std::chrono::steady_clock::now();
  try {
    auto id = lookup(g_registry.libraries, lib);
    if (id && r == kSuccess && kernel && *kernel) {
      std::lock_guard<std::mutex> lock(g_registry.mu);
      g_registry.kernels[*kernel] = *id;
    }
    if (recording()) {
      json ev = {{"ev", "get_kernel"}, {"api", "cuLibraryGetKernel"}, {"ms", ms_between(t0, t1)}};
      if (id) {
        ev["id"] = *id;
        if (claim_first_use(*id)) ev["first_use"] = true;
      }
      if (name) ev["name"] = name;
      add_result(ev, r);
      emit(std::move(ev));
    }
  } catch (...) {
  }
  return r;
}

SMCOMPAT_EXPORT CUresult cuKernelGetFunction(CUfunction* fn, CUkernel kernel) {
  auto real = real_of<PFN_cuKernelGetFunction>(kKernelGetFunction);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(fn, kernel);
  Guard g;
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = real(fn, kernel);
  auto t1 = std::chrono::steady_clock::now();
  try {
    if (recording()) {
      json ev = {
          {"ev", "get_function"}, {"api", "cuKernelGetFunction"}, {"ms", ms_between(t0, t1)}};
      if (auto id = lookup(g_registry.kernels, kernel)) ev["id"] = *id;
      add_result(ev, r);
      if (r == kSuccess && fn && *fn) ev.update(function_json(*fn, nullptr));
      emit(std::move(ev));
    }
  } catch (...) {
  }
  return r;
}

SMCOMPAT_EXPORT CUresult cuLinkAddData_v2(CUlinkState state, int type, void* data, size_t size,
                                          const char* name, unsigned n, CUjit_option* opts,
                                          void** vals) {
  auto real = real_of<PFN_cuLinkAddData>(kLinkAddDataV2);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(state, type, data, size, name, n, opts, vals);
  Guard g;
  CUresult r = real(state, type, data, size, name, n, opts, vals);
  try {
    if (recording()) {
      json ev = {{"ev", "link_input"},
                 {"api", "cuLinkAddData_v2"},
                 {"input_type", type},
                 {"bytes", size},
                 {"link", hex(state)}};
      if (name) ev["name"] = name;
      add_result(ev, r);
      if (data && size > 0) {
        smcompat::InspectOptions o;
        o.bare_cubins = false;
        smcompat::FileInventory inv = smcompat::inspect_memory_image(data, size, o);
        ev["format"] = smcompat::to_string(inv.format);
        ev["images"] = images_json(inv);
      }
      emit(std::move(ev));
    }
  } catch (...) {
  }
  return r;
}

SMCOMPAT_EXPORT CUresult cuLinkAddFile_v2(CUlinkState state, int type, const char* path, unsigned n,
                                          CUjit_option* opts, void** vals) {
  auto real = real_of<PFN_cuLinkAddFile>(kLinkAddFileV2);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(state, type, path, n, opts, vals);
  Guard g;
  CUresult r = real(state, type, path, n, opts, vals);
  try {
    if (recording()) {
      json ev = {{"ev", "link_input"},
                 {"api", "cuLinkAddFile_v2"},
                 {"input_type", type},
                 {"link", hex(state)}};
      if (path) ev["path"] = path;
      add_result(ev, r);
      add_file_inventory(ev, path);
      emit(std::move(ev));
    }
  } catch (...) {
  }
  return r;
}

SMCOMPAT_EXPORT CUresult cuLinkComplete(CUlinkState state, void** cubin, size_t* size) {
  auto real = real_of<PFN_cuLinkComplete>(kLinkComplete);
  if (!real) return kErrorNotInitialized;
  if (t_depth > 0) return real(state, cubin, size);
  Guard g;
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = real(state, cubin, size);
  auto t1 = std::chrono::steady_clock::now();
  try {
    if (recording()) {
      json ev = {{"ev", "link_complete"},
                 {"api", "cuLinkComplete"},
                 {"link", hex(state)},
                 {"ms", ms_between(t0, t1)}};
      add_result(ev, r);
      if (r == kSuccess && cubin && *cubin && size && *size) {
        ev["bytes"] = *size;
        smcompat::InspectOptions o;
        o.bare_cubins = false;
        smcompat::FileInventory inv = smcompat::inspect_memory_image(*cubin, *size, o);
        ev["format"] = smcompat::to_string(inv.format);
        ev["images"] = images_json(inv);
      }
      emit(std::move(ev));
    }
  } catch (...) {
  }
  return r;
}

// The C++ part of the interposed dlsym (the exported entry is the assembly stub below, which
// forwards RTLD_NEXT requests to the real dlsym by a tail jump so that glibc sees the caller's
// return address).
__attribute__((visibility("hidden"))) void* smcompat_dlsym_impl(void* handle, const char* name) {
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
    record_lookup("dlsym", name, -1, 0, kSuccess, p, out);
    return out;
  } catch (...) {
    return p;
  }
}

}  // extern "C"

#if defined(__x86_64__)
// dlsym(handle, name): RTLD_NEXT ((void*)-1) goes straight to the real dlsym by a tail jump, with
// the caller's return address intact (glibc resolves RTLD_NEXT relative to the caller); if the
// real dlsym is not known yet (a preloaded library's constructor, or a sanitizer runtime, asking
// before ours ran) it is resolved first, preserving the arguments. Everything else goes through
// smcompat_dlsym_impl.
extern "C" __attribute__((visibility("hidden"))) void* smcompat_resolve_real_dlsym() {
  return reinterpret_cast<void*>(real_dlsym());
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

namespace {

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

}  // namespace
