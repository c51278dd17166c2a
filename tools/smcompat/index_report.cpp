// `smcompat index report --html OUT [--gpu NAME]... [--driver VER] [--index FILE]`: the wheel
// index as one self-contained HTML page, packages x GPUs (docs/index.md). Library:
// index_overview() (index/overview.hpp); printer: render_index_html() (report/index_report.hpp).
// Writes only the file it names (atomically). Exit codes: 0 written, 2 usage or I/O error.
#include "smcompat/report/index_report.hpp"

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "smcompat/index/overview.hpp"
#include "smcompat/util/files.hpp"

namespace smcompat::cli {

namespace {

struct IndexReportArgs {
  std::vector<std::string> gpus;
  std::string driver, index, html;
};

int run_index_report(Context& ctx, const IndexReportArgs& a) {
  TargetQuery query;
  query.names = a.gpus.empty() ? default_overview_gpus() : a.gpus;
  query.driver = a.driver;
  ResolvedTargets resolved = resolve_targets(query);
  if (!resolved.errors.empty()) return ctx.fail("index report", resolved.errors.front().what);
  auto loaded = load_wheel_index(a.index);
  if (!loaded) return ctx.fail("index report", loaded.error().to_string());
  const WheelIndex& index = **loaded;
  IndexAnswerContext context = index_answer_context(index, a.index.empty() ? "built-in" : a.index);
  context.argv = ctx.argv;
  const IndexOverview overview = index_overview(index, resolved.targets);
  if (auto err = write_file_atomically(a.html, render_index_html(overview, context)))
    return ctx.fail("index report", err->to_string());
  fmt::print(stderr, "smcompat index report: wrote {} ({} packages, {} GPUs)\n", a.html,
             overview.packages.size(), overview.targets.size());
  return kExitOk;
}

}  // namespace

void register_index_report(CLI::App& app, Context& ctx) {
  CLI::App& index = index_command(app);
  auto a = std::make_shared<IndexReportArgs>();
  auto* report = index.add_subcommand(
      "report", "The whole index as one self-contained HTML page: packages x GPUs");
  report->add_option("-o,--html", a->html, "The HTML file to write")->required();
  add_repeatable(report, "--gpu", a->gpus,
                 "A GPU column, e.g. \"RTX 5090\", GB10, 12.0 (repeat; default: RTX 5090, RTX PRO "
                 "6000, B200, GB10, H100, A100, L4, T4)");
  add_driver_option(report, a->driver, "checks PTX");
  add_index_option(report, a->index);
  report->callback([a, &ctx] { ctx.exit_code = run_index_report(ctx, *a); });
}

}  // namespace smcompat::cli
