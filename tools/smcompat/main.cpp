// smcompat: what GPU code does this machine carry, and will it run? Entry point; each subcommand
// lives in its own file (commands.hpp).
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "commands.hpp"

namespace smcompat::cli {

Style Context::out_style() const {
  auto mode = color == "always"  ? Style::Mode::kAlways
              : color == "never" ? Style::Mode::kNever
                                 : Style::Mode::kAuto;
  return Style::for_stream(stdout, mode);
}
Style Context::err_style() const {
  auto mode = color == "always"  ? Style::Mode::kAlways
              : color == "never" ? Style::Mode::kNever
                                 : Style::Mode::kAuto;
  return Style::for_stream(stderr, mode);
}
int Context::fail(std::string_view command, std::string_view what) {
  fmt::print(stderr, "smcompat {}: {}\n", command, what);
  return exit_code = kExitError;
}

}  // namespace smcompat::cli

int main(int argc, char** argv) {
  using namespace smcompat::cli;
  Context ctx;
  ctx.argv.assign(argv, argv + argc);
  CLI::App app{
      "smcompat: which GPU code your libraries carry, whether it runs on your GPU, and "
      "what to do about it"};
  app.set_version_flag("--version", std::string("smcompat ") + SMCOMPAT_VERSION);
  app.add_option("--color", ctx.color,
                 "Colour output: auto, always or never (NO_COLOR is honoured)")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.require_subcommand(0, 1);
  // Global options are taken after the subcommand too (`smcompat scan X --color never`):
  // subcommands created from here on pass options they do not know to the parent.
  app.fallthrough();
  register_scan(app, ctx);
  register_gpus(app, ctx);
  register_arch(app, ctx);
  register_probe(app, ctx);
  register_doctor(app, ctx);
  register_check(app, ctx);
  register_explain(app, ctx);
  register_build_env(app, ctx);
  register_ptx(app, ctx);
  register_trace(app, ctx);
  register_bench(app, ctx);
  register_index_build(app, ctx);
  register_advise(app, ctx);
  register_index_query(app, ctx);
  register_index_report(app, ctx);
  register_fleet(app, ctx);
  register_export(app, ctx);
  register_plan(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitError;
  } catch (const std::exception& e) {
    // A defect, not the user's input: every reader returns located errors. Say so and exit 2
    // rather than abort (nothing half-written: files are written atomically).
    std::fflush(stdout);
    fmt::print(stderr, "smcompat: internal error: {} (please report it with the command line)\n",
               e.what());
    return kExitError;
  }
  int rc = app.get_subcommands().empty() ? run_default(ctx) : ctx.exit_code;
  // Documents are streamed to stdout as they are produced: a write that failed (a full disk, a
  // closed descriptor) must not pass for a complete report.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    fmt::print(stderr, "smcompat: cannot write to standard output: {}\n", std::strerror(errno));
    return kExitError;
  }
  return rc;
}
