// `smcompat index build PKG[==VER|SPEC]...`: pip fetches each release's wheels for the GPU
// machines' platforms and each is scanned into the wheel index (index/build.hpp); failures are
// recorded and the build goes on. `smcompat index merge A.json B.json... -o OUT.json` joins
// shards or an old and a new index. docs/index.md. Exit codes: 0 written, 1 written but some
// package, release or wheel failed (listed on stderr and in the index), 2 usage or I/O error.
#include <fmt/format.h>
#include <unistd.h>

#include "commands.hpp"
#include "smcompat/index/build.hpp"
#include "smcompat/report/index_report.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_stream.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::cli {

namespace {

struct BuildArgs : IndexBuildRequest {
  bool quiet = false;
};

struct FilesArgs {  // index add WHEEL... / index merge INDEX...
  std::vector<std::string> inputs;
  std::string output;
};

// Writes the index wheel by wheel, into a temporary next to `path` renamed into place, so a
// reader never sees half a file.
int write_index(Context& ctx, const WheelIndex& index, const std::string& path,
                const char* command) {
  auto describe = [&](JsonWriter& json) { write_json(json, index); };
  if (path.empty() || path == "-") {
    StdioSink out(stdout);
    write_json_document(out, 1, describe);
    return kExitOk;
  }
  AtomicFileWriter out(path);
  write_json_document(out, 1, describe);
  if (auto err = out.commit()) return ctx.fail(command, err->to_string());
  return kExitOk;
}

int run_build(Context& ctx, const BuildArgs& a) {
  std::vector<std::string> resume_paths;
  auto options = index_build_options(a, &resume_paths);
  if (!options) return ctx.fail("index build", options.error().what);
  IndexBuildOptions& opt = *options;
  auto resume = read_merged_index(resume_paths);
  if (!resume) return ctx.fail("index build", "cannot resume: " + resume.error().to_string());
  if (*resume) opt.resume = &**resume;

  const bool tty = !a.quiet && isatty(fileno(stderr));
  if (!a.quiet)
    opt.progress = [tty](const IndexBuildProgress& p) {
      fmt::print(stderr, "{}", render_index_build_progress(p, tty));
    };
  if (!a.output.empty() && a.output != "-")
    opt.checkpoint = [&ctx, &a](const WheelIndex& partial) {
      write_index(ctx, partial, a.output, "index build");  // a later run resumes from it
    };
  auto built = build_wheel_index(opt);
  if (tty) fmt::print(stderr, "\r\033[K");
  if (!built) return ctx.fail("index build", built.error().to_string());
  if (int rc = write_index(ctx, built->index, a.output, "index build")) return rc;
  auto added = new_failures(built->index, opt.resume);
  fmt::print(stderr, "{}", render_index_build_summary(*built, opt, added));
  if (!a.output.empty() && a.output != "-")
    fmt::print(stderr, "smcompat index build: wrote {} ({} wheels)\n", a.output,
               built->index.wheels.size());
  return added.empty() ? kExitOk : kExitFindings;
}

int run_merge(Context& ctx, const FilesArgs& a) {
  auto read = read_merged_index(a.inputs);
  if (!read) return ctx.fail("index merge", read.error().to_string());
  WheelIndex merged = read->value_or(WheelIndex{});
  if (int rc = write_index(ctx, merged, a.output, "index merge")) return rc;
  if (!a.output.empty() && a.output != "-")
    fmt::print(stderr, "smcompat index merge: wrote {} ({} wheels, {} failures) from {} files\n",
               a.output, merged.wheels.size(), merged.failures.size(), a.inputs.size());
  return kExitOk;
}

// Local wheel files (a maintainer's dist/*.whl, a wheel cache) into an index, one after the other
// on one core; an existing -o is kept and the new records merged into it.
int run_add(Context& ctx, const FilesArgs& a) {
  auto added = add_wheels(a.inputs, a.output);
  if (!added) return ctx.fail("index add", added.error().to_string());
  for (const auto& p : added->problems) fmt::print(stderr, "smcompat index add: {}\n", p);
  if (int rc = write_index(ctx, added->merged, a.output, "index add")) return rc;
  fmt::print(stderr,
             "smcompat index add: {} wheels, {} scanned in {:.1f} s on one core ({:.2f} GB/min)\n",
             a.inputs.size(), human_bytes(added->bytes), added->seconds,
             added->seconds > 0 ? added->bytes / 1e9 / (added->seconds / 60) : 0.0);
  return added->problems.empty() ? kExitOk : kExitFindings;
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
  build->callback([build_args, &ctx] { ctx.exit_code = run_build(ctx, *build_args); });

  auto add_args = std::make_shared<FilesArgs>();
  auto* add = index.add_subcommand("add", "Record local wheel files in an index (no download)");
  add->add_option("wheels", add_args->inputs, "Wheel files")->required();
  add->add_option("-o,--output", add_args->output,
                  "Index file to write (default: stdout); an existing one is kept and merged");
  add->callback([add_args, &ctx] { ctx.exit_code = run_add(ctx, *add_args); });

  auto merge_args = std::make_shared<FilesArgs>();
  auto* merge = index.add_subcommand("merge", "Merge index files (shards, or old and new)");
  merge->add_option("inputs", merge_args->inputs, "Index files")->required();
  merge->add_option("-o,--output", merge_args->output, "Index file to write (default: stdout)");
  merge->callback([merge_args, &ctx] { ctx.exit_code = run_merge(ctx, *merge_args); });
}

}  // namespace smcompat::cli
