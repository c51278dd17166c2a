// `smcompat fleet merge`: one view of a cluster from the probe/doctor/scan reports of its nodes.
#include "smcompat/fleet/fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "options.hpp"
#include "smcompat/report/fleet_report.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_stream.hpp"

namespace smcompat::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string output;
  bool json = false;
  bool markdown = false;
  std::string fail_on = "error";
  size_t hosts_named = 8;
};

// A directory stands for the *.json files directly inside it, in name order (a Slurm array or a
// DaemonSet collection writes one per node; 10,000 names would not fit a command line).
bool expand_inputs(Context& ctx, const std::vector<std::string>& inputs,
                   std::vector<std::string>& files) {
  namespace fs = std::filesystem;
  for (const auto& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (fs::directory_iterator it(in, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".json") found.push_back(it->path().string());
    if (ec) {
      ctx.fail("fleet merge", in + ": " + ec.message());
      return false;
    }
    std::sort(found.begin(), found.end(), fleet::HostOrder{});
    files.insert(files.end(), found.begin(), found.end());
  }
  return true;
}

int run_merge(Context& ctx, const MergeArgs& a) {
  auto fail_on = doctor::parse_severity(a.fail_on);
  std::vector<std::string> files;
  if (!expand_inputs(ctx, a.inputs, files)) return kExitError;
  if (files.empty())
    return ctx.fail("fleet merge", "no reports given (the directories hold no *.json)");
  fleet::MergeOptions opt;
  opt.hosts_named = a.hosts_named;
  auto report = fleet::merge_reports(files, opt);
  // The JSON document holds every node: written node by node, never built whole.
  auto describe = [&](JsonWriter& json) { write_fleet_json(json, report, ctx.argv); };
  if (!a.output.empty()) {
    AtomicFileWriter out(a.output);
    write_json_document(out, 1, describe);
    if (auto err = out.commit()) return ctx.fail("fleet merge", err->to_string());
  }
  if (a.json) {
    StdioSink out(stdout);
    write_json_document(out, 2, describe);
  } else if (a.markdown)
    fmt::print("{}", render_fleet_markdown(report));
  else
    fmt::print("{}", render_fleet_text(report, ctx.out_style()));
  if (fail_on)
    for (const auto& f : report.findings)
      if (static_cast<int>(f.finding.severity) >= static_cast<int>(*fail_on)) return kExitFindings;
  return kExitOk;
}

}  // namespace

void register_fleet(CLI::App& app, Context& ctx) {
  auto* fleet = app.add_subcommand("fleet", "A cluster's view: merge the reports of its nodes");
  fleet->require_subcommand(1);
  auto* cmd = fleet->add_subcommand(
      "merge",
      "Merge per-node probe/doctor/scan JSON reports: GPUs and drivers by node, images judged for "
      "every GPU of the fleet, fleet findings");
  auto a = std::make_shared<MergeArgs>();
  cmd->add_option("reports", a->inputs,
                  "Report files (smcompat probe/doctor/scan --json), or directories of *.json")
      ->required();
  cmd->add_option("-o,--output", a->output,
                  "Also write the fleet JSON (schema smcompat.fleet/1) to this file, atomically");
  add_format_flags(cmd, a->json, &a->markdown, "smcompat.fleet/1");
  add_severity_fail_on(cmd, a->fail_on, /*never=*/true);
  cmd->add_option("--hosts-named", a->hosts_named,
                  "Hosts named in a finding's evidence before \"and N more\"")
      ->capture_default_str();
  cmd->callback([&ctx, a] { ctx.exit_code = run_merge(ctx, *a); });
}

}  // namespace smcompat::cli
