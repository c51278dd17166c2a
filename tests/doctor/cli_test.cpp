// End to end: `smcompat` / `smcompat doctor` / `smcompat build-env` run as child processes with
// an exact environment, against the fake libcuda.so.1 + libnvidia-ml.so.1 serving GPU sets from
// the catalog (tests/fakedriver), the CUDA toolkit's stub libcuda, and no driver at all.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "doctor/fixture_env.hpp"
#include "probe/run_child.hpp"

namespace smcompat::doctor {
namespace {

namespace fs = std::filesystem;
using smcompat::test::run_child;
using namespace smcompat::testing;  // FakeEnv, TempDir, write_file

const std::string kOpenModule =
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
    "(dvs-builder@U22-I3-AF03-09-1)  Wed Oct  1 00:00:00 UTC 2025\n";
const std::string kProprietaryModule =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Release Build  "
    "(dvs-builder@U22-I3-AF03-09-1)  Wed Oct  1 00:00:00 UTC 2025\n";

class DoctorCli : public ::testing::Test {
 protected:
  void SetUp() override {
    SMCOMPAT_SKIP_WITHOUT_DOCTOR_FIXTURES();
    env_ = std::make_unique<FakeEnv>(tmp_.path(), "cu126");
    env_->add_torch("2.7.0+cu126", "12.6", "k_80_90");
    env_->add("torchvision", "0.22.0+cu126");
    fs::create_directories(tmp_.path() + "/empty");
    write_file(tmp_.path() + "/proc-open/driver/nvidia/version", kOpenModule);
    write_file(tmp_.path() + "/proc-prop/driver/nvidia/version", kProprietaryModule);
  }
  std::map<std::string, std::string> base_env(const std::string& ld_library_path) {
    return {{"PATH", "/usr/bin:/bin"},
            {"HOME", tmp_.path()},
            {"LD_LIBRARY_PATH", ld_library_path},
            {"NO_COLOR", "1"}};
  }
  // doctor --json on the fixture environment with the fake driver serving `gpus`.
  std::pair<int, nlohmann::json> fake_doctor(const std::string& gpus,
                                             std::map<std::string, std::string> extra,
                                             const std::string& proc = "proc-open") {
    auto env = base_env(SMCOMPAT_FAKEDRIVER_DIR);
    env["SMCOMPAT_FAKE_GPUS"] = gpus;
    for (auto& [k, v] : extra) env[k] = v;
    auto res = run_child({SMCOMPAT_CLI, "doctor", "--json", "--no-active", "--python",
                          env_->prefix(), "--proc-root", tmp_.path() + "/" + proc},
                         env);
    auto j = nlohmann::json::parse(res.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << res.out << res.err;
    return {res.exit_code, j};
  }
  static std::vector<std::string> ids(const nlohmann::json& j, const std::string& severity = "") {
    std::vector<std::string> v;
    for (auto& f : j["findings"])
      if (severity.empty() || f["severity"] == severity) v.push_back(f["id"]);
    return v;
  }
  static bool has(const std::vector<std::string>& v, const std::string& id) {
    return std::find(v.begin(), v.end(), id) != v.end();
  }
  TempDir tmp_;
  std::unique_ptr<FakeEnv> env_;
};

TEST_F(DoctorCli, NoArgumentsWithoutADriver) {
  auto env = base_env(tmp_.path() + "/empty");
  env["PATH"] = "/usr/local/cuda/bin:/usr/bin:/bin";
  auto res = run_child({SMCOMPAT_CLI}, env);
  EXPECT_EQ(res.exit_code, 0) << res.out << res.err;
  EXPECT_NE(res.out.find("smcompat doctor"), std::string::npos);
  EXPECT_NE(res.out.find("no NVIDIA driver found"), std::string::npos);
  EXPECT_NE(res.out.find("Python environments"), std::string::npos);
  EXPECT_NE(res.out.find("smcompat doctor --gpu \"RTX 5090\""), std::string::npos);
  if (fs::exists("/usr/local/cuda/bin/nvcc")) {
    EXPECT_NE(res.out.find("/usr/local/cuda"), std::string::npos);
    EXPECT_NE(res.out.find("nvcc yes"), std::string::npos);
  }
  EXPECT_EQ(res.out.find("\x1b["), std::string::npos);  // NO_COLOR
}

struct FakeSet {
  const char* gpus;
  std::map<std::string, std::string> extra;
  size_t devices;
  std::vector<std::string> targets;
  bool torch_error;  // the cu126 torch (sm_80, sm_90) has no code for a target
};

TEST_F(DoctorCli, AgainstTheFakeDriver) {
  const FakeSet sets[] = {
      {"RTX 5090", {}, 1, {"GeForce RTX 5090"}, true},
      {"H100", {}, 1, {"H100 SXM"}, false},
      {"B200", {}, 1, {"B200"}, true},
      {"RTX 5090,RTX 5090", {{"SMCOMPAT_FAKE_P2P", "0"}}, 2, {"GeForce RTX 5090"}, true},
      {"H100,H100,H100,H100,H100,H100,H100,H100",
       {{"SMCOMPAT_FAKE_NVLINK", "2"}},
       8,
       {"H100 SXM"},
       false},
  };
  for (auto& s : sets) {
    SCOPED_TRACE(s.gpus);
    auto [rc, j] = fake_doctor(s.gpus, s.extra);
    EXPECT_EQ(j["schema"], "smcompat.doctor/1");
    EXPECT_EQ(j["driver"]["state"], "ok");
    EXPECT_EQ(j["driver"]["observed"], true);
    EXPECT_EQ(j["driver"]["version"], "580.95.05");
    EXPECT_EQ(j["driver"]["cuda"], "13.0");
    EXPECT_EQ(j["driver"]["kernel_module"], "open");
    EXPECT_EQ(j["driver"]["gpus"].size(), s.devices);
    ASSERT_EQ(j["targets"].size(), s.targets.size());
    for (size_t i = 0; i < s.targets.size(); ++i) {
      EXPECT_EQ(j["targets"][i]["name"], s.targets[i]);
      EXPECT_EQ(j["targets"][i]["present"], true);
    }
    auto errors = ids(j, "error");
    EXPECT_EQ(has(errors, "torch-no-image"), s.torch_error);
    EXPECT_EQ(rc, s.torch_error ? 1 : 0);
    EXPECT_FALSE(has(ids(j), "no-driver"));
    // Only the 2x RTX 5090 set has GPUs without peer access.
    EXPECT_EQ(has(ids(j, "info"), "multi-gpu-no-p2p"), s.extra.count("SMCOMPAT_FAKE_P2P") > 0);
    EXPECT_FALSE(has(ids(j), "blackwell-needs-open-modules"));
  }
}

TEST_F(DoctorCli, ProprietaryModuleWithBlackwell) {
  auto [rc, j] = fake_doctor("RTX 5090", {}, "proc-prop");
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(j["driver"]["kernel_module"], "proprietary");
  EXPECT_TRUE(has(ids(j, "error"), "blackwell-needs-open-modules"));
  auto [rc2, h] = fake_doctor("H100", {}, "proc-prop");
  EXPECT_EQ(rc2, 0);
  EXPECT_FALSE(has(ids(h), "blackwell-needs-open-modules"));
}

TEST_F(DoctorCli, OldDriverFromTheFake) {
  // Driver 560.35.03 / CUDA 12.6 with an RTX 5090: too old for the GPU.
  auto [rc, j] = fake_doctor(
      "RTX 5090", {{"SMCOMPAT_FAKE_DRIVER", "560.35.03"}, {"SMCOMPAT_FAKE_CUDA", "12060"}});
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(j["driver"]["version"], "560.35.03");
  EXPECT_TRUE(has(ids(j, "error"), "driver-too-old-for-gpu"));
}

TEST_F(DoctorCli, StubLibraryAndNoDriver) {
  if (!fs::exists(SMCOMPAT_CUDA_STUB))
    GTEST_SKIP() << "CUDA toolkit stub " SMCOMPAT_CUDA_STUB
                    " not installed (set SMCOMPAT_CUDA_HOME)";
  fs::create_directories(tmp_.path() + "/stub");
  fs::create_symlink(SMCOMPAT_CUDA_STUB, tmp_.path() + "/stub/libcuda.so.1");
  auto env = base_env(tmp_.path() + "/stub");
  auto res = run_child({SMCOMPAT_CLI, "doctor", "--json", "--no-active", "--python", env_->prefix(),
                        "--proc-root", tmp_.path() + "/empty"},
                       env);
  auto j = nlohmann::json::parse(res.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << res.out << res.err;
  EXPECT_EQ(j["driver"]["state"], "stub-library");
  EXPECT_TRUE(has(ids(j, "error"), "stub-libcuda"));
  EXPECT_EQ(res.exit_code, 1);
  auto none = run_child({SMCOMPAT_CLI, "doctor", "--json", "--no-active", "--gpu", "RTX 5090",
                         "--python", env_->prefix(), "--proc-root", tmp_.path() + "/empty"},
                        base_env(tmp_.path() + "/empty"));
  auto n = nlohmann::json::parse(none.out, nullptr, false);
  ASSERT_FALSE(n.is_discarded()) << none.out << none.err;
  EXPECT_EQ(n["driver"]["state"], "no-driver");
  EXPECT_TRUE(has(ids(n, "warning"), "no-driver"));
  ASSERT_EQ(n["targets"].size(), 1u);
  EXPECT_EQ(n["targets"][0]["present"], false);  // what-if
  EXPECT_TRUE(has(ids(n, "error"), "torch-no-image"));
  EXPECT_EQ(none.exit_code, 1);
}

TEST_F(DoctorCli, FixScriptMarkdownAndUsageErrors) {
  std::string script = tmp_.path() + "/fix.sh";
  auto env = base_env(tmp_.path() + "/empty");
  auto res = run_child({SMCOMPAT_CLI, "doctor", "--markdown", "--no-active", "--gpu", "RTX 5090",
                        "--python", env_->prefix(), "--fix-script", script},
                       env);
  EXPECT_EQ(res.exit_code, 1);
  EXPECT_EQ(res.out.rfind("# smcompat doctor", 0), 0u);
  std::ifstream in(script);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("pip install --force-reinstall torch torchvision torchaudio --index-url "
                      "https://download.pytorch.org/whl/cu128"),
            std::string::npos);
  EXPECT_NE(text.find("smcompat never runs it"), std::string::npos);
  auto bad = run_child({SMCOMPAT_CLI, "doctor", "--no-active", "--gpu", "RTX 9999"}, env);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--gpu RTX 9999: no such GPU"), std::string::npos);
  auto fail_on = run_child({SMCOMPAT_CLI, "doctor", "--no-active", "--fail-on", "warning",
                            "--proc-root", tmp_.path() + "/empty"},
                           env);
  EXPECT_EQ(fail_on.exit_code, 1);  // "no driver" is a warning
}

TEST(BuildEnvCli, JsonForTwoGpus) {
  std::map<std::string, std::string> env{{"PATH", "/usr/bin:/bin"},
                                         {"CUDA_HOME", "/usr/local/cuda"}};
  auto res =
      run_child({SMCOMPAT_CLI, "build-env", "--gpu", "RTX 5090", "--gpu", "H100", "--json"}, env);
  auto j = nlohmann::json::parse(res.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << res.out << res.err;
  EXPECT_EQ(j["schema"], "smcompat.build-env/1");
  EXPECT_EQ(j["torch_cuda_arch_list"], "9.0;12.0+PTX");
  EXPECT_EQ(j["min_nvcc"], "12.8");
  EXPECT_EQ(j["for"], "extension");
  auto shell = run_child({SMCOMPAT_CLI, "build-env", "--gpu", "GB10", "--shell"}, env);
  if (fs::exists("/usr/local/cuda/bin/nvcc")) {
    EXPECT_EQ(shell.exit_code, 0) << shell.out;
    EXPECT_EQ(
        shell.out.rfind(
            "export TORCH_CUDA_ARCH_LIST=\"12.1+PTX\"\nexport CUDA_HOME=\"/usr/local/cuda\"\n", 0),
        0u)
        << shell.out;
  }
  auto bad = run_child({SMCOMPAT_CLI, "build-env", "--gpu", "nonsense-gpu"}, env);
  EXPECT_EQ(bad.exit_code, 2);
}

}  // namespace
}  // namespace smcompat::doctor
