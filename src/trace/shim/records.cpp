// The trace shim's records: configuration from the environment and one JSON line per event
// (start, load, unload, lookups and capability queries are written by their callers through emit),
// with the inventory of loaded images, the device, the functions the driver reports and the JIT
// outputs. Record format: docs/trace.md. The shim's own writer: records are written with one
// O_APPEND write(2) per line, so a crash loses nothing written.
#include <fcntl.h>
#include <strings.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "readable_extent.hpp"
#include "shim_internal.hpp"
#include "smcompat/util/json_text.hpp"

namespace smcompat::trace_shim {

static bool env_flag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return !(std::strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0);
}

static void write_line(int fd, const std::string& line) {
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

static int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

static Config make_config() {
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
  std::string line = json_text(event, -1);
  line.push_back('\n');
  write_line(cfg.fd, line);
}

void emit(json event) { emit(config(), std::move(event)); }

bool recording() { return config().fd >= 0; }
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
  if (r != kCudaSuccess) {
    const char* name = nullptr;
    if (auto fn = aux().get_error_name; fn && fn(r, &name) == kCudaSuccess && name)
      ev["error"] = name;
  }
}

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

// The real compute capability of `dev` ("9.0"), read from the driver bypassing any override;
// empty when the driver does not answer.
static std::string real_cc(const Aux& a, CUdevice dev) {
  int major = 0, minor = 0;
  if (a.device_get_attribute &&
      a.device_get_attribute(&major, kAttrComputeCapabilityMajor, dev) == kCudaSuccess &&
      a.device_get_attribute(&minor, kAttrComputeCapabilityMinor, dev) == kCudaSuccess)
    return std::to_string(major) + "." + std::to_string(minor);
  return {};
}

// The device of the calling thread's context, its real compute capability and the driver's CUDA
// version. A context-independent load (cuLibraryLoad* with no current context: the CUDA runtime
// under CUDA_MODULE_LOADING=EAGER, observed on an H200 with driver 580) serves every device, so
// then every device's capability is recorded instead.
static void add_device(json& ev) {
  const Aux& a = aux();
  CUdevice dev = -1;
  if (a.ctx_get_device && a.ctx_get_device(&dev) == kCudaSuccess && dev >= 0) {
    ev["device"] = dev;
    if (std::string cc = real_cc(a, dev); !cc.empty()) ev["device_cc"] = cc;
  } else if (int count = 0; a.device_get_count && a.device_get_count(&count) == kCudaSuccess) {
    json all = json::array();
    for (int d = 0; d < count && d < 64; ++d) all.push_back(real_cc(a, d));
    ev["devices_cc"] = std::move(all);
  }
  int version = 0;
  if (a.driver_get_version && a.driver_get_version(&version) == kCudaSuccess) {
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
static void add_memory_inventory(json& ev, const void* image) {
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

static std::optional<int> func_attr(CUfunction f, int attr) {
  int v = 0;
  if (auto fn = aux().func_get_attribute; fn && fn(&v, attr, f) == kCudaSuccess) return v;
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

Registry g_registry;
static std::atomic<uint64_t> g_next_id{1};

std::optional<uint64_t> lookup(std::unordered_map<void*, uint64_t>& map, void* key) {
  std::lock_guard<std::mutex> lock(g_registry.mu);
  auto it = map.find(key);
  if (it == map.end()) return std::nullopt;
  return it->second;
}

bool claim_first_use(uint64_t id) {
  std::lock_guard<std::mutex> lock(g_registry.mu);
  auto [it, inserted] = g_registry.first_use.emplace(id, true);
  return inserted;
}

// The handles a loaded module or library holds, as the driver enumerates them (count, then
// list); nullopt when enumeration is off, unavailable or fails.
template <class Handle, class Owner>
std::optional<std::vector<Handle>> enumerate(CUresult (*count_fn)(unsigned*, Owner),
                                             CUresult (*list_fn)(Handle*, unsigned, Owner),
                                             Owner owner) {
  if (!config().enumerate || !count_fn || !list_fn) return std::nullopt;
  unsigned count = 0;
  if (count_fn(&count, owner) != kCudaSuccess || count > 1000000) return std::nullopt;
  std::vector<Handle> handles(count);
  if (count && list_fn(handles.data(), count, owner) != kCudaSuccess) return std::nullopt;
  return handles;
}

static void enumerate_module(json& ev, CUmodule mod) {
  const Aux& a = aux();
  auto fns = enumerate(a.module_get_function_count, a.module_enumerate_functions, mod);
  if (!fns) return;
  json list = json::array();
  for (CUfunction f : *fns) list.push_back(function_json(f, nullptr));
  ev["functions"] = std::move(list);
}

static void enumerate_library(json& ev, CUlibrary lib) {
  const Aux& a = aux();
  auto ks = enumerate(a.library_get_kernel_count, a.library_enumerate_kernels, lib);
  if (!ks) return;
  CUdevice dev = 0;
  if (!a.ctx_get_device || a.ctx_get_device(&dev) != kCudaSuccess) dev = 0;
  json list = json::array();
  for (CUkernel k : *ks) {
    json j;
    const char* name = nullptr;
    if (a.kernel_get_name && a.kernel_get_name(&name, k) == kCudaSuccess && name) j["name"] = name;
    int v = 0;
    if (a.kernel_get_attribute) {
      if (a.kernel_get_attribute(&v, kFuncBinaryVersion, k, dev) == kCudaSuccess)
        j["binary_version"] = v;
      if (a.kernel_get_attribute(&v, kFuncPtxVersion, k, dev) == kCudaSuccess) j["ptx_version"] = v;
      if (a.kernel_get_attribute(&v, kFuncNumRegs, k, dev) == kCudaSuccess) j["num_regs"] = v;
    }
    list.push_back(std::move(j));
  }
  ev["functions"] = std::move(list);
}

// Reads the JIT options the caller passed that the report cares about (after the call).
static void add_jit_outputs(json& ev, unsigned n, const CUjit_option* opts, void* const* vals) {
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

void record_load(const LoadRecord& r) {
  uint64_t id = g_next_id.fetch_add(1);
  if (r.result == kCudaSuccess && r.handle) {
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
  if (r.result == kCudaSuccess && r.handle) {
    ev["handle"] = hex(r.handle);
    if (r.kind == LoadKind::kModule) {
      enumerate_module(ev, r.handle);
    } else {
      enumerate_library(ev, r.handle);
    }
  }
  emit(std::move(ev));
}

}  // namespace smcompat::trace_shim
