// The GPU sets of this machine, from the probe (probe/probe.hpp): what `smcompat plan` plans for
// when no --gpus is given.
#pragma once

#include <vector>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/plan/plan.hpp"
#include "smcompat/probe/probe.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::plan {

/// Groups the probed devices by their catalog GPU (in order of first appearance): count, memory
/// per GPU from the probe (the catalog's when the probe has none), and the link from the probe's
/// topology among that group's devices: NVLink between every pair → kNvlink at the catalog's
/// NVLink figure (kPcieP2p if the catalog has none); peer access between every pair → kPcieP2p;
/// else kPcieHost. A single GPU gets the catalog's default link (it sends nothing). The link's
/// source names what the probe saw. Errors: the probe found no GPU (its explanation), or a device
/// the catalog does not know (by name).
Result<std::vector<GpuSet>> gpu_sets_from_probe(const ProbeReport& probe, const Catalog& catalog);

}  // namespace smcompat::plan
