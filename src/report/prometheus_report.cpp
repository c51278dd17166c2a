// The Prometheus text exposition (format 0.0.4) of one `smcompat export prometheus` run
// (report/prometheus_report.hpp). Every family is collected whole before it is printed, so that
// its series follow its one HELP and TYPE line as the format requires; a family without series is
// left out. Metric reference and label rules: docs/prometheus.md. Format:
// https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
#include "smcompat/report/prometheus_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <utility>

namespace smcompat {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// One metric family: its HELP and TYPE lines and its series, in the order added.
class Family {
 public:
  Family(std::string name, std::string help) : name_(std::move(name)), help_(std::move(help)) {}

  void add(const Labels& labels, std::string value) {
    std::string line = name_;
    if (!labels.empty()) {
      line += '{';
      for (size_t i = 0; i < labels.size(); ++i) {
        if (i) line += ',';
        line += labels[i].first + "=\"" + prometheus_label_value(labels[i].second) + '"';
      }
      line += '}';
    }
    // A series must be unique within an exposition: a repeat (a caller's duplicate input) is
    // dropped rather than making the whole file unreadable for Prometheus.
    if (!seen_.insert(line).second) return;
    series_.push_back(line + ' ' + value + '\n');
  }
  void add(const Labels& labels, uint64_t value) { add(labels, std::to_string(value)); }
  void add_flag(const Labels& labels, bool value) { add(labels, value ? "1" : "0"); }

  // Appends the family to `out` unless it has no series. Every family here is a gauge: the
  // values are states and counts of one run, not counters that only grow.
  void print(std::string& out) const {
    if (series_.empty()) return;
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name_, help_, name_);
    for (const auto& s : series_) out += s;
  }

 private:
  std::string name_, help_;
  std::vector<std::string> series_;
  std::set<std::string> seen_;
};

// The fit values a file, package or subject verdict takes, in rank order (verdict/fit.hpp).
std::array<Fit, kVerdictFitCount> verdict_values() {
  return {Fit::kNative,         Fit::kCompatibleSass, Fit::kPtxJit,
          Fit::kUnsupportedPtx, Fit::kDriverTooOld,   Fit::kNoImage};
}

// A state set (one series per verdict value, 1 for `verdict`, 0 for the others; all 0 when the
// subject holds no device code) under `labels`.
void add_state_set(Family& family, const Labels& labels, std::optional<Fit> verdict) {
  for (Fit v : verdict_values()) {
    Labels l = labels;
    l.emplace_back("verdict", to_string(v));
    family.add_flag(l, verdict && as_verdict(*verdict) == v);
  }
}

// "13.0" from cuDriverGetVersion's 13000.
std::string cuda_version(std::optional<int> v) {
  if (!v) return "";
  return fmt::format("{}.{}", *v / 1000, (*v % 1000) / 10);
}

// Shortest text that reads back as the same double ("1764077346.5", "0.25").
std::string seconds(double value) { return fmt::format("{}", value); }

