// Building a wheel index: pip finds, resolves and downloads each release's wheels for the platform
// sets of GPU machines (Linux x86-64 and aarch64), index_wheel() scans each one, and failures
// become recorded IndexFailure rows while the build goes on. Work is a deterministic list of
// (package, version, platform) items, so it can be split into shards (--shard K/N) whose outputs
// merge_indexes() joins.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/index/record.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

/// A platform set: the machine and the pip --platform tags a GPU machine of that kind accepts.
struct IndexPlatform {
  std::string name;               ///< "linux_x86_64", "linux_aarch64"
  std::string machine;            ///< "x86_64", "aarch64"
  std::vector<std::string> tags;  ///< manylinux_2_X_<machine> ... manylinux2014_<machine>, ...
};
/// The default platform sets (glibc up to 2.39: Ubuntu 24.04, DGX OS 7) and lookup by name.
const std::vector<IndexPlatform>& default_index_platforms();
Result<IndexPlatform> find_index_platform(std::string_view name);

/// What the user asked for: "torch", "torch==2.9.0", "torch>=2.7,<2.10" (a PEP 440 specifier).
struct PackageRequest {
  std::string name;       ///< as typed, before normalisation
  std::string specifier;  ///< "" for all versions (subject to `last`), else "==2.9.0", ">=2.7"
  static Result<PackageRequest> parse(std::string_view text);
};

/// One unit of build work; the list of them is sorted, so a shard is a fixed subset.
struct IndexWorkItem {
  std::string package;  ///< normalised
  std::string version;
  std::string platform;  ///< IndexPlatform::name
  auto operator<=>(const IndexWorkItem&) const = default;
};

/// Progress of a build, reported from the orchestrating thread.
struct IndexBuildProgress {
  size_t items_done = 0;
  size_t items_total = 0;
  uint64_t bytes_downloaded = 0;
  std::string current;  ///< "torch 2.9.0 linux_x86_64: scanning"
};

struct IndexBuildOptions {
  std::vector<PackageRequest> packages;
  std::vector<IndexPlatform> platforms;     ///< default_index_platforms() when empty
  std::optional<size_t> last;               ///< newest N versions with binary wheels per package
  std::string python = "python3";           ///< the interpreter whose pip does the network work
  std::string python_version = "3.12";      ///< the Python the wheels are chosen for
  std::vector<std::string> pip_args;        ///< extra pip options (--index-url, --find-links, ...)
  std::string cache_dir;                    ///< where wheels are downloaded (created if missing)
  bool keep = false;                        ///< keep each wheel after scanning
  unsigned jobs = 3;                        ///< downloads/scans in flight
  size_t shard_index = 0, shard_count = 1;  ///< --shard K/N: items with position % N == K - 1
  const WheelIndex* resume = nullptr;       ///< wheels already indexed (by sha256) are not redone
  InspectOptions inspect;
  std::function<void(const IndexBuildProgress&)> progress;
  /// Called with the index so far (resume's wheels plus those done) at most every
  /// `checkpoint_seconds` while wheels finish, so an interrupted build resumes from there.
  std::function<void(const WheelIndex&)> checkpoint;
  double checkpoint_seconds = 30;
};

struct IndexBuildStats {
  size_t items = 0;           ///< work items in this shard
  size_t wheels_indexed = 0;  ///< scanned now
  size_t wheels_reused = 0;   ///< already in `resume`, skipped by hash
  size_t failures = 0;
  uint64_t bytes_downloaded = 0;
  double seconds_download = 0, seconds_scan = 0, seconds_total = 0;
};

struct IndexBuildResult {
  WheelIndex index;  ///< resume's wheels plus the new ones, normalised
  IndexBuildStats stats;
};

/// Runs a build. Errors only for unusable options (no pip, bad shard); everything that goes wrong
/// for a package, version or wheel is a recorded failure.
Result<IndexBuildResult> build_wheel_index(const IndexBuildOptions& options);

/// `index build`'s options as the user gave them (text), before they are checked.
struct IndexBuildRequest {
  std::vector<std::string> packages;   ///< NAME, NAME==VERSION, NAME with a PEP 440 specifier
  size_t last = 0;                     ///< 0: every release
  std::vector<std::string> platforms;  ///< linux_x86_64, linux_aarch64; empty: both
  std::string output;                  ///< the index file ("" or "-": stdout); resumed if present
  std::string resume;                  ///< another index whose wheels are done
  std::string shard;                   ///< "K/N" or ""
  std::string cache;                   ///< "": default_wheel_cache()
  bool keep = false;
  std::string python = "python3";
  std::string python_version = "3.12";
  std::string index_url;
  std::vector<std::string> find_links;
  std::vector<std::string> pip_args;
  unsigned jobs = 3;
};

/// The options of `request`, checked (each error names the option), and the index files that
/// say which wheels are done: --resume and the output of an earlier run.
Result<IndexBuildOptions> index_build_options(const IndexBuildRequest& request,
                                              std::vector<std::string>* resume_paths);

/// Where wheels are downloaded unless told: $XDG_CACHE_HOME/smcompat/wheels, else
/// ~/.cache/smcompat/wheels, else /tmp/smcompat-wheels.
std::string default_wheel_cache();

/// Index files read and merged (`index merge`; the wheels already done when a build resumes);
/// nullopt for no paths. The error names the file.
Result<std::optional<WheelIndex>> read_merged_index(const std::vector<std::string>& paths);

/// The failures of `built` that `resume` did not hold already (what this run adds).
std::vector<IndexFailure> new_failures(const WheelIndex& built, const WheelIndex* resume);

/// `index add`: local wheel files scanned one after the other, merged into the index at
/// `existing` when that file exists.
struct AddedWheels {
  WheelIndex merged;
  std::vector<std::string> problems;  ///< "PATH: what went wrong", one per wheel or record error
  uint64_t bytes = 0;                 ///< wheel bytes scanned
  double seconds = 0;                 ///< scanning time
};
Result<AddedWheels> add_wheels(const std::vector<std::string>& wheels, const std::string& existing);

/// Today's date in UTC ("2026-11-25"): the `built` of an index.
std::string utc_date_today();

/// "K/N" -> (K, N) with 1 <= K <= N.
Result<std::pair<size_t, size_t>> parse_shard(std::string_view text);

}  // namespace smcompat
