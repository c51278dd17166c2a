// Fleet merge on a generated fleet: node reports written by the real `smcompat probe` against the
// fake driver for several GPU mixes (then copied under hundreds of host names), scans of nvcc-built
// fixtures, and malformed and truncated reports that must become per-node errors.
#include "smcompat/fleet/fleet.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "probe/run_child.hpp"
#include "smcompat/report/fleet_report.hpp"
#include "support/image_builder.hpp"

namespace smcompat::fleet {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::run_child;

std::string fixture(const std::string& name) {
  return std::string(SMCOMPAT_DOCTOR_FIXTURES) + "/" + name;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string host_name_of(const std::string& prefix, int i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s-%03d", prefix.c_str(), i);
  return buf;
}

// One node's probe report from the real CLI and the fake driver.
json probe_json(const std::map<std::string, std::string>& fake) {
  std::map<std::string, std::string> env = fake;
  env["LD_LIBRARY_PATH"] = SMCOMPAT_FAKEDRIVER_DIR;
  env["SMCOMPAT_HOSTNAME"] = "template";
  auto r = run_child({SMCOMPAT_CLI, "probe", "--json"}, env);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  return json::parse(r.out);
}

std::string scan_json(const std::vector<std::string>& paths) {
  std::vector<std::string> argv{SMCOMPAT_CLI, "scan"};
  argv.insert(argv.end(), paths.begin(), paths.end());
  argv.push_back("--json");
  auto r = run_child(argv, {{"SMCOMPAT_HOSTNAME", "ci-runner"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// `smcompat scan PATH --gpu GPU --json`, parsed into *out: the scan must run (exit 0 or 1).
void scan_for_gpu(const std::string& path, const std::string& gpu, json* out) {
  auto r = run_child({SMCOMPAT_CLI, "scan", path, "--gpu", gpu, "--json"}, {});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  *out = json::parse(r.out);
}

struct Mix {
  std::string prefix;
  int count;
  std::map<std::string, std::string> fake;
};

// 150 H100 nodes on driver 580.95.05 (CUDA 13.0), 30 H100 nodes still on 570.124.06 (CUDA 12.8),
// 80 four-GPU RTX PRO 6000 nodes without P2P, 40 GB10s, 5 nodes whose driver sees no GPU.
const std::vector<Mix>& mixes() {
  static const std::vector<Mix> m = {
      {"h100-a",
       150,
       {{"SMCOMPAT_FAKE_GPUS", "H100,H100,H100,H100,H100,H100,H100,H100"},
        {"SMCOMPAT_FAKE_NVLINK", "2"}}},
      {"h100-b",
       30,
       {{"SMCOMPAT_FAKE_GPUS", "H100,H100,H100,H100,H100,H100,H100,H100"},
        {"SMCOMPAT_FAKE_NVLINK", "2"},
        {"SMCOMPAT_FAKE_DRIVER", "570.124.06"},
        {"SMCOMPAT_FAKE_CUDA", "12080"}}},
      {"pro6000",
       80,
       {{"SMCOMPAT_FAKE_GPUS", "RTX PRO 6000,RTX PRO 6000,RTX PRO 6000,RTX PRO 6000"},
        {"SMCOMPAT_FAKE_P2P", "0"}}},
      {"spark", 40, {{"SMCOMPAT_FAKE_GPUS", "GB10"}}},
      {"broken", 5, {{"SMCOMPAT_FAKE_GPUS", ""}}},
  };
  return m;
}

class GeneratedFleet : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir();
    const std::string& d = dir_->path();
    for (const auto& mix : mixes()) {
      json doc = probe_json(mix.fake);
      for (int i = 1; i <= mix.count; ++i) {
        doc["hostname"] = host_name_of(mix.prefix, i);
        write(d + "/" + host_name_of(mix.prefix, i) + ".json", doc.dump(1));
      }
      if (mix.prefix == "h100-a") {
        // A report written again for one node (a re-run) and one cut off while being written.
        doc["hostname"] = "h100-a-001";
        write(d + "/h100-a-001-rerun.json", doc.dump(1));
        std::string text = doc.dump(1);
        write(d + "/trunc-001.json", text.substr(0, 1000));
      }
    }
    write(d + "/garbage-002.json", "<html>502 Bad Gateway</html>");
    write(d + "/empty-003.json", "");
    write(d + "/bench-004.json", R"({"schema": "smcompat.bench/1", "hostname": "bench"})");
    write(d + "/array-005.json", "[1, 2]");
    write(d + "/noschema-006.json", R"({"hostname": "x"})");
    write(d + "/zz-scan-fixtures.json",
          scan_json({fixture("k_80_90.so"), fixture("k_90_120.so"), fixture("k_ptx80.so")}));
    write(d + "/zz-scan-good.json", scan_json({fixture("k_90_120.so")}));
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(d)) files.push_back(e.path().string());
    std::sort(files.begin(), files.end(), HostOrder{});
    report_ = new FleetReport(merge_reports(files));
  }
  static void TearDownTestSuite() {
    delete report_;
    delete dir_;
  }
  static const FleetFinding* find(const std::string& id, const std::string& image = {}) {
    for (const auto& f : report_->findings)
      if (f.finding.id == id && f.image.find(image) != std::string::npos) return &f;
    return nullptr;
  }
  static std::vector<std::string> hosts(const std::string& prefix, int from, int to) {
    std::vector<std::string> out;
    for (int i = from; i <= to; ++i) out.push_back(host_name_of(prefix, i));
    return out;
  }
  static test::TempDir* dir_;
  static FleetReport* report_;
};
test::TempDir* GeneratedFleet::dir_ = nullptr;
FleetReport* GeneratedFleet::report_ = nullptr;

TEST_F(GeneratedFleet, CountsNodesAndReports) {
  const FleetReport& r = *report_;
  EXPECT_EQ(r.reports_read, 305u + 1 + 6 + 2);
  EXPECT_EQ(r.reports_failed, 6u);
  EXPECT_EQ(r.nodes.size(), 305u + 6);  // the re-run is the same node
  EXPECT_EQ(r.images.size(), 2u);
}

TEST_F(GeneratedFleet, GpusByModel) {
  const FleetReport& r = *report_;
  ASSERT_EQ(r.models.size(), 3u);
  EXPECT_EQ(r.models[0].model, "H100 SXM");
  EXPECT_EQ(r.models[0].cc, "9.0");
  EXPECT_EQ(r.models[0].gpus, 180u * 8);
  EXPECT_EQ(r.models[0].nodes, 180u);
  EXPECT_EQ(r.models[0].drivers,
            (std::vector<std::pair<std::string, size_t>>{{"570.124.06", 30}, {"580.95.05", 150}}));
  EXPECT_EQ(r.models[1].model, "RTX PRO 6000 Blackwell");
  EXPECT_EQ(r.models[1].cc, "12.0");
  EXPECT_EQ(r.models[1].gpus, 320u);
  EXPECT_EQ(r.models[1].nodes, 80u);
  EXPECT_EQ(r.models[2].model, "DGX Spark GB10");
  EXPECT_EQ(r.models[2].cc, "12.1");
  EXPECT_EQ(r.models[2].gpus, 40u);
}

TEST_F(GeneratedFleet, Drivers) {
  const FleetReport& r = *report_;
  ASSERT_EQ(r.drivers.size(), 2u);
  EXPECT_EQ(r.drivers[0].driver_version, "570.124.06");
  EXPECT_EQ(r.drivers[0].driver_cuda->to_string(), "12.8");
  EXPECT_EQ(r.drivers[0].nodes, 30u);
  EXPECT_EQ(r.drivers[1].driver_version, "580.95.05");
  EXPECT_EQ(r.drivers[1].driver_cuda->to_string(), "13.0");
  // The five nodes whose driver sees no GPU still report the driver through NVML.
  EXPECT_EQ(r.drivers[1].nodes, 150u + 80 + 40 + 5);
  EXPECT_EQ(r.drivers[1].models,
            (std::vector<std::string>{"H100 SXM", "RTX PRO 6000 Blackwell", "DGX Spark GB10"}));
}

TEST_F(GeneratedFleet, ExactFindings) {
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& f : report_->findings)
    got.push_back({doctor::to_string(f.finding.severity), f.finding.id});
  std::vector<std::pair<std::string, std::string>> want = {
      {"error", "report-unreadable"}, {"error", "driver-unavailable"},
      {"error", "image-no-code"},     {"warning", "mixed-drivers"},
      {"warning", "p2p-missing"},     {"warning", "duplicate-report"},
      {"warning", "image-ptx-jit"}};
  EXPECT_EQ(got, want);
}

TEST_F(GeneratedFleet, UnreadableReportsAreLocatedPerNodeErrors) {
  const FleetFinding* f = find("report-unreadable");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->hosts, (std::vector<std::string>{"array-005", "bench-004", "empty-003",
                                                "garbage-002", "noschema-006", "trunc-001"}));
  std::map<std::string, Error> by_host;
  for (const auto& n : report_->nodes)
    if (!n.errors.empty()) {
      EXPECT_EQ(n.errors.size(), 1u) << n.host;
      EXPECT_TRUE(n.host_from_file_name);
      by_host[n.host] = n.errors[0];
    }
  ASSERT_EQ(by_host.size(), 6u);
  EXPECT_EQ(by_host["trunc-001"].offset, 1000u);  // where the text ends
  EXPECT_NE(by_host["trunc-001"].what.find("not a JSON document"), std::string::npos);
  EXPECT_EQ(by_host["garbage-002"].offset, 0u);
  EXPECT_EQ(by_host["empty-003"].what, "empty file");
  EXPECT_NE(
      by_host["bench-004"].what.find("schema \"smcompat.bench/1\" is not one fleet merge reads"),
      std::string::npos);
  EXPECT_EQ(by_host["array-005"].what, "not a report: the document is not a JSON object");
  EXPECT_EQ(by_host["noschema-006"].what, "not a report: no \"schema\" field");
  EXPECT_TRUE(by_host["trunc-001"].file.ends_with("/trunc-001.json"));
}

TEST_F(GeneratedFleet, DriverUnavailable) {
  const FleetFinding* f = find("driver-unavailable");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->hosts, hosts("broken", 1, 5));
  EXPECT_EQ(f->finding.evidence.size(), 5u);
}

