// The trace shim's module, library and link wrappers. Every one is the same sequence, written once
// in traced_call(): find the driver's function for the slot (CUDA_ERROR_NOT_INITIALIZED without
// one), pass straight through when the shim is already at work on this thread, else take the
// re-entrancy guard, do what must happen before the call, time the driver's call, and record
// after it without letting anything escape (fail-open). Records: docs/trace.md;
// driver-api.md 5.2 (what is recorded) and 5.3 (the JIT wall time and log).
#include <chrono>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <vector>

#include "shim_internal.hpp"

namespace smcompat::trace_shim {
namespace {

constexpr auto kNothingBefore = [] {};

// The one body of every wrapper: `before()` runs under the guard before the driver's call,
// `after(result, ms)` after it; an exception from either leaves the call a pass-through.
template <class Fn, class Before, class After, class... Args>
CUresult traced_call(SlotId slot, Before&& before, After&& after, Args... args) {
  auto real = real_of<Fn>(slot);
  if (!real) return kCudaErrorNotInitialized;
  if (t_depth > 0) return real(args...);
  Guard g;
  try {
    before();
  } catch (...) {
  }
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = real(args...);
  double ms = ms_between(t0, std::chrono::steady_clock::now());
  try {
    after(r, ms);
  } catch (...) {
  }
  return r;
}

// Where a load record comes from: the API, what is loaded, the caller's JIT options.
struct LoadSite {
  const char* api;
  LoadKind kind;
  void** handle;  // where the driver returns the module or library
  const void* image = nullptr;
  const char* path = nullptr;
  unsigned n_opts = 0;
  const CUjit_option* opts = nullptr;
  void* const* vals = nullptr;
};

LoadRecord load_record(const LoadSite& s, CUresult r, double ms) {
  return {s.api,   s.kind, r,  r == kCudaSuccess && s.handle ? *s.handle : nullptr,
          s.image, s.path, ms, s.n_opts,
          s.opts,  s.vals};
}

// A wrapper whose record is the load record of `site`.
template <class Fn, class... Args>
CUresult traced_load(SlotId slot, const LoadSite& site, Args... args) {
  return traced_call<Fn>(
      slot, kNothingBefore, [&](CUresult r, double ms) { record_load(load_record(site, r, ms)); },
      args...);
}

// The id of a load the application releases, forgotten before the driver's call (a handle may be
// reused by the next load as soon as the driver has released it).
std::optional<uint64_t> forget(std::unordered_map<void*, uint64_t>& map, void* handle) {
  std::lock_guard<std::mutex> lock(g_registry.mu);
  auto it = map.find(handle);
  if (it == map.end()) return std::nullopt;
  uint64_t id = it->second;
  map.erase(it);
  return id;
}

// Writes a get_function / get_kernel record: the load the handle came from (if known; its first
// use when `first_use_counts`), the name asked for, and for a function the driver returned, what
// the driver reports about it.
void emit_get(const char* ev_name, const char* api, double ms, std::optional<uint64_t> load_id,
              bool first_use_counts, const char* name, CUresult r, const CUfunction* fn) {
  json ev = {{"ev", ev_name}, {"api", api}, {"ms", ms}};
  if (load_id) {
    ev["id"] = *load_id;
    if (first_use_counts && claim_first_use(*load_id)) ev["first_use"] = true;
  }
  if (name) ev["name"] = name;
  add_result(ev, r);
  if (r == kCudaSuccess && fn && *fn) ev.update(function_json(*fn, name));
  emit(std::move(ev));
}

// The inventory of a linker input or output held in memory.
void add_memory_images(json& ev, const void* data, size_t size) {
  smcompat::InspectOptions o;
  o.bare_cubins = false;
  smcompat::FileInventory inv = smcompat::inspect_memory_image(data, size, o);
  ev["format"] = smcompat::to_string(inv.format);
  ev["images"] = images_json(inv);
}

// A wrapper that returns a function of a module (by name) or of a kernel: `owners` maps the
// module or kernel asked about to its load; the first lookup in a module is its first use.
template <class Fn, class... Args>
CUresult traced_get_function(SlotId slot, const char* api,
                             std::unordered_map<void*, uint64_t>& owners, void* owner,
                             const char* name, CUfunction* fn, Args... args) {
  return traced_call<Fn>(
      slot, kNothingBefore,
      [&](CUresult r, double ms) {
        if (recording())
          emit_get("get_function", api, ms, lookup(owners, owner), &owners == &g_registry.modules,
                   name, r, fn);
      },
      args...);
}

// The record of an input added to a link (its images are added by the caller).
json link_input(const char* api, CUlinkState state, int type, CUresult r) {
  json ev = {{"ev", "link_input"}, {"api", api}, {"input_type", type}, {"link", hex(state)}};
  add_result(ev, r);
  return ev;
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

}  // namespace

extern "C" {

SMCOMPAT_EXPORT CUresult cuModuleLoad(CUmodule* module, const char* fname) {
  return traced_load<PFN_cuModuleLoad_v2000>(
      kModuleLoad, {"cuModuleLoad", LoadKind::kModule, module, nullptr, fname}, module, fname);
}

// With the caller's own options the call goes through unchanged; what the caller asked for (wall
// time, logs) is read back afterwards.
SMCOMPAT_EXPORT CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned n,
                                            CUjit_option* opts, void** vals) {
  return traced_load<PFN_cuModuleLoadDataEx_v2010>(
      kModuleLoadDataEx,
      {"cuModuleLoadDataEx", LoadKind::kModule, module, image, nullptr, n, opts, vals}, module,
      image, n, opts, vals);
}

SMCOMPAT_EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  auto real = real_of<PFN_cuModuleLoadData_v2000>(kModuleLoadData);
  if (!real) return kCudaErrorNotInitialized;
  if (t_depth > 0) return real(module, image);
  Guard g;
  // Preferably through cuModuleLoadDataEx with the JIT wall time and error log requested
  // (driver-api.md 5.3); if anything about that is unavailable, the plain call.
  PFN_cuModuleLoadDataEx_v2010 ex = nullptr;
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
  double ms = ms_between(t0, std::chrono::steady_clock::now());
  try {
    LoadSite site{"cuModuleLoadData", LoadKind::kModule, module, image};
    if (cap) {
      site.n_opts = static_cast<unsigned>(cap->opts.size());
      site.opts = cap->opts.data();
      site.vals = cap->vals.data();
    }
    record_load(load_record(site, r, ms));
  } catch (...) {
  }
  delete cap;
  return r;
}

SMCOMPAT_EXPORT CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fat) {
  return traced_load<PFN_cuModuleLoadFatBinary_v2000>(
      kModuleLoadFatBinary, {"cuModuleLoadFatBinary", LoadKind::kModule, module, fat}, module, fat);
}

