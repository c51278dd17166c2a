// Printing trace reports (include/smcompat/report/trace_report.hpp): the table of loads with
// what the driver reported (observed) next to smcompat's prediction, and the JSON report
// "smcompat.trace/1" whose fields docs/trace.md documents.
#include "smcompat/report/trace_report.hpp"

#include <fmt/format.h>

#include <map>

#include "smcompat/report/json_document.hpp"
#include "smcompat/util/json_text.hpp"
#include "smcompat/util/shell.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

using nlohmann::json;
using trace::CcQuery;
using trace::OfferedImage;
using trace::TracedFunction;
using trace::TracedLoad;
using trace::TracedLookup;
using trace::TracedProcess;
using trace::TraceLog;
using trace::TraceSummary;

namespace {

std::string images_text(const TracedLoad& l) {
  if (l.images.empty()) return l.inventory_error.empty() ? "-" : "unreadable";
  std::string s;
  for (const OfferedImage& img : l.images) {
    if (!s.empty()) s += ", ";
    s += img.target.to_string();
  }
  return s;
}

std::string fmt_ms(double ms) {
  return ms < 10 ? fmt::format("{:.2f}", ms) : fmt::format("{:.1f}", ms);
}

}  // namespace

std::string render_shim_environment(const std::vector<std::pair<std::string, std::string>>& env,
                                    const std::string& records) {
  std::string out;
  for (const auto& [k, v] : env) out += fmt::format("export {}={}\n", k, shell_quote(v));
  return out + fmt::format("# then run the program; afterwards: smcompat trace --from {}\n",
                           shell_quote(records));
}

std::string render_override_preview(ComputeCapability reported, const TraceRenderOptions& o,
                                    bool scoped) {
  if (!o.real_cc)
    return fmt::format(
        "smcompat trace: reporting compute capability {}; no driver answered here, so what it "
        "implies cannot be predicted\n",
        reported.to_string());
  std::string out = fmt::format(
      "smcompat trace: reporting compute capability {} instead of {}{}:\n", reported.to_string(),
      o.real_cc->to_string(), scoped ? " (only to callers in the --only-for libraries)" : "");
  for (const std::string& line : o.override_implications) out += "  - " + line + "\n";
  if (!o.override_file_predictions.empty()) out += "  predicted for the images in these files:\n";
  for (const std::string& line : o.override_file_predictions) out += "    " + line + "\n";
  return out;
}

