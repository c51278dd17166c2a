// Sample statistics and the stopping rule of the measurement loop (after NVIDIA/nvbench, see
// ../shared/reference/bench-anchors.md): at least `min_samples` samples and `min_time_s` of
// measured time, then stop once the relative standard deviation is at most `max_rel_stddev`, or
// at `timeout_s` of wall time (not converged). Samples taken while the GPU reported a throttle
// reason are kept but flagged and left out of the summary when enough unthrottled ones remain.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace smcompat::bench {

struct StopRule {
  std::size_t min_samples = 10;
  double min_time_s = 0.5;        ///< sum of sample times before the noise test applies
  double max_rel_stddev = 0.005;  ///< 0.5 %
  double timeout_s = 15.0;        ///< wall time, including time not measured
  std::size_t max_samples = 100000;

  /// --quick: 5 samples, 0.05 s, 2 %, 2 s timeout.
  static StopRule quick();
};

/// Why sampling stopped.
enum class StopReason { kConverged, kTimeout, kMaxSamples, kError };
const char* to_string(StopReason reason);  // "converged", "timeout", "max_samples", "error"

/// Summary of a set of samples (seconds per iteration).
struct SampleSummary {
  std::size_t samples = 0;    ///< samples summarised (unthrottled ones when enough)
  std::size_t throttled = 0;  ///< samples taken while a throttle reason was active
  double mean_s = 0;
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
  double stddev_s = 0;    ///< sample standard deviation (n − 1); 0 for one sample
  double rel_stddev = 0;  ///< stddev / mean
  double total_s = 0;     ///< sum of all samples, throttled included
  StopReason stop = StopReason::kConverged;
  bool converged() const { return stop == StopReason::kConverged; }
};

/// Summarises samples; empty input gives a zero summary with samples == 0.
SampleSummary summarize(std::span<const double> samples_s);

/// Accumulates samples and applies a StopRule. The caller measures; the sampler decides.
class Sampler {
 public:
  explicit Sampler(StopRule rule) : rule_(rule) {}

  /// Adds one sample (seconds) and whether the GPU reported throttling while it was taken.
  void add(double sample_s, bool throttled = false);
  /// Whether to stop after the samples so far, given the wall time spent since sampling began.
  bool done(double wall_elapsed_s);
  /// The reason done() returned true (kTimeout if it never did).
  StopReason reason() const { return reason_; }
  /// The summary: unthrottled samples if at least min_samples of them exist, else all.
  SampleSummary summary() const;
  std::size_t count() const { return samples_.size(); }

 private:
  StopRule rule_;
  std::vector<double> samples_;
  std::vector<bool> throttled_;
  StopReason reason_ = StopReason::kTimeout;
};

/// Whether two summaries differ beyond their noise: |a − b| > k × max(σa, σb) and more than
/// `min_rel` relative to a (default 1 %). Used by --baseline.
bool differs_beyond_noise(const SampleSummary& a, const SampleSummary& b, double k = 3.0,
                          double min_rel = 0.01);

}  // namespace smcompat::bench
