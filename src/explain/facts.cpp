// Reading the facts of an error text (include/smcompat/explain/facts.hpp). Every pattern is an
// RE2 (linear time, no backtracking); the patterns of one kind are compiled into one RE2::Set, so
// each line is scanned once per kind and only the patterns that hit are run again for captures.
#include "smcompat/explain/facts.hpp"

#include <fmt/format.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <array>

#include "smcompat/util/strings.hpp"

namespace smcompat::explain {

namespace {

RE2::Options case_insensitive() {
  RE2::Options o;
  o.set_case_sensitive(false);
  o.set_log_errors(false);
  return o;
}

// A version statement: the pattern, and what each capture group is ("" ignores the group).
// "lib" marks a group that names a CUDA library ("cuSPARSE"); "lib_built", "lib_min" and
// "lib_found" are that library's versions, or those of the last "Outdated X installation found"
// line (JAX states them one per line after it).
struct VersionRule {
  const char* pattern;
  std::array<const char*, 3> what;
};

// The ways tools state versions in their errors and logs. Order matters only for the first value
// of a kind; each (kind, value) is kept once.
constexpr VersionRule kVersionRules[] = {
    // torch: "torch 2.0.1+cu118", "torch==2.0.1", "PyTorch version: 2.0.1+cu118", "torch-2.0.1"
    {R"(\b(?:py)?torch(?:\s*version)?\s*(?:==|=|:|-|\s)\s*v?(\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc|\.dev|\.post)\d+)?(?:\+[a-z0-9.]+)?))",
     {"torch", ""}},
    {R"(CUDA used to build PyTorch:?\s*(\d+\.\d+))", {"torch_cuda", ""}},
    {R"((?:PyTorch|torch)\s+(?:was\s+)?(?:compiled|built)\s+with\s+CUDA\s*(?:version\s*)?\(?(\d+\.\d+))",
     {"torch_cuda", ""}},
    // torch.utils.cpp_extension's sentence, one line or wrapped over two as torch prints it.
    {R"(detected CUDA version \((\d+\.\d+)\) mismatches)", {"cuda_toolkit", ""}},
    {R"(\bPyTorch \((\d+\.\d+)\)\. Please make sure to use the same CUDA)", {"torch_cuda", ""}},
    // DeepSpeed's op builder says the same.
    {R"(Installed CUDA version (\d+\.\d+) does not match the version torch was compiled with (\d+\.\d+))",
     {"cuda_toolkit", "torch_cuda"}},
    // torchvision's and PyG's extensions check torch's CUDA against their own.
    {R"(PyTorch has CUDA [Vv]ersion\s*=?\s*(\d+\.\d+) and \w+ has CUDA [Vv]ersion\s*=?\s*(\d+\.\d+))",
     {"torch_cuda", "package_cuda"}},
    {R"(Cuda compilation tools, release (\d+\.\d+))", {"cuda_toolkit", ""}},
    // A versioned toolkit's nvcc in a build's command line ("/usr/local/cuda-9.0/bin/nvcc").
    {R"(/cuda-(\d+\.\d+)/bin/nvcc\b)", {"cuda_toolkit", ""}},
    {R"(gcc versions later than (\d+) are not supported)", {"gcc_max", ""}},
    {R"(gcc (\d+(?:\.\d+)?) and up are not supported)", {"gcc_refused", ""}},
    // ptxas (or the driver's JIT) given PTX of a newer ISA than it knows.
    {R"(Unsupported \.version (\d+\.\d+); current version is '(\d+\.\d+)')",
     {"ptx_isa_required", "ptx_isa_known"}},
    // onnxruntime's CUDA provider names the majors it was built for.
    {R"(Require cuDNN (\d+)\.\* and CUDA (\d+)\.\*)", {"cudnn_required", "cuda_major_required"}},
    {R"(CUDA runtime version:?\s*(\d+\.\d+))", {"cuda_runtime", ""}},
    {R"(libcudart\.so\.(\d+(?:\.\d+)?))", {"cuda_runtime", ""}},
    // nvidia-smi's header ("CUDA Version: 12.2"); without the colon it is any CUDA.
    {R"(CUDA Version:\s*(\d+\.\d+))", {"cuda_driver", ""}},
    {R"(driver on your system is too old \(found version (\d{4,5})\))", {"cuda_driver", ""}},
    {R"(Insufficient CUDA driver: (\d{4,5})\b)", {"cuda_driver", ""}},
    {R"(Driver Version:?\s*(\d{3}\.\d+(?:\.\d+)?))", {"driver", ""}},
    {R"(\bdriver(?: version)?:?\s+(\d{3}\.\d{2,3}(?:\.\d{2})?)\b)", {"driver", ""}},
    // conda's solver: a build's __cuda requirement against the driver's virtual package.
    {R"(constraint __cuda\s*>=\s*(\d+\.\d+) conflicting with __cuda-(\d+\.\d+))",
     {"cuda_required", "cuda_driver"}},
    {R"(\bcuda\s*>=\s*(\d+\.\d+))", {"cuda_required", ""}},
    // The compute capability a library or feature requires ("minimum required compute capability
    // 3.5", "requires 5.0 capability", "of at least 8.0", "CUDA Capability >= 7.0", "8.0 (Ampere)
    // or higher").
    {R"(minimum required (?:cuda |compute )?capability (?:is )?(\d+\.\d))", {"cc_required", ""}},
    {R"(\brequires? (\d+\.\d) (?:compute )?capability)", {"cc_required", ""}},
    {R"(capability of at least (\d+\.\d))", {"cc_required", ""}},
    {R"(Capability >= ?(\d+\.\d))", {"cc_required", ""}},
    {R"(compute capability (\d+\.\d)(?: \([^)]{1,48}\))? or (?:higher|newer|above|later))",
     {"cc_required", ""}},
    // The architecture a toolchain refused: nvcc's and ptxas's wording.
    {R"(Unsupported gpu architecture '(?:compute|sm)_(\d+)[af]?')", {"arch_refused", ""}},
    {R"(Value '(?:compute|sm)_(\d+)[af]?' is not defined for option)", {"arch_refused", ""}},
    {R"(unsupported CUDA version: driver (\d+\.\d+) < image (\d+\.\d+))",
     {"cuda_driver", "cuda_required"}},
    // NGC containers' entrypoint, which wraps "..., but" / "version X was detected" over two lines.
    {R"(built for NVIDIA Driver Release (\d{3}(?:\.\d+)*) or later)", {"driver_required", ""}},
    {R"(\bversion (\d{3}\.\d+(?:\.\d+)?) was detected)", {"driver", ""}},
    // cuDNN, as each framework says it: PyTorch "(8700)" or "(8, 7, 0)", TensorFlow and XLA,
    // PaddlePaddle, JAX.
    {R"(compiled\s+against\s+\(([\d,\s]+)\)\s+but\s+found\s+runtime\s+version\s+\(([\d,\s]+)\))",
     {"cudnn_built", "cudnn_found"}},
    {R"(compiled with CUDNN (\d+\.\d+(?:\.\d+)?), but CUDNN version in your machine is (\d+\.\d+(?:\.\d+)?))",
     {"cudnn_built", "cudnn_found"}},
    {R"(Found (cuDNN|cuBLAS|cuSPARSE|cuFFT|cuSOLVER|NCCL) version (\d+),? but (?:JAX|jaxlib) was built against version (\d+))",
     {"lib", "lib_found", "lib_built"}},
    {R"(Outdated (cuDNN|cuBLAS|cuSPARSE|cuFFT|cuSOLVER|NCCL) installation found)", {"lib", ""}},
    {R"(Version (?:JAX|jaxlib) was built against:\s*(\d+))", {"lib_built", ""}},
    {R"(Minimum supported:\s*(\d+))", {"lib_min", ""}},
    {R"(Installed version:\s*(\d+))", {"lib_found", ""}},
    {R"(Loaded runtime CuDNN library:\s*([\d.]+)[^\n]*?compiled with:?\s*([\d.]+))",
     {"cudnn_found", "cudnn_built"}},
    {R"(compiled against (\d{4,5}) but linked against (\d{4,5}))", {"cudnn_built", "cudnn_found"}},
    {R"(cuDNN version (\d{4,5})\b)", {"cudnn_found", ""}},
    {R"(NCCL version (\d+\.\d+\.\d+))", {"nccl", ""}},
    {R"(\bpython\s?(3\.\d{1,2})(?:\.\d+)?\b)", {"python", ""}},
    {R"(\bcp3(\d{1,2})\b)", {"python_tag", ""}},
    {R"(\btensorflow(?:-gpu)?(?:==|\s+version:?\s*|\s+)(\d+\.\d+(?:\.\d+)?))", {"tensorflow", ""}},
    {R"(\bjax(?:lib)?(?:==|\s+version:?\s*|\s+)(\d+\.\d+\.\d+))", {"jax", ""}},
};

// "CUDA capability sm_120", "cuda capability 3.7", "compute capability 8.6", "capability of 6.1"
constexpr const char* kCapabilityRule =
    R"((?:cuda|compute)\s+capability\s+(?:of\s+)?(?:sm_?)?(\d{1,3})(?:\.(\d))?\b)";
// A GPU's name as people and tools write it; resolved through the catalog or the name table.
constexpr const char* kGpuNameRule =
    R"(\b((?:NVIDIA\s+)?(?:GeForce\s+)?(?:RTX|GTX|GT|MX)\s*(?:PRO\s+)?[A-Z]?\d{3,4}(?:\s*(?:Ti|SUPER|Blackwell|Ada))?|(?:NVIDIA\s+|Tesla\s+)?(?:[KMPV]\d{1,3}|A\d{1,4}G?|H\d{2,3}|GH\d{3}|B\d{3}|GB\d{1,3}|L\d{1,2}S?|T4)(?:-(?:SXM\d?|PCIE)-\d{2,3}GB|\s+\d{2,3}GB)?|TITAN\s+(?:Xp|X|V|RTX|Black)|Quadro\s+(?:RTX\s+)?[A-Z]?\d{3,5}|Jetson\s+(?:AGX\s+)?(?:Nano|TX1|TX2|Xavier|Orin|Thor)|DGX\s+Spark))";
// A CUDA library by its file name (Linux or Windows), and zlib that cuDNN 8 needs on Windows.
constexpr const char* kLibraryRule =
    R"(\b(lib(?:cudnn|cublas|cudart|cufft|curand|cusparse|cusolver|nccl|nvrtc|nvJitLink|nvinfer)\w*\.so(?:\.\d+)*|(?:cudnn|cublas|cudart|cufft|curand|cusparse|cusolver|nvrtc)\w*64_\d+\.dll|zlibwapi\.dll))";
// A compiled extension module inside a package: site-packages/PKG/…/NAME.cpython-…so or .pyd.
constexpr const char* kExtensionRule =
    R"((?:site|dist)-packages[/\\]([A-Za-z_][\w]*)[/\\][^\s:'"]*\.(?:cpython[^\s:'"]*\.so|pyd|so))";
// The same where the path is cut before site-packages: "/mmcv/_ext.cpython-37m-….so" (a private
// module directly inside the package directory).
constexpr const char* kExtensionDirRule =
    R"([/\\]([A-Za-z_]\w*)[/\\]_\w+\.(?:cpython[^\s:'"]*\.so|pyd)\b)";
