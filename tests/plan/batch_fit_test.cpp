// The largest batch a plan reports is the largest that fits: for every real config in
// tests/plan/configs, on GPU sets from 32 GB to 8x141 GB, at several lengths, each runnable plan's
// max_batch_that_fits is a batch whose memory fits the GPU, and one sequence more does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "smcompat/plan/plan.hpp"

namespace smcompat::plan {
namespace {

std::vector<std::string> config_paths() {
  std::vector<std::string> out;
  for (auto& entry : std::filesystem::directory_iterator(std::string(SMCOMPAT_SOURCE_DIR) +
                                                         "/tests/plan/configs"))
    if (entry.path().extension() == ".json") out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(BatchFit, TheLargestBatchFitsAndOneMoreDoesNot) {
  const auto paths = config_paths();
  ASSERT_GE(paths.size(), 10u);
  int checked = 0;
  for (const auto& path : paths) {
    auto model = read_model_config(path);
    ASSERT_TRUE(model.ok()) << path;
    for (const char* spec : {"1xRTX 5090", "2xRTX PRO 6000", "4xL40S", "8xH100", "8xH200"}) {
      auto sets = parse_gpu_sets(spec, Catalog::builtin());
      ASSERT_TRUE(sets.ok()) << spec;
      for (Workload w :
           {Workload{1, 128, 128}, Workload{64, 1024, 1024}, Workload{8, 8192, 2048}}) {
        PlanRequest rq;
        rq.model = *model;
        rq.gpus = sets->front();
        rq.workload = w;
        for (const PlanEstimate& plan : rank_plans(rq)) {
          if (!plan.runnable || plan.max_batch_that_fits <= 0 ||
              plan.max_batch_that_fits >= 1'000'000)
            continue;
          SCOPED_TRACE(path + " on " + spec + ", " + plan.shape.name() + ", max batch " +
                       std::to_string(plan.max_batch_that_fits));
          PlanRequest at = rq;
          at.workload.batch = plan.max_batch_that_fits;
          PlanEstimate fits = estimate(at, plan.shape);
          EXPECT_LE(fits.memory.total(), fits.gpu_memory_bytes);
          PlanRequest over = rq;
          over.workload.batch = plan.max_batch_that_fits + 1;
          PlanEstimate too_many = estimate(over, plan.shape);
          EXPECT_GT(too_many.memory.total(), too_many.gpu_memory_bytes);
          ++checked;
        }
      }
    }
  }
  EXPECT_GE(checked, 100);  // the property held on many plans, not on a handful
}

}  // namespace
}  // namespace smcompat::plan