SMCOMPAT_EXPORT CUresult cuModuleUnload(CUmodule module) {
  std::optional<uint64_t> id;
  return traced_call<PFN_cuModuleUnload_v2000>(
      kModuleUnload, [&] { id = forget(g_registry.modules, module); },
      [&](CUresult r, double) { emit_unload(id, "cuModuleUnload", r); }, module);
}

SMCOMPAT_EXPORT CUresult cuModuleGetFunction(CUfunction* fn, CUmodule module, const char* name) {
  return traced_get_function<PFN_cuModuleGetFunction_v2000>(
      kModuleGetFunction, "cuModuleGetFunction", g_registry.modules, module, name, fn, fn, module,
      name);
}

SMCOMPAT_EXPORT CUresult cuLibraryLoadData(CUlibrary* lib, const void* code, CUjit_option* jo,
                                           void** jv, unsigned nj, CUlibraryOption* lo, void** lv,
                                           unsigned nl) {
  return traced_load<PFN_cuLibraryLoadData_v12000>(
      kLibraryLoadData, {"cuLibraryLoadData", LoadKind::kLibrary, lib, code, nullptr, nj, jo, jv},
      lib, code, jo, jv, nj, lo, lv, nl);
}

SMCOMPAT_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary* lib, const char* path, CUjit_option* jo,
                                               void** jv, unsigned nj, CUlibraryOption* lo,
                                               void** lv, unsigned nl) {
  return traced_load<PFN_cuLibraryLoadFromFile_v12000>(
      kLibraryLoadFromFile,
      {"cuLibraryLoadFromFile", LoadKind::kLibrary, lib, nullptr, path, nj, jo, jv}, lib, path, jo,
      jv, nj, lo, lv, nl);
}

