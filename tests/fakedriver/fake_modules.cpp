// Module loading for the fake libcuda.so.1 used by the tests: cuModuleLoad*, cuLibraryLoad*,
// functions and kernels with their attributes, and cuLink*. An image is read with binary/ and the
// driver's choice is simulated with the working model of ../shared/reference/compatibility-rules.md
// section 7 (exact SASS, then the highest compatible SASS, then the highest compatible PTX, each
// judged by fit_image()), with the error codes of its table (209 no binary, 222 unsupported PTX,
// 223 JIT disabled) and CUDA_FORCE_PTX_JIT / CUDA_DISABLE_PTX_JIT / CUDA_MODULE_LOADING (section
// 8). Function attributes follow driver-api.md 5.2: BINARY_VERSION is the SASS arch that runs (the
// device's own arch after a JIT), PTX_VERSION the virtual arch the code came from.
// JIT is simulated by sleeping SMCOMPAT_FAKE_JIT_MS milliseconds (default 0), at load time, or at
// the first use of a function when CUDA_MODULE_LOADING=LAZY.
// Nothing here is known to match a real driver in the cases the reference marks unverified.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "../../src/trace/shim/readable_extent.hpp"
#include "fake_state.hpp"
#include "smcompat/binary/inventory.hpp"
#include "smcompat/catalog/catalog.hpp"
#include "smcompat/probe/driver_abi.hpp"
#include "smcompat/verdict/fit.hpp"

namespace {

using namespace smcompat::driver;

struct FakeModule;

struct FakeFunction {
  std::string name;
  int binary_version = 0;
  int ptx_version = 0;
  int num_regs = 0;
  FakeModule* owner = nullptr;
};

struct FakeModule {
  int device = 0;
  bool library = false;
  bool jit = false;
  bool lazy_pending = false;  // JIT still to be simulated at first use
  std::vector<std::unique_ptr<FakeFunction>> functions;
};

struct LinkState {
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<uint8_t> output;
};

// Live handles, so that stale or garbage handles get CUDA_ERROR_INVALID_HANDLE, not a crash.
struct Handles {
  std::mutex mu;
  std::unordered_set<const void*> modules;
  std::unordered_set<const void*> functions;
  std::unordered_set<const void*> links;
};
Handles& handles() {
  static Handles* h = new Handles();  // never destroyed: may be used from exit-time code
  return *h;
}

bool env_is_one(const char* name) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, "1") == 0;
}

int jit_ms() {
  const char* v = std::getenv("SMCOMPAT_FAKE_JIT_MS");
  if (!v) return 0;
  int ms = std::atoi(v);
  return ms < 0 ? 0 : std::min(ms, 60000);
}

bool lazy_loading() {
  const char* v = std::getenv("CUDA_MODULE_LOADING");
  return v && std::strcmp(v, "LAZY") == 0;
}

