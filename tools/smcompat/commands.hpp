// The CLI's subcommands: one file each, parsing options and wiring library calls to printers.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/util/table.hpp"

namespace smcompat::cli {

/// Exit codes (../shared/design/architecture.md): 0 fine, 1 findings at or above --fail-on,
/// 2 usage or I/O error.
enum ExitCode { kExitOk = 0, kExitFindings = 1, kExitError = 2 };

/// Shared state: the command line (for JSON output), the chosen exit code, colour mode.
struct Context {
  std::vector<std::string> argv;
  int exit_code = kExitOk;
  std::string color = "auto";  // auto|always|never

  Style out_style() const;
  Style err_style() const;

  /// Says `smcompat COMMAND: WHAT` on stderr and sets exit_code to kExitError, which it returns
  /// so that a run function can `return ctx.fail(...)`.
  int fail(std::string_view command, std::string_view what);
};

void register_gpus(CLI::App& app, Context& ctx);
void register_arch(CLI::App& app, Context& ctx);
void register_scan(CLI::App& app, Context& ctx);
void register_probe(CLI::App& app, Context& ctx);
void register_doctor(CLI::App& app, Context& ctx);
void register_check(CLI::App& app, Context& ctx);
void register_explain(CLI::App& app, Context& ctx);
void register_build_env(CLI::App& app, Context& ctx);
void register_ptx(CLI::App& app, Context& ctx);
void register_trace(CLI::App& app, Context& ctx);
void register_bench(CLI::App& app, Context& ctx);
void register_index_build(CLI::App& app, Context& ctx);
void register_advise(CLI::App& app, Context& ctx);
void register_index_query(CLI::App& app, Context& ctx);
void register_index_report(CLI::App& app, Context& ctx);
void register_fleet(CLI::App& app, Context& ctx);
void register_export(CLI::App& app, Context& ctx);
void register_plan(CLI::App& app, Context& ctx);

/// The `index` command that `index build`, `merge`, `query`, `diff` and `report` hang under
/// (created once).
inline CLI::App& index_command(CLI::App& app) {
  for (CLI::App* existing : app.get_subcommands({}))
    if (existing->get_name() == "index") return *existing;
  CLI::App* index = app.add_subcommand(
      "index", "The wheel index: which released wheels carry code for which GPU");
  index->require_subcommand(1);
  return *index;
}

/// What `smcompat` with no arguments runs (the doctor once it exists).
int run_default(Context& ctx);

}  // namespace smcompat::cli
