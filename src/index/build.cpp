// The index build: pip lists each package's releases for a platform set (`pip index versions`),
// resolves each release to one wheel with its hash without downloading it (`pip install
// --dry-run --report`, which reads PyPI's PEP 658 metadata), downloads it (`pip download
// --no-deps --only-binary=:all:`) into the cache, and index_wheel() scans it. pip does all the
// network work, so the user's pip configuration (index URL, proxy, certificates) holds.
#include "smcompat/index/build.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "smcompat/util/process.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat {

namespace fs = std::filesystem;

// ---- platforms ---------------------------------------------------------------------------------

namespace {

IndexPlatform make_platform(const std::string& machine, int first_glibc_minor) {
  IndexPlatform p;
  p.name = "linux_" + machine;
  p.machine = machine;
  // glibc 2.39 (Ubuntu 24.04, DGX OS 7) down to the oldest manylinux of the machine; pip takes
  // the tags as given, so every accepted one is listed.
  for (int minor = 39; minor >= first_glibc_minor; --minor)
    p.tags.push_back(fmt::format("manylinux_2_{}_{}", minor, machine));
  p.tags.push_back("manylinux2014_" + machine);
  if (machine == "x86_64") {
    p.tags.push_back("manylinux2010_" + machine);
    p.tags.push_back("manylinux1_" + machine);
  }
  return p;
}

}  // namespace

const std::vector<IndexPlatform>& default_index_platforms() {
  static const std::vector<IndexPlatform> platforms = {make_platform("x86_64", 5),
                                                       make_platform("aarch64", 17)};
  return platforms;
}

Result<IndexPlatform> find_index_platform(std::string_view name) {
  std::string wanted(name);
  for (const auto& p : default_index_platforms())
    if (p.name == wanted || p.machine == wanted) return p;
  return make_error(
      fmt::format("unknown platform '{}' (known: linux_x86_64, linux_aarch64)", name));
}

// ---- requests and specifiers -------------------------------------------------------------------

Result<PackageRequest> PackageRequest::parse(std::string_view text) {
  std::string_view t = trim(text);
  size_t i = 0;
  while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '-' ||
                          t[i] == '_' || t[i] == '.'))
    ++i;
  PackageRequest r;
  r.name = std::string(t.substr(0, i));
  r.specifier = std::string(trim(t.substr(i)));
  if (r.name.empty() || !std::isalnum(static_cast<unsigned char>(r.name[0])))
    return make_error(
        fmt::format("'{}' is not a package name (NAME, NAME==VERSION or NAME>=V,<W)", text));
  for (auto clause : split(r.specifier, ',')) {
    clause = trim(clause);
    if (r.specifier.empty()) break;
    if (clause.empty() ||
        !(starts_with(clause, "==") || starts_with(clause, ">=") || starts_with(clause, "<=") ||
          starts_with(clause, "!=") || starts_with(clause, "~=") || starts_with(clause, "<") ||
          starts_with(clause, ">")))
      return make_error(fmt::format("'{}': '{}' is not a version clause (==, !=, >=, <=, >, <, ~=)",
                                    text, clause));
  }
  return r;
}

namespace {

// PEP 440 specifier clauses as PyPI users write them; "==2.9.*" prefix matches included.
bool matches_clause(const std::string& version, std::string_view clause) {
  clause = trim(clause);
  auto op_len = (clause.size() >= 2 && (clause[1] == '=')) ? 2u : 1u;
  std::string op(clause.substr(0, op_len));
  std::string v(trim(clause.substr(op_len)));
  if ((op == "==" || op == "!=") && ends_with(v, ".*")) {
    std::string prefix = v.substr(0, v.size() - 1);  // "2.9."
    bool m = starts_with(version + ".", prefix);
    return op == "==" ? m : !m;
  }
  int c = compare_versions(version, v);
  if (op == "==") return c == 0;
  if (op == "!=") return c != 0;
  if (op == ">=") return c >= 0;
  if (op == "<=") return c <= 0;
  if (op == ">") return c > 0;
  if (op == "<") return c < 0;
  if (op == "~=") {  // ~=2.9.1: >=2.9.1, ==2.9.*
    auto parts = split(v, '.');
    if (parts.size() < 2) return c >= 0;
    std::string prefix;
    for (size_t i = 0; i + 1 < parts.size(); ++i) prefix += std::string(parts[i]) + ".";
    return c >= 0 && starts_with(version + ".", prefix);
  }
  return false;
}

bool matches(const std::string& version, const std::string& specifier) {
  if (specifier.empty()) return true;
  for (auto clause : split(specifier, ','))
    if (!matches_clause(version, clause)) return false;
  return true;
}

bool is_prerelease(const std::string& version) {
  std::string v = to_lower(version.substr(0, version.find('+')));
  for (std::string_view marker : {"a", "b", "rc", "dev", "alpha", "beta", "pre", "c"})
    for (size_t at = v.find(marker); at != std::string::npos; at = v.find(marker, at + 1))
      if (at > 0 && std::isdigit(static_cast<unsigned char>(v[at - 1]))) return true;
  return false;
}

// ---- pip ---------------------------------------------------------------------------------------

struct Pip {
  const IndexBuildOptions& options;

