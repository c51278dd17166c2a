// `smcompat index build PKG[==VER|SPEC]...`: pip fetches each release's wheels for the GPU
// machines' platforms and each is scanned into the wheel index (index/build.hpp); failures are
// recorded and the build goes on. `smcompat index merge A.json B.json... -o OUT.json` joins
// shards or an old and a new index. docs/index.md. Exit codes: 0 written, 1 written but some
// package, release or wheel failed (listed on stderr and in the index), 2 usage or I/O error.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "commands.hpp"
#include "smcompat/index/build.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_text.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::cli {

namespace {

struct BuildArgs {
  std::vector<std::string> packages;
  size_t last = 0;
  std::vector<std::string> platforms;
  std::string output;
  std::string resume;
  std::string shard;
  std::string cache;
  bool keep = false;
  std::string python = "python3";
  std::string python_version = "3.12";
  std::string index_url;
  std::vector<std::string> find_links;
  std::vector<std::string> pip_args;
  unsigned jobs = 3;
  bool quiet = false;
};

struct AddArgs {
  std::vector<std::string> wheels;
  std::string output;
};

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string output;
};

std::string default_cache() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/smcompat/wheels";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/smcompat/wheels";
  return "/tmp/smcompat-wheels";
}

// Writes the index next to `path` and renames it into place, so a reader never sees half a file.
bool write_index(const WheelIndex& index, const std::string& path, const char* command) {
  std::string text = json_text(to_json(index), 1) + "\n";
  if (path.empty() || path == "-") {
    fmt::print("{}", text);
    return true;
  }
  if (auto err = write_file_atomically(path, text)) {
    fmt::print(stderr, "smcompat {}: {}\n", command, err->to_string());
    return false;
  }
  return true;
}

