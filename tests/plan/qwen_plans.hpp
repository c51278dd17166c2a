// The candidate plans of Qwen3-30B-A3B on 8xH100 (tests/plan/configs), which the installed-kernel
// tests (installed_test.cpp, installed_corpus_test.cpp) mark up.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "smcompat/plan/plan.hpp"

namespace smcompat::plan {

inline std::vector<PlanEstimate> qwen_on_8xh100() {
  PlanRequest rq;
  auto m = read_model_config(std::string(SMCOMPAT_SOURCE_DIR) +
                             "/tests/plan/configs/Qwen__Qwen3-30B-A3B.json");
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().to_string());
  if (m.ok()) rq.model = *m;
  auto sets = parse_gpu_sets("8xH100", Catalog::builtin());
  EXPECT_TRUE(sets.ok() && !sets->empty());
  if (sets.ok() && !sets->empty()) rq.gpus = sets->front();
  auto plans = rank_plans(rq);
  // Every candidate fits and runs before the installed kernels are looked at (3 of them DeepEP).
  EXPECT_EQ(plans.size(), 16u);
  for (auto& p : plans) EXPECT_TRUE(p.runnable && p.fits && p.why_not.empty()) << p.shape.name();
  EXPECT_EQ(std::count_if(plans.begin(), plans.end(),
                          [](auto& p) { return p.shape.a2a == AllToAll::kDeepEp; }),
            3);
  return plans;
}

}  // namespace smcompat::plan
