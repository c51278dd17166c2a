// The doctor's rules on facts given directly: driver and kernel module, toolkits, environment
// variables, LD_LIBRARY_PATH shadowing, and the build settings they reuse.
#include <gtest/gtest.h>

#include "doctor/fixture_env.hpp"
#include "smcompat/doctor/build_env.hpp"
#include "smcompat/doctor/doctor.hpp"
#include "smcompat/report/build_env_report.hpp"

namespace smcompat::doctor {
namespace {

using smcompat::testing::TempDir;
using smcompat::testing::write_file;

DoctorReport with_targets(std::vector<Target> targets, Environment vars = {}) {
  DoctorReport r;
  r.targets = std::move(targets);
  for (auto& [n, v] : vars) r.env_vars.emplace_back(n, v);
  r.host.cores = 16;
  r.host.mem_available_gib = 20;
  r.host.cxx = "/usr/bin/c++";
  return r;
}
// A GPU judged: observed on this machine, or asked about with --gpu.
Target gpu(std::string name, ComputeCapability cc, bool observed) {
  Target t;
  t.name = t.label = std::move(name);
  t.cc = cc;
  t.observed = observed;
  return t;
}
const Target kRtx5090 = gpu("GeForce RTX 5090", {12, 0}, true);
const Target kRtx5090WhatIf = gpu("GeForce RTX 5090", {12, 0}, false);
const Target kH100 = gpu("H100 SXM", {9, 0}, true);

TEST(DriverRules, BlackwellNeedsOpenKernelModules) {
  auto r = with_targets({kRtx5090});
  r.driver.state = DriverFacts::State::kOk;
  r.driver.kernel_module_flavour = "proprietary";
  r.driver.kernel_module_line = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15";
  r.driver.version = DriverVersion::parse("570.86.15");
  judge(r);
  auto* f = r.find("blackwell-needs-open-modules");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->evidence, (std::vector<std::string>{r.driver.kernel_module_line}));
  // What-if: a warning; open modules: nothing; Hopper: nothing.
  auto w = with_targets({kRtx5090WhatIf});
  w.driver = r.driver;
  judge(w);
  ASSERT_NE(w.find("blackwell-needs-open-modules"), nullptr);
  EXPECT_EQ(w.find("blackwell-needs-open-modules")->severity, Severity::kWarning);
  auto o = with_targets({kRtx5090});
  o.driver = r.driver;
  o.driver.kernel_module_flavour = "open";
  judge(o);
  EXPECT_EQ(o.find("blackwell-needs-open-modules"), nullptr);
  auto h = with_targets({kH100});
  h.driver = r.driver;
  judge(h);
  EXPECT_EQ(h.find("blackwell-needs-open-modules"), nullptr);
}

TEST(DriverRules, DriverTooOldForTheGpuAndForTorch) {
  auto r = with_targets({kRtx5090});
  r.driver.state = DriverFacts::State::kOk;
  r.driver.kernel_module_flavour = "open";
  r.driver.version = DriverVersion::parse("560.35.03");
  PythonEnv env;
  env.prefix = "/opt/env";
  env.site_packages = "/opt/env/lib/python3.11/site-packages";
  env.torch = TorchFacts{"2.7.0+cu128", "cu128", Version{12, 8}, "", ""};
  r.envs.push_back(env);
  judge(r);
  auto* g = r.find("driver-too-old-for-gpu");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->severity, Severity::kError);
  EXPECT_EQ(g->fix, "Install NVIDIA driver 570.26 or newer.");
  auto* t = r.find("driver-too-old-for-torch");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->severity, Severity::kWarning);  // 560 >= 525: minor-version compatibility
  r.driver.version = DriverVersion::parse("520.61.05");
  judge(r);
  ASSERT_NE(r.find("driver-too-old-for-torch"), nullptr);
  EXPECT_EQ(r.find("driver-too-old-for-torch")->severity, Severity::kError);
  r.driver.version = DriverVersion::parse("580.95.05");
  judge(r);
  EXPECT_EQ(r.find("driver-too-old-for-torch"), nullptr);
  EXPECT_EQ(r.find("driver-too-old-for-gpu"), nullptr);
}

TEST(DriverRules, StubAndNoDriver) {
  auto r = with_targets({});
  r.driver.state = DriverFacts::State::kStub;
  r.driver.detail = "libcuda.so.1 answered CUDA_ERROR_STUB_LIBRARY (34)";
  judge(r);
  ASSERT_NE(r.find("stub-libcuda"), nullptr);
  EXPECT_EQ(r.find("stub-libcuda")->severity, Severity::kError);
  ASSERT_NE(r.find("no-target-gpu"), nullptr);
  r.driver.state = DriverFacts::State::kNoDriver;
  judge(r);
  ASSERT_NE(r.find("no-driver"), nullptr);
  EXPECT_NE(r.find("no-driver")->fix.find("smcompat doctor --gpu \"RTX 5090\""), std::string::npos);
}

