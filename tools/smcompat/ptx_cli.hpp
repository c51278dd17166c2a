// The `smcompat ptx` command that `check`, `retarget` and `budget` hang under, and the target
// parsing they share (tools/smcompat/ptx*.cpp).
#pragma once

#include <fmt/format.h>

#include <optional>
#include <string>

#include "commands.hpp"
#include "smcompat/catalog/sm_target.hpp"

namespace smcompat::cli {

/// `smcompat ptx` (created once).
inline CLI::App& ptx_command(CLI::App& app) {
  for (CLI::App* existing : app.get_subcommands({}))
    if (existing->get_name() == "ptx") return *existing;
  CLI::App* ptx = app.add_subcommand(
      "ptx", "Read PTX: features per kernel, retarget, lower wgmma, shared memory");
  ptx->require_subcommand(1);
  return *ptx;
}

/// A SASS target from --target/--to, or nullopt after saying why on stderr.
inline std::optional<SmTarget> parse_ptx_target(const std::string& s, const char* what) {
  auto t = SmTarget::parse(s);
  if (!t || t->kind == ImageKind::kLto) {
    fmt::print(stderr, "smcompat ptx: {} '{}' is not a target such as sm_120, sm_120a, sm_90\n",
               what, s);
    return std::nullopt;
  }
  t->kind = ImageKind::kSass;
  return t;
}

void register_ptx_retarget(CLI::App& ptx, Context& ctx);
void register_ptx_budget(CLI::App& ptx, Context& ctx);
void register_ptx_lower(CLI::App& ptx, Context& ctx);

}  // namespace smcompat::cli
