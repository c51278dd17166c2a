#include "smcompat/bench/stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "smcompat/util/enum_names.hpp"

namespace smcompat::bench {

StopRule StopRule::quick() {
  StopRule r;
  r.min_samples = 5;
  r.min_time_s = 0.05;
  r.max_rel_stddev = 0.02;
  r.timeout_s = 2.0;
  return r;
}

constexpr std::array<const char*, 4> kStopReasonNames = {"converged", "timeout", "max_samples",
                                                         "error"};
const char* to_string(StopReason reason) { return enum_name(reason, kStopReasonNames, "error"); }

SampleSummary summarize(std::span<const double> samples_s) {
  SampleSummary s;
  s.samples = samples_s.size();
  if (samples_s.empty()) return s;
  std::vector<double> sorted(samples_s.begin(), samples_s.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.min_s = sorted.front();
  s.max_s = sorted.back();
  s.median_s = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  s.total_s = std::accumulate(sorted.begin(), sorted.end(), 0.0);
  s.mean_s = s.total_s / static_cast<double>(n);
  if (n > 1) {
    double ss = 0;
    for (double x : sorted) ss += (x - s.mean_s) * (x - s.mean_s);
    s.stddev_s = std::sqrt(ss / static_cast<double>(n - 1));
  }
  s.rel_stddev = s.mean_s > 0 ? s.stddev_s / s.mean_s : 0;
  return s;
}

void Sampler::add(double sample_s, bool throttled) {
  samples_.push_back(sample_s);
  throttled_.push_back(throttled);
}

bool Sampler::done(double wall_elapsed_s) {
  if (samples_.size() >= rule_.max_samples) {
    reason_ = StopReason::kMaxSamples;
    return true;
  }
  const SampleSummary s = summary();
  const double measured = s.total_s;
  if (samples_.size() >= rule_.min_samples && measured >= rule_.min_time_s &&
      s.rel_stddev <= rule_.max_rel_stddev) {
    reason_ = StopReason::kConverged;
    return true;
  }
  if (wall_elapsed_s >= rule_.timeout_s) {
    reason_ = StopReason::kTimeout;
    return true;
  }
  return false;
}

SampleSummary Sampler::summary() const {
  std::vector<double> clean;
  std::size_t throttled = 0;
  for (std::size_t i = 0; i < samples_.size(); ++i) {
    if (throttled_[i]) {
      ++throttled;
    } else {
      clean.push_back(samples_[i]);
    }
  }
  // Throttled samples are left out only while enough clean ones remain to judge the noise.
  const bool drop = throttled > 0 && clean.size() >= rule_.min_samples;
  SampleSummary s = drop ? summarize(clean) : summarize(samples_);
  s.throttled = throttled;
  if (drop) {
    s.total_s = std::accumulate(samples_.begin(), samples_.end(), 0.0);
  }
  s.stop = reason_;
  return s;
}

bool differs_beyond_noise(const SampleSummary& a, const SampleSummary& b, double k,
                          double min_rel) {
  const double diff = std::fabs(a.median_s - b.median_s);
  const double noise = k * std::max(a.stddev_s, b.stddev_s);
  const double rel = a.median_s > 0 ? diff / a.median_s : (diff > 0 ? 1.0 : 0.0);
  return diff > noise && rel > min_rel;
}

}  // namespace smcompat::bench