SMCOMPAT_EXPORT CUresult cuLibraryUnload(CUlibrary lib) {
  std::optional<uint64_t> id;
  auto before = [&] {
    id = forget(g_registry.libraries, lib);
    if (!id) return;
    std::lock_guard<std::mutex> lock(g_registry.mu);
    for (auto k = g_registry.kernels.begin(); k != g_registry.kernels.end();)
      k = k->second == *id ? g_registry.kernels.erase(k) : std::next(k);
  };
  return traced_call<PFN_cuLibraryUnload_v12000>(
      kLibraryUnload, before, [&](CUresult r, double) { emit_unload(id, "cuLibraryUnload", r); },
      lib);
}

SMCOMPAT_EXPORT CUresult cuLibraryGetKernel(CUkernel* kernel, CUlibrary lib, const char* name) {
  return traced_call<PFN_cuLibraryGetKernel_v12000>(
      kLibraryGetKernel, kNothingBefore,
      [&](CUresult r, double ms) {
        auto id = lookup(g_registry.libraries, lib);
        if (id && r == kCudaSuccess && kernel && *kernel) {
          std::lock_guard<std::mutex> lock(g_registry.mu);
          g_registry.kernels[*kernel] = *id;
        }
        if (recording())
          emit_get("get_kernel", "cuLibraryGetKernel", ms, id, true, name, r, nullptr);
      },
      kernel, lib, name);
}

SMCOMPAT_EXPORT CUresult cuKernelGetFunction(CUfunction* fn, CUkernel kernel) {
  return traced_get_function<PFN_cuKernelGetFunction_v12000>(
      kKernelGetFunction, "cuKernelGetFunction", g_registry.kernels, kernel, nullptr, fn, fn,
      kernel);
}

SMCOMPAT_EXPORT CUresult cuLinkAddData_v2(CUlinkState state, int type, void* data, size_t size,
                                          const char* name, unsigned n, CUjit_option* opts,
                                          void** vals) {
  return traced_call<PFN_cuLinkAddData_v6050>(
      kLinkAddDataV2, kNothingBefore,
      [&](CUresult r, double) {
        if (!recording()) return;
        json ev = link_input("cuLinkAddData_v2", state, type, r);
        ev["bytes"] = size;
        if (name) ev["name"] = name;
        if (data && size > 0) add_memory_images(ev, data, size);
        emit(std::move(ev));
      },
      state, type, data, size, name, n, opts, vals);
}

SMCOMPAT_EXPORT CUresult cuLinkAddFile_v2(CUlinkState state, int type, const char* path, unsigned n,
                                          CUjit_option* opts, void** vals) {
  return traced_call<PFN_cuLinkAddFile_v6050>(
      kLinkAddFileV2, kNothingBefore,
      [&](CUresult r, double) {
        if (!recording()) return;
        json ev = link_input("cuLinkAddFile_v2", state, type, r);
        if (path) ev["path"] = path;
        add_file_inventory(ev, path);
        emit(std::move(ev));
      },
      state, type, path, n, opts, vals);
}

SMCOMPAT_EXPORT CUresult cuLinkComplete(CUlinkState state, void** cubin, size_t* size) {
  return traced_call<PFN_cuLinkComplete_v5050>(
      kLinkComplete, kNothingBefore,
      [&](CUresult r, double ms) {
        if (!recording()) return;
        json ev = {
            {"ev", "link_complete"}, {"api", "cuLinkComplete"}, {"link", hex(state)}, {"ms", ms}};
        add_result(ev, r);
        if (r == kCudaSuccess && cubin && *cubin && size && *size) {
          ev["bytes"] = *size;
          add_memory_images(ev, *cubin, *size);
        }
        emit(std::move(ev));
      },
      state, cubin, size);
}

}  // extern "C"

}  // namespace smcompat::trace_shim
