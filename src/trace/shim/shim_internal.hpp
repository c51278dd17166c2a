// What the parts of libsmcompat_trace.so share (private to src/trace/shim/):
//  - interpose.cpp: the interposed dlsym, cuGetProcAddress/_v2, the wrapper table (slots) and the
//    driver functions the shim calls for its own queries;
//  - records.cpp: configuration from the environment and the JSON-lines record writer;
//  - loads.cpp: the module, library and link wrappers, generated from one template;
//  - override.cpp: the compute-capability override.
// The shim's rules (fail-open, re-entrancy, ABI selection) open interpose.cpp; record format:
// docs/trace.md; reference ../shared/reference/driver-api.md sections 2 to 5.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "smcompat/binary/inventory.hpp"
#include "smcompat/probe/driver_abi.hpp"

#define SMCOMPAT_EXPORT __attribute__((visibility("default"), noinline))

namespace smcompat::trace_shim {

using namespace smcompat::driver;
using nlohmann::json;

// ---- re-entrancy ----------------------------------------------------------------------------
// Calls made while the shim is already working on this thread pass straight through (our own
// calls into the driver, a driver calling its own exports through the PLT, allocators that call
// dlsym). Plain __thread: no TLS wrapper function, usable from the earliest dlsym call.
extern __thread int t_depth __attribute__((tls_model("initial-exec")));

struct Guard {
  Guard() { ++t_depth; }
  ~Guard() { --t_depth; }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
};

inline double ms_between(std::chrono::steady_clock::time_point a,
                         std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string basename_of(const char* path);
/// The file of the object that holds `addr` ("" if none).
std::string object_of(const void* addr);

// ---- configuration and records (records.cpp) ------------------------------------------------
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
const Config& config();
/// Writes one record (one O_APPEND write(2) per line, so a crash loses nothing written).
void emit(const Config& cfg, json event);
void emit(json event);
bool recording();

std::string hex(const void* p);
/// "result", and "error" with the driver's name for it.
void add_result(json& ev, CUresult r);
json images_json(const smcompat::FileInventory& inv);
void add_file_inventory(json& ev, const char* path);
json function_json(CUfunction f, const char* name_hint);
/// The record of a module/library unload (after the driver's call); fail-open like every record.
void emit_unload(std::optional<uint64_t> id, const char* api, CUresult r);

// Handles the application holds, mapped to the id of the load that produced them.
struct Registry {
  std::mutex mu;
  std::unordered_map<void*, uint64_t> modules;
  std::unordered_map<void*, uint64_t> libraries;
  std::unordered_map<void*, uint64_t> kernels;   // CUkernel -> library id
  std::unordered_map<uint64_t, bool> first_use;  // load id -> first use recorded
  std::vector<std::string> override_seen;        // "caller|api" already recorded
};
extern Registry g_registry;

std::optional<uint64_t> lookup(std::unordered_map<void*, uint64_t>& map, void* key);
/// True the first time it is called for `id` (first-use time of a module or library).
bool claim_first_use(uint64_t id);

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
/// Registers the handle and writes the "load" record (inventory, device, functions, JIT outputs).
void record_load(const LoadRecord& r);

// ---- the wrapper table and the driver's own functions (interpose.cpp) -----------------------
// One slot per (base name, ABI). A slot is valid for a cuGetProcAddress request when
// min_version <= cudaVersion <= max_version; `export_name` is the symbol the driver exports for
// that ABI (used for dlsym/PLT callers). None of these functions has per-thread-stream variants
// (driver-api.md 3.3), so flags 0, 1 and 2 all map to the same ABI; other flag values are passed
// through unwrapped.
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

/// The driver's export `name` (next in the lookup order, or in the loaded libcuda.so.1).
void* resolve_export(const char* name);
/// Stores the driver's pointer for a slot (first one wins; our own wrappers are never stored).
void remember_real(Slot& slot, void* real);

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
  PFN_cuCtxGetDevice_v2000 ctx_get_device = nullptr;
  PFN_cuDeviceGetAttribute_v2000 device_get_attribute = nullptr;
  PFN_cuDeviceGetCount_v2000 device_get_count = nullptr;
  PFN_cuDriverGetVersion_v2020 driver_get_version = nullptr;
  PFN_cuModuleLoadDataEx_v2010 module_load_data_ex = nullptr;
  PFN_cuModuleGetFunctionCount_v12040 module_get_function_count = nullptr;
  PFN_cuModuleEnumerateFunctions_v12040 module_enumerate_functions = nullptr;
  PFN_cuFuncGetAttribute_v2020 func_get_attribute = nullptr;
  PFN_cuFuncGetName_v12030 func_get_name = nullptr;
  PFN_cuLibraryGetKernelCount_v12040 library_get_kernel_count = nullptr;
  PFN_cuLibraryEnumerateKernels_v12040 library_enumerate_kernels = nullptr;
  PFN_cuKernelGetAttribute_v12000 kernel_get_attribute = nullptr;
  PFN_cuKernelGetName_v12030 kernel_get_name = nullptr;
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;
};
const Aux& aux();

// ---- the exported entries (C ABI) -----------------------------------------------------------
// Each catches everything and falls back to the driver's function.
extern "C" {
SMCOMPAT_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version,
                                             uint64_t flags, ProcAddressQueryResult* status);
SMCOMPAT_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int version,
                                          uint64_t flags);
SMCOMPAT_EXPORT CUresult cuDeviceGetAttribute(int* value, int attr, CUdevice dev);
SMCOMPAT_EXPORT CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev);
SMCOMPAT_EXPORT CUresult cuModuleLoad(CUmodule* module, const char* fname);
SMCOMPAT_EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image);
SMCOMPAT_EXPORT CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned n,
                                            CUjit_option* opts, void** vals);
SMCOMPAT_EXPORT CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fat);
SMCOMPAT_EXPORT CUresult cuModuleUnload(CUmodule module);
SMCOMPAT_EXPORT CUresult cuModuleGetFunction(CUfunction* fn, CUmodule module, const char* name);
SMCOMPAT_EXPORT CUresult cuLibraryLoadData(CUlibrary* lib, const void* code, CUjit_option* jo,
                                           void** jv, unsigned nj, CUlibraryOption* lo, void** lv,
                                           unsigned nl);
SMCOMPAT_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary* lib, const char* path, CUjit_option* jo,
                                               void** jv, unsigned nj, CUlibraryOption* lo,
                                               void** lv, unsigned nl);
SMCOMPAT_EXPORT CUresult cuLibraryUnload(CUlibrary lib);
SMCOMPAT_EXPORT CUresult cuLibraryGetKernel(CUkernel* kernel, CUlibrary lib, const char* name);
SMCOMPAT_EXPORT CUresult cuKernelGetFunction(CUfunction* fn, CUkernel kernel);
SMCOMPAT_EXPORT CUresult cuLinkAddData_v2(CUlinkState state, int type, void* data, size_t size,
                                          const char* name, unsigned n, CUjit_option* opts,
                                          void** vals);
SMCOMPAT_EXPORT CUresult cuLinkAddFile_v2(CUlinkState state, int type, const char* path, unsigned n,
                                          CUjit_option* opts, void** vals);
SMCOMPAT_EXPORT CUresult cuLinkComplete(CUlinkState state, void** cubin, size_t* size);
}

}  // namespace smcompat::trace_shim
