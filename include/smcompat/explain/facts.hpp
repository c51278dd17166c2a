// The facts a pasted error text states, read before any failure mode is matched: which tool wrote
// each line (PyTorch, TensorFlow, JAX, llama.cpp, the container toolkit, ...), the versions it
// names (torch and its CUDA, the CUDA runtime and driver, cuDNN, NCCL, the toolkit, Python, a
// container's `cuda>=X.Y` requirement) and the GPUs (by name or compute capability). The fix is
// computed from these facts with the catalog (explain/explain.hpp), never from a default GPU.
// Lines are read one at a time (normalise_log_line first), so a log of any size costs one pass.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/catalog/catalog.hpp"

namespace smcompat::explain {

/// A log line as the fact reader and the matcher see it: ANSI escapes, a leading timestamp and
/// log-level prefix ("2024-05-01 12:00:00.123 [E]", "I0501 12:00:00.123456 1234 file.cc:12]",
/// "[2024-05-01T12:00:00Z]", "E   ") and carriage-return progress before the last '\r' removed,
/// tabs as spaces, surrounding white space trimmed.
std::string normalise_log_line(std::string_view raw);

/// A tool seen writing a line: the first line it was seen on and the words that told.
struct ToolSeen {
  std::string tool;  ///< id: "pytorch", "tensorflow", "jax", "llama.cpp", ... (failure_modes.json)
  size_t line = 0;
  std::string evidence;
};

/// A version the text states. `what`: "torch", "torch_cuda" (the CUDA torch was built with),
/// "cuda_runtime", "cuda_driver" (the CUDA version the driver supports), "driver" (a driver build),
/// "package_cuda" (the CUDA of a package built on torch: torchvision, torch_sparse, ...),
/// "cuda_toolkit" (nvcc), "cudnn_built" and "cudnn_found" (normalised to X.Y.Z), "nccl", "python",
/// "cuda_required" (a container's cuda>=X.Y), "driver_required" (an NGC image's minimum driver),
/// "cudnn_min" (the oldest cuDNN JAX accepts; likewise "cublas_found", "cusparse_min", ... for
/// the libraries JAX checks), "tensorflow", "jax".
struct VersionSeen {
  std::string what;
  std::string value;
  size_t line = 0;
  std::string evidence;  ///< the words it was read from
};

/// A GPU the text names: by product name (resolved through the catalog, or its name table for
/// GPUs outside it) or by compute capability ("sm_120", "CUDA capability 3.7").
struct GpuSeen {
  std::string text;  ///< as written
  std::optional<ComputeCapability> cc;
  std::string catalog_name;  ///< the catalog product, when the name resolves to one
  size_t line = 0;
};

struct TextFacts {
  std::vector<ToolSeen> tools;           ///< each tool once, in order of first line
  std::vector<VersionSeen> versions;     ///< each (what, value) once, in order
  std::vector<GpuSeen> gpus;             ///< each GPU (text) once, in order
  std::vector<std::string> error_codes;  ///< "cudaErrorNoKernelImageForDevice", "CUDA error 209"
  /// CUDA libraries the text names as not loadable ("libcudnn_ops.so.9", "cublas64_11.dll",
  /// "zlibwapi.dll"), each once.
  std::vector<std::string> libraries;
  /// Python packages whose compiled extension the text shows failing to load ("mmcv",
  /// "torch_scatter", from ".../site-packages/mmcv/_ext.cpython-38-x86_64-linux-gnu.so").
  std::vector<std::string> extensions;
  /// Symbols the text shows a library missing at load ("undefined symbol: X"), each once.
  std::vector<std::string> symbols;
  size_t lines = 0;

  /// The first value stated for `what`, or nullptr.
  const VersionSeen* version(std::string_view what) const;
  /// Every distinct value stated for `what` (more than one is a conflict worth saying).
  std::vector<std::string> values(std::string_view what) const;
  bool has_tool(std::string_view tool) const;
  /// The GPU the text is about: the first one with a known compute capability (by its name when
  /// the text also names a GPU of that capability), else nullptr.
  const GpuSeen* gpu() const;
};

/// A tool's signature in text (data/failure_modes.json "tools"): words only that tool writes.
struct ToolSignature {
  std::string id;
  std::string label;                  ///< "PyTorch", "llama.cpp / ggml"
  std::vector<std::string> patterns;  ///< RE2 syntax, case-insensitive
};

/// A GPU name outside the catalog's product rows and its compute capability (failure_modes.json
/// "gpu_names", from NVIDIA's CUDA GPUs list): "GTX 1080" → 6.1, "K80" → 3.7.
struct GpuNamePattern {
  std::string pattern;  ///< RE2, case-insensitive, tried on a GPU name as written
  ComputeCapability cc;
};

/// Reads facts line by line. Linear in the text: every pattern is compiled once into RE2 sets.
class FactReader {
 public:
  FactReader(const std::vector<ToolSignature>& tools, const std::vector<GpuNamePattern>& gpu_names,
             const Catalog& catalog);
  ~FactReader();
  FactReader(FactReader&&) noexcept;
  /// One normalised line; `line_no` is 1-based. Returns the tools whose signature matched this
  /// line (ids), for attributing a match to its writer.
  std::vector<std::string> add_line(std::string_view line, size_t line_no);
  const TextFacts& facts() const { return facts_; }
  TextFacts take() { return std::move(facts_); }

 private:
  struct Compiled;
  std::unique_ptr<Compiled> c_;
  const Catalog* catalog_;
  TextFacts facts_;
  std::string library_;  ///< the library JAX's last "Outdated X installation found" named
};

/// "8600" → "8.6.0", "90100" → "9.1.0", "8, 7, 0" → "8.7.0", "8.9.7" stays (a trailing "." goes):
/// cuDNN's integer versions as X.Y.Z.
std::string cudnn_version_text(std::string_view v);
/// cuBLAS's, cuSPARSE's, cuFFT's and cuSOLVER's integer versions as X.Y.Z: "120103" → "12.1.3",
/// "12200" → "12.2.0".
std::string library_version_text(std::string_view v);
/// "cu118" → "11.8", "cu92" → "9.2", "cu128" → "12.8"; "" when it is not such a tag.
std::string cuda_of_wheel_tag(std::string_view tag);

}  // namespace smcompat::explain
