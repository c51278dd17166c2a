// Running ptxas, when the machine has one, to prove that PTX assembles for a target (the ground
// truth for the feature table and for retargeted output). ptxas is found at run time
// ($SMCOMPAT_PTXAS, $CUDA_HOME/bin, /usr/local/cuda/bin, then $PATH); smcompat never needs it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::ptx {

/// Path of a ptxas executable, or nullopt.
std::optional<std::string> find_ptxas();

struct PtxasOutcome {
  bool accepted = false;
  int exit_code = 0;
  std::string log;  ///< ptxas's messages (errors and warnings)
};

/// Assembles `text` for `target` (sm_XX[a|f]) with `ptxas -c` into a temporary file that is
/// removed afterwards. Fails if ptxas cannot be started.
Result<PtxasOutcome> run_ptxas(const std::string& ptxas, std::string_view text,
                               const SmTarget& target);

/// `--verify`: `text` assembled for `target` by the ptxas find_ptxas() finds. `note` says why
/// there is no outcome (no ptxas, or it could not be started).
struct PtxasVerification {
  std::optional<PtxasOutcome> outcome;
  std::string note;
};
PtxasVerification verify_with_ptxas(std::string_view text, const SmTarget& target);

}  // namespace smcompat::ptx
