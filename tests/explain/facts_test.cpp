// What explain reads from a text before it matches anything (explain/facts.hpp), and the fixes
// it computes from those facts (src/explain/fixes.cpp): every number from the GPU the text names,
// every remedy from the tool that wrote the line. The texts are shaped after the real ones in
// tests/explain/corpus; the expected numbers come from data/catalog.json's rows.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "corpus_files.hpp"
#include "smcompat/explain/explain.hpp"
#include "support/cases.hpp"

namespace smcompat::explain {
namespace {

Explanation explain(const std::string& text) {
  return explain_text(text, KnowledgeBase::builtin(), nullptr);
}

// `needle` in `text`; on failure the text is shown.
::testing::AssertionResult has(const std::string& text, const std::string& needle) {
  if (text.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << needle << "' is not in: " << text;
}

std::string value(const Explanation& e, const char* what) {
  const VersionSeen* v = e.facts.version(what);
  return v ? v->value : "";
}

// The first match's mode ("" when nothing matched).
std::string first_mode(const Explanation& e) {
  return e.matches.empty() ? "" : e.matches.front().mode->id;
}

// Everything said for the first match: the fix and the computed specifics.
std::string fix_text(const Explanation& e) {
  return e.matches.empty() ? "" : e.matches.front().full_fix();
}

using smcompat::testing::expect_mapped;

TEST(LogLines, PrefixesColoursAndProgressAreRemoved) {
  expect_mapped(normalise_log_line,
                {{"\x1b[31mRuntimeError\x1b[0m: CUDA error", "RuntimeError: CUDA error"},
                 {"2024-05-01 12:00:00.123456: E tensorflow/core/x.cc:1] boom",
                  "tensorflow/core/x.cc:1] boom"},
                 {"I0501 12:00:00.123456 1234 cuda_dnn.cc:417] Loaded runtime", "Loaded runtime"},
                 {"[2025-01-02T03:04:05Z] ERROR: no kernel image", "no kernel image"},
                 {"E   RuntimeError: CUDA error", "RuntimeError: CUDA error"},
                 {" 10%|#  | 1/10\r100%|####| 10/10", "100%|####| 10/10"},
                 {"\tplain text  ", "plain text"},
                 {"nvcc fatal : Value \u2018sm_75\u2019 is not defined for option \u201cgpu\u201d",
                  "nvcc fatal : Value 'sm_75' is not defined for option \"gpu\""}});
}

TEST(LogLines, VersionNotations) {
  expect_mapped(cudnn_version_text, {{"8600", "8.6.0"},
                                     {"8902", "8.9.2"},
                                     {"90100", "9.1.0"},
                                     {"8.6.0", "8.6.0"},
                                     {"8, 7, 0", "8.7.0"},
                                     {"9.8.0.", "9.8.0"}});
  expect_mapped(library_version_text,
                {{"12200", "12.2.0"}, {"12002", "12.0.2"}, {"120103", "12.1.3"}, {"11.1", "11.1"}});
  expect_mapped(cuda_of_wheel_tag,
                {{"cu118", "11.8"}, {"cu128", "12.8"}, {"cu92", "9.2"}, {"cpu", ""}, {"cuda", ""}});
}

TEST(Facts, ToolsVersionsAndGpus) {
  auto e = explain(
      "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
      "ProcessGroupNCCL.cpp:1275, unhandled cuda error, NCCL version 2.14.3\n"
      "PyTorch version: 2.0.1+cu118\n"
      "GPU 0: NVIDIA GeForce RTX 5090\n");
  EXPECT_TRUE(e.facts.has_tool("nccl"));
  EXPECT_TRUE(e.facts.has_tool("pytorch"));
  EXPECT_EQ(value(e, "torch"), "2.0.1+cu118");
  EXPECT_EQ(value(e, "torch_cuda"), "11.8");
  EXPECT_EQ(value(e, "nccl"), "2.14.3");
  ASSERT_NE(e.facts.gpu(), nullptr);
  EXPECT_EQ(e.facts.gpu()->cc->to_string(), "12.0");
  EXPECT_EQ(e.facts.gpu()->catalog_name, "GeForce RTX 5090");
}

// The compiled extension a text shows failing, however its path or import names it (real texts:
// open-mmlab/mmcv#1734, facebookresearch/detectron2#2557, ostris/ai-toolkit#242), and the line
// that writer's fix gets from it.
TEST(Facts, ExtensionsFromPathsAndImports) {
  auto cut = explain(
      "/mmcv/_ext.cpython-37m-x86_64-linux-gnu.so: undefined symbol: _ZNK2at6Tensor7is_cudaEv");
  EXPECT_EQ(cut.facts.extensions, std::vector<std::string>{"mmcv"});
  EXPECT_NE(fix_text(cut).find("mmcv-full"), std::string::npos) << fix_text(cut);
  auto imported = explain(
      "from detectron2 import _C\nImportError: libcudart.so.11.0: cannot open shared object "
      "file: No such file or directory");
  EXPECT_EQ(imported.facts.extensions, std::vector<std::string>{"detectron2"});
  EXPECT_EQ(first_mode(imported), "missing-cuda-library");
  EXPECT_NE(fix_text(imported).find("The extension is detectron2"), std::string::npos)
      << fix_text(imported);
  auto top = explain(
      "ImportError: /opt/conda/lib/python3.10/site-packages/fused_layer_norm_cuda.cpython-310-"
      "x86_64-linux-gnu.so: undefined symbol: _ZN2at4_ops19empty_memory_format4callE");
  EXPECT_EQ(top.facts.extensions, std::vector<std::string>{"apex"});
  EXPECT_NE(fix_text(top).find("uninstall apex"), std::string::npos) << fix_text(top);
  // torch's own _C is torch, not an extension.
  auto own = explain(
      "ImportError: /usr/lib/python3/dist-packages/torch/_C.cpython-311-x86_64-"
      "linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi");
  EXPECT_TRUE(own.facts.extensions.empty());
}

// The numbers a toolchain's refusal states become the fix: the newest gcc this nvcc accepts
// (cjlin1/simpleNN#10), and for a refused architecture the lists to edit and the text's GPU's own
// architecture (pmh47/dirt#86 with the GPU named).
TEST(ComputedFix, ToolchainRefusalsNameTheirNumbers) {
  auto gcc = explain(
      "/usr/local/cuda-9.0/bin/..//include/crt/host_config.h:119:2: error: #error -- unsupported "
      "GNU version! gcc versions later than 6 are not supported!");
  EXPECT_EQ(value(gcc, "gcc_max"), "6");
  EXPECT_NE(fix_text(gcc).find("install gcc-6 and g++-6"), std::string::npos) << fix_text(gcc);
  auto arch = explain(
      "Error during make: nvcc fatal : Value 'sm_20' is not defined for option "
      "'gpu-architecture'\nGPU 0: NVIDIA GeForce RTX 2060");
  EXPECT_EQ(value(arch, "arch_refused"), "20");
  EXPECT_NE(fix_text(arch).find("-gencode/-arch flags in the project's CMakeLists.txt"),
            std::string::npos)
      << fix_text(arch);
  EXPECT_NE(fix_text(arch).find("use compute_75/sm_75 (75)"), std::string::npos) << fix_text(arch);
}

// A refused architecture with both a first and a last CUDA (Pascal: 8.0 through 12.9) is refused
// by toolkits on either side; the text's toolkit says which (weiliu89/caffe#602, vetter/shoc#52,
// apache/tvm#4839).
TEST(ComputedFix, RefusedArchitectureSideComesFromTheToolkit) {
  const char* refusal = "nvcc fatal   : Unsupported gpu architecture 'compute_61'";
  auto caffe = explain(std::string("NVCC src/caffe/layers/cudnn_softmax_layer.cu\n") + refusal);
  EXPECT_EQ(first_mode(caffe), "nvcc-unsupported-arch");
  EXPECT_TRUE(has(fix_text(caffe), "compute_61 is built by CUDA 8.0 through 12.9"));
  EXPECT_TRUE(has(fix_text(caffe), "Makefile.config's CUDA_ARCH"));
  auto old_nvcc = explain(std::string("Cuda compilation tools, release 7.5, V7.5.17\n") + refusal);
  EXPECT_TRUE(has(fix_text(old_nvcc), "compute_61 needs CUDA 8.0 or newer (the text's is 7.5)"));
  auto new_nvcc =
      explain(std::string("Cuda compilation tools, release 13.0, V13.0.48\n") + refusal);
  EXPECT_TRUE(has(fix_text(new_nvcc), "sm_61 is not built by any CUDA after 12.9"));
  auto tesla = explain("nvcc fatal   : Unsupported gpu architecture 'compute_12'");
  EXPECT_TRUE(has(fix_text(tesla), "sm_12 is not built by any CUDA after 6.5"));
  // Typographic quotes from a forum paste read as nvcc's own.
  auto quoted = explain(
      "Nvcc fatal : Value \u2018sm_75\u2019 is not defined for option "
      "\u2018gpu-architecture\u2019");
  EXPECT_EQ(first_mode(quoted), "nvcc-unsupported-arch");
  EXPECT_TRUE(has(fix_text(quoted), "compute_75 needs CUDA 10.0 or newer"));
}

// A failed extension build names its nvcc: a distribution's /usr/bin/nvcc, or a versioned
// toolkit against torch's CUDA (aim-uofa/AdelaiDet#118, zju3dv/snake#111).
TEST(ComputedFix, FailedNvccStepNamesItsToolkit) {
  auto distro = explain("error: command '/usr/bin/nvcc' failed with exit status 1");
  EXPECT_EQ(first_mode(distro), "extension-nvcc-failed");
  EXPECT_TRUE(has(fix_text(distro), "export PATH=/usr/local/cuda/bin:$PATH"));
  auto versioned = explain(
      "torch 1.1.0 CUDA used to build PyTorch: 10.0\nerror: command "
      "'/usr/local/cuda-9.0/bin/nvcc' failed with exit status 1");
  EXPECT_EQ(value(versioned, "cuda_toolkit"), "9.0");
  EXPECT_TRUE(has(fix_text(versioned),
                  "torch was built with CUDA 10.0 and the toolkit found is "
                  "CUDA 9.0"));
  // A specific error in the same log comes first: the nvcc line is only the wrapper.
  auto gcc = explain(
      "#error -- unsupported GNU version! gcc versions later than 6 are not supported!\nerror: "
      "command '/usr/local/cuda/bin/nvcc' failed with exit status 1");
  EXPECT_EQ(first_mode(gcc), "host-compiler-unsupported");
}

// conda's solver states the build's __cuda requirement and the driver's __cuda: the driver that
// CUDA needs, and no container-toolkit override (mamba-org/mamba#969).
TEST(ComputedFix, CondaCudaConstraintNamesTheDriver) {
  auto e = explain(
      "Encountered problems while solving:\n  - package cudatoolkit-11.0.3-h15472ef_6 has "
      "constraint __cuda >=11.0 conflicting with __cuda-10.2-0");
  EXPECT_EQ(first_mode(e), "conda-cuda-virtual-package");
  EXPECT_EQ(value(e, "cuda_required"), "11.0");
  EXPECT_EQ(value(e, "cuda_driver"), "10.2");
  EXPECT_TRUE(has(fix_text(e), "CUDA 11.0 needs NVIDIA driver 450.36.06 or newer"));
  EXPECT_FALSE(has(fix_text(e), "NVIDIA_DISABLE_REQUIRES"));
}

// A data-center GPU's full name picks its own catalog row (ultralytics/yolov5#4924).
TEST(Facts, GpuVariantNamesTheirOwnRow) {
  auto e = explain(
      "A100-SXM4-40GB with CUDA capability sm_80 is not compatible with the current PyTorch "
      "installation.");
  ASSERT_NE(e.facts.gpu(), nullptr);
  EXPECT_EQ(e.facts.gpu()->catalog_name, "A100 40GB SXM");
  auto unlisted = explain("GPU 0: NVIDIA H100-SXM5-94GB");
  ASSERT_NE(unlisted.facts.gpu(), nullptr);
  EXPECT_EQ(unlisted.facts.gpu()->cc->to_string(), "9.0");
}

// TensorFlow's Windows loader names the CUDA library's DLL; its number is the CUDA release
// (volotat/DiffMorph#19).
TEST(ComputedFix, WindowsDllNamesTheCuda) {
  auto e = explain("\"Could not load dynamic library 'cudart64_110.dll'\"");
  EXPECT_EQ(first_mode(e), "missing-cuda-library");
  EXPECT_TRUE(has(fix_text(e), "cudart64_110.dll ships with CUDA 11.0 to 11.8"));
}

// torchvision's and PyG's import-time check of torch's CUDA against their own (rusty1s/
// pytorch_sparse#86; the torchvision wording is torchvision/extension.py's).
TEST(ComputedFix, TorchPackageBuiltForAnotherCuda) {
  auto sparse = explain(
      "RuntimeError: Detected that PyTorch and torch_sparse were compiled with different CUDA "
      "versions. PyTorch has CUDA version 10.2 and torch_sparse has CUDA version 11.1. Please "
      "reinstall the torch_sparse that matches your PyTorch install.");
  EXPECT_EQ(first_mode(sparse), "torch-package-cuda-mismatch");
  EXPECT_EQ(value(sparse, "torch_cuda"), "10.2");
  EXPECT_EQ(value(sparse, "package_cuda"), "11.1");
  EXPECT_TRUE(has(fix_text(sparse), "install that package's build for CUDA 10.2 (cu102)"));
  auto vision = explain(
      "torch==2.1.0+cu121\nRuntimeError: Detected that PyTorch and torchvision were compiled with "
      "different CUDA major versions. PyTorch has CUDA Version=12.1 and torchvision has CUDA "
      "Version=11.8. Please reinstall the torchvision that matches your PyTorch install.");
  EXPECT_EQ(first_mode(vision), "torch-package-cuda-mismatch");
  EXPECT_TRUE(has(fix_text(vision), "https://data.pyg.org/whl/torch-2.1.0+cu121.html"));
  EXPECT_TRUE(has(fix_text(vision), "--index-url https://download.pytorch.org/whl/cu121"));
}

TEST(Facts, CudnnAsEachFrameworkWritesIt) {
  struct Case {
    const char* tool;
    const char* text;
    const char *built, *found;
  };
  const Case cases[] = {
      {"pytorch",
       "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8700) but "
       "found runtime version (8500).",
       "8.7.0", "8.5.0"},
      {"tensorflow",
       "2023-03-28 20:24:31.407336: E tensorflow/stream_executor/cuda/cuda_dnn.cc:417] Loaded "
       "runtime CuDNN library: 7301 (compatibility version 7300) but source was compiled with 7003",
       "7.0.3", "7.3.1"},
      {"jax",
       "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization "
       "failed. Found cuDNN version 8600, but JAX was built against version 8800",
       "8.8.0", "8.6.0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.tool);
    auto e = explain(c.text);
    EXPECT_TRUE(e.facts.has_tool(c.tool));
    EXPECT_EQ(value(e, "cudnn_built"), c.built);
    EXPECT_EQ(value(e, "cudnn_found"), c.found);
  }
}

// Versions stated in the other ways real texts state them, and the fix computed from them.
TEST(Facts, CudnnAndLibraryVersionsOfRealTexts) {
  struct Case {
    const char* url;
    const char* text;
    std::vector<std::pair<const char*, const char*>> facts;
    const char* mode;
    std::vector<std::string> says;
  };
  const Case cases[] = {
      {"https://github.com/gladiaio/gladia/issues/928",
       "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 5, 0) but "
       "found runtime version (8, 4, 1). PyTorch already comes bundled with cuDNN.",
       {{"cudnn_built", "8.5.0"}, {"cudnn_found", "8.4.1"}},
       "cudnn-version-mismatch",
       {"PyTorch was built against cuDNN 8.5.0 but loaded an older one, cuDNN 8.4.1",
        "install cuDNN 8.5"}},
      {"https://github.com/PaddlePaddle/Paddle/issues/45112",
       "W0814 15:01:53.702119 31504 gpu_resources.cc:201] WARNING: device: . The installed Paddle "
       "is compiled with CUDNN 8.4, but CUDNN version in your machine is 8.3, which may cause "
       "serious incompatible bug.\nCould not load library cudnn_cnn_infer64_8.dll. Error code 193",
       {{"cudnn_built", "8.4"}, {"cudnn_found", "8.3"}},
       "cudnn-version-mismatch",
       {"install cuDNN 8.4"}},
      {"https://github.com/conda-forge/jax-feedstock/issues/149",
       "CUDA backend failed to initialize: Unable to use CUDA because of the following issues "
       "with CUDA components:\nOutdated cuDNN installation found.\nVersion JAX was built "
       "against: 8907\nMinimum supported: 9100\nInstalled version: 8907\nThe local installation "
       "version must be no lower than 9100..",
       {{"cudnn_built", "8.9.7"}, {"cudnn_min", "9.1.0"}, {"cudnn_found", "8.9.7"}},
       "cudnn-version-mismatch",
       {"JAX needs cuDNN 9.1.0 or newer and found cuDNN 8.9.7"}},
      {"https://github.com/jax-ml/jax/issues/18027",
       "CUDA backend failed to initialize: Unable to use CUDA because of the following issues "
       "with CUDA components:\nOutdated cuSPARSE installation found.\nVersion JAX was built "
       "against: 12200\nMinimum supported: 12100\nInstalled version: 12002\nThe local "
       "installation version must be no lower than 12100.",
       {{"cusparse_built", "12.2.0"}, {"cusparse_min", "12.1.0"}, {"cusparse_found", "12.0.2"}},
       "jax-outdated-cuda-library",
       {"JAX needs cuSPARSE 12.1.0 or newer and loaded cuSPARSE 12.0.2",
        "pip install -U \"nvidia-cusparse-cu12>=12.1\""}},
      {"https://github.com/NVIDIA/TensorRT-LLM/issues/23",
       "ERROR: This container was built for NVIDIA Driver Release 535.86 or later, but\n"
       "       version 510.85.02 was detected and compatibility mode is UNAVAILABLE.",
       {{"driver_required", "535.86"}, {"driver", "510.85.02"}},
       "container-cuda-requirement",
       {"needs NVIDIA driver 535.86 or newer; the host has 510.85.02",
        "Driver 510.85.02 runs CUDA 11.6 and older"}},  // catalog: CUDA 11.7 needs 515.43.04
      // A soname is not a CUDA version: libcusolver.so.10 is CUDA 10.1 to 11.0's, .so.11 is
      // CUDA 11.1's and newer (release notes' component table, data/failure_modes.json).
      {"https://github.com/Visual-Behavior/detr-tensorflow/issues/8",
       "Could not load dynamic library 'libcusolver.so.10'; dlerror: libcusolver.so.10",
       {},
       "missing-cuda-library",
       {"libcusolver.so.10 ships with CUDA 10.1 to 11.0"}},
      {"https://github.com/jax-ml/jax/issues/8289",
       "W external/org_tensorflow/tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
       "Could not load dynamic library 'libcusolver.so.11'; dlerror: libcusolver.so.11: cannot "
       "open shared object file: No such file or directory",
       {},
       "missing-cuda-library",
       {"libcusolver.so.11 ships with CUDA 11.1 to 12.9", "pip install nvidia-cusolver-cu12"}},
      {"https://github.com/fo40225/tensorflow-windows-wheel/issues/185",
       "W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic "
       "library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found",
       {},
       "missing-cuda-library",
       {"cudart64_101.dll ships with CUDA 10.1"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.url);
    auto e = explain(c.text);
    for (auto [what, v] : c.facts) EXPECT_EQ(value(e, what), v) << what;
    EXPECT_EQ(first_mode(e), c.mode);
    for (const auto& s : c.says) EXPECT_NE(fix_text(e).find(s), std::string::npos) << fix_text(e);
    EXPECT_EQ(fix_text(e).find("CUDA 101"), std::string::npos) << fix_text(e);
  }
}

TEST(Facts, GpusOutsideTheCatalogByName) {
  auto pascal = explain("GPU: NVIDIA GeForce GTX 1080 Ti\nout of resource: shared memory");
  ASSERT_NE(pascal.facts.gpu(), nullptr);
  EXPECT_EQ(pascal.facts.gpu()->cc->to_string(), "6.1");
  auto kepler = explain("Tesla K80 with CUDA capability sm_37 is not compatible");
  ASSERT_NE(kepler.facts.gpu(), nullptr);
  EXPECT_EQ(kepler.facts.gpu()->cc->to_string(), "3.7");
  auto stated = explain("Found GPU0 NVIDIA Foo which is of cuda capability 3.5.");
  ASSERT_NE(stated.facts.gpu(), nullptr);
  EXPECT_EQ(stated.facts.gpu()->cc->to_string(), "3.5");
}

TEST(Facts, ConflictingStatementsAreSaid) {
  auto e = explain("torch==2.1.0+cu121\nlater: torch 2.0.1+cu118\nno kernel image is available");
  ASSERT_FALSE(e.conflicts.empty());
  EXPECT_NE(e.conflicts.front().find("2.1.0+cu121, 2.0.1+cu118"), std::string::npos)
      << e.conflicts.front();
}

// ---- fixes computed from the facts --------------------------------------------------------

TEST(ComputedFix, ContainerRequirementNamesTheDriver) {
  auto e = explain(
      "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update "
      "your driver to a newer version, or use an earlier cuda container: unknown.");
  EXPECT_EQ(first_mode(e), "container-cuda-requirement");
  EXPECT_EQ(value(e, "cuda_required"), "12.4");
  EXPECT_NE(fix_text(e).find("550.54.14"), std::string::npos) << fix_text(e);  // catalog row
  EXPECT_NE(fix_text(e).find("NVIDIA_DISABLE_REQUIRES"), std::string::npos);
  // The override's caution is the container mode's, with or without the toolkit's name.
  EXPECT_TRUE(has(fix_text(e), "it only skips the container toolkit's check"));
  auto bare = explain("unsupported CUDA version: driver 11.4 < image 12.2");
  EXPECT_TRUE(has(fix_text(bare), "it only skips the container toolkit's check"));
}

// A text, what its fix must say (numbers from the catalog rows of the GPU or CUDA it names),
// and what it must not (another GPU's figures).
struct FixCase {
  const char* what;
  const char* text;
  std::vector<std::string> says, never;
};

const FixCase kFixCases[] = {
    {"an old container requirement uses the older release rows",
     "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=11.0",
     {"450.36.06"},
     {}},
    {"a DDP job on an RTX 5090 with torch 2.0.1+cu118: NCCL reports it, the torch is too old",
     "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1275, unhandled "
     "cuda error\nPyTorch version: 2.0.1+cu118\nGPU 0: NVIDIA GeForce RTX 5090\n",
     {"older than CUDA 12.8", "cu128"},
     {}},
    {"older toolkits write the requirement with spaces (NVIDIA/nvidia-docker#753)",
     "nvidia-container-cli: requirement error: unsatisfied condition: cuda >= 9.2",
     {"CUDA 9.2 needs NVIDIA driver 396.26"},
     {}},
    {"the same DDP job naming torch 2.0.1 without its CUDA: a release older than the whole wheel "
     "index, whose default wheels carry sm_120 only from a later release",
     "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1275, unhandled "
     "cuda error\ntorch 2.0.1\nGPU 0: NVIDIA GeForce RTX 5090\n",
     {"torch 2.0.1 predates every release in smcompat's wheel index", "CUDA 12.8 or newer",
      "whl/cu128"},
     {}},
    {"a GPU named beside its capability is named in the fix",
     "NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current "
     "PyTorch installation.",
     {"GeForce RTX 3090 (sm_86)", "built with CUDA 11.0 or newer"},
     {"capability 8.6 (sm_86)"}},
    {"Pascal's shared memory (sm_61: 48 KiB opt-in), never the RTX 50 figure",
     "GPU: NVIDIA GeForce GTX 1080\ntriton.runtime.errors.OutOfResources: out of resource: "
     "shared memory, Required: 65536, Hardware limit: 49152.",
     {"49152 bytes"},
     {"101376"}},
    {"Blackwell's shared memory",
     "NVIDIA GeForce RTX 5090\nout of resource: shared memory, Required: 135168, Hardware limit: "
     "101376",
     {"101376 bytes"},
     {}},
    {"architecture flags for a GTX 1080",
     "GTX 1080\nnvcc fatal   : Unsupported gpu architecture 'compute_120'",
     {"CMAKE_CUDA_ARCHITECTURES=61"},
     {"CMAKE_CUDA_ARCHITECTURES=120"}},
    {"a K80 that no CUDA 12 toolkit builds",
     "Tesla K80\nnvcc fatal   : Unsupported gpu architecture 'compute_37'",
     {"no CUDA toolkit after 11.8 builds sm_37"},
     {}},
    {"a missing cuDNN 9",
     "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, "
     "libcudnn_ops.so}\nInvalid handle. Cannot load symbol cudnnCreateTensorDescriptor",
     {"cuDNN 9", "libcudnn9-cuda-12"},
     {}},
    {"cuDNN 8's zlib on Windows",
     "Could not locate zlibwapi.dll. Please make sure it is in your library path!",
     {"zlib"},
     {}},
};

// The torch a driver or a GPU needs, from PyTorch's channel table (torch_releases): the text of
// shiyu-coder/Kronos#71 (driver for CUDA 11.4; the thread pinned a CUDA 11 torch) and of
// meituan/YOLOv6#350 (an RTX 3080 with a torch for sm_37..sm_70).
TEST(ComputedFix, TorchForTheDriverAndForTheGpuFromTheChannelTable) {
  auto driver = explain(
      "/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:182: UserWarning: CUDA "
      "initialization: The NVIDIA driver on your system is too old (found version 11040).");
  EXPECT_EQ(first_mode(driver), "driver-insufficient");
  const std::string d = fix_text(driver);
  EXPECT_NE(d.find("torch 1.12.1 (CUDA 11.3): pip install torch==1.12.1+cu113 --extra-index-url "
                   "https://download.pytorch.org/whl/cu113"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("CUDA 11 minor-version compatibility"), std::string::npos) << d;
  EXPECT_NE(d.find("torch==2.7.1+cu118"), std::string::npos) << d;

  auto gpu = explain(
      "NVIDIA GeForce RTX 3080 Laptop GPU with CUDA capability sm_86 is not compatible with the "
      "current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities "
      "sm_37 sm_50 sm_60 sm_70.");
  const std::string g = fix_text(gpu);
  EXPECT_NE(g.find("The first torch release with such a wheel is torch 1.7.1 (CUDA 11.0)"),
            std::string::npos)
      << g;
  EXPECT_NE(g.find("-f https://download.pytorch.org/whl/torch_stable.html"), std::string::npos);

  // A GPU the newest wheels dropped (Pascal after torch 2.7's default cu126 wheel): the newest
  // release in the shipped wheel index that still carries it.
  auto pascal = explain(
      "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the "
      "device\nPyTorch version: 2.8.0+cu128\nGPU 0: NVIDIA GeForce GTX 1050");
  const std::string p = fix_text(pascal);
  EXPECT_NE(p.find("torch 2.7.1 is the newest release in smcompat's wheel index with native code "
                   "for sm_61 (CUDA 12.6 wheel)"),
            std::string::npos)
      << p;

  // A text no torch wrote gets no torch line: a container's requirement names the driver only.
  auto container = explain(
      "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update "
      "your driver to a newer version, or use an earlier cuda container");
  EXPECT_EQ(fix_text(container).find("For torch"), std::string::npos);
}

// The std::string ABI of the symbol an extension misses: Dao-AILab/flash-attention#975's
// (std::__cxx11, the thread's cxx11abiFALSE wheel) and CharlesShang/DCNv2#19's (the old "Ss").
TEST(ComputedFix, MissingSymbolTellsTheStringAbi) {
  auto new_abi = explain(
      "ImportError: /env/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-"
      "gnu.so: undefined symbol: "
      "_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE");
  EXPECT_EQ(first_mode(new_abi), "torch-extension-abi-mismatch");
  EXPECT_NE(fix_text(new_abi).find("install the extension's cxx11abiFALSE wheel"),
            std::string::npos);
  ASSERT_EQ(new_abi.facts.symbols.size(), 1u);
  EXPECT_EQ(new_abi.facts.symbols[0].substr(0, 12), "_ZN3c105Erro");
  EXPECT_EQ(value(new_abi, "symbol"), "");  // a symbol is not a version
  // A C symbol is kept too, without the loader's "version" suffix.
  auto c_symbol = explain(
      "ImportError: libtorch_cuda.so: undefined symbol: cudaGetDriverEntryPointByVersion, "
      "version libcudart.so.12");
  EXPECT_EQ(c_symbol.facts.symbols, std::vector<std::string>{"cudaGetDriverEntryPointByVersion"});
  auto old_abi = explain(
      "ImportError: /home/admin/DCNv2/_ext.cpython-36m-x86_64-linux-gnu.so: undefined symbol: "
      "_ZN3c105ErrorC1ENS_14SourceLocationERKSs");
  const std::string o = fix_text(old_abi);
  EXPECT_NE(o.find("built with _GLIBCXX_USE_CXX11_ABI=0"), std::string::npos) << o;
  EXPECT_NE(o.find("cxx11abiTRUE"), std::string::npos) << o;
  // A symbol with no std::string says nothing about the ABI.
  auto neither = explain("undefined symbol: _ZN3c104cuda9SetDeviceEi");
  EXPECT_EQ(fix_text(neither).find("ABI's std::string"), std::string::npos);
}

TEST(ComputedFix, NumbersComeFromTheNamedGpuAndVersions) {
  for (const auto& c : kFixCases) {
    SCOPED_TRACE(c.what);
    std::string fix = fix_text(explain(c.text));
    for (const auto& s : c.says) EXPECT_NE(fix.find(s), std::string::npos) << fix;
    for (const auto& s : c.never) EXPECT_EQ(fix.find(s), std::string::npos) << fix;
  }
}

TEST(ComputedFix, A100WithATorchTooOldIsNotCalledAnOldGpu) {
  auto e = explain(
      "A100-SXM4-40GB with CUDA capability sm_80 is not compatible with the current PyTorch "
      "installation.\nThe current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 "
      "sm_70 sm_75.\ntorch 1.6.0+cu102");
  ASSERT_FALSE(e.matches.empty());
  const auto& m = e.matches.front();
  EXPECT_TRUE(m.context == nullptr || m.context->label.find("older GPU") == std::string::npos)
      << m.context->label;
  EXPECT_NE(m.full_fix().find("CUDA 10.2, older than CUDA 11.0"), std::string::npos)
      << m.full_fix();
}

TEST(ComputedFix, WrappedSymbolLinesAreJoined) {
  auto e = explain(
      "ImportError: /env/lib/python3.10/site-packages/mmcv/_ext.cpython-310-x86_64-linux-gnu.so: "
      "undefined symbol:\n_ZN3c104cuda20CUDACachingAllocator9allocatorE\n");
  EXPECT_EQ(first_mode(e), "torch-extension-abi-mismatch");
  EXPECT_NE(fix_text(e).find("mmcv"), std::string::npos) << fix_text(e);
}

// ---- a fix is only ever the remedy of the tool that wrote the line -------------------------

TEST(ToolFit, TensorFlowLogNeverGetsJaxOrPyTorchRemedies) {
  auto e = explain(
      "2021-06-01 10:00:00.000000: I tensorflow/stream_executor/platform/default/dso_loader.cc:53]"
      " Successfully opened dynamic library libcudart.so.11.0\n"
      "2021-06-01 10:00:01.000000: E tensorflow/stream_executor/cuda/cuda_dnn.cc:374] Loaded "
      "runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0.");
  ASSERT_FALSE(e.matches.empty());
  for (const auto& m : e.matches) {
    EXPECT_EQ(m.tool, "tensorflow") << m.mode->id;
    std::string fix = m.full_fix();
    EXPECT_EQ(fix.find("jax["), std::string::npos) << fix;
    EXPECT_EQ(fix.find("pip install --force-reinstall torch"), std::string::npos) << fix;
  }
}

TEST(ToolFit, OnnxRuntimeNoKernelImageIsNotTorchsChannel) {
  auto e = explain(
      "onnxruntime::CudaCall CUDA failure 209: no kernel image is available for execution on the "
      "device ; GPU=0 ; hostname=x ; file=onnxruntime/core/providers/cuda/cuda_call.cc");
  ASSERT_FALSE(e.matches.empty());
  const auto& m = e.matches.front();
  EXPECT_EQ(m.tool, "onnxruntime");
  EXPECT_EQ(m.full_fix().find("cu128"), std::string::npos) << m.full_fix();
  EXPECT_NE(m.full_fix().find("onnxruntime"), std::string::npos) << m.full_fix();
}

TEST(ToolFit, JaxCudnnTextGetsJaxsRemedy) {
  auto e = explain(
      "E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:417] Loaded runtime CuDNN library: "
      "8.5.0 but source was compiled with: 8.6.0.");
  ASSERT_FALSE(e.matches.empty());
  EXPECT_EQ(e.matches.front().tool, "jax");
  ASSERT_NE(e.matches.front().context, nullptr);
  EXPECT_EQ(e.matches.front().context->tool, "jax");
}

// Every pair of tools the fact reader knows: an error line that says nothing of its writer,
// after a line tool A wrote, never gets tool B's fix. The lines A writes are shaped after real
// logs; the error lines are real ones from the corpus (their URLs beside them) with the writer's
// log prefix removed, one for each failure mode that has tool-specific fixes. The same line after
// B's own line does get B's fix, so the matrix is not empty.
TEST(ToolFit, NoToolPairGetsTheOtherToolsFix) {
  const std::map<std::string, std::string> kWrites = {
      {"container-toolkit", "nvidia-container-cli: initialization error: load library failed"},
      {"llama.cpp", "ggml_cuda_init: found 1 CUDA devices:"},
      {"onnxruntime",
       "[E:onnxruntime:Default, provider_bridge_ort.cc:1480 TryGetProviderInfo_CUDA]"},
      {"tensorrt",
       "[TRT] [E] 1: [defaultAllocator.cpp::deallocate::61] Error Code 1: Cuda Runtime"},
      {"tensorflow",
       "I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened "
       "dynamic library libcudart.so.11.0"},
      {"jax", "File \"/env/lib/python3.10/site-packages/jax/_src/xla_bridge.py\", line 1"},
      {"triton", "File \"/env/lib/python3.10/site-packages/triton/compiler/compiler.py\", line 1"},
      {"nccl", "node1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>"},
      {"cupy", "File \"/env/lib/python3.10/site-packages/cupy/_core/core.pyx\", line 1"},
      {"bitsandbytes", "/env/lib/python3.10/site-packages/bitsandbytes/cextension.py:1: Warning"},
      {"xformers", "File \"/env/lib/python3.10/site-packages/xformers/ops/fmha/__init__.py\""},
      {"flash-attn", "File \"/env/lib/python3.10/site-packages/flash_attn/__init__.py\", line 3"},
      {"vllm", "File \"/env/lib/python3.10/site-packages/vllm/engine/llm_engine.py\", line 1"},
      {"sglang", "File \"/env/lib/python3.10/site-packages/sglang/srt/server.py\", line 1"},
      {"comfyui", "File \"C:\\ComfyUI\\execution.py\", line 151, in recursive_execute"},
      {"deepspeed", "File \"/env/lib/python3.10/site-packages/deepspeed/ops/op_builder/x.py\""},
      {"caffe",
       "F0524 10:00:00.000000  1234 common.cpp:152] Check failed: error == cudaSuccess (30 vs. 0)"},
      {"cmake", "CMake Error at CMakeLists.txt:12 (project):"},
      {"cuda-toolkit", "Cuda compilation tools, release 11.8, V11.8.89"},
      {"nvidia-driver", "NVIDIA-SMI 535.54.03   Driver Version: 535.54.03   CUDA Version: 12.2"},
      {"pytorch", "File \"/env/lib/python3.10/site-packages/torch/cuda/__init__.py\", line 1"},
  };
  const char* const kErrorLines[] = {
      // googlecolab/colabtools#2377
      "Device Variable Copying: no kernel image is available for execution on the device",
      // googlecolab/colabtools#1748, colmap/colmap#2232
      "nvcc fatal   : Unsupported gpu architecture 'compute_86'",
      "nvcc fatal   : Unsupported gpu architecture 'compute_native'",
      // Visual-Behavior/detr-tensorflow#8
      "Could not load dynamic library 'libcusolver.so.10'; dlerror: libcusolver.so.10",
      // nicehash/excavator#54
      "CUDA error 'a PTX JIT compilation failed' in func 'get_device_bus_id_str' line 79",
      // ggml-org/llama.cpp#18363
      "error   : Instruction 'mma with block scale' not supported on .target 'sm_121'",
      // YINYIPENG-EN/handpose_and_yolo#1, cupy/cupy#1048
      "RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch)",
      "NVRTCError: NVRTC_ERROR_INVALID_OPTION (5)",
      // localminimum/QANet#5
      "could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
      // bytedeco/javacpp-presets#565
      "Loaded runtime CuDNN library: 7005 (compatibility version 7000) but source was compiled "
      "with 7101 (compatibility version 7100)",
  };
  const auto& kb = KnowledgeBase::builtin();
  ASSERT_EQ(kWrites.size(), kb.tools().size()) << "a line for every tool the reader knows";
  std::set<std::string> own_fix_seen;
  for (const auto& tool : kb.tools()) {
    ASSERT_TRUE(kWrites.count(tool.id)) << tool.id;
    const std::string& line = kWrites.at(tool.id);
    EXPECT_TRUE(explain(line).facts.has_tool(tool.id)) << line;
    for (const char* error : kErrorLines) {
      auto e = explain(line + "\n" + error);
      for (const auto& m : e.matches) {
        if (!m.context || m.context->tool.empty()) continue;
        bool own =
            m.context->tool == tool.id || (m.context->tool == "pytorch" && tool.id == "comfyui");
        EXPECT_TRUE(own) << tool.id << " wrote the text, " << m.context->tool
                         << "'s fix chosen for " << m.mode->id << " on: " << error;
        if (own) own_fix_seen.insert(m.context->tool);
      }
    }
  }
  for (const char* t : {"tensorflow", "jax", "pytorch", "onnxruntime", "llama.cpp", "cupy"})
    EXPECT_TRUE(own_fix_seen.count(t)) << t << "'s own fix never chosen after its own line";
}

// Over every real text: a tool-specific fix is chosen only for its own tool's lines (or, for a
// line nvcc or CMake wrote, for a project the text names).
TEST(ToolFit, EveryChosenFixIsForTheWritersTool) {
  const auto& kb = KnowledgeBase::builtin();
  for (const auto& name : testing::kCorpusFiles) {
    for (const auto& j : testing::read_corpus_file(name)) {
      auto e = explain_text(j.at("text").get<std::string>(), kb, nullptr);
      for (const auto& m : e.matches) {
        if (!m.context || m.context->tool.empty() || m.tool.empty()) continue;
        bool build_line = m.tool == "cuda-toolkit" || m.tool == "cmake";
        bool fits = m.context->tool == m.tool ||
                    (m.context->tool == "pytorch" && m.tool == "comfyui") ||
                    (build_line && e.facts.has_tool(m.context->tool));
        EXPECT_TRUE(fits) << j.at("url") << ": " << m.context->tool << " fix for a " << m.tool
                          << " line";
      }
    }
  }
}

TEST(NeverSilent, AnEmptyKnowledgeBaseExplainsNothingAndDoesNotCrash) {
  KnowledgeBase empty;
  auto e = explain_text("no kernel image is available for execution on the device", empty, nullptr);
  EXPECT_TRUE(e.matches.empty());
}

// onnxruntime's provider missing a library of one CUDA (or cuDNN) major: the releases built for
// that major and for the other, from the requirements table (microsoft/onnxruntime#21684's
// libcublasLt.so.11; a cuDNN 9 library as onnxruntime 1.19 asks for it).
TEST(ComputedFix, OnnxruntimeReleasesForTheMissingLibrarysMajor) {
  auto cuda11 = explain(
      "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: "
      "libcublasLt.so.11: cannot open shared object file: No such file or directory");
  const std::string t = fix_text(cuda11);
  EXPECT_TRUE(has(t,
                  "libcublasLt.so.11 is CUDA 11's, and onnxruntime-gpu 1.8 to 1.18.1 (PyPI, "
                  "CUDA 11 with cuDNN 8) is built for it"));
  EXPECT_TRUE(has(t, "1.19 and newer (PyPI, CUDA 12 with cuDNN 9)"));
  EXPECT_TRUE(has(t, "import torch before creating the session"));
  auto cudnn9 = explain(
      "[E:onnxruntime:Default, provider_bridge_ort.cc:1992] Failed to load library "
      "libonnxruntime_providers_cuda.so with error: libcudnn_adv.so.9: cannot open shared object "
      "file: No such file or directory");
  const std::string c = fix_text(cudnn9);
  EXPECT_TRUE(has(c, "the onnxruntime-gpu built for the cuDNN you have: 1.8 to 1.18.1"));
  // The provider's own "Require cuDNN 8.* and CUDA 12.*" (microsoft/onnxruntime#22809).
  auto require = explain(
      "[W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 CreateExecutionProviderInstance] "
      "Failed to create CUDAExecutionProvider. Require cuDNN 8.* and CUDA 12.*. Please install "
      "all dependencies as mentioned in the GPU requirements page");
  const std::string r = fix_text(require);
  EXPECT_EQ(value(require, "cudnn_required"), "8");
  EXPECT_EQ(value(require, "cuda_major_required"), "12");
  EXPECT_TRUE(has(r,
                  "built for CUDA 12 with cuDNN 8 (as were the requirements table's 1.17 to "
                  "1.18.0 (CUDA 12 feed"));
  EXPECT_TRUE(has(r, "build onnxruntime from source"));
  // Not onnxruntime's line: no onnxruntime releases.
  auto torch = explain("OSError: libcublasLt.so.11: cannot open shared object file");
  EXPECT_EQ(fix_text(torch).find("onnxruntime-gpu 1.8"), std::string::npos);
}

// Fixes of the projects whose own words name them, from real texts: Caffe's Makefile.config
// (weiliu89/caffe#336), CTranslate2's compute type (Purfview/whisper-standalone-win#403),
// ggml's cuBLAS call on an old GPU (ggml-org/llama.cpp#4395), xformers' Hopper-only kernels on
// Blackwell (YanWenKun/ComfyUI-Docker#128).
TEST(ToolFit, ProjectsGetTheirOwnRemedy) {
  struct Case {
    const char *text, *mode, *label, *says;
  } cases[] = {
      {"F1208 15:16:46.872542 15643 pooling_layer.cu:212] Check failed: error == cudaSuccess (8 "
       "vs. 0)  invalid device function",
       "no-kernel-image", "Caffe", "Makefile.config's CUDA_ARCH"},
      {"  File \"faster_whisper\\transcribe.py\", line 1719, in encode\nRuntimeError: cuBLAS "
       "failed with status CUBLAS_STATUS_NOT_SUPPORTED",
       "cublas-not-supported", "CTranslate2 / faster-whisper", "compute_type float16"},
      // CTranslate2's own wording, with nothing else naming it (krillinai/OpenCreator#129).
      {"cuBLAS failed with status CUBLAS_STATUS_NOT_SUPPORTED", "cublas-not-supported",
       "CTranslate2 / faster-whisper", "compute_type float16"},
      // numba's PTX newer than the driver's JIT (googlecolab/colabtools#5081).
      {"LinkerError: [222] Call to cuLinkAddData results in CUDA_ERROR_UNSUPPORTED_PTX_VERSION\n"
       "ptxas application ptx input, line 9; fatal   : Unsupported .version 8.5; current version "
       "is '8.4'",
       "unsupported-ptx-toolchain", "numba", "pynvjitlink"},
      // nvidia/cuda's runtime images have no nvcc (NVIDIA/nvidia-docker#1160).
      {"docker run -it --gpus all nvidia/cuda:10.0-cudnn7-runtime-ubuntu18.04 /bin/bash\n"
       "root@7c0be9bfaeec:/# nvcc --version\nbash: nvcc: command not found",
       "cuda-home-not-set", "nvidia/cuda runtime image", "-devel tag"},
      // torch 2.4's fbgemm.dll and its OpenMP runtime (kohya-ss/sd-scripts#1597).
      {"ERROR    Could not load torch: [WinError 126] The specified module could not be found. "
       "Error loading\n\"P:\\AI\\kohya_ss\\venv\\lib\\site-packages\\torch\\lib\\fbgemm.dll\" "
       "or one of its dependencies.",
       "windows-dll-load-failed", "torch's fbgemm.dll", "libomp140.x86_64.dll"},
      // A WSL path says WSL without the word (NVIDIA/cuml#6218).
      {"  File \"/mnt/c/Users/me/hm-cuml/.venv/lib/python3.12/site-packages/numba_cuda/numba/cuda/"
       "cudadrv/driver.py\", line 258, in ensure_initialized\nnumba.cuda.cudadrv.error."
       "CudaSupportError: Error at driver init: Call to cuInit results in CUDA_ERROR_NO_DEVICE "
       "(100)",
       "no-driver", "WSL", "/usr/lib/wsl/lib"},
      {"nvcc fatal   : Unsupported gpu architecture 'compute_20'\nCMake Error at "
       "cuda_compile_generated_gpu_mat.cu.o.cmake:208 (message):\n  Error generating\n  "
       "/root/opencv-3.1.0/build/modules/core/CMakeFiles/cuda_compile.dir/src/cuda/./"
       "cuda_compile_generated_gpu_mat.cu.o",
       "nvcc-unsupported-arch", "OpenCV", "CUDA_ARCH_BIN"},
      {"cuBLAS error 15 at ggml-cuda.cu:7956: the requested functionality is not supported",
       "cublas-not-supported", "llama.cpp / ggml", "build llama.cpp from source"},
      {"CUDA error (/__w/xformers/xformers/third_party/flash-attention/hopper/"
       "flash_fwd_launch_template.h:188): invalid argument",
       "ptx-wgmma-not-hopper", "xformers", "--use-pytorch-cross-attention"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto e = explain(c.text);
    ASSERT_FALSE(e.matches.empty());
    const auto& m = e.matches.front();
    EXPECT_EQ(m.mode->id, c.mode);
    ASSERT_NE(m.context, nullptr);
    EXPECT_EQ(m.context->label, c.label);
    EXPECT_TRUE(has(m.fix(), c.says));
  }
  // nvcc refusing MSVC gets the Windows toolset fix (graphdeco-inria/gaussian-splatting#833).
  auto msvc = explain(
      "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.3\\include\\crt/"
      "host_config.h(164): fatal error C1189: #error: -- unsupported Microsoft Visual Studio "
      "version! Only the versions between 2017 and 2022 (inclusive) are supported!");
  ASSERT_FALSE(msvc.matches.empty());
  ASSERT_NE(msvc.matches.front().context, nullptr);
  EXPECT_EQ(msvc.matches.front().context->label, "MSVC (Windows)");
  EXPECT_TRUE(has(msvc.matches.front().fix(), "Visual Studio 2019"));
  // TensorRT's library: its major and the pip package (jkjung-avt/tensorrt_demos#517).
  EXPECT_TRUE(has(fix_text(explain("ImportError: libnvinfer.so.8: cannot open shared object "
                                   "file: No such file or directory")),
                  "libnvinfer.so.8 is TensorRT 8's: install TensorRT 8 (pip install "
                  "'tensorrt==8.*'"));
  // The Caffe line names its writer.
  EXPECT_TRUE(explain(cases[0].text).facts.has_tool("caffe"));
}

// DeepSpeed's op builder states both CUDAs (JIA-Lab-research/MGM#91); the torch for the toolkit
// is the newest channel of its major not newer than it, from the channel table (torch's build
// refuses only another major). "CUDA version 12.2" without nvidia-smi's colon is not the driver's.
TEST(ComputedFix, ToolkitAndTorchCudaGetAChannelThatExists) {
  auto e = explain(
      "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed "
      "CUDA version 12.2 does not match the version torch was compiled with 11.7, unable to "
      "compile "
      "cuda/cpp extensions without a matching cuda version.");
  EXPECT_EQ(value(e, "cuda_toolkit"), "12.2");
  EXPECT_EQ(value(e, "torch_cuda"), "11.7");
  EXPECT_EQ(value(e, "cuda_driver"), "");
  const std::string t = fix_text(e);
  EXPECT_TRUE(has(t,
                  "the newest torch channel of CUDA 12 not newer than the toolkit is cu121 (up to "
                  "torch 2.5.1: pip install torch==2.5.1+cu121 --extra-index-url "
                  "https://download.pytorch.org/whl/cu121)"));
  EXPECT_EQ(t.find("cu122"), std::string::npos) << t;  // no such channel
  // A release before 1.11 is installed from torch_stable.html, as the other install lines are.
  auto old_torch = explain(
      "The detected CUDA version (10.1) mismatches the version that was used to compile PyTorch "
      "(11.3). Please make sure to use the same CUDA versions.");
  EXPECT_TRUE(has(fix_text(old_torch),
                  "(up to torch 1.8.1: pip install torch==1.8.1+cu101 -f "
                  "https://download.pytorch.org/whl/torch_stable.html)"));
}

// A capability a library requires is a fact of its own, never the GPU's (iperov/DeepFaceLab#264,
// spacemeshos/gpu-post#15); with the GPU named, the line says it is below.
TEST(ComputedFix, RequiredCapabilityIsNotTheGpus) {
  auto dfl = explain("No CUDA device found with minimum required compute capability 3.5");
  EXPECT_EQ(value(dfl, "cc_required"), "3.5");
  EXPECT_TRUE(dfl.facts.gpus.empty());
  EXPECT_EQ(first_mode(dfl), "library-arch-gate");
  EXPECT_TRUE(has(fix_text(dfl), "This needs a GPU of compute capability 3.5 or newer"));
  auto miner = explain("GPU #0: FATAL: the 't' kernel requires 5.0 capability!");
  EXPECT_EQ(value(miner, "cc_required"), "5.0");
  auto ampere = explain(
      "RuntimeError: Found Tesla T4 with compute capability 7.5; compute capability 8.0 "
      "(Ampere) or higher is required");
  EXPECT_EQ(value(ampere, "cc_required"), "8.0");
  ASSERT_NE(ampere.facts.gpu(), nullptr);
  EXPECT_EQ(ampere.facts.gpu()->cc->to_string(), "7.5");
  for (const auto& g : ampere.facts.gpus) EXPECT_NE(g.cc->to_string(), "8.0") << g.text;
  EXPECT_TRUE(has(fix_text(ampere), "compute capability 7.5, below it"));
  // A longer parenthetical between the number and "or newer" is still a requirement.
  auto blackwell = explain(
      "GPU: NVIDIA H100 80GB HBM3; this kernel needs compute capability 10.0 (Blackwell "
      "datacenter) or newer");
  EXPECT_EQ(value(blackwell, "cc_required"), "10.0");
  for (const auto& g : blackwell.facts.gpus) EXPECT_NE(g.cc->to_string(), "10.0") << g.text;
}

// ---- never silent ----------------------------------------------------------------------------

TEST(NeverSilent, NoMatchStillGivesFactsAndTheNearestModes) {
  auto e = explain(
      "PyTorch version: 2.3.0+cu121\nGPU: NVIDIA GeForce RTX 4090\n"
      "cuDNN error: the handle could not be created somewhere unusual");
  EXPECT_TRUE(e.matches.empty());
  EXPECT_EQ(value(e, "torch"), "2.3.0+cu121");
  ASSERT_EQ(e.nearest.size(), 2u);
  EXPECT_FALSE(e.nearest[0].why.empty());
}

}  // namespace
}  // namespace smcompat::explain
