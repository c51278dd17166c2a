// The parts of an explanation computed from the text's facts (explain.cpp's helpers): the fix
// specifics per mode (`FailureMode::compute`), facts stated twice differently, and the nearest
// modes when none matched. Private to explain/.
#pragma once

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "smcompat/explain/explain.hpp"

namespace smcompat::explain {

/// The fix computed for `match` from the facts, the catalog and this machine (may be null): the
/// driver a required CUDA needs, the torch a GPU needs, the GPU's shared-memory limit, its
/// architecture flags, the cuDNN versions. Every number comes from the GPU the text names (or
/// this machine's); none when the text names none.
std::vector<std::string> computed_fix(const FailureMode& mode, const KnowledgeBase::Match& match,
                                      const TextFacts& facts, const KnowledgeBase& kb,
                                      const Catalog& catalog, const doctor::DoctorReport* doctor);

/// Whether `tool` runs on PyTorch ("" unknown counts): a torch without code for the GPU, and
/// PyTorch's own fixes, are its concern too.
bool runs_on_torch(const std::string& tool);

/// "the text states two torch versions: 2.0.1 and 2.1.0".
std::vector<std::string> fact_conflicts(const TextFacts& facts);

/// The two modes nearest to a text none matched, each with why it does not fit.
std::vector<NearMiss> nearest_modes(const KnowledgeBase& kb, const TextFacts& facts,
                                    const std::vector<std::pair<size_t, std::string>>& head,
                                    const std::deque<std::pair<size_t, std::string>>& tail);

}  // namespace smcompat::explain
