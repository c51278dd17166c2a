// The GPU kit's driver-API runner: loads one image the way a library would, asks the driver what
// it chose, launches the kernel and checks its output. One JSON object per line on stdout, which
// tests/gpu-checks/steps/*.py compare with smcompat's predictions.
//   kit_driver module FILE            cuModuleLoadData + kit_axpb, launched and verified
//   kit_driver library FILE           the same through cuLibraryLoadData / cuLibraryGetKernel
//   kit_driver compare A B KERNEL     the same kernel from two images, same inputs, outputs
//                                     compared byte for byte (KERNEL: warp_specialized | plain |
//                                     clustered; B's clustered is checked against what a cluster
//                                     of one computes, A's is declared a cluster of two)
//   kit_driver smem FILE              kit_smem at the opt-in shared-memory limit and one byte above
//   kit_driver wgmma A B              every kernel of tests/ptx/data/wgmma_kernels.cu from image A
//                                     (the sm_90a original) and image B (its `ptx lower`ing), for
//                                     several shared-memory layouts and accumulate 0/1: the same
//                                     inputs, outputs compared byte for byte, each launch timed
// The driver is dlopen'ed (libcuda.so.1, or $KIT_LIBCUDA), so the same binary runs against a real
// driver and the test suite's fake one; an entry point the driver lacks is reported, not fatal.
#define CUDA_ENABLE_DEPRECATED 1
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

struct Driver {
  void* handle = nullptr;
  template <class F>
  F get(const char* name) const {
    return handle ? reinterpret_cast<F>(dlsym(handle, name)) : nullptr;
  }
};
Driver drv;

using InitFn = CUresult (*)(unsigned);
using DeviceGetFn = CUresult (*)(CUdevice*, int);
using AttrFn = CUresult (*)(int*, CUdevice_attribute, CUdevice);
using CtxRetainFn = CUresult (*)(CUcontext*, CUdevice);
using CtxSetFn = CUresult (*)(CUcontext);
using ModLoadFn = CUresult (*)(CUmodule*, const void*);
using ModFuncFn = CUresult (*)(CUfunction*, CUmodule, const char*);
using ModUnloadFn = CUresult (*)(CUmodule);
using LibLoadFn = CUresult (*)(CUlibrary*, const void*, CUjit_option*, void**, unsigned,
                               CUlibraryOption*, void**, unsigned);
using LibKernelFn = CUresult (*)(CUkernel*, CUlibrary, const char*);
using KernelFuncFn = CUresult (*)(CUfunction*, CUkernel);
using LibUnloadFn = CUresult (*)(CUlibrary);
using FuncAttrFn = CUresult (*)(int*, CUfunction_attribute, CUfunction);
using FuncSetAttrFn = CUresult (*)(CUfunction, CUfunction_attribute, int);
using AllocFn = CUresult (*)(CUdeviceptr*, size_t);
using FreeFn = CUresult (*)(CUdeviceptr);
using HtoDFn = CUresult (*)(CUdeviceptr, const void*, size_t, CUstream);
using DtoHFn = CUresult (*)(void*, CUdeviceptr, size_t, CUstream);
using SyncFn = CUresult (*)(CUstream);
using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void**, void**);
using ErrNameFn = CUresult (*)(CUresult, const char**);
using EventCreateFn = CUresult (*)(CUevent*, unsigned);
using EventDestroyFn = CUresult (*)(CUevent);
using EventRecordFn = CUresult (*)(CUevent, CUstream);
using EventSyncFn = CUresult (*)(CUevent);
using EventElapsedFn = CUresult (*)(float*, CUevent, CUevent);

std::string error_name(CUresult r) {
  const char* s = nullptr;
  if (auto f = drv.get<ErrNameFn>("cuGetErrorName"); f && f(r, &s) == CUDA_SUCCESS && s) return s;
  return "CUresult " + std::to_string(static_cast<int>(r));
}

