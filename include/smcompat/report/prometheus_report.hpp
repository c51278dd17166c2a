// Metrics in the Prometheus text exposition format (version 0.0.4) for node_exporter's textfile
// collector: `smcompat export prometheus`. Pure functions from what the probe, scans and doctor
// runs found to text; the metric reference, the label rules and the alert examples are in
// docs/prometheus.md. Naming follows https://prometheus.io/docs/practices/naming/ (prefix
// `smcompat_`, base units, `_info` series of value 1 carrying labels, no `_total` on gauges);
// label values are escaped as the format says (backslash, double quote, newline).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/doctor/doctor.hpp"
#include "smcompat/probe/probe.hpp"
#include "smcompat/scan/scan.hpp"
#include "smcompat/verdict/targets.hpp"

namespace smcompat {

/// One subject (a `--scan` path) scanned once per GPU model it is judged for.
struct PrometheusScanSubject {
  std::string subject;  ///< the path as given on the command line (the `subject` label)
  struct Judged {
    Target target;      ///< the GPU model (`gpu_name`, `cc` labels)
    ScanReport report;  ///< scan_paths() with `target` set
  };
  std::vector<Judged> judged;  ///< one per GPU model, in target order
  size_t errors = 0;           ///< scan_error_count() of the subject's scan
};

/// One doctor run for one `--python` environment.
struct PrometheusDoctorSubject {
  std::string subject;  ///< the `--python` argument as given (the `subject` label)
  doctor::DoctorReport report;
};

/// Everything one `smcompat export prometheus` run exports.
struct PrometheusExport {
  /// The probe's report; nullopt when the probe could not run at all (`probe_error` says why),
  /// which is exported as `smcompat_up 0` with status "error".
  std::optional<ProbeReport> probe;
  std::string probe_error;
  std::vector<PrometheusScanSubject> scans;
  std::vector<PrometheusDoctorSubject> doctors;
  double timestamp_seconds = 0;  ///< when the run started (Unix time)
  double duration_seconds = 0;   ///< how long probe, scans and doctor runs took
};

/// Errors of a scan: walk errors (unreadable directories, loops) plus errors inside files.
size_t scan_error_count(const ScanReport& report);

/// A label value escaped for the text format: `\` → `\\`, `"` → `\"`, newline → `\n`; a byte
/// that is not part of well-formed UTF-8 (Prometheus requires it) becomes U+FFFD.
std::string prometheus_label_value(std::string_view value);

/// The whole exposition: every family with HELP and TYPE lines, families without series left
/// out, series in a stable order (GPU ordinal, subject, target, package, verdict rank).
std::string render_prometheus(const PrometheusExport& run);

}  // namespace smcompat
