// The one target resolver (include/smcompat/verdict/targets.hpp).
#include "smcompat/verdict/targets.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "smcompat/util/strings.hpp"

namespace smcompat {

namespace {

// "12.8", "12080" (a CUDA version) or "570.124.06" (a driver build: always with a dot).
Result<Target> with_driver(Target t, std::string_view driver, const Catalog& catalog) {
  driver = trim(driver);
  if (driver.empty()) return t;
  auto d = driver.find('.') != std::string_view::npos ? DriverVersion::parse(driver) : std::nullopt;
  if (d) {
    t.driver = d;
    t.driver_cuda = catalog.max_cuda_for_driver(*d);
    if (!t.driver_cuda)
      return make_error(
          fmt::format("driver {} is older than every CUDA release in the catalog", driver));
  } else if (auto v = Version::parse(driver)) {
    t.driver_cuda = v;
  } else {
    return make_error(fmt::format(
        "driver '{}' is neither a CUDA version (12.8, 12080) nor a driver build (570.124.06)",
        driver));
  }
  return t;
}

std::string without_vendor(std::string name) {
  if (name.rfind("NVIDIA ", 0) == 0) name = name.substr(7);
  return name;
}

}  // namespace

Result<Target> resolve_target(std::string_view gpu_or_arch, std::string_view driver,
                              const Catalog& catalog, std::string_view flag) {
  Target t;
  std::string_view q = trim(gpu_or_arch);
  bool arch_like = q.starts_with("sm") || q.starts_with("compute") || q.find('.') != q.npos;
  std::optional<ComputeCapability> cc = arch_like ? ComputeCapability::parse(q) : std::nullopt;
  if (!cc) {
    if (const GpuSpec* g = catalog.find_gpu(q)) {
      t.gpu = g;
      cc = g->cc;
    }
  }
  if (!cc) cc = ComputeCapability::parse(q);  // "120", "90"
  std::string who = flag.empty() ? fmt::format("'{}'", q) : fmt::format("{} {}", flag, q);
  if (!cc) {
    std::string hint;
    for (const auto* g : catalog.suggest_gpus(q)) hint += (hint.empty() ? "" : ", ") + g->name;
    return make_error(fmt::format(
        "{}: no such GPU in the catalog (unknown GPU or architecture){}", who,
        hint.empty()
            ? "; try a compute capability such as 12.0, an arch such as sm_120, or `smcompat gpus`"
            : "; did you mean: " + hint + "?"));
  }
  if (!catalog.arch(cc->arch()))
    return make_error(fmt::format(
        "{}: compute capability {} is not in the catalog (`smcompat arch`)", who, cc->to_string()));
  t.cc = *cc;
  t.name = t.gpu ? t.gpu->name : "compute capability " + cc->to_string();
  t.label = t.gpu ? fmt::format("{} ({})", t.gpu->name, cc->to_string())
                  : fmt::format("sm_{} ({})", cc->arch(), cc->to_string());
  return with_driver(std::move(t), driver, catalog);
}

ResolvedTargets resolve_targets(const TargetQuery& query, const Catalog& catalog) {
  ResolvedTargets out;
  std::string driver = query.driver;
  if (driver.empty() && query.machine_cuda) driver = std::to_string(*query.machine_cuda);
  for (const auto& m : query.machine) {
    std::string name = without_vendor(m.name);
    bool dup = std::any_of(out.targets.begin(), out.targets.end(), [&](const Target& t) {
      return t.observed && t.name == name && t.cc == m.cc;
    });
    if (dup) continue;
    Target t;
    t.cc = m.cc;
    t.gpu = catalog.find_gpu(name);
    t.name = name;
    t.observed = true;
    t.ordinal = m.ordinal;
    t.label = fmt::format("{} ({}, GPU {} of this machine)", m.name, m.cc.to_string(), m.ordinal);
    auto r = with_driver(std::move(t), driver, catalog);
    if (r)
      out.targets.push_back(std::move(*r));
    else
      out.errors.push_back(r.error());
  }
  for (const auto& n : query.names) {
    auto r = resolve_target(n, driver, catalog, query.flag);
    if (!r) {
      out.errors.push_back(r.error());
      continue;
    }
    bool dup = std::any_of(out.targets.begin(), out.targets.end(), [&](const Target& t) {
      return !t.observed && t.name == r->name && t.cc == r->cc;
    });
    if (!dup) out.targets.push_back(std::move(*r));
  }
  return out;
}

}  // namespace smcompat
