// The doctor's rules: facts (facts.hpp) x target GPUs -> package verdicts and findings.
// Package verdicts come from verdict/ (judge_file: compatibility-rules.md sections 1-7); driver
// minimums section 9; environment variables section 8; PyTorch channels section 11
// (data/python_packages.json); Blackwell needs the open kernel modules (NVIDIA driver README "Open
// Linux Kernel Modules": GPUs from Blackwell on are supported only by the open flavour).
#include "smcompat/doctor/doctor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <set>

#include "rules.hpp"
#include "smcompat/util/enum_names.hpp"
#include "smcompat/util/host.hpp"
#include "smcompat/util/strings.hpp"
#include "smcompat/verdict/package.hpp"
#include "smcompat/verdict/runtime_need.hpp"
#include "smcompat/verdict/verdict.hpp"

namespace smcompat::doctor {

namespace fs = std::filesystem;

constexpr std::array<const char*, 3> kSeverityNames = {"info", "warning", "error"};
const char* to_string(Severity s) { return enum_name(s, kSeverityNames, "?"); }

std::optional<Severity> parse_severity(std::string_view s) {
  if (s == "info") return Severity::kInfo;
  if (s == "warning") return Severity::kWarning;
  if (s == "error") return Severity::kError;
  return std::nullopt;
}

size_t DoctorReport::count(Severity s) const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(),
                                           [&](const Finding& f) { return f.severity == s; }));
}

const Finding* DoctorReport::find(std::string_view id) const {
  for (auto& f : findings)
    if (f.id == id) return &f;
  return nullptr;
}

// The verdict module judges each inventory (units = fatbin containers or bare images); a library
// gets the best of its inventories (one per file, more for archives), and that FileVerdict goes
// into the package roll-up (verdict/package.hpp).
LibraryVerdict judge_library(const LibraryCode& lib, const Target& target, const Catalog& cat,
                             FileVerdict* file_verdict) {
  LibraryVerdict v;
  v.path = lib.path;
  v.reason = "no image of this library can run on " + target.label;
  bool first = true;
  for (auto& inv : lib.inventories) {
    if (inv.images.empty()) continue;
    auto fv = judge_file(inv, target, cat);
    if (!fv.has_device_code) continue;
    Fit f = fv.verdict;
    if (first || better(f, v.fit)) {
      first = false;
      v.fit = f;
      v.reason = fv.summary;
      v.best_image.clear();
      for (auto& u : fv.units) {
        if (u.verdict == fv.code_verdict || u.verdict == fv.verdict) {
          if (u.chosen && *u.chosen < inv.images.size()) {
            v.best_image = inv.images[*u.chosen].target.to_string();
            break;
          }
        }
      }
      if (file_verdict) *file_verdict = std::move(fv);
    }
  }
  return v;
}

std::string targets_text(const std::vector<std::string>& t, size_t max) {
  std::string s;
  for (size_t i = 0; i < t.size() && i < max; ++i) s += (i ? " " : "") + t[i];
  if (t.size() > max) s += fmt::format(" … (+{})", t.size() - max);
  return s;
}

std::string python_of(const PythonEnv& env) {
  if (env.kind == "site-packages") return "";
  for (const char* n : {"/bin/python", "/bin/python3"}) {
    std::error_code ec;
    if (fs::exists(env.prefix + n, ec)) return env.prefix + n;
  }
  return "";
}

