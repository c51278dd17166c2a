// A resolved target for tests that name one ("RTX 5090", "sm_90", with a driver version).
#pragma once

#include "smcompat/verdict/targets.hpp"

namespace smcompat::testtargets {

inline Target T(const char* what, const char* driver = "") { return *resolve_target(what, driver); }

}  // namespace smcompat::testtargets
