// The doctor's rules about environment variables (rules.hpp): LD_LIBRARY_PATH (the stub libcuda,
// shadowed wheel libraries: ld.so(8)), TORCH_CUDA_ARCH_LIST, CUDA_VISIBLE_DEVICES, the JIT and
// module-loading switches (compatibility-rules.md section 8) and PyTorch's allocator and TF32.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "rules.hpp"
#include "smcompat/doctor/build_env.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::doctor {

namespace fs = std::filesystem;

void Rules::ld_library_path_rules() {
  auto it = env.find("LD_LIBRARY_PATH");
  if (it == env.end() || it->second.empty()) return;
  std::error_code ec;
  for (auto dir : split(it->second, ':')) {
    if (dir.empty()) continue;
    std::string d(dir);
    if (fs::exists(d + "/libcuda.so.1", ec) || fs::exists(d + "/libcuda.so", ec)) {
      if (d.find("stubs") != std::string::npos) {
        add({Severity::kError,
             "ld-library-path-stub",
             "LD_LIBRARY_PATH puts the toolkit's stub libcuda before the driver",
             {"LD_LIBRARY_PATH entry " + d + " holds libcuda (the link-time stub)"},
             "Remove the stubs directory from LD_LIBRARY_PATH; it is for linking only.",
             {},
             "env"});
      }
    }
  }
  // Shadowing: a library that a Python environment's nvidia-* wheel provides, found earlier in
  // LD_LIBRARY_PATH (LD_LIBRARY_PATH wins over RUNPATH, ld.so(8)).
  for (auto& e : r.envs) {
    for (auto& p : e.packages) {
      auto n = normalize_package_name(p.dist.name);
      if (!starts_with(n, "nvidia-")) continue;
      for (auto& so : p.dist.shared_libraries) {
        auto soname = fs::path(so).filename().string();
        for (auto dir : split(it->second, ':')) {
          if (dir.empty()) continue;
          std::string cand = std::string(dir) + "/" + soname;
          if (fs::exists(cand, ec) &&
              fs::weakly_canonical(cand, ec) != fs::weakly_canonical(so, ec)) {
            add({Severity::kWarning,
                 "ld-library-path-shadows",
                 fmt::format("LD_LIBRARY_PATH shadows {} of {}", soname, p.dist.name),
                 {fmt::format("{} would load {} (from LD_LIBRARY_PATH)", soname, cand),
                  fmt::format("instead of {} ({} {} in {})", so, p.dist.name, p.dist.version,
                              e.prefix)},
                 fmt::format("Remove {} from LD_LIBRARY_PATH when using this environment (or unset "
                             "LD_LIBRARY_PATH).",
                             std::string(dir)),
                 {"unset LD_LIBRARY_PATH"},
                 e.prefix});
            break;
          }
        }
      }
    }
  }
}