  std::vector<std::string> base(std::initializer_list<std::string> command) const {
    std::vector<std::string> argv = {options.python, "-m", "pip"};
    argv.insert(argv.end(), command);
    argv.insert(argv.end(), {"--disable-pip-version-check", "--no-input"});
    return argv;
  }
  void add_target(std::vector<std::string>& argv, const IndexPlatform& platform) const {
    for (const auto& tag : platform.tags) argv.insert(argv.end(), {"--platform", tag});
    // --ignore-requires-python: the wheels are chosen for --python-version, not for the Python
    // pip runs under (pip install --dry-run checks Requires-Python against the latter).
    argv.insert(argv.end(), {"--python-version", options.python_version, "--implementation", "cp",
                             "--only-binary=:all:", "--ignore-requires-python"});
    argv.insert(argv.end(), options.pip_args.begin(), options.pip_args.end());
  }
};

// The line of pip's stderr that says what went wrong ("ERROR: ..."), else its last line.
std::string pip_reason(const ChildOutcome& outcome) {
  std::string last_error, last_line;
  for (auto line : split(outcome.err_tail, '\n')) {
    line = trim(line);
    if (line.empty() || starts_with(line, "WARNING: pip index is currently an experimental"))
      continue;
    last_line = std::string(line);
    if (starts_with(line, "ERROR:")) last_error = std::string(trim(line.substr(6)));
  }
  std::string reason = !last_error.empty() ? last_error : last_line;
  // pip names its temporary directories (/tmp/pip-unpack-k2j3h4): they differ run by run.
  for (size_t at = reason.find("/pip-"); at != std::string::npos; at = reason.find("/pip-", at)) {
    size_t begin = reason.rfind(' ', at);
    begin = begin == std::string::npos ? 0 : begin + 1;
    size_t end = reason.find_first_of(" '\"", at);
    if (end == std::string::npos) end = reason.size();
    reason.replace(begin, end - begin, "<pip temporary directory>");
    at = begin + 26;
  }
  if (outcome.timed_out) reason = "timed out" + (reason.empty() ? "" : ": " + reason);
  if (reason.empty()) reason = fmt::format("exit code {}", outcome.exit_code);
  return "pip: " + reason;
}

struct Listing {
  std::vector<std::string> versions;  // newest first
  std::optional<std::string> failure;
};

Listing list_versions(const Pip& pip, const std::string& package, const IndexPlatform& platform) {
  auto argv = pip.base({"index", "versions", package});
  pip.add_target(argv, platform);
  Listing listing;
  auto run = run_child(argv, true, {}, 300);
  if (!run) {
    listing.failure = run.error().what;
    return listing;
  }
  if (run->exit_code != 0) {
    listing.failure = pip_reason(*run);
    return listing;
  }
  for (auto line : split(run->out, '\n')) {
    line = trim(line);
    if (!starts_with(line, "Available versions:")) continue;
    for (auto v : split(line.substr(19), ',')) {
      v = trim(v);
      if (!v.empty()) listing.versions.emplace_back(v);
    }
  }
  if (listing.versions.empty()) listing.failure = "pip listed no versions";
  std::stable_sort(
      listing.versions.begin(), listing.versions.end(),
      [](const std::string& a, const std::string& b) { return compare_versions(a, b) > 0; });
  return listing;
}

struct Resolved {
  std::string url, filename, sha256;
};

Result<Resolved> resolve_wheel(const Pip& pip, const IndexWorkItem& item,
                               const IndexPlatform& platform, const std::string& scratch) {
  auto argv = pip.base({"install", "--dry-run", "--ignore-installed", "--no-deps", "--quiet",
                        "--report", "-", "--target", scratch});
  pip.add_target(argv, platform);
  argv.push_back(item.package + "==" + item.version);
  auto run = run_child(argv, true, {}, 600);
  if (!run) return run.error();
  if (run->exit_code != 0) return make_error(pip_reason(*run));
  auto j = nlohmann::json::parse(run->out, nullptr, false);
  if (j.is_discarded() || !j.contains("install") || !j["install"].is_array() ||
      j["install"].empty())
    return make_error("pip's --report is not the expected JSON");
  const auto& info = j["install"][0]["download_info"];
  Resolved r;
  if (info.contains("url") && info["url"].is_string()) r.url = info["url"].get<std::string>();
  r.filename = r.url.substr(r.url.rfind('/') + 1);
  if (auto hash = r.filename.find('#'); hash != std::string::npos) r.filename.resize(hash);
  if (info.contains("archive_info") && info["archive_info"].contains("hashes") &&
      info["archive_info"]["hashes"].contains("sha256"))
    r.sha256 = info["archive_info"]["hashes"]["sha256"].get<std::string>();
  if (!ends_with(r.filename, ".whl"))
    return make_error(fmt::format("pip chose '{}', not a wheel", r.filename));
  return r;
}

Result<std::string> download_wheel(const Pip& pip, const IndexWorkItem& item,
                                   const IndexPlatform& platform, const std::string& dir) {
  auto argv = pip.base({"download", "--no-deps", "--quiet", "-d", dir});
  pip.add_target(argv, platform);
  argv.push_back(item.package + "==" + item.version);
  auto run = run_child(argv, true, {}, 3600);
  if (!run) return run.error();
  if (run->exit_code != 0) return make_error(pip_reason(*run));
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".whl") return entry.path().string();
  return make_error("pip reported success but left no wheel in " + dir);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

std::string utc_date_today() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

Result<std::pair<size_t, size_t>> parse_shard(std::string_view text) {
  auto parts = split(trim(text), '/');
  std::optional<uint64_t> k, n;
  if (parts.size() == 2) {
    k = parse_uint(trim(parts[0]));
    n = parse_uint(trim(parts[1]));
  }
  if (!k || !n || *n == 0 || *k == 0 || *k > *n || *n > 100000)
    return make_error(fmt::format("--shard '{}': expected K/N with 1 <= K <= N", text));
  return std::pair<size_t, size_t>(*k, *n);
}

Result<IndexBuildResult> build_wheel_index(const IndexBuildOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  if (options.shard_count == 0 || options.shard_index >= options.shard_count)
    return make_error(
        fmt::format("shard {} of {} does not exist", options.shard_index + 1, options.shard_count));
  if (options.packages.empty()) return make_error("no package to index");
  if (options.cache_dir.empty()) return make_error("no cache directory");
  std::error_code ec;
  fs::create_directories(options.cache_dir, ec);
  if (ec)
    return make_error(fmt::format("cannot create the cache directory: {}", ec.message()))
        .in_file(options.cache_dir);
  // The interpreter itself, not a shim on PATH: pyenv's pip shim rehashes after every call and
  // fails ("cannot rehash") when several run at once.
  IndexBuildOptions resolved_options = options;
  {
    auto check = run_child(
        {options.python, "-c", "import sys, pip; print(sys.executable); print(pip.__version__)"},
        true, {}, 60);
    if (!check || check->exit_code != 0)
      return make_error(
          fmt::format("'{} -m pip' does not run: {}; pip does the downloads "
                      "(--python PATH names another interpreter)",
                      options.python, check ? pip_reason(*check) : check.error().what));
    auto lines = split(check->out, '\n');
    if (!lines.empty() && !trim(lines[0]).empty())
      resolved_options.python = std::string(trim(lines[0]));
  }
  Pip pip{resolved_options};
  std::vector<IndexPlatform> platforms =
      options.platforms.empty() ? default_index_platforms() : options.platforms;

  IndexBuildResult result;
  WheelIndex& index = result.index;
  for (const auto& p : platforms) index.platforms.push_back(p.name);
  std::map<std::string, const WheelRecord*> resumed;  // sha256 -> record
  if (options.resume) {
    for (const auto& w : options.resume->wheels)
      if (!w.sha256.empty() && w.errors.empty()) resumed[w.sha256] = &w;
    index.wheels = options.resume->wheels;
    index.failures = options.resume->failures;
    for (const auto& p : options.resume->platforms) index.platforms.push_back(p);
  }
  // Failures of the items rebuilt now replace the old ones.
  std::vector<IndexFailure> new_failures;

  // 1. List and resolve: pip lists releases (sdist-only ones too), so each candidate is resolved
  // to a wheel for the platform, newest first, until --last N have one. Every shard does the
  // same, so the item list (and the partition) is the same.
  struct Pair {
    const PackageRequest* request;
    const IndexPlatform* platform;
    std::vector<std::pair<IndexWorkItem, Resolved>> found;
    std::vector<IndexFailure> failures;  // resolve failures other than "no wheel"
    std::optional<std::string> list_failure;
    size_t without_wheel = 0;  // candidates pip found no wheel of, for this platform
    size_t candidates = 0;
  };
  std::vector<Pair> pairs;
  for (const auto& request : options.packages)
    for (const auto& platform : platforms) pairs.push_back({&request, &platform, {}, {}, {}, 0, 0});
  {
    std::atomic<size_t> next_pair{0};
    std::mutex progress_mu;
    auto lister = [&](unsigned worker) {
      for (;;) {
        size_t i = next_pair.fetch_add(1);
        if (i >= pairs.size()) return;
        Pair& pair = pairs[i];
        const PackageRequest& request = *pair.request;
        std::string package = normalize_package_name(request.name);
        if (options.progress) {
          std::lock_guard lock(progress_mu);
          options.progress(
              {0, 0, 0, fmt::format("listing {} for {}", package, pair.platform->name)});
        }
        Listing listing = list_versions(pip, package, *pair.platform);
        if (listing.failure) {
          pair.list_failure = *listing.failure;
          continue;
        }
        bool wants_pre = is_prerelease(request.specifier);
        std::string scratch = fmt::format("{}/.list-{}-{}", options.cache_dir, ::getpid(), worker);
        for (const auto& v : listing.versions) {
          if (!matches(v, request.specifier) || (is_prerelease(v) && !wants_pre)) continue;
          if (options.last && pair.found.size() >= *options.last) break;
          // A package without wheels for this platform: stop after a few misses past N.
          if (options.last && pair.found.empty() && pair.without_wheel >= *options.last + 8) break;
          ++pair.candidates;
          IndexWorkItem item{package, v, pair.platform->name};
          if (options.progress) {
            std::lock_guard lock(progress_mu);
            options.progress(
                {0, 0, 0, fmt::format("resolving {} {} for {}", package, v, pair.platform->name)});
          }
          auto resolved = resolve_wheel(pip, item, *pair.platform, scratch + "/target");
          std::error_code rec;
          fs::remove_all(scratch, rec);
          if (resolved) {
            pair.found.push_back({item, *resolved});
          } else if (resolved.error().what.find("No matching distribution found") !=
                     std::string::npos) {
            ++pair.without_wheel;  // an sdist only, or no wheel for this platform
          } else {
            pair.failures.push_back({package, v, pair.platform->name, "resolve",
                                     fmt::format("{} {} for {}: {}", package, v,
                                                 pair.platform->name, resolved.error().what)});
          }
        }
      }
    };
    unsigned list_jobs = std::max(1u, std::min<unsigned>(options.jobs, 16));
    std::vector<std::thread> listers;
    for (unsigned w = 0; w < list_jobs; ++w) listers.emplace_back(lister, w);
    for (auto& t : listers) t.join();
  }
  std::vector<std::pair<IndexWorkItem, Resolved>> items;
  std::vector<IndexFailure> listing_failures;
  std::vector<std::string> platform_names;
  for (const auto& p : platforms) platform_names.push_back(p.name);
  for (const auto& request : options.packages) {
    std::vector<IndexFailure> per_platform;
    size_t list_failed = 0, without_wheels = 0, with_resolve_failures = 0;
    std::string pip_said;
    size_t candidates = 0;
    for (auto& pair : pairs) {
      if (pair.request != &request) continue;
      with_resolve_failures += !pair.failures.empty();
      for (auto& f : pair.failures) listing_failures.push_back(std::move(f));
      for (auto& found : pair.found) items.push_back(std::move(found));
      if (pair.list_failure) {
        ++list_failed;
        pip_said = *pair.list_failure;
        per_platform.push_back({request.name, "", pair.platform->name, "list",
                                fmt::format("no release of {} for {}: {}", request.name,
                                            pair.platform->name, *pair.list_failure)});
      } else if (pair.found.empty() && pair.failures.empty()) {
        if (pair.candidates > 0) ++without_wheels;
        candidates = std::max(candidates, pair.candidates);
        std::string what =
            pair.candidates == 0
                ? fmt::format("no release of {} matches '{}' for {}", request.name,
                              request.specifier, pair.platform->name)
                : fmt::format(
                      "no binary wheel of {} for {} in its {} newest release{} (only "
                      "sdists or wheels for other platforms)",
                      request.name, pair.platform->name, pair.candidates,
                      pair.candidates == 1 ? "" : "s");
        per_platform.push_back({request.name, "", pair.platform->name, "list", what});
      }
    }
    // Nothing for any platform: said once, for the whole package.
    if (platforms.size() > 1 && list_failed == platforms.size()) {
      listing_failures.push_back(
          {request.name, "", "", "list",
           fmt::format("no release of {} for any platform ({}): {}", request.name,
                       fmt::join(platform_names, ", "), pip_said)});
    } else if (platforms.size() > 1 && list_failed + without_wheels == platforms.size() &&
               without_wheels > 0 && with_resolve_failures == 0) {
      listing_failures.push_back(
          {request.name, "", "", "list",
           fmt::format("no binary wheel of {} for any platform ({}) in its {} newest release{} "
                       "(only sdists or wheels for other platforms)",
                       request.name, fmt::join(platform_names, ", "), candidates,
                       candidates == 1 ? "" : "s")});
    } else {
      for (auto& f : per_platform) listing_failures.push_back(std::move(f));
    }
  }
  std::sort(items.begin(), items.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  items.erase(std::unique(items.begin(), items.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; }),
              items.end());
  std::vector<std::pair<IndexWorkItem, Resolved>> mine;
  for (size_t i = 0; i < items.size(); ++i)
    if (i % options.shard_count == options.shard_index) mine.push_back(items[i]);
  // Listing failures belong to shard 1 only, so that merged shards hold each once.
  if (options.shard_index == 0)
    for (auto& f : listing_failures) new_failures.push_back(std::move(f));
  result.stats.items = mine.size();

  // 2. Download and scan: a few items in flight.
  std::mutex mu;
  std::atomic<size_t> next{0};
  size_t done = 0;
  std::vector<WheelRecord> new_wheels;
  std::set<std::string> hashes_this_run;
  auto last_checkpoint = std::chrono::steady_clock::now();
  auto report = [&](const std::string& what) {
    if (options.progress)
      options.progress({done, mine.size(), result.stats.bytes_downloaded, what});
  };
  auto work = [&](unsigned worker) {
    std::error_code wec;
    for (;;) {
      size_t i = next.fetch_add(1);
      if (i >= mine.size()) return;
      const IndexWorkItem& item = mine[i].first;
      const Resolved& resolved = mine[i].second;
      const IndexPlatform* platform = nullptr;
      for (const auto& p : platforms)
        if (p.name == item.platform) platform = &p;
      std::string label = fmt::format("{} {} {}", item.package, item.version, item.platform);
      std::string scratch =
          fmt::format("{}/.work-{}-{}-{}", options.cache_dir, ::getpid(), worker, i);
      fs::create_directories(scratch, wec);
      auto fail = [&](const std::string& stage, const std::string& message) {
        std::lock_guard lock(mu);
        new_failures.push_back({item.package, item.version, item.platform, stage, message});
      };
      bool reuse = false;
      {
        std::lock_guard lock(mu);
        if (!resolved.sha256.empty() && resumed.count(resolved.sha256)) {
          reuse = true;
          ++result.stats.wheels_reused;
        } else if (!resolved.sha256.empty() && hashes_this_run.count(resolved.sha256)) {
          reuse = true;  // a pure wheel met on another platform: indexed once
        } else if (!resolved.sha256.empty()) {
          hashes_this_run.insert(resolved.sha256);
        }
        report(label + (reuse ? ": already indexed" : ": downloading " + resolved.filename));
      }
      if (!reuse) {
        auto t0 = std::chrono::steady_clock::now();
        std::string kept = options.cache_dir + "/" + resolved.filename;
        Result<std::string> wheel = fs::exists(kept)
                                        ? Result<std::string>(kept)
                                        : download_wheel(pip, item, *platform, scratch);
        double dl = seconds_since(t0);
        if (!wheel) {
          fail("download", fmt::format("{} {} for {}: download failed: {}", item.package,
                                       item.version, item.platform, wheel.error().what));
        } else {
          uint64_t bytes = fs::file_size(*wheel, wec);
          {
            std::lock_guard lock(mu);
            result.stats.seconds_download += dl;
            if (*wheel != kept) result.stats.bytes_downloaded += wec ? 0 : bytes;
            report(label + ": scanning " + resolved.filename);
          }
          auto t1 = std::chrono::steady_clock::now();
          auto record = index_wheel(*wheel, options.inspect);
          double scan_s = seconds_since(t1);
          if (!record) {
            fail("scan", record.error().to_string());
          } else {
            if (!resolved.sha256.empty() && !record->sha256.empty() &&
                record->sha256 != resolved.sha256)
              record->errors.push_back(fmt::format("sha256 {} differs from the index's {}",
                                                   record->sha256, resolved.sha256));
            std::lock_guard lock(mu);
            result.stats.seconds_scan += scan_s;
            if (!record->errors.empty()) {
              new_failures.push_back(
                  {item.package, item.version, item.platform, "scan",
                   fmt::format("{}: {}", record->filename, record->errors.front())});
            }
            ++result.stats.wheels_indexed;
            new_wheels.push_back(std::move(*record));
            if (options.checkpoint &&
                seconds_since(last_checkpoint) >= options.checkpoint_seconds) {
              WheelIndex partial = index;  // resume's wheels and failures
              for (const auto& w : new_wheels) partial.wheels.push_back(w);
              partial.built = utc_date_today();
              partial.tool_version = SMCOMPAT_VERSION;
              normalize(partial);
              options.checkpoint(partial);
              last_checkpoint = std::chrono::steady_clock::now();
            }
          }
          if (options.keep && *wheel != kept) {
            fs::rename(*wheel, kept, wec);
          } else if (!options.keep) {
            fs::remove(*wheel, wec);
          }
        }
      }
      fs::remove_all(scratch, wec);
      std::lock_guard lock(mu);
      ++done;
      report(label + ": done");
    }
  };
  unsigned jobs = std::max(1u, std::min<unsigned>(options.jobs, 16));
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < jobs; ++w) threads.emplace_back(work, w);
  for (auto& t : threads) t.join();

