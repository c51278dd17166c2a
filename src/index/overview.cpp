// Packages x GPUs over the wheel index (include/smcompat/index/overview.hpp).
#include "smcompat/index/overview.hpp"

#include <set>

namespace smcompat {

std::vector<std::string> default_overview_gpus() {
  return {"RTX 5090", "RTX PRO 6000", "B200", "GB10", "H100", "A100", "L4", "T4"};
}

IndexOverview index_overview(const WheelIndex& index, const std::vector<Target>& targets) {
  IndexOverview out;
  out.targets = targets;
  std::set<std::string> names;
  for (const auto& w : index.wheels) names.insert(w.package);
  out.packages.assign(names.begin(), names.end());
  out.cells.assign(out.packages.size(), {});
  for (const auto& t : targets) {
    const std::string machine = default_machine_for(t);
    out.machines.push_back(machine);
    std::vector<PackageAdvice> column = advise(index, out.packages, t, {}, machine);
    for (size_t p = 0; p < column.size() && p < out.cells.size(); ++p)
      out.cells[p].push_back(std::move(column[p]));
  }
  return out;
}

}  // namespace smcompat
