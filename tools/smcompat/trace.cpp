// `smcompat trace`: placeholder registered while the module is being built; replaced by its
// real implementation (see issues). Prints a clear message and exits 2.
#include <fmt/format.h>

#include "commands.hpp"

namespace smcompat::cli {

void register_trace(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("trace", "(not available yet)");
  cmd->allow_extras();
  cmd->callback([&ctx] {
    fmt::print(stderr, "smcompat trace: not available in this build yet\n");
    ctx.exit_code = kExitError;
  });
}

}  // namespace smcompat::cli
