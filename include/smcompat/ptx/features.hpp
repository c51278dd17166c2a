// The PTX feature table: which instructions and modifiers need a minimum architecture or an
// arch-specific (`a`) / family-specific (`f`) target. Rows live in data/ptx_features.json
// (compiled in), each citing the PTX ISA "Target ISA notes" it comes from and what ptxas 13.0
// does (ptxas wins where they differ; tests/ptx/features_test.cpp re-checks every row).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/ptx/module.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::ptx {

/// How a row recognises its instructions (see "match_help" in data/ptx_features.json).
struct FeatureMatch {
  std::vector<std::string> prefix;  ///< dotted prefix split in parts: {"cp","async","bulk"}
  std::vector<std::vector<std::string>> not_prefix;
  std::vector<std::string> opcodes;         ///< first part is one of these
  std::vector<std::string> all, any, none;  ///< modifiers with their dot
  std::vector<std::string> operand_any;     ///< text in an operand (special registers)
  std::vector<std::string> directive_any;   ///< kernel directives (.reqnctapercluster, ...)
};

/// One row of the table.
struct FeatureRow {
  std::string id;
  std::string title;
  FeatureMatch match;
  std::optional<int> min_sm;         ///< available on every base target >= this arch
  std::vector<int> arch_specific;    ///< archs whose `a` target has it
  std::vector<int> family_specific;  ///< archs whose `f` (and `a`) target has it
  Version ptx_isa;                   ///< first PTX ISA version with the feature
  std::string rewrite;               ///< "drop", "cluster" or "" (no mechanical rewrite)
  bool dsmem = false;                ///< touches another block's shared memory
  std::string strategy;              ///< what to do instead, when unavailable
  std::string source;
  std::string ptxas_note;
};

/// Whether a target can use a feature.
enum class Availability {
  kAvailable,
  kNeedsFamily,        ///< the `f` target of this arch has it (so does `a`)
  kNeedsArchSpecific,  ///< only the `a` target of this arch has it
  kUnavailable,        ///< no target of this arch has it
};

class FeatureTable {
 public:
  /// The table compiled into the library.
  static const FeatureTable& builtin();
  static Result<FeatureTable> from_json(std::string_view json_text);

  /// Indices of the rows an instruction matches (appended to `out`).
  void match_instruction(const Statement& inst, const std::string_view* operands,
                         std::vector<uint16_t>& out) const;
  /// Indices of the rows a kernel directive (".reqnctapercluster") matches.
  void match_directive(std::string_view directive, std::vector<uint16_t>& out) const;
  /// Whether code built for `target` may use the row's feature.
  static Availability availability(const FeatureRow& row, const SmTarget& target);

  /// Every row, in data/ptx_features.json order (match indices point into it).
  const std::vector<FeatureRow>& rows() const { return rows_; }
  /// The row with this id, or null.
  const FeatureRow* find(std::string_view id) const;

 private:
  std::vector<FeatureRow> rows_;
};

}  // namespace smcompat::ptx
