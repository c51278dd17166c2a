// Rendering of build settings (doctor/build_env.hpp): the `export` block with reasons, the text
// of `smcompat build-env`, and JSON (schema "smcompat.build-env/1", documented in docs/doctor.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "smcompat/doctor/build_env.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

inline constexpr const char* kBuildEnvSchema = "smcompat.build-env/1";

/// `export NAME="value"  # reason` lines (the reasons left out for eval).
std::string build_env_shell(const doctor::BuildEnv& env, bool with_reasons = true);

/// What `smcompat build-env` prints: a heading naming the GPUs as typed, the export block, the
/// host compiler, the problems, and the next step.
std::string render_build_env_text(const doctor::BuildEnv& env,
                                  const doctor::BuildEnvRequest& request,
                                  const std::vector<std::string>& gpu_names, const Style& style);

nlohmann::json build_env_to_json(const doctor::BuildEnv& env,
                                 const doctor::BuildEnvRequest& request,
                                 const std::vector<std::string>& argv);

}  // namespace smcompat
