// The cost model (include/smcompat/plan/plan.hpp).
#include "smcompat/plan/plan.hpp"

namespace smcompat::plan {

std::string_view to_string(LinkKind k) {
  switch (k) {
    case LinkKind::kNvlink: return "nvlink";
    case LinkKind::kPcieP2p: return "pcie-p2p";
    case LinkKind::kPcieHost: return "pcie-host";
  }
  return "?";
}

std::string_view to_string(AllToAll a) {
  switch (a) {
    case AllToAll::kNone: return "none";
    case AllToAll::kAllgatherReduceScatter: return "allgather-reducescatter";
    case AllToAll::kDeepEp: return "deepep";
  }
  return "?";
}

}  // namespace smcompat::plan