TEST_F(GeneratedFleet, MixedDrivers) {
  const FleetFinding* f = find("mixed-drivers");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->finding.title, "H100 SXM nodes run 2 different drivers");
  ASSERT_EQ(f->finding.evidence.size(), 2u);
  EXPECT_EQ(f->finding.evidence[0],
            "driver 570.124.06: 30 nodes: h100-b-001, h100-b-002, h100-b-003, h100-b-004, "
            "h100-b-005, h100-b-006, h100-b-007, h100-b-008 and 22 more");
  EXPECT_EQ(f->hosts.size(), 180u);
}

TEST_F(GeneratedFleet, P2pMissing) {
  const FleetFinding* f = find("p2p-missing");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->hosts, hosts("pro6000", 1, 80));
  EXPECT_EQ(f->finding.evidence[0], "pro6000-001: 4 GPUs, 6 of 6 pairs without peer access");
  // NVLink nodes have every pair connected.
  for (const auto& n : report_->nodes)
    if (n.host.starts_with("h100")) {
      EXPECT_EQ(n.gpu_pairs, 28u);
      EXPECT_EQ(n.p2p_pairs, 28u);
      EXPECT_EQ(n.nvlink_pairs, 28u);
    }
}

TEST_F(GeneratedFleet, DuplicateReport) {
  const FleetFinding* f = find("duplicate-report");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->hosts, std::vector<std::string>{"h100-a-001"});
  ASSERT_EQ(f->finding.evidence.size(), 2u);
  // In the order given (natural order of the names): the later one is used.
  EXPECT_TRUE(f->finding.evidence[0].ends_with("/h100-a-001-rerun.json"));
  EXPECT_TRUE(f->finding.evidence[1].ends_with("/h100-a-001.json"));
}

