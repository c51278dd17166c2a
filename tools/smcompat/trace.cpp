// `smcompat trace [options] -- COMMAND ARGS`: runs COMMAND with libsmcompat_trace.so preloaded and
// reports every GPU module it loaded, what the driver chose, JIT time and failures, next to the
// prediction from the images (trace/ module; docs/trace.md). `--from FILE` reports on records
// written earlier; `--env` prints the variables to use the shim without this command.
#include "smcompat/trace/trace.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "commands.hpp"
#include "smcompat/report/trace_report.hpp"
#include "smcompat/util/files.hpp"

namespace smcompat::cli {

namespace {

struct TraceArgs {
  bool json = false;
  bool env = false;
  std::string output;
  std::string records;
  std::string from;
  std::string report_cc;
  std::vector<std::string> only_for;
  std::vector<std::string> images;
  std::vector<std::string> command;
};

int write_report(Context& ctx, const std::string& text, const std::string& output, FILE* fallback) {
  if (output.empty()) {
    std::fputs(text.c_str(), fallback);
    return kExitOk;
  }
  if (auto e = write_file_atomically(output, text)) return ctx.fail("trace", e->to_string());
  return kExitOk;
}

int run(const TraceArgs& a, Context& ctx) {
  std::optional<ComputeCapability> report_cc;
  if (!a.report_cc.empty()) {
    report_cc = ComputeCapability::parse(a.report_cc);
    if (!report_cc || report_cc->major <= 0)
      return ctx.fail(
          "trace",
          fmt::format("--report-cc: '{}' is not a compute capability (e.g. 9.0)", a.report_cc));
  }
  if (!a.only_for.empty() && !report_cc) return ctx.fail("trace", "--only-for needs --report-cc");

  trace::RunOptions ro;
  ro.report_cc = report_cc;
  ro.only_for = a.only_for;

  if (a.env) {
    auto shim = trace::find_shim("");  // beside this binary, or $SMCOMPAT_TRACE_LIB
    if (!shim) return ctx.fail("trace", "libsmcompat_trace.so not found (set SMCOMPAT_TRACE_LIB)");
    ro.shim_path = *shim;
    ro.trace_file = a.records.empty() ? std::filesystem::absolute("smcompat-trace.jsonl").string()
                                      : std::filesystem::absolute(a.records).string();
    fmt::print("{}", render_shim_environment(trace::shim_environment(ro), ro.trace_file));
    return kExitOk;
  }

  TraceRenderOptions po;
  std::optional<int> exit_status;
  std::string command_text;
  std::optional<trace::RecordsFile> records;
  if (!a.from.empty() && !a.command.empty())
    return ctx.fail("trace", "give either --from FILE or -- COMMAND, not both");
  if (a.from.empty()) {
    if (a.command.empty())
      return ctx.fail("trace", "no command (usage: smcompat trace [options] -- COMMAND ARGS)");
    auto shim = trace::find_shim("");  // beside this binary, or $SMCOMPAT_TRACE_LIB
    if (!shim) return ctx.fail("trace", "libsmcompat_trace.so not found (set SMCOMPAT_TRACE_LIB)");
    ro.shim_path = *shim;
    auto created = trace::RecordsFile::create(a.records);
    if (!created) return ctx.fail("trace", created.error().to_string());
    records.emplace(std::move(*created));
    ro.trace_file = records->path();
    for (const std::string& s : a.command) command_text += (command_text.empty() ? "" : " ") + s;
    if (report_cc) {  // predicted, from the program's file and --images
      auto preview = trace::preview_override(*report_cc, a.command.front(), a.images);
      po.real_cc = preview.real_cc;
      po.override_implications = std::move(preview.implications);
      po.override_file_predictions = std::move(preview.file_predictions);
      fmt::print(stderr, "{}", render_override_preview(*report_cc, po, !a.only_for.empty()));
    }
    std::fflush(stdout);
    std::fflush(stderr);
    auto status = trace::run_traced(a.command, ro);
    if (!status) return ctx.fail("trace", status.error().to_string());
    exit_status = *status;
  }
  auto log = trace::read_trace(records ? records->path() : a.from);
  if (records)
    if (auto e = records->finish()) return ctx.fail("trace", e->to_string());
  if (!log) return ctx.fail("trace", log.error().to_string());
  trace::analyze(*log);
  po.exit_status = exit_status;
  po.command = command_text;
  // The traced program owns stdout; the report goes to stderr (like time(1)) unless -o is given.
  // With --from there is no program, so the report goes to stdout.
  FILE* dest = a.from.empty() ? stderr : stdout;
  po.color = a.output.empty() && ctx.out_style().enabled() && isatty(fileno(dest));
  std::string text = a.json ? render_trace_json(*log, po, ctx.argv) : render_trace_text(*log, po);
  if (int rc = write_report(ctx, text, a.output, dest); rc != kExitOk) return rc;
  trace::TraceSummary s = trace::summarize(*log);
  auto failed = s.loads_by_outcome.find(Fit::kFailed);
  bool findings = s.disagreements > 0 || (failed != s.loads_by_outcome.end() && failed->second > 0);
  return findings ? kExitFindings : kExitOk;
}

}  // namespace

void register_trace(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<TraceArgs>();
  auto* cmd = app.add_subcommand(
      "trace",
      "Run a program and report which GPU code the driver really loaded (LD_PRELOAD shim)");
  cmd->add_flag("--json", args->json, "JSON report (schema smcompat.trace/1)");
  cmd->add_option("-o,--output", args->output, "Write the report to FILE (default: stderr)");
  cmd->add_option("--records", args->records,
                  "Keep the shim's raw records (JSON lines) in FILE (default: a temporary file)");
  cmd->add_option("--from", args->from, "Report on records written earlier (no program is run)");
  cmd->add_option(
      "--report-cc", args->report_cc,
      "Report this compute capability (e.g. 9.0) to the program instead of the real one");
  cmd->add_option("--only-for", args->only_for,
                  "Apply --report-cc only to callers in these libraries (e.g. libtorch_cuda.so)");
  cmd->add_option("--images", args->images,
                  "With --report-cc: also predict for the device code in these files (libraries "
                  "the program will load)");
  cmd->add_flag("--env", args->env,
                "Print the environment variables that load the shim without this command");
  cmd->add_option("command", args->command, "The program and its arguments (after --)");
  cmd->callback([args, &ctx] { ctx.exit_code = run(*args, ctx); });
}

}  // namespace smcompat::cli
