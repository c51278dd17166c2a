// Build settings for PyTorch / CUDA extensions (build_env.hpp). Arch-list semantics follow
// torch.utils.cpp_extension (entries "X.Y", "+PTX" adds compute_XY PTX); minimum nvcc per target
// is the catalog's first_cuda (compatibility-rules.md section 10); +PTX on the newest entry gives
// forward compatibility through driver JIT (section 5). MAX_JOBS: nvcc/cicc jobs for PyTorch-sized
// translation units take about 2 GiB each (PyTorch CONTRIBUTING "MAX_JOBS" advice).
#include "smcompat/doctor/build_env.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace smcompat::doctor {

BuildEnv compute_build_env(const BuildEnvRequest& req, const Catalog& catalog) {
  BuildEnv env;
  const ToolkitFacts* tk = req.toolkits.empty() ? nullptr : &req.toolkits.front();
  std::optional<Version> nvcc = tk ? tk->version : std::nullopt;

  // The archs to build: every requested GPU's own CC (or the lowest same-major CC that this nvcc
  // can build, since SASS runs on higher minors of the same major), plus archs to keep.
  std::set<int> archs;
  std::vector<std::string> reasons;
  for (auto cc : req.gpus) {
    const ArchInfo* a = catalog.arch(cc.arch());
    int chosen = cc.arch();
    if (a && a->first_cuda) {
      if (!env.min_nvcc || *env.min_nvcc < *a->first_cuda) env.min_nvcc = a->first_cuda;
      if (nvcc && *nvcc < *a->first_cuda) {
        // Fall back to the lowest minor of the same major this nvcc can build (sm_120 for 12.1).
        std::optional<int> fallback;
        for (auto& other : catalog.archs()) {
          if (other.sm / 10 == cc.major && other.sm < cc.arch() && other.first_cuda &&
              *other.first_cuda <= *nvcc && !other.renamed_to)
            fallback = fallback ? std::max(*fallback, other.sm) : other.sm;
        }
        if (fallback) {
          env.problems.push_back(fmt::format(
              "nvcc {} cannot build sm_{} (needs CUDA {}); building sm_{} instead, which runs on "
              "{} by the same-major rule",
              nvcc->to_string(), cc.arch(), a->first_cuda->to_string(), *fallback, cc.to_string()));
          chosen = *fallback;
        } else {
          env.problems.push_back(fmt::format("nvcc {} cannot build sm_{}: install CUDA {} or newer",
                                             nvcc->to_string(), cc.arch(),
                                             a->first_cuda->to_string()));
        }
      }
    }
    archs.insert(chosen);
  }
  // Kept archs must be ones the toolkit builds: CUDA 13 dropped sm_50..sm_72 (a list with 5.3
  // makes nvcc 13 stop with "Unsupported gpu architecture 'compute_53'").
  const std::optional<Version> builder = nvcc ? nvcc : env.min_nvcc;
  auto buildable = [&](int arch, bool specific) -> bool {
    const ArchInfo* a = catalog.arch(arch);
    if (!a || !builder) return true;
    if (a->last_cuda && *a->last_cuda < *builder) {
      env.problems.push_back(fmt::format(
          "leaving out sm_{}{}: CUDA {} no longer builds it (the "
          "last CUDA that did: {})",
          arch, specific ? " (specific)" : "", builder->to_string(), a->last_cuda->to_string()));
      return false;
    }
    return true;
  };
  for (auto cc : req.keep)
    if (!archs.count(cc.arch()) && buildable(cc.arch(), false)) archs.insert(cc.arch());

  std::vector<std::string> entries;
  for (int a : archs) entries.push_back(ComputeCapability::from_arch(a).to_string());
  for (const auto& s : req.keep_specific) {
    auto cc = ComputeCapability::parse(s);  // "9.0a" -> 9.0
    if (cc && buildable(cc->arch(), true) &&
        std::find(entries.begin(), entries.end(), s) == entries.end())
      entries.push_back(s);
  }
  auto arch_of = [](const std::string& e) {
    auto cc = ComputeCapability::parse(e);
    return cc ? cc->arch() : 0;
  };
  std::stable_sort(entries.begin(), entries.end(), [&](const std::string& a, const std::string& b) {
    return arch_of(a) < arch_of(b);
  });
  // +PTX on the newest base entry: `a`/`f` PTX does not JIT forward (compatibility-rules.md 3).
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    if (it->back() != 'a' && it->back() != 'f') {
      *it += "+PTX";
      break;
    }
  std::string list;
  for (auto& e : entries) list += (list.empty() ? "" : ";") + e;
  env.arch_list = list;
  if (!list.empty()) {
    std::string why = "SASS for each GPU";
    if (!req.keep.empty()) why += " and for the archs the package already had";
    std::string ptx_on;
    for (const auto& e : entries)
      if (auto plus = e.find("+PTX"); plus != std::string::npos) ptx_on = e.substr(0, plus);
    why += fmt::format("; +PTX on {} so newer GPUs can JIT it", ptx_on);
    if (env.min_nvcc) why += fmt::format("; needs nvcc >= {}", env.min_nvcc->to_string());
    env.lines.push_back({"TORCH_CUDA_ARCH_LIST", list, why});
  }
  if (tk) {
    std::string why = fmt::format("the toolkit the build uses (CUDA {}, found by {})",
                                  tk->version ? tk->version->to_string() : "?",
                                  tk->found_by.empty() ? "search" : tk->found_by.front());
    env.lines.push_back({"CUDA_HOME", tk->root, why});
    if (tk->nvcc.empty()) env.problems.push_back(fmt::format("{} has no bin/nvcc", tk->root));
  } else {
    env.problems.push_back("no CUDA toolkit found: install one (nvcc >= " +
                           (env.min_nvcc ? env.min_nvcc->to_string() : std::string("12.8")) +
                           ") and set CUDA_HOME to it");
  }
  if (nvcc && env.min_nvcc && *nvcc < *env.min_nvcc && env.problems.empty())
    env.problems.push_back(fmt::format("nvcc {} is older than CUDA {} that these targets need",
                                       nvcc->to_string(), env.min_nvcc->to_string()));

  // MAX_JOBS: about 2 GiB per job, never more than the cores.
  double mem = req.host.mem_available_gib > 0 ? req.host.mem_available_gib : req.host.mem_total_gib;
  unsigned by_mem =
      mem > 0 ? static_cast<unsigned>(std::max(1.0, std::floor(mem / 2.0))) : req.host.cores;
  unsigned jobs = std::max(1u, std::min(req.host.cores, by_mem));
  env.lines.push_back(
      {"MAX_JOBS", std::to_string(jobs),
       fmt::format("{} cores, {:.1f} GiB memory available, about 2 GiB per nvcc job",
                   req.host.cores, mem)});
  if (req.what == BuildFor::kPytorch) {
    env.lines.push_back({"USE_CUDA", "1", "build the CUDA backend"});
    if (!list.empty())
      env.lines.push_back({"CMAKE_CUDA_ARCHITECTURES",
                           [&] {
                             std::string s;
                             for (int a : archs) s += (s.empty() ? "" : ";") + std::to_string(a);
                             return s;
                           }(),
                           "the same targets for CMake-built parts"});
  }
  if (req.host.cxx.empty())
    env.problems.push_back("no host C++ compiler (c++, g++ or clang++) on PATH: nvcc needs one");
  return env;
}

}  // namespace smcompat::doctor
