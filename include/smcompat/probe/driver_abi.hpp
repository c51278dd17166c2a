// The one declaration of the CUDA driver API and NVML ABI that smcompat uses: types, enum values
// and entry-point signatures needed by the probe (probe/), the trace shim (src/trace/shim/), the
// run-time capability query (src/trace/run.cpp) and the test suite's fake driver
// (tests/fakedriver/), declared here so that nothing depends on CUDA headers at build time.
// Values and signatures are those of the CUDA 13.0 headers (cuda.h, cudaTypedefs.h) and NVML's
// nvml.h (NVML_API_VERSION 13), as listed in ../shared/reference/driver-api.md sections 2, 5.2
// and 7. PFN_<name>_v<version> is the ABI of <name> introduced in that CUDA version (as in
// cudaTypedefs.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace smcompat::driver {

// ---- CUDA driver API ---------------------------------------------------------------------------
using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st*;
using CUmodule = void*;
using CUfunction = void*;
using CUlibrary = void*;
using CUkernel = void*;
using CUlinkState = void*;
using CUjit_option = int;
using CUlibraryOption = int;
struct CUuuid {
  char bytes[16];
};

// CUresult values (cuda.h) the probe, the trace shim and the fake driver use or name.
inline constexpr CUresult kCudaSuccess = 0;
inline constexpr CUresult kCudaErrorInvalidValue = 1;
inline constexpr CUresult kCudaErrorNotInitialized = 3;
inline constexpr CUresult kCudaErrorStubLibrary = 34;
inline constexpr CUresult kCudaErrorInsufficientDriver = 35;
inline constexpr CUresult kCudaErrorNoDevice = 100;
inline constexpr CUresult kCudaErrorInvalidDevice = 101;
inline constexpr CUresult kCudaErrorInvalidImage = 200;
inline constexpr CUresult kCudaErrorInvalidContext = 201;
inline constexpr CUresult kCudaErrorNoBinaryForGpu = 209;
inline constexpr CUresult kCudaErrorUnsupportedPtxVersion = 222;
inline constexpr CUresult kCudaErrorJitCompilationDisabled = 223;
inline constexpr CUresult kCudaErrorFileNotFound = 301;
inline constexpr CUresult kCudaErrorOperatingSystem = 304;
inline constexpr CUresult kCudaErrorInvalidHandle = 400;
inline constexpr CUresult kCudaErrorNotFound = 500;
inline constexpr CUresult kCudaErrorNotPermitted = 800;
inline constexpr CUresult kCudaErrorNotSupported = 801;
inline constexpr CUresult kCudaErrorUnknown = 999;