// A package's compiled module imported by name ("from detectron2 import _C"), and a compiled
// module at the top of site-packages ("site-packages/fused_layer_norm_cuda.cpython-310-….so").
constexpr const char* kExtensionImportRule = R"(\bfrom ([A-Za-z_]\w*)(?:\.\w+)* import _C\b)";
constexpr const char* kExtensionTopRule =
    R"((?:site|dist)-packages[/\\]([A-Za-z_]\w*)\.(?:cpython[^\s:'"/\\]*\.so|pyd)\b)";
// Top-level compiled modules and the package that installs them.
constexpr std::pair<const char*, const char*> kModulePackages[] = {
    {"fused_layer_norm_cuda", "apex"},
    {"amp_C", "apex"},
    {"apex_C", "apex"},
    {"fused_dense_cuda", "apex"},
    {"syncbn", "apex"},
    {"selective_scan_cuda", "mamba_ssm"},
    {"causal_conv1d_cuda", "causal_conv1d"},
    {"flash_attn_2_cuda", "flash_attn"},
    {"flash_attn_cuda", "flash_attn"}};
// The symbol a library misses when loaded ("undefined symbol: _ZN3c10…" — a C++ mangling tells
// the std::string ABI it was built with — or a C name such as "cudaGetDriverEntryPointByVersion").
constexpr const char* kSymbolRule = R"(undefined\s+symbol:?\s*([A-Za-z_][\w.$@]*))";
// Error codes worth naming.
constexpr const char* kErrorCodeRule =
    R"(\b(cudaError[A-Za-z]+|CUDA_ERROR_[A-Z_]+|CUBLAS_STATUS_[A-Z_]+|CUDNN_STATUS_[A-Z_]+|NCCL_[A-Z_]*ERROR[A-Z_]*|ncclUnhandledCudaError|ncclSystemError|ncclInternalError))";