void probe_metrics(const PrometheusExport& run, std::string& out) {
  Family up("smcompat_up",
            "1 if the probe found a working NVIDIA driver with at least one GPU, else 0");
  Family status("smcompat_probe_status",
                "The probe's status as a state set: 1 for the status of this run, 0 for the "
                "others");
  Family driver("smcompat_driver_info",
                "The NVIDIA driver: its version, the CUDA version it supports and the kernel "
                "module flavour (value 1)");
  Family info("smcompat_gpu_info",
              "One GPU as the driver reports it; cc and arch are the architecture the driver "
              "loads code for (value 1)");
  Family memory("smcompat_gpu_memory_bytes", "Total memory of the GPU in bytes");
  Family masquerade("smcompat_gpu_compute_capability_masquerade",
                    "1 if CUDA and NVML disagree on the GPU's compute capability (something "
                    "masquerades as another architecture), else 0");
  Family p2p("smcompat_gpu_p2p_access",
             "1 if the GPU can access the peer GPU's memory directly (cuDeviceCanAccessPeer), "
             "else 0");
  Family nvlink("smcompat_gpu_nvlink_links", "Active NVLink links from the GPU to the peer GPU");

  const ProbeStatus statuses[] = {
      ProbeStatus::kOk,       ProbeStatus::kNoDriver,         ProbeStatus::kStubLibrary,
      ProbeStatus::kNoDevice, ProbeStatus::kPermissionDenied, ProbeStatus::kDevicesHidden,
      ProbeStatus::kError};
  ProbeStatus st = run.probe ? run.probe->status : ProbeStatus::kError;
  up.add({}, st == ProbeStatus::kOk ? "1" : "0");
  for (ProbeStatus s : statuses) status.add_flag({{"status", to_string(s)}}, s == st);

  if (run.probe) {
    const ProbeReport& p = *run.probe;
    if (p.driver_version || p.cuda_driver_version)
      driver.add({{"driver_version", p.driver_version.value_or("")},
                  {"cuda_version", cuda_version(p.cuda_driver_version)},
                  {"kernel_module", to_string(p.kernel_module)}},
                 "1");
    for (const ProbeDevice& d : p.devices) {
      std::string gpu = std::to_string(d.ordinal);
      ComputeCapability cc = d.true_cc();
      info.add({{"gpu", gpu},
                {"uuid", d.uuid},
                {"name", d.name},
                {"pci_bus_id", d.pci_bus_id},
                {"cc", cc.to_string()},
                {"arch", fmt::format("sm_{}", cc.arch())},
                {"catalog_gpu", d.catalog_gpu.value_or("")}},
               "1");
      memory.add({{"gpu", gpu}}, d.total_memory);
      masquerade.add_flag({{"gpu", gpu}}, d.masquerade);
    }
    // Topology rows and columns are CUDA ordinals; the diagonal (and whatever the driver did not
    // answer) is nullopt and has no series.
    auto pairs = [&](const auto& matrix, auto&& add) {
      for (size_t i = 0; i < matrix.size(); ++i)
        for (size_t j = 0; j < matrix[i].size(); ++j)
          if (i != j && matrix[i][j])
            add(Labels{{"gpu", std::to_string(i)}, {"peer", std::to_string(j)}}, *matrix[i][j]);
    };
    pairs(p.topology.p2p_access, [&](const Labels& l, bool v) { p2p.add_flag(l, v); });
    pairs(p.topology.nvlink_links,
          [&](const Labels& l, int v) { nvlink.add(l, static_cast<uint64_t>(std::max(v, 0))); });
  }
  for (const Family* f : {&up, &status, &driver, &info, &memory, &masquerade, &p2p, &nvlink})
    f->print(out);
}

void scan_metrics(const PrometheusExport& run, std::string& out) {
  Family verdict("smcompat_scan_verdict",
                 "Verdict of a scanned subject for a GPU model as a state set: the worst verdict "
                 "of its packages with device code (all 0 when it holds none)");
  Family files("smcompat_scan_files",
               "Files with device code in a scanned subject, by their verdict for a GPU model");
  Family errors("smcompat_scan_errors",
                "Errors while scanning a subject: unreadable paths and damaged files");
  Family packages("smcompat_package_verdict",
                  "Verdict of one package of a scanned subject for a GPU model as a state set: "
                  "the libraries that load on that GPU decide (docs/scan.md, package verdicts)");
  for (const PrometheusScanSubject& s : run.scans) {
    for (const auto& j : s.judged) {
      Labels base{
          {"subject", s.subject}, {"gpu_name", j.target.name}, {"cc", j.target.cc.to_string()}};
      std::optional<Fit> worst;
      for (const PackageSummary& p : j.report.packages)
        if (p.verdict) worst = worst ? worse(*worst, *p.verdict) : *p.verdict;
      add_state_set(verdict, base, worst);

      std::array<uint64_t, kVerdictFitCount> counts{};
      for (const ScannedFile& f : j.report.files)
        if (f.verdict && f.verdict->has_device_code) {
          auto i = static_cast<size_t>(as_verdict(f.verdict->verdict));
          if (i < counts.size()) ++counts[i];
        }
      for (Fit v : verdict_values()) {
        Labels l = base;
        l.emplace_back("verdict", to_string(v));
        files.add(l, counts[static_cast<size_t>(v)]);
      }

      // One state set per (package, version); a name and version met twice (two copies in
      // different folders) counts with its worse verdict.
      std::map<std::pair<std::string, std::string>, Fit> by_package;
      for (const PackageSummary& p : j.report.packages) {
        if (!p.verdict) continue;
        auto [it, inserted] = by_package.emplace(std::make_pair(p.name, p.version), *p.verdict);
        if (!inserted) it->second = worse(it->second, *p.verdict);
      }
      for (const auto& [key, fit] : by_package)
        add_state_set(packages,
                      {{"subject", s.subject},
                       {"package", key.first},
                       {"version", key.second},
                       {"gpu_name", j.target.name},
                       {"cc", j.target.cc.to_string()}},
                      fit);
    }
    errors.add({{"subject", s.subject}}, s.errors);
  }
  for (const Family* f : {&verdict, &files, &errors, &packages}) f->print(out);
}

