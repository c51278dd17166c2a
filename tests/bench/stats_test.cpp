// The statistics and the stopping rule against synthetic samples (no GPU): the summary's exact
// values, convergence at the first sample that satisfies every condition, the timeout, and
// throttled samples left out only while enough clean ones remain.
#include "smcompat/bench/stats.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace smcompat::bench {
namespace {

TEST(BenchStats, SummaryOfKnownSamples) {
  const std::vector<double> samples = {4.0, 1.0, 3.0, 2.0};
  const SampleSummary s = summarize(samples);
  EXPECT_EQ(s.samples, 4u);
  EXPECT_DOUBLE_EQ(s.min_s, 1.0);
  EXPECT_DOUBLE_EQ(s.max_s, 4.0);
  EXPECT_DOUBLE_EQ(s.median_s, 2.5);
  EXPECT_DOUBLE_EQ(s.mean_s, 2.5);
  EXPECT_DOUBLE_EQ(s.total_s, 10.0);
  // Sample variance: ((1.5² + 0.5²) × 2) / 3 = 5/3.
  EXPECT_NEAR(s.stddev_s, 1.2909944487358056, 1e-15);
  EXPECT_NEAR(s.rel_stddev, 1.2909944487358056 / 2.5, 1e-15);
}

TEST(BenchStats, OddCountMedianAndSingleSample) {
  const std::vector<double> odd = {5.0, 1.0, 9.0};
  EXPECT_DOUBLE_EQ(summarize(odd).median_s, 5.0);
  const std::vector<double> one = {0.25};
  const SampleSummary s = summarize(one);
  EXPECT_EQ(s.samples, 1u);
  EXPECT_DOUBLE_EQ(s.stddev_s, 0.0);
  EXPECT_DOUBLE_EQ(s.median_s, 0.25);
  EXPECT_EQ(summarize({}).samples, 0u);
  EXPECT_DOUBLE_EQ(summarize({}).rel_stddev, 0.0);
}

// Identical samples converge exactly when both the count and the measured time are reached.
TEST(BenchStats, ConvergesAtMinSamplesAndMinTime) {
  StopRule rule;  // 10 samples, 0.5 s, 0.5 %, 15 s
  Sampler sampler(rule);
  int added = 0;
  while (true) {
    sampler.add(0.1);
    ++added;
    if (sampler.done(0.1 * added)) break;
  }
  // 0.5 s of 0.1 s samples is reached at 5, the count at 10.
  EXPECT_EQ(added, 10);
  EXPECT_EQ(sampler.reason(), StopReason::kConverged);

  Sampler slow(rule);
  added = 0;
  while (true) {
    slow.add(0.01);
    ++added;
    if (slow.done(0.01 * added)) break;
  }
  EXPECT_EQ(added, 50);  // 50 × 0.01 s = 0.5 s of measured time
  EXPECT_TRUE(slow.summary().converged());
}

// Alternating ±10 % noise never reaches 0.5 %: sampling stops at the timeout, not converged.
TEST(BenchStats, NoisySamplesStopAtTimeout) {
  StopRule rule;
  rule.timeout_s = 3.0;
  Sampler sampler(rule);
  double wall = 0;
  int added = 0;
  while (true) {
    const double t = (added % 2) ? 0.11 : 0.09;
    sampler.add(t);
    wall += t;
    ++added;
    if (sampler.done(wall)) break;
  }
  EXPECT_EQ(sampler.reason(), StopReason::kTimeout);
  const SampleSummary s = sampler.summary();
  EXPECT_FALSE(s.converged());
  EXPECT_GT(s.rel_stddev, 0.05);
  EXPECT_GE(wall, 3.0);
  EXPECT_LT(wall, 3.0 + 0.11 + 1e-9);
}

TEST(BenchStats, MaxSamplesStops) {
  StopRule rule;
  rule.max_samples = 3;
  Sampler sampler(rule);
  sampler.add(1);
  EXPECT_FALSE(sampler.done(0));
  sampler.add(2);
  EXPECT_FALSE(sampler.done(0));
  sampler.add(3);
  EXPECT_TRUE(sampler.done(0));
  EXPECT_EQ(sampler.reason(), StopReason::kMaxSamples);
}

// Throttled samples are dropped from the summary while min_samples clean ones remain, and
// counted either way.
TEST(BenchStats, ThrottledSamplesLeftOutWhenEnoughRemain) {
  StopRule rule;
  rule.min_samples = 3;
  Sampler sampler(rule);
  sampler.add(1.0);
  sampler.add(1.0);
  sampler.add(2.0, /*throttled=*/true);
  SampleSummary few = sampler.summary();  // only 2 clean: all three are summarised
  EXPECT_EQ(few.samples, 3u);
  EXPECT_EQ(few.throttled, 1u);
  EXPECT_NEAR(few.mean_s, 4.0 / 3.0, 1e-12);

  sampler.add(1.0);
  SampleSummary enough = sampler.summary();  // 3 clean: the throttled one is left out
  EXPECT_EQ(enough.samples, 3u);
  EXPECT_EQ(enough.throttled, 1u);
  EXPECT_DOUBLE_EQ(enough.mean_s, 1.0);
  EXPECT_DOUBLE_EQ(enough.stddev_s, 0.0);
  EXPECT_DOUBLE_EQ(enough.total_s, 5.0);  // measured time still counts every sample
}

TEST(BenchStats, QuickRuleIsLooser) {
  const StopRule q = StopRule::quick();
  const StopRule d;
  EXPECT_LT(q.min_samples, d.min_samples);
  EXPECT_LT(q.timeout_s, d.timeout_s);
  EXPECT_GT(q.max_rel_stddev, d.max_rel_stddev);
}

TEST(BenchStats, DiffersBeyondNoise) {
  SampleSummary a;
  a.median_s = 1.0;
  a.stddev_s = 0.01;
  SampleSummary b = a;
  b.median_s = 1.02;  // 2 % apart, noise 3 × 0.01 = 0.03: within noise
  EXPECT_FALSE(differs_beyond_noise(a, b));
  b.median_s = 1.05;  // 5 % > 0.03 and > 1 %
  EXPECT_TRUE(differs_beyond_noise(a, b));
  a.stddev_s = b.stddev_s = 0;
  b.median_s = 1.005;  // noiseless but below the 1 % floor
  EXPECT_FALSE(differs_beyond_noise(a, b));
  b.median_s = 1.02;
  EXPECT_TRUE(differs_beyond_noise(a, b));
}

TEST(BenchStats, StopReasonNames) {
  EXPECT_STREQ(to_string(StopReason::kConverged), "converged");
  EXPECT_STREQ(to_string(StopReason::kTimeout), "timeout");
  EXPECT_STREQ(to_string(StopReason::kMaxSamples), "max_samples");
  EXPECT_STREQ(to_string(StopReason::kError), "error");
}

}  // namespace
}  // namespace smcompat::bench
