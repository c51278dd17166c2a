// End to end: `smcompat check --pid` on a helper process (hold_libs) that has the doctor's
// nvcc-built fixture libraries loaded, with the fake driver (tests/fakedriver) serving an
// RTX 5090: exact libraries, verdicts and finding ids; and the exit codes of a missing process
// and a missing --pid.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "doctor/fixture_env.hpp"
#include "probe/run_child.hpp"

namespace {

namespace fs = std::filesystem;
using smcompat::test::run_child;

// A running hold_libs with `libs` loaded; killed and reaped at destruction.
class HeldLibraries {
 public:
  explicit HeldLibraries(const std::vector<std::string>& libs,
                         const std::string& cuda_visible_devices = "") {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) return;
    std::vector<std::string> args{SMCOMPAT_HOLD_LIBS};
    args.insert(args.end(), libs.begin(), libs.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string path_env = "PATH=/usr/bin:/bin";
    std::string visible = "CUDA_VISIBLE_DEVICES=" + cuda_visible_devices;
    std::vector<char*> envp{path_env.data()};
    if (!cuda_visible_devices.empty()) envp.push_back(visible.data());
    envp.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      close(to_child[1]);
      close(from_child[0]);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    stdin_ = to_child[1];
    char buf[6] = {};
    ready_ = pid_ > 0 && read(from_child[0], buf, 6) == 6 && std::string(buf, 6) == "ready\n";
    close(from_child[0]);
  }
  ~HeldLibraries() {
    if (stdin_ >= 0) close(stdin_);  // hold_libs exits when its stdin closes
    if (pid_ > 0) {
      int status = 0;
      waitpid(pid_, &status, 0);
    }
  }
  bool ready() const { return ready_; }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  bool ready_ = false;
};

std::map<std::string, std::string> fake_rtx5090_env() {
  return {{"PATH", "/usr/bin:/bin"},
          {"LD_LIBRARY_PATH", SMCOMPAT_FAKEDRIVER_DIR},
          {"SMCOMPAT_FAKE_GPUS", "RTX 5090"},
          {"NO_COLOR", "1"}};
}

TEST(CheckCli, LoadedFixturesOnTheFakeRtx5090) {
  SMCOMPAT_SKIP_WITHOUT_DOCTOR_FIXTURES();
  std::string sm120 = fs::canonical(smcompat::testing::fixture_so("k_90_120")).string();
  std::string sm90 = fs::canonical(smcompat::testing::fixture_so("k_80_90")).string();
  std::string ptx = fs::canonical(smcompat::testing::fixture_so("k_ptx80")).string();
  HeldLibraries held({sm120, sm90, ptx});
  ASSERT_TRUE(held.ready());
  auto res = run_child({SMCOMPAT_CLI, "check", "--pid", std::to_string(held.pid()), "--json"},
                       fake_rtx5090_env());
  EXPECT_EQ(res.exit_code, 1) << res.err;  // an error finding: exit 1 (--fail-on error)
  auto j = nlohmann::json::parse(res.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << res.out << res.err;
  EXPECT_EQ(j["schema"], "smcompat.check/1");
  EXPECT_EQ(j["pid"], held.pid());
  EXPECT_EQ(j["maps"], "/proc/" + std::to_string(held.pid()) + "/maps");
  EXPECT_EQ(j["driver"]["state"], "ok");
  EXPECT_EQ(j["driver"]["version"], "580.95.05");
  EXPECT_EQ(j["gpu"]["cc"], "12.0");
  EXPECT_EQ(j["gpu"]["gpu"], "GeForce RTX 5090");
  EXPECT_EQ(j["torch"], nullptr);
  ASSERT_EQ(j["libraries"].size(), 3u) << j["libraries"].dump(2);
  struct Want {
    std::string path, fit, best;
    std::vector<std::string> targets;
  };
  // In maps order, which is address order (the loader maps later libraries lower): by path here.
  std::vector<Want> want{{sm90, "no-image", "", {"sm_80", "sm_90"}},
                         {sm120, "native", "sm_120", {"sm_90", "sm_120"}},
                         {ptx, "ptx-jit", "compute_80", {"compute_80"}}};
  std::vector<nlohmann::json> libraries(j["libraries"].begin(), j["libraries"].end());
  std::sort(libraries.begin(), libraries.end(), [](auto& a, auto& b) {
    return a["path"].template get<std::string>() < b["path"].template get<std::string>();
  });
  for (size_t i = 0; i < want.size(); ++i) {
    auto& l = libraries[i];
    SCOPED_TRACE(want[i].path);
    EXPECT_EQ(l["path"], want[i].path);
    EXPECT_EQ(l["package"], nullptr);
    EXPECT_EQ(l["version"], nullptr);
    EXPECT_EQ(l["fit"], want[i].fit);
    if (want[i].best.empty())
      EXPECT_EQ(l["best_image"], nullptr);
    else
      EXPECT_EQ(l["best_image"], want[i].best);
    EXPECT_EQ(l["targets"].get<std::vector<std::string>>(), want[i].targets);
  }
  std::vector<std::string> ids;
  for (auto& f : j["findings"])
    ids.push_back(f["severity"].get<std::string>() + " " + f["id"].get<std::string>());
  EXPECT_EQ(ids, (std::vector<std::string>{"error package-no-image", "warning package-ptx-jit",
                                           "info module-loading-lazy"}));
  EXPECT_EQ(j["findings"][0]["title"], "k_80_90.so has no code for GeForce RTX 5090 (sm_120)");

  // The text for people names the same libraries and findings.
  res = run_child({SMCOMPAT_CLI, "check", "--pid", std::to_string(held.pid())}, fake_rtx5090_env());
  EXPECT_EQ(res.exit_code, 1);
  EXPECT_NE(res.out.find("GeForce RTX 5090 (compute capability 12.0, device 0, observed)"),
            std::string::npos)
      << res.out;
  EXPECT_NE(res.out.find("Loaded libraries with GPU code (3 of"), std::string::npos) << res.out;
  EXPECT_NE(res.out.find("[package-no-image]"), std::string::npos);
}

// The process's GPU is numbered by its own CUDA_VISIBLE_DEVICES, not smcompat's.
TEST(CheckCli, TheProcessesCudaVisibleDevicesPicksItsGpu) {
  SMCOMPAT_SKIP_WITHOUT_DOCTOR_FIXTURES();
  std::string sm120 = fs::canonical(smcompat::testing::fixture_so("k_90_120")).string();
  HeldLibraries held({sm120}, "1");
  ASSERT_TRUE(held.ready());
  auto env = fake_rtx5090_env();
  env["SMCOMPAT_FAKE_GPUS"] = "H100,RTX 5090";
  env["CUDA_VISIBLE_DEVICES"] = "0";  // smcompat's own value must not decide
  auto res = run_child({SMCOMPAT_CLI, "check", "--pid", std::to_string(held.pid()), "--json"}, env);
  EXPECT_EQ(res.exit_code, 0) << res.err;
  auto j = nlohmann::json::parse(res.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << res.out << res.err;
  EXPECT_EQ(j["gpu"]["gpu"], "GeForce RTX 5090");
  ASSERT_EQ(j["libraries"].size(), 1u);
  EXPECT_EQ(j["libraries"][0]["fit"], "native");
  std::vector<std::string> ids;
  for (auto& f : j["findings"]) ids.push_back(f["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"cuda-visible-devices", "module-loading-lazy"}));
}

TEST(CheckCli, MissingProcessAndMissingPidExit2) {
  auto res = run_child({SMCOMPAT_CLI, "check", "--pid", "999999999"}, fake_rtx5090_env());
  EXPECT_EQ(res.exit_code, 2);
  EXPECT_EQ(res.out, "");
  EXPECT_NE(res.err.find("process 999999999 does not exist or is not readable by this user"),
            std::string::npos)
      << res.err;
  res = run_child({SMCOMPAT_CLI, "check"}, fake_rtx5090_env());
  EXPECT_EQ(res.exit_code, 2);
  EXPECT_NE(res.err.find("give the process to check with --pid PID"), std::string::npos);
}

}  // namespace
