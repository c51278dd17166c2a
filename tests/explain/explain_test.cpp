// Every failure mode of ../shared/reference/field-reports.md (catalogue entries 1-22 and the
// symptom strings of section 1), and the common ones around them, explained from the text users
// actually see (issue reports; ptxas messages reproduced with CUDA 13.0's ptxas).
#include "smcompat/explain/explain.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "doctor/fixture_env.hpp"
#include "smcompat/report/explain_report.hpp"

namespace smcompat::explain {
namespace {

struct Case {
  const char* report;  ///< field-reports.md entry or "common"
  const char* text;    ///< what the user saw
  const char* mode;    ///< expected failure mode id
};

const Case kCases[] = {
    {"#1 pytorch/pytorch#150733",
     "UserWarning:\nNVIDIA GeForce RTX 5090 D with CUDA capability sm_120 is not compatible with "
     "the current "
     "PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 "
     "sm_70 sm_75 "
     "sm_80 sm_86 sm_90.\nIf you want to use the NVIDIA GeForce RTX 5090 D GPU with PyTorch, "
     "please check the "
     "instructions at https://pytorch.org/get-started/locally/",
     "torch-arch-not-compatible"},
    {"#2 pytorch/pytorch#167244",
     "RuntimeError: CUDA error: no kernel image is available for execution on the device\nCUDA "
     "kernel errors "
     "might be asynchronously reported at some other API call, so the stacktrace below might be "
     "incorrect.",
     "no-kernel-image"},
    {"#3 pytorch/pytorch#182250",
     "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 "
     "sm_90.",
     "torch-arch-not-compatible"},
    {"#4 pytorch/pytorch PR #178891",
     "NVIDIA GB10 with CUDA capability sm_121 is not compatible with the current PyTorch "
     "installation.",
     "torch-arch-not-compatible"},
    {"#5 vllm-project/vllm#16901",
     "(VllmWorker rank=0 pid=4242) ERROR RuntimeError: CUDA error: no kernel image is available "
     "for execution "
     "on the device",
     "no-kernel-image"},
    {"#6 bitsandbytes-foundation/bitsandbytes#1510",
     "WARNING:bitsandbytes.cextension:Could not find the bitsandbytes CUDA binary at "
     "PosixPath('/venv/lib/site-packages/bitsandbytes/libbitsandbytes_cuda128.so')\n"
     "WARNING:bitsandbytes.cextension:The installed version of bitsandbytes was compiled without "
     "GPU support.",
     "bitsandbytes-no-cuda-binary"},
    {"#7 Comfy-Org/ComfyUI#7380",
     "!!! Exception during processing !!! CUDA error: no kernel image is available for execution "
     "on the device",
     "no-kernel-image"},
    {"#8 deepseek-ai/DeepGEMM#185",
     "ptxas /tmp/tmpxft_00004a1b_00000000-6_fp8_gemm.ptx, line 1187; error   : Instruction "
     "'tcgen05.fence' "
     "not supported on .target 'sm_120'\nptxas fatal   : Ptx assembly aborted due to errors",
     "ptx-tcgen05-on-sm12x"},
    {"#9 tile-ai/tilelang#797",
     "ptxas /tmp/tvm_kernels.ptx, line 212; error   : Instruction 'setmaxnreg.dec' not supported "
     "on .target "
     "'sm_120'",
     "ptx-setmaxnreg"},
    {"#10 InternLM/lmdeploy#3806",
     "ptxas /tmp/grouped_gemm.ptx, line 530; error   : Instruction 'tensormap.replace' not "
     "supported on "
     ".target 'sm_120'",
     "ptx-tensormap-replace"},
    {"#11 pytorch/FBGEMM#4975",
     "ptxas /tmp/quantize.ptx, line 77; error   : Instruction 'cvt with .e2m1x2' not supported on "
     ".target "
     "'sm_120'",
     "ptx-fp4-cvt"},
    {"#12 NVlabs/cuda-oxide#1194",
     "ptxas kernel.ptx, line 40; error   : Instruction 'tcgen05.alloc' not supported on .target "
     "'sm_120a'",
     "ptx-tcgen05-on-sm12x"},
    {"#13 NVIDIA/dgx-spark-playbooks#22",
     "ptxas kernel.ptx, line 61; error   : Instruction 'tcgen05.mma' not supported on .target "
     "'sm_121a'",
     "ptx-tcgen05-on-sm12x"},
    {"#14 Dao-AILab/flash-attention#1853",
     "ptxas /tmp/flash_fwd_hdim128.ptx, line 902; error   : Instruction 'wgmma.fence' cannot be "
     "compiled for "
     "architecture 'sm_120'",
     "ptx-wgmma-not-hopper"},
    {"#15 triton-lang/triton#8182",
     "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, "
     "Hardware limit: "
     "101376. Reducing block sizes or `num_stages` may help.",
     "smem-triton-out-of-resource"},
    {"#16 pytorch/executorch#21827",
     "========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to \"invalid argument\" on CUDA "
     "API call to "
     "cuFuncSetAttribute.",
     "smem-opt-in-exceeded"},
    {"#17 NVIDIA/cutlass#3144",
     "MoE grouped GEMM requires 102400 bytes shared memory but device supports 101376",
     "smem-opt-in-exceeded"},
    {"#18 vllm-project/vllm#32109",
     "RuntimeError: No compiled cutlass_scaled_mm for CUDA device capability: 120",
     "vllm-cutlass-scaled-mm"},
    {"#19 vllm-project/vllm#54125",
     "support_deep_gemm() returns True on sm_121, but DeepGEMM's blockwise FP8 GEMM then dies with "
     "a hard CUDA "
     "fault.",
     "family-gate-wrong-device"},
    {"#20 flashinfer-ai/flashinfer#2577",
     "mm_fp4 NVFP4 returns erratic M-dependent zeros on SM120: both b12x and cutlass backends "
     "affected",
     "nvfp4-silent-wrong-results"},
    {"#21 triton-lang/triton#8539",
     "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'", "ptxas-unknown-arch"},
    {"#22 wilicc/gpu-burn#112",
     "Couldn't init a GPU test: Error in load module (gpu_burn-drv.cpp:239): the provided PTX was "
     "compiled "
     "with an unsupported toolchain.",
     "unsupported-ptx-toolchain"},
    {"common: driver too old",
     "RuntimeError: The NVIDIA driver on your system is too old (found version 12020). Please "
     "update your GPU "
     "driver by downloading and installing a new version from the URL: "
     "http://www.nvidia.com/Download/index.aspx",
     "driver-insufficient"},
    {"common: insufficient driver", "CUDA driver version is insufficient for CUDA runtime version",
     "driver-insufficient"},
    {"common: stub", "cudaGetDeviceCount returned 34 (CUDA driver is a stub library)",
     "stub-libcuda"},
    {"common: no driver",
     "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA "
     "GPU and "
     "installed a driver from http://www.nvidia.com/Download/index.aspx",
     "no-driver"},
    {"common: open modules",
     "NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2b85)\nNVRM: installed in this system "
     "requires use of "
     "the NVIDIA open kernel modules.",
     "open-kernel-modules-required"},
    {"common: missing cuDNN",
     "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory",
     "missing-cuda-library"},
    {"common: missing cuBLAS",
     "OSError: libcublasLt.so.12: cannot open shared object file: No such file or directory",
     "missing-cuda-library"},
    {"common: CUDA_HOME",
     "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
     "cuda-home-not-set"},
    {"common: no compiler",
     "error: command 'x86_64-linux-gnu-gcc' failed: No such file or directory", "no-host-compiler"},
    {"common: gcc too new",
     "/usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- unsupported GNU version! "
     "gcc versions "
     "later than 13 are not supported!",
     "host-compiler-unsupported"},
    {"common: old nvcc", "nvcc fatal   : Unsupported gpu architecture 'compute_120'",
     "nvcc-unsupported-arch"},
    {"common: old torch for 12.0", "ValueError: Unknown CUDA arch (12.0+PTX) or GPU not supported",
     "torch-unknown-cuda-arch"},
    {"common: old ptxas",
     "ptxas kernel.ptx, line 1; fatal   : Unsupported .version 9.1; current version is '8.7'",
     "ptxas-unknown-arch"},
    {"common: JIT disabled", "CUDA error: PTX JIT compilation was disabled", "jit-disabled"},
    {"common: JIT failed", "CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed", "invalid-ptx"},
    // Texts of the mined corpus's tune part (tests/explain/corpus/mined).
    {"mined: NVIDIA/nvidia-docker#1442",
     "docker: Error response from daemon: OCI runtime create failed: container_linux.go:370: "
     "starting container process caused: process_linux.go:459: container init caused: Running "
     "hook #0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: "
     "requirement error: unsatisfied condition: cuda>=11.0, please update your driver to a newer "
     "version, or use an earlier cuda container: unknown.",
     "container-cuda-requirement"},
    {"mined: jax-ml/jax#15268",
     "2023-03-28 20:24:31.407336: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:417] Loaded "
     "runtime CuDNN library: 8.5.0 but source was compiled with: 8.6.0.  CuDNN library needs to "
     "have matching major version and equal or higher minor version.",
     "cudnn-version-mismatch"},
    {"jax-ml/jax#18027",
     "CUDA backend failed to initialize: Unable to use CUDA because of the following issues with "
     "CUDA components:\nOutdated cuSPARSE installation found.\nVersion JAX was built against: "
     "12200\nMinimum supported: 12100\nInstalled version: 12002",
     "jax-outdated-cuda-library"},
    {"mined: NVIDIA/libnvidia-container#154", "bpf_prog_query(BPF_CGROUP_DEVICE) failed",
     "container-cgroup-devices"},
    {"mined: microsoft/WSL#5663", "/usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link",
     "wsl-libcuda-not-symlink"},
    {"mined: xingyizhou/CenterNet#933", "cuda runtime error (30): unknown error",
     "cuda-unknown-error-uvm"},
    {"mined: ziatdinovmax/gpax#63",
     "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. "
     "Falling back to CPU.",
     "jax-cpu-only"},
    {"mined: googlecolab/colabtools#3013",
     "Node: 'sequential_2/conv2d_2/Conv2D'\nDNN library is not found.", "tensorflow-dnn-not-found"},
    {"mined: sxyu/svox2#6", "RuntimeError: CUDA error: too many resources requested for launch",
     "launch-out-of-resources"},
    {"mined: ufoym/deepo#129",
     "cuda_blas.cc:1413] Unable to register cuBLAS factory: Attempting to register factory for "
     "plugin cuBLAS when one has already been registered",
     "tensorflow-duplicate-factory"},
    {"mined: AUTOMATIC1111/stable-diffusion-webui#3003",
     "Found GPU0 NVIDIA GTX TITAN Black which is of cuda capability 3.5. PyTorch no longer "
     "supports "
     "this GPU because it is too old. The minimum cuda capability supported by this library is "
     "3.7.",
     "torch-gpu-too-old"},
    {"mined: kijai/ComfyUI-HunyuanVideoWrapper#98",
     "torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9, or "
     "ROCm MI300+",
     "fp8-matmul-needs-sm89"},
    {"mined: bitsandbytes-foundation/bitsandbytes#118",
     "=============================================\nERROR: Your GPU does not support Int8 "
     "Matmul!\n=============================================",
     "bitsandbytes-int8-old-gpu"},
    {"mined: ollama/ollama#1992",
     "2024/01/14 19:50:06 gpu.go:138: CUDA GPU is too old. Falling back to CPU mode. Compute "
     "Capability detected: 5.2",
     "ggml-cuda-arch-missing"},
    {"mined: LostRuins/koboldcpp#610",
     "ERROR: ggml-cuda was compiled without support for the current GPU architecture.",
     "ggml-cuda-arch-missing"},
    {"mined: EXP-code/EXP#63",
     "CMake Error in exputil/CMakeLists.txt:\n  CUDA_ARCHITECTURES is empty for target "
     "\"exputil\".",
     "cmake-cuda-architectures-unset"},
    {"mined: eyalroz/cuda-api-wrappers#509",
     "Failed invoking compiler for CUDA C++ program at 0x07fae240a1c80: NVRTC_ERROR_INVALID_OPTION",
     "nvrtc-invalid-option"},
    {"mined: NVIDIA/nvtrust#55",
     "fabric manager NVIDIA GPU driver interface version 550.90.07 don\u2019t match with driver "
     "version 550.107.02. Please update with matching NVIDIA driver package",
     "fabric-manager-version-mismatch"},
    {"mined: NVIDIA/k8s-device-plugin#23",
     "loading NVML\nFailed to start nvml with error:  could not load NVML library",
     "container-nvml-not-loaded"},
    {"mined: Igalia/webkit-container-sdk#23",
     "Error: unable to start container \"ecdb2132\": crun: error stat'ing file "
     "/lib/x86_64-linux-gnu/libEGL_nvidia.so.535.161.07: No such file or directory: OCI runtime "
     "attempted to invoke a command that was not found",
     "cdi-spec-stale"},
    {"mined: mudler/LocalAI#11973", "ImportError: libcuda.so.1: cannot open shared object file",
     "libcuda-not-found"},
    {"mined: NVIDIA/nvidia-docker#766",
     "[h264_cuvid @ 0x1ec8780] Cannot load libnvcuvid.so.1\n[h264_cuvid @ 0x1ec8780] Failed "
     "loading nvcuvid.",
     "nvidia-video-libs-missing"},
    {"mined: ufoym/deepo#129 (TensorRT)",
     "2020-02-06 17:27:31.522769: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] "
     "Could not load dynamic library 'libnvinfer.so.6'; dlerror: libnvinfer.so.6: cannot open "
     "shared object file: No such file or directory",
     "tensorflow-tensorrt-optional"},
    {"mined: unslothai/unsloth#1174",
     "ImportError: /opt/conda/lib/python3.10/site-packages/torch/lib/../../nvidia/cusparse/lib/"
     "libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12",
     "nvjitlink-version-mismatch"},
    {"mined: vladmandic/sdnext#2332",
     "OSError: [WinError 126] The specified module cannot be found. Error loading\n"
     "...stable\\automatic\\venv\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll\" "
     "or\none "
     "of its dependencies.",
     "windows-dll-load-failed"},
    {"mined: jax-ml/jax#21121",
     "'+ptx84' is not a recognized feature for this target (ignoring "
     "feature)",
     "xla-unknown-ptx-feature"},
    // A harmless warning printed before the real error is listed after it.
    {"mined: ufoym/deepo#129 + googlecolab/colabtools#3013",
     "W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic "
     "library 'libnvinfer.so.6'\nNode: 'sequential_2/conv2d_2/Conv2D'\nDNN library is not found.",
     "tensorflow-dnn-not-found"},
    {"mined: NVIDIA/nvidia-docker#587",
     "Failed to run nvidia/cuda:8.0 via nvidia-docker2. nvidia-container-cli: ldcache error: "
     "process /sbin/ldconfig failed with error code: 127",
     "container-ldconfig-failed"},
    {"mined: opencv/opencv#18382",
     "cv2.error: OpenCV(4.4.0) /home/ycc/opencv-4.4.0/modules/dnn/src/dnn.cpp:2353: error: "
     "(-216:No CUDA support) OpenCV was not built to work with the selected device. Please check "
     "CUDA_ARCH_PTX or CUDA_ARCH_BIN in your build configuration. in function 'initCUDABackend'",
     "opencv-cuda-arch"},
    {"mined: onnx/onnx-tensorrt#421",
     "[TensorRT] ERROR: INVALID_CONFIG: The engine plan file is generated on an incompatible "
     "device, expecting compute 6.1 got compute 7.5, please rebuild.",
     "tensorrt-engine-other-gpu"},
    {"mined: open-mmlab/mmdetection#3272", "No module named 'mmcv._ext'", "mmcv-no-ext"},
    {"mined: facebookresearch/maskrcnn-benchmark#688",
     "    allow_unreachable=True)  # allow_unreachable flag\nRuntimeError: cuDNN error: "
     "CUDNN_STATUS_EXECUTION_FAILED",
     "torch-cudnn-failed"},
    {"mined: resemble-ai/chatterbox#269", "AssertionError: Torch not compiled with CUDA enabled",
     "torch-cpu-build"},
    {"mined: TaterTotterson/microWakeWord-Trainer-Nvidia-Docker#1",
     "ONNX Runtime Providers:\n  ['AzureExecutionProvider', 'CPUExecutionProvider']\n"
     "CUDAExecutionProvider not available - ONNX will fall back to CPU.",
     "onnxruntime-cpu-only"},
    {"mined: vios-s/DiffAN#7",
     "OSError: /data/app/anaconda3/envs/functorch_cud11/lib/python3.10/site-packages/torch/lib/../"
     "../../../libcublas.so.11: undefined symbol: cublasLtBIIMatmulAlgoGetHeuristic, version "
     "libcublasLt.so.11",
     "cublas-build-mismatch"},
    {"mined: NVIDIA/nvidia-docker#182",
     "kernel: NVRM: API mismatch: the client has the version 367.44, but\n  NVRM: this kernel "
     "module has the version 367.35.  Please",
     "nvml-driver-mismatch"},
    {"mined: fchollet/deep-learning-with-python-notebooks#108",
     "2019-04-11 14:19:59.264535: E tensorflow/stream_executor/cuda/cuda_dnn.cc:334] Could not "
     "create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
     "cudnn-handle-failed"},
    {"mined: CharlesShang/DCNv2#136",
     "DCNv2/src/cpu/dcn_v2_im2col_cpu.cpp:9:10: fatal error: TH/TH.h: No such file or directory",
     "torch-th-headers-removed"},
    {"mined: NVlabs/nvdiffrast#99",
     "    glctx = dr.RasterizeGLContext()\nRuntimeError: OpenGL 4.4 or later is required",
     "nvdiffrast-opengl"},
    {"mined: gnina/gnina#20",
     "gninasrc/lib/gpu_math.h(58): error: identifier \"__shfl_down_sync\" is undefined",
     "cuda-too-old-for-source"},
    {"mined: vllm-project/vllm#7151",
     "Exception in worker VllmWorkerProcess while processing method init_device: Cannot "
     "re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the "
     "'spawn' start method",
     "cuda-fork-reinit"},
    {"mined: vllm-project/vllm#5613",
     "Failed: /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:310 'invalid argument'",
     "vllm-custom-allreduce"},
    {"mined: Comfy-Org/ComfyUI#1150",
     "Error occurred when executing CLIPTextEncode:\n\nCUDA error: operation not supported",
     "cuda-operation-not-supported"},
    {"mined: kijai/ComfyUI-KJNodes#721",
     "RuntimeError: sageattention is not new enough version or could not determine CUDA "
     "architecture, cannot apply MiniMax H3 Memory Efficient Sage Attention Patch.",
     "sageattention-gpu"},
    {"mined: NVIDIA/nccl#342",
     "include/shm.h:28 NCCL WARN Call to posix_fallocate failed: No space left on device\n"
     "include/shm.h:48 NCCL WARN Error while creating shared memory segment "
     "nccl-shm-recv-250a7cc850ba9298-0-1-3 (size 9637888)",
     "nccl-shm-container"},
    {"mined: verl-project/verl#161",
     "torch.distributed.DistBackendError: NCCL error in: "
     "../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, invalid usage (run with NCCL_DEBUG=WARN "
     "for details), NCCL version 2.20.5\nncclInvalidUsage: This usually reflects invalid usage of "
     "NCCL library.\nLast error:\nDuplicate GPU detected : rank 1 and rank 0 both on CUDA device "
     "10",
     "nccl-duplicate-gpu"},
    {"mined: NVIDIAGameWorks/kaolin#406",
     "kaolin/csrc/ops/conversions/unbatched_mcube/unbatched_mcube_cuda.cu:25:10: fatal error: "
     "cub/cub.cuh: No such file or directory\n #include <cub/cub.cuh>",
     "cub-header-missing"},
    {"mined: kijai/ComfyUI-HunyuanVideoWrapper#29",
     "2024-12-05 14:35:02,706- root:392- ERROR- !!! Exception during processing !!! Cannot find "
     "ptxas.exe",
     "ptxas-not-found"},
    {"mined: cupy/cupy#8045", "CUDA_ERROR_INVALID_SOURCE: device kernel image is invalid",
     "invalid-kernel-image"},
    {"mined: chainer/chainer#740",
     " File \"cupy/cuda/cudnn.pyx\", line 164, in cupy.cuda.cudnn.check_status "
     "(cupy/cuda/cudnn.cpp:1308)\n cupy.cuda.cudnn.CuDNNError: CUDNN_STATUS_ARCH_MISMATCH: "
     "CUDNN_STATUS_ARCH_MISMATCH",
     "library-arch-mismatch"},
    {"mined: NVIDIA/FasterTransformer#25",
     "terminate called after throwing an instance of 'std::runtime_error'\n  what():  [FT][ERROR] "
     "CUDA runtime error: CUBLAS_STATUS_ARCH_MISMATCH "
     "/root/DeepLearningExamples-master/FasterTransformer/v1/fastertransformer/cuda/"
     "open_attention.h:171",
     "library-arch-mismatch"},
    {"mined: NVIDIA/VideoProcessingFramework#16",
     "-- The CUDA compiler identification is unknown\nCMake Error at "
     "PyNvCodec/TC/CMakeLists.txt:20 (enable_language):\n  No CMAKE_CUDA_COMPILER could be found.",
     "cmake-no-cuda-compiler"},
    {"mined: mosaicml/diffusion#56",
     "FATAL: kernel `fmha_cutlassF_f32_aligned_64x64_rf_sm80` is for sm80-sm100, but was built "
     "for sm50",
     "xformers-no-kernel-for-gpu"},
    {"mined: 3587jjh/HuRo#3",
     "ptxas fatal : Program with .target 'sm_90a' cannot be compiled to future architecture",
     "ptx-arch-specific-future"},
    {"mined: Purfview/whisper-standalone-win#403",
     "  File \"faster_whisper\\transcribe.py\", line 1719, in encode\nRuntimeError: cuBLAS failed "
     "with status CUBLAS_STATUS_NOT_SUPPORTED",
     "cublas-not-supported"},
    {"mined: Theano/Theano#4553",
     "/usr/include/string.h: In function \xe2\x80\x98void* __mempcpy_inline(void*, const void*, "
     "size_t)\xe2\x80\x99:\n/usr/include/string.h:652:42: error: \xe2\x80\x98memcpy\xe2\x80\x99 "
     "was "
     "not declared in this scope",
     "nvcc-force-inlines"},
    {"mined: numba/numba#3963", "CudaDriverError: driver missing function: cuInit.",
     "numba-driver-path"},
    {"mined: stereolabs/zed-ros2-wrapper#25",
     "CMake Error: The following variables are used in this project, but they are set to "
     "NOTFOUND.\nPlease set them or make sure they are set and tested correctly in the CMake "
     "files:\nCUDA_nppicom_LIBRARY (ADVANCED)",
     "cmake-findcuda-npp-cuda11"},
    {"mined: jkjung-avt/tensorrt_demos#517",
     "ImportError: libnvinfer.so.8: cannot open shared object file: No such file or directory",
     "missing-cuda-library"},
    {"mined: michael-0brien/cryojax#559",
     "RuntimeError: jaxlib/cuda/versions_helpers.cc:81: operation "
     "cusparseGetProperty(MAJOR_VERSION, "
     "&major) failed: The cuSPARSE library was not found.",
     "missing-cuda-library"},
    {"mined: huggingface/text-embeddings-inference#34",
     "Error: Could not create backend\n\nCaused by:\n    Could not start backend: Runtime compute "
     "cap 75 is not compatible with compile time compute cap 80",
     "tei-compute-cap"},
    {"mined: NVIDIA/TensorRT-LLM#320",
     "[TensorRT-LLM][ERROR] Assertion failed: Unsupported architecture "
     "(/home/build/TensorRT_LLM/TensorRT-LLM-master/cpp/tensorrt_llm/kernels/"
     "contextFusedMultiHeadAttention/fmhaRunner.cpp:87)",
     "tensorrt-llm-fmha-arch"},
    {"mined: vllm-project/vllm#19613",
     "ERROR 06-13 07:35:59 [core.py:517] cupy_backends.cuda.libs.nccl.NcclError: "
     "NCCL_ERROR_SYSTEM_ERROR: unhandled system error (run with NCCL_DEBUG=INFO for details)",
     "nccl-shm-container"},
    {"mined: JIA-Lab-research/MGM#91",
     "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed "
     "CUDA version 12.2 does not match the version torch was compiled with 11.7, unable to compile "
     "cuda/cpp extensions without a matching cuda version.",
     "cuda-toolkit-torch-mismatch"},
    {"mined: NVIDIA/nccl-tests#206",
     "misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate "
     "memory",
     "rdma-memlock"},
    {"mined: NVIDIA/k8s-device-plugin#399",
     "error starting plugins: unable to add default resources to config: error visiting devices: "
     "error visiting device: error visiting device: error getting device memory info: "
     "Insufficient Pemmissions",
     "mig-monitor-permissions"},
    {"mined: vllm-project/vllm#5222",
     "RuntimeError: CUDA error: uncorrectable ECC error encountered", "ecc-uncorrectable"},
    {"mined: NVIDIA/nvidia-docker#628",
     "nvidia-container-cli: initialization error: driver error: timed out",
     "container-driver-init-timeout"},
    {"mined: ComputeCanada/puppet-magic_castle#27",
     "slurmd[57977]: fatal: gres.conf duplicate records for gpu", "slurm-gres-duplicate"},
    {"mined: NVIDIA/nccl-tests#188",
     "misc/socket.cc:441 NCCL WARN socketFinalizeAccept: wrong type 4 != 3",
     "nccl-multinode-transport"},
    {"mined: owl-project/NVISII#40",
     "Optix call (optixInit()) failed with code 7801 (line 150)\nterminate called without an "
     "active exception",
     "optix-driver"},
    {"mined: woct0rdho/triton-windows#7",
     "ImportError: DLL load failed while importing cuda_utils: The specified module could not be "
     "found.",
     "triton-windows-dll"},
    {"mined: Mintplex-Labs/anything-llm#1795",
     "Ollama call failed with status code 500: llama runner process has terminated: exit status "
     "0xc0000135",
     "windows-status-dll-not-found"},
    {"mined: dillongoostudios/goo-engine#26",
     "nvcc fatal   : Cannot find compiler 'cl.exe' in PATH\nFailed to execute compilation command, "
     "see console for details.",
     "nvcc-no-cl"},
    {"mined: kijai/ComfyUI-WanVideoWrapper#717",
     "WanVideoSampler Unsupported CUDA architecture: sm75", "sageattention-gpu"},
    {"mined: NVlabs/tiny-cuda-nn#434",
     "OSError: Could not find compatible tinycudann extension for compute capability 87.",
     "tcnn-arch"},
    {"mined: ethereum-mining/ethminer#1640", "CUDA error: Insufficient CUDA driver: 9020",
     "driver-insufficient"},
    {"mined: lammps/lammps#4849",
     "Cuda driver error 804 in call at file\n'/home/scut/softwares/lammps-22Jul2025/lib/gpu/geryon/"
     "nvd_device.h' in line 333.",
     "cuda-forward-compat-unsupported"},
    {"mined: open-mmlab/mmdetection#944",
     "unable to execute "
     "'/usr/local/cuda-10.0:/usr/local/cuda-10.0:/usr/local/cuda-10.0:/bin/nvcc': No such file or "
     "directory",
     "cuda-home-not-set"},
    {"mined: rusty1s/pytorch_sparse#86",
     "RuntimeError: Detected that PyTorch and torch_sparse were compiled with different CUDA "
     "versions. PyTorch has CUDA version 10.2 and torch_sparse has CUDA version 11.1. Please "
     "reinstall the torch_sparse that matches your PyTorch install.",
     "torch-package-cuda-mismatch"},
    {"mined: NVIDIA/DIGITS#1621",
     "F0504 12:30:02.978602 2662 common.cpp:163] Check failed: error == cudaSuccess (30 vs. 0) "
     "unknown error\n*** Check failure stack trace: ***",
     "cuda-unknown-error-uvm"},
    {"mined: numba/numba#5793", "Call to cuInit results in CUDA_ERROR_NO_DEVICE:", "no-driver"},
    {"mined: AUTOMATIC1111/stable-diffusion-webui#2986",
     "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
     "cuda-devices-unavailable"},
    {"mined: facebookresearch/sam2#220",
     "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend",
     "torchvision-ops-without-cuda"},
    {"mined: awslabs/awsome-distributed-ai#192",
     "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or "
     "device error. 10: Last error: 10: socketStartConnect: Connect to 127.0.0.1<45069> failed : "
     "Software caused connection abort",
     "nccl-socket-interface"},
    {"mined: marin-community/marin#7018",
     "Failed to create NCCL communicator: INTERNAL: ncclCommInitRankConfig(...) failed:\ninvalid "
     "usage ... Last NCCL warning(error): 'Bootstrap : no socket interface found'",
     "nccl-socket-interface"},
    {"mined: NVIDIA/nccl#2076",
     "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
     "prematurely.",
     "nccl-remote-error"},
    {"mined: awslabs/awsome-distributed-ai#195",
     "Reason=gres/gpu count reported lower than configured (0 < 8)", "slurm-gres-count-low"},
    {"mined: mehta-lab/waveorder#201",
     "srun: error: Unable to create step for job 16413634: Invalid generic resource (gres) "
     "specification",
     "slurm-invalid-gres"},
    {"mined: ray-project/ray-llm#120",
     "Error: No available node types can fulfill resource request \ndefaultdict(<class 'float'>, "
     "{'accelerator_type_a10': 0.02, 'CPU': 9.0, 'GPU': 1.0}). ",
     "ray-gpu-resource"},
    {"mined: pdbear/syno_nvidia_gpu_driver#22",
     "$ nvidia-smi\nUnable to determine the device handle for GPU0000:07:00.0: Unknown Error",
     "gpu-lost"},
    {"mined: ComputeCanada/puppet-magic_castle#387",
     "The following GPUs could not be reset:\n  GPU 00000000:00:06.0: In use by another client",
     "gpu-reset-in-use"},
    {"mined: NVIDIA/gpu-operator#610",
     "nv-fabricmanager[4177]: request to query NVSwitch device information from NVSwitch driver "
     "failed with error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]",
     "fabric-manager-no-nvswitch"},
    {"mined: volotat/DiffMorph#19", "\"Could not load dynamic library 'cudart64_110.dll'\"",
     "missing-cuda-library"},
    {"mined: neuralchen/SimSwap#98",
     "CUDA_PATH is set but CUDA wasn't able to be loaded. Please install the correct version of "
     "CUDA and cuDNN as mentioned in the GPU requirements page",
     "missing-cuda-library"},
    {"mined: bitsandbytes-foundation/bitsandbytes#205",
     "RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasGemmEx( handle, "
     "opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, "
     "ldc, CUDA_R_32F, CUBLAS_GEMM_DFALT_TENSOR_OP)`",
     "cublas-gemm-invalid-value"},
    {"mined: ComputationalRadiationPhysics/picongpu#4694",
     "ptxas error   : Entry function '_ZN6alpaka6detail9gpuKernelIN5pmacc8lockstep4execEEEvT_' "
     "uses "
     "too much shared data (0xe810 bytes, 0xc000 max)",
     "ptxas-static-smem"},
    {"mined: ollama/ollama#2934", "Unable to init GPU: unknown error", "cuda-unknown-error-uvm"},
    {"mined: Theano/Theano#6556",
     "RuntimeError: ('Error creating cudnn handle. This can be a sign of a too old driver.', 4)",
     "driver-insufficient"},
    {"mined: bowenc0221/panoptic-deeplab#118",
     "RuntimeError: CUDA out of memory. Tried to allocate 146.00 MiB (GPU 0; 14.76 GiB total "
     "capacity; 13.83 GiB already allocated; 15.75 MiB free; 13.97 GiB reserved in total by "
     "PyTorch)",
     "torch-cuda-oom"},
    {"mined: microsoft/onnxruntime#18579",
     "nvcc error   : 'cicc' died due to signal 9 (Kill signal)", "compiler-killed-oom"},
    {"mined: llnl/Quicksilver#42",
     "ptxas fatal   : Unresolved extern function '_Z17getGlobalThreadIDv'",
     "cuda-separable-compilation"},
    {"mined: NVIDIA/thrust#1356", "nvcc fatal   : Value 'c++17' is not defined for option 'std'",
     "nvcc-std-unsupported"},
    {"mined: OpenPPL/ppl.cv#132",
     "/src/ppl/cv/cuda/warp.hpp(25): error: texture is not a template\n  static texture<uchar, "
     "0x02,",
     "cuda12-texture-references"},
    {"mined: bytedance/ByteTransformer#7",
     "/workspace/ByteTransformer/bytetransformer/include/reduce.h(58): error: identifier "
     "\"__hadd2\" is undefined",
     "half-intrinsics-arch"},
    {"mined: bheisler/RustaCUDA#15",
     "note: /usr/bin/ld: cannot find -lcudart\n/usr/bin/ld: cannot find -lcublas",
     "linker-cudart-not-found"},
    {"mined: aim-uofa/AdelaiDet#118",
     "error command \u201c/usr/bin/nvcc\u201d failed with exit status1", "extension-nvcc-failed"},
    {"mined: facebookresearch/xformers#1168",
     "ERROR: Failed building wheel for xformers\nFailed to build xformers",
     "pip-wheel-build-failed"},
    {"mined: traveller59/spconv#698",
     "ERROR: Could not find a version that satisfies the requirement spconv-cu114 (from "
     "versions: none)\nERROR: No matching distribution found for spconv-cu114",
     "pip-no-matching-wheel"},
    {"mined: HandBrake/HandBrake#6506",
     "[hevc_nvenc @ 000001f2768adcc0] Driver does not support the required nvenc API version. "
     "Required: 12.2 Found: 12.1\n[hevc_nvenc @ 000001f2768adcc0] The minimum required Nvidia "
     "driver for nvenc is 551.76 or newer",
     "nvenc-driver-too-old"},
    {"mined: valkjsaaa/auto-bilibili-recorder#9",
     "[h264_nvenc @ 0x5601aa5b40c0] OpenEncodeSessionEx failed: out of memory (10)",
     "nvenc-session-limit"},
    {"mined: seruva19/kubin#8",
     "RuntimeError: Expected is_sm90 || is_sm8x || is_sm75 to be true, but got false.  (Could "
     "this error message be improved?  If so, please report an enhancement request to PyTorch.)",
     "flash-attn-gpu-check"},
    {"mined: facebookresearch/chameleon#39",
     "ptxas /tmp/compile-ptx-src-ac38de, line 523; error   : Feature '.bf16' requires .target "
     "sm_80 or higher",
     "ptx-bf16-needs-sm80"},
    {"mined: NVIDIA/cuml#5484",
     "RuntimeError: This cuDF installation is missing the necessary PTX files that are <=50.",
     "rapids-gpu-too-old"},
    {"mined: openmm/openmm#3656",
     "openmm.OpenMMException: There is no registered Platform called \"CUDA\"",
     "openmm-no-cuda-platform"},
    {"mined: colmap/colmap#987",
     "$ERROR: Dense stereo reconstruction requires CUDA, which is not available on your system.",
     "app-built-without-cuda"},
    {"mined: zju3dv/EnvGS#4",
     "/root/code/EnvGS/submodule/diff-surfel-tracing/optix_tracer/optix_wrapper.cpp:175 Optix "
     "Error: 'Unsupported ABI version'",
     "optix-driver"},
    {"mined: NVIDIA/TransformerEngine#1159",
     "AssertionError: Device compute capability 8.9 or higher required for FP8 execution.",
     "library-arch-gate"},
    {"mined: openmm/NNPOps#96",
     "Encountered problems while solving:\n  - nothing provides __cuda needed by "
     "pytorch-1.13.1-cuda112py310he33e0d6_200",
     "conda-cuda-virtual-package"},
    {"mined: myshell-ai/OpenVoice#83",
     "PackagesNotFoundError: The following packages are not available from current channels:\n\n"
     "  - cudatoolkit=11.7",
     "conda-package-not-found"},
    {"mined: rapidsai/cugraph#3057",
     "  CuPy may not function correctly because multiple CuPy packages are installed\n  in your "
     "environment:\n\n    cupy, cupy-cuda11x",
     "cupy-multiple-packages"},
    {"mined: NVIDIA/nvidia-docker#1454",
     "Using default tag: latest\nError response from daemon: manifest for nvidia/cuda:latest not "
     "found: manifest unknown: manifest unknown",
     "cuda-image-tag-not-found"},
    {"mined: vllm-project/vllm#17238",
     "ERROR 04-27 11:08:32 [core.py:340] ValueError: No available memory for the cache blocks. Try "
     "increasing `gpu_memory_utilization` when initializing the engine.",
     "vllm-no-kv-cache-memory"},
    {"mined: astral-sh/uv#12620",
     "error: Distribution `markupsafe==3.0.2 @ registry+https://download.pytorch.org/whl/cu118` "
     "can't be installed because it doesn't have a source distribution or wheel for the current "
     "platform",
     "uv-pytorch-index-strategy"},
    {"mined: InternLM/lmdeploy#340",
     "RuntimeError: [TM][ERROR] CUDA runtime error: API call is not supported in the installed "
     "CUDA driver /lmdeploy/src/turbomind/utils/allocator.h:246",
     "driver-insufficient"},
    {"mined: aTrainTranscription/aTrain#106",
     "The following error occured:\ncuBLAS failed with status CUBLAS STATUS NOT SUPPORTED",
     "cublas-not-supported"},
};

TEST(KnowledgeBase, BuiltinParsesAndEveryModeIsSourced) {
  const auto& kb = KnowledgeBase::builtin();
  ASSERT_EQ(kb.modes().size(), 154u);
  std::set<std::string> ids;
  for (auto& m : kb.modes()) {
    EXPECT_TRUE(ids.insert(m.id).second) << "duplicate id " << m.id;
    EXPECT_FALSE(m.patterns.empty()) << m.id;
    EXPECT_FALSE(m.cause.empty()) << m.id;
    EXPECT_FALSE(m.fix.empty()) << m.id;
    EXPECT_FALSE(m.confirm.empty()) << m.id;
    EXPECT_FALSE(m.reference.empty()) << m.id;
  }
}

TEST(KnowledgeBase, EveryFieldReportAndCommonFailureIsExplained) {
  const auto& kb = KnowledgeBase::builtin();
  std::set<std::string> covered;
  for (auto& c : kCases) {
    SCOPED_TRACE(c.report);
    auto matches = kb.match(c.text);
    ASSERT_FALSE(matches.empty());
    EXPECT_EQ(matches.front().mode->id, c.mode);
    covered.insert(matches.front().mode->id);
  }
  // Every mode of the knowledge base is exercised by at least one real text: these cases or the
  // corpus of texts from public threads (corpus_test.cpp).
  for (auto* name : {"real_errors.jsonl", "fresh_errors.jsonl"}) {
    std::ifstream corpus(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/explain/corpus/" + name);
    for (std::string line; std::getline(corpus, line);)
      if (!line.empty())
        covered.insert(nlohmann::json::parse(line).at("expect").get<std::string>());
  }
  for (auto& m : kb.modes()) EXPECT_TRUE(covered.count(m.id)) << m.id << " has no test text";
  // Every field-report entry 1-22 has a case.
  for (int i = 1; i <= 22; ++i) {
    std::string tag = "#" + std::to_string(i) + " ";
    bool found = false;
    for (auto& c : kCases) found |= std::string(c.report).rfind(tag, 0) == 0;
    EXPECT_TRUE(found) << "field report entry " << i;
  }
}

TEST(KnowledgeBase, LinesAndOrderInALog) {
  const auto& kb = KnowledgeBase::builtin();
  std::string log =
      "Loading model...\n\n"
      "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'\n"
      "falling back\n"
      "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
      "RuntimeError: CUDA error: no kernel image is available for execution on the device\n";
  auto m = kb.match(log);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].mode->id, "ptxas-unknown-arch");
  EXPECT_EQ(m[0].line, 3u);
  EXPECT_EQ(m[1].mode->id, "no-kernel-image");
  EXPECT_EQ(m[1].line, 5u);  // each mode once, at its first line
  EXPECT_EQ(m[1].matched, "no kernel image is available for execution on the device");
  EXPECT_TRUE(kb.match("Everything went fine.\nloss=0.31").empty());
  EXPECT_TRUE(kb.match("").empty());
  EXPECT_TRUE(kb.match(std::string(100000, 'x')).empty());  // a long line without newline
}

TEST(KnowledgeBase, BadDataIsAnError) {
  EXPECT_FALSE(KnowledgeBase::from_json("not json").ok());
  EXPECT_FALSE(KnowledgeBase::from_json(R"({"modes": [{"title": "no id"}]})").ok());
  auto bad = KnowledgeBase::from_json(R"({"modes": [{"id": "x", "patterns": ["(unclosed"]}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().what.find("failure mode x: bad pattern '(unclosed'"), std::string::npos);
}

TEST(Explain, SpecificToThisMachineWithDoctorFindings) {
  doctor::DoctorReport r;
  doctor::Finding f;
  f.severity = doctor::Severity::kError;
  f.id = "torch-no-image";
  f.title = "torch 2.7.0+cu126 has no code for GeForce RTX 5090 (sm_120)";
  f.evidence = {"device code found: sm_80 sm_90"};
  f.fix_commands = {
      "pip install --force-reinstall torch torchvision torchaudio --index-url "
      "https://download.pytorch.org/whl/cu128"};
  r.findings.push_back(f);
  doctor::Finding unrelated;
  unrelated.id = "tf32";
  r.findings.push_back(unrelated);
  auto e = explain_text("CUDA error: no kernel image is available for execution on the device",
                        KnowledgeBase::builtin(), &r);
  ASSERT_EQ(e.matches.size(), 1u);
  ASSERT_EQ(e.on_this_machine[0].size(), 1u);
  EXPECT_EQ(e.on_this_machine[0][0].id, "torch-no-image");
  auto text = render_explain_text(e, Style::plain());
  EXPECT_NE(text.find("here: [error] torch 2.7.0+cu126 has no code for GeForce RTX 5090 (sm_120)"),
            std::string::npos);
  EXPECT_NE(text.find("$ pip install --force-reinstall torch torchvision torchaudio --index-url "
                      "https://download.pytorch.org/whl/cu128"),
            std::string::npos);
  auto j = explain_to_json(e, {"smcompat", "explain"});
  EXPECT_EQ(j["schema"], "smcompat.explain/1");
  EXPECT_EQ(j["matches"][0]["id"], "no-kernel-image");
  EXPECT_EQ(j["matches"][0]["on_this_machine"][0]["id"], "torch-no-image");
  // Without the doctor: no "here" lines, JSON says so.
  auto plain = explain_text("CUDA error: no kernel image is available for execution on the device",
                            KnowledgeBase::builtin(), nullptr);
  EXPECT_EQ(render_explain_text(plain, Style::plain()).find("here:"), std::string::npos);
  EXPECT_TRUE(explain_to_json(plain, {})["matches"][0]["on_this_machine"].is_null());
}

}  // namespace
}  // namespace smcompat::explain

namespace smcompat::explain {
namespace {

// Through the CLI: the explanation names this machine's torch and the exact pip command.
TEST(ExplainCli, SpecificToAnEnvironment) {
  if (!smcompat::testing::have_fixtures())
    GTEST_SKIP() << smcompat::testing::doctor_fixtures_missing();
  smcompat::testing::TempDir tmp;
  smcompat::testing::FakeEnv env(tmp.path(), "venv");
  env.add_torch("2.7.0+cu126", "12.6", "k_80_90");
  auto [rc, out] = smcompat::testing::run_command(
      std::string("NO_COLOR=1 LD_LIBRARY_PATH=/nonexistent '") + SMCOMPAT_CLI +
      "' explain --no-active --python '" + env.prefix() +
      "' --gpu 'RTX 5090' 'RuntimeError: CUDA error: no kernel image is available for execution on "
      "the device' 2>/dev/null");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("here: [error] torch 2.7.0+cu126 has no code for GeForce RTX 5090 (sm_120)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("$ pip install --force-reinstall torch torchvision torchaudio --index-url "
                     "https://download.pytorch.org/whl/cu128"),
            std::string::npos);
}

}  // namespace
}  // namespace smcompat::explain