TEST(ToolkitRules, CudaHomeAndOldToolkit) {
  auto r = with_targets({kRtx5090}, {{"CUDA_HOME", "/definitely/not/here"}});
  ToolkitFacts tk;
  tk.root = "/usr/local/cuda-12.6";
  tk.version = Version{12, 6};
  tk.version_source = "include/cuda.h CUDA_VERSION 12060";
  tk.nvcc = "/usr/local/cuda-12.6/bin/nvcc";
  tk.found_by = {"/usr/local/cuda"};
  r.toolkits.push_back(tk);
  judge(r);
  auto* m = r.find("cuda-home-missing");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->severity, Severity::kError);
  EXPECT_EQ(m->fix_commands, (std::vector<std::string>{"export CUDA_HOME=/usr/local/cuda-12.6"}));
  auto* old = r.find("toolkit-too-old-for-gpu");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->title,
            "CUDA 12.6 cannot build code for GeForce RTX 5090 (sm_120 needs CUDA 12.8)");
  auto u = with_targets({kH100});
  u.toolkits.push_back(tk);
  judge(u);
  ASSERT_NE(u.find("cuda-home-unset"), nullptr);
  EXPECT_EQ(u.find("toolkit-too-old-for-gpu"), nullptr);
}

TEST(EnvVarRules, ArchListVisibleDevicesJitAndLoading) {
  auto r = with_targets({kRtx5090, kH100}, {{"TORCH_CUDA_ARCH_LIST", "8.0;9.0"},
                                            {"CUDA_VISIBLE_DEVICES", ""},
                                            {"CUDA_FORCE_PTX_JIT", "1"},
                                            {"CUDA_MODULE_LOADING", "EAGER"}});
  judge(r);
  auto* a = r.find("arch-list-missing-gpu");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->title, "TORCH_CUDA_ARCH_LIST leaves out GeForce RTX 5090 (12.0)");
  EXPECT_EQ(a->fix_commands,
            (std::vector<std::string>{"export TORCH_CUDA_ARCH_LIST=\"8.0;9.0;12.0+PTX\""}));
  ASSERT_NE(r.find("cuda-visible-devices-hides"), nullptr);
  ASSERT_NE(r.find("force-ptx-jit"), nullptr);
  ASSERT_NE(r.find("module-loading-eager"), nullptr);
  EXPECT_EQ(r.find("module-loading-eager")->severity, Severity::kInfo);
  EXPECT_EQ(r.find("module-loading-lazy"), nullptr);
  // "+PTX" on an older arch covers newer GPUs by JIT: no finding.
  auto p = with_targets({kRtx5090},
                        {{"TORCH_CUDA_ARCH_LIST", "8.0 9.0+PTX"}, {"CUDA_VISIBLE_DEVICES", "0,1"}});
  judge(p);
  EXPECT_EQ(p.find("arch-list-missing-gpu"), nullptr);
  ASSERT_NE(p.find("cuda-visible-devices"), nullptr);
  EXPECT_EQ(p.find("cuda-visible-devices")->severity, Severity::kInfo);
}

TEST(EnvVarRules, LdLibraryPathStubAndShadowing) {
  TempDir t;
  write_file(t.path() + "/cuda/lib64/stubs/libcuda.so", "stub");
  write_file(t.path() + "/old-cuda/lib64/libcublas.so.12", "old cublas");
  auto r = with_targets(
      {kRtx5090},
      {{"LD_LIBRARY_PATH", t.path() + "/cuda/lib64/stubs:" + t.path() + "/old-cuda/lib64"}});
  PythonEnv env;
  env.prefix = t.path() + "/env";
  PackageCode cublas;
  cublas.dist.name = "nvidia-cublas-cu12";
  cublas.dist.version = "12.8.3.14";
  cublas.dist.shared_libraries = {
      t.path() + "/env/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12"};
  write_file(cublas.dist.shared_libraries[0], "wheel cublas");
  env.packages.push_back(cublas);
  r.envs.push_back(env);
  judge(r);
  ASSERT_NE(r.find("ld-library-path-stub"), nullptr);
  EXPECT_EQ(r.find("ld-library-path-stub")->severity, Severity::kError);
  auto* s = r.find("ld-library-path-shadows");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->severity, Severity::kWarning);
  EXPECT_EQ(s->title, "LD_LIBRARY_PATH shadows libcublas.so.12 of nvidia-cublas-cu12");
  EXPECT_EQ(s->evidence[0], "libcublas.so.12 would load " + t.path() +
                                "/old-cuda/lib64/libcublas.so.12 (from LD_LIBRARY_PATH)");
}

