// The shared pieces of the bench printers (src/report/bench_view.hpp): facts, grouping and the
// wording of values, noise and flags, so that text, Markdown and HTML say the same things.
#include "bench_view.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "smcompat/util/enum_names.hpp"

namespace smcompat::bench_view {

namespace {

// The native suite a torch row stands beside: "torch.gemm" → "gemm".
std::string base_suite(const std::string& suite) {
  return suite.rfind("torch.", 0) == 0 ? suite.substr(6) : suite;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> header_facts(const bench::BenchRun& run) {
  std::vector<std::pair<std::string, std::string>> f;
  f.emplace_back("started", run.started_utc.empty() ? "unknown" : run.started_utc);
  f.emplace_back("host", run.host.empty() ? "unknown" : run.host);
  std::string driver = run.driver_version.value_or("unknown");
  if (run.cuda_driver_version)
    driver += fmt::format(" (CUDA {}.{})", *run.cuda_driver_version / 1000,
                          *run.cuda_driver_version % 1000 / 10);
  f.emplace_back("driver", driver);
  f.emplace_back("smcompat", run.tool_version.empty() ? "unknown" : run.tool_version);
  if (!run.libraries.empty()) {
    std::string libs;
    for (const auto& [name, version] : run.libraries)
      libs += (libs.empty() ? "" : ", ") + name + " " + version;
    f.emplace_back("libraries", libs);
  }
  const auto& m = run.method;
  f.emplace_back(
      "method",
      fmt::format("at least {} samples and {} s, until the relative stddev is at most {} % or "
                  "{} s pass; {}, {}{}",
                  m.stop.min_samples, m.stop.min_time_s, m.stop.max_rel_stddev * 100,
                  m.stop.timeout_s, m.blocking_kernel ? "blocking kernel" : "no blocking kernel",
                  m.l2_flush ? "L2 flushed before each sample" : "L2 not flushed",
                  m.quick ? "; --quick" : ""));
  if (!run.argv.empty()) {
    std::string cmd;
    for (const auto& a : run.argv) cmd += (cmd.empty() ? "" : " ") + a;
    f.emplace_back("command", cmd);
  }
  return f;
}

std::string state_text(const bench::DeviceState& s) {
  std::vector<std::string> parts;
  if (s.sm_clock_mhz) parts.push_back(fmt::format("SM {} MHz", *s.sm_clock_mhz));
  if (s.memory_clock_mhz) parts.push_back(fmt::format("mem {} MHz", *s.memory_clock_mhz));
  if (s.temperature_c) parts.push_back(fmt::format("{} °C", *s.temperature_c));
  if (s.power_w) parts.push_back(fmt::format("{:.1f} W", *s.power_w));
  for (const auto& t : s.throttle_reasons) parts.push_back("throttle: " + t);
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out.empty() ? "no NVML readings" : out;
}

std::vector<std::string> device_lines(const bench::BenchRun& run) {
  std::vector<std::string> out;
  for (const auto& d : run.devices) {
    std::string line = fmt::format("GPU {}: {}, cc {}", d.ordinal, d.name, d.cc);
    line += d.catalog_gpu ? ", catalog " + *d.catalog_gpu : ", not in the catalog (no peaks)";
    if (d.state_at_start) line += "; at start " + state_text(*d.state_at_start);
    out.push_back(line);
  }
  if (out.empty()) out.push_back("no devices recorded");
  return out;
}

std::string synthetic_banner(const bench::BenchRun& run) {
  size_t n = 0;
  for (const auto& r : run.results) n += r.origin == bench::Origin::kSynthetic;
  if (n == 0) return {};
  return fmt::format(
      "SYNTHETIC: {} of {} rows are made-up figures (tests, examples), not measurements", n,
      run.results.size());
}

bool is_torch_side(const bench::BenchResult& r) {
  return r.suite.rfind("torch.", 0) == 0 || r.origin == bench::Origin::kTorch;
}

std::vector<SuiteGroup> group_by_suite(const bench::BenchRun& run) {
  std::vector<SuiteGroup> groups;
  for (const auto& r : run.results) {
    SuiteGroup* g = nullptr;
    for (auto& existing : groups)
      if (existing.suite == r.suite) g = &existing;
    if (!g) {
      groups.push_back({r.suite, {}, {}});
      g = &groups.back();
    }
    (r.skipped() ? g->skipped : g->measured).push_back(&r);
  }
  return groups;
}

std::string number(double v) {
  if (!std::isfinite(v)) return "?";
  const double a = std::fabs(v);
  // Large whole numbers (byte counts) in full rather than "8388608.0".
  if (a >= 1e4 && v == std::floor(v) && a < 1e18) return fmt::format("{:.0f}", v);
  if (a >= 100) return fmt::format("{:.1f}", v);
  if (a >= 10) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3f}", v);
}

std::string value_text(const bench::BenchResult& r) {
  if (!r.value) return "skipped";
  return r.unit.empty() ? number(*r.value) : number(*r.value) + " " + r.unit;
}

std::string percent_text(const bench::BenchResult& r) {
  auto p = r.percent_of_peak();
  return p ? fmt::format("{:.1f} %", *p) : std::string();
}

bool not_converged(const bench::BenchResult& r) { return r.time && !r.time->converged(); }

std::string noise_text(const bench::BenchResult& r) {
  if (!r.time) return {};
  std::string out = fmt::format("±{:.2f} % n={}", r.time->rel_stddev * 100, r.time->samples);
  if (not_converged(r)) out += fmt::format(" not converged ({})", bench::to_string(r.time->stop));
  return out;
}

std::string verified_text(const bench::BenchResult& r) {
  if (!r.verified) return {};
  return *r.verified ? "yes" : "NO";
}

bool throttled(const bench::BenchResult& r) {
  return (r.time && r.time->throttled > 0) || (r.state && !r.state->throttle_reasons.empty());
}

std::string flags_text(const bench::BenchResult& r) {
  if (!throttled(r)) return {};
  std::string out = "throttled";
  if (r.time && r.time->throttled > 0) out += fmt::format(" {} samples", r.time->throttled);
  if (r.state && !r.state->throttle_reasons.empty()) {
    std::string reasons;
    for (const auto& t : r.state->throttle_reasons) reasons += (reasons.empty() ? "" : ", ") + t;
    out += " (" + reasons + ")";
  }
  return out;
}

std::string devices_text(const std::vector<int>& devices) {
  std::string out;
  for (int d : devices) out += (out.empty() ? "" : "→") + std::to_string(d);
  return out;
}

std::string extra_text(const bench::BenchResult& r) {
  std::string out;
  for (const auto& [k, v] : r.extra) out += (out.empty() ? "" : " ") + k + "=" + number(v);
  return out;
}

bool needs_device_column(const bench::BenchRun& run) {
  for (const auto& r : run.results)
    if (r.devices.size() != 1 || r.devices[0] != 0) return true;
  return false;
}

std::vector<SidePair> side_by_side(const bench::BenchRun& run) {
  std::vector<SidePair> out;
  for (const auto& t : run.results) {
    if (!is_torch_side(t) || !t.value) continue;
    for (const auto& n : run.results) {
      if (is_torch_side(n) || !n.value || n.name != t.name || n.unit != t.unit) continue;
      if (base_suite(t.suite) != n.suite || n.devices != t.devices) continue;
      out.push_back({&n, &t});
      break;
    }
  }
  return out;
}

std::string ratio_text(const SidePair& p) {
  if (!p.native->value || !p.torch->value || *p.native->value == 0) return {};
  return fmt::format("{:.2f}×", *p.torch->value / *p.native->value);
}

std::string verdict_text(const BenchComparisonRow& row) {
  switch (row.status) {
    case BenchComparisonRow::Status::kNew:
      return "new";
    case BenchComparisonRow::Status::kMissing:
      return "missing";
    case BenchComparisonRow::Status::kCompared:
      break;
  }
  if (row.units_differ) return "units differ";
  if (!row.value || !row.baseline_value) return "skipped";
  if (!row.beyond_noise) return "noise unknown";
  return *row.beyond_noise ? "changed" : "within noise";
}

std::string change_text(const BenchComparisonRow& row) {
  return row.change_percent ? fmt::format("{:+.1f} %", *row.change_percent) : std::string();
}

std::string verdict_shown(const BenchComparisonRow& row) {
  const std::string verdict = verdict_text(row);
  if (verdict != "changed" || !row.change_percent) return verdict;
  const bool time_unit = row.unit == "s" || row.unit == "ms" || row.unit == "us" ||
                         row.unit == "ns" || row.unit == "µs";
  const bool faster = time_unit ? *row.change_percent < 0 : *row.change_percent > 0;
  return verdict + (faster ? " (faster)" : " (slower)");
}

bool listed(const BenchComparisonRow& row) { return verdict_text(row) != "within noise"; }

std::string comparison_title(const BenchComparison& c) {
  return fmt::format("compared with the baseline of {} on {} (smcompat {})",
                     c.baseline_started_utc.empty() ? "unknown" : c.baseline_started_utc,
                     c.baseline_host.empty() ? "unknown host" : c.baseline_host,
                     c.baseline_tool_version.empty() ? "unknown" : c.baseline_tool_version);
}

std::string comparison_summary(const BenchComparison& c) {
  size_t changed = 0, within = 0, unknown = 0, added = 0, missing = 0;
  for (const auto& r : c.rows) {
    const std::string v = verdict_text(r);
    if (v == "skipped" || v == "units differ") ++unknown;
    if (v == "changed") ++changed;
    if (v == "within noise") ++within;
    if (v == "noise unknown") ++unknown;
    if (v == "new") ++added;
    if (v == "missing") ++missing;
  }
  return fmt::format(
      "{} changed beyond the noise, {} within it, {} not comparable, {} new, {} missing", changed,
      within, unknown, added, missing);
}

ComparisonListing comparison_listing(const BenchComparison& c) {
  ComparisonListing out;
  for (const auto& r : c.rows) {
    if (!listed(r)) {
      ++out.hidden;
      continue;
    }
    auto measured = [&](const std::optional<double>& v) {
      return v ? number(*v) + " " + r.unit : std::string("-");
    };
    out.lines.push_back({{r.suite, r.name, devices_text(r.devices), measured(r.baseline_value),
                          measured(r.value), change_text(r), verdict_shown(r)},
                         verdict_text(r)});
  }
  return out;
}

std::string hidden_rows_text(size_t hidden) {
  return hidden == 0 ? std::string() : fmt::format("({} rows within the noise not listed)", hidden);
}

std::vector<SuiteColumn> suite_columns(const SuiteGroup& g, bool device_column, bool flags_always) {
  bool any_extra = false, any_verified = false, any_peak = false, any_flag = flags_always;
  for (const auto* r : g.measured) {
    any_extra |= !r->extra.empty();
    any_verified |= r->verified.has_value();
    any_peak |= r->percent_of_peak().has_value();
    any_flag |= throttled(*r);
  }
  using C = SuiteColumn;
  std::vector<C> columns = {C::kConfiguration};
  auto add_if = [&](bool wanted, C c) {
    if (wanted) columns.push_back(c);
  };
  add_if(device_column, C::kGpu);
  add_if(true, C::kValue);
  add_if(any_peak, C::kPercent);
  add_if(true, C::kNoise);
  add_if(any_verified, C::kVerified);
  add_if(true, C::kOrigin);
  add_if(any_extra, C::kExtra);
  add_if(any_flag, C::kFlags);
  return columns;
}

const char* column_title(SuiteColumn c) {
  constexpr std::array<const char*, 9> kTitles = {"configuration", "GPU",   "value",
                                                  "% of peak",     "noise", "verified",
                                                  "origin",        "extra", "flags"};
  return enum_name(c, kTitles, "?");
}

bool column_numeric(SuiteColumn c) {
  return c == SuiteColumn::kValue || c == SuiteColumn::kPercent;
}

std::string suite_cell(const bench::BenchResult& r, SuiteColumn c) {
  switch (c) {
    case SuiteColumn::kConfiguration:
      return r.name;
    case SuiteColumn::kGpu:
      return devices_text(r.devices);
    case SuiteColumn::kValue:
      return value_text(r);
    case SuiteColumn::kPercent:
      return percent_text(r);
    case SuiteColumn::kNoise:
      return noise_text(r);
    case SuiteColumn::kVerified:
      return verified_text(r);
    case SuiteColumn::kOrigin:
      return bench::to_string(r.origin);
    case SuiteColumn::kExtra:
      return extra_text(r);
    case SuiteColumn::kFlags:
      return flags_text(r);
  }
  return "";
}

}  // namespace smcompat::bench_view
