// The doctor on Python environments built as folders, with shared libraries built by nvcc for
// known targets (tests/doctor/CMakeLists.txt): each report is asserted.
#include <gtest/gtest.h>

#include <algorithm>

#include "doctor/fixture_env.hpp"
#include "smcompat/doctor/doctor.hpp"
#include "smcompat/report/doctor_report.hpp"

namespace smcompat::doctor {
namespace {

using smcompat::testing::FakeEnv;
using smcompat::testing::TempDir;

class DoctorEnvTest : public ::testing::Test {
 protected:
  void SetUp() override { SMCOMPAT_SKIP_WITHOUT_DOCTOR_FIXTURES(); }
  // A deterministic doctor run: no driver, no toolkit, only the given environment.
  DoctorReport run(const FakeEnv& env, std::vector<std::string> gpus,
                   Environment vars = {{"PATH", "/nonexistent"}}) {
    DoctorOptions o;
    o.gpus = std::move(gpus);
    o.pythons = {env.prefix()};
    o.discover_active = false;
    o.env = std::move(vars);
    o.driver = DriverFacts{};  // hermetic: no driver, whatever this machine has
    o.driver->state = DriverFacts::State::kNoDriver;
    o.usr_local = tmp_.path() + "/usr/local";  // no toolkits
    o.ld_so_conf = tmp_.path() + "/ld.so.conf";
    o.jobs = 2;
    return run_doctor(o);
  }
  std::vector<const Finding*> with_id(const DoctorReport& r, std::string_view id) {
    std::vector<const Finding*> v;
    for (auto& f : r.findings)
      if (f.id == id) v.push_back(&f);
    return v;
  }
  const PackageVerdict* verdict(const DoctorReport& r, std::string_view pkg, std::string_view gpu) {
    for (auto& v : r.verdicts)
      if (v.package == pkg && v.gpu == gpu) return &v;
    return nullptr;
  }
  TempDir tmp_;
};

TEST_F(DoctorEnvTest, CorrectCu128TorchOnRtx5090HasNoErrors) {
  FakeEnv env(tmp_.path(), "good");
  env.add_torch("2.7.0+cu128", "12.8", "k_90_120");
  env.add("torchvision", "0.22.0+cu128");
  env.add("torchaudio", "2.7.0+cu128");
  auto r = run(env, {"RTX 5090"});
  ASSERT_EQ(r.envs.size(), 1u);
  ASSERT_TRUE(r.envs[0].torch.has_value());
  EXPECT_EQ(r.envs[0].torch->version, "2.7.0+cu128");
  EXPECT_EQ(r.envs[0].torch->channel, "cu128");
  ASSERT_TRUE(r.envs[0].torch->cuda.has_value());
  EXPECT_EQ(r.envs[0].torch->cuda->to_string(), "12.8");
  EXPECT_EQ(r.envs[0].python_version, "3.11");
  EXPECT_EQ(r.count(Severity::kError), 0u);
  auto* v = verdict(r, "torch", "GeForce RTX 5090");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->fit, Fit::kNative);
  EXPECT_EQ(v->targets, (std::vector<std::string>{"sm_90", "sm_120"}));
  ASSERT_EQ(v->libraries.size(), 1u);  // libtorch_cpu.so has no device code
  EXPECT_EQ(v->libraries[0].best_image, "sm_120");
  EXPECT_EQ(r.find("torch-no-image"), nullptr);
  EXPECT_EQ(r.find("torchvision-channel-mismatch"), nullptr);
  EXPECT_EQ(r.find("torchvision-version-mismatch"), nullptr);
  // Performance settings are info findings with reasons.
  ASSERT_NE(r.find("tf32"), nullptr);
  EXPECT_EQ(r.find("tf32")->severity, Severity::kInfo);
  ASSERT_NE(r.find("alloc-conf-expandable"), nullptr);
  EXPECT_NE(r.find("alloc-conf-expandable")->fix.find("expandable_segments:True"),
            std::string::npos);
}

TEST_F(DoctorEnvTest, Cu126TorchOnRtx5090IsAnErrorWithThePipFix) {
  FakeEnv env(tmp_.path(), "cu126");
  env.add_torch("2.7.0+cu126", "12.6", "k_80_90");
  env.add("torchvision", "0.22.0+cu126");
  auto r = run(env, {"RTX 5090", "H100"});
  auto* v = verdict(r, "torch", "GeForce RTX 5090");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->fit, Fit::kNoImage);
  auto* h = verdict(r, "torch", "H100 SXM");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->fit, Fit::kNative);
  auto found = with_id(r, "torch-no-image");
  ASSERT_EQ(found.size(), 1u);  // the RTX 5090 only; H100 has sm_90
  const Finding& f = *found[0];
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_NE(f.title.find("GeForce RTX 5090"), std::string::npos);
  ASSERT_EQ(f.fix_commands.size(), 1u);
  EXPECT_EQ(f.fix_commands[0],
            "pip install --force-reinstall torch torchvision torchaudio --index-url "
            "https://download.pytorch.org/whl/cu128");
  EXPECT_NE(f.fix.find("cu128"), std::string::npos);
  bool lists_targets = std::any_of(f.evidence.begin(), f.evidence.end(), [](const std::string& e) {
    return e == "device code found: sm_80 sm_90";
  });
  EXPECT_TRUE(lists_targets);
  EXPECT_EQ(r.findings.front().severity, Severity::kError);  // errors sort first
}