// JSON string literal (file names and driver messages only; control bytes escaped).
std::string q(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

bool read_file(const char* path, std::vector<char>& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  out.push_back('\0');  // a PTX image must be NUL-terminated; a fatbin or cubin ignores it
  return true;
}

// The context every action runs in; prints a line and returns false when the driver cannot give
// one.
bool open_context(CUdevice* dev) {
  const char* lib = std::getenv("KIT_LIBCUDA");
  drv.handle = dlopen(lib && *lib ? lib : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!drv.handle) {
    std::printf("{\"error\":%s}\n", q(std::string("dlopen libcuda.so.1: ") + dlerror()).c_str());
    return false;
  }
  CUresult r = CUDA_ERROR_NOT_FOUND;
  CUcontext ctx = nullptr;
  auto init = drv.get<InitFn>("cuInit");
  auto device_get = drv.get<DeviceGetFn>("cuDeviceGet");
  auto retain = drv.get<CtxRetainFn>("cuDevicePrimaryCtxRetain");
  auto set = drv.get<CtxSetFn>("cuCtxSetCurrent");
  if (init && device_get && retain && set && (r = init(0)) == CUDA_SUCCESS &&
      (r = device_get(dev, 0)) == CUDA_SUCCESS && (r = retain(&ctx, *dev)) == CUDA_SUCCESS &&
      (r = set(ctx)) == CUDA_SUCCESS)
    return true;
  std::printf("{\"error\":%s}\n", q("no context: " + error_name(r)).c_str());
  return false;
}

struct Loaded {
  std::string api;
  CUresult result = CUDA_ERROR_NOT_FOUND;
  double load_ms = 0, get_ms = 0;
  CUfunction fn = nullptr;
  CUmodule module = nullptr;
  CUlibrary library = nullptr;
};

// Loads FILE's kernel NAME through the module or the library API, timing the load and the lookup
// (where lazy loading moves the JIT).
Loaded load(const std::vector<char>& image, const char* name, bool library) {
  Loaded l;
  l.api = library ? "cuLibraryLoadData" : "cuModuleLoadData";
  auto t0 = std::chrono::steady_clock::now();
  if (library) {
    auto load_data = drv.get<LibLoadFn>("cuLibraryLoadData");
    auto get_kernel = drv.get<LibKernelFn>("cuLibraryGetKernel");
    auto kernel_fn = drv.get<KernelFuncFn>("cuKernelGetFunction");
    if (!load_data || !get_kernel || !kernel_fn) return l;
    l.result = load_data(&l.library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    l.load_ms = ms_since(t0);
    if (l.result != CUDA_SUCCESS) return l;
    t0 = std::chrono::steady_clock::now();
    CUkernel k = nullptr;
    l.result = get_kernel(&k, l.library, name);
    if (l.result == CUDA_SUCCESS) l.result = kernel_fn(&l.fn, k);
  } else {
    auto load_data = drv.get<ModLoadFn>("cuModuleLoadData");
    auto get_fn = drv.get<ModFuncFn>("cuModuleGetFunction");
    if (!load_data || !get_fn) return l;
    l.result = load_data(&l.module, image.data());
    l.load_ms = ms_since(t0);
    if (l.result != CUDA_SUCCESS) return l;
    t0 = std::chrono::steady_clock::now();
    l.result = get_fn(&l.fn, l.module, name);
  }
  l.get_ms = ms_since(t0);
  return l;
}

void unload(Loaded& l) {
  if (l.module)
    if (auto f = drv.get<ModUnloadFn>("cuModuleUnload")) f(l.module);
  if (l.library)
    if (auto f = drv.get<LibUnloadFn>("cuLibraryUnload")) f(l.library);
}

int attribute(CUfunction fn, CUfunction_attribute a) {
  int v = -1;
  if (auto f = drv.get<FuncAttrFn>("cuFuncGetAttribute"); f && fn) f(&v, a, fn);
  return v;
}

// Device buffers with the copies every action needs; the stream-0 copies plus a stream sync exist
// in every driver (the synchronous ones are not in the fake).
struct Buffer {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  CUresult result = CUDA_ERROR_NOT_FOUND;
  explicit Buffer(size_t n) : bytes(n) {
    if (auto f = drv.get<AllocFn>("cuMemAlloc_v2")) result = f(&ptr, n);
  }
  ~Buffer() {
    if (ptr)
      if (auto f = drv.get<FreeFn>("cuMemFree_v2")) f(ptr);
  }
  CUresult put(const void* src) {
    auto copy = drv.get<HtoDFn>("cuMemcpyHtoDAsync_v2");
    auto sync = drv.get<SyncFn>("cuStreamSynchronize");
    if (!copy || !sync) return CUDA_ERROR_NOT_FOUND;
    CUresult r = copy(ptr, src, bytes, nullptr);
    return r != CUDA_SUCCESS ? r : sync(nullptr);
  }
  CUresult get(void* dst) {
    auto copy = drv.get<DtoHFn>("cuMemcpyDtoHAsync_v2");
    auto sync = drv.get<SyncFn>("cuStreamSynchronize");
    if (!copy || !sync) return CUDA_ERROR_NOT_FOUND;
    CUresult r = copy(dst, ptr, bytes, nullptr);
    return r != CUDA_SUCCESS ? r : sync(nullptr);
  }
};

// A kernel with compile-time cluster dimensions (__cluster_dims__) launches as clusters of that
// size through the plain launch; the cluster size cannot be changed at launch.
CUresult launch(CUfunction fn, unsigned grid, unsigned block, unsigned smem, void** args) {
  auto launch_fn = drv.get<LaunchFn>("cuLaunchKernel");
  auto sync = drv.get<SyncFn>("cuStreamSynchronize");
  if (!launch_fn || !sync) return CUDA_ERROR_NOT_FOUND;
  CUresult r = launch_fn(fn, grid, 1, 1, block, 1, 1, smem, nullptr, args, nullptr);
  return r != CUDA_SUCCESS ? r : sync(nullptr);
}

// kit_axpb(y, x, a, b, n): y = a*x + b, exact in float for the small integers used here.
int run_axpb(const char* file, bool library) {
  CUdevice dev;
  if (!open_context(&dev)) return 2;
  std::vector<char> image;
  if (!read_file(file, image)) {
    std::printf("{\"error\":%s}\n", q(std::string("cannot read ") + file).c_str());
    return 2;
  }
  Loaded l = load(image, "kit_axpb", library);
  std::printf(
      "{\"action\":\"%s\",\"file\":%s,\"api\":%s,\"result\":%s,\"load_ms\":%.3f,\"get_ms\":%.3f",
      library ? "library" : "module", q(file).c_str(), q(l.api).c_str(),
      q(error_name(l.result)).c_str(), l.load_ms, l.get_ms);
  if (l.result == CUDA_SUCCESS) {
    std::printf(",\"binary_version\":%d,\"ptx_version\":%d",
                attribute(l.fn, CU_FUNC_ATTRIBUTE_BINARY_VERSION),
                attribute(l.fn, CU_FUNC_ATTRIBUTE_PTX_VERSION));
    const int n = 4096;
    std::vector<float> x(n), y(n, -1.f);
    for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 97);
    Buffer dx(n * sizeof(float)), dy(n * sizeof(float));
    float a = 3.f, b = 7.f;
    int nn = n;
    CUresult r = dx.result != CUDA_SUCCESS ? dx.result : dy.result;
    if (r == CUDA_SUCCESS) r = dx.put(x.data());
    if (r == CUDA_SUCCESS) r = dy.put(y.data());
    void* args[] = {&dy.ptr, &dx.ptr, &a, &b, &nn};
    auto t0 = std::chrono::steady_clock::now();
    if (r == CUDA_SUCCESS) r = launch(l.fn, (n + 255) / 256, 256, 0, args);
    double launch_ms = ms_since(t0);
    if (r == CUDA_SUCCESS) r = dy.get(y.data());
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += y[i] != a * x[i] + b;
    std::printf(",\"launch\":%s,\"launch_ms\":%.3f,\"verified\":%s,\"wrong\":%d",
                q(error_name(r)).c_str(), launch_ms,
                r == CUDA_SUCCESS && wrong == 0 ? "true" : "false", r == CUDA_SUCCESS ? wrong : n);
  }
  std::printf("}\n");
  unload(l);
  return l.result == CUDA_SUCCESS ? 0 : 1;
}

// The output of KERNEL run from one image; `bytes` empty when it could not run.
struct Output {
  CUresult result = CUDA_ERROR_NOT_FOUND;
  std::string stage;
  std::vector<unsigned char> bytes;
  int binary_version = -1;
};

Output run_kernel(const char* file, const std::string& kernel) {
  Output o;
  std::vector<char> image;
  if (!read_file(file, image)) {
    o.stage = "read";
    return o;
  }
  Loaded l = load(image, kernel.c_str(), false);
  o.result = l.result;
  o.stage = "load";
  if (l.result != CUDA_SUCCESS) return o;
  o.binary_version = attribute(l.fn, CU_FUNC_ATTRIBUTE_BINARY_VERSION);
  // Small integers: every sum below is exact in float, whatever order the atomics take.
  const int n = 4096, blocks = 8;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i % 7);
  size_t out_bytes = kernel == "plain"       ? n * sizeof(float)
                     : kernel == "clustered" ? blocks * 64 * sizeof(int)
                                             : blocks * sizeof(float);
  Buffer din(n * sizeof(float)), dout(out_bytes);
  std::vector<unsigned char> zeros(out_bytes, 0);
  CUresult r = din.result != CUDA_SUCCESS ? din.result : dout.result;
  if (r == CUDA_SUCCESS) r = din.put(in.data());
  if (r == CUDA_SUCCESS) r = dout.put(zeros.data());
  int nn = n;
  void* args3[] = {&dout.ptr, &din.ptr, &nn};
  void* args1[] = {&dout.ptr};
  o.stage = "launch";
  if (r == CUDA_SUCCESS) {
    if (kernel == "warp_specialized")
      r = launch(l.fn, blocks, 384, 0, args3);
    else if (kernel == "plain")
      r = launch(l.fn, n / 256, 256, 0, args3);
    else
      r = launch(l.fn, blocks, 64, 0, args1);
  }
  if (r == CUDA_SUCCESS) {
    o.bytes.resize(out_bytes);
    r = dout.get(o.bytes.data());
    if (r != CUDA_SUCCESS) o.bytes.clear();
  }
  o.result = r;
  unload(l);
  return o;
}

