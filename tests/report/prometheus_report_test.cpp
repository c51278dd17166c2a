// The Prometheus printer (src/report/prometheus_report.cpp) on constructed reports: the exact
// exposition text for a machine without a driver, for two GPUs (one masquerading) with their
// topology, for a scanned subject whose name needs escaping judged for two GPU models, and for
// doctor findings (an id found twice is one series); label escaping on its own.
#include "smcompat/report/prometheus_report.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace smcompat {
namespace {

const std::string kRunTail =
    "# HELP smcompat_last_run_timestamp_seconds When this export ran, in seconds since the Unix "
    "epoch\n"
    "# TYPE smcompat_last_run_timestamp_seconds gauge\n"
    "smcompat_last_run_timestamp_seconds 1764000000.5\n"
    "# HELP smcompat_run_duration_seconds How long the probe, the scans and the doctor runs of "
    "this export took, in seconds\n"
    "# TYPE smcompat_run_duration_seconds gauge\n"
    "smcompat_run_duration_seconds 0.25\n";

const std::string kUpHelp =
    "# HELP smcompat_up 1 if the probe found a working NVIDIA driver with at least one GPU, else "
    "0\n"
    "# TYPE smcompat_up gauge\n";
const std::string kStatusHelp =
    "# HELP smcompat_probe_status The probe's status as a state set: 1 for the status of this "
    "run, 0 for the others\n"
    "# TYPE smcompat_probe_status gauge\n";

std::string status_set(const std::string& which) {
  std::string out;
  for (const char* s : {"ok", "no_driver", "stub_library", "no_device", "permission_denied",
                        "devices_hidden", "error"})
    out += std::string("smcompat_probe_status{status=\"") + s + "\"} " + (which == s ? "1" : "0") +
           "\n";
  return out;
}

PrometheusExport timed() {
  PrometheusExport run;
  run.timestamp_seconds = 1764000000.5;
  run.duration_seconds = 0.25;
  return run;
}

TEST(PrometheusReport, LabelValuesAreEscaped) {
  EXPECT_EQ(prometheus_label_value("plain /opt/x"), "plain /opt/x");
  EXPECT_EQ(prometheus_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(prometheus_label_value(""), "");
  // UTF-8 passes; what is not UTF-8 (Latin-1 é, a lone continuation byte, an overlong '/',
  // a surrogate, a truncated sequence) becomes U+FFFD byte by byte.
  EXPECT_EQ(prometheus_label_value("/opt/caf\xC3\xA9/\xF0\x9F\x9A\x80"),
            "/opt/caf\xC3\xA9/\xF0\x9F\x9A\x80");
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(prometheus_label_value("caf\xE9"), "caf" + r);
  EXPECT_EQ(prometheus_label_value("\x80x"), r + "x");
  EXPECT_EQ(prometheus_label_value("\xC0\xAF"), r + r);
  EXPECT_EQ(prometheus_label_value("\xED\xA0\x80"), r + r + r);
  EXPECT_EQ(prometheus_label_value("a\xE2\x82"), "a" + r + r);
}

TEST(PrometheusReport, NoDriver) {
  PrometheusExport run = timed();
  ProbeReport p;
  p.status = ProbeStatus::kNoDriver;
  run.probe = p;
  EXPECT_EQ(render_prometheus(run),
            kUpHelp + "smcompat_up 0\n" + kStatusHelp + status_set("no_driver") + kRunTail);
}

TEST(PrometheusReport, ProbeFailureIsAnError) {
  PrometheusExport run = timed();
  run.probe_error = "no libcuda name";
  EXPECT_EQ(render_prometheus(run),
            kUpHelp + "smcompat_up 0\n" + kStatusHelp + status_set("error") + kRunTail);
}

ProbeDevice device(int ordinal, const std::string& name, ComputeCapability cc,
                   ComputeCapability nvml_cc, uint64_t memory) {
  ProbeDevice d;
  d.ordinal = ordinal;
  d.name = name;
  d.uuid = "GPU-" + std::to_string(ordinal);
  d.pci_bus_id = "0000:0" + std::to_string(ordinal + 1) + ":00.0";
  d.cc = cc;
  d.nvml_cc = nvml_cc;
  d.masquerade = cc != nvml_cc;
  d.total_memory = memory;
  return d;
}

TEST(PrometheusReport, TwoGpusWithTopologyAndMasquerade) {
  PrometheusExport run = timed();
  ProbeReport p;
  p.status = ProbeStatus::kOk;
  p.driver_version = "580.95.05";
  p.cuda_driver_version = 13000;
  p.kernel_module = KernelModule::kOpen;
  p.devices.push_back(device(0, "NVIDIA GeForce RTX 5090", {12, 0}, {12, 0}, 32ull << 30));
  p.devices.back().catalog_gpu = "GeForce RTX 5090";
  // CUDA says 9.0, NVML 12.0: the driver loads code for 12.0 (ProbeDevice::true_cc()).
  p.devices.push_back(device(1, "NVIDIA \"odd\" GPU", {9, 0}, {12, 0}, 1000));
  p.topology.p2p_access = {{std::nullopt, true}, {false, std::nullopt}};
  p.topology.nvlink_links = {{std::nullopt, 4}, {std::nullopt, std::nullopt}};
  run.probe = p;
  EXPECT_EQ(
      render_prometheus(run),
      kUpHelp + "smcompat_up 1\n" + kStatusHelp + status_set("ok") +
          "# HELP smcompat_driver_info The NVIDIA driver: its version, the CUDA version it "
          "supports and the kernel module flavour (value 1)\n"
          "# TYPE smcompat_driver_info gauge\n"
          "smcompat_driver_info{driver_version=\"580.95.05\",cuda_version=\"13.0\","
          "kernel_module=\"open\"} 1\n"
          "# HELP smcompat_gpu_info One GPU as the driver reports it; cc and arch are the "
          "architecture the driver loads code for (value 1)\n"
          "# TYPE smcompat_gpu_info gauge\n"
          "smcompat_gpu_info{gpu=\"0\",uuid=\"GPU-0\",name=\"NVIDIA GeForce RTX 5090\","
          "pci_bus_id=\"0000:01:00.0\",cc=\"12.0\",arch=\"sm_120\",catalog_gpu=\"GeForce RTX "
          "5090\"} 1\n"
          "smcompat_gpu_info{gpu=\"1\",uuid=\"GPU-1\",name=\"NVIDIA \\\"odd\\\" GPU\","
          "pci_bus_id=\"0000:02:00.0\",cc=\"12.0\",arch=\"sm_120\",catalog_gpu=\"\"} 1\n"
          "# HELP smcompat_gpu_memory_bytes Total memory of the GPU in bytes\n"
          "# TYPE smcompat_gpu_memory_bytes gauge\n"
          "smcompat_gpu_memory_bytes{gpu=\"0\"} 34359738368\n"
          "smcompat_gpu_memory_bytes{gpu=\"1\"} 1000\n"
          "# HELP smcompat_gpu_compute_capability_masquerade 1 if CUDA and NVML disagree on the "
          "GPU's compute capability (something masquerades as another architecture), else 0\n"
          "# TYPE smcompat_gpu_compute_capability_masquerade gauge\n"
          "smcompat_gpu_compute_capability_masquerade{gpu=\"0\"} 0\n"
          "smcompat_gpu_compute_capability_masquerade{gpu=\"1\"} 1\n"
          "# HELP smcompat_gpu_p2p_access 1 if the GPU can access the peer GPU's memory "
          "directly (cuDeviceCanAccessPeer), else 0\n"
          "# TYPE smcompat_gpu_p2p_access gauge\n"
          "smcompat_gpu_p2p_access{gpu=\"0\",peer=\"1\"} 1\n"
          "smcompat_gpu_p2p_access{gpu=\"1\",peer=\"0\"} 0\n"
          "# HELP smcompat_gpu_nvlink_links Active NVLink links from the GPU to the peer GPU\n"
          "# TYPE smcompat_gpu_nvlink_links gauge\n"
          "smcompat_gpu_nvlink_links{gpu=\"0\",peer=\"1\"} 4\n" +
          kRunTail);
}

ScannedFile file_with(Fit fit) {
  ScannedFile f;
  f.verdict = FileVerdict{};
  f.verdict->verdict = fit;
  f.verdict->has_device_code = true;
  return f;
}

PackageSummary package(const std::string& name, const std::string& version,
                       std::optional<Fit> verdict) {
  PackageSummary p;
  p.name = name;
  p.version = version;
  p.verdict = verdict;
  return p;
}

std::string verdict_set(const std::string& prefix, const std::string& labels, Fit which) {
  std::string out;
  for (const char* v :
       {"native", "compatible-sass", "ptx-jit", "unsupported-ptx", "driver-too-old", "no-image"})
    out += prefix + "{" + labels + ",verdict=\"" + v + "\"} " +
           (std::string_view(to_string(which)) == v ? "1" : "0") + "\n";
  return out;
}
std::string counts(const std::string& labels, std::array<int, 6> n) {
  std::string out;
  const char* names[] = {"native",          "compatible-sass", "ptx-jit",
                         "unsupported-ptx", "driver-too-old",  "no-image"};
  for (size_t i = 0; i < 6; ++i)
    out += "smcompat_scan_files{" + labels + ",verdict=\"" + names[i] + "\"} " +
           std::to_string(n[i]) + "\n";
  return out;
}

TEST(PrometheusReport, ScannedSubjectForTwoGpuModels) {
  PrometheusExport run = timed();
  run.probe = ProbeReport{};
  run.probe->status = ProbeStatus::kNoDevice;
  auto rtx = resolve_target("RTX 5090");
  auto h100 = resolve_target("H100");
  ASSERT_TRUE(rtx && h100);

  PrometheusScanSubject s;
  s.subject = "/srv/img \"a\"\\b";
  s.errors = 2;
  ScanReport for_rtx;  // torch has no sm_120: the subject cannot run on the RTX 5090
  for_rtx.files = {file_with(Fit::kNoImage), file_with(Fit::kNative), file_with(Fit::kPtxJit),
                   ScannedFile{}};  // the last: an error entry without device code
  for_rtx.packages = {package("torch", "2.6.0", Fit::kNoImage), package("numpy", "2.0", {}),
                      package("flash-attn", "2.7", Fit::kNative),
                      package("flash-attn", "2.7", Fit::kPtxJit)};
  ScanReport for_h100;
  for_h100.files = {file_with(Fit::kNative), file_with(Fit::kCompatibleSass)};
  for_h100.packages = {package("torch", "2.6.0", Fit::kNative),
                       package("flash-attn", "2.7", Fit::kCompatibleSass)};
  s.judged.push_back({*rtx, for_rtx});
  s.judged.push_back({*h100, for_h100});
  run.scans.push_back(s);
  // A subject without device code: every state 0.
  PrometheusScanSubject empty;
  empty.subject = "/empty";
  empty.judged.push_back({*h100, ScanReport{}});
  run.scans.push_back(empty);

  const std::string subj = "subject=\"/srv/img \\\"a\\\"\\\\b\"";
  const std::string rtx_l = subj + ",gpu_name=\"GeForce RTX 5090\",cc=\"12.0\"";
  const std::string h100_l = subj + ",gpu_name=\"H100 SXM\",cc=\"9.0\"";
  const std::string empty_l = "subject=\"/empty\",gpu_name=\"H100 SXM\",cc=\"9.0\"";
  std::string empty_set;
  for (const char* v :
       {"native", "compatible-sass", "ptx-jit", "unsupported-ptx", "driver-too-old", "no-image"})
    empty_set += "smcompat_scan_verdict{" + empty_l + ",verdict=\"" + v + "\"} 0\n";
  auto pkg = [&](const std::string& name, const std::string& version, const std::string& gpu,
                 Fit fit) {
    return verdict_set("smcompat_package_verdict",
                       subj + ",package=\"" + name + "\",version=\"" + version + "\"," + gpu, fit);
  };
  const std::string rtx_g = "gpu_name=\"GeForce RTX 5090\",cc=\"12.0\"";
  const std::string h100_g = "gpu_name=\"H100 SXM\",cc=\"9.0\"";
  EXPECT_EQ(render_prometheus(run),
            kUpHelp + "smcompat_up 0\n" + kStatusHelp + status_set("no_device") +
                "# HELP smcompat_scan_verdict Verdict of a scanned subject for a GPU model as a "
                "state set: the worst verdict of its packages with device code (all 0 when it "
                "holds none)\n"
                "# TYPE smcompat_scan_verdict gauge\n" +
                verdict_set("smcompat_scan_verdict", rtx_l, Fit::kNoImage) +
                verdict_set("smcompat_scan_verdict", h100_l, Fit::kCompatibleSass) + empty_set +
                "# HELP smcompat_scan_files Files with device code in a scanned subject, by "
                "their verdict for a GPU model\n"
                "# TYPE smcompat_scan_files gauge\n" +
                counts(rtx_l, {1, 0, 1, 0, 0, 1}) + counts(h100_l, {1, 1, 0, 0, 0, 0}) +
                counts(empty_l, {0, 0, 0, 0, 0, 0}) +
                "# HELP smcompat_scan_errors Errors while scanning a subject: unreadable paths "
                "and damaged files\n"
                "# TYPE smcompat_scan_errors gauge\n"
                "smcompat_scan_errors{" +
                subj +
                "} 2\n"
                "smcompat_scan_errors{subject=\"/empty\"} 0\n"
                "# HELP smcompat_package_verdict Verdict of one package of a scanned subject for "
                "a GPU model as a state set: the libraries that load on that GPU decide "
                "(docs/scan.md, package verdicts)\n"
                "# TYPE smcompat_package_verdict gauge\n" +
                pkg("flash-attn", "2.7", rtx_g, Fit::kPtxJit) +
                pkg("torch", "2.6.0", rtx_g, Fit::kNoImage) +
                pkg("flash-attn", "2.7", h100_g, Fit::kCompatibleSass) +
                pkg("torch", "2.6.0", h100_g, Fit::kNative) + kRunTail);
}

TEST(PrometheusReport, RepeatedSeriesAreWrittenOnce) {
  PrometheusExport run = timed();
  run.probe = ProbeReport{};
  run.probe->status = ProbeStatus::kNoDriver;
  auto h100 = resolve_target("H100");
  ASSERT_TRUE(h100);
  PrometheusScanSubject s;
  s.subject = "/x";
  s.judged.push_back({*h100, ScanReport{}});
  s.judged.push_back({*h100, ScanReport{}});
  run.scans.push_back(s);
  std::string text = render_prometheus(run);
  size_t n = 0;
  for (size_t at = text.find("\nsmcompat_scan_verdict{"); at != std::string::npos;
       at = text.find("\nsmcompat_scan_verdict{", at + 1))
    ++n;
  EXPECT_EQ(n, 6u) << text;
}

TEST(PrometheusReport, DoctorFindings) {
  PrometheusExport run = timed();
  run.probe = ProbeReport{};
  run.probe->status = ProbeStatus::kNoDriver;
  PrometheusDoctorSubject d;
  d.subject = "/opt/venv";
  auto finding = [](doctor::Severity s, const std::string& id) {
    doctor::Finding f;
    f.severity = s;
    f.id = id;
    return f;
  };
  d.report.findings = {finding(doctor::Severity::kError, "torch-no-image"),
                       finding(doctor::Severity::kError, "package-no-image"),
                       finding(doctor::Severity::kError, "package-no-image"),
                       finding(doctor::Severity::kInfo, "module-loading-lazy")};
  run.doctors.push_back(d);
  EXPECT_EQ(render_prometheus(run),
            kUpHelp + "smcompat_up 0\n" + kStatusHelp + status_set("no_driver") +
                "# HELP smcompat_findings Findings of the doctor for a Python environment (with "
                "the machine's driver, toolkit and variable findings of the same run), by "
                "severity\n"
                "# TYPE smcompat_findings gauge\n"
                "smcompat_findings{subject=\"/opt/venv\",severity=\"error\"} 3\n"
                "smcompat_findings{subject=\"/opt/venv\",severity=\"warning\"} 0\n"
                "smcompat_findings{subject=\"/opt/venv\",severity=\"info\"} 1\n"
                "# HELP smcompat_finding_info One doctor finding for a Python environment by its "
                "stable id (value 1)\n"
                "# TYPE smcompat_finding_info gauge\n"
                "smcompat_finding_info{subject=\"/opt/venv\",id=\"torch-no-image\","
                "severity=\"error\"} 1\n"
                "smcompat_finding_info{subject=\"/opt/venv\",id=\"package-no-image\","
                "severity=\"error\"} 1\n"
                "smcompat_finding_info{subject=\"/opt/venv\",id=\"module-loading-lazy\","
                "severity=\"info\"} 1\n" +
                kRunTail);
}

}  // namespace
}  // namespace smcompat