TEST_F(DoctorEnvTest, FixUsesTheEnvironmentsOwnPython) {
  FakeEnv env(tmp_.path(), "venv");
  env.add_torch("2.8.0+cu126", "12.6", "k_80_90");
  smcompat::testing::write_file(env.prefix() + "/bin/python", "#!/bin/sh\n");
  smcompat::testing::write_file(env.prefix() + "/pyvenv.cfg", "home = /usr/bin\n");
  auto r = run(env, {"RTX 5090"});
  ASSERT_EQ(r.envs.size(), 1u);
  EXPECT_EQ(r.envs[0].kind, "venv");
  auto* f = r.find("torch-no-image");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->fix_commands.size(), 1u);
  EXPECT_EQ(f->fix_commands[0],
            env.prefix() +
                "/bin/python -m pip install --force-reinstall torch torchvision "
                "torchaudio --index-url https://download.pytorch.org/whl/cu128");
}

TEST_F(DoctorEnvTest, TorchvisionFromAnotherChannelIsFlagged) {
  FakeEnv env(tmp_.path(), "mixed");
  env.add_torch("2.7.0+cu128", "12.8", "k_90_120");
  env.add("torchvision", "0.22.0+cu126", {{"torchvision/_C.so", "so:k_80_90"}});
  env.add("torchaudio", "2.7.0+cu128");
  auto r = run(env, {"RTX 5090"});
  auto* f = r.find("torchvision-channel-mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kError);
  ASSERT_EQ(f->fix_commands.size(), 1u);
  EXPECT_EQ(f->fix_commands[0],
            "pip install --force-reinstall torch==2.7.0 torchvision torchaudio --index-url "
            "https://download.pytorch.org/whl/cu128");
  EXPECT_EQ(r.find("torchaudio-channel-mismatch"), nullptr);
  // torchvision's own library has no sm_120 either: judged, and left to the lockstep finding.
  auto* v = verdict(r, "torchvision", "GeForce RTX 5090");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->fit, Fit::kNoImage);
}

