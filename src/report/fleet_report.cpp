// Fleet renderers (include/smcompat/report/fleet_report.hpp).
#include "smcompat/report/fleet_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "markdown_text.hpp"
#include "smcompat/report/doctor_report.hpp"
#include "smcompat/report/json_document.hpp"

namespace smcompat {
namespace {

using fleet::FleetReport;
using fleet::Image;
using nlohmann::json;

std::string cuda_text(const std::optional<Version>& v) { return v ? v->to_string() : "?"; }

// "570.124.06 (30), 580.95.05 (150)": a model's drivers with their node counts.
std::string drivers_text(const fleet::ModelSummary& m) {
  std::string out;
  for (const auto& [v, n] : m.drivers)
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", v.empty() ? "?" : v, n);
  return out;
}

std::vector<doctor::Finding> plain_findings(const FleetReport& r) {
  std::vector<doctor::Finding> out;
  for (const auto& f : r.findings) out.push_back(f.finding);
  return out;
}

size_t nodes_with_gpus(const FleetReport& r) {
  return static_cast<size_t>(
      std::count_if(r.nodes.begin(), r.nodes.end(), [](auto& n) { return !n.gpus.empty(); }));
}

size_t total_gpus(const FleetReport& r) {
  size_t n = 0;
  for (const auto& m : r.models) n += m.gpus;
  return n;
}

std::string verdict_line(const Image& im) {
  return fmt::format("runs from SASS on {}, JIT on {}, fails on {}", im.hosts_native.size(),
                     im.hosts_jit.size(), im.hosts_failing.size());
}

std::string class_verdict(const fleet::ImageOnClass& c) {
  if (c.runtime_too_new) return fmt::format("driver too old (CUDA {} runtime)", *c.runtime_too_new);
  return to_string(c.verdict);
}

}  // namespace

std::string render_fleet_text(const FleetReport& r, const Style& st) {
  std::string out = st.bold("smcompat fleet") +
                    st.dim(" (merged from node reports; image verdicts are predicted from files)") +
                    "\n\n";
  out += fmt::format("{} reports read ({} unreadable), {} nodes, {} with GPUs, {} GPUs\n\n",
                     r.reports_read, r.reports_failed, r.nodes.size(), nodes_with_gpus(r),
                     total_gpus(r));
  if (!r.models.empty()) {
    out += st.bold("GPUs by model") + "\n";
    Table t({"model", "CC", "GPUs", "nodes", "drivers"},
            {Table::Align::kLeft, Table::Align::kLeft, Table::Align::kRight, Table::Align::kRight,
             Table::Align::kLeft});
    for (const auto& m : r.models) {
      std::string drivers = drivers_text(m);
      t.add_row({m.model, m.cc, std::to_string(m.gpus), std::to_string(m.nodes), drivers});
    }
    out += t.render(st, "  ") + "\n";
  }
  if (!r.drivers.empty()) {
    out += st.bold("Drivers") + "\n";
    Table t({"driver", "CUDA", "nodes", "models"},
            {Table::Align::kLeft, Table::Align::kLeft, Table::Align::kRight, Table::Align::kLeft});
    for (const auto& d : r.drivers) {
      std::string models;
      for (const auto& m : d.models) models += (models.empty() ? "" : ", ") + m;
      t.add_row({d.driver_version.empty() ? "?" : d.driver_version, cuda_text(d.driver_cuda),
                 std::to_string(d.nodes), models});
    }
    out += t.render(st, "  ") + "\n";
  }
  for (const auto& im : r.images) {
    out += st.bold("Image ") + im.name +
           st.dim(fmt::format(
               " ({} files with device code{}; {})", im.files_with_code,
               im.cuda_runtimes.empty()
                   ? ""
                   : ", CUDA runtime " + fmt::format("{}", fmt::join(im.cuda_runtimes, ", ")),
               verdict_line(im))) +
           "\n";
    Table t({"GPU", "CC", "driver CUDA", "nodes", "verdict", "files native/compat/jit/fail"},
            {Table::Align::kLeft, Table::Align::kLeft, Table::Align::kLeft, Table::Align::kRight,
             Table::Align::kLeft, Table::Align::kLeft});
    for (const auto& c : im.classes) {
      std::string v = class_verdict(c);
      bool bad =
          c.runtime_too_new || c.verdict == Fit::kNoImage || c.verdict == Fit::kUnsupportedPtx;
      v = bad ? st.red(v) : c.verdict == Fit::kPtxJit ? st.yellow(v) : st.green(v);
      t.add_row({c.model, c.cc, cuda_text(c.driver_cuda), std::to_string(c.hosts.size()), v,
                 fmt::format("{}/{}/{}/{}", c.files[0], c.files[1], c.files[2],
                             c.files[3] + c.files[4])});
    }
    out += t.render(st, "  ") + "\n";
  }
  out += render_findings_text(plain_findings(r), st);
  return out;
}

namespace {

json node_json(const fleet::Node& n) {
  // Identical GPUs side by side are one entry with a count (a node is usually 8 of one model).
  json gpus = json::array();
  for (size_t i = 0; i < n.gpus.size();) {
    const auto& g = n.gpus[i];
    size_t same = 1;
    while (i + same < n.gpus.size() && n.gpus[i + same].model == g.model &&
           n.gpus[i + same].cc == g.cc && n.gpus[i + same].memory_bytes == g.memory_bytes)
      ++same;
    gpus.push_back(
        {{"model", g.model}, {"cc", g.cc}, {"memory_bytes", g.memory_bytes}, {"count", same}});
    i += same;
  }
  json errors = json::array();
  for (const auto& e : n.errors)
    errors.push_back({{"what", e.what},
                      {"file", e.file},
                      {"offset", e.offset ? json(*e.offset) : json(nullptr)}});
  json findings = json::array();
  for (const auto& f : n.doctor_findings)
    findings.push_back({{"id", f.id}, {"severity", to_string(f.severity)}, {"title", f.title}});
  return {{"host", n.host},
          {"host_from_file_name", n.host_from_file_name},
          {"reports", n.reports},
          {"driver_state", n.driver_state.empty() ? json(nullptr) : json(n.driver_state)},
          {"driver_version", n.driver_version.empty() ? json(nullptr) : json(n.driver_version)},
          {"driver_cuda", n.driver_cuda ? json(n.driver_cuda->to_string()) : json(nullptr)},
          {"gpus", gpus},
          {"topology", n.topology_known ? json{{"gpu_pairs", n.gpu_pairs},
                                               {"p2p_pairs", n.p2p_pairs},
                                               {"nvlink_pairs", n.nvlink_pairs}}
                                        : json(nullptr)},
          {"doctor_findings", n.doctor_known ? findings : json(nullptr)},
          {"errors", errors}};
}

json image_json(const fleet::Image& im) {
  json classes = json::array();
  for (const auto& c : im.classes) {
    json files = json::object();
    for (size_t i = 0; i < kVerdictFitCount; ++i)
      files[to_string(static_cast<Fit>(i))] = c.files[i];
    classes.push_back(
        {{"model", c.model},
         {"cc", c.cc},
         {"driver_cuda", c.driver_cuda ? json(c.driver_cuda->to_string()) : json(nullptr)},
         {"hosts", c.hosts},
         {"verdict", to_string(c.verdict)},
         {"runtime_too_new", c.runtime_too_new ? json(*c.runtime_too_new) : json(nullptr)},
         {"files", files},
         {"failing_files", c.failing_files},
         {"jit_files", c.jit_files}});
  }
  return {{"name", im.name},
          {"report", im.report},
          {"scanned_on", im.scanned_on.empty() ? json(nullptr) : json(im.scanned_on)},
          {"files_with_code", im.files_with_code},
          {"cuda_runtimes", im.cuda_runtimes},
          {"hosts_native", im.hosts_native},
          {"hosts_jit", im.hosts_jit},
          {"hosts_failing", im.hosts_failing},
          {"classes", classes}};
}

json fleet_finding_json(const fleet::FleetFinding& f) {
  json j = finding_to_json(f.finding);
  j["hosts"] = f.hosts;
  j["image"] = f.image.empty() ? json(nullptr) : json(f.image);
  return j;
}

}  // namespace

void write_fleet_json(JsonWriter& out, const FleetReport& r, const std::vector<std::string>& argv) {
  json models = json::array();
  for (const auto& m : r.models) {
    json drivers = json::array();
    for (const auto& [v, count] : m.drivers)
      drivers.push_back(
          {{"driver_version", v.empty() ? json(nullptr) : json(v)}, {"nodes", count}});
    models.push_back({{"model", m.model},
                      {"cc", m.cc},
                      {"gpus", m.gpus},
                      {"nodes", m.nodes},
                      {"drivers", drivers}});
  }
  json drivers = json::array();
  for (const auto& d : r.drivers)
    drivers.push_back(
        {{"driver_version", d.driver_version.empty() ? json(nullptr) : json(d.driver_version)},
         {"driver_cuda", d.driver_cuda ? json(d.driver_cuda->to_string()) : json(nullptr)},
         {"nodes", d.nodes},
         {"models", d.models}});
  // The nodes (10,000 in a big cluster), the images and the findings are written one by one.
  out.object(
      json_document(kFleetSchema, argv,
                    {{"prediction", true},
                     {"stats",
                      {{"reports", r.reports_read},
                       {"reports_unreadable", r.reports_failed},
                       {"nodes", r.nodes.size()},
                       {"nodes_with_gpus", nodes_with_gpus(r)},
                       {"gpus", total_gpus(r)}}},
                     {"models", models},
                     {"drivers", drivers},
                     {"summary",
                      {{"errors", r.count(doctor::Severity::kError)},
                       {"warnings", r.count(doctor::Severity::kWarning)},
                       {"info", r.count(doctor::Severity::kInfo)}}}}),
      {{"nodes",
        [&r](JsonWriter& w) {
          w.array(r.nodes, [](JsonWriter& w, const fleet::Node& n) { w.value(node_json(n)); });
        }},
       {"images",
        [&r](JsonWriter& w) {
          w.array(r.images, [](JsonWriter& w, const fleet::Image& im) { w.value(image_json(im)); });
        }},
       {"findings", [&r](JsonWriter& w) {
          w.array(r.findings, [](JsonWriter& w, const fleet::FleetFinding& f) {
            w.value(fleet_finding_json(f));
          });
        }}});
}

json fleet_to_json(const FleetReport& r, const std::vector<std::string>& argv) {
  return json_tree([&](JsonWriter& w) { write_fleet_json(w, r, argv); });
}

std::string render_fleet_markdown(const FleetReport& r) {
  std::string md = "# smcompat fleet\n\n";
  md += fmt::format(
      "{} reports read ({} unreadable), {} nodes, {} with GPUs, {} GPUs. Image verdicts are "
      "predicted from files.\n\n",
      r.reports_read, r.reports_failed, r.nodes.size(), nodes_with_gpus(r), total_gpus(r));
  if (!r.models.empty()) {
    md +=
        "## GPUs by model\n\n| model | CC | GPUs | nodes | drivers (nodes) "
        "|\n|---|---|--:|--:|---|\n";
    for (const auto& m : r.models) {
      std::string drivers = drivers_text(m);
      md += fmt::format("| {} | {} | {} | {} | {} |\n", markdown_text(m.model), markdown_text(m.cc),
                        m.gpus, m.nodes, markdown_text(drivers));
    }
    md += "\n";
  }
  if (!r.drivers.empty()) {
    md += "## Drivers\n\n| driver | CUDA | nodes | models |\n|---|---|--:|---|\n";
    for (const auto& d : r.drivers) {
      std::string models;
      for (const auto& m : d.models) models += (models.empty() ? "" : ", ") + m;
      md += fmt::format("| {} | {} | {} | {} |\n",
                        markdown_text(d.driver_version.empty() ? "?" : d.driver_version),
                        cuda_text(d.driver_cuda), d.nodes, markdown_text(models));
    }
    md += "\n";
  }
  for (const auto& im : r.images) {
    md += fmt::format("## Image {}\n\n{} files with device code; {}.\n\n", markdown_text(im.name),
                      im.files_with_code, verdict_line(im));
    md += "| GPU | CC | driver CUDA | nodes | verdict |\n|---|---|---|--:|---|\n";
    for (const auto& c : im.classes)
      md += fmt::format("| {} | {} | {} | {} | {} |\n", markdown_text(c.model), markdown_text(c.cc),
                        cuda_text(c.driver_cuda), c.hosts.size(), markdown_text(class_verdict(c)));
    md += "\n";
  }
  md += render_findings_markdown(plain_findings(r));
  return md;
}

}  // namespace smcompat
