// Rendering of explanations (explain/explain.hpp): text for people, JSON for programs (schema
// "smcompat.explain/1", documented in docs/explain.md), and the redacted Markdown context bundle
// for AI assistants (`smcompat explain --prompt`).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/explain/explain.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

inline constexpr const char* kExplainSchema = "smcompat.explain/1";

std::string render_explain_text(const explain::Explanation& e, const Style& style);
nlohmann::json explain_to_json(const explain::Explanation& e, const std::vector<std::string>& argv);

/// A self-contained Markdown context bundle for an AI assistant: the error (excerpt), the
/// matched failure modes, the machine's facts and verdicts, allow-listed environment variables
/// (explain::env_var_allowed). Everything passes through explain::redact().
std::string prompt_bundle(const explain::Explanation& e, const doctor::DoctorReport* doctor,
                          const doctor::Environment& env);

}  // namespace smcompat