TEST(BuildEnv, ArchListNvccMinimumAndJobs) {
  BuildEnvRequest req;
  req.gpus = {{12, 0}, {9, 0}};
  ToolkitFacts tk;
  tk.root = "/usr/local/cuda-13.0";
  tk.version = Version{13, 0};
  tk.nvcc = tk.root + "/bin/nvcc";
  tk.found_by = {"CUDA_HOME"};
  req.toolkits = {tk};
  req.host.cores = 16;
  req.host.mem_available_gib = 20.5;
  req.host.cxx = "/usr/bin/c++";
  auto be = compute_build_env(req);
  EXPECT_EQ(be.arch_list, "9.0;12.0+PTX");
  ASSERT_TRUE(be.min_nvcc.has_value());
  EXPECT_EQ(be.min_nvcc->to_string(), "12.8");
  EXPECT_TRUE(be.problems.empty());
  ASSERT_EQ(be.lines.size(), 3u);
  EXPECT_EQ(be.lines[0].name, "TORCH_CUDA_ARCH_LIST");
  EXPECT_EQ(be.lines[1].name, "CUDA_HOME");
  EXPECT_EQ(be.lines[1].value, "/usr/local/cuda-13.0");
  EXPECT_EQ(be.lines[2].name, "MAX_JOBS");
  EXPECT_EQ(be.lines[2].value, "10");  // 20.5 GiB / 2 GiB per job, below 16 cores
  req.host.mem_available_gib = 64;
  req.host.cores = 4;
  EXPECT_EQ(compute_build_env(req).lines[2].value, "4");
  EXPECT_EQ(
      build_env_shell(be, false),
      "export TORCH_CUDA_ARCH_LIST=\"9.0;12.0+PTX\"\nexport CUDA_HOME=\"/usr/local/cuda-13.0\"\n"
      "export MAX_JOBS=\"10\"\n");
  // GB10 (sm_121) needs CUDA 12.9; with 12.8 the build falls back to sm_120 (same major).
  BuildEnvRequest gb10;
  gb10.gpus = {{12, 1}};
  tk.version = Version{12, 8};
  gb10.toolkits = {tk};
  gb10.host = req.host;
  auto g = compute_build_env(gb10);
  EXPECT_EQ(g.arch_list, "12.0+PTX");
  EXPECT_EQ(g.min_nvcc->to_string(), "12.9");
  ASSERT_EQ(g.problems.size(), 1u);
  EXPECT_NE(g.problems[0].find("nvcc 12.8 cannot build sm_121"), std::string::npos);
  // PyTorch builds add USE_CUDA and CMake architectures; no toolkit and no compiler are problems.
  BuildEnvRequest pt;
  pt.gpus = {{10, 0}};
  pt.what = BuildFor::kPytorch;
  auto p = compute_build_env(pt);
  EXPECT_EQ(p.arch_list, "10.0+PTX");
  EXPECT_EQ(p.problems.size(), 2u);
  bool cmake = false;
  for (auto& l : p.lines) cmake |= l.name == "CMAKE_CUDA_ARCHITECTURES" && l.value == "100";
  EXPECT_TRUE(cmake);
}

TEST(BuildEnv, KeptArchsAreOnesTheToolkitBuildsAndSpecificOnesStay) {
  // A package with sm_53 and sm_80 SASS and FlashAttention-3-style sm_90a kernels, rebuilt for an
  // RTX 5090 with CUDA 13.0: nvcc 13 rejects compute_53, and the sm_90a kernels stay.
  BuildEnvRequest req;
  req.gpus = {{12, 0}};
  req.keep = {{5, 3}, {8, 0}};
  req.keep_specific = {"9.0a"};
  ToolkitFacts tk;
  tk.root = "/usr/local/cuda-13.0";
  tk.version = Version{13, 0};
  tk.nvcc = tk.root + "/bin/nvcc";
  req.toolkits = {tk};
  auto be = compute_build_env(req);
  EXPECT_EQ(be.arch_list, "8.0;9.0a;12.0+PTX");
  ASSERT_EQ(be.problems.size(), 2u);  // and the host compiler this test does not give
  EXPECT_EQ(be.problems[0],
            "leaving out sm_53: CUDA 13.0 no longer builds it (the last CUDA that did: 12.9)");
  // +PTX never lands on an arch-specific entry (its PTX does not JIT forward).
  req.gpus = {{8, 0}};
  req.keep = {};
  EXPECT_EQ(compute_build_env(req).arch_list, "8.0+PTX;9.0a");
}

}  // namespace
}  // namespace smcompat::doctor