// Whether the capability that ends at `end` of `line` is stated as a requirement: "minimum
// required" or "at least" just before it, "or higher/newer/above" just after.
bool is_requirement(std::string_view line, size_t end) {
  const std::string before = to_lower(line.substr(end > 64 ? end - 64 : 0, end > 64 ? 64 : end));
  for (const char* w : {"minimum required", "at least"})
    if (before.find(w) != std::string::npos) return true;
  // After the number: at most a short word or one parenthetical ("8.0 (Ampere) or higher",
  // "10.0 (Blackwell datacenter) or newer"), then "or higher" and its synonyms.
  std::string after = to_lower(line.substr(end, 80));
  size_t from = 0;
  while (from < after.size() && after[from] == ' ') ++from;
  if (from < after.size() && after[from] == '(') {
    const size_t close = after.find(')', from);
    if (close != std::string::npos && close - from <= 48) from = close + 1;
  }
  for (const char* w : {" or higher", " or newer", " or above", " or later"}) {
    const size_t at = after.find(w);
    if (at != std::string::npos && at < from + 12) return true;
  }
  return false;
}

// The characters a terminal or a forum adds to a line: ANSI escape sequences dropped, tabs as
// spaces, typographic quotes as ASCII ones.
std::string plain_characters(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      size_t j = i + 2;
      while (j < s.size() && !(s[j] >= '@' && s[j] <= '~')) ++j;
      i = j;  // the final byte of the sequence
      continue;
    }
    // Typographic quotes (a paste through a forum or word processor) become ASCII ones, so
    // "Value ‘sm_75’ is not defined" reads as nvcc printed it.
    if (s[i] == '\xe2' && i + 2 < s.size() && s[i + 1] == '\x80' &&
        (s[i + 2] >= '\x98' && s[i + 2] <= '\x9d')) {
      out += s[i + 2] <= '\x9b' ? '\'' : '"';
      i += 2;
      continue;
    }
    out += s[i] == '\t' ? ' ' : s[i];
  }
  return out;
}

}  // namespace