void simulate_jit() {
  if (int ms = jit_ms(); ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

struct JitOutputs {
  unsigned n = 0;
  const int* opts = nullptr;
  void** vals = nullptr;

  void set_wall_time(float ms) const {
    for (unsigned i = 0; opts && vals && i < n; ++i)
      if (opts[i] == kJitWallTime) std::memcpy(&vals[i], &ms, sizeof ms);
  }
  void set_error_log(const std::string& text) const {
    char* buf = nullptr;
    size_t size = 0;
    for (unsigned i = 0; opts && vals && i < n; ++i) {
      if (opts[i] == kJitErrorLogBuffer) buf = static_cast<char*>(vals[i]);
      if (opts[i] == kJitErrorLogBufferSize) size = reinterpret_cast<uintptr_t>(vals[i]);
    }
    if (!buf || size == 0) return;
    size_t len = std::min(text.size(), size - 1);
    std::memcpy(buf, text.data(), len);
    buf[len] = 0;
  }
};

// The device a load is for: the current context's, or device 0 for context-independent library
// loads made before any context exists.
int load_device(bool library) {
  int dev = smcompat::fake::current_device();
  if (dev < 0 && library && !smcompat::fake::state().gpus.empty()) dev = 0;
  return dev;
}

// Chooses an image and builds the module. Returns the CUresult; `log` gets a JIT-style message on
// failure.
CUresult build_module(const void* image, uint64_t max_size, bool library, const JitOutputs& jo,
                      FakeModule** out) {
  if (!out || !image) return kCudaErrorInvalidValue;
  const smcompat::fake::FakeState& st = smcompat::fake::state();
  int dev = load_device(library);
  if (dev < 0 || dev >= static_cast<int>(st.gpus.size())) return kCudaErrorInvalidContext;
  const smcompat::fake::FakeGpu& gpu = st.gpus[static_cast<size_t>(dev)];
  smcompat::ComputeCapability cc{gpu.cc_major, gpu.cc_minor};
  smcompat::Version driver = smcompat::Version::from_cuda_int(st.driver_cuda_version);

  smcompat::InspectOptions opts;
  opts.deep = true;
  opts.jobs = 1;
  opts.bare_cubins = false;
  // Never read past readable memory, whatever the headers claim.
  uint64_t extent = 0;
  image = smcompat::trace_shim::unwrap_fatbin_wrapper(image, extent);
  max_size = std::min<uint64_t>(max_size, extent);
  smcompat::FileInventory inv = smcompat::inspect_memory_image(image, max_size, opts);
  if (inv.images.empty()) {
    jo.set_error_log("[fake driver] not a loadable image" +
                     (inv.errors.empty() ? std::string() : ": " + inv.errors.front().to_string()));
    return kCudaErrorInvalidImage;
  }

  const smcompat::Catalog& cat = smcompat::Catalog::builtin();
  const bool force_ptx = env_is_one("CUDA_FORCE_PTX_JIT");
  const bool no_jit = env_is_one("CUDA_DISABLE_PTX_JIT");
  const smcompat::DeviceImage* exact = nullptr;
  const smcompat::DeviceImage* compatible = nullptr;
  const smcompat::DeviceImage* ptx = nullptr;
  bool unsupported_ptx = false;
  for (const smcompat::DeviceImage& img : inv.images) {
    if (img.decode_error) continue;
    std::optional<smcompat::Version> isa = img.ptx_version;
    if (!isa && img.ptx) isa = img.ptx->version;
    smcompat::FitResult fit = smcompat::fit_image(img.target, cc, isa, driver, cat);
    switch (fit.fit) {
      case smcompat::Fit::kNative:
        if (!force_ptx && !exact) exact = &img;
        break;
      case smcompat::Fit::kCompatibleSass:
        if (!force_ptx && (!compatible || img.target.arch > compatible->target.arch))
          compatible = &img;
        break;
      case smcompat::Fit::kPtxJit:
        if (!ptx || img.target.arch > ptx->target.arch) ptx = &img;
        break;
      case smcompat::Fit::kUnsupportedPtx:
        unsupported_ptx = true;
        break;
      default:
        break;
    }
  }
  const smcompat::DeviceImage* chosen = exact ? exact : compatible;
  bool jit = false;
  if (!chosen && ptx) {
    if (no_jit) {
      jo.set_error_log("[fake driver] PTX JIT compilation disabled (CUDA_DISABLE_PTX_JIT=1)");
      return kCudaErrorJitCompilationDisabled;
    }
    chosen = ptx;
    jit = true;
  }
  if (!chosen) {
    if (unsupported_ptx) {
      jo.set_error_log("[fake driver] the PTX ISA version is newer than this driver supports");
      return kCudaErrorUnsupportedPtxVersion;
    }
    jo.set_error_log("[fake driver] no image for sm_" + std::to_string(cc.arch()));
    return kCudaErrorNoBinaryForGpu;
  }

  auto mod = std::make_unique<FakeModule>();
  mod->device = dev;
  mod->library = library;
  mod->jit = jit;
  auto add = [&](const std::string& name, int regs) {
    auto f = std::make_unique<FakeFunction>();
    f->name = name;
    f->owner = mod.get();
    f->num_regs = regs;
    if (jit) {
      f->binary_version = cc.arch();
      f->ptx_version = chosen->target.arch;
    } else {
      f->binary_version = chosen->target.arch;
      int virt = chosen->cubin && chosen->cubin->virtual_sm ? chosen->cubin->virtual_sm
                                                            : chosen->target.arch;
      f->ptx_version = virt;
    }
    mod->functions.push_back(std::move(f));
  };
  if (chosen->cubin) {
    for (const smcompat::CubinKernel& k : chosen->cubin->kernels)
      add(k.name, static_cast<int>(k.registers.value_or(0)));
  } else if (chosen->ptx) {
    for (const std::string& e : chosen->ptx->entries) add(e, 32);  // registers: JIT's business
  }

  if (jit) {
    if (lazy_loading()) {
      mod->lazy_pending = true;
    } else {
      auto t0 = std::chrono::steady_clock::now();
      simulate_jit();
      jo.set_wall_time(
          std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  } else {
    jo.set_wall_time(0.0f);
  }

  std::lock_guard<std::mutex> lock(handles().mu);
  handles().modules.insert(mod.get());
  for (auto& f : mod->functions) handles().functions.insert(f.get());
  *out = mod.release();
  return kCudaSuccess;
}

CUresult read_file(const char* path, std::vector<uint8_t>& bytes) {
  if (!path) return kCudaErrorInvalidValue;
  std::ifstream in(path, std::ios::binary);
  if (!in) return kCudaErrorFileNotFound;
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  bytes.push_back(0);  // PTX text files are loaded as NUL-terminated strings
  return kCudaSuccess;
}

FakeModule* live_module(const void* h, bool library) {
  std::lock_guard<std::mutex> lock(handles().mu);
  if (!h || !handles().modules.count(h)) return nullptr;
  auto* m = static_cast<FakeModule*>(const_cast<void*>(h));
  return m->library == library ? m : nullptr;
}

FakeFunction* live_function(const void* h) {
  std::lock_guard<std::mutex> lock(handles().mu);
  if (!h || !handles().functions.count(h)) return nullptr;
  return static_cast<FakeFunction*>(const_cast<void*>(h));
}

CUresult unload(const void* h, bool library) {
  FakeModule* m = live_module(h, library);
  if (!m) return kCudaErrorInvalidHandle;
  {
    std::lock_guard<std::mutex> lock(handles().mu);
    handles().modules.erase(m);
    for (auto& f : m->functions) handles().functions.erase(f.get());
  }
  delete m;
  return kCudaSuccess;
}

// First use of a function of a lazily loaded JIT module pays the (simulated) compile.
void first_use(FakeModule* m) {
  bool pay = false;
  {
    std::lock_guard<std::mutex> lock(handles().mu);
    pay = m->lazy_pending;
    m->lazy_pending = false;
  }
  if (pay) simulate_jit();
}

CUresult get_function(void** out, const void* h, const char* name, bool library) {
  if (!out || !name) return kCudaErrorInvalidValue;
  FakeModule* m = live_module(h, library);
  if (!m) return kCudaErrorInvalidHandle;
  for (auto& f : m->functions) {
    if (f->name == name) {
      if (!library) first_use(m);
      *out = f.get();
      return kCudaSuccess;
    }
  }
  return kCudaErrorNotFound;
}

CUresult enumerate(void** out, unsigned n, const void* h, bool library) {
  if (!out) return kCudaErrorInvalidValue;
  FakeModule* m = live_module(h, library);
  if (!m) return kCudaErrorInvalidHandle;
  if (n != m->functions.size()) return kCudaErrorInvalidValue;
  for (unsigned i = 0; i < n; ++i) out[i] = m->functions[i].get();
  return kCudaSuccess;
}

CUresult function_attribute(int* v, int attr, const void* h) {
  if (!v) return kCudaErrorInvalidValue;
  FakeFunction* f = live_function(h);
  if (!f) return kCudaErrorInvalidHandle;
  switch (attr) {
    case 0:
      *v = 1024;
      return kCudaSuccess;  // MAX_THREADS_PER_BLOCK
    case 1:
    case 2:
    case 3:
    case 8:
      *v = 0;
      return kCudaSuccess;
    case kFuncNumRegs:
      *v = f->num_regs;
      return kCudaSuccess;
    case kFuncPtxVersion:
      *v = f->ptx_version;
      return kCudaSuccess;
    case kFuncBinaryVersion:
      *v = f->binary_version;
      return kCudaSuccess;
    default:
      return kCudaErrorInvalidValue;
  }
}

CUresult function_name(const char** name, const void* h) {
  if (!name) return kCudaErrorInvalidValue;
  FakeFunction* f = live_function(h);
  if (!f) return kCudaErrorInvalidHandle;
  *name = f->name.c_str();
  return kCudaSuccess;
}

CUresult link_add(void* state, const uint8_t* data, size_t size) {
  if (!data || size == 0 || size > (1ull << 31)) return kCudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(handles().mu);
  if (!handles().links.count(state)) return kCudaErrorInvalidHandle;
  static_cast<LinkState*>(state)->inputs.emplace_back(data, data + size);
  return kCudaSuccess;
}

// A module or library from a file (cuModuleLoad, cuLibraryLoadFromFile).
CUresult build_module_from_file(const char* path, bool library, const JitOutputs& jit, void** out) {
  std::vector<uint8_t> bytes;
  if (CUresult r = read_file(path, bytes); r != kCudaSuccess) return r;
  return build_module(bytes.data(), bytes.size(), library, jit,
                      reinterpret_cast<FakeModule**>(out));
}

// cuModuleGetFunctionCount / cuLibraryGetKernelCount.
CUresult function_count(unsigned* count, void* handle, bool library) {
  if (!count) return kCudaErrorInvalidValue;
  FakeModule* m = live_module(handle, library);
  if (!m) return kCudaErrorInvalidHandle;
  *count = static_cast<unsigned>(m->functions.size());
  return kCudaSuccess;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Exported driver API (C ABI, signatures of CUDA 13.0 cuda.h with opaque handles as void*).
extern "C" {

#define FAKE_EXPORT __attribute__((visibility("default")))

FAKE_EXPORT CUresult cuModuleLoadDataEx(void** module, const void* image, unsigned n, int* opts,
                                        void** vals) {
  return build_module(image, 1ull << 32, false, JitOutputs{n, opts, vals},
                      reinterpret_cast<FakeModule**>(module));
}

// Entry points never call each other through their exported names, so that a preloaded shim
// sees each application call exactly once.
FAKE_EXPORT CUresult cuModuleLoadData(void** module, const void* image) {
  return build_module(image, 1ull << 32, false, JitOutputs{},
                      reinterpret_cast<FakeModule**>(module));
}

FAKE_EXPORT CUresult cuModuleLoadFatBinary(void** module, const void* fatbin) {
  return build_module(fatbin, 1ull << 32, false, JitOutputs{},
                      reinterpret_cast<FakeModule**>(module));
}

FAKE_EXPORT CUresult cuModuleLoad(void** module, const char* path) {
  return build_module_from_file(path, false, JitOutputs{}, module);
}

FAKE_EXPORT CUresult cuModuleUnload(void* module) { return unload(module, false); }

FAKE_EXPORT CUresult cuModuleGetFunction(void** fn, void* module, const char* name) {
  return get_function(fn, module, name, false);
}

FAKE_EXPORT CUresult cuModuleGetFunctionCount(unsigned* count, void* module) {
  return function_count(count, module, false);
}

FAKE_EXPORT CUresult cuModuleEnumerateFunctions(void** fns, unsigned n, void* module) {
  return enumerate(fns, n, module, false);
}

FAKE_EXPORT CUresult cuModuleGetLoadingMode(int* mode) {
  if (!mode) return kCudaErrorInvalidValue;
  *mode = lazy_loading() ? 2 : 1;  // CU_MODULE_LAZY_LOADING / CU_MODULE_EAGER_LOADING
  return kCudaSuccess;
}

FAKE_EXPORT CUresult cuFuncGetAttribute(int* v, int attr, void* fn) {
  return function_attribute(v, attr, fn);
}

FAKE_EXPORT CUresult cuFuncGetName(const char** name, void* fn) { return function_name(name, fn); }

// Libraries: context-independent modules; a CUkernel is the same object as its CUfunction here.
FAKE_EXPORT CUresult cuLibraryLoadData(void** lib, const void* code, int* jo, void** jv,
                                       unsigned nj, int*, void**, unsigned) {
  return build_module(code, 1ull << 32, true, JitOutputs{nj, jo, jv},
                      reinterpret_cast<FakeModule**>(lib));
}

FAKE_EXPORT CUresult cuLibraryLoadFromFile(void** lib, const char* path, int* jo, void** jv,
                                           unsigned nj, int*, void**, unsigned) {
  return build_module_from_file(path, true, JitOutputs{nj, jo, jv}, lib);
}

FAKE_EXPORT CUresult cuLibraryUnload(void* lib) { return unload(lib, true); }

FAKE_EXPORT CUresult cuLibraryGetKernelCount(unsigned* count, void* lib) {
  return function_count(count, lib, true);
}

FAKE_EXPORT CUresult cuLibraryGetKernel(void** kernel, void* lib, const char* name) {
  return get_function(kernel, lib, name, true);
}

FAKE_EXPORT CUresult cuLibraryEnumerateKernels(void** kernels, unsigned n, void* lib) {
  return enumerate(kernels, n, lib, true);
}

FAKE_EXPORT CUresult cuKernelGetFunction(void** fn, void* kernel) {
  if (!fn) return kCudaErrorInvalidValue;
  FakeFunction* f = live_function(kernel);
  if (!f) return kCudaErrorInvalidHandle;
  if (smcompat::fake::current_device() < 0) return kCudaErrorInvalidContext;
  first_use(f->owner);
  *fn = f;
  return kCudaSuccess;
}

FAKE_EXPORT CUresult cuKernelGetAttribute(int* v, int attr, void* kernel, int /*dev*/) {
  return function_attribute(v, attr, kernel);
}

FAKE_EXPORT CUresult cuKernelGetName(const char** name, void* kernel) {
  return function_name(name, kernel);
}

// Launches run nothing; they cost SMCOMPAT_FAKE_KERNEL_US on the stream (fake_timing.cpp).
FAKE_EXPORT CUresult cuLaunchKernel(void* fn, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, void* stream, void**, void**) {
  if (!live_function(fn)) return kCudaErrorInvalidHandle;
  return smcompat::fake::launch_on_stream(stream);
}

// Linking: the "linked" image is the first non-empty input (enough to trace the flow).
FAKE_EXPORT CUresult cuLinkCreate_v2(unsigned, int*, void**, void** state) {
  if (!state) return kCudaErrorInvalidValue;
  auto* ls = new LinkState();
  std::lock_guard<std::mutex> lock(handles().mu);
  handles().links.insert(ls);
  *state = ls;
  return kCudaSuccess;
}

FAKE_EXPORT CUresult cuLinkAddData_v2(void* state, int /*type*/, void* data, size_t size,
                                      const char* /*name*/, unsigned, int*, void**) {
  return link_add(state, static_cast<const uint8_t*>(data), size);
}

FAKE_EXPORT CUresult cuLinkAddFile_v2(void* state, int type, const char* path, unsigned n,
                                      int* opts, void** vals) {
  std::vector<uint8_t> bytes;
  if (CUresult r = read_file(path, bytes); r != kCudaSuccess) return r;
  return link_add(state, bytes.data(), bytes.size());
}

FAKE_EXPORT CUresult cuLinkComplete(void* state, void** cubin, size_t* size) {
  if (!cubin || !size) return kCudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(handles().mu);
  if (!handles().links.count(state)) return kCudaErrorInvalidHandle;
  auto* ls = static_cast<LinkState*>(state);
  if (ls->inputs.empty()) return kCudaErrorInvalidValue;
  ls->output = ls->inputs.front();
  *cubin = ls->output.data();
  *size = ls->output.size();
  return kCudaSuccess;
}

FAKE_EXPORT CUresult cuLinkDestroy(void* state) {
  std::lock_guard<std::mutex> lock(handles().mu);
  if (!handles().links.erase(state)) return kCudaErrorInvalidHandle;
  delete static_cast<LinkState*>(state);
  return kCudaSuccess;
}

}  // extern "C"
