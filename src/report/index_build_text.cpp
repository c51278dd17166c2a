// `index build`'s progress and closing lines (include/smcompat/report/index_report.hpp).
#include <fmt/format.h>

#include "smcompat/report/index_report.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat {

std::string render_index_build_summary(const IndexBuildResult& built,
                                       const IndexBuildOptions& options,
                                       const std::vector<IndexFailure>& added_failures) {
  const auto& s = built.stats;
  double minutes = s.seconds_total / 60.0;
  std::string out = fmt::format(
      "smcompat index build: {} work items{}: {} wheels indexed, {} already indexed, {} failures; "
      "{} downloaded in {:.0f} s (download {:.0f} s, scan {:.0f} s across {} jobs){}\n",
      s.items,
      options.shard_count > 1
          ? fmt::format(" (shard {}/{})", options.shard_index + 1, options.shard_count)
          : "",
      s.wheels_indexed, s.wheels_reused, s.failures, human_bytes(s.bytes_downloaded),
      s.seconds_total, s.seconds_download, s.seconds_scan, options.jobs,
      minutes > 0 && s.wheels_indexed
          ? fmt::format("; {:.1f} wheels/min", s.wheels_indexed / minutes)
          : "");
  constexpr size_t kShown = 40;
  for (size_t i = 0; i < added_failures.size() && i < kShown; ++i) {
    const auto& f = added_failures[i];
    out +=
        fmt::format("  {} [{}] {}\n", f.stage, f.platform.empty() ? "all" : f.platform, f.message);
  }
  if (added_failures.size() > kShown)
    out += fmt::format("  … and {} more (\"failures\" in the index)\n",
                       added_failures.size() - kShown);
  return out;
}

std::string render_index_build_progress(const IndexBuildProgress& p, bool terminal) {
  if (terminal) {
    std::string line = p.items_total
                           ? fmt::format("[{}/{}] {} ({} downloaded)", p.items_done, p.items_total,
                                         p.current, human_bytes(p.bytes_downloaded))
                           : p.current;
    if (line.size() > 118) line = line.substr(0, 117) + "…";
    return "\r\033[K" + line;
  }
  if (!ends_with(p.current, ": done")) return "";
  return fmt::format("smcompat index build: [{}/{}] {}\n", p.items_done, p.items_total,
                     p.current.substr(0, p.current.size() - 6));
}

}  // namespace smcompat
