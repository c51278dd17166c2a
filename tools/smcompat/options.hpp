// Options that several subcommands take, registered in one place so that their spelling, help and
// checks agree from one subcommand to the next.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace smcompat::cli {

/// An option given once per value (`--gpu A --gpu B`): a value never takes the next word along.
inline CLI::Option* add_repeatable(CLI::App* cmd, const std::string& name,
                                   std::vector<std::string>& values, const std::string& help) {
  return cmd->add_option(name, values, help)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
}

/// --json naming its schema (e.g. "smcompat.advise/1"), and --markdown, which excludes it, where
/// `markdown` is given. Returns --json.
inline CLI::Option* add_format_flags(CLI::App* cmd, bool& json, bool* markdown,
                                     std::string_view schema) {
  auto* json_flag =
      cmd->add_flag("--json", json, "JSON output (schema " + std::string(schema) + ")");
  if (markdown) cmd->add_flag("--markdown", *markdown, "Markdown output")->excludes(json_flag);
  return json_flag;
}

/// --driver for a named target; `checks` ends the help: what the driver is used to check.
inline CLI::Option* add_driver_option(CLI::App* cmd, std::string& driver, std::string_view checks) {
  return cmd->add_option(
      "--driver", driver,
      "The driver: a CUDA version (12.8) or a driver build (570.124.06); " + std::string(checks));
}

/// --gpu (required) and --driver: the one GPU an answer from the wheel index is for.
inline void add_target_options(CLI::App* cmd, std::string& gpu, std::string& driver,
                               std::string_view driver_checks) {
  cmd->add_option("--gpu", gpu, "The GPU, e.g. \"RTX 5090\", H100, B200, GB10, 12.0, sm_120")
      ->required();
  add_driver_option(cmd, driver, driver_checks);
}

/// --platform: the machine whose wheels count (the index's machine names).
inline CLI::Option* add_platform_option(CLI::App* cmd, std::string& platform,
                                        const std::string& help) {
  return cmd->add_option("--platform", platform, help)->check(CLI::IsMember({"x86_64", "aarch64"}));
}

/// --index: the wheel index to answer from ("" keeps the one built in).
inline CLI::Option* add_index_option(CLI::App* cmd, std::string& index) {
  return cmd->add_option("--index", index,
                         "A wheel index file (smcompat index build); default: the index built in");
}

/// --fail-on for doctor-style findings (error, warning, info; with `never`, also an opt-out).
inline CLI::Option* add_severity_fail_on(CLI::App* cmd, std::string& fail_on, bool never = false) {
  std::vector<std::string> levels{"error", "warning", "info"};
  if (never) levels.push_back("never");
  return cmd
      ->add_option("--fail-on", fail_on,
                   std::string("Exit 1 if a finding is at least this severe") +
                       (never ? " (never: always exit 0)" : ""))
      ->check(CLI::IsMember(std::move(levels)))
      ->capture_default_str();
}

}  // namespace smcompat::cli