void Rules::env_var_rules() {
  auto get = [&](const char* n) -> std::optional<std::string> {
    auto it = env.find(n);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  auto ccs = target_ccs();
  if (auto v = get("TORCH_CUDA_ARCH_LIST")) {
    std::vector<std::string> entries;
    for (auto e : split(*v, ';'))
      for (auto e2 : split(e, ' '))
        if (!trim(e2).empty()) entries.emplace_back(trim(e2));
    std::vector<std::string> missing;
    for (auto& t : r.targets)
      if (!arch_list_covers(entries, t.cc))
        missing.push_back(t.name + " (" + t.cc.to_string() + ")");
    if (!missing.empty()) {
      BuildEnvRequest req;
      req.gpus = ccs;
      for (auto& e : entries)
        if (auto c = ComputeCapability::parse(e.substr(0, e.find('+')))) req.keep.push_back(*c);
      req.toolkits = r.toolkits;
      req.host = r.host;
      auto be = compute_build_env(req, cat);
      std::string list;
      for (auto& m : missing) list += (list.empty() ? "" : ", ") + m;
      add({Severity::kWarning,
           "arch-list-missing-gpu",
           "TORCH_CUDA_ARCH_LIST leaves out " + list,
           {"TORCH_CUDA_ARCH_LIST=" + *v,
            "extensions built now get no code for these GPUs (no kernel image at run time)"},
           fmt::format("Set TORCH_CUDA_ARCH_LIST=\"{}\" before building (nvcc >= {}).",
                       be.arch_list, be.min_nvcc ? be.min_nvcc->to_string() : "?"),
           {fmt::format("export TORCH_CUDA_ARCH_LIST=\"{}\"", be.arch_list)},
           "env"});
    }
  }
  if (auto v = get("CUDA_VISIBLE_DEVICES")) {
    std::string s(trim(*v));
    bool hides = s.empty() || s == "-1" || to_lower(s) == "none" || to_lower(s) == "void";
    add({hides ? Severity::kWarning : Severity::kInfo,
         hides ? "cuda-visible-devices-hides" : "cuda-visible-devices",
         hides ? "CUDA_VISIBLE_DEVICES hides every GPU" : "CUDA_VISIBLE_DEVICES selects GPUs: " + s,
         {"CUDA_VISIBLE_DEVICES=" + *v},
         hides ? "Unset it (or list the GPUs to use) unless hiding the GPUs is intended." : "",
         hides ? std::vector<std::string>{"unset CUDA_VISIBLE_DEVICES"}
               : std::vector<std::string>{},
         "env"});
  }
  for (const char* n : {"CUDA_FORCE_PTX_JIT", "CUDA_FORCE_JIT"}) {
    if (auto v = get(n); v && *v == "1") {
      add({Severity::kWarning,
           "force-ptx-jit",
           std::string(n) + "=1: every kernel is JIT-compiled from PTX, embedded SASS is ignored",
           {std::string(n) + "=" + *v,
            "kernels without embedded PTX fail to load; first start is slow "
            "(compatibility-rules.md section 8)"},
           "Unset it unless you are testing whether usable PTX is present.",
           {std::string("unset ") + n},
           "env"});
      break;
    }
  }
  for (const char* n : {"CUDA_DISABLE_PTX_JIT", "CUDA_DISABLE_JIT"}) {
    if (auto v = get(n); v && *v == "1") {
      bool needs_jit = std::any_of(r.verdicts.begin(), r.verdicts.end(),
                                   [](const PackageVerdict& pv) { return pv.fit == Fit::kPtxJit; });
      add({needs_jit ? Severity::kError : Severity::kWarning,
           "disable-ptx-jit",
           std::string(n) + "=1: kernels without matching SASS fail to load",
           {std::string(n) + "=" + *v,
            needs_jit ? "some packages here run only by PTX JIT (see their verdicts)"
                      : "code that relies on PTX JIT fails with "
                        "CUDA_ERROR_JIT_COMPILATION_DISABLED (223)"},
           "Unset it unless you are testing whether code runs natively.",
           {std::string("unset ") + n},
           "env"});
      break;
    }
  }
  auto loading = get("CUDA_MODULE_LOADING");
  if (loading && to_lower(*loading) == "eager") {
    add({Severity::kInfo,
         "module-loading-eager",
         "CUDA_MODULE_LOADING=EAGER: every module (and its PTX JIT) loads at start",
         {"CUDA_MODULE_LOADING=" + *loading},
         "Lazy loading (the default on Linux since CUDA 12.2) starts faster and uses less "
         "memory; "
         "unset the variable unless you need eager loading.",
         {"unset CUDA_MODULE_LOADING"},
         "env"});
  } else {
    add({Severity::kInfo,
         "module-loading-lazy",
         "CUDA lazy loading is in effect (default since CUDA 12.2)",
         {loading ? "CUDA_MODULE_LOADING=" + *loading : "CUDA_MODULE_LOADING unset"},
         "Kernels load (and JIT) at first use; set CUDA_MODULE_LOADING=EAGER only to move that "
         "cost to start-up, e.g. for timing.",
         {},
         "env"});
  }
  bool have_torch =
      std::any_of(r.envs.begin(), r.envs.end(), [](auto& e) { return e.torch.has_value(); });
  if (have_torch) {
    if (auto v = get("PYTORCH_CUDA_ALLOC_CONF")) {
      add({Severity::kInfo,
           "alloc-conf",
           "PYTORCH_CUDA_ALLOC_CONF is set",
           {"PYTORCH_CUDA_ALLOC_CONF=" + *v},
           "",
           {},
           "env"});
    } else {
      add({Severity::kInfo,
           "alloc-conf-expandable",
           "PyTorch's caching allocator can use expandable segments",
           {"PYTORCH_CUDA_ALLOC_CONF unset"},
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True reduces fragmentation (fewer "
           "out-of-memory errors with varying tensor sizes); a performance setting, not a fix.",
           {},
           "env"});
    }
    bool tf32 =
        std::any_of(r.targets.begin(), r.targets.end(), [](auto& t) { return t.cc.major >= 8; });
    if (tf32) {
      add({Severity::kInfo,
           "tf32",
           "TF32 tensor-core matmuls are available on these GPUs but off by default for matmul",
           {"GPUs: " + gpu_names()},
           "torch.set_float32_matmul_precision(\"high\") (or "
           "torch.backends.cuda.matmul.allow_tf32 = "
           "True) trades ~3 decimal digits of float32 precision for several times the matmul "
           "speed.",
           {},
           "env"});
    }
  }
}

void Rules::no_target_hint() {
  if (!r.targets.empty()) return;
  add({Severity::kInfo,
       "no-target-gpu",
       "No GPU to judge the environments for",
       {"the driver reports no GPU and no --gpu was given"},
       "Ask what-if questions: smcompat doctor --gpu \"RTX 5090\" (repeat --gpu for several; "
       "`smcompat gpus` lists the names).",
       {},
       "env"});
}

}  // namespace smcompat::doctor