int run_build(const BuildArgs& a, Context& ctx) {
  (void)ctx;
  IndexBuildOptions opt;
  for (const auto& text : a.packages) {
    auto request = PackageRequest::parse(text);
    if (!request) {
      fmt::print(stderr, "smcompat index build: {}\n", request.error().what);
      return kExitError;
    }
    opt.packages.push_back(*request);
  }
  for (const auto& name : a.platforms) {
    auto platform = find_index_platform(name);
    if (!platform) {
      fmt::print(stderr, "smcompat index build: --platform: {}\n", platform.error().what);
      return kExitError;
    }
    opt.platforms.push_back(*platform);
  }
  if (a.last > 0) opt.last = a.last;
  if (!a.shard.empty()) {
    auto shard = parse_shard(a.shard);
    if (!shard) {
      fmt::print(stderr, "smcompat index build: {}\n", shard.error().what);
      return kExitError;
    }
    opt.shard_index = shard->first - 1;
    opt.shard_count = shard->second;
  }
  opt.python = a.python;
  opt.python_version = a.python_version;
  if (!a.index_url.empty()) opt.pip_args.insert(opt.pip_args.end(), {"--index-url", a.index_url});
  for (const auto& f : a.find_links) opt.pip_args.insert(opt.pip_args.end(), {"--find-links", f});
  opt.pip_args.insert(opt.pip_args.end(), a.pip_args.begin(), a.pip_args.end());
  opt.cache_dir = a.cache.empty() ? default_cache() : a.cache;
  opt.keep = a.keep;
  opt.jobs = a.jobs;

  // Re-running resumes: the output file (a checkpoint of an interrupted run, or the last run)
  // and --resume FILE both say which wheels are done.
  std::vector<std::string> resume_paths;
  if (!a.resume.empty()) resume_paths.push_back(a.resume);
  if (!a.output.empty() && a.output != "-" && std::filesystem::exists(a.output) &&
      a.output != a.resume)
    resume_paths.push_back(a.output);
  std::optional<WheelIndex> resume;
  if (!resume_paths.empty()) {
    std::vector<WheelIndex> parts;
    for (const auto& path : resume_paths) {
      auto old = read_wheel_index(path);
      if (!old) {
        fmt::print(stderr, "smcompat index build: cannot resume: {}\n", old.error().to_string());
        return kExitError;
      }
      parts.push_back(std::move(*old));
    }
    resume = parts.size() == 1 ? std::move(parts.front()) : merge_indexes(std::move(parts));
    opt.resume = &*resume;
  }

  const bool tty = !a.quiet && isatty(fileno(stderr));
  if (!a.quiet) {
    opt.progress = [tty](const IndexBuildProgress& p) {
      if (tty) {
        std::string line =
            p.items_total ? fmt::format("[{}/{}] {} ({} downloaded)", p.items_done, p.items_total,
                                        p.current, human_bytes(p.bytes_downloaded))
                          : p.current;
        if (line.size() > 118) line = line.substr(0, 117) + "…";
        fmt::print(stderr, "\r\033[K{}", line);
      } else if (ends_with(p.current, ": done")) {
        fmt::print(stderr, "smcompat index build: [{}/{}] {}\n", p.items_done, p.items_total,
                   p.current.substr(0, p.current.size() - 6));
      }
    };
  }
  if (!a.output.empty() && a.output != "-")
    opt.checkpoint = [&a](const WheelIndex& partial) {
      write_index(partial, a.output, "index build");  // a later run resumes from it
    };
  auto built = build_wheel_index(opt);
  if (tty) fmt::print(stderr, "\r\033[K");
  if (!built) {
    fmt::print(stderr, "smcompat index build: {}\n", built.error().to_string());
    return kExitError;
  }
  const auto& s = built->stats;
  if (!write_index(built->index, a.output, "index build")) return kExitError;
  double minutes = s.seconds_total / 60.0;
  fmt::print(stderr,
             "smcompat index build: {} work items{}: {} wheels indexed, {} already indexed, "
             "{} failures; {} downloaded in {:.0f} s (download {:.0f} s, scan {:.0f} s across "
             "{} jobs){}\n",
             s.items,
             opt.shard_count > 1
                 ? fmt::format(" (shard {}/{})", opt.shard_index + 1, opt.shard_count)
                 : "",
             s.wheels_indexed, s.wheels_reused, s.failures, human_bytes(s.bytes_downloaded),
             s.seconds_total, s.seconds_download, s.seconds_scan, opt.jobs,
             minutes > 0 && s.wheels_indexed
                 ? fmt::format("; {:.1f} wheels/min", s.wheels_indexed / minutes)
                 : "");
  size_t shown = 0;
  for (const auto& f : built->index.failures) {
    bool new_now = true;
    if (resume)
      for (const auto& old : resume->failures)
        if (old == f) new_now = false;
    if (!new_now) continue;
    if (++shown > 40) continue;
    fmt::print(stderr, "  {} [{}] {}\n", f.stage, f.platform.empty() ? "all" : f.platform,
               f.message);
  }
  if (shown > 40) fmt::print(stderr, "  … and {} more (\"failures\" in the index)\n", shown - 40);
  if (!a.output.empty() && a.output != "-")
    fmt::print(stderr, "smcompat index build: wrote {} ({} wheels)\n", a.output,
               built->index.wheels.size());
  return shown > 0 ? kExitFindings : kExitOk;
}

int run_merge(const MergeArgs& a) {
  std::vector<WheelIndex> parts;
  for (const auto& path : a.inputs) {
    auto part = read_wheel_index(path);
    if (!part) {
      fmt::print(stderr, "smcompat index merge: {}\n", part.error().to_string());
      return kExitError;
    }
    parts.push_back(std::move(*part));
  }
  WheelIndex merged = merge_indexes(std::move(parts));
  if (!write_index(merged, a.output, "index merge")) return kExitError;
  if (!a.output.empty() && a.output != "-")
    fmt::print(stderr, "smcompat index merge: wrote {} ({} wheels, {} failures) from {} files\n",
               a.output, merged.wheels.size(), merged.failures.size(), a.inputs.size());
  return kExitOk;
}

