// Explain: an offline knowledge base of GPU failure modes (data/failure_modes.json, compiled in)
// matched against error text, made specific to this machine with the doctor's findings, and a
// redacted Markdown context bundle for AI assistants. Failure modes come from
// ../shared/reference/field-reports.md sections 1-2 and compatibility-rules.md section 7.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "smcompat/doctor/doctor.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::explain {

/// A fix that fits one tool (llama.cpp, TensorFlow, flash-attn, ...): it replaces the mode's
/// default fix when its `when` regex matches any line of the text.
struct ContextFix {
  std::string label;  ///< the tool it is for, e.g. "llama.cpp / ggml (CMake)"
  std::string when;   ///< ECMAScript regex, case-insensitive, tried on every line
  std::string fix;
  std::vector<std::string> refs;  ///< public issues where this fix was found
};

/// One failure mode of the knowledge base.
struct FailureMode {
  std::string id;
  std::string title;
  std::vector<std::string> patterns;  ///< ECMAScript regexes, case-insensitive
  std::string cause;
  std::vector<std::string> confirm;           ///< smcompat commands that confirm it
  std::string fix;                            ///< the default fix
  std::vector<ContextFix> fixes;              ///< tool-specific fixes, first matching one wins
  std::vector<std::string> related_findings;  ///< doctor finding ids
  std::vector<std::string> refs;              ///< public issue references
  std::string reference;                      ///< section of ../shared/reference
  std::vector<std::string> families;          ///< failure families (tests/explain/corpus tags)
};

class KnowledgeBase {
 public:
  /// The knowledge base compiled into the library.
  static const KnowledgeBase& builtin();
  /// Parses the JSON of data/failure_modes.json; errors name the mode and the bad pattern.
  static Result<KnowledgeBase> from_json(std::string_view text);

  /// A match of one mode in the text: which line (1-based), the matched text, and the fix that
  /// fits the text (a ContextFix when one's `when` matches a line, else the mode's default fix).
  struct Match {
    const FailureMode* mode = nullptr;
    size_t line = 0;
    std::string line_text;  ///< the whole line (trimmed, at most 300 characters)
    std::string matched;
    const ContextFix* context = nullptr;  ///< the tool-specific fix chosen, or null
    const std::string& fix() const { return context ? context->fix : mode->fix; }
  };
  /// Every mode that matches, each once (at its first matching line), in order of first line.
  std::vector<Match> match(std::string_view text) const;

  /// Every mode, in the order of data/failure_modes.json.
  const std::vector<FailureMode>& modes() const { return modes_; }
  /// The mode with this id, or nullptr.
  const FailureMode* find(std::string_view id) const;

 private:
  std::vector<FailureMode> modes_;
  std::vector<std::vector<std::regex>> regexes_;  // per mode, compiled once
  std::vector<std::vector<std::regex>> when_;     // per mode, one per ContextFix
};

/// An explanation: the matches plus what the doctor says about this machine for each.
struct Explanation {
  std::vector<KnowledgeBase::Match> matches;
  /// For each match (same index): doctor findings related to it.
  std::vector<std::vector<doctor::Finding>> on_this_machine;
  bool have_doctor = false;
};

Explanation explain_text(std::string_view text, const KnowledgeBase& kb,
                         const doctor::DoctorReport* doctor);

// Renderers (text, JSON schema smcompat.explain/1, the context bundle for assistants):
// report/explain_report.hpp.

// ---- redaction and the AI context bundle ----

/// Masks secrets in free text, each becoming "[REDACTED]": Authorization headers (the scheme
/// word stays), URL credentials, secret-named query parameters and random-looking URL path/query
/// parts (webhook tokens), values after key=/key: for secret-sounding keys, the value after
/// `-p`, `--password`, `--api-key`, `--token` and similar flags, prefixed tokens (AWS AKIA/ASIA,
/// hf_, GitHub, GitLab, Slack, sk-, AIza, nvapi-, pypi-, npm_, JWTs), runs of 32+ hex digits
/// (a digest-length run named by a preceding commit/sha/hash/git/revision word stays), and
/// high-entropy strings. Linear time; a mask never crosses a line break. Rules: docs/explain.md.
std::string redact(std::string_view text);

/// Whether an environment variable may appear (with its value redacted) in a context bundle:
/// an allow-list of CUDA/PyTorch/toolchain variables; never names that sound secret.
bool env_var_allowed(std::string_view name);

}  // namespace smcompat::explain
