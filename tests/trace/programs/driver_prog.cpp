// Test program for the trace shim: reaches the driver through one chosen path and does one
// chosen thing, printing plain lines the tests compare.
//   driver_prog PATH ACTION [ARGS]
//   PATH:   plt (direct calls, linked against libcuda.so.1; only in the linked build),
//           dlsym (dlopen + dlsym of each entry point),
//           gpa (dlsym of cuGetProcAddress_v2 only, then the runtime's bootstrap: ask it for
//                "cuGetProcAddress" at 12000 and resolve everything through the answer),
//           gpa11 (the same with the 11.3 ABI: "cuGetProcAddress" at 11030).
//   ACTION: cc | load FILE | loadex FILE | loadfile FILE | fatbin FILE | wrapper FILE |
//           library FILE |
//           libfile FILE | link FILE | stress THREADS ITERATIONS FILE |
//           lookup NAME VERSION (gpa only: one more lookup through the bootstrap pointer)
// Driver prototypes come from the toolkit headers (cuda.h, cudaTypedefs.h); the program itself
// never links the real driver. Reference: ../shared/reference/driver-api.md sections 2 and 3.
#define CUDA_ENABLE_DEPRECATED 1
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Api {
  PFN_cuGetProcAddress_v12000 gpa = nullptr;  // the bootstrap answer (gpa path only)
  PFN_cuInit_v2000 init = nullptr;
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuDeviceGetAttribute_v2000 get_attribute = nullptr;
  PFN_cuDeviceComputeCapability_v2000 compute_capability = nullptr;
  PFN_cuDevicePrimaryCtxRetain_v7000 ctx_retain = nullptr;
  PFN_cuCtxSetCurrent_v4000 ctx_set_current = nullptr;
  PFN_cuModuleLoad_v2000 module_load = nullptr;
  PFN_cuModuleLoadData_v2000 module_load_data = nullptr;
  PFN_cuModuleLoadDataEx_v2010 module_load_data_ex = nullptr;
  PFN_cuModuleLoadFatBinary_v2000 module_load_fatbinary = nullptr;
  PFN_cuModuleGetFunction_v2000 module_get_function = nullptr;
  PFN_cuModuleUnload_v2000 module_unload = nullptr;
  PFN_cuFuncGetAttribute_v2020 func_get_attribute = nullptr;
  PFN_cuLibraryLoadData_v12000 library_load_data = nullptr;
  PFN_cuLibraryLoadFromFile_v12000 library_load_from_file = nullptr;
  PFN_cuLibraryGetKernel_v12000 library_get_kernel = nullptr;
  PFN_cuKernelGetFunction_v12000 kernel_get_function = nullptr;
  PFN_cuLibraryUnload_v12000 library_unload = nullptr;
  PFN_cuLinkCreate_v6050 link_create = nullptr;
  PFN_cuLinkAddData_v6050 link_add_data = nullptr;
  PFN_cuLinkAddFile_v6050 link_add_file = nullptr;
  PFN_cuLinkComplete_v5050 link_complete = nullptr;
  PFN_cuLinkDestroy_v5050 link_destroy = nullptr;
  PFN_cuLaunchKernel_v4000 launch = nullptr;
};

#ifdef DRIVER_PROG_LINKED
void bind_plt(Api& a) {
  a.init = &cuInit;
  a.device_get = &cuDeviceGet;
  a.get_attribute = &cuDeviceGetAttribute;
  a.compute_capability = &cuDeviceComputeCapability;
  a.ctx_retain = &cuDevicePrimaryCtxRetain;
  a.ctx_set_current = &cuCtxSetCurrent;
  a.module_load = &cuModuleLoad;
  a.module_load_data = &cuModuleLoadData;
  a.module_load_data_ex = &cuModuleLoadDataEx;
  a.module_load_fatbinary = &cuModuleLoadFatBinary;
  a.module_get_function = &cuModuleGetFunction;
  a.module_unload = &cuModuleUnload;
  a.func_get_attribute = &cuFuncGetAttribute;
  a.library_load_data = &cuLibraryLoadData;
  a.library_load_from_file = &cuLibraryLoadFromFile;
  a.library_get_kernel = &cuLibraryGetKernel;
  a.kernel_get_function = &cuKernelGetFunction;
  a.library_unload = &cuLibraryUnload;
  a.link_create = &cuLinkCreate;
  a.link_add_data = &cuLinkAddData;
  a.link_add_file = &cuLinkAddFile;
  a.link_complete = &cuLinkComplete;
  a.link_destroy = &cuLinkDestroy;
  a.launch = &cuLaunchKernel;
}
#endif

template <class F>
void by_dlsym(void* h, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(h, name));
}