std::string render_trace_text(const TraceLog& log, const TraceRenderOptions& options) {
  Style style = options.color ? Style::for_stream(stdout, Style::Mode::kAlways) : Style::plain();
  std::string out;
  out += style.bold("smcompat trace") + (options.command.empty() ? "" : ": " + options.command) +
         (options.exit_status ? fmt::format(" (exit status {})", *options.exit_status) : "") + "\n";
  if (log.processes.empty()) {
    out +=
        "  the shim never started: the program did not load it (static binary, setuid, or "
        "LD_PRELOAD removed)\n";
  }
  // Devices seen (observed).
  std::map<int, std::string> devices;
  std::optional<int> driver;
  for (const TracedLoad& l : log.loads) {
    if (l.device && l.device_cc) devices[*l.device] = l.device_cc->to_string();
    if (l.driver_cuda) driver = l.driver_cuda;
  }
  for (const auto& [dev, cc] : devices)
    out += fmt::format("  device {}: compute capability {} (as the driver reports it){}\n", dev, cc,
                       driver ? fmt::format(", driver supports CUDA {}",
                                            Version::from_cuda_int(*driver).to_string())
                              : "");
  for (const TracedProcess& p : log.processes) {
    if (p.report_cc.empty()) continue;
    out += fmt::format(
        "  capability override: {} reported to {} (pid {}); NVML left truthful\n", p.report_cc,
        p.only_for.empty() ? "every caller"
                           : "callers in " + fmt::format("{}", fmt::join(p.only_for, ", ")),
        p.pid);
  }
  // How the program reached the driver (lookups the shim answered).
  std::map<std::string, size_t> via;
  bool bootstrap = false;
  for (const TracedLookup& k : log.lookups) {
    ++via[k.via];
    if (k.name == "cuGetProcAddress" && k.wrapped && k.version) bootstrap = true;
  }
  if (!via.empty()) {
    std::string paths;
    for (const auto& [name, n] : via)
      paths += fmt::format("{}{} ({})", paths.empty() ? "" : ", ", name, n);
    out += fmt::format("  lookups answered by the shim (bootstrap and wrapped names): {}{}\n",
                       paths, bootstrap ? "; cuGetProcAddress bootstrap answered by the shim" : "");
  }
  for (const CcQuery& q : log.cc_queries) {
    std::string caller = q.caller.empty() ? "?" : q.caller.substr(q.caller.rfind('/') + 1);
    out += fmt::format("    {} from {}: real {}, reported {}{}\n", q.api, caller, q.real_cc,
                       q.reported_cc, q.overridden ? "" : " (not overridden: not in --only-for)");
  }

  if (!log.loads.empty()) {
    Table table({"#", "api", "source", "offered", "observed (driver)", "how", "load ms",
                 "first use ms", "predicted"},
                {Table::Align::kRight, Table::Align::kLeft, Table::Align::kLeft,
                 Table::Align::kLeft, Table::Align::kLeft, Table::Align::kLeft,
                 Table::Align::kRight, Table::Align::kRight, Table::Align::kLeft});
    for (const TracedLoad& l : log.loads) {
      std::string observed = to_string(l.outcome);
      if (l.outcome == Fit::kNative) observed = style.green(observed);
      if (l.outcome == Fit::kPtxJit || l.outcome == Fit::kCompatibleSass)
        observed = style.yellow(observed);
      if (l.outcome == Fit::kFailed) observed = style.red(observed);
      std::string source = l.source == "file" ? l.path : l.source;
      if (!l.format.empty()) source += " (" + l.format + ")";
      std::string predicted = "-";
      if (l.predicted) {
        predicted = to_string(l.predicted->outcome);
        if (l.predicted->image) predicted += " " + l.predicted->image->to_string();
        if (l.predicted->outcome == Fit::kFailed)
          predicted += fmt::format(" ({})", l.predicted->error);
        if (l.disagrees) predicted += " " + style.red("DISAGREES");
      }
      std::string load = fmt_ms(l.load_ms);
      if (l.jit_wall_ms && *l.jit_wall_ms > 0)
        load += fmt::format(" (JIT {})", fmt_ms(*l.jit_wall_ms));
      table.add_row({std::to_string(l.id), l.api, source, images_text(l), observed, l.how, load,
                     l.first_use_ms ? fmt_ms(*l.first_use_ms) : "-", predicted});
    }
    out += "\n" + table.render(style, "  ");
    for (const TracedLoad& l : log.loads) {
      if (!l.jit_error_log.empty())
        out += fmt::format("  load #{} JIT log: {}\n", l.id, l.jit_error_log);
      if (!l.inventory_error.empty())
        out += fmt::format("  load #{}: image not readable: {}\n", l.id, l.inventory_error);
    }
  } else {
    out += "  no module or library loads were seen\n";
  }

  TraceSummary s = trace::summarize(log);
  auto count = [&](const std::map<Fit, size_t>& m, Fit o) {
    auto it = m.find(o);
    return it == m.end() ? size_t{0} : it->second;
  };
  out += fmt::format(
      "\nsummary: {} load(s): {} native, {} compatible SASS, {} JIT, {} failed, {} unknown; "
      "kernels: {} native, {} compatible SASS, {} JIT",
      s.loads, count(s.loads_by_outcome, Fit::kNative),
      count(s.loads_by_outcome, Fit::kCompatibleSass), count(s.loads_by_outcome, Fit::kPtxJit),
      count(s.loads_by_outcome, Fit::kFailed), count(s.loads_by_outcome, Fit::kUnknown),
      count(s.functions_by_outcome, Fit::kNative),
      count(s.functions_by_outcome, Fit::kCompatibleSass),
      count(s.functions_by_outcome, Fit::kPtxJit));
  out += fmt::format("\n         {} disagreement(s) between the driver and the prediction{}\n",
                     s.disagreements,
                     s.disagreements ? " (marked DISAGREES above; the prediction's ranking of "
                                       "several fitting images is unverified)"
                                     : "");
  out +=
      "  observed = what the driver reported (CU_FUNC_ATTRIBUTE_BINARY_VERSION/PTX_VERSION); "
      "predicted = smcompat's model from the images alone\n";
  for (const Error& w : log.warnings) out += "  warning: " + w.to_string() + "\n";
  return out;
}