// The fixtures: k_80_90 (SASS sm_80, sm_90), k_90_120 (SASS sm_90, sm_120), k_ptx80 (PTX
// compute_80 from CUDA 13's nvcc, ISA 9.0: a CUDA 12.8 driver cannot compile it).
TEST_F(GeneratedFleet, ImageJudgedPerNodeClass) {
  const Image& im = report_->images[0];
  EXPECT_EQ(im.name, SMCOMPAT_DOCTOR_FIXTURES);
  EXPECT_EQ(im.scanned_on, "ci-runner");
  EXPECT_EQ(im.files_with_code, 3u);
  std::map<std::string, std::pair<std::string, std::array<size_t, kVerdictFitCount>>> by_class;
  for (const auto& c : im.classes)
    by_class[c.model + "/" + c.driver_cuda->to_string()] = {to_string(c.verdict), c.files};
  using Files = std::array<size_t, kVerdictFitCount>;  // native, compat, jit, unsupported,
                                                       // driver-too-old, none
  EXPECT_EQ(by_class.size(), 4u);
  EXPECT_EQ(by_class["H100 SXM/13.0"],
            std::make_pair(std::string("ptx-jit"), Files{2, 0, 1, 0, 0, 0}));
  EXPECT_EQ(by_class["H100 SXM/12.8"],
            std::make_pair(std::string("unsupported-ptx"), Files{2, 0, 0, 1, 0, 0}));
  EXPECT_EQ(by_class["RTX PRO 6000 Blackwell/13.0"],
            std::make_pair(std::string("no-image"), Files{1, 0, 1, 0, 0, 1}));
  EXPECT_EQ(by_class["DGX Spark GB10/13.0"],
            std::make_pair(std::string("no-image"), Files{0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(im.hosts_native.size(), 0u);
  EXPECT_EQ(im.hosts_jit, hosts("h100-a", 1, 150));
  EXPECT_EQ(im.hosts_failing.size(), 30u + 80 + 40);

  const FleetFinding* f = find("image-no-code", SMCOMPAT_DOCTOR_FIXTURES);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->hosts.size(), 150u);
  ASSERT_EQ(f->finding.evidence.size(), 3u);
  EXPECT_EQ(f->finding.evidence[0],
            fmt::format("DGX Spark GB10 (12.1), driver CUDA 13.0: 40 nodes: 1 of 3 files with "
                        "device code cannot run (no kernel image): {}",
                        fixture("k_80_90.so")));
  EXPECT_EQ(f->finding.evidence[1],
            fmt::format("H100 SXM (9.0), driver CUDA 12.8: 30 nodes: 1 of 3 files with device code "
                        "cannot run (PTX newer than the driver, no usable image): {}",
                        fixture("k_ptx80.so")));
  const FleetFinding* jit = find("image-ptx-jit", SMCOMPAT_DOCTOR_FIXTURES);
  ASSERT_TRUE(jit);
  EXPECT_EQ(jit->hosts.size(), 150u + 80 + 40);
}

TEST_F(GeneratedFleet, GoodImageRunsEverywhere) {
  const Image& im = report_->images[1];
  EXPECT_EQ(im.name, fixture("k_90_120.so"));
  EXPECT_EQ(im.hosts_native.size(), 300u);
  EXPECT_TRUE(im.hosts_jit.empty());
  EXPECT_TRUE(im.hosts_failing.empty());
  EXPECT_EQ(find("image-no-code", "k_90_120"), nullptr);
}

TEST_F(GeneratedFleet, JsonDocument) {
  json j = fleet_to_json(*report_, {"smcompat", "fleet", "merge"});
  EXPECT_EQ(j["schema"], "smcompat.fleet/1");
  EXPECT_EQ(j["stats"]["nodes"], 311);
  EXPECT_EQ(j["stats"]["gpus"], 1440 + 320 + 40);
  EXPECT_EQ(j["summary"]["errors"], 3);
  EXPECT_EQ(j["summary"]["warnings"], 4);
  EXPECT_EQ(j["findings"][0]["hosts"].size(), 6u);
  EXPECT_EQ(j["images"][0]["classes"].size(), 4u);
}

// The same merge through the CLI: a directory argument, -o written atomically, exit codes.
TEST_F(GeneratedFleet, Cli) {
  test::TempDir out;
  std::string o = out.path() + "/fleet.json";
  auto r = run_child({SMCOMPAT_CLI, "fleet", "merge", dir_->path(), "-o", o, "--json"}, {});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // error findings, --fail-on error by default
  json printed = json::parse(r.out);
  std::ifstream in(o);
  json written = json::parse(in);
  EXPECT_EQ(printed, written);
  EXPECT_EQ(written["stats"]["reports"], 314);
  EXPECT_EQ(std::distance(fs::directory_iterator(out.path()), fs::directory_iterator()), 1);

  r = run_child({SMCOMPAT_CLI, "fleet", "merge", dir_->path(), "--fail-on", "never", "--markdown"},
                {});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("| H100 SXM | 9.0 | 1440 | 180 | 570.124.06 (30), 580.95.05 (150) |"),
            std::string::npos)
      << r.out;

  // -o into a directory that does not exist: exit 2, nothing written.
  r = run_child(
      {SMCOMPAT_CLI, "fleet", "merge", dir_->path(), "-o", out.path() + "/no/such/f.json"}, {});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no/such/f.json.tmp."), std::string::npos) << r.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(out.path()), fs::directory_iterator()), 1);

  // An empty directory is a usage error.
  test::TempDir empty;
  r = run_child({SMCOMPAT_CLI, "fleet", "merge", empty.path()}, {});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(FleetMerge, ReportKinds) {
  EXPECT_EQ(*report_kind("smcompat.probe/1"), "probe");
  EXPECT_EQ(*report_kind("smcompat.doctor/1"), "doctor");
  EXPECT_EQ(*report_kind("smcompat.scan/1"), "scan");
  EXPECT_EQ(*report_kind("smcompat.scan/2"), "scan");
  EXPECT_FALSE(report_kind("smcompat.probe/2").ok());
}

TEST(FleetMerge, HostOrderIsNatural) {
  HostOrder less;
  EXPECT_TRUE(less("node-2", "node-10"));
  EXPECT_FALSE(less("node-10", "node-2"));
  EXPECT_TRUE(less("node-1", "node-01"));
  EXPECT_TRUE(less("a", "b"));
  EXPECT_TRUE(less("node", "node-1"));
  EXPECT_FALSE(less("node-3", "node-3"));
}

// A scan that carries a CUDA runtime newer than some nodes' drivers, and a node known only from
// its doctor report (whose error finding is rolled up by id).
TEST(FleetMerge, RuntimeNewerThanDriverAndDoctorReports) {
  test::TempDir d;
  write(d.path() + "/old.json", R"({"schema": "smcompat.doctor/1", "hostname": "old",
    "driver": {"state": "ok", "version": "570.124.06", "cuda": "12.8",
               "gpus": [{"name": "H100 SXM", "cc": "9.0"}]},
    "findings": [{"severity": "error", "id": "torch-no-image", "title": "torch has no code"},
                 {"severity": "info", "id": "module-loading-lazy", "title": "lazy"}]})");
  write(d.path() + "/new.json", R"({"schema": "smcompat.doctor/1", "hostname": "new",
    "driver": {"state": "ok", "version": "580.95.05", "cuda": "13.0",
               "gpus": [{"name": "H100 SXM", "cc": "9.0"}]}, "findings": []})");
  write(d.path() + "/scan.json", R"({"schema": "smcompat.scan/2", "hostname": "ci",
    "images": [{"path": "/tmp/app.tar", "reference": "registry.example/app:1"}],
    "cuda_runtimes": [{"path": "/tmp/app.tar", "member": "usr/lib/libcudart.so.13.0.88",
                       "major": 13, "version": "13.0.88"}],
    "files": [{"path": "/tmp/app.tar", "member": "usr/lib/libk.so", "entries": [
      {"kind": "sass", "target": "sm_90", "section": ".nv_fatbin", "container_offset": 4096,
       "entry_offset": 4160, "in_container": true, "relocatable": false}]}]})");
  auto r = merge_reports({d.path() + "/old.json", d.path() + "/new.json", d.path() + "/scan.json"});
  ASSERT_EQ(r.images.size(), 1u);
  EXPECT_EQ(r.images[0].name, "registry.example/app:1");
  EXPECT_EQ(r.images[0].cuda_runtimes, std::vector<std::string>{"13.0.88"});
  EXPECT_EQ(r.images[0].hosts_failing, std::vector<std::string>{"old"});
  EXPECT_EQ(r.images[0].hosts_native, std::vector<std::string>{"new"});
  std::vector<std::string> ids;
  for (const auto& f : r.findings) ids.push_back(f.finding.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"doctor:torch-no-image", "image-driver-too-old",
                                           "mixed-drivers"}));
  const auto& too_old = r.findings[1];
  EXPECT_EQ(too_old.hosts, std::vector<std::string>{"old"});
  EXPECT_EQ(too_old.finding.title,
            "registry.example/app:1 carries the CUDA 13 runtime; the driver of 1 node is older");
  EXPECT_NE(too_old.finding.fix.find("580.65.06"), std::string::npos) << too_old.finding.fix;
}

