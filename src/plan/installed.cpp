// The installed kernels of a serving environment against a plan (include/smcompat/plan/
// installed.hpp): the doctor's package scan for one what-if GPU, the library each engine loads at
// import judged alone, and the reasons and notes added to the plans.
//
// The libraries loaded at import, read from the packages' own Python sources:
// - vllm 0.33.0: vllm/platforms/cuda.py imports vllm._C_stable_libtorch at module level (and
//   _moe_C_stable_libtorch, optional _qutlass_C, in import_kernels()); older releases import
//   vllm._C. Everything else (_vllm_fa3_C, _flashmla_C, _deepselect_C, ...) is imported by the
//   feature that needs it.
// - sgl-kernel 0.3.21: sgl_kernel/load_utils.py _load_architecture_specific_ops() loads
//   sgl_kernel/sm90/common_ops.*.so when the compute capability is 90 and sgl_kernel/sm100/... for
//   every other one; older releases have one sgl_kernel/common_ops.*.so.
// - tensorrt-llm, deep-ep: not read; the best of their libraries decides.
#include "smcompat/plan/installed.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "smcompat/doctor/doctor.hpp"
#include "smcompat/doctor/facts.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::plan {
namespace {

namespace fs = std::filesystem;

bool cannot_run(Fit f) { return rank(f) >= rank(Fit::kUnsupportedPtx); }

// `path` below `site` ("vllm/_C.abi3.so"), or as given when it is elsewhere.
std::string below(const std::string& path, const std::string& site) {
  auto rel = fs::path(path).lexically_relative(site);
  if (rel.empty() || *rel.begin() == "..") return path;
  return rel.generic_string();
}

bool matches_any(const std::vector<std::string>& patterns, const std::string& rel) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) {
    return fnmatch(p.c_str(), rel.c_str(), FNM_PATHNAME) == 0;
  });
}

// One kept package judged from its verdict `v` (nullptr: no device code) and its code `code`.
InstalledPackage judge_package(const doctor::PythonEnv& env, const doctor::PackageCode& code,
                               const doctor::PackageVerdict* v, ComputeCapability cc) {
  InstalledPackage out;
  out.name = normalize_package_name(code.dist.name);
  out.version = code.dist.version;
  out.has_device_code = v && !v->libraries.empty();
  if (!out.has_device_code) {
    out.detail = "no device code";
    return out;
  }
  out.fit = v->fit;
  auto patterns = core_library_patterns(out.name, cc);
  std::vector<const doctor::LibraryVerdict*> core;
  for (auto& lib : v->libraries)
    if (matches_any(patterns, below(lib.path, env.site_packages))) core.push_back(&lib);
  std::set<std::string> judged;  // paths whose targets `carries` lists
  const doctor::LibraryVerdict* decides = nullptr;
  if (!core.empty()) {
    // Each core library is loaded: the worst of them decides.
    for (auto* lib : core) {
      judged.insert(lib->path);
      if (!decides || rank(lib->fit) > rank(decides->fit)) decides = lib;
    }
    out.runs = decides->fit;
    out.detail = fmt::format("{}, loaded at import: {}", below(decides->path, env.site_packages),
                             to_string(decides->fit));
  } else {
    for (auto& lib : v->libraries) {
      judged.insert(lib.path);
      if (!decides || rank(lib.fit) < rank(decides->fit)) decides = &lib;
    }
    out.runs = decides->fit;
    auto path = below(decides->path, env.site_packages);
    out.detail = v->libraries.size() == 1
                     ? fmt::format("{}: {}", path, to_string(decides->fit))
                     : fmt::format("{}, the best of its {} libraries: {}", path,
                                   v->libraries.size(), to_string(decides->fit));
  }
  if (!decides->best_image.empty()) out.detail += ", best image " + decides->best_image;
  std::set<SmTarget> targets;
  for (auto& lib : code.libraries)
    if (judged.count(lib.path)) targets.insert(lib.targets.begin(), lib.targets.end());
  std::vector<std::string> names;
  for (auto& t : targets) names.push_back(t.to_string());
  out.carries = smcompat::join(names, ", ");
  for (auto& lib : v->libraries)
    if (!judged.count(lib.path) && cannot_run(lib.fit))
      out.without_code.push_back(below(lib.path, env.site_packages));
  return out;
}

std::string cannot_load(const InstalledPackage& p, const EngineKernels& k) {
  return fmt::format("{} {} cannot load on {} (sm_{}): {}; it carries {}", p.name, p.version, k.gpu,
                     k.cc.arch(), p.detail, p.carries);
}

std::string ptx_only(const InstalledPackage& p, const EngineKernels& k) {
  return fmt::format(
      "{} {} runs on {} (sm_{}) only by PTX JIT, which compiles its kernels at the first start "
      "(minutes): {}; it carries {}",
      p.name, p.version, k.gpu, k.cc.arch(), p.detail, p.carries);
}

std::string not_installed(std::string_view name, const EngineKernels& k) {
  return fmt::format("{} is not installed in {}: the plan is not checked against its kernels", name,
                     k.python);
}

}  // namespace

const InstalledPackage* EngineKernels::find(std::string_view name) const {
  for (auto& p : packages)
    if (p.name == name) return &p;
  return nullptr;
}

