// `smcompat bench` end to end: no GPU is a clear exit 2; a run through the fake driver is
// recorded as synthetic with the timing model's exact figures; `bench report` renders a recorded
// run (text, Markdown, JSON, HTML, --baseline) and refuses a broken one with the file named.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Output {
  int code;
  std::string out;  // stdout
  std::string err;  // stderr
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class BenchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("smcompat_bench_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs the CLI with a clean fake configuration (inherited SMCOMPAT_FAKE_* would change it).
  Output run(const std::string& args, const std::string& env = "") {
    const fs::path err = dir_ / "stderr.txt";
    std::string cmd = "env -u SMCOMPAT_FAKE_GPUS -u SMCOMPAT_FAKE_NVLINK -u CUDA_VISIBLE_DEVICES " +
                      env + " " + SMCOMPAT_CLI + " " + args + " 2>" + err.string();
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    std::array<char, 4096> buf;
    while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
    int status = pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, slurp(err)};
  }
  std::string fake_env(const std::string& gpus) {
    return std::string("LD_LIBRARY_PATH=") + SMCOMPAT_FAKEDRIVER_DIR + " SMCOMPAT_FAKE_GPUS='" +
           gpus + "'";
  }
  std::string fixture(const char* name) {
    return std::string(SMCOMPAT_SOURCE_DIR) + "/tests/fixtures/bench/" + name;
  }
  fs::path dir_;
};

TEST_F(BenchCli, WithoutAGpuSaysSoAndExitsTwo) {
  Output o = run("bench --quick --libcuda " + (dir_ / "libcuda.so.1").string());
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find("no usable GPU/driver"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("no_driver"), std::string::npos) << o.err;

  Output none = run("bench --quick", std::string("LD_LIBRARY_PATH=") + SMCOMPAT_FAKEDRIVER_DIR);
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("no_device"), std::string::npos) << none.err;

  Output torch = run("bench --torch --python " + (dir_ / "no-python").string());
  EXPECT_EQ(torch.code, 2);
  EXPECT_NE(torch.err.find("smcompat bench --torch:"), std::string::npos) << torch.err;
}

TEST_F(BenchCli, UsageErrorsExitTwo) {
  EXPECT_EQ(run("bench nosuchsuite").code, 2);
  EXPECT_EQ(run("bench report").code, 2);
  EXPECT_EQ(run("bench report " + (dir_ / "missing.json").string()).code, 2);
}

// The fake driver's timing model: a 1 GiB device-to-device copy on an H100 takes exactly
// 2 GiB / 3350 GB/s, so the run reports the catalog figure — and marks it synthetic.
TEST_F(BenchCli, FakeDriverRunIsSyntheticWithTheModelsFigures) {
  Output o = run("bench memory launch --quick --json", fake_env("H100"));
  ASSERT_EQ(o.code, 0) << o.err;
  const auto doc = nlohmann::json::parse(o.out);
  EXPECT_EQ(doc["schema"], "smcompat.bench/1");
  ASSERT_EQ(doc["devices"].size(), 1u);
  EXPECT_EQ(doc["devices"][0]["cc"], "9.0");
  EXPECT_EQ(doc["devices"][0]["catalog_gpu"], "H100 SXM");
  EXPECT_NE(doc["warnings"][0].get<std::string>().find("fake libcuda"), std::string::npos);
  bool dtod_1g = false;
  bool launch = false;
  for (const auto& r : doc["results"]) {
    EXPECT_EQ(r["origin"], "synthetic") << r["name"];
    if (r["name"] == "dtod 1 GiB gpu0") {
      dtod_1g = true;
      // cuEventElapsedTime is a float of milliseconds: equal to 7 digits.
      EXPECT_NEAR(r["value"].get<double>(), 3350.0, 3350.0 * 1e-6);
      EXPECT_DOUBLE_EQ(r["peak"].get<double>(), 3350.0);
      EXPECT_EQ(r["unit"], "GB/s");
    }
    if (r["suite"] == "launch" && r["name"] == "kernel launch gpu0") {
      launch = true;
      EXPECT_NEAR(r["value"].get<double>(), 2.0, 2e-6);  // SMCOMPAT_FAKE_KERNEL_US default
      EXPECT_EQ(r["unit"], "us");
    }
  }
  EXPECT_TRUE(dtod_1g);
  EXPECT_TRUE(launch);
  EXPECT_TRUE(doc["method"]["blocking_kernel"].get<bool>());  // the build's spin kernel loaded
  EXPECT_TRUE(doc["method"]["quick"].get<bool>());

  Output text = run("bench launch --quick", fake_env("H100"));
  ASSERT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("SYNTHETIC"), std::string::npos) << text.out;
  // Progress goes to stderr, one line per suite when stderr is not a terminal.
  EXPECT_NE(text.err.find("smcompat bench: launch\n"), std::string::npos) << text.err;
  EXPECT_EQ(text.out.find("smcompat bench: launch\n"), std::string::npos);
}

TEST_F(BenchCli, ReportRendersARecordedRun) {
  const std::string run_json = fixture("run_synthetic.json");
  Output json = run("bench report --json " + run_json);
  ASSERT_EQ(json.code, 0) << json.err;
  // What `bench report --json` writes is the recorded run itself.
  EXPECT_EQ(nlohmann::json::parse(json.out)["results"],
            nlohmann::json::parse(slurp(run_json))["results"]);

  Output text = run("bench report " + run_json);
  EXPECT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("SYNTHETIC"), std::string::npos);
  Output md = run("bench report --markdown " + run_json);
  EXPECT_EQ(md.code, 0);
  EXPECT_NE(md.out.find("| "), std::string::npos);

  const fs::path html = dir_ / "run.html";
  Output h = run("bench report " + run_json + " --html " + html.string());
  EXPECT_EQ(h.code, 0) << h.err;
  EXPECT_EQ(h.out, "");  // --html alone writes only the file it names
  EXPECT_NE(slurp(html).find("<html"), std::string::npos);

  Output cmp =
      run("bench report --json " + run_json + " --baseline " + fixture("baseline_synthetic.json"));
  ASSERT_EQ(cmp.code, 0) << cmp.err;
  EXPECT_TRUE(nlohmann::json::parse(cmp.out).contains("comparison"));
}

TEST_F(BenchCli, BrokenRecordedRunIsAnErrorNamingTheFile) {
  const std::string text = slurp(fixture("run_synthetic.json"));
  const fs::path cut = dir_ / "cut.json";
  std::ofstream(cut, std::ios::binary) << text.substr(0, text.size() / 2);
  Output o = run("bench report " + cut.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find(cut.string()), std::string::npos) << o.err;

  Output b = run("bench report " + fixture("run_synthetic.json") + " --baseline " + cut.string());
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.err.find("--baseline"), std::string::npos) << b.err;
}

}  // namespace
