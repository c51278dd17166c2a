// Retargeting PTX to another architecture: sets .target (and .version where the target needs a
// newer ISA) when every feature is available, and applies the mechanical rewrites that are safe:
//  - drop `setmaxnreg` (a register-allocation hint; PTX ISA "setmaxnreg"), and
//  - collapse clusters to a cluster of one when the target has no clusters and no function
//    touches another block's shared memory (no mapa, no .shared::cluster accesses, no multicast):
//    cluster directives are removed, cluster special registers become constants (rank 0, size 1,
//    cluster id = block id), barrier.cluster.arrive is removed and barrier.cluster.wait becomes a
//    block barrier, and `.cluster` scope becomes `.cta` scope (a cluster of one is the block).
// Everything else is refused with the reason and the known strategy (field-reports.md §2).
// Edits are made on the original text, so everything not rewritten stays byte-identical, and the
// result is parsed and analysed again before it is returned.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/ptx/analysis.hpp"

namespace smcompat::ptx {

/// One rewrite, reported to the user.
struct Rewrite {
  SourceLoc loc;         ///< in the input
  std::string function;  ///< function holding it ("" for module directives)
  std::string kind;      ///< "target", "version", "drop-setmaxnreg", "cluster-collapse"
  std::string before;
  std::string after;
};

/// Why the input cannot be retargeted mechanically.
struct Blocker {
  std::string kernel;
  std::string feature;  ///< row id or resource name
  SourceLoc loc;
  std::string reason;
  std::string strategy;  ///< the known way around it (from the feature table / reference)
};

struct RetargetResult {
  bool ok = false;
  std::string text;  ///< the retargeted PTX (when ok)
  SmTarget to;
  std::vector<Rewrite> rewrites;
  std::vector<Blocker> blockers;
  /// An a/f target of the same arch on which the input assembles unchanged, when rewrites were
  /// needed for `to` (e.g. sm_120a keeps setmaxnreg).
  std::optional<SmTarget> intact_alternative;
  ModuleReport before;  ///< analysis of the input for `to`
};

/// Retargets PTX text to `to` (sm_XX[a|f]). Fails only if the text does not parse.
Result<RetargetResult> retarget(std::string_view text, const SmTarget& to,
                                const FeatureTable& table = FeatureTable::builtin());

}  // namespace smcompat::ptx
