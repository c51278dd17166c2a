// The index commands' work around build_wheel_index (include/smcompat/index/build.hpp): where
// wheels are cached, resuming from earlier index files, and adding local wheel files.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "smcompat/index/build.hpp"

namespace smcompat {

Result<IndexBuildOptions> index_build_options(const IndexBuildRequest& a,
                                              std::vector<std::string>* resume_paths) {
  IndexBuildOptions opt;
  for (const auto& text : a.packages) {
    SMCOMPAT_TRY(auto request, PackageRequest::parse(text));
    opt.packages.push_back(std::move(request));
  }
  for (const auto& name : a.platforms) {
    auto platform = find_index_platform(name);
    if (!platform) return make_error("--platform: " + platform.error().what);
    opt.platforms.push_back(*platform);
  }
  if (a.last > 0) opt.last = a.last;
  if (!a.shard.empty()) {
    SMCOMPAT_TRY(auto shard, parse_shard(a.shard));
    opt.shard_index = shard.first - 1;
    opt.shard_count = shard.second;
  }
  opt.python = a.python;
  opt.python_version = a.python_version;
  if (!a.index_url.empty()) opt.pip_args.insert(opt.pip_args.end(), {"--index-url", a.index_url});
  for (const auto& f : a.find_links) opt.pip_args.insert(opt.pip_args.end(), {"--find-links", f});
  opt.pip_args.insert(opt.pip_args.end(), a.pip_args.begin(), a.pip_args.end());
  opt.cache_dir = a.cache.empty() ? default_wheel_cache() : a.cache;
  opt.keep = a.keep;
  opt.jobs = a.jobs;
  // Re-running resumes: the output file (a checkpoint of an interrupted run, or the last run)
  // and --resume FILE both say which wheels are done.
  if (resume_paths) {
    std::error_code ec;
    if (!a.resume.empty()) resume_paths->push_back(a.resume);
    if (!a.output.empty() && a.output != "-" && std::filesystem::exists(a.output, ec) &&
        a.output != a.resume)
      resume_paths->push_back(a.output);
  }
  return opt;
}

std::string default_wheel_cache() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/smcompat/wheels";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/smcompat/wheels";
  return "/tmp/smcompat-wheels";
}

Result<std::optional<WheelIndex>> read_merged_index(const std::vector<std::string>& paths) {
  if (paths.empty()) return std::optional<WheelIndex>();
  std::vector<WheelIndex> parts;
  for (const auto& path : paths) {
    SMCOMPAT_TRY(auto part, read_wheel_index(path));
    parts.push_back(std::move(part));
  }
  return std::optional<WheelIndex>(merge_indexes(std::move(parts)));
}

std::vector<IndexFailure> new_failures(const WheelIndex& built, const WheelIndex* resume) {
  std::vector<IndexFailure> out;
  for (const auto& f : built.failures)
    if (!resume ||
        std::find(resume->failures.begin(), resume->failures.end(), f) == resume->failures.end())
      out.push_back(f);
  return out;
}

Result<AddedWheels> add_wheels(const std::vector<std::string>& wheels,
                               const std::string& existing) {
  AddedWheels out;
  WheelIndex added;
  auto started = std::chrono::steady_clock::now();
  for (const auto& path : wheels) {
    auto record = index_wheel(path);
    if (!record) {
      out.problems.push_back(record.error().to_string());
      continue;
    }
    for (const auto& e : record->errors) out.problems.push_back(path + ": " + e);
    out.bytes += record->size;
    added.wheels.push_back(std::move(*record));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::vector<WheelIndex> parts;
  std::error_code ec;
  if (!existing.empty() && existing != "-" && std::filesystem::exists(existing, ec)) {
    auto old = read_wheel_index(existing);
    if (!old) return old.error();
    parts.push_back(std::move(*old));
  }
  added.built = utc_date_today();
  added.tool_version = SMCOMPAT_VERSION;
  parts.push_back(std::move(added));
  out.merged = merge_indexes(std::move(parts));
  return out;
}

}  // namespace smcompat
