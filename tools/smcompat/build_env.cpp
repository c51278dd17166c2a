// `smcompat build-env`: placeholder registered while the module is being built; replaced by its
// real implementation (see issues). Prints a clear message and exits 2.
#include <fmt/format.h>

#include "commands.hpp"

namespace smcompat::cli {

void register_build_env(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("build-env", "(not available yet)");
  cmd->allow_extras();
  cmd->callback([&ctx] {
    fmt::print(stderr, "smcompat build-env: not available in this build yet\n");
    ctx.exit_code = kExitError;
  });
}

}  // namespace smcompat::cli
