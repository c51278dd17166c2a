// Compares a report's JSON with the expected document: the schema named, and everything else
// but the tool version (which changes with every release) and the host name equal.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string_view>

namespace smcompat::testing {

inline void expect_json(nlohmann::json actual, std::string_view schema, std::string_view expected) {
  EXPECT_EQ(actual["schema"], schema);
  EXPECT_TRUE(actual.contains("tool_version"));
  actual.erase("tool_version");
  // Documents about a machine name it; the name depends on where the test runs.
  if (actual.contains("hostname")) {
    EXPECT_TRUE(actual["hostname"].is_string());
    actual.erase("hostname");
  }
  EXPECT_EQ(actual, nlohmann::json::parse(expected));
}

}  // namespace smcompat::testing