int compare(const char* a, const char* b, const std::string& kernel) {
  CUdevice dev;
  if (!open_context(&dev)) return 2;
  // The original clustered kernel is declared __cluster_dims__(2,1,1); the retargeted one is a
  // cluster of one, so it is compared with what a cluster of one computes, not with A.
  Output oa = run_kernel(a, kernel);
  Output ob = run_kernel(b, kernel);
  bool same = !oa.bytes.empty() && oa.bytes == ob.bytes;
  size_t differing = 0;
  if (!oa.bytes.empty() && oa.bytes.size() == ob.bytes.size())
    for (size_t i = 0; i < oa.bytes.size(); ++i) differing += oa.bytes[i] != ob.bytes[i];
  bool one_cluster_ok = false;
  if (kernel == "clustered" && !ob.bytes.empty()) {
    // out[block*64 + t] = s[t] * num_blocks + block_index.x with s[t] = t + rank: rank 0,
    // num_blocks 1 and block index 0 in a cluster of one.
    one_cluster_ok = true;
    for (size_t i = 0; i < ob.bytes.size() / sizeof(int); ++i) {
      int v;
      std::memcpy(&v, ob.bytes.data() + i * sizeof(int), sizeof v);
      one_cluster_ok &= v == static_cast<int>(i % 64);
    }
  }
  std::printf(
      "{\"action\":\"compare\",\"kernel\":%s,\"a\":%s,\"b\":%s,\"a_result\":%s,"
      "\"a_stage\":%s,\"a_binary_version\":%d,\"b_result\":%s,\"b_stage\":%s,"
      "\"b_binary_version\":%d,\"bytes\":%zu,\"identical\":%s,\"differing_bytes\":%zu",
      q(kernel).c_str(), q(a).c_str(), q(b).c_str(), q(error_name(oa.result)).c_str(),
      q(oa.stage).c_str(), oa.binary_version, q(error_name(ob.result)).c_str(), q(ob.stage).c_str(),
      ob.binary_version, ob.bytes.size(), same ? "true" : "false", differing);
  if (kernel == "clustered")
    std::printf(",\"cluster_of_one\":%s", one_cluster_ok ? "true" : "false");
  std::printf("}\n");
  return 0;
}