struct FactReader::Compiled {
  std::vector<std::unique_ptr<RE2>> tool_rx;
  std::vector<std::string> tool_of;  // per tool_rx
  std::unique_ptr<RE2::Set> tool_set;
  std::vector<std::unique_ptr<RE2>> version_rx;  // per kVersionRules
  std::unique_ptr<RE2::Set> version_set;
  std::unique_ptr<RE2> capability, gpu_name, error_code, library, extension, extension_dir,
      extension_import, extension_top, symbol;
  std::unique_ptr<RE2::Set> single;  // the single rules above, to run only those that occur
  std::vector<std::unique_ptr<RE2>> name_rx;  // per GpuNamePattern
  std::vector<ComputeCapability> name_cc;
};

namespace {

// Adds `pattern` to `set` and compiles it alone into `into`; false when RE2 refuses it.
bool add_pattern(RE2::Set& set, std::vector<std::unique_ptr<RE2>>& into, const std::string& p) {
  auto rx = std::make_unique<RE2>(p, case_insensitive());
  if (!rx->ok() || set.Add(p, nullptr) < 0) return false;
  into.push_back(std::move(rx));
  return true;
}

// Lines are matched whole; a Set reports every pattern that occurs anywhere in the line.
std::vector<int> set_hits(const RE2::Set* set, std::string_view line) {
  std::vector<int> hits;
  if (set) set->Match(re2::StringPiece(line.data(), line.size()), &hits);
  std::sort(hits.begin(), hits.end());
  return hits;
}

}  // namespace