// Hostile reports among good ones: a number no type holds (1e400, a 400-digit integer) made
// nlohmann throw out_of_range.406 through the merge (exit 2, nothing merged); a hostname with a
// byte that is not UTF-8 aborted the JSON output. Each is now that node's report-unreadable (or
// its name written with U+FFFD) and the good node is merged.
TEST(FleetMerge, HugeNumbersAndBadBytesCostOnlyTheirNode) {
  test::TempDir d;
  write(d.path() + "/good.json", R"({"schema": "smcompat.doctor/1", "hostname": "good",
    "driver": {"state": "ok", "version": "580.95.05", "cuda": "13.0",
               "gpus": [{"name": "H100 SXM", "cc": "9.0"}]}, "findings": []})");
  write(d.path() + "/exp.json",
        R"({"schema": "smcompat.doctor/1", "hostname": "exp", "driver": {"state": "ok",
    "gpus": [{"name": "H100 SXM", "cc": "9.0", "memory_bytes": 1e400}]}})");
  write(d.path() + "/digits.json", R"({"schema": "smcompat.probe/1", "hostname": "digits", "n": )" +
                                       std::string(400, '9') + "}");
  write(d.path() + "/bytes.json", "{\"schema\": \"smcompat.doctor/1\", \"hostname\": \"b\xff\"}");
  auto r = merge_reports({d.path() + "/good.json", d.path() + "/exp.json",
                          d.path() + "/digits.json", d.path() + "/bytes.json"});
  std::vector<std::string> unreadable;
  for (const auto& f : r.findings)
    if (f.finding.id == "report-unreadable") unreadable = f.hosts;
  std::sort(unreadable.begin(), unreadable.end());
  EXPECT_EQ(unreadable, (std::vector<std::string>{"bytes", "digits", "exp"}));
  size_t good = 0;
  for (const auto& n : r.nodes)
    if (n.host == "good" && n.errors.empty()) ++good;
  EXPECT_EQ(good, 1u);
  // The CLI writes the merged document, whatever the inputs held.
  auto cli =
      run_child({SMCOMPAT_CLI, "fleet", "merge", d.path() + "/good.json", d.path() + "/exp.json",
                 d.path() + "/digits.json", d.path() + "/bytes.json", "--json"},
                {});
  EXPECT_EQ(cli.exit_code, 1) << cli.err;  // findings at error severity
  json doc = json::parse(cli.out);
  EXPECT_EQ(doc["schema"], "smcompat.fleet/1");
}

