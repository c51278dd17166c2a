// The few CUDA driver API and NVML types, enum values and entry-point signatures that the probe and
// the test suite's fake driver need, declared here so that nothing depends on CUDA headers at build
// time. Values are from the CUDA 13.0 headers (cuda.h, cudaTypedefs.h) and NVML's nvml.h
// (NVML_API_VERSION 13) as listed in ../shared/reference/driver-api.md §7.
#pragma once

#include <cstddef>
#include <cstdint>

namespace smcompat::driver {

// ---- CUDA driver API ---------------------------------------------------------------------------
using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st*;
struct CUuuid {
  char bytes[16];
};

inline constexpr CUresult kCudaSuccess = 0;
inline constexpr CUresult kCudaErrorInvalidValue = 1;
inline constexpr CUresult kCudaErrorNotInitialized = 3;
inline constexpr CUresult kCudaErrorStubLibrary = 34;
inline constexpr CUresult kCudaErrorInsufficientDriver = 35;
inline constexpr CUresult kCudaErrorNoDevice = 100;
inline constexpr CUresult kCudaErrorInvalidDevice = 101;
inline constexpr CUresult kCudaErrorInvalidContext = 201;
inline constexpr CUresult kCudaErrorOperatingSystem = 304;
inline constexpr CUresult kCudaErrorNotPermitted = 800;
inline constexpr CUresult kCudaErrorNotSupported = 801;
inline constexpr CUresult kCudaErrorUnknown = 999;

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

/// The CUDA_ERROR_* name of a CUresult the probe may meet (cuda.h), or nullptr if not listed.
/// Used when the library cannot name its own errors (a stub, or cuGetErrorName missing).
inline const char* cuda_error_name(CUresult r) {
  switch (r) {
    case 0:
      return "CUDA_SUCCESS";
    case 1:
      return "CUDA_ERROR_INVALID_VALUE";
    case 2:
      return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3:
      return "CUDA_ERROR_NOT_INITIALIZED";
    case 4:
      return "CUDA_ERROR_DEINITIALIZED";
    case 34:
      return "CUDA_ERROR_STUB_LIBRARY";
    case 35:
      return "CUDA_ERROR_INSUFFICIENT_DRIVER";
    case 36:
      return "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER";
    case 46:
      return "CUDA_ERROR_DEVICE_UNAVAILABLE";
    case 100:
      return "CUDA_ERROR_NO_DEVICE";
    case 101:
      return "CUDA_ERROR_INVALID_DEVICE";
    case 200:
      return "CUDA_ERROR_INVALID_IMAGE";
    case 201:
      return "CUDA_ERROR_INVALID_CONTEXT";
    case 209:
      return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case 218:
      return "CUDA_ERROR_INVALID_PTX";
    case 222:
      return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
    case 304:
      return "CUDA_ERROR_OPERATING_SYSTEM";
    case 400:
      return "CUDA_ERROR_INVALID_HANDLE";
    case 500:
      return "CUDA_ERROR_NOT_FOUND";
    case 800:
      return "CUDA_ERROR_NOT_PERMITTED";
    case 801:
      return "CUDA_ERROR_NOT_SUPPORTED";
    case 802:
      return "CUDA_ERROR_SYSTEM_NOT_READY";
    case 803:
      return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
    case 804:
      return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
    case 999:
      return "CUDA_ERROR_UNKNOWN";
    default:
      return nullptr;
  }
}

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
enum NvmlTopologyLevel : int {
  kNvmlTopologyInternal = 0,
  kNvmlTopologySingle = 10,
  kNvmlTopologyMultiple = 20,
  kNvmlTopologyHostbridge = 30,
  kNvmlTopologyNode = 40,
  kNvmlTopologySystem = 50,
};

/// nvmlGpuP2PCapsIndex_t and nvmlGpuP2PStatus_t (the values used here).
enum NvmlP2PCapsIndex : int {
  kNvmlP2PCapsRead = 0,
  kNvmlP2PCapsWrite = 1,
  kNvmlP2PCapsNvlink = 2,
  kNvmlP2PCapsAtomics = 3,
};
enum NvmlP2PStatus : int { kNvmlP2PStatusOk = 0, kNvmlP2PStatusNotSupported = 5 };

using PFN_nvmlInit_v2 = nvmlReturn_t (*)();
using PFN_nvmlShutdown = nvmlReturn_t (*)();
using PFN_nvmlErrorString = const char* (*)(nvmlReturn_t);
using PFN_nvmlSystemGetDriverVersion = nvmlReturn_t (*)(char*, unsigned);
using PFN_nvmlSystemGetCudaDriverVersion_v2 = nvmlReturn_t (*)(int*);
using PFN_nvmlDeviceGetCount_v2 = nvmlReturn_t (*)(unsigned*);
using PFN_nvmlDeviceGetHandleByIndex_v2 = nvmlReturn_t (*)(unsigned, nvmlDevice_t*);
using PFN_nvmlDeviceGetHandleByPciBusId_v2 = nvmlReturn_t (*)(const char*, nvmlDevice_t*);
using PFN_nvmlDeviceGetName = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned);
using PFN_nvmlDeviceGetUUID = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned);
using PFN_nvmlDeviceGetPciInfo_v3 = nvmlReturn_t (*)(nvmlDevice_t, NvmlPciInfo*);
using PFN_nvmlDeviceGetCudaComputeCapability = nvmlReturn_t (*)(nvmlDevice_t, int*, int*);
using PFN_nvmlDeviceGetNvLinkState = nvmlReturn_t (*)(nvmlDevice_t, unsigned, int*);
using PFN_nvmlDeviceGetNvLinkRemotePciInfo_v2 = nvmlReturn_t (*)(nvmlDevice_t, unsigned,
                                                                 NvmlPciInfo*);
using PFN_nvmlDeviceGetTopologyCommonAncestor = nvmlReturn_t (*)(nvmlDevice_t, nvmlDevice_t, int*);
using PFN_nvmlDeviceGetP2PStatus = nvmlReturn_t (*)(nvmlDevice_t, nvmlDevice_t, int, int*);

}  // namespace smcompat::driver