TEST_F(DoctorEnvTest, TorchvisionVersionOutOfLockstep) {
  FakeEnv env(tmp_.path(), "lockstep");
  env.add_torch("2.7.0+cu128", "12.8", "k_90_120");
  env.add("torchvision", "0.21.0+cu128");
  auto r = run(env, {"RTX 5090"});
  auto* f = r.find("torchvision-version-mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->title.find("expects torchvision 0.22.x"), std::string::npos);
}

TEST_F(DoctorEnvTest, XformersWithoutSm120) {
  FakeEnv env(tmp_.path(), "xformers");
  env.add_torch("2.7.0+cu128", "12.8", "k_90_120");
  env.add("xformers", "0.0.29.post3", {{"xformers/_C.so", "so:k_80_90"}});
  auto r = run(env, {"RTX 5090"});
  auto found = with_id(r, "package-no-image");
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = *found[0];
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.title, "xformers 0.0.29.post3 has no code for GeForce RTX 5090 (sm_120)");
  ASSERT_EQ(f.fix_commands.size(), 1u);
  EXPECT_EQ(f.fix_commands[0],
            "pip install --force-reinstall --no-deps xformers --index-url "
            "https://download.pytorch.org/whl/cu128");
  auto* v = verdict(r, "xformers", "GeForce RTX 5090");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->fit, Fit::kNoImage);
  EXPECT_EQ(v->targets, (std::vector<std::string>{"sm_80", "sm_90"}));
}

TEST_F(DoctorEnvTest, ExtensionBuiltFor80And90WithoutPtx) {
  FakeEnv env(tmp_.path(), "ext");
  env.add_torch("2.7.0+cu128", "12.8", "k_90_120");
  env.add("my-cuda-ext", "0.1.0",
          {{"my_cuda_ext/_C.cpython-311-x86_64-linux-gnu.so", "so:k_80_90"}});
  auto r = run(env, {"RTX 5090"});
  auto found = with_id(r, "package-no-image");
  ASSERT_EQ(found.size(), 1u);
  const Finding& f = *found[0];
  EXPECT_NE(f.fix.find("TORCH_CUDA_ARCH_LIST=\"8.0;9.0;12.0+PTX\""), std::string::npos);
  EXPECT_NE(f.fix.find("nvcc >= 12.8"), std::string::npos);
  ASSERT_FALSE(f.fix_commands.empty());
  EXPECT_EQ(f.fix_commands[0], "export TORCH_CUDA_ARCH_LIST=\"8.0;9.0;12.0+PTX\"");
  // The source first (PyPI may have no sdist: then pip would reinstall the same wheel), the
  // CMake spelling of the list, then the build.
  auto has = [&](const std::string& line) {
    return std::find(f.fix_commands.begin(), f.fix_commands.end(), line) != f.fix_commands.end();
  };
  EXPECT_TRUE(has("export CUDAARCHS=\"80;90;120\"  # CMake-based builds"));
  EXPECT_TRUE(
      has("pip download --no-deps --no-binary :all: \"my-cuda-ext==0.1.0\" -d sdist || { "
          "echo \"no sdist of my-cuda-ext on PyPI\"; exit 1; }"));
  EXPECT_NE(f.fix_commands.back().find(
                "pip install --no-build-isolation --force-reinstall --no-deps sdist/*"),
            std::string::npos);
  EXPECT_NE(f.fix.find("PyPI has no sdist of many GPU packages"), std::string::npos) << f.fix;
  // On an H100 the same extension runs natively.
  auto r2 = run(env, {"H100"});
  EXPECT_EQ(r2.find("package-no-image"), nullptr);
}

TEST_F(DoctorEnvTest, PtxOnlyPackageRunsByJit) {
  FakeEnv env(tmp_.path(), "ptx");
  env.add("ptx-only-ext", "1.0", {{"ptx_only_ext/kern.so", "so:k_ptx80"}});
  auto r = run(env, {"RTX 5090", "A100"});
  auto* v = verdict(r, "ptx-only-ext", "GeForce RTX 5090");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->fit, Fit::kPtxJit);
  auto* f = r.find("package-ptx-jit");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  // With CUDA_DISABLE_PTX_JIT=1 the same environment cannot run it: an error.
  auto r2 = run(env, {"RTX 5090"}, {{"PATH", "/nonexistent"}, {"CUDA_DISABLE_PTX_JIT", "1"}});
  auto* d = r2.find("disable-ptx-jit");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kError);
}

