// `smcompat` with no arguments: the main job. Until the doctor exists, this is placeholder text.
#include <fmt/format.h>

#include "commands.hpp"

namespace smcompat::cli {

int run_default(Context& ctx) {
  fmt::print("smcompat: run `smcompat --help` for the commands\n");
  return kExitOk;
}

}  // namespace smcompat::cli