/// The CUDA_ERROR_* names, for when the library cannot name its own errors (a stub, or
/// cuGetErrorName missing).
inline constexpr std::pair<CUresult, const char*> kCudaErrorNames[] = {
    {0, "CUDA_SUCCESS"},
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "CUDA_ERROR_DEINITIALIZED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {35, "CUDA_ERROR_INSUFFICIENT_DRIVER"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {200, "CUDA_ERROR_INVALID_IMAGE"},
    {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"},
    {218, "CUDA_ERROR_INVALID_PTX"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED"},
    {301, "CUDA_ERROR_FILE_NOT_FOUND"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM"},
    {400, "CUDA_ERROR_INVALID_HANDLE"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {600, "CUDA_ERROR_NOT_READY"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"},
    {705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED"},
    {800, "CUDA_ERROR_NOT_PERMITTED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"},
    {901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"},
    {999, "CUDA_ERROR_UNKNOWN"},
};
/// The CUDA_ERROR_* name of `r`, or nullptr if not listed.
inline const char* cuda_error_name(CUresult r) {
  for (const auto& [code, name] : kCudaErrorNames)
    if (code == r) return name;
  return nullptr;
}

/// CUdevice_attribute values used by the probe (cuda.h, CUDA 13.0).
enum DeviceAttribute : int {
  kAttrMaxThreadsPerBlock = 1,
  kAttrMaxSharedMemoryPerBlock = 8,
  kAttrWarpSize = 10,
  kAttrMaxRegistersPerBlock = 12,
  kAttrClockRate = 13,  // kHz
  kAttrMultiprocessorCount = 16,
  kAttrPciBusId = 33,
  kAttrPciDeviceId = 34,
  kAttrMemoryClockRate = 36,       // kHz
  kAttrGlobalMemoryBusWidth = 37,  // bits
  kAttrL2CacheSize = 38,
  kAttrMaxThreadsPerMultiprocessor = 39,
  kAttrUnifiedAddressing = 41,
  kAttrPciDomainId = 50,
  kAttrComputeCapabilityMajor = 75,
  kAttrComputeCapabilityMinor = 76,
  kAttrMaxSharedMemoryPerMultiprocessor = 81,
  kAttrMaxRegistersPerMultiprocessor = 82,
  kAttrMaxSharedMemoryPerBlockOptin = 97,
  kAttrMaxBlocksPerMultiprocessor = 106,
  kAttrReservedSharedMemoryPerBlock = 111,
  kAttrClusterLaunch = 120,
};

/// CUdevice_P2PAttribute values.
enum P2PAttribute : int {
  kP2PPerformanceRank = 1,
  kP2PAccessSupported = 2,
  kP2PNativeAtomicSupported = 3,
  kP2PCudaArrayAccessSupported = 4,
};

/// CUfunction_attribute values (what the trace shim reads for every function).
enum FunctionAttribute : int {
  kFuncNumRegs = 4,        // CU_FUNC_ATTRIBUTE_NUM_REGS
  kFuncPtxVersion = 5,     // CU_FUNC_ATTRIBUTE_PTX_VERSION
  kFuncBinaryVersion = 6,  // CU_FUNC_ATTRIBUTE_BINARY_VERSION
};

/// CUjit_option values (the JIT wall time and logs of a module load).
enum JitOption : CUjit_option {
  kJitWallTime = 2,            // CU_JIT_WALL_TIME (float ms, out)
  kJitInfoLogBuffer = 3,       // CU_JIT_INFO_LOG_BUFFER
  kJitInfoLogBufferSize = 4,   // CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES
  kJitErrorLogBuffer = 5,      // CU_JIT_ERROR_LOG_BUFFER
  kJitErrorLogBufferSize = 6,  // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
};

/// CUdriverProcAddressQueryResult.
enum ProcAddressQueryResult : int {
  kProcAddressSuccess = 0,
  kProcAddressSymbolNotFound = 1,
  kProcAddressVersionNotSufficient = 2,
};

using PFN_cuGetProcAddress_v12000 = CUresult (*)(const char*, void**, int, std::uint64_t,
                                                 ProcAddressQueryResult*);
using PFN_cuGetProcAddress_v11030 = CUresult (*)(const char*, void**, int, std::uint64_t);
using PFN_cuInit_v2000 = CUresult (*)(unsigned);
using PFN_cuDriverGetVersion_v2020 = CUresult (*)(int*);
using PFN_cuDeviceGetCount_v2000 = CUresult (*)(int*);
using PFN_cuDeviceGet_v2000 = CUresult (*)(CUdevice*, int);
using PFN_cuDeviceGetName_v2000 = CUresult (*)(char*, int, CUdevice);
using PFN_cuDeviceGetAttribute_v2000 = CUresult (*)(int*, int, CUdevice);
using PFN_cuDeviceTotalMem_v3020 = CUresult (*)(std::size_t*, CUdevice);
using PFN_cuDeviceGetPCIBusId_v4010 = CUresult (*)(char*, int, CUdevice);
using PFN_cuDeviceGetUuid_v11040 = CUresult (*)(CUuuid*, CUdevice);
using PFN_cuDeviceCanAccessPeer_v4000 = CUresult (*)(int*, CUdevice, CUdevice);
using PFN_cuDeviceGetP2PAttribute_v8000 = CUresult (*)(int*, int, CUdevice, CUdevice);
using PFN_cuGetErrorName_v6000 = CUresult (*)(CUresult, const char**);
using PFN_cuGetErrorString_v6000 = CUresult (*)(CUresult, const char**);
using PFN_cuCtxGetDevice_v2000 = CUresult (*)(CUdevice*);
using PFN_cuDeviceComputeCapability_v2000 = CUresult (*)(int*, int*, CUdevice);
// Module, library, kernel and link entry points (the trace shim wraps or calls them).
using PFN_cuModuleLoad_v2000 = CUresult (*)(CUmodule*, const char*);
using PFN_cuModuleLoadData_v2000 = CUresult (*)(CUmodule*, const void*);
using PFN_cuModuleLoadDataEx_v2010 = CUresult (*)(CUmodule*, const void*, unsigned, CUjit_option*,
                                                  void**);
using PFN_cuModuleLoadFatBinary_v2000 = CUresult (*)(CUmodule*, const void*);
using PFN_cuModuleUnload_v2000 = CUresult (*)(CUmodule);
using PFN_cuModuleGetFunction_v2000 = CUresult (*)(CUfunction*, CUmodule, const char*);
using PFN_cuModuleGetFunctionCount_v12040 = CUresult (*)(unsigned*, CUmodule);
using PFN_cuModuleEnumerateFunctions_v12040 = CUresult (*)(CUfunction*, unsigned, CUmodule);
using PFN_cuFuncGetAttribute_v2020 = CUresult (*)(int*, int, CUfunction);
using PFN_cuFuncGetName_v12030 = CUresult (*)(const char**, CUfunction);
using PFN_cuLibraryLoadData_v12000 = CUresult (*)(CUlibrary*, const void*, CUjit_option*, void**,
                                                  unsigned, CUlibraryOption*, void**, unsigned);
using PFN_cuLibraryLoadFromFile_v12000 = CUresult (*)(CUlibrary*, const char*, CUjit_option*,
                                                      void**, unsigned, CUlibraryOption*, void**,
                                                      unsigned);
using PFN_cuLibraryUnload_v12000 = CUresult (*)(CUlibrary);
using PFN_cuLibraryGetKernel_v12000 = CUresult (*)(CUkernel*, CUlibrary, const char*);
using PFN_cuLibraryGetKernelCount_v12040 = CUresult (*)(unsigned*, CUlibrary);
using PFN_cuLibraryEnumerateKernels_v12040 = CUresult (*)(CUkernel*, unsigned, CUlibrary);
using PFN_cuKernelGetFunction_v12000 = CUresult (*)(CUfunction*, CUkernel);
using PFN_cuKernelGetAttribute_v12000 = CUresult (*)(int*, int, CUkernel, CUdevice);
using PFN_cuKernelGetName_v12030 = CUresult (*)(const char**, CUkernel);
using PFN_cuLinkAddData_v6050 = CUresult (*)(CUlinkState, int, void*, size_t, const char*, unsigned,
                                             CUjit_option*, void**);
using PFN_cuLinkAddFile_v6050 = CUresult (*)(CUlinkState, int, const char*, unsigned, CUjit_option*,
                                             void**);
using PFN_cuLinkComplete_v5050 = CUresult (*)(CUlinkState, void**, size_t*);

// ---- Memory, streams, events, launches, graphs and peers (the benchmark session, bench/) --------
using CUdeviceptr = unsigned long long;
using CUstream = void*;
using CUevent = void*;
using CUgraph = void*;
using CUgraphExec = void*;

inline constexpr CUresult kCudaErrorOutOfMemory = 2;
inline constexpr CUresult kCudaErrorPeerAccessUnsupported = 217;
inline constexpr CUresult kCudaErrorNotReady = 600;
inline constexpr CUresult kCudaErrorPeerAccessAlreadyEnabled = 704;
inline constexpr CUresult kCudaErrorPeerAccessNotEnabled = 705;
inline constexpr CUresult kCudaErrorStreamCaptureUnsupported = 900;
inline constexpr CUresult kCudaErrorStreamCaptureInvalidated = 901;

inline constexpr unsigned kMemHostAllocPortable = 0x01;   // CU_MEMHOSTALLOC_PORTABLE
inline constexpr unsigned kMemHostAllocDeviceMap = 0x02;  // CU_MEMHOSTALLOC_DEVICEMAP
inline constexpr unsigned kStreamNonBlocking = 0x1;       // CU_STREAM_NON_BLOCKING
inline constexpr unsigned kEventDefault = 0x0;            // CU_EVENT_DEFAULT
inline constexpr int kStreamCaptureModeThreadLocal = 1;   // CU_STREAM_CAPTURE_MODE_THREAD_LOCAL

using PFN_cuDevicePrimaryCtxRetain_v7000 = CUresult (*)(CUcontext*, CUdevice);
using PFN_cuDevicePrimaryCtxRelease_v11000 = CUresult (*)(CUdevice);
using PFN_cuCtxSetCurrent_v4000 = CUresult (*)(CUcontext);
using PFN_cuCtxEnablePeerAccess_v4000 = CUresult (*)(CUcontext, unsigned);
using PFN_cuMemAlloc_v3020 = CUresult (*)(CUdeviceptr*, std::size_t);
using PFN_cuMemFree_v3020 = CUresult (*)(CUdeviceptr);
using PFN_cuMemHostAlloc_v2020 = CUresult (*)(void**, std::size_t, unsigned);
using PFN_cuMemFreeHost_v2000 = CUresult (*)(void*);
using PFN_cuMemHostGetDevicePointer_v3020 = CUresult (*)(CUdeviceptr*, void*, unsigned);
using PFN_cuMemcpyHtoDAsync_v3020 = CUresult (*)(CUdeviceptr, const void*, std::size_t, CUstream);
using PFN_cuMemcpyDtoHAsync_v3020 = CUresult (*)(void*, CUdeviceptr, std::size_t, CUstream);
using PFN_cuMemcpyDtoDAsync_v3020 = CUresult (*)(CUdeviceptr, CUdeviceptr, std::size_t, CUstream);
using PFN_cuMemcpyPeerAsync_v4000 = CUresult (*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext,
                                                 std::size_t, CUstream);
using PFN_cuMemsetD8Async_v3020 = CUresult (*)(CUdeviceptr, unsigned char, std::size_t, CUstream);
using PFN_cuStreamCreate_v2000 = CUresult (*)(CUstream*, unsigned);
using PFN_cuStreamDestroy_v4000 = CUresult (*)(CUstream);
using PFN_cuStreamSynchronize_v2000 = CUresult (*)(CUstream);
using PFN_cuStreamWaitEvent_v3020 = CUresult (*)(CUstream, CUevent, unsigned);
using PFN_cuEventCreate_v2000 = CUresult (*)(CUevent*, unsigned);
using PFN_cuEventRecord_v2000 = CUresult (*)(CUevent, CUstream);
using PFN_cuEventSynchronize_v2000 = CUresult (*)(CUevent);
using PFN_cuEventElapsedTime_v12080 = CUresult (*)(float*, CUevent, CUevent);
using PFN_cuEventDestroy_v4000 = CUresult (*)(CUevent);
using PFN_cuLaunchKernel_v4000 = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                                              unsigned, unsigned, unsigned, CUstream, void**,
                                              void**);
using PFN_cuStreamBeginCapture_v10010 = CUresult (*)(CUstream, int);
using PFN_cuStreamEndCapture_v10000 = CUresult (*)(CUstream, CUgraph*);
using PFN_cuGraphInstantiateWithFlags_v11040 = CUresult (*)(CUgraphExec*, CUgraph,
                                                            unsigned long long);
using PFN_cuGraphLaunch_v10000 = CUresult (*)(CUgraphExec, CUstream);
using PFN_cuGraphExecDestroy_v10000 = CUresult (*)(CUgraphExec);
using PFN_cuGraphDestroy_v10000 = CUresult (*)(CUgraph);

// ---- NVML --------------------------------------------------------------------------------------
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;

inline constexpr nvmlReturn_t kNvmlSuccess = 0;
inline constexpr nvmlReturn_t kNvmlErrorUninitialized = 1;
inline constexpr nvmlReturn_t kNvmlErrorInvalidArgument = 2;
inline constexpr nvmlReturn_t kNvmlErrorNotSupported = 3;
inline constexpr nvmlReturn_t kNvmlErrorNoPermission = 4;
inline constexpr nvmlReturn_t kNvmlErrorNotFound = 6;
inline constexpr nvmlReturn_t kNvmlErrorInsufficientSize = 7;
inline constexpr nvmlReturn_t kNvmlErrorDriverNotLoaded = 9;
inline constexpr nvmlReturn_t kNvmlErrorUnknown = 999;

inline constexpr unsigned kNvmlDriverVersionBufferSize =
    80;                                                    // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
inline constexpr unsigned kNvmlDeviceNameBufferSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned kNvmlUuidBufferSize = 80;        // NVML_DEVICE_UUID_V2_BUFFER_SIZE
inline constexpr unsigned kNvmlNvLinkMaxLinks = 36;        // NVML_NVLINK_MAX_LINKS (was 18)

/// nvmlPciInfo_t (the layout used by nvmlDeviceGetPciInfo_v3 and GetNvLinkRemotePciInfo_v2).
struct NvmlPciInfo {
  char busIdLegacy[16];  ///< "0000:01:00.0"
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pciDeviceId;  ///< device id << 16 | vendor id
  unsigned pciSubSystemId;
  char busId[32];  ///< "00000000:01:00.0"
};

/// nvmlGpuTopologyLevel_t.
enum NvmlTopologyLevel : int {   // nvidia-smi topo -m names
  kNvmlTopologyInternal = 0,     // X (the same GPU)
  kNvmlTopologySingle = 10,      // PIX: one PCIe switch
  kNvmlTopologyMultiple = 20,    // PXB: several PCIe switches
  kNvmlTopologyHostbridge = 30,  // PHB: a PCIe host bridge
  kNvmlTopologyNode = 40,        // NODE: host bridges within one NUMA node
  kNvmlTopologySystem = 50,      // SYS: across NUMA nodes (SMP interconnect)
};

/// nvmlGpuP2PCapsIndex_t and nvmlGpuP2PStatus_t (the values used here).
enum NvmlP2PCapsIndex : int {
  kNvmlP2PCapsRead,
  kNvmlP2PCapsWrite,
  kNvmlP2PCapsNvlink,
  kNvmlP2PCapsAtomics
};
enum NvmlP2PStatus : int { kNvmlP2PStatusOk = 0, kNvmlP2PStatusNotSupported = 5 };

/// An NVML entry point returning nvmlReturn_t.
template <class... Args>
using NvmlFn = nvmlReturn_t (*)(Args...);
using PFN_nvmlInit_v2 = NvmlFn<>;
using PFN_nvmlShutdown = NvmlFn<>;
using PFN_nvmlErrorString = const char* (*)(nvmlReturn_t);
using PFN_nvmlSystemGetDriverVersion = NvmlFn<char*, unsigned>;
using PFN_nvmlSystemGetCudaDriverVersion_v2 = NvmlFn<int*>;
using PFN_nvmlDeviceGetCount_v2 = NvmlFn<unsigned*>;
using PFN_nvmlDeviceGetHandleByIndex_v2 = NvmlFn<unsigned, nvmlDevice_t*>;
using PFN_nvmlDeviceGetHandleByPciBusId_v2 = NvmlFn<const char*, nvmlDevice_t*>;
using PFN_nvmlDeviceGetName = NvmlFn<nvmlDevice_t, char*, unsigned>;
using PFN_nvmlDeviceGetUUID = NvmlFn<nvmlDevice_t, char*, unsigned>;
using PFN_nvmlDeviceGetPciInfo_v3 = NvmlFn<nvmlDevice_t, NvmlPciInfo*>;
using PFN_nvmlDeviceGetCudaComputeCapability = NvmlFn<nvmlDevice_t, int*, int*>;
using PFN_nvmlDeviceGetNvLinkState = NvmlFn<nvmlDevice_t, unsigned, int*>;
using PFN_nvmlDeviceGetNvLinkRemotePciInfo_v2 = NvmlFn<nvmlDevice_t, unsigned, NvmlPciInfo*>;
using PFN_nvmlDeviceGetTopologyCommonAncestor = NvmlFn<nvmlDevice_t, nvmlDevice_t, int*>;
using PFN_nvmlDeviceGetP2PStatus = NvmlFn<nvmlDevice_t, nvmlDevice_t, int, int*>;
// PCIe link of a device: generation (1 to 6) and width in lanes (1 to 16), the current ones
// (which may drop while the GPU idles) and the maxima "possible with this device and system" (a
// Gen5 GPU in a Gen4 slot reports max Gen4). NOT_SUPPORTED where there is no PCIe link to the GPU
// (integrated GPUs such as GB10). NVML API reference, Device Queries:
// https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html
using PFN_nvmlDeviceGetCurrPcieLinkGeneration = NvmlFn<nvmlDevice_t, unsigned*>;
using PFN_nvmlDeviceGetMaxPcieLinkGeneration = NvmlFn<nvmlDevice_t, unsigned*>;
using PFN_nvmlDeviceGetCurrPcieLinkWidth = NvmlFn<nvmlDevice_t, unsigned*>;
using PFN_nvmlDeviceGetMaxPcieLinkWidth = NvmlFn<nvmlDevice_t, unsigned*>;

// Device state read around benchmark samples (bench/): clocks, temperature, power, throttling.
enum NvmlClockType : int { kNvmlClockGraphics = 0, kNvmlClockSm = 1, kNvmlClockMem = 2 };
inline constexpr int kNvmlTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
/// nvmlClocksEventReason* bits (formerly nvmlClocksThrottleReason*), with the names bench records.
inline constexpr std::pair<unsigned long long, const char*> kNvmlClockEventReasons[] = {
    {0x1ull, "gpu_idle"},
    {0x2ull, "applications_clocks_setting"},
    {0x4ull, "sw_power_cap"},
    {0x8ull, "hw_slowdown"},
    {0x10ull, "sync_boost"},
    {0x20ull, "sw_thermal"},
    {0x40ull, "hw_thermal"},
    {0x80ull, "hw_power_brake"},
    {0x100ull, "display_clock_setting"},
};
using PFN_nvmlDeviceGetClockInfo = NvmlFn<nvmlDevice_t, int, unsigned*>;
using PFN_nvmlDeviceGetTemperature = NvmlFn<nvmlDevice_t, int, unsigned*>;
using PFN_nvmlDeviceGetPowerUsage = NvmlFn<nvmlDevice_t, unsigned*>;  // milliwatts
using PFN_nvmlDeviceGetCurrentClocksEventReasons = NvmlFn<nvmlDevice_t, unsigned long long*>;

}  // namespace smcompat::driver
