// `smcompat trace` end to end: the CLI runs a driver-API program under the shim against the fake
// driver and prints (or writes) the report; exit codes 0 / 1 (failed loads, disagreements) / 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "trace_test_util.hpp"

namespace smcompat::trace {
namespace {

using testing::fixture;
using testing::kFakeDir;
using testing::kProg;
using testing::Output;
using testing::run;
using testing::TempDir;
using Env = std::vector<std::pair<std::string, std::string>>;

Env fake_env(const char* gpus = "RTX 5090") {
  return {{"LD_LIBRARY_PATH", kFakeDir}, {"SMCOMPAT_FAKE_GPUS", gpus}, {"NO_COLOR", "1"}};
}

TEST(TraceCli, JsonReportOfAJitLoad) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  TempDir tmp;
  std::string report = tmp.file("report.json");
  Output o = run({SMCOMPAT_CLI, "trace", "--json", "-o", report, "--", kProg, "gpa", "load",
                  fixture("sm80_ptx80.fatbin")},
                 fake_env());
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "load 0\nfunction scale binary=120 ptx=80\n");  // the program's own output
  nlohmann::json j = nlohmann::json::parse(testing::slurp(report));
  EXPECT_EQ(j["schema"], "smcompat.trace/1");
  EXPECT_EQ(j["exit_status"], 0);
  ASSERT_EQ(j["loads"].size(), 1u);
  EXPECT_EQ(j["loads"][0]["outcome"], "ptx-jit");
  EXPECT_EQ(j["loads"][0]["chosen"], "compute_80");
  EXPECT_EQ(j["loads"][0]["device_cc"], "12.0");
  EXPECT_EQ(j["loads"][0]["predicted"]["outcome"], "ptx-jit");
  EXPECT_EQ(j["loads"][0]["disagrees"], false);
  EXPECT_EQ(j["summary"]["functions_by_outcome"]["ptx-jit"], 2);
}

TEST(TraceCli, FailedLoadIsAFinding) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Output o =
      run({SMCOMPAT_CLI, "trace", "--", kProg, "plt", "load", fixture("sm90a.fatbin")}, fake_env());
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out, "load 209\n");
  EXPECT_NE(o.err.find("CUDA_ERROR_NO_BINARY_FOR_GPU"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("summary: 1 load(s): 0 native, 0 compatible SASS, 0 JIT, 1 failed"),
            std::string::npos)
      << o.err;
}

TEST(TraceCli, ReportCcPrintsImplicationsAndOverrides) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Output o = run({SMCOMPAT_CLI, "trace", "--report-cc", "9.0", "--images", fixture("sm90a.fatbin"),
                  "--", kProg, "plt", "cc"},
                 fake_env());
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "attribute 9.0\ncompute_capability 9.0\nsms 170\n");
  EXPECT_NE(o.err.find("reporting compute capability 9.0 instead of 12.0"), std::string::npos);
  EXPECT_NE(o.err.find("sm_90 SASS cannot run on 12.0"), std::string::npos);
  EXPECT_NE(o.err.find("compute_90 PTX will be JIT-compiled for 12.0"), std::string::npos);
  EXPECT_NE(o.err.find("1 image(s) for sm_90a, the reported capability: cannot run"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("cuDeviceGetAttribute from trace_driver_prog: real 12.0, reported 9.0"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("NVML left truthful"), std::string::npos);
}

TEST(TraceCli, JsonCarriesTheOverridePrediction) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  TempDir tmp;
  std::string report = tmp.file("report.json");
  Output o = run({SMCOMPAT_CLI, "trace", "--json", "-o", report, "--report-cc", "9.0", "--", kProg,
                  "gpa", "load", fixture("sm90_ptx90.fatbin")},
                 fake_env());
  EXPECT_EQ(o.status, 0) << o.err;
  nlohmann::json j = nlohmann::json::parse(testing::slurp(report));
  EXPECT_EQ(j["override"]["real_cc"], "12.0");
  EXPECT_EQ(j["override"]["predicted"], true);
  EXPECT_EQ(j["override"]["implications"][1],
            "sm_90 SASS cannot run on 12.0: SASS never crosses major versions");
  EXPECT_EQ(j["processes"][0]["report_cc"], "9.0");
  EXPECT_EQ(j["processes"][0]["nvml_overridden"], false);
  // Observed: the driver JIT-compiled compute_90 for the real 12.0 despite the override.
  EXPECT_EQ(j["loads"][0]["outcome"], "ptx-jit");
  EXPECT_EQ(j["loads"][0]["chosen"], "compute_90");
}

TEST(TraceCli, EnvPrintsTheVariables) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  Output o = run({SMCOMPAT_CLI, "trace", "--env", "--records", "/tmp/x.jsonl", "--report-cc", "9.0",
                  "--only-for", "libtorch_cuda.so"},
                 fake_env());
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("export LD_PRELOAD=" + testing::kShim + "\n"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("export SMCOMPAT_TRACE_FILE=/tmp/x.jsonl\n"), std::string::npos);
  EXPECT_NE(o.out.find("export SMCOMPAT_REPORT_CC=9.0\n"), std::string::npos);
  EXPECT_NE(o.out.find("export SMCOMPAT_REPORT_CC_ONLY_FOR=libtorch_cuda.so\n"), std::string::npos);
}

TEST(TraceCli, RecordsKeptAndReadBack) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  TempDir tmp;
  std::string records = tmp.file("r.jsonl");
  Output o = run({SMCOMPAT_CLI, "trace", "--records", records, "-o", tmp.file("report.txt"), "--",
                  kProg, "dlsym", "load", fixture("sm120.fatbin")},
                 fake_env());
  EXPECT_EQ(o.status, 0) << o.err;
  Output again = run({SMCOMPAT_CLI, "trace", "--from", records}, fake_env());
  EXPECT_EQ(again.status, 0);
  EXPECT_NE(again.out.find("sm_120 SASS on 12.0"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("native sm_120"), std::string::npos);
}

TEST(TraceCli, UsageAndIoErrors) {
  SMCOMPAT_REQUIRE_SHIM_PROGRAMS();
  EXPECT_EQ(run({SMCOMPAT_CLI, "trace"}, fake_env()).status, 2);
  EXPECT_EQ(run({SMCOMPAT_CLI, "trace", "--from", "/nonexistent.jsonl"}, fake_env()).status, 2);
  Output bad = run({SMCOMPAT_CLI, "trace", "--", "/nonexistent/program"}, fake_env());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("cannot run /nonexistent/program: No such file or directory"),
            std::string::npos);
  EXPECT_EQ(
      run({SMCOMPAT_CLI, "trace", "--report-cc", "banana", "--", kProg, "plt", "cc"}, fake_env())
          .status,
      2);
  EXPECT_EQ(run({SMCOMPAT_CLI, "trace", "--only-for", "x.so", "--", kProg, "plt", "cc"}, fake_env())
                .status,
            2);
}

}  // namespace
}  // namespace smcompat::trace