const std::vector<std::string>& serving_packages() {
  static const std::vector<std::string> kNames = {"vllm",
                                                  "sglang",
                                                  "sgl-kernel",
                                                  "tensorrt-llm",
                                                  "flashinfer-python",
                                                  "flashinfer-cubin",
                                                  "flashinfer-jit-cache",
                                                  "deep-ep",
                                                  "deep-gemm",
                                                  "torch",
                                                  "triton",
                                                  "nvidia-nvshmem-cu12",
                                                  "nvidia-nvshmem-cu13"};
  return kNames;
}

std::string_view engine_package(Engine engine) {
  switch (engine) {
    case Engine::kVllm:
      return "vllm";
    case Engine::kSglang:
      return "sglang";
    case Engine::kTrtllm:
      return "tensorrt-llm";
  }
  return "";
}

std::string_view engine_kernel_package(Engine engine) {
  return engine == Engine::kSglang ? "sgl-kernel" : engine_package(engine);
}

std::vector<std::string> core_library_patterns(std::string_view package, ComputeCapability cc) {
  if (package == "vllm") return {"vllm/_C.*.so", "vllm/_C_stable_libtorch.*.so"};
  if (package == "sgl-kernel")
    return {"sgl_kernel/common_ops.*.so", cc.arch() == 90 ? "sgl_kernel/sm90/common_ops.*.so"
                                                          : "sgl_kernel/sm100/common_ops.*.so"};
  return {};
}

Result<EngineKernels> engine_kernels(const std::string& python, const GpuSpec& gpu) {
  doctor::DoctorOptions opt;
  opt.pythons = {python};
  opt.gpus = {gpu.name};
  opt.discover_active = false;
  opt.scan_code = true;
  // The GPU is planned, not present: no driver is looked at (the PTX JIT check against the
  // driver's CUDA version is left out, as with `smcompat doctor --gpu` on a machine without one).
  doctor::DriverFacts driver;
  driver.detail = "not checked: the GPU of the plan is a what-if target";
  opt.driver = driver;
  auto report = doctor::run_doctor(opt);

  EngineKernels k;
  k.python = python;
  k.gpu = gpu.name;
  k.cc = gpu.cc;
  k.errors = report.errors;
  if (report.envs.empty())
    return make_error(report.errors.empty()
                          ? fmt::format("no Python environment found at {}", python)
                          : smcompat::join(report.errors, ", "));
  std::string target = report.targets.empty() ? gpu.name : report.targets.front().name;
  auto& keep = serving_packages();
  for (auto& env : report.envs) {
    for (auto& code : env.packages) {
      auto name = normalize_package_name(code.dist.name);
      if (std::find(keep.begin(), keep.end(), name) == keep.end() || k.find(name)) continue;
      const doctor::PackageVerdict* verdict = nullptr;
      for (auto& v : report.verdicts)
        if (v.env == env.prefix && v.package == code.dist.name && v.gpu == target) verdict = &v;
      k.packages.push_back(judge_package(env, code, verdict, gpu.cc));
    }
  }
  return k;
}

void apply_engine_kernels(const EngineKernels& k, Engine engine, std::vector<PlanEstimate>& plans) {
  std::vector<std::string> why_all, notes_all, why_deepep, notes_deepep;
  auto own = engine_package(engine);
  auto kernels = engine_kernel_package(engine);
  const InstalledPackage* kp = k.find(kernels);
  if (!k.find(own)) {
    notes_all.push_back(not_installed(own, k));
  } else if (!kp) {
    notes_all.push_back(not_installed(kernels, k));
  }
  if (kp && kp->has_device_code) {
    if (cannot_run(kp->runs)) {
      why_all.push_back(cannot_load(*kp, k));
    } else {
      if (kp->runs == Fit::kPtxJit) notes_all.push_back(ptx_only(*kp, k));
      if (!kp->without_code.empty())
        notes_all.push_back(fmt::format(
            "{} {}: {} of its libraries have no code for sm_{} ({}); the features they serve are "
            "not available on {}",
            kp->name, kp->version, kp->without_code.size(), k.cc.arch(),
            smcompat::join(kp->without_code, ", "), k.gpu));
    }
  }
  if (const InstalledPackage* torch = k.find("torch"); torch && torch->has_device_code) {
    if (cannot_run(torch->runs))
      why_all.push_back(cannot_load(*torch, k));
    else if (torch->runs == Fit::kPtxJit)
      notes_all.push_back(ptx_only(*torch, k));
  }
  // DeepEP is its own distribution for vLLM and SGLang; TensorRT-LLM's wheel may carry a DeepEP
  // build of its own (not checked here), so a missing deep-ep does not block its plans.
  const InstalledPackage* ep = k.find("deep-ep");
  if (!ep && engine != Engine::kTrtllm) {
    why_deepep.push_back(fmt::format(
        "DeepEP is not installed in {} (no deep_ep distribution): install it, or serve with "
        "a plan without DeepEP",
        k.python));
  } else if (ep && ep->has_device_code) {
    if (cannot_run(ep->runs))
      why_deepep.push_back(cannot_load(*ep, k));
    else if (ep->runs == Fit::kPtxJit)
      notes_deepep.push_back(ptx_only(*ep, k));
  }

  for (auto& plan : plans) {
    bool deepep = plan.shape.a2a == AllToAll::kDeepEp;
    auto add = [&](const std::vector<std::string>& why, const std::vector<std::string>& notes) {
      plan.why_not.insert(plan.why_not.end(), why.begin(), why.end());
      plan.notes.insert(plan.notes.end(), notes.begin(), notes.end());
      if (!why.empty()) plan.runnable = plan.fits = false;
    };
    add(why_all, notes_all);
    if (deepep) add(why_deepep, notes_deepep);
  }
}

}  // namespace smcompat::plan