// An -rdc library with PTX only (nvcc -rdc, compute_80): its device-linked .nv_fatbin container is
// empty, and the runtime JIT-links the __nv_relfatbin pre-link code instead. Found by the GPU kit's
// synthetic run (fleet merge said no-image where scan said ptx-jit): the empty container exists
// only in the scan's container_list, so the merge must judge from that list, and reach the scan's
// own verdict.
TEST(FleetMerge, PrelinkOnlyLibraryJudgedAsTheScanJudgesIt) {
  std::string app = std::string(SMCOMPAT_BINARY_DIR) + "/tests/verdict/prelink/rdc_ptx_app";
  if (!fs::exists(app)) GTEST_SKIP() << app << " not built (needs nvcc)";
  json scan;
  ASSERT_NO_FATAL_FAILURE(scan_for_gpu(app, "H100 SXM", &scan));
  ASSERT_EQ(scan["files"][0]["verdict"], "ptx-jit");
  ASSERT_EQ(scan["files"][0]["container_list"][0]["section"], ".nv_fatbin");
  ASSERT_EQ(scan["files"][0]["container_list"][0]["images"], 0);
  test::TempDir d;
  write(d.path() + "/scan.json", scan.dump());
  write(d.path() + "/node.json", R"({"schema": "smcompat.doctor/1", "hostname": "h1",
    "driver": {"state": "ok", "version": "580.95.05", "cuda": "13.0",
               "gpus": [{"name": "H100 SXM", "cc": "9.0"}]}, "findings": []})");
  auto merged = merge_reports({d.path() + "/node.json", d.path() + "/scan.json"});
  ASSERT_EQ(merged.images.size(), 1u);
  ASSERT_EQ(merged.images[0].classes.size(), 1u);
  EXPECT_EQ(merged.images[0].classes[0].verdict, Fit::kPtxJit);
  EXPECT_EQ(merged.images[0].hosts_jit, std::vector<std::string>{"h1"});
  // A hostile list (indices past the entries, a sum that wraps) is not used: the inferred
  // containers stand.
  auto hostile = scan;
  hostile["files"][0]["container_list"][1]["first_image"] = UINT64_MAX;
  hostile["files"][0]["container_list"][1]["images"] = 2;
  write(d.path() + "/scan.json", hostile.dump());
  merged = merge_reports({d.path() + "/node.json", d.path() + "/scan.json"});
  EXPECT_EQ(merged.images[0].classes[0].verdict, Fit::kNoImage);
  // Without the list (a scan written before it existed) the entries alone cannot show the empty
  // container: the merge then cannot see the device link and says no-image.
  scan["files"][0].erase("container_list");
  write(d.path() + "/scan.json", scan.dump());
  merged = merge_reports({d.path() + "/node.json", d.path() + "/scan.json"});
  EXPECT_EQ(merged.images[0].classes[0].verdict, Fit::kNoImage);
}