void doctor_metrics(const PrometheusExport& run, std::string& out) {
  Family counts("smcompat_findings",
                "Findings of the doctor for a Python environment (with the machine's driver, "
                "toolkit and variable findings of the same run), by severity");
  Family info("smcompat_finding_info",
              "One doctor finding for a Python environment by its stable id (value 1)");
  const doctor::Severity severities[] = {doctor::Severity::kError, doctor::Severity::kWarning,
                                         doctor::Severity::kInfo};
  for (const PrometheusDoctorSubject& s : run.doctors) {
    for (doctor::Severity sev : severities)
      counts.add({{"subject", s.subject}, {"severity", doctor::to_string(sev)}},
                 static_cast<uint64_t>(s.report.count(sev)));
    // An id can be found several times (once per package); one series each (id, severity).
    std::vector<std::pair<std::string, doctor::Severity>> seen;
    for (const doctor::Finding& f : s.report.findings) {
      auto key = std::make_pair(f.id, f.severity);
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.push_back(key);
      info.add({{"subject", s.subject}, {"id", f.id}, {"severity", doctor::to_string(f.severity)}},
               "1");
    }
  }
  counts.print(out);
  info.print(out);
}

}  // namespace

size_t scan_error_count(const ScanReport& report) {
  size_t n = report.errors.size();
  for (const ScannedFile& f : report.files) n += f.inventory.errors.size();
  return n;
}

namespace {

// Length of the well-formed UTF-8 sequence at `s[i]` (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF), or 0 if the byte there does not start one.
size_t utf8_sequence(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n = c >= 0xC2 && c <= 0xDF   ? 2
             : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xF0 && c <= 0xF4 ? 4
                                      : 0;
  if (n == 0 || s.size() - i < n) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  unsigned char c1 = byte(i + 1);
  if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) ||
      (c == 0xF4 && c1 > 0x8F))
    return 0;
  return n;
}

}  // namespace

std::string prometheus_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size();) {
    char c = value[i];
    size_t n = utf8_sequence(value, i);
    if (n == 0) {
      // Prometheus rejects a label value that is not UTF-8 (a path in another encoding): the
      // byte becomes U+FFFD REPLACEMENT CHARACTER.
      out += "\xEF\xBF\xBD";
      ++i;
    } else if (c == '\\') {
      out += "\\\\";
      ++i;
    } else if (c == '"') {
      out += "\\\"";
      ++i;
    } else if (c == '\n') {
      out += "\\n";
      ++i;
    } else {
      out.append(value.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string render_prometheus(const PrometheusExport& run) {
  std::string out;
  probe_metrics(run, out);
  scan_metrics(run, out);
  doctor_metrics(run, out);
  Family timestamp("smcompat_last_run_timestamp_seconds",
                   "When this export ran, in seconds since the Unix epoch");
  Family duration("smcompat_run_duration_seconds",
                  "How long the probe, the scans and the doctor runs of this export took, in "
                  "seconds");
  timestamp.add({}, seconds(run.timestamp_seconds));
  duration.add({}, seconds(run.duration_seconds));
  timestamp.print(out);
  duration.print(out);
  return out;
}

}  // namespace smcompat