PackageVerdict Rules::verdict(const PythonEnv& e, const PackageCode& p, const Target& t) {
  PackageVerdict v;
  v.env = e.prefix;
  v.package = p.dist.name;
  v.version = p.dist.version;
  v.gpu = t.name;
  v.cc = t.cc;
  // A package that loads one of several libraries at run time is judged by that one alone.
  const LibraryCode* only = nullptr;
  bool select = false;
  if (const RuntimeVariantRule* rule = k.variant_rule(p.dist.name, p.dist.version);
      rule && (e.torch || env.count(rule->override_env))) {
    v.variant = choose_variant(*rule, p.dist, e.torch ? e.torch->cuda : std::nullopt, env);
    select = true;
    for (auto& lib : p.libraries)
      if (lib.path == v.variant->chosen) only = &lib;
  }
  std::set<SmTarget> found;
  for (auto& lib : p.libraries)
    if (!select || &lib == only) found.insert(lib.targets.begin(), lib.targets.end());
  for (auto& s : found) v.targets.push_back(s.to_string());
  Target target = t;  // resolve_targets() already found its catalog entry
  target.driver_cuda = driver_cuda();
  target.driver = r.driver.version;
  target.label = t.name;
  std::vector<PackageLibrary> judged;
  for (auto& lib : p.libraries) {
    if (select && &lib != only) continue;
    FileVerdict fv;
    auto lv = judge_library(lib, target, cat, &fv);
    if (!fv.has_device_code) continue;  // kernel-less cubins only: nothing to launch
    judged.push_back({lib.path, std::move(fv)});
    v.libraries.push_back(std::move(lv));
  }
  // One roll-up for scan, advise and the doctor: the libraries that load on this GPU decide.
  // The CUDA runtime the package needs (its METADATA, a bundled libcudart), by the index's rule.
  RuntimeClues clues{p.dist.name, host_machine(), p.dist.requires_dist, {}, {}};
  if (!p.dist.bundled_cudart.empty())
    clues.runtime_libraries.push_back(fs::path(p.dist.bundled_cudart).filename().string());
  for (auto& lib : p.libraries) clues.library_paths.push_back(lib.path);
  v.rollup = judge_package(judged, {p.dist.name, runtime_need(infer_cuda_runtime(clues)), ""},
                           target, cat);
  v.fit = v.rollup.has_device_code ? v.rollup.fit : Fit::kNative;
  if (select && !only) v.fit = Fit::kNoImage;  // nothing with device code loads
  return v;
}

std::vector<LibraryVerdict> Rules::worst_libs(const PackageVerdict& v) {
  // The libraries that decide the package verdict with that fit (judge_package).
  std::vector<LibraryVerdict> out;
  for (auto& l : v.libraries)
    for (auto& j : v.rollup.libraries)
      if (j.path == l.path && j.decides && l.fit == v.fit) out.push_back(l);
  return out;
}

std::vector<std::string> Rules::lib_evidence(const PackageVerdict& v, size_t max) {
  std::vector<std::string> ev;
  auto libs = worst_libs(v);
  for (size_t i = 0; i < libs.size() && i < max; ++i) {
    auto& l = libs[i];
    ev.push_back(fmt::format("{}: {}{}", l.path, to_string(l.fit),
                             l.best_image.empty() ? "" : " (best image " + l.best_image + ")"));
  }
  if (libs.size() > max) ev.push_back(fmt::format("… and {} more libraries", libs.size() - max));
  for (auto& l : v.rollup.not_running) ev.push_back("not loaded on this GPU: " + l);
  if (!v.rollup.jit_libraries.empty() && v.fit != Fit::kPtxJit) ev.push_back(v.rollup.route);
  ev.push_back("device code found: " + targets_text(v.targets));
  return ev;
}