void bind_dlsym(Api& a, void* h) {
  by_dlsym(h, a.init, "cuInit");
  by_dlsym(h, a.device_get, "cuDeviceGet");
  by_dlsym(h, a.get_attribute, "cuDeviceGetAttribute");
  by_dlsym(h, a.compute_capability, "cuDeviceComputeCapability");
  by_dlsym(h, a.ctx_retain, "cuDevicePrimaryCtxRetain");
  by_dlsym(h, a.ctx_set_current, "cuCtxSetCurrent");
  by_dlsym(h, a.module_load, "cuModuleLoad");
  by_dlsym(h, a.module_load_data, "cuModuleLoadData");
  by_dlsym(h, a.module_load_data_ex, "cuModuleLoadDataEx");
  by_dlsym(h, a.module_load_fatbinary, "cuModuleLoadFatBinary");
  by_dlsym(h, a.module_get_function, "cuModuleGetFunction");
  by_dlsym(h, a.module_unload, "cuModuleUnload");
  by_dlsym(h, a.func_get_attribute, "cuFuncGetAttribute");
  by_dlsym(h, a.library_load_data, "cuLibraryLoadData");
  by_dlsym(h, a.library_load_from_file, "cuLibraryLoadFromFile");
  by_dlsym(h, a.library_get_kernel, "cuLibraryGetKernel");
  by_dlsym(h, a.kernel_get_function, "cuKernelGetFunction");
  by_dlsym(h, a.library_unload, "cuLibraryUnload");
  by_dlsym(h, a.link_create, "cuLinkCreate_v2");
  by_dlsym(h, a.link_add_data, "cuLinkAddData_v2");
  by_dlsym(h, a.link_add_file, "cuLinkAddFile_v2");
  by_dlsym(h, a.link_complete, "cuLinkComplete");
  by_dlsym(h, a.link_destroy, "cuLinkDestroy");
  by_dlsym(h, a.launch, "cuLaunchKernel");
}

// The CUDA runtime's bootstrap (driver-api.md 2.2): one dlsym, then everything through the
// pointer the driver returned for "cuGetProcAddress".
// Binds the entry points of `a` through `resolve(name, cudaVersion)`; the cuLibrary* and cuLink*
// ones only with `libraries` (the 11.3 bootstrap program stays with the module API).
template <class Resolve>
void bind_entries(Api& a, Resolve resolve, bool libraries) {
  auto get = [&](const char* name, int version, auto& f) {
    f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(resolve(name, version));
  };
  get("cuInit", 2000, a.init);
  get("cuDeviceGet", 2000, a.device_get);
  get("cuDeviceGetAttribute", 2000, a.get_attribute);
  get("cuDeviceComputeCapability", 2000, a.compute_capability);
  get("cuDevicePrimaryCtxRetain", 7000, a.ctx_retain);
  get("cuCtxSetCurrent", 4000, a.ctx_set_current);
  get("cuModuleLoad", 2000, a.module_load);
  get("cuModuleLoadData", 2000, a.module_load_data);
  get("cuModuleLoadDataEx", 2010, a.module_load_data_ex);
  get("cuModuleLoadFatBinary", 2000, a.module_load_fatbinary);
  get("cuModuleGetFunction", 2000, a.module_get_function);
  get("cuModuleUnload", 2000, a.module_unload);
  get("cuFuncGetAttribute", 2020, a.func_get_attribute);
  if (libraries) {
    get("cuLibraryLoadData", 12000, a.library_load_data);
    get("cuLibraryLoadFromFile", 12000, a.library_load_from_file);
    get("cuLibraryGetKernel", 12000, a.library_get_kernel);
    get("cuKernelGetFunction", 12000, a.kernel_get_function);
    get("cuLibraryUnload", 12000, a.library_unload);
    get("cuLinkCreate", 6050, a.link_create);
    get("cuLinkAddData", 6050, a.link_add_data);
    get("cuLinkAddFile", 6050, a.link_add_file);
    get("cuLinkComplete", 5050, a.link_complete);
    get("cuLinkDestroy", 5050, a.link_destroy);
  }
  get("cuLaunchKernel", 4000, a.launch);
}

