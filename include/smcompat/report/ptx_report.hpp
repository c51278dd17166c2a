// Rendering of `smcompat ptx check|retarget|budget`: aligned text for people, versioned JSON for
// programs. The command reads PTX and runs the analysis; everything it prints comes from here.
// JSON schemas: docs/ptx.md ("smcompat.ptx-check/1", "smcompat.ptx-retarget/1",
// "smcompat.ptx-budget/1").
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/ptx/analysis.hpp"
#include "smcompat/ptx/lower.hpp"
#include "smcompat/ptx/ptxas.hpp"
#include "smcompat/ptx/retarget.hpp"
#include "smcompat/ptx/sources.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

inline constexpr const char* kPtxCheckSchema = "smcompat.ptx-check/1";
inline constexpr const char* kPtxRetargetSchema = "smcompat.ptx-retarget/1";
inline constexpr const char* kPtxLowerSchema = "smcompat.ptx-lower/1";
inline constexpr const char* kPtxBudgetSchema = "smcompat.ptx-budget/1";

/// Colour for a kernel check outcome: green runs, yellow needs a specific target, red otherwise.
std::string styled_check(ptx::KernelCheck check, const Style& style);

// ------------------------------------------------------------------------------- ptx check

/// Where a PTX text came from: {"file", "member", "image": {...} or null}.
nlohmann::json ptx_source_json(const ptx::PtxSource& source);
/// One kernel's features, shared memory and resources (ptx check and ptx budget).
nlohmann::json ptx_kernel_json(const ptx::KernelReport& kernel);
/// One input of `ptx check --json` whose PTX parsed: the source plus the module's analysis.
nlohmann::json ptx_module_json(const ptx::PtxSource& source, const ptx::ModuleReport& report);
/// One input whose PTX did not parse: the source plus the error, with line and column.
nlohmann::json ptx_parse_error_json(const ptx::PtxSource& source, const Error& error);
/// One input file that could not be read at all.
nlohmann::json ptx_file_error_json(const std::string& file, const Error& error);

/// The totals of one `ptx check` run over all its inputs.
struct PtxCheckTotals {
  SmTarget target;
  size_t ptx_texts = 0;
  size_t kernels = 0;
  size_t errors = 0;
  std::map<std::string, size_t> by_outcome;          ///< kernels per outcome name
  ptx::KernelCheck worst = ptx::KernelCheck::kRuns;  ///< over every kernel of every input

  /// Counts the kernels of one analysed module.
  void add(const ptx::ModuleReport& report);
};

/// The whole `ptx check --json` document around the per-input items.
nlohmann::json ptx_check_json(const PtxCheckTotals& totals, std::vector<nlohmann::json> inputs,
                              const std::vector<std::string>& argv);
/// One analysed PTX text: a header line, notes, and each kernel that does not run (every kernel
/// with `show_all`) with its features, shared memory, cluster, resources and strategies.
std::string render_ptx_module_text(const ptx::PtxSource& source, const ptx::ModuleReport& report,
                                   bool show_all, const Style& style);
/// One PTX text that did not parse.
std::string render_ptx_parse_error_text(const ptx::PtxSource& source, const Error& error,
                                        const Style& style);
/// The closing summary line and its explanation.
std::string render_ptx_check_summary_text(const PtxCheckTotals& totals, const Style& style);

// ---------------------------------------------------------------------------- ptx retarget

/// What `ptx retarget` did with one file.
struct PtxRetargetOutcome {
  std::string input;
  SmTarget to;
  const ptx::RetargetResult* result = nullptr;  ///< never null
  std::optional<std::string> written;           ///< the -o path, when the PTX was written there
  bool verify_requested = false;
  std::optional<ptx::PtxasOutcome> verified;  ///< ptxas's verdict on the result, when run
  std::string verify_note;                    ///< why it was not run (when requested)
};

nlohmann::json ptx_retarget_json(const PtxRetargetOutcome& outcome,
                                 const std::vector<std::string>& argv);
/// The report for people (the command prints it to stderr; the PTX itself goes to stdout).
std::string render_ptx_retarget_text(const PtxRetargetOutcome& outcome, const Style& style);

// ------------------------------------------------------------------------------- ptx lower

/// What `ptx lower` did with one file.
struct PtxLowerOutcome {
  std::string input;
  SmTarget to;
  const ptx::LowerResult* result = nullptr;  ///< never null
  std::optional<std::string> written;        ///< the -o path, when the PTX was written there
  bool verify_requested = false;
  std::optional<ptx::PtxasOutcome> verified;  ///< ptxas's verdict on the result, when run
  std::string verify_note;                    ///< why it was not run (when requested)
  /// --verify: each kernel run in the reference interpreter as given and as lowered.
  std::vector<ptx::KernelVerification> interpreted;
};

nlohmann::json ptx_lower_json(const PtxLowerOutcome& outcome, const std::vector<std::string>& argv);
/// The report for people (the command prints it to stderr; the PTX itself goes to stdout).
std::string render_ptx_lower_text(const PtxLowerOutcome& outcome, const Style& style);

// ------------------------------------------------------------------------------ ptx budget

/// One kernel of `ptx budget --json`: ptx_kernel_json plus its "input".
nlohmann::json ptx_budget_kernel_json(const ptx::PtxSource& source,
                                      const ptx::KernelReport& kernel);
nlohmann::json ptx_budget_json(const SmTarget& target, std::vector<nlohmann::json> kernels,
                               const std::vector<std::string>& argv);
/// One kernel's shared memory by declaration, against `target`'s limits.
std::string render_ptx_budget_text(const ptx::PtxSource& source, const ptx::KernelReport& kernel,
                                   const SmTarget& target, const Style& style);

}  // namespace smcompat