// Local wheel files (a maintainer's dist/*.whl, a wheel cache) into an index, one after the other
// on one core; an existing -o is kept and the new records merged into it.
int run_add(const AddArgs& a) {
  WheelIndex added;
  int rc = kExitOk;
  auto started = std::chrono::steady_clock::now();
  uint64_t bytes = 0;
  for (const auto& path : a.wheels) {
    auto record = index_wheel(path);
    if (!record) {
      fmt::print(stderr, "smcompat index add: {}\n", record.error().to_string());
      rc = kExitFindings;
      continue;
    }
    for (const auto& e : record->errors) {
      fmt::print(stderr, "smcompat index add: {}: {}\n", path, e);
      rc = kExitFindings;
    }
    bytes += record->size;
    added.wheels.push_back(std::move(*record));
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::vector<WheelIndex> parts;
  if (!a.output.empty() && a.output != "-" && std::filesystem::exists(a.output)) {
    auto old = read_wheel_index(a.output);
    if (!old) {
      fmt::print(stderr, "smcompat index add: {}\n", old.error().to_string());
      return kExitError;
    }
    parts.push_back(std::move(*old));
  }
  added.built = utc_date_today();
  added.tool_version = SMCOMPAT_VERSION;
  parts.push_back(std::move(added));
  WheelIndex merged = merge_indexes(std::move(parts));
  if (!write_index(merged, a.output, "index add")) return kExitError;
  fmt::print(stderr,
             "smcompat index add: {} wheels, {} scanned in {:.1f} s on one core ({:.2f} GB/min)\n",
             a.wheels.size(), human_bytes(bytes), seconds,
             seconds > 0 ? bytes / 1e9 / (seconds / 60) : 0.0);
  return rc;
}

}  // namespace

void register_index_build(CLI::App& app, Context& ctx) {
  CLI::App& index = index_command(app);
  auto build_args = std::make_shared<BuildArgs>();
  auto* build = index.add_subcommand(
      "build", "Download each release's wheels with pip and record the GPU code each carries");
  build
      ->add_option(
          "packages", build_args->packages,
          "Packages: NAME, NAME==VERSION or NAME with a PEP 440 specifier (\"torch>=2.7\")")
      ->required();
  build->add_option("--last", build_args->last, "The newest N releases of each package");
  build->add_option("--platform", build_args->platforms,
                    "linux_x86_64 or linux_aarch64 (default: both)");
  build->add_option("-o,--output", build_args->output,
                    "Index file to write (default: stdout); an existing one is resumed");
  build->add_option("--resume", build_args->resume, "Reuse the wheels of this index (by sha256)");
  build->add_option("--shard", build_args->shard,
                    "K/N: only the K-th of N deterministic parts of the work (merge them after)");
  build->add_option("--cache", build_args->cache,
                    "Where wheels are downloaded (default ~/.cache/smcompat/wheels)");
  build->add_flag("--keep", build_args->keep, "Keep the wheels after scanning");
  build->add_option("--python", build_args->python, "The interpreter whose pip downloads");
  build->add_option("--python-version", build_args->python_version,
                    "The Python the wheels are chosen for (default 3.12)");
  build->add_option("--index-url", build_args->index_url, "pip --index-url");
  build->add_option("--find-links", build_args->find_links, "pip --find-links");
  build->add_option("--pip-arg", build_args->pip_args, "Another option passed to pip")
      ->allow_extra_args(false);
  build->add_option("-j,--jobs", build_args->jobs, "Wheels in flight (default 3)")
      ->check(CLI::Range(1, 16));
  build->add_flag("-q,--quiet", build_args->quiet, "No progress on stderr");
  build->callback([build_args, &ctx] { ctx.exit_code = run_build(*build_args, ctx); });

  auto add_args = std::make_shared<AddArgs>();
  auto* add = index.add_subcommand("add", "Record local wheel files in an index (no download)");
  add->add_option("wheels", add_args->wheels, "Wheel files")->required();
  add->add_option("-o,--output", add_args->output,
                  "Index file to write (default: stdout); an existing one is kept and merged");
  add->callback([add_args, &ctx] { ctx.exit_code = run_add(*add_args); });

  auto merge_args = std::make_shared<MergeArgs>();
  auto* merge = index.add_subcommand("merge", "Merge index files (shards, or old and new)");
  merge->add_option("inputs", merge_args->inputs, "Index files")->required();
  merge->add_option("-o,--output", merge_args->output, "Index file to write (default: stdout)");
  merge->callback([merge_args, &ctx] { ctx.exit_code = run_merge(*merge_args); });
}

}  // namespace smcompat::cli