// nvcc links a kernel-less module of the runtime beside the program's (sm_75 + sm_90 here, no
// PTX): no GPU can lack what is not there, so scan counts it as no unit. Found on a real H200 node,
// where libcufftw's only image is a kernel-less sm_75 cubin: fleet merge judged that file no-image
// (4 no-image files against the scan's 3) because the scan's JSON did not say the image held no
// kernel; entries now carry `kernel_count`.
TEST(FleetMerge, KernellessModuleIsNoUnitAsInTheScan) {
  std::string app = std::string(SMCOMPAT_BINARY_DIR) + "/tests/fixtures/out/app";
  if (!fs::exists(app)) GTEST_SKIP() << app << " not built (needs nvcc)";
  json scan;
  ASSERT_NO_FATAL_FAILURE(scan_for_gpu(app, "RTX 5090", &scan));
  json& file = scan["files"][0];
  ASSERT_EQ(file["verdict"], "ptx-jit");
  ASSERT_EQ(file["no_code_units"], 1);
  // The kernel-less module is the first container: sm_75 and sm_90 cubins with no kernel.
  ASSERT_EQ(file["entries"][0]["kernel_count"], 0);
  ASSERT_EQ(file["entries"][1]["kernel_count"], 0);
  ASSERT_EQ(file["container_list"][0]["images"], 2);
  test::TempDir d;
  write(d.path() + "/node.json", R"({"schema": "smcompat.doctor/1", "hostname": "b1",
    "driver": {"state": "ok", "version": "580.95.05", "cuda": "13.0",
               "gpus": [{"name": "RTX 5090", "cc": "12.0"}]}, "findings": []})");
  auto merged_verdict = [&](const json& doc) {
    write(d.path() + "/scan.json", doc.dump());
    return merge_reports({d.path() + "/node.json", d.path() + "/scan.json"});
  };
  auto merged = merged_verdict(scan);
  ASSERT_EQ(merged.images.size(), 1u);
  ASSERT_EQ(merged.images[0].classes.size(), 1u);
  EXPECT_EQ(merged.images[0].classes[0].verdict, Fit::kPtxJit);
  EXPECT_EQ(merged.images[0].files_with_code, 1u);
  // The libcufftw shape: the same file cut to its kernel-less module only has no device code.
  json only_kernelless = scan;
  json& cut = only_kernelless["files"][0];
  cut["entries"] = json::array({file["entries"][0], file["entries"][1]});
  cut["container_list"] = json::array({file["container_list"][0]});
  merged = merged_verdict(only_kernelless);
  EXPECT_TRUE(merged.images.empty());  // like a scan with no device code at all
  // Written before kernel_count existed, the scan cannot show it: the module then counts.
  for (auto& e : cut["entries"]) e.erase("kernel_count");
  merged = merged_verdict(only_kernelless);
  EXPECT_EQ(merged.images[0].files_with_code, 1u);
  ASSERT_EQ(merged.images[0].classes.size(), 1u);
  EXPECT_EQ(merged.images[0].classes[0].files[static_cast<size_t>(Fit::kNoImage)], 1u);
}