FactReader::FactReader(const std::vector<ToolSignature>& tools,
                       const std::vector<GpuNamePattern>& gpu_names, const Catalog& catalog)
    : c_(std::make_unique<Compiled>()), catalog_(&catalog) {
  c_->tool_set = std::make_unique<RE2::Set>(case_insensitive(), RE2::UNANCHORED);
  for (const auto& t : tools)
    for (const auto& p : t.patterns)
      if (add_pattern(*c_->tool_set, c_->tool_rx, p)) c_->tool_of.push_back(t.id);
  if (!c_->tool_set->Compile()) c_->tool_set.reset();
  c_->version_set = std::make_unique<RE2::Set>(case_insensitive(), RE2::UNANCHORED);
  for (const auto& r : kVersionRules) add_pattern(*c_->version_set, c_->version_rx, r.pattern);
  if (c_->version_rx.size() != std::size(kVersionRules) || !c_->version_set->Compile())
    c_->version_set.reset();  // a rule RE2 refuses is a bug the tests catch
  c_->capability = std::make_unique<RE2>(kCapabilityRule, case_insensitive());
  c_->gpu_name = std::make_unique<RE2>(kGpuNameRule, case_insensitive());
  c_->error_code = std::make_unique<RE2>(kErrorCodeRule);  // codes are case-sensitive
  c_->library = std::make_unique<RE2>(kLibraryRule, case_insensitive());
  c_->extension = std::make_unique<RE2>(kExtensionRule, case_insensitive());
  c_->extension_dir = std::make_unique<RE2>(kExtensionDirRule, case_insensitive());
  c_->extension_import = std::make_unique<RE2>(kExtensionImportRule);
  c_->extension_top = std::make_unique<RE2>(kExtensionTopRule, case_insensitive());
  c_->symbol = std::make_unique<RE2>(kSymbolRule, case_insensitive());
  c_->single = std::make_unique<RE2::Set>(case_insensitive(), RE2::UNANCHORED);
  for (const char* rule :
       {kCapabilityRule, kGpuNameRule, kErrorCodeRule, kLibraryRule, kExtensionRule,
        kExtensionDirRule, kExtensionImportRule, kExtensionTopRule, kSymbolRule})
    c_->single->Add(rule, nullptr);
  if (!c_->single->Compile()) c_->single.reset();
  for (const auto& n : gpu_names) {
    auto rx = std::make_unique<RE2>(n.pattern, case_insensitive());
    if (!rx->ok()) continue;
    c_->name_rx.push_back(std::move(rx));
    c_->name_cc.push_back(n.cc);
  }
}