void Rules::run() {
  r.findings.clear();
  r.verdicts.clear();
  driver_rules();
  toolkit_rules();
  for (auto& e : r.envs) torch_rules(e);    // torch first: its fix comes first in the script
  for (auto& e : r.envs) package_rules(e);  // fills verdicts (used by the env-var rules)
  ld_library_path_rules();
  env_var_rules();
  no_target_hint();
  std::stable_sort(r.findings.begin(), r.findings.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
}

void Rules::run_for_process() {
  r.findings.clear();
  r.verdicts.clear();
  driver_rules();
  for (auto& e : r.envs) torch_rules(e);
  for (auto& e : r.envs) package_rules(e);
  ld_library_path_rules();
  env_var_rules();
  no_target_hint();
  std::stable_sort(r.findings.begin(), r.findings.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
}

bool is_cuda_variable(std::string_view n) {
  static constexpr std::string_view kNames[] = {"TORCH_CUDA_ARCH_LIST",
                                                "CUDA_HOME",
                                                "CUDA_PATH",
                                                "CUDA_VISIBLE_DEVICES",
                                                "CUDA_FORCE_PTX_JIT",
                                                "CUDA_FORCE_JIT",
                                                "CUDA_DISABLE_PTX_JIT",
                                                "CUDA_DISABLE_JIT",
                                                "CUDA_MODULE_LOADING",
                                                "PYTORCH_CUDA_ALLOC_CONF",
                                                "LD_LIBRARY_PATH",
                                                "VIRTUAL_ENV",
                                                "CONDA_PREFIX",
                                                "CUDA_CACHE_DISABLE",
                                                "CUDA_CACHE_PATH",
                                                "CUDA_CACHE_MAXSIZE",
                                                "TRITON_PTXAS_PATH",
                                                "MAX_JOBS"};
  if (std::find(std::begin(kNames), std::end(kNames), n) != std::end(kNames)) return true;
  for (auto& rule : PackageKnowledge::builtin().variant_rules)
    if (n == rule.override_env) return true;
  return false;
}

void judge(DoctorReport& report, const Catalog& catalog) {
  Rules rules{report, catalog, PackageKnowledge::builtin(), {}};
  for (auto& [n, v] : report.env_vars) rules.env[n] = v;
  rules.run();
}

DriverFacts collect_driver(const DoctorOptions& options);  // driver.cpp

DoctorReport run_doctor(const DoctorOptions& options, const Catalog& catalog) {
  DoctorReport r;
  r.driver = options.driver ? *options.driver : collect_driver(options);
  // This machine's GPUs first (several of one model are judged once; the driver section lists
  // each of them), then the what-if GPUs asked with --gpu.
  TargetQuery query;
  query.names = options.gpus;
  for (size_t i = 0; i < r.driver.gpus.size(); ++i)
    query.machine.push_back({r.driver.gpus[i].name, r.driver.gpus[i].cc, static_cast<int>(i)});
  auto resolved = resolve_targets(query, catalog);
  r.targets = std::move(resolved.targets);
  for (auto& e : resolved.errors) r.errors.push_back(e.what);
  r.toolkits = find_toolkits(options.env, options.usr_local);
  r.host = read_host(options.env);
  auto cache_dirs = ld_conf_dirs(options.ld_so_conf);
  for (const char* so : {"libcuda.so.1", "libnvidia-ml.so.1", "libcudart.so.13", "libcudart.so.12",
                         "libcublas.so.13", "libcublas.so.12", "libcudnn.so.9"}) {
    auto res = resolve_library(so, options.env, cache_dirs);
    if (!res.path.empty() || std::string(so) == "libcuda.so.1") r.libraries.push_back(res);
  }
  std::vector<EnvLocation> where;
  for (auto& p : options.pythons) {
    auto locs = locate_python(p, "--python");
    if (!locs) {
      r.errors.push_back(locs.error().to_string());
      continue;
    }
    for (auto& l : *locs) where.push_back(l);
  }
  if (options.discover_active) {
    for (auto& l : discover_active_pythons(options.env)) where.push_back(l);
  }
  // Directories added by .pth files are importable too; then each real directory once.
  for (size_t i = 0, n = where.size(); i < n; ++i)
    for (auto& l : pth_locations(where[i])) where.push_back(l);
  where = unique_locations(std::move(where));
  for (auto& w : where) r.envs.push_back(read_python_env(w, options.scan_code, options.jobs));
  for (auto& [n, v] : options.env)
    if (is_cuda_variable(n)) r.env_vars.emplace_back(n, v);
  judge(r, catalog);
  return r;
}

}  // namespace smcompat::doctor