// The fleet judges each package of a scan by the roll-up scan itself uses (judge_package): an
// optional library without code for the A100 (NCCL EP's libnccl_ep.so, a row of
// data/package_libraries.json) does not make the A100 nodes fail, as it did when the worst file
// decided; the scan's own package verdict for the A100 says the same.
TEST(FleetMerge, PackagesJudgedByTheScansRollUp) {
  test::TempDir d;
  fs::create_directories(d.path() + "/root/te");
  fs::copy_file(fixture("k_80_90.so"), d.path() + "/root/te/libte_core.so");
  fs::copy_file(fixture("k_90_120.so"), d.path() + "/root/te/libnccl_ep.so");
  write(d.path() + "/scan.json", scan_json({d.path() + "/root"}));
  auto by_scan =
      run_child({SMCOMPAT_CLI, "scan", d.path() + "/root", "--gpu", "A100", "--json"}, {});
  ASSERT_EQ(by_scan.exit_code, 0) << by_scan.err;
  EXPECT_EQ(json::parse(by_scan.out)["packages"][0]["verdict"], "native");
  write(d.path() + "/a100.json", R"({"schema": "smcompat.doctor/1", "hostname": "a100-1",
    "driver": {"state": "ok", "version": "580.95.05", "cuda": "13.0",
               "gpus": [{"name": "A100 SXM4 80GB", "cc": "8.0"}]}, "findings": []})");
  write(d.path() + "/t4.json", R"({"schema": "smcompat.doctor/1", "hostname": "t4-1",
    "driver": {"state": "ok", "version": "580.95.05", "cuda": "13.0",
               "gpus": [{"name": "Tesla T4", "cc": "7.5"}]}, "findings": []})");
  FleetReport merged =
      merge_reports({d.path() + "/a100.json", d.path() + "/t4.json", d.path() + "/scan.json"});
  ASSERT_EQ(merged.images.size(), 1u);
  const Image& im = merged.images[0];
  EXPECT_EQ(im.hosts_native, std::vector<std::string>{"a100-1"});
  EXPECT_EQ(im.hosts_failing, std::vector<std::string>{"t4-1"});  // the core has no sm_75
  size_t t4_classes = 0;
  for (const auto& c : im.classes)
    if (c.cc == "7.5") {
      ++t4_classes;
      EXPECT_EQ(c.failing_files, std::vector<std::string>{d.path() + "/root/te/libte_core.so"});
    }
  EXPECT_EQ(t4_classes, 1u);

  // The package's CUDA runtime (`cuda_runtime` of the scan: METADATA, a bundled libcudart) against
  // each class's driver: a CUDA 13 package on an A100 whose driver serves CUDA 12.8.
  json doc = json::parse(scan_json({d.path() + "/root"}));
  ASSERT_EQ(doc["packages"].size(), 1u);
  doc["packages"][0]["cuda_runtime"] = {{"cuda", "13"}, {"evidence", "bundles libcudart.so.13"}};
  write(d.path() + "/scan.json", doc.dump());
  write(d.path() + "/a100-old.json", R"({"schema": "smcompat.doctor/1", "hostname": "a100-old",
    "driver": {"state": "ok", "version": "570.124.06", "cuda": "12.8",
               "gpus": [{"name": "A100 SXM4 80GB", "cc": "8.0"}]}, "findings": []})");
  merged = merge_reports(
      {d.path() + "/a100.json", d.path() + "/a100-old.json", d.path() + "/scan.json"});
  ASSERT_EQ(merged.images.size(), 1u);
  EXPECT_EQ(merged.images[0].hosts_native, std::vector<std::string>{"a100-1"});
  EXPECT_EQ(merged.images[0].hosts_failing, std::vector<std::string>{"a100-old"});
  for (const auto& c : merged.images[0].classes)
    if (c.hosts == std::vector<std::string>{"a100-old"}) EXPECT_EQ(c.verdict, Fit::kDriverTooOld);
}