TEST_F(DoctorEnvTest, FixScriptAndJsonCarryTheFindings) {
  FakeEnv env(tmp_.path(), "cu126b");
  env.add_torch("2.7.0+cu126", "12.6", "k_80_90");
  auto r = run(env, {"RTX 5090"});
  auto script = render_fix_script(r);
  EXPECT_EQ(script.rfind("#!/bin/sh\n", 0), 0u);
  EXPECT_NE(script.find("smcompat never runs it"), std::string::npos);
  EXPECT_NE(script.find("\npip install --force-reinstall torch torchvision torchaudio --index-url "
                        "https://download.pytorch.org/whl/cu128\n"),
            std::string::npos);
  auto j = doctor_to_json(r, {"smcompat", "doctor"});
  EXPECT_EQ(j["schema"], "smcompat.doctor/1");
  EXPECT_EQ(j["python_envs"].size(), 1u);
  EXPECT_EQ(j["python_envs"][0]["torch"]["channel"], "cu126");
  EXPECT_EQ(j["summary"]["errors"].get<int>(), static_cast<int>(r.count(Severity::kError)));
  bool found = false;
  for (auto& v : j["verdicts"])
    if (v["package"] == "torch" && v["gpu"] == "GeForce RTX 5090") {
      EXPECT_EQ(v["fit"], "no-image");
      EXPECT_EQ(v["predicted"], true);
      found = true;
    }
  EXPECT_TRUE(found);
  auto md = render_doctor_markdown(r);
  EXPECT_NE(md.find("### error: torch 2.7.0+cu126 has no code for GeForce RTX 5090"),
            std::string::npos);
}

}  // namespace
}  // namespace smcompat::doctor

namespace smcompat::doctor {
namespace {

// A real CUDA library wheel layout pointing at the toolkit's libcublas.so.13 (CUDA 13: sm_75 and
// newer, sm_120 SASS; no Volta).
TEST(DoctorRealLibraries, ToolkitCublasAsAWheel) {
  const std::string cublas = "/usr/local/cuda/lib64/libcublas.so.13";
  if (!std::filesystem::exists(cublas))
    GTEST_SKIP() << "CUDA toolkit library " << cublas << " not installed";
  smcompat::testing::TempDir tmp;
  smcompat::testing::FakeEnv env(tmp.path(), "wheels");
  env.add("nvidia-cublas", "13.1.0.3", {{"nvidia/cu13/lib/README", "placeholder\n"}});
  auto lib = std::filesystem::path(env.site()) / "nvidia/cu13/lib/libcublas.so.13";
  std::filesystem::create_symlink(cublas, lib);
  auto record = std::filesystem::path(env.site()) / "nvidia_cublas-13.1.0.3.dist-info/RECORD";
  std::ofstream(record, std::ios::app) << "nvidia/cu13/lib/libcublas.so.13,,\n";
  DoctorOptions o;
  o.gpus = {"RTX 5090", "GB10", "V100"};
  o.pythons = {env.prefix()};
  o.discover_active = false;
  o.env = {{"PATH", "/nonexistent"}};
  o.driver = DriverFacts{};
  o.driver->state = DriverFacts::State::kNoDriver;
  o.usr_local = tmp.path() + "/none";
  auto r = run_doctor(o);
  std::map<std::string, Fit> fits;
  for (auto& v : r.verdicts) fits[v.gpu] = v.fit;
  ASSERT_EQ(fits.size(), 3u);
  EXPECT_EQ(fits["GeForce RTX 5090"], Fit::kNative);
  EXPECT_EQ(fits["DGX Spark GB10"], Fit::kCompatibleSass);  // sm_120 SASS on 12.1
  EXPECT_EQ(fits["Tesla V100 SXM2"], Fit::kNoImage);        // CUDA 13 dropped sm_70
  auto* f = r.find("package-no-image");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title, "nvidia-cublas 13.1.0.3 has no code for Tesla V100 SXM2 (sm_70)");
  EXPECT_NE(f->fix.find("CUDA 12.9 was the last release with sm_70"), std::string::npos);
}

}  // namespace
}  // namespace smcompat::doctor