// The CUDA runtime's bootstrap: cuGetProcAddress_v2 by dlsym, then "cuGetProcAddress" through it
// at the 11.3 or 12.0 ABI, and every other entry point through that.
bool bind_gpa(Api& a, void* h, bool v11) {
  auto exported = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(h, "cuGetProcAddress_v2"));
  if (!exported) return false;
  CUdriverProcAddressQueryResult st{};
  void* p = nullptr;
  if (exported("cuGetProcAddress", &p, v11 ? 11030 : 12000, 0, &st) != CUDA_SUCCESS || !p)
    return false;
  if (v11) {
    auto gpa = reinterpret_cast<PFN_cuGetProcAddress_v11030>(p);
    bind_entries(
        a,
        [&](const char* name, int version) {
          void* q = nullptr;
          gpa(name, &q, version, 0);
          return q;
        },
        false);
    return true;
  }
  auto gpa = reinterpret_cast<PFN_cuGetProcAddress_v12000>(p);
  a.gpa = gpa;
  bind_entries(
      a,
      [&](const char* name, int version) {
        void* q = nullptr;
        CUdriverProcAddressQueryResult s{};
        gpa(name, &q, version, 0, &s);
        return q;
      },
      true);
  return true;
}

std::vector<char> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.push_back(0);
#ifdef DRIVER_PROG_PAD_IMAGES
  // Sanitizer build: a cut image's headers claim more than the file holds, and the driver (like
  // the shim) reads what they claim; zeros after the file keep those reads inside this buffer.
  bytes.resize(bytes.size() + (1u << 20), 0);
#endif
  return bytes;
}

const char* kKernel = "scale";  // extern "C" kernel in tests/trace/fixtures/kernels.cu

int attr(const Api& a, CUfunction f, CUfunction_attribute which) {
  int v = -1;
  if (a.func_get_attribute) a.func_get_attribute(&v, which, f);
  return v;
}

void print_function(const Api& a, CUfunction f) {
  std::printf("function %s binary=%d ptx=%d\n", kKernel,
              attr(a, f, CU_FUNC_ATTRIBUTE_BINARY_VERSION),
              attr(a, f, CU_FUNC_ATTRIBUTE_PTX_VERSION));
}

int set_up(const Api& a) {
  if (!a.init) {
    std::printf("no cuInit\n");
    return 4;
  }
  CUresult r = a.init(0);
  if (r != CUDA_SUCCESS) {
    std::printf("cuInit failed: %d\n", static_cast<int>(r));
    return 5;
  }
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  if (a.device_get(&dev, 0) != CUDA_SUCCESS || a.ctx_retain(&ctx, dev) != CUDA_SUCCESS ||
      a.ctx_set_current(ctx) != CUDA_SUCCESS) {
    std::printf("no context\n");
    return 6;
  }
  return 0;
}

int load_module(const Api& a, const std::string& how, const char* file) {
  CUmodule mod = nullptr;
  CUresult r = CUDA_ERROR_UNKNOWN;
  std::vector<char> bytes = read_file(file);
  if (how == "load") {
    r = a.module_load_data(&mod, bytes.data());
  } else if (how == "loadex") {
    char log[1024] = {};
    float wall = -1;
    CUjit_option opts[] = {CU_JIT_WALL_TIME, CU_JIT_ERROR_LOG_BUFFER,
                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {nullptr, log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof log))};
    r = a.module_load_data_ex(&mod, bytes.data(), 3, opts, vals);
    std::memcpy(&wall, &vals[0], sizeof wall);
    if (r != CUDA_SUCCESS) std::printf("log %s\n", log);
  } else if (how == "loadfile") {
    r = a.module_load(&mod, file);
  } else if (how == "fatbin") {
    r = a.module_load_fatbinary(&mod, bytes.data());
  } else if (how == "wrapper") {  // a __fatBinC_Wrapper_t, as nvcc emits for host code
    struct {
      int magic;
      int version;
      const void* data;
      void* filename_or_fatbins;
    } wrapper = {0x466243B1, 1, bytes.data(), nullptr};
    r = a.module_load_fatbinary(&mod, &wrapper);
  }
  std::printf("load %d\n", static_cast<int>(r));
  if (r != CUDA_SUCCESS) return 1;
  CUfunction f = nullptr;
  r = a.module_get_function(&f, mod, kKernel);
  if (r != CUDA_SUCCESS) {
    std::printf("get_function %d\n", static_cast<int>(r));
    return 1;
  }
  print_function(a, f);
  a.module_unload(mod);
  return 0;
}

int load_library(const Api& a, const std::string& how, const char* file) {
  if (!a.library_load_data) {
    std::printf("no cuLibraryLoadData\n");
    return 1;
  }
  CUlibrary lib = nullptr;
  std::vector<char> bytes = read_file(file);
  CUresult r =
      how == "library"
          ? a.library_load_data(&lib, bytes.data(), nullptr, nullptr, 0, nullptr, nullptr, 0)
          : a.library_load_from_file(&lib, file, nullptr, nullptr, 0, nullptr, nullptr, 0);
  std::printf("load %d\n", static_cast<int>(r));
  if (r != CUDA_SUCCESS) return 1;
  CUkernel k = nullptr;
  CUfunction f = nullptr;
  if (a.library_get_kernel(&k, lib, kKernel) != CUDA_SUCCESS ||
      a.kernel_get_function(&f, k) != CUDA_SUCCESS) {
    std::printf("kernel lookup failed\n");
    return 1;
  }
  print_function(a, f);
  a.library_unload(lib);
  return 0;
}

