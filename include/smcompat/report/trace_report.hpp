// Rendering of trace reports (trace/'s TraceLog after analyze()): aligned text for people and
// versioned JSON for programs. Observed facts and predictions are labelled apart. JSON schema
// "smcompat.trace/1": docs/trace.md.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/trace/trace.hpp"

namespace smcompat {

inline constexpr const char* kTraceSchema = "smcompat.trace/1";

struct TraceRenderOptions {
  bool color = false;
  std::optional<int> exit_status;  ///< of the traced command
  std::string command;
  /// Printed before the run for --report-cc (predicted): the JSON report carries them too.
  std::vector<std::string> override_implications;
  std::vector<std::string> override_file_predictions;
  std::optional<ComputeCapability> real_cc;  ///< the device's capability queried before the run
};

/// What `--report-cc` implies, printed before the run: the implications (options.real_cc and
/// options.override_implications) and the predictions for the program's files, or that no driver
/// answered. `scoped`: the override is limited to --only-for libraries.
std::string render_override_preview(ComputeCapability reported, const TraceRenderOptions& options,
                                    bool scoped);

/// `trace --env`: the shell lines that load the shim (export NAME=value) and the command that
/// reports on `records` afterwards.
std::string render_shim_environment(const std::vector<std::pair<std::string, std::string>>& env,
                                    const std::string& records);

/// Text report for people.
std::string render_trace_text(const trace::TraceLog& log, const TraceRenderOptions& options);
/// JSON report, schema kTraceSchema.
nlohmann::json trace_to_json(const trace::TraceLog& log, const TraceRenderOptions& options,
                             const std::vector<std::string>& argv);
/// trace_to_json, indented by 2, with a final newline.
std::string render_trace_json(const trace::TraceLog& log, const TraceRenderOptions& options,
                              const std::vector<std::string>& argv);

}  // namespace smcompat
