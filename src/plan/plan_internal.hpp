// Private to plan/: what the cost model (plan.cpp) shares with the ranking of its plans
// (ranking.cpp).
#pragma once

#include <cstdint>

namespace smcompat::plan::detail {

/// Bytes as a whole number: truncated, and held below 2^62 so that sums of a few terms stay in
/// range however large the request (a cast of a double beyond uint64_t is undefined).
uint64_t whole_bytes(double bytes);

}  // namespace smcompat::plan::detail
