// End to end: `smcompat export prometheus` under the fake driver (tests/fakedriver) serving a
// mixed GPU set (RTX 5090 and two H100), with an nvcc-built library scanned from a folder whose
// name needs escaping and a doctor run on an environment holding it: the exact series of the
// probe, the scan and the findings; the atomic --textfile write (complete content, no temporary
// left, a missing directory exits 2 and writes nothing); usage errors. That promtool accepts the
// output is checked by the ctest `export_prometheus_promtool` (tests/cli/promtool_check.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "doctor/fixture_env.hpp"
#include "probe/run_child.hpp"

namespace {

namespace fs = std::filesystem;
using smcompat::test::run_child;

std::map<std::string, std::string> fake_env() {
  return {{"PATH", "/usr/bin:/bin"},
          {"LD_LIBRARY_PATH", SMCOMPAT_FAKEDRIVER_DIR},
          {"SMCOMPAT_FAKE_GPUS", "RTX 5090,H100,H100"},
          {"SMCOMPAT_FAKE_P2P", "0"},
          {"SMCOMPAT_FAKE_NVLINK", "2"},
          {"NO_COLOR", "1"}};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The series of `family` (lines starting with "family{" or "family "), in output order.
std::vector<std::string> series(const std::string& text, const std::string& family) {
  std::vector<std::string> out;
  for (const auto& l : lines_of(text))
    if (l.rfind(family + "{", 0) == 0 || l.rfind(family + " ", 0) == 0) out.push_back(l);
  return out;
}

std::vector<std::string> state_set(const std::string& family, const std::string& labels,
                                   const std::string& which) {
  std::vector<std::string> out;
  for (const char* v :
       {"native", "compatible-sass", "ptx-jit", "unsupported-ptx", "driver-too-old", "no-image"})
    out.push_back(family + "{" + labels + ",verdict=\"" + v + "\"} " + (which == v ? "1" : "0"));
  return out;
}
std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class ExportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    SMCOMPAT_SKIP_WITHOUT_DOCTOR_FIXTURES();
    // A folder name with a double quote, a backslash and a newline: all three are escaped.
    lib_dir_ = tmp_.path() + "/libs \"q\"\\b\nn";
    fs::create_directories(lib_dir_);
    fs::copy_file(smcompat::testing::fixture_so("k_80_90"), lib_dir_ + "/k_80_90.so");
    smcompat::testing::FakeEnv env(tmp_.path(), "venv");
    env.add("fixture-ext", "1.0", {{"fixture_ext/_C.so", "so:k_80_90"}});
    venv_ = env.prefix();
  }
  std::vector<std::string> argv(std::vector<std::string> extra) {
    std::vector<std::string> a{SMCOMPAT_CLI,   "export",    "prometheus", "--proc-version",
                               "/nonexistent", "--dev-dir", tmp_.path()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  smcompat::testing::TempDir tmp_;
  std::string lib_dir_, venv_;
};

TEST_F(ExportCli, MixedGpusScanAndDoctor) {
  auto r = run_child(argv({"--scan", lib_dir_, "--python", venv_, "--gpu", "B200"}), fake_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& out = r.out;
  EXPECT_EQ(series(out, "smcompat_up"), std::vector<std::string>{"smcompat_up 1"});
  EXPECT_EQ(series(out, "smcompat_driver_info"),
            std::vector<std::string>{"smcompat_driver_info{driver_version=\"580.95.05\","
                                     "cuda_version=\"13.0\",kernel_module=\"unknown\"} 1"});
  auto info = series(out, "smcompat_gpu_info");
  ASSERT_EQ(info.size(), 3u) << out;
  // UUIDs are a stable hash of position and name (tests/fakedriver/README.md): not compared.
  auto without_uuid = [](std::string s) {
    size_t a = s.find(",uuid=\""), b = s.find("\",name=");
    return s.erase(a, b + 1 - a);
  };
  EXPECT_EQ(without_uuid(info[0]),
            "smcompat_gpu_info{gpu=\"0\",name=\"NVIDIA GeForce RTX 5090\","
            "pci_bus_id=\"0000:01:00.0\",cc=\"12.0\",arch=\"sm_120\","
            "catalog_gpu=\"GeForce RTX 5090\"} 1");
  EXPECT_EQ(without_uuid(info[2]),
            "smcompat_gpu_info{gpu=\"2\",name=\"NVIDIA H100 SXM\",pci_bus_id=\"0000:21:00.0\","
            "cc=\"9.0\",arch=\"sm_90\",catalog_gpu=\"H100 SXM\"} 1");
  EXPECT_EQ(series(out, "smcompat_gpu_memory_bytes"),
            (std::vector<std::string>{"smcompat_gpu_memory_bytes{gpu=\"0\"} 34359738368",
                                      "smcompat_gpu_memory_bytes{gpu=\"1\"} 85899345920",
                                      "smcompat_gpu_memory_bytes{gpu=\"2\"} 85899345920"}));
  EXPECT_EQ(series(out, "smcompat_gpu_compute_capability_masquerade"),
            (std::vector<std::string>{"smcompat_gpu_compute_capability_masquerade{gpu=\"0\"} 0",
                                      "smcompat_gpu_compute_capability_masquerade{gpu=\"1\"} 0",
                                      "smcompat_gpu_compute_capability_masquerade{gpu=\"2\"} 0"}));
  std::vector<std::string> p2p, nvlink;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (i != j) {
        std::string l = "{gpu=\"" + std::to_string(i) + "\",peer=\"" + std::to_string(j) + "\"}";
        p2p.push_back("smcompat_gpu_p2p_access" + l + " 0");
        nvlink.push_back("smcompat_gpu_nvlink_links" + l + " 2");
      }
  EXPECT_EQ(series(out, "smcompat_gpu_p2p_access"), p2p);
  EXPECT_EQ(series(out, "smcompat_gpu_nvlink_links"), nvlink);

  // sm_80 + sm_90 SASS: native on the H100, nothing for the RTX 5090 (12.0) or the B200 (10.0).
  const std::string subject = "subject=\"" + tmp_.path() + "/libs \\\"q\\\"\\\\b\\nn\"";
  const std::string rtx = ",gpu_name=\"GeForce RTX 5090\",cc=\"12.0\"";
  const std::string h100 = ",gpu_name=\"H100 SXM\",cc=\"9.0\"";
  const std::string b200 = ",gpu_name=\"B200\",cc=\"10.0\"";
  EXPECT_EQ(series(out, "smcompat_scan_verdict"),
            state_set("smcompat_scan_verdict", subject + rtx, "no-image") +
                state_set("smcompat_scan_verdict", subject + h100, "native") +
                state_set("smcompat_scan_verdict", subject + b200, "no-image"))
      << out;
  auto files = [&](const std::string& gpu, const std::string& which) {
    std::vector<std::string> out;
    for (const char* v :
         {"native", "compatible-sass", "ptx-jit", "unsupported-ptx", "driver-too-old", "no-image"})
      out.push_back("smcompat_scan_files{" + subject + gpu + ",verdict=\"" + v + "\"} " +
                    (which == v ? "1" : "0"));
    return out;
  };
  EXPECT_EQ(series(out, "smcompat_scan_files"),
            files(rtx, "no-image") + files(h100, "native") + files(b200, "no-image"));
  EXPECT_EQ(series(out, "smcompat_scan_errors"),
            std::vector<std::string>{"smcompat_scan_errors{" + subject + "} 0"});
  const std::string pkg = subject + ",package=\"k_80_90.so\",version=\"\"";
  EXPECT_EQ(series(out, "smcompat_package_verdict"),
            state_set("smcompat_package_verdict", pkg + rtx, "no-image") +
                state_set("smcompat_package_verdict", pkg + h100, "native") +
                state_set("smcompat_package_verdict", pkg + b200, "no-image"));

  // The doctor on the environment: its package has no code for the RTX 5090 and the B200.
  auto findings = series(out, "smcompat_findings");
  ASSERT_EQ(findings.size(), 3u) << out;
  EXPECT_EQ(
      findings[0].rfind("smcompat_findings{subject=\"" + venv_ + "\",severity=\"error\"} ", 0), 0u)
      << findings[0];
  EXPECT_NE(findings[0].back(), '0') << findings[0];
  auto finding_info = series(out, "smcompat_finding_info");
  EXPECT_NE(std::find(finding_info.begin(), finding_info.end(),
                      "smcompat_finding_info{subject=\"" + venv_ +
                          "\",id=\"package-no-image\",severity=\"error\"} 1"),
            finding_info.end())
      << out;
  EXPECT_EQ(series(out, "smcompat_last_run_timestamp_seconds").size(), 1u);
  EXPECT_EQ(series(out, "smcompat_run_duration_seconds").size(), 1u);
  // Every family has HELP and TYPE lines just before its series.
  for (const char* family :
       {"smcompat_up", "smcompat_probe_status", "smcompat_driver_info", "smcompat_gpu_info",
        "smcompat_gpu_memory_bytes", "smcompat_gpu_compute_capability_masquerade",
        "smcompat_gpu_p2p_access", "smcompat_gpu_nvlink_links", "smcompat_scan_verdict",
        "smcompat_scan_files", "smcompat_scan_errors", "smcompat_package_verdict",
        "smcompat_findings", "smcompat_finding_info", "smcompat_last_run_timestamp_seconds",
        "smcompat_run_duration_seconds"}) {
    std::string f = family;
    EXPECT_NE(out.find("# HELP " + f + " "), std::string::npos) << f;
    EXPECT_NE(out.find("# TYPE " + f + " gauge\n" + f), std::string::npos) << f;
  }
}

TEST_F(ExportCli, NoDriverIsUpZero) {
  auto env = fake_env();
  env["LD_LIBRARY_PATH"] = tmp_.path();  // no libcuda.so.1 there
  auto r = run_child(argv({"--scan", lib_dir_, "--gpu", "H100"}), env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(series(r.out, "smcompat_up"), std::vector<std::string>{"smcompat_up 0"});
  EXPECT_NE(r.out.find("smcompat_probe_status{status=\"no_driver\"} 1\n"), std::string::npos);
  EXPECT_TRUE(series(r.out, "smcompat_gpu_info").empty());
  // Still judged for the GPU asked for.
  EXPECT_EQ(series(r.out, "smcompat_scan_verdict").size(), 6u) << r.out;
}

TEST_F(ExportCli, VenvPackagesAndMasquerade) {
  // CUDA is told 9.0, NVML says 12.0: flagged, and judged for what the driver loads (12.0).
  auto env = fake_env();
  env["SMCOMPAT_FAKE_GPUS"] = "RTX 5090";
  env["SMCOMPAT_FAKE_MASQUERADE"] = "9.0";
  auto r = run_child(argv({"--scan", venv_}), env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(series(r.out, "smcompat_gpu_compute_capability_masquerade"),
            std::vector<std::string>{"smcompat_gpu_compute_capability_masquerade{gpu=\"0\"} 1"});
  auto info = series(r.out, "smcompat_gpu_info");
  ASSERT_EQ(info.size(), 1u);
  EXPECT_NE(info[0].find(",cc=\"12.0\",arch=\"sm_120\","), std::string::npos) << info[0];
  // A venv is grouped by its dist-info RECORDs: the package's name (as the scan names it, from
  // the dist-info directory) and version are labels.
  EXPECT_EQ(series(r.out, "smcompat_package_verdict"),
            state_set("smcompat_package_verdict",
                      "subject=\"" + venv_ +
                          "\",package=\"fixture_ext\",version=\"1.0\",gpu_name=\"GeForce RTX "
                          "5090\",cc=\"12.0\"",
                      "no-image"))
      << r.out;
}

TEST_F(ExportCli, WhatIfOfAPresentModelIsNotRepeated) {
  // "RTX 5090" is on the machine: asked for again with --gpu, it must not repeat its series.
  auto r = run_child(argv({"--scan", lib_dir_, "--gpu", "RTX 5090", "--gpu", "H100"}), fake_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(series(r.out, "smcompat_scan_verdict").size(), 12u) << r.out;
  EXPECT_EQ(series(r.out, "smcompat_package_verdict").size(), 12u) << r.out;
}

TEST_F(ExportCli, TextfileIsWrittenAtomically) {
  std::string dir = tmp_.path() + "/textfile";
  fs::create_directories(dir);
  std::string path = dir + "/smcompat.prom";
  auto r = run_child(argv({"--scan", lib_dir_, "--textfile", path}), fake_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");  // nothing on stdout
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"smcompat.prom"});  // no PATH.tmp.<pid> left
  auto content = smcompat::testing::run_command("cat '" + path + "'").second;
  EXPECT_EQ(content.rfind("# HELP smcompat_up ", 0), 0u);
  ASSERT_GT(content.size(), 1u);
  EXPECT_EQ(content.back(), '\n');
  EXPECT_EQ(series(content, "smcompat_run_duration_seconds").size(), 1u);  // the last family
  EXPECT_EQ(lines_of(content).back().rfind("smcompat_run_duration_seconds ", 0), 0u);
  EXPECT_EQ(series(content, "smcompat_scan_verdict").size(), 12u);  // RTX 5090 and H100

  // Running again replaces the file.
  r = run_child(argv({"--textfile", path}), fake_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  content = smcompat::testing::run_command("cat '" + path + "'").second;
  EXPECT_TRUE(series(content, "smcompat_scan_verdict").empty());
}

TEST_F(ExportCli, MissingTextfileDirectoryExitsTwoAndWritesNothing) {
  std::string path = tmp_.path() + "/no-such-dir/smcompat.prom";
  auto r = run_child(argv({"--textfile", path}), fake_env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp_.path() + "/no-such-dir"));
}

TEST_F(ExportCli, UsageErrorsExitTwo) {
  EXPECT_EQ(run_child(argv({"--gpu", "RTX 9999"}), fake_env()).exit_code, 2);
  auto r = run_child(argv({"--scan", tmp_.path() + "/missing"}), fake_env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(run_child(argv({"--python", tmp_.path() + "/missing-venv"}), fake_env()).exit_code, 2);
  EXPECT_EQ(run_child({SMCOMPAT_CLI, "export"}, fake_env()).exit_code, 2);
}

}  // namespace