FactReader::~FactReader() = default;
FactReader::FactReader(FactReader&&) noexcept = default;

std::vector<std::string> FactReader::add_line(std::string_view line, size_t line_no) {
  facts_.lines = std::max(facts_.lines, line_no);
  re2::StringPiece text(line.data(), line.size());
  // The tools named on the line, the earliest named first: a log prefix names its writer before
  // the message names anything else ("W tensorflow/…dso_loader.cc] … 'libnvinfer.so.6'").
  struct Named {
    size_t at;
    std::string tool, evidence;
  };
  std::vector<Named> named;
  for (int i : set_hits(c_->tool_set.get(), line)) {
    const std::string& tool = c_->tool_of[i];
    re2::StringPiece whole;
    if (!c_->tool_rx[i]->Match(text, 0, text.size(), RE2::UNANCHORED, &whole, 1)) continue;
    const size_t at = size_t(whole.data() - text.data());
    auto known = std::find_if(named.begin(), named.end(), [&](auto& n) { return n.tool == tool; });
    if (known == named.end())
      named.push_back({at, tool, std::string(whole)});
    else if (at < known->at)
      *known = {at, tool, std::string(whole)};
  }
  std::stable_sort(named.begin(), named.end(), [](auto& a, auto& b) { return a.at < b.at; });
  std::vector<std::string> on_line;
  for (auto& n : named) {
    on_line.push_back(n.tool);
    if (!facts_.has_tool(n.tool)) facts_.tools.push_back({n.tool, line_no, n.evidence});
  }
  auto add_version = [&](const char* what, std::string value, std::string_view evidence) {
    if (!what || !*what || value.empty()) return;
    std::string kind = what;
    if (kind == "lib") {  // names the library the next lib_* versions are of
      library_ = to_lower(value);
      return;
    }
    if (kind.starts_with("lib_")) {
      if (library_.empty()) return;
      kind = library_ + kind.substr(3);  // "cudnn_min", "cusparse_found"
      value = library_ == "cudnn" ? cudnn_version_text(value) : library_version_text(value);
    }
    if (kind == "cudnn_built" || kind == "cudnn_found") value = cudnn_version_text(value);
    if (kind == "cuda_driver" && value.find('.') == std::string::npos) {  // "11040"
      if (auto v = Version::parse(value)) value = v->to_string();
    }
    if (kind == "python_tag") {  // cp310 → 3.10
      kind = "python";
      value = "3." + value;
    }
    for (const auto& v : facts_.versions)
      if (v.what == kind && v.value == value) return;
    facts_.versions.push_back({kind, value, line_no, std::string(evidence)});
    if (kind == "torch") {  // "2.0.1+cu118": the CUDA it was built with
      auto plus = value.find("+cu");
      if (plus != std::string::npos) {
        std::string cuda = cuda_of_wheel_tag(value.substr(plus + 1));
        bool known = false;
        for (const auto& v : facts_.versions) known |= v.what == "torch_cuda" && v.value == cuda;
        if (!cuda.empty() && !known)
          facts_.versions.push_back({"torch_cuda", cuda, line_no, std::string(evidence)});
      }
    }
  };
  for (int i : set_hits(c_->version_set.get(), line)) {
    const RE2& rx = *c_->version_rx[i];
    std::array<re2::StringPiece, 4> groups;
    if (!rx.Match(text, 0, text.size(), RE2::UNANCHORED, groups.data(), 4)) continue;
    for (int g = 0; g < 3; ++g)
      if (g < rx.NumberOfCapturingGroups())
        add_version(kVersionRules[i].what[g], std::string(groups[g + 1]), groups[0]);
  }
  // The single rules, only where the set says they occur: a stated capability, GPU names, error
  // codes, libraries, extensions.
  std::vector<int> single = set_hits(c_->single.get(), line);
  auto occurs = [&](int k) { return std::binary_search(single.begin(), single.end(), k); };
  auto add_gpu = [&](GpuSeen g) {
    for (const auto& seen : facts_.gpus)
      if (to_lower(seen.text) == to_lower(g.text)) return;
    facts_.gpus.push_back(std::move(g));
  };
  if (occurs(0)) {
    re2::StringPiece input = text;
    std::string digits, minor;
    while (RE2::FindAndConsume(&input, *c_->capability, &digits, &minor)) {
      // A capability a library requires ("minimum required compute capability 3.5", "8.0 or
      // higher") is not the GPU's.
      const size_t end = size_t(input.data() - text.data());
      if (is_requirement(line, end)) continue;
      // "3.7" → 3.7; "sm_120" or "86" → an arch number; a lone "8" says too little.
      std::optional<ComputeCapability> cc;
      if (!minor.empty())
        cc = ComputeCapability::parse(digits + "." + minor);
      else if (digits.size() >= 2)
        cc = ComputeCapability::parse(digits);
      if (cc) add_gpu({"capability " + cc->to_string(), cc, "", line_no});
    }
  }
  if (occurs(1)) {
    re2::StringPiece input = text;
    std::string name;
    while (RE2::FindAndConsume(&input, *c_->gpu_name, &name)) {
      std::string shown(trim(name));
      GpuSeen g{shown, std::nullopt, "", line_no};
      // "A100-SXM4-40GB" is a catalog alias; a variant the catalog does not list is looked up by
      // its base name ("H100-SXM5-94GB" → "H100").
      const GpuSpec* spec = catalog_->find_gpu(shown);
      if (auto cut = shown.find_first_of("- ", shown.find_first_of("0123456789"));
          !spec && cut != std::string::npos)
        spec = catalog_->find_gpu(shown.substr(0, cut));
      if (spec) {
        g.cc = spec->cc;
        g.catalog_name = spec->name;
      }
      for (size_t k = 0; k < c_->name_rx.size() && !g.cc; ++k)
        if (RE2::PartialMatch(shown, *c_->name_rx[k])) g.cc = c_->name_cc[k];
      if (g.cc) add_gpu(std::move(g));
    }
  }
  auto collect = [&](const RE2& rx, std::vector<std::string>& into) {
    re2::StringPiece input = text;
    std::string found;
    while (RE2::FindAndConsume(&input, rx, &found))
      if (std::find(into.begin(), into.end(), found) == into.end() && into.size() < 32)
        into.push_back(found);
  };
  if (occurs(2)) collect(*c_->error_code, facts_.error_codes);
  if (occurs(3)) collect(*c_->library, facts_.libraries);
  if (occurs(8)) collect(*c_->symbol, facts_.symbols);
  // Extensions: a package directory in site-packages first, else the other ways a path or an
  // import names one; torch's own modules are torch, not an extension built apart from it.
  auto add_extensions = [&](const RE2& rx) {
    std::vector<std::string> found;
    collect(rx, found);
    for (auto f : found) {
      for (auto [module, package] : kModulePackages)
        if (f == module) f = package;
      if (f != "torch" && facts_.extensions.size() < 32 &&
          std::find(facts_.extensions.begin(), facts_.extensions.end(), f) ==
              facts_.extensions.end())
        facts_.extensions.push_back(f);
    }
  };
  if (occurs(4)) {
    add_extensions(*c_->extension);
  } else {
    if (occurs(5)) add_extensions(*c_->extension_dir);
    if (occurs(6)) add_extensions(*c_->extension_import);
    if (occurs(7)) add_extensions(*c_->extension_top);
  }
  return on_line;
}

