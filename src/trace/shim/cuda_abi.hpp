// The few CUDA driver API types, enum values and function-pointer ABIs the trace shim needs,
// declared here so that the shim builds without the CUDA toolkit. Values and signatures are those
// of CUDA 13.0 include/cuda.h and include/cudaTypedefs.h (../shared/reference/driver-api.md
// sections 2, 5.2 and 7).
#pragma once

#include <cstddef>
#include <cstdint>

namespace smcompat::trace_abi {

using CUresult = int;
using CUdevice = int;
using CUmodule = void*;
using CUfunction = void*;
using CUlibrary = void*;
using CUkernel = void*;
using CUlinkState = void*;
using CUjit_option = int;
using CUlibraryOption = int;

inline constexpr CUresult kSuccess = 0;
inline constexpr CUresult kErrorNotInitialized = 3;

inline constexpr int kAttrCcMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
inline constexpr int kAttrCcMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

inline constexpr int kFuncNumRegs = 4;        // CU_FUNC_ATTRIBUTE_NUM_REGS
inline constexpr int kFuncPtxVersion = 5;     // CU_FUNC_ATTRIBUTE_PTX_VERSION
inline constexpr int kFuncBinaryVersion = 6;  // CU_FUNC_ATTRIBUTE_BINARY_VERSION

inline constexpr CUjit_option kJitWallTime = 2;            // CU_JIT_WALL_TIME (float ms, out)
inline constexpr CUjit_option kJitInfoLogBuffer = 3;       // CU_JIT_INFO_LOG_BUFFER
inline constexpr CUjit_option kJitInfoLogBufferSize = 4;   // CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES
inline constexpr CUjit_option kJitErrorLogBuffer = 5;      // CU_JIT_ERROR_LOG_BUFFER
inline constexpr CUjit_option kJitErrorLogBufferSize = 6;  // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES

using PFN_cuGetProcAddress_v11030 = CUresult (*)(const char*, void**, int, uint64_t);
using PFN_cuGetProcAddress_v12000 = CUresult (*)(const char*, void**, int, uint64_t, int*);
using PFN_cuDeviceGetAttribute = CUresult (*)(int*, int, CUdevice);
using PFN_cuDeviceComputeCapability = CUresult (*)(int*, int*, CUdevice);
using PFN_cuDriverGetVersion = CUresult (*)(int*);
using PFN_cuCtxGetDevice = CUresult (*)(CUdevice*);
using PFN_cuModuleLoad = CUresult (*)(CUmodule*, const char*);
using PFN_cuModuleLoadData = CUresult (*)(CUmodule*, const void*);
using PFN_cuModuleLoadDataEx = CUresult (*)(CUmodule*, const void*, unsigned, CUjit_option*,
                                            void**);
using PFN_cuModuleLoadFatBinary = CUresult (*)(CUmodule*, const void*);
using PFN_cuModuleUnload = CUresult (*)(CUmodule);
using PFN_cuModuleGetFunction = CUresult (*)(CUfunction*, CUmodule, const char*);
using PFN_cuModuleGetFunctionCount = CUresult (*)(unsigned*, CUmodule);
using PFN_cuModuleEnumerateFunctions = CUresult (*)(CUfunction*, unsigned, CUmodule);
using PFN_cuFuncGetAttribute = CUresult (*)(int*, int, CUfunction);
using PFN_cuFuncGetName = CUresult (*)(const char**, CUfunction);
using PFN_cuLibraryLoadData = CUresult (*)(CUlibrary*, const void*, CUjit_option*, void**, unsigned,
                                           CUlibraryOption*, void**, unsigned);
using PFN_cuLibraryLoadFromFile = CUresult (*)(CUlibrary*, const char*, CUjit_option*, void**,
                                               unsigned, CUlibraryOption*, void**, unsigned);
using PFN_cuLibraryUnload = CUresult (*)(CUlibrary);
using PFN_cuLibraryGetKernel = CUresult (*)(CUkernel*, CUlibrary, const char*);
using PFN_cuLibraryGetKernelCount = CUresult (*)(unsigned*, CUlibrary);
using PFN_cuLibraryEnumerateKernels = CUresult (*)(CUkernel*, unsigned, CUlibrary);
using PFN_cuKernelGetFunction = CUresult (*)(CUfunction*, CUkernel);
using PFN_cuKernelGetAttribute = CUresult (*)(int*, int, CUkernel, CUdevice);
using PFN_cuKernelGetName = CUresult (*)(const char**, CUkernel);
using PFN_cuLinkAddData = CUresult (*)(CUlinkState, int, void*, size_t, const char*, unsigned,
                                       CUjit_option*, void**);
using PFN_cuLinkAddFile = CUresult (*)(CUlinkState, int, const char*, unsigned, CUjit_option*,
                                       void**);
using PFN_cuLinkComplete = CUresult (*)(CUlinkState, void**, size_t*);
using PFN_cuGetErrorName = CUresult (*)(CUresult, const char**);

}  // namespace smcompat::trace_abi
