// The whole wheel index judged for several GPUs at once (`smcompat index report`): every package
// of the index advised for each GPU on that GPU's machine (default_machine_for()), with no
// environment, so that each answer is the one `smcompat advise PKG --gpu NAME` gives. The page
// that shows it is rendered by report/ (render_index_html()).
#pragma once

#include <string>
#include <vector>

#include "smcompat/index/advise.hpp"

namespace smcompat {

/// The GPUs the page shows when none are named: the current consumer, workstation and data-centre
/// parts, DGX Spark, and the older ones still common in clouds. Names, resolved by
/// resolve_targets() through the catalog.
std::vector<std::string> default_overview_gpus();

/// Packages x GPUs.
struct IndexOverview {
  std::vector<Target> targets;
  std::vector<std::string> machines;  ///< per target: the machine whose wheels were judged
  std::vector<std::string> packages;  ///< every package of the index (normalised), sorted
  /// cells[p][t]: what advise() answers for packages[p] on targets[t] (machines[t]).
  std::vector<std::vector<PackageAdvice>> cells;
};

/// Advises on every package of `index` for each target (its machine by default_machine_for()).
IndexOverview index_overview(const WheelIndex& index, const std::vector<Target>& targets);

}  // namespace smcompat