// kit_smem(out, words): static 1 KiB + `words` ints of dynamic shared memory, each touched.
int smem(const char* file) {
  CUdevice dev;
  if (!open_context(&dev)) return 2;
  std::vector<char> image;
  if (!read_file(file, image)) return 2;
  int optin = -1, per_block = -1, per_sm = -1;
  if (auto f = drv.get<AttrFn>("cuDeviceGetAttribute")) {
    f(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
    f(&per_block, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, dev);
    f(&per_sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, dev);
  }
  Loaded l = load(image, "kit_smem", false);
  std::printf(
      "{\"action\":\"smem\",\"file\":%s,\"optin\":%d,\"per_block\":%d,\"per_sm\":%d,"
      "\"load\":%s",
      q(file).c_str(), optin, per_block, per_sm, q(error_name(l.result)).c_str());
  if (l.result == CUDA_SUCCESS) {
    int static_bytes = attribute(l.fn, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    std::printf(",\"static_bytes\":%d", static_bytes);
    auto set_attr = drv.get<FuncSetAttrFn>("cuFuncSetAttribute");
    Buffer out(sizeof(int));
    // At the limit, then one byte above it: the attribute call, and a launch asking for it.
    for (int extra : {0, 1}) {
      int dyn = optin - static_bytes + extra;
      const char* key = extra ? "above" : "at";
      if (!set_attr) {
        std::printf(",\"%s\":{\"dynamic\":%d,\"set_attribute\":\"missing in this driver\"}", key,
                    dyn);
        continue;
      }
      CUresult rs = set_attr(l.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dyn);
      int words = dyn / static_cast<int>(sizeof(int));
      void* args[] = {&out.ptr, &words};
      CUresult rl = launch(l.fn, 1, 256, static_cast<unsigned>(dyn), args);
      int value = -1;
      if (rl == CUDA_SUCCESS) out.get(&value);
      std::printf(",\"%s\":{\"dynamic\":%d,\"set_attribute\":%s,\"launch\":%s,\"value\":%d}", key,
                  dyn, q(error_name(rs)).c_str(), q(error_name(rl)).c_str(), value);
    }
  }
  std::printf("}\n");
  unload(l);
  return 0;
}

// ---- wgmma: the ptx lower check (tests/ptx/data/wgmma_kernels.cu) ----

// One kernel of the fixture: its element type, D registers per thread, which operands are
// MN-major, whether A comes from registers, whether D is f16x2, and N (which B layouts fit).
enum class Elem { f16, bf16, tf32, e4m3 };
struct WgmmaKernel {
  const char* name;
  Elem elem;
  int regs;
  bool a_mn, b_mn, a_regs, d_f16;
  int n;
};
constexpr WgmmaKernel kWgmmaKernels[] = {
    {"wgmma_f16_ss_n64_kk", Elem::f16, 32, false, false, false, false, 64},
    {"wgmma_f16_ss_n64_mn", Elem::f16, 32, true, true, false, false, 64},
    {"wgmma_bf16_ss_n32_kn", Elem::bf16, 16, false, true, false, false, 32},
    {"wgmma_f16_rs_n16", Elem::f16, 8, false, false, true, false, 16},
    {"wgmma_f16acc_ss_n64", Elem::f16, 16, false, false, false, true, 64},
    {"wgmma_tf32_ss_n16", Elem::tf32, 8, false, false, false, false, 16},
    {"wgmma_e4m3_ss_n32", Elem::e4m3, 16, false, false, false, false, 32},
    {"wgmma_f16_ss_n256", Elem::f16, 128, false, false, false, false, 256},
    {"wgmma_bf16_ss_n8", Elem::bf16, 4, false, false, false, false, 8},
};

// A descriptor's layout: start offset, LBO, SBO (bytes) and swizzle mode (0 none, 1 128B, 2 64B,
// 3 32B); every one keeps the operand inside the kernel's 8 KiB shared buffers.
struct Layout {
  uint32_t off, lbo, sbo, mode;
};
constexpr Layout kKMajor[] = {
    {0, 128, 256, 0}, {0, 16, 1024, 1}, {32, 16, 1024, 1}, {0, 16, 512, 2}, {0, 16, 256, 3}};
constexpr Layout kKMajorN256[] = {{0, 128, 256, 0}, {0, 16, 256, 3}};  // 256 rows of B fit these
constexpr Layout kMNMajor[] = {
    {0, 1024, 128, 0}, {0, 2048, 1024, 1}, {0, 2048, 512, 2}, {0, 2048, 256, 3}};

struct LayoutList {
  const Layout* p;
  size_t n;
};
LayoutList a_layouts(const WgmmaKernel& k) {
  if (k.a_mn) return {kMNMajor, std::size(kMNMajor)};
  return {kKMajor, std::size(kKMajor)};
}
LayoutList b_layouts(const WgmmaKernel& k) {
  if (k.b_mn) return {kMNMajor, std::size(kMNMajor)};
  if (k.n > 128) return {kKMajorN256, std::size(kKMajorN256)};
  return {kKMajor, std::size(kKMajor)};
}

// Small integers -3..3 in each element type, so that every sum is exact and both images must
// produce the same bits.
uint16_t f16_of(int v) {
  static const uint16_t mag[] = {0x0000, 0x3C00, 0x4000, 0x4200};
  return v == 0 ? 0 : static_cast<uint16_t>(mag[v < 0 ? -v : v] | (v < 0 ? 0x8000 : 0));
}
uint16_t bf16_of(int v) {
  static const uint16_t mag[] = {0x0000, 0x3F80, 0x4000, 0x4040};
  return v == 0 ? 0 : static_cast<uint16_t>(mag[v < 0 ? -v : v] | (v < 0 ? 0x8000 : 0));
}
uint8_t e4m3_of(int v) {
  static const uint8_t mag[] = {0x00, 0x38, 0x40, 0x44};
  return v == 0 ? 0 : static_cast<uint8_t>(mag[v < 0 ? -v : v] | (v < 0 ? 0x80 : 0));
}

struct Lcg {
  uint64_t s;
  int small() {  // -3..3
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((s >> 33) % 7) - 3;
  }
};

// The inputs of one run: A and B (8 KiB each, the whole buffer in the kernel's element type), A's
// registers for the RS kernel (f16x2) and D's initial values.
struct WgmmaInputs {
  std::vector<unsigned char> a, b, gar, d;
};
void fill_elements(std::vector<unsigned char>& buf, Elem e, Lcg& g) {
  buf.assign(8192, 0);
  for (size_t i = 0; i < buf.size();) {
    int v = g.small();
    if (e == Elem::f16 || e == Elem::bf16) {
      uint16_t h = e == Elem::f16 ? f16_of(v) : bf16_of(v);
      std::memcpy(&buf[i], &h, 2);
      i += 2;
    } else if (e == Elem::tf32) {
      float f = static_cast<float>(v);
      std::memcpy(&buf[i], &f, 4);
      i += 4;
    } else {
      buf[i++] = e4m3_of(v);
    }
  }
}
WgmmaInputs wgmma_inputs(const WgmmaKernel& k, uint64_t seed) {
  Lcg g{seed * 0x9E3779B97F4A7C15ull + 1};
  WgmmaInputs in;
  fill_elements(in.a, k.elem, g);
  fill_elements(in.b, k.elem, g);
  in.gar.resize(128 * 4 * sizeof(uint32_t));
  for (size_t i = 0; i < in.gar.size(); i += 2) {
    uint16_t h = f16_of(g.small());
    std::memcpy(&in.gar[i], &h, 2);
  }
  in.d.resize(128 * k.regs * sizeof(uint32_t));
  for (size_t i = 0; i < in.d.size(); i += 4) {
    if (k.d_f16) {
      uint16_t lo = f16_of(g.small()), hi = f16_of(g.small());
      std::memcpy(&in.d[i], &lo, 2);
      std::memcpy(&in.d[i + 2], &hi, 2);
    } else {
      float f = static_cast<float>(g.small());
      std::memcpy(&in.d[i], &f, 4);
    }
  }
  return in;
}

// One image with every fixture kernel looked up; a kernel missing from it keeps its result.
struct WgmmaImage {
  Loaded loaded;
  std::vector<CUfunction> fns;
  std::vector<CUresult> results;
  std::vector<int> binary_versions;
};
WgmmaImage load_wgmma(const char* file) {
  WgmmaImage img;
  std::vector<char> image;
  if (!read_file(file, image)) {
    img.loaded.result = CUDA_ERROR_FILE_NOT_FOUND;
  } else {
    img.loaded = load(image, kWgmmaKernels[0].name, false);
  }
  auto get_fn = drv.get<ModFuncFn>("cuModuleGetFunction");
  for (const auto& k : kWgmmaKernels) {
    CUfunction fn = nullptr;
    CUresult r =
        img.loaded.module && get_fn ? get_fn(&fn, img.loaded.module, k.name) : img.loaded.result;
    img.fns.push_back(r == CUDA_SUCCESS ? fn : nullptr);
    img.results.push_back(r);
    img.binary_versions.push_back(
        r == CUDA_SUCCESS ? attribute(fn, CU_FUNC_ATTRIBUTE_BINARY_VERSION) : -1);
  }
  return img;
}

// Device buffers shared by every run (sized for the largest kernel).
struct WgmmaBuffers {
  Buffer out{128 * 128 * sizeof(float)}, a{8192}, b{8192}, gar{128 * 4 * sizeof(uint32_t)};
  CUresult result() const {
    for (const Buffer* p : {&out, &a, &b, &gar})
      if (p->result != CUDA_SUCCESS) return p->result;
    return CUDA_SUCCESS;
  }
};

struct WgmmaRun {
  CUresult result = CUDA_ERROR_NOT_FOUND;
  std::string stage;
  std::vector<unsigned char> bytes;
  double ms = -1;  // median of the timed launches
};

CUresult put_bytes(Buffer& buf, const std::vector<unsigned char>& bytes) {
  auto copy = drv.get<HtoDFn>("cuMemcpyHtoDAsync_v2");
  auto sync = drv.get<SyncFn>("cuStreamSynchronize");
  if (!copy || !sync) return CUDA_ERROR_NOT_FOUND;
  CUresult r = copy(buf.ptr, bytes.data(), bytes.size(), nullptr);
  return r != CUDA_SUCCESS ? r : sync(nullptr);
}

// One launch's time on the GPU: events around it where the driver has them, else the host's
// clock around the launch and a synchronize.
double time_launch(CUfunction fn, void** args) {
  auto create = drv.get<EventCreateFn>("cuEventCreate");
  auto destroy = drv.get<EventDestroyFn>("cuEventDestroy_v2");
  auto record = drv.get<EventRecordFn>("cuEventRecord");
  auto esync = drv.get<EventSyncFn>("cuEventSynchronize");
  auto elapsed = drv.get<EventElapsedFn>("cuEventElapsedTime");
  auto launch_fn = drv.get<LaunchFn>("cuLaunchKernel");
  if (!launch_fn) return -1;
  CUevent e0 = nullptr, e1 = nullptr;
  if (create && destroy && record && esync && elapsed && create(&e0, 0) == CUDA_SUCCESS &&
      create(&e1, 0) == CUDA_SUCCESS) {
    float ms = -1;
    if (record(e0, nullptr) != CUDA_SUCCESS ||
        launch_fn(fn, 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr) != CUDA_SUCCESS ||
        record(e1, nullptr) != CUDA_SUCCESS || esync(e1) != CUDA_SUCCESS ||
        elapsed(&ms, e0, e1) != CUDA_SUCCESS)
      ms = -1;
    destroy(e0);
    destroy(e1);
    return ms;
  }
  auto t0 = std::chrono::steady_clock::now();
  if (launch(fn, 1, 128, 0, args) != CUDA_SUCCESS) return -1;
  return ms_since(t0);
}

// Runs FN once from the given inputs and keeps D, then times it: 3 launches to warm up, the
// median of 20 (D keeps accumulating then; only the time counts).
WgmmaRun run_wgmma(CUfunction fn, CUresult found, const Layout& la, const Layout& lb,
                   int accumulate, const WgmmaInputs& in, WgmmaBuffers& buf) {
  WgmmaRun run;
  run.stage = "load";
  run.result = found;
  if (found != CUDA_SUCCESS || !fn) return run;
  run.stage = "upload";
  CUresult r = buf.result();
  if (r == CUDA_SUCCESS) r = put_bytes(buf.out, in.d);
  if (r == CUDA_SUCCESS) r = put_bytes(buf.a, in.a);
  if (r == CUDA_SUCCESS) r = put_bytes(buf.b, in.b);
  if (r == CUDA_SUCCESS) r = put_bytes(buf.gar, in.gar);
  run.result = r;
  if (r != CUDA_SUCCESS) return run;
  uint32_t p[8] = {la.off, la.lbo, la.sbo, la.mode, lb.off, lb.lbo, lb.sbo, lb.mode};
  int acc = accumulate;
  void* args[] = {&buf.out.ptr, &buf.a.ptr, &buf.b.ptr, &buf.gar.ptr, &p[0], &p[1], &p[2],
                  &p[3],        &p[4],      &p[5],      &p[6],        &p[7], &acc};
  run.stage = "launch";
  r = launch(fn, 1, 128, 0, args);
  run.result = r;
  if (r != CUDA_SUCCESS) return run;
  run.stage = "download";
  // Zeroed first: the fake driver copies nothing back, so both images then read as zeros.
  run.bytes.assign(in.d.size(), 0);
  auto copy = drv.get<DtoHFn>("cuMemcpyDtoHAsync_v2");
  auto sync = drv.get<SyncFn>("cuStreamSynchronize");
  r = copy && sync ? copy(run.bytes.data(), buf.out.ptr, run.bytes.size(), nullptr)
                   : CUDA_ERROR_NOT_FOUND;
  if (r == CUDA_SUCCESS) r = sync(nullptr);
  run.result = r;
  if (r != CUDA_SUCCESS) {
    run.bytes.clear();
    return run;
  }
  run.stage = "timing";
  for (int i = 0; i < 3; ++i)
    if (time_launch(fn, args) < 0) return run;
  std::vector<double> times;
  for (int i = 0; i < 20; ++i) {
    double ms = time_launch(fn, args);
    if (ms < 0) return run;
    times.push_back(ms);
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  run.ms = times[times.size() / 2];
  run.stage = "done";
  return run;
}

std::string layout_json(const Layout& l) {
  return "[" + std::to_string(l.off) + "," + std::to_string(l.lbo) + "," + std::to_string(l.sbo) +
         "," + std::to_string(l.mode) + "]";
}

int wgmma(const char* a, const char* b) {
  CUdevice dev;
  if (!open_context(&dev)) return 2;
  WgmmaImage ia = load_wgmma(a);
  WgmmaImage ib = load_wgmma(b);
  WgmmaBuffers buf;
  uint64_t seed = 0;
  for (size_t ki = 0; ki < std::size(kWgmmaKernels); ++ki) {
    const WgmmaKernel& k = kWgmmaKernels[ki];
    LayoutList al = a_layouts(k), bl = b_layouts(k);
    // Every layout of the longer list once, paired with the other list's in turn (the RS
    // kernel's A comes from registers: its A layout is passed and ignored).
    size_t n = std::max(al.n, bl.n);
    for (size_t li = 0; li < n; ++li) {
      const Layout& la = al.p[li % al.n];
      const Layout& lb = bl.p[li % bl.n];
      for (int accumulate : {0, 1}) {
        WgmmaInputs in = wgmma_inputs(k, ++seed);
        WgmmaRun ra = run_wgmma(ia.fns[ki], ia.results[ki], la, lb, accumulate, in, buf);
        WgmmaRun rb = run_wgmma(ib.fns[ki], ib.results[ki], la, lb, accumulate, in, buf);
        bool same = !ra.bytes.empty() && ra.bytes == rb.bytes;
        size_t differing = 0, compared = 0;
        if (!ra.bytes.empty() && ra.bytes.size() == rb.bytes.size()) compared = ra.bytes.size();
        for (size_t i = 0; i < compared; ++i) differing += ra.bytes[i] != rb.bytes[i];
        std::printf(
            "{\"action\":\"wgmma\",\"kernel\":%s,\"a\":%s,\"b\":%s,\"a_layout\":%s,"
            "\"b_layout\":%s,\"accumulate\":%d,\"a_result\":%s,\"a_stage\":%s,"
            "\"a_binary_version\":%d,\"b_result\":%s,\"b_stage\":%s,\"b_binary_version\":%d,"
            "\"a_load_ms\":%.3f,\"b_load_ms\":%.3f,\"bytes\":%zu,\"identical\":%s,"
            "\"differing_bytes\":%zu,\"a_ms\":%.5f,\"b_ms\":%.5f}\n",
            q(k.name).c_str(), q(a).c_str(), q(b).c_str(), layout_json(la).c_str(),
            layout_json(lb).c_str(), accumulate, q(error_name(ra.result)).c_str(),
            q(ra.stage).c_str(), ia.binary_versions[ki], q(error_name(rb.result)).c_str(),
            q(rb.stage).c_str(), ib.binary_versions[ki], ia.loaded.load_ms, ib.loaded.load_ms,
            compared, same ? "true" : "false", differing, ra.ms, rb.ms);
        std::fflush(stdout);
      }
    }
  }
  unload(ia.loaded);
  unload(ib.loaded);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string action = argc > 1 ? argv[1] : "";
  if ((action == "module" || action == "library") && argc == 3)
    return run_axpb(argv[2], action == "library");
  if (action == "compare" && argc == 5) return compare(argv[2], argv[3], argv[4]);
  if (action == "smem" && argc == 3) return smem(argv[2]);
  if (action == "wgmma" && argc == 4) return wgmma(argv[2], argv[3]);
  std::fprintf(
      stderr,
      "usage: kit_driver module|library FILE | compare A B KERNEL | smem FILE | wgmma A B\n");
  return 2;
}