const VersionSeen* TextFacts::version(std::string_view what) const {
  for (const auto& v : versions)
    if (v.what == what) return &v;
  return nullptr;
}

std::vector<std::string> TextFacts::values(std::string_view what) const {
  std::vector<std::string> out;
  for (const auto& v : versions)
    if (v.what == what) out.push_back(v.value);
  return out;
}

bool TextFacts::has_tool(std::string_view tool) const {
  return std::any_of(tools.begin(), tools.end(), [&](const ToolSeen& t) { return t.tool == tool; });
}

const GpuSeen* TextFacts::gpu() const {
  const GpuSeen* first = nullptr;
  for (const auto& g : gpus)
    if (g.cc) {
      first = &g;
      break;
    }
  if (!first || !first->text.starts_with("capability ")) return first;
  // "RTX 3090 with CUDA capability sm_86": the same GPU by its name reads better in a fix.
  for (const auto& g : gpus)
    if (g.cc == first->cc && !g.text.starts_with("capability ")) return &g;
  return first;
}

std::string cudnn_version_text(std::string_view v) {
  while (!v.empty() && v.back() == '.') v.remove_suffix(1);  // "8.6.0." at a sentence's end
  if (v.find(',') != std::string_view::npos) {               // PyTorch's "(8, 7, 0)"
    std::string out;
    for (auto part : split(v, ',')) {
      auto p = trim(part);
      if (p.empty()) continue;
      if (!out.empty()) out += '.';
      out += p;
    }
    return out;
  }
  if (v.find('.') != std::string_view::npos) return std::string(v);
  auto n = parse_uint(v);
  if (!n) return std::string(v);
  uint64_t x = *n;
  // cuDNN 9 writes MAJOR*10000 + MINOR*100 + PATCH; before, MAJOR*1000 + MINOR*100 + PATCH.
  if (x >= 10000) return fmt::format("{}.{}.{}", x / 10000, (x % 10000) / 100, x % 100);
  return fmt::format("{}.{}.{}", x / 1000, (x % 1000) / 100, x % 100);
}

