// The doctor's rules (private to src/doctor/): one Rules object per judge() call applies every
// rule to a report's facts. doctor.cpp holds what the rules share (package verdicts, evidence)
// and runs them; the rules themselves are spread by subject: rules_machine.cpp (driver, kernel
// module, toolkits), rules_python.cpp (torch and its companions, packages with GPU code),
// rules_env.cpp (LD_LIBRARY_PATH and the CUDA-related environment variables).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "smcompat/doctor/doctor.hpp"

namespace smcompat::doctor {

/// The verdict of one library for one GPU: the best over its inventories (verdict/judge_file).
LibraryVerdict judge_library(const LibraryCode& lib, const Target& target, const Catalog& cat,
                             FileVerdict* file_verdict = nullptr);
/// "sm_80 sm_90 … (+3)".
std::string targets_text(const std::vector<std::string>& targets, size_t max = 12);
/// The environment's interpreter ("" for a bare site-packages).
std::string python_of(const PythonEnv& env);
inline bool is_blackwell(ComputeCapability cc) { return cc.major >= 10; }

struct Rules {
  DoctorReport& r;
  const Catalog& cat;
  const PackageKnowledge& k = PackageKnowledge::builtin();
  Environment env;  // rebuilt from report.env_vars plus what judge() needs

  void add(Finding f) { r.findings.push_back(std::move(f)); }

  std::vector<ComputeCapability> target_ccs() const {
    std::vector<ComputeCapability> v;
    for (auto& t : r.targets)
      if (std::find(v.begin(), v.end(), t.cc) == v.end()) v.push_back(t.cc);
    return v;
  }

  std::string gpu_names() const {
    std::string s;
    for (auto& t : r.targets) s += (s.empty() ? "" : ", ") + t.name;
    return s;
  }

  std::optional<Version> driver_cuda() const {
    if (r.driver.cuda) return r.driver.cuda;
    if (r.driver.version) return cat.max_cuda_for_driver(*r.driver.version);
    return std::nullopt;
  }

  // Shared by the rules (doctor.cpp).
  PackageVerdict verdict(const PythonEnv& e, const PackageCode& p, const Target& t);
  std::vector<LibraryVerdict> worst_libs(const PackageVerdict& v);
  std::vector<std::string> lib_evidence(const PackageVerdict& v, size_t max = 3);
  void run();
  /// The rules that speak about a running process (process_check.cpp): driver, torch,
  /// packages, library path and variables; not the toolkits (nothing is being built).
  void run_for_process();

  // rules_machine.cpp
  void driver_rules();
  void toolkit_rules();
  // rules_python.cpp
  void torch_rules(const PythonEnv& e);
  void variant_missing(const PythonEnv& e, const PackageCode& p, const PackageVerdict& v,
                       const std::string& pip);
  void package_rules(const PythonEnv& e);
  // rules_env.cpp
  void ld_library_path_rules();
  void env_var_rules();
  void no_target_hint();
};

}  // namespace smcompat::doctor
