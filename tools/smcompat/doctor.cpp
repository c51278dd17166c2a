// `smcompat doctor`: placeholder registered while the module is being built; replaced by its
// real implementation (see issues). Prints a clear message and exits 2.
#include <fmt/format.h>

#include "commands.hpp"

namespace smcompat::cli {

void register_doctor(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("doctor", "(not available yet)");
  cmd->allow_extras();
  cmd->callback([&ctx] {
    fmt::print(stderr, "smcompat doctor: not available in this build yet\n");
    ctx.exit_code = kExitError;
  });
}

}  // namespace smcompat::cli
