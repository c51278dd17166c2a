// Helpers for the plan tests: the real model configs in tests/plan/configs/.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "smcompat/plan/model.hpp"

namespace smcompat::plan::testing {

inline std::string config_path(const std::string& name) {
  return std::string(SMCOMPAT_SOURCE_DIR) + "/tests/plan/configs/" + name + ".json";
}

/// tests/plan/configs/<name>.json read as a model (an empty model, and a test failure, if not).
inline ModelSpec read(const std::string& name) {
  auto spec = read_model_config(config_path(name));
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().to_string());
  return spec.ok() ? *spec : ModelSpec{};
}

inline double billions(uint64_t n) { return static_cast<double>(n) / 1e9; }

}  // namespace smcompat::plan::testing