json trace_to_json(const TraceLog& log, const TraceRenderOptions& options,
                   const std::vector<std::string>& argv) {
  json j = json_document(kTraceSchema, argv);
  if (!options.command.empty()) j["command"] = options.command;
  if (options.exit_status) j["exit_status"] = *options.exit_status;
  json procs = json::array();
  for (const TracedProcess& p : log.processes) {
    json pj = {{"pid", p.pid}, {"exe", p.exe}};
    if (!p.report_cc.empty()) {
      pj["report_cc"] = p.report_cc;
      pj["only_for"] = p.only_for;
      pj["nvml_overridden"] = false;
    }
    procs.push_back(std::move(pj));
  }
  j["processes"] = std::move(procs);
  if (!options.override_implications.empty()) {
    json oj = {{"predicted", true},
               {"implications", options.override_implications},
               {"files", options.override_file_predictions}};
    if (options.real_cc) oj["real_cc"] = options.real_cc->to_string();
    j["override"] = std::move(oj);
  }
  json loads = json::array();
  for (const TracedLoad& l : log.loads) {
    json lj = {{"id", l.id},         {"pid", l.pid},         {"record_line", l.line},
               {"api", l.api},       {"kind", l.kind},       {"source", l.source},
               {"result", l.result}, {"load_ms", l.load_ms}, {"outcome", to_string(l.outcome)},
               {"how", l.how},       {"observed", true},     {"unloaded", l.unloaded}};
    if (!l.path.empty()) lj["path"] = l.path;
    if (!l.format.empty()) lj["format"] = l.format;
    if (!l.error.empty()) lj["error"] = l.error;
    if (l.device) lj["device"] = *l.device;
    if (l.device_cc) lj["device_cc"] = l.device_cc->to_string();
    if (!l.devices_cc.empty()) {
      lj["devices_cc"] = json::array();
      for (const ComputeCapability& cc : l.devices_cc) lj["devices_cc"].push_back(cc.to_string());
    }
    if (l.first_use_error) {
      lj["first_use_error"] = {{"api", l.first_use_api},
                               {"result", *l.first_use_error},
                               {"error", l.first_use_error_name}};
    }
    if (l.from_outside) lj["from_outside"] = true;
    if (l.driver_cuda) lj["driver_cuda"] = *l.driver_cuda;
    if (l.jit_wall_ms) lj["jit_wall_ms"] = *l.jit_wall_ms;
    if (!l.jit_error_log.empty()) lj["jit_error_log"] = l.jit_error_log;
    if (l.first_use_ms) lj["first_use_ms"] = *l.first_use_ms;
    if (l.chosen) lj["chosen"] = l.chosen->to_string();
    json imgs = json::array();
    for (const OfferedImage& img : l.images) {
      json ij = {{"target", img.target.to_string()}};
      if (img.ptx_isa) ij["ptx_isa"] = img.ptx_isa->to_string();
      imgs.push_back(std::move(ij));
    }
    lj["images"] = std::move(imgs);
    if (!l.inventory_error.empty()) lj["inventory_error"] = l.inventory_error;
    json fns = json::array();
    for (const TracedFunction& f : l.functions) {
      json fj = {{"name", f.name}};
      if (f.binary_version) fj["binary_version"] = *f.binary_version;
      if (f.ptx_version) fj["ptx_version"] = *f.ptx_version;
      if (f.num_regs) fj["num_regs"] = *f.num_regs;
      fns.push_back(std::move(fj));
    }
    lj["functions"] = std::move(fns);
    if (l.predicted) {
      json pj = {{"outcome", to_string(l.predicted->outcome)}, {"reason", l.predicted->reason}};
      if (l.predicted->image) pj["image"] = l.predicted->image->to_string();
      if (l.predicted->error) pj["error"] = l.predicted->error;
      lj["predicted"] = std::move(pj);
    }
    lj["disagrees"] = l.disagrees;
    loads.push_back(std::move(lj));
  }
  j["loads"] = std::move(loads);
  json queries = json::array();
  for (const CcQuery& q : log.cc_queries)
    queries.push_back({{"api", q.api},
                       {"caller", q.caller},
                       {"real_cc", q.real_cc},
                       {"reported_cc", q.reported_cc},
                       {"overridden", q.overridden},
                       {"pid", q.pid}});
  j["cc_queries"] = std::move(queries);
  json lookups = json::array();
  for (const TracedLookup& k : log.lookups) {
    json kj = {{"via", k.via},
               {"name", k.name},
               {"wrapped", k.wrapped},
               {"found", k.found},
               {"pid", k.pid}};
    if (k.version) {
      kj["version"] = *k.version;
      kj["flags"] = k.flags;
    }
    lookups.push_back(std::move(kj));
  }
  j["lookups"] = std::move(lookups);
  TraceSummary s = trace::summarize(log);
  json sj = {{"loads", s.loads},
             {"disagreements", s.disagreements},
             {"overridden_queries", s.overridden_queries}};
  json by = json::object(), fby = json::object();
  for (Fit o : trace::kObservedFits) {
    by[to_string(o)] = s.loads_by_outcome.count(o) ? s.loads_by_outcome.at(o) : 0;
    fby[to_string(o)] = s.functions_by_outcome.count(o) ? s.functions_by_outcome.at(o) : 0;
  }
  sj["loads_by_outcome"] = std::move(by);
  sj["functions_by_outcome"] = std::move(fby);
  j["summary"] = std::move(sj);
  json warnings = json::array();
  for (const Error& w : log.warnings) warnings.push_back(w.to_string());
  j["warnings"] = std::move(warnings);
  return j;
}

std::string render_trace_json(const TraceLog& log, const TraceRenderOptions& options,
                              const std::vector<std::string>& argv) {
  return json_text(trace_to_json(log, options, argv)) + "\n";
}

}  // namespace smcompat
