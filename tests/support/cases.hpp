// Table-driven expectations: a function applied to each input gives exactly its expected text.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace smcompat::testing {

template <class F>
void expect_mapped(F f, const std::vector<std::pair<std::string, std::string>>& cases) {
  for (const auto& [input, expected] : cases) EXPECT_EQ(f(input), expected) << input;
}

}  // namespace smcompat::testing
