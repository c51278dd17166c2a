// `smcompat trace [options] -- COMMAND ARGS`: runs COMMAND with libsmcompat_trace.so preloaded and
// reports every GPU module it loaded, what the driver chose, JIT time and failures, next to the
// prediction from the images (trace/ module; docs/trace.md). `--from FILE` reports on records
// written earlier; `--env` prints the variables to use the shim without this command.
#include "smcompat/trace/trace.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "commands.hpp"
#include "smcompat/report/trace_report.hpp"
#include "smcompat/util/files.hpp"

namespace smcompat::cli {

namespace {

// The shim beside this binary (or SMCOMPAT_TRACE_LIB); says so on stderr when it is missing.
std::optional<std::string> locate_shim() {
  auto shim = trace::find_shim("");
  if (!shim)
    fmt::print(stderr, "smcompat trace: libsmcompat_trace.so not found (set SMCOMPAT_TRACE_LIB)\n");
  return shim;
}

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

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-./:=,+@%") == std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The file execvp would run for `name` (PATH search for names without a slash).
std::optional<std::string> find_program(const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (name.find('/') != std::string::npos)
    return fs::is_regular_file(name, ec) ? std::optional<std::string>(name) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
    if (fs::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
    start = end + 1;
  }
  return std::nullopt;
}

int write_report(const std::string& text, const std::string& output, FILE* fallback) {
  if (output.empty()) {
    std::fputs(text.c_str(), fallback);
    return kExitOk;
  }
  if (auto e = write_file_atomically(output, text)) {
    fmt::print(stderr, "smcompat trace: {}\n", e->to_string());
    return kExitError;
  }
  return kExitOk;
}

int run(const TraceArgs& a, Context& ctx) {
  std::optional<ComputeCapability> report_cc;
  if (!a.report_cc.empty()) {
    report_cc = ComputeCapability::parse(a.report_cc);
    if (!report_cc || report_cc->major <= 0) {
      fmt::print(stderr,
                 "smcompat trace: --report-cc: '{}' is not a compute capability (e.g. 9.0)\n",
                 a.report_cc);
      return kExitError;
    }
  }
  if (!a.only_for.empty() && !report_cc) {
    fmt::print(stderr, "smcompat trace: --only-for needs --report-cc\n");
    return kExitError;
  }

  trace::RunOptions ro;
  ro.report_cc = report_cc;
  ro.only_for = a.only_for;

  if (a.env) {
    auto shim = locate_shim();
    if (!shim) return kExitError;
    ro.shim_path = *shim;
    ro.trace_file = a.records.empty() ? std::filesystem::absolute("smcompat-trace.jsonl").string()
                                      : std::filesystem::absolute(a.records).string();
    for (const auto& [k, v] : trace::shim_environment(ro))
      fmt::print("export {}={}\n", k, shell_quote(v));
    fmt::print("# then run the program; afterwards: smcompat trace --from {}\n",
               shell_quote(ro.trace_file));
    return kExitOk;
  }

  TraceRenderOptions po;
  std::string records_path, keep_records;  // keep_records: --records, filled at the end
  bool remove_records = false;
  std::optional<int> exit_status;
  std::string command_text;
  if (!a.from.empty()) {
    if (!a.command.empty()) {
      fmt::print(stderr, "smcompat trace: give either --from FILE or -- COMMAND, not both\n");
      return kExitError;
    }
    records_path = a.from;
  } else {
    if (a.command.empty()) {
      fmt::print(stderr,
                 "smcompat trace: no command (usage: smcompat trace [options] -- COMMAND ARGS)\n");
      return kExitError;
    }
    auto shim = locate_shim();
    if (!shim) return kExitError;
    ro.shim_path = *shim;
    if (a.records.empty()) {
      std::string tmpl =
          (std::filesystem::temp_directory_path() / "smcompat-trace-XXXXXX").string();
      int fd = mkstemp(tmpl.data());
      if (fd < 0) {
        fmt::print(stderr, "smcompat trace: cannot create a temporary file\n");
        return kExitError;
      }
      close(fd);
      records_path = tmpl;
      remove_records = true;
    } else {
      // The shim writes beside the file and the run's records replace it at the end: an
      // earlier file is never left truncated by a failed run or a full disk.
      keep_records = std::filesystem::absolute(a.records).string();
      records_path = keep_records + ".tmp." + std::to_string(::getpid());
      std::ofstream fresh(records_path, std::ios::trunc);
      if (!fresh) {
        fmt::print(stderr, "smcompat trace: cannot write {}\n", records_path);
        return kExitError;
      }
      remove_records = true;
    }
    ro.trace_file = records_path;
    for (const std::string& s : a.command) command_text += (command_text.empty() ? "" : " ") + s;

    if (report_cc) {
      auto real = trace::query_device_cc(0);
      if (real) {
        fmt::print(stderr, "smcompat trace: reporting compute capability {} instead of {}{}:\n",
                   report_cc->to_string(), real->to_string(),
                   a.only_for.empty() ? "" : " (only to callers in the --only-for libraries)");
        po.real_cc = real;
        po.override_implications = trace::override_implications(*report_cc, *real);
        for (const std::string& line : po.override_implications)
          fmt::print(stderr, "  - {}\n", line);
        // The program's own file and the files named with --images (prediction, from the files).
        std::vector<std::string> files = a.images;
        if (auto exe = find_program(a.command.front())) files.insert(files.begin(), *exe);
        auto lines = trace::override_implications_for_files(files, *report_cc, *real, std::nullopt);
        if (!lines.empty()) fmt::print(stderr, "  predicted for the images in these files:\n");
        for (const std::string& line : lines) fmt::print(stderr, "    {}\n", line);
        po.override_file_predictions = lines;
      } else {
        fmt::print(stderr,
                   "smcompat trace: reporting compute capability {}; no driver answered here, so "
                   "what it implies cannot be predicted\n",
                   report_cc->to_string());
      }
    }
    std::fflush(stdout);
    std::fflush(stderr);
    auto status = trace::run_traced(a.command, ro);
    if (!status) {
      fmt::print(stderr, "smcompat trace: {}\n", status.error().to_string());
      if (remove_records) std::filesystem::remove(records_path);
      return kExitError;
    }
    exit_status = *status;
  }

  auto log = trace::read_trace(records_path);
  if (!keep_records.empty()) {
    std::error_code ec;
    std::filesystem::rename(records_path, keep_records, ec);
    if (ec) {
      fmt::print(stderr, "smcompat trace: cannot write {}: {}\n", keep_records, ec.message());
      std::filesystem::remove(records_path, ec);
      return kExitError;
    }
    remove_records = false;
  }
  if (remove_records) {
    std::error_code ec;
    std::filesystem::remove(records_path, ec);
  }
  if (!log) {
    fmt::print(stderr, "smcompat trace: {}\n", log.error().to_string());
    return kExitError;
  }
  trace::analyze(*log);
  po.exit_status = exit_status;
  po.command = command_text;
  // The traced program owns stdout; the report goes to stderr (like time(1)) unless -o is given.
  // With --from there is no program, so the report goes to stdout.
  FILE* dest = a.from.empty() ? stderr : stdout;
  po.color = a.output.empty() && ctx.out_style().enabled() && isatty(fileno(dest));
  std::string text = a.json ? render_trace_json(*log, po, ctx.argv) : render_trace_text(*log, po);
  if (int rc = write_report(text, a.output, dest); rc != kExitOk) return rc;
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