std::string library_version_text(std::string_view v) {
  if (v.find('.') != std::string_view::npos) return std::string(v);
  auto n = parse_uint(v);
  if (!n) return std::string(v);
  uint64_t x = *n;
  // cuBLAS: MAJOR*10000 + MINOR*100 + PATCH (120103); cuSPARSE, cuFFT, cuSOLVER: MAJOR*1000 +
  // MINOR*100 + PATCH (12200, 11002).
  if (x >= 100000) return fmt::format("{}.{}.{}", x / 10000, (x % 10000) / 100, x % 100);
  return fmt::format("{}.{}.{}", x / 1000, (x % 1000) / 100, x % 100);
}

std::string cuda_of_wheel_tag(std::string_view tag) {
  if (!tag.starts_with("cu") || tag.size() < 4 || tag.size() > 5) return "";
  std::string_view digits = tag.substr(2);
  for (char c : digits)
    if (c < '0' || c > '9') return "";
  // The last digit is the minor version: cu118 → 11.8, cu92 → 9.2, cu128 → 12.8.
  return fmt::format("{}.{}", digits.substr(0, digits.size() - 1), digits.back());
}

std::string normalise_log_line(std::string_view raw) {
  // Carriage-return progress bars: what the terminal showed last.
  if (auto cr = raw.rfind('\r'); cr != std::string_view::npos && cr + 1 < raw.size())
    raw = raw.substr(cr + 1);
  std::string line = plain_characters(raw);
  static const RE2 kPrefix(
      // "2024-05-01 12:00:00.123456: ", "[2024-05-01T12:00:00Z] ", "I0501 12:00:00.123456 1234
      // file.cc:12] ", "2024-05-01 12:00:00,123 - name - ERROR - ", "E   " (pytest)
      R"re(^\s*(?:\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?:?\s*(?:-\s*\S+\s*-\s*)?(?:\[?(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL|[IWEF])\]?\s*[-:]?\s*)?|[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+\s+\S+:\d+\]\s*|E {3,}))re",
      case_insensitive());
  re2::StringPiece piece(line);
  if (RE2::Consume(&piece, kPrefix)) line = std::string(piece);
  return std::string(trim(line));
}

}  // namespace smcompat::explain
