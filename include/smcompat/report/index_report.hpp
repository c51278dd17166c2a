// Rendering of the wheel index's answers (index/advise.hpp): `smcompat advise`, `smcompat index
// query` and `smcompat index diff`, each as aligned text for people (colour through Style),
// GitHub-flavoured Markdown and versioned JSON; and `smcompat index report` (index/overview.hpp)
// as one HTML page. Printers only format: every verdict, pin and note was decided by advise(),
// query_index(), diff_records() or index_overview().
//
// JSON documents (the envelope of json_document.hpp: schema, tool_version, argv, then):
//
// smcompat.advise/1
//   index:    {source, built, wheels, rebuild}       source is "built-in" or the --index path
//   target:   {label, cc, gpu|null, driver_cuda|null, driver|null}
//   machine:  "x86_64" | "aarch64" | ...
//   python:   the --python argument or null; site_packages: [dirs read] (empty without --python)
//   packages: [{package, machine, indexed, device_code, installed_version|null,
//               recommended|null, install_command ("" when none), newest_native|null,
//               first_native|null, first_native_is_oldest_indexed, jit_only: [versions],
//               notes: [sentences], releases: [release]}]
//   release:  {version, filename, cuda, torch_pin, verdict}
//   verdict:  {fit ("native" ... "no-image", fit.hpp's names), has_device_code, summary,
//              variant|null, driver_cuda_needed|null,
//              files: [{path, fit, specialized_elsewhere, summary}]}
//
// smcompat.index-query/1
//   index, target, machine (null when all machines) as above; packages: [names asked] (empty:
//   all); rows: [{package, version, machine, filename, cuda, verdict}]
//
// smcompat.index-diff/1
//   old, new: the arguments as given; diffs: [{package, machine, old_version, new_version,
//   old_filename, new_filename, old_cuda, new_cuda, added_sass, dropped_sass, added_ptx,
//   dropped_ptx, added_files, dropped_files, dropped_any}]; dropped_any (over all diffs).
//   A version or file name is "" on the side that has no record for the (package, machine).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/index/advise.hpp"
#include "smcompat/index/build.hpp"
#include "smcompat/index/overview.hpp"
#include "smcompat/util/table.hpp"

namespace smcompat {

inline constexpr const char* kAdviseSchema = "smcompat.advise/1";
inline constexpr const char* kIndexQuerySchema = "smcompat.index-query/1";
inline constexpr const char* kIndexDiffSchema = "smcompat.index-diff/1";

/// Where an answer came from and what it was asked for: the printers' header.
struct IndexAnswerContext {
  std::string index_source = "built-in";  ///< "built-in" or the --index path
  std::string index_built;                ///< WheelIndex::built ("" when unknown)
  size_t index_wheels = 0;
  std::string index_rebuild;               ///< WheelIndex::rebuild
  std::optional<Target> target;            ///< advise and query
  std::string machine;                     ///< the wheel platform answered for ("" = all)
  std::string python;                      ///< advise --python, as given
  std::vector<std::string> site_packages;  ///< directories read for installed packages
  std::vector<std::string> argv;
  bool verbose = false;  ///< text/Markdown: every release and every file verdict
};

/// Fills the index fields of a context.
IndexAnswerContext index_answer_context(const WheelIndex& index, const std::string& source);

/// advise: a summary table (package, installed, recommended, runs natively, verdict of the
/// recommended release), then per package the pip command and the notes; -v adds every release.
std::string render_advise_text(const std::vector<PackageAdvice>& advice,
                               const IndexAnswerContext& context, const Style& style);
std::string render_advise_markdown(const std::vector<PackageAdvice>& advice,
                                   const IndexAnswerContext& context);
nlohmann::json advise_to_json(const std::vector<PackageAdvice>& advice,
                              const IndexAnswerContext& context);

/// query: one table of package, version, machine, verdict, CUDA and wheel; -v adds the file
/// verdicts under each row.
std::string render_query_text(const std::vector<QueryRow>& rows, const IndexAnswerContext& context,
                              const std::vector<std::string>& packages, const Style& style);
std::string render_query_markdown(const std::vector<QueryRow>& rows,
                                  const IndexAnswerContext& context,
                                  const std::vector<std::string>& packages);
nlohmann::json query_to_json(const std::vector<QueryRow>& rows, const IndexAnswerContext& context,
                             const std::vector<std::string>& packages);

/// diff: per (package, machine) the versions compared and what was added or dropped; dropped
/// targets in red. `old_arg`/`new_arg` are the arguments as the user gave them.
std::string render_diff_text(const std::vector<WheelDiff>& diffs, const std::string& old_arg,
                             const std::string& new_arg, const Style& style);
std::string render_diff_markdown(const std::vector<WheelDiff>& diffs, const std::string& old_arg,
                                 const std::string& new_arg);
nlohmann::json diff_to_json(const std::vector<WheelDiff>& diffs, const std::string& old_arg,
                            const std::string& new_arg, const std::vector<std::string>& argv);

/// `index report --html`: one self-contained HTML page (inline CSS and script, nothing fetched)
/// with a table of packages x GPUs; a cell holds the verdict of the newest release for the GPU's
/// machine, where it runs natively, its JIT-only releases and advise's pip line. Sortable by any
/// column and searchable by package name (`#q=TEXT&sort=N&order=desc` in the address opens it
/// so). Uses the context's index facts and rebuild command.
std::string render_index_html(const IndexOverview& overview, const IndexAnswerContext& context);

/// A wheel verdict as JSON (the "verdict" object above).
nlohmann::json wheel_verdict_json(const WheelVerdict& verdict);

/// `index build`'s closing lines on stderr: the counts and times of the run, then the failures
/// it added (at most 40, then how many more).
std::string render_index_build_summary(const IndexBuildResult& built,
                                       const IndexBuildOptions& options,
                                       const std::vector<IndexFailure>& added_failures);

/// One line of `index build`'s progress: a terminal line (rewritten in place) or, for a log, the
/// finished item ("" when this update is not one to log).
std::string render_index_build_progress(const IndexBuildProgress& progress, bool terminal);

}  // namespace smcompat