  // 3. The index: old wheels and failures, minus the failures of the items redone now.
  std::set<std::tuple<std::string, std::string, std::string>> redone;
  for (const auto& [item, wheel] : mine) redone.insert({item.package, item.version, item.platform});
  std::set<std::string> requested;
  for (const auto& r : options.packages) requested.insert(normalize_package_name(r.name));
  std::vector<IndexFailure> kept_failures;
  for (auto& f : index.failures) {
    // Every shard lists every requested package, so each drops their old list failures (shard 1
    // records the new ones).
    // Listing resolves every candidate, so old list and resolve failures of a requested package
    // are replaced by what this run found.
    bool replaced = redone.count({normalize_package_name(f.package), f.version, f.platform}) ||
                    ((f.stage == "list" || f.stage == "resolve") &&
                     requested.count(normalize_package_name(f.package)));
    if (!replaced) kept_failures.push_back(std::move(f));
  }
  index.failures = std::move(kept_failures);
  result.stats.failures = new_failures.size();
  for (auto& f : new_failures) index.failures.push_back(std::move(f));
  for (auto& w : new_wheels) index.wheels.push_back(std::move(w));
  index.built = utc_date_today();
  index.tool_version = SMCOMPAT_VERSION;
  if (index.rebuild.empty()) index.rebuild = "scripts/refresh-wheel-index.sh";
  normalize(index);
  result.stats.seconds_total = seconds_since(started);
  return result;
}

}  // namespace smcompat