// A container image end to end: written with libarchive (an OCI tarball, two layers, the second
// deleting a library of the first with a whiteout), scanned by the CLI, merged with node reports.
TEST(FleetMerge, ContainerImageScanJudgedForTheFleet) {
  test::TempDir d;
  auto read = [](const std::string& p) { return testimage::read_file(p); };
  std::string layer1 =
      testimage::tar({testimage::file("opt/app/lib/libold.so", read(fixture("k_80_90.so"))),
                      testimage::file("opt/app/lib/libjit.so", read(fixture("k_ptx80.so"))),
                      testimage::file("opt/app/lib/libcudart.so.13.0.96", "not a real runtime")});
  std::string layer2 =
      testimage::tar({testimage::file("opt/app/lib/.wh.libold.so", ""),
                      testimage::file("opt/app/lib/libnew.so", read(fixture("k_90_120.so")))},
                     /*gzip=*/true);
  std::string image = d.path() + "/app.tar";
  testimage::write_file(
      image, testimage::archive_of(testimage::oci_layout(
                 {{layer1, false, false}, {layer2, true, false}}, "registry.example/app:2")));
  auto scan = run_child({SMCOMPAT_CLI, "scan", image, "--json"}, {{"SMCOMPAT_HOSTNAME", "ci"}});
  ASSERT_EQ(scan.exit_code, 0) << scan.err;
  write(d.path() + "/scan.json", scan.out);
  auto node = [&](const std::string& host, const std::string& gpus, const std::string& cuda) {
    json doc = probe_json({{"SMCOMPAT_FAKE_GPUS", gpus},
                           {"SMCOMPAT_FAKE_CUDA", cuda},
                           {"SMCOMPAT_FAKE_DRIVER", cuda == "13000" ? "580.95.05" : "570.124.06"}});
    doc["hostname"] = host;
    write(d.path() + "/" + host + ".json", doc.dump());
  };
  node("h100-new", "H100", "13000");
  node("h100-old", "H100", "12080");
  node("pro-1", "RTX PRO 6000", "13000");
  auto r = merge_reports({d.path() + "/h100-new.json", d.path() + "/h100-old.json",
                          d.path() + "/pro-1.json", d.path() + "/scan.json"});
  ASSERT_EQ(r.images.size(), 1u);
  const Image& im = r.images[0];
  EXPECT_EQ(im.name, "registry.example/app:2");
  EXPECT_EQ(im.files_with_code, 2u);  // libold.so is whited out
  EXPECT_EQ(im.cuda_runtimes, std::vector<std::string>{"13.0.96"});
  EXPECT_EQ(im.hosts_native, std::vector<std::string>{});
  EXPECT_EQ(im.hosts_jit, (std::vector<std::string>{"h100-new", "pro-1"}));
  EXPECT_EQ(im.hosts_failing, std::vector<std::string>{"h100-old"});
  std::vector<std::string> ids;
  for (const auto& f : r.findings) ids.push_back(f.finding.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"image-driver-too-old", "image-no-code", "mixed-drivers",
                                           "image-ptx-jit"}));
  EXPECT_EQ(
      r.findings[1].finding.evidence,
      std::vector<std::string>{
          "H100 SXM (9.0), driver CUDA 12.8: 1 node: 1 of 2 files with device code cannot run "
          "(PTX newer than the driver, no usable image): " +
          image + "!opt/app/lib/libjit.so"});
}

}  // namespace
}  // namespace smcompat::fleet