int link(const Api& a, const char* file) {
  if (!a.link_create) return 1;
  std::vector<char> bytes = read_file(file);
  CUlinkState ls = nullptr;
  if (a.link_create(0, nullptr, nullptr, &ls) != CUDA_SUCCESS) return 1;
  CUresult r = a.link_add_data(ls, CU_JIT_INPUT_CUBIN, bytes.data(), bytes.size() - 1, "input", 0,
                               nullptr, nullptr);
  if (r == CUDA_SUCCESS && a.link_add_file)
    r = a.link_add_file(ls, CU_JIT_INPUT_CUBIN, file, 0, nullptr, nullptr);
  void* out = nullptr;
  size_t size = 0;
  if (r == CUDA_SUCCESS) r = a.link_complete(ls, &out, &size);
  std::printf("link %d\n", static_cast<int>(r));
  CUmodule mod = nullptr;
  if (r == CUDA_SUCCESS) r = a.module_load_data(&mod, out);
  std::printf("load %d\n", static_cast<int>(r));
  a.link_destroy(ls);
  return r == CUDA_SUCCESS ? 0 : 1;
}

// Many threads loading, querying and unloading modules at once.
int stress(const Api& a, int threads, int iterations, const char* file) {
  std::vector<char> bytes = read_file(file);
  std::atomic<int> failures{0};
  CUcontext ctx = nullptr;
  a.ctx_retain(&ctx, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      a.ctx_set_current(ctx);
      for (int i = 0; i < iterations; ++i) {
        CUmodule mod = nullptr;
        CUfunction f = nullptr;
        if (a.module_load_data(&mod, bytes.data()) != CUDA_SUCCESS ||
            a.module_get_function(&f, mod, kKernel) != CUDA_SUCCESS ||
            a.module_unload(mod) != CUDA_SUCCESS) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  std::printf("stress failures=%d\n", failures.load());
  return failures.load() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s plt|dlsym|gpa|gpa11 ACTION [ARGS]\n", argv[0]);
    return 2;
  }
  std::string path = argv[1], action = argv[2];
  Api a;
  if (path == "plt") {
#ifdef DRIVER_PROG_LINKED
    bind_plt(a);
#else
    std::fprintf(stderr, "this build is not linked against libcuda\n");
    return 2;
#endif
  } else {
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      std::printf("cannot load libcuda.so.1\n");
      return 3;
    }
    if (path == "dlsym") {
      bind_dlsym(a, h);
    } else if (!bind_gpa(a, h, path == "gpa11")) {
      std::printf("cuGetProcAddress bootstrap failed\n");
      return 3;
    }
  }
  if (action == "getpid") {  // no driver needed: exercises an RTLD_NEXT interposer
    std::printf("getpid %s\n", getpid() == static_cast<pid_t>(syscall(SYS_getpid)) ? "ok" : "bad");
    return 0;
  }
  if (int rc = set_up(a)) return rc;

  if (action == "cc") {
    int major = -1, minor = -1, m2 = -1, n2 = -1;
    a.get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);
    a.get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0);
    a.compute_capability(&m2, &n2, 0);
    int sms = -1;
    a.get_attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0);
    std::printf("attribute %d.%d\ncompute_capability %d.%d\nsms %d\n", major, minor, m2, n2, sms);
    return 0;
  }
  if (argc < 4) return 2;
  if (action == "lookup" && argc >= 5 && a.gpa) {
    void* p = nullptr;
    CUdriverProcAddressQueryResult st{};
    CUresult r = a.gpa(argv[3], &p, std::atoi(argv[4]), 0, &st);
    std::printf("lookup %d %s\n", static_cast<int>(r), p ? "found" : "null");
    return 0;
  }
  if (action == "load" || action == "loadex" || action == "loadfile" || action == "fatbin" ||
      action == "wrapper")
    return load_module(a, action, argv[3]);
  if (action == "library" || action == "libfile") return load_library(a, action, argv[3]);
  if (action == "link") return link(a, argv[3]);
  if (action == "stress" && argc >= 6)
    return stress(a, std::atoi(argv[3]), std::atoi(argv[4]), argv[5]);
  std::fprintf(stderr, "unknown action %s\n", action.c_str());
  return 2;
}
