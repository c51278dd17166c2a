// `smcompat index query --gpu NAME [PKG...]`: every indexed wheel judged for a GPU; and
// `smcompat index diff OLD NEW`: what a release added or dropped. OLD and NEW are each a wheel
// file (scanned now with index_wheel()), an index file (all its records) or PKG==VER looked up in
// the index. Library: query_index(), diff_records() (index/advise.hpp); printers:
// report/index_report.hpp. The `index` parent is shared with index_build.cpp (index_command()).
//
// Exit codes: query 0, or 2 for a usage or I/O error; diff 0, 1 with --fail-on dropped when a
// SASS or PTX target was dropped, 2 for a usage or I/O error.
#include <fmt/format.h>

#include <filesystem>

#include "commands.hpp"
#include "options.hpp"
#include "smcompat/index/advise.hpp"
#include "smcompat/report/index_report.hpp"
#include "smcompat/util/json_text.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::cli {

namespace {

struct QueryArgs {
  std::vector<std::string> packages;
  std::string gpu, driver, platform, index;
  bool json = false, markdown = false, verbose = false;
};

struct DiffArgs {
  std::string old_side, new_side, index, fail_on;
  bool json = false, markdown = false;
};

int run_query(Context& ctx, const QueryArgs& q) {
  auto target = resolve_target(q.gpu, q.driver, Catalog::builtin(), "--gpu");
  if (!target) return ctx.fail("index query", target.error().what);
  auto loaded = load_wheel_index(q.index);
  if (!loaded) return ctx.fail("index query", loaded.error().to_string());
  const WheelIndex& index = **loaded;
  auto rows = query_index(index, *target, q.platform, q.packages);
  IndexAnswerContext context = index_answer_context(index, q.index.empty() ? "built-in" : q.index);
  context.target = *target;
  context.machine = q.platform;
  context.argv = ctx.argv;
  context.verbose = q.verbose;
  if (q.json)
    fmt::print("{}\n", json_text(query_to_json(rows, context, q.packages)));
  else if (q.markdown)
    fmt::print("{}", render_query_markdown(rows, context, q.packages));
  else
    fmt::print("{}", render_query_text(rows, context, q.packages, ctx.out_style()));
  return kExitOk;
}

int run_diff(Context& ctx, const DiffArgs& d) {
  auto old_side = read_diff_side(d.old_side, d.index);
  if (!old_side) return ctx.fail("index diff", old_side.error().to_string());
  auto new_side = read_diff_side(d.new_side, d.index);
  if (!new_side) return ctx.fail("index diff", new_side.error().to_string());
  narrow_to_wheel_machine(*old_side, *new_side);
  narrow_to_wheel_machine(*new_side, *old_side);
  auto diffs = diff_records(old_side->records, new_side->records);
  if (d.json)
    fmt::print("{}\n", json_text(diff_to_json(diffs, d.old_side, d.new_side, ctx.argv)));
  else if (d.markdown)
    fmt::print("{}", render_diff_markdown(diffs, d.old_side, d.new_side));
  else
    fmt::print("{}", render_diff_text(diffs, d.old_side, d.new_side, ctx.out_style()));
  if (d.fail_on == "dropped")
    for (const auto& x : diffs)
      if (x.dropped_any()) return kExitFindings;
  return kExitOk;
}

}  // namespace

void register_index_query(CLI::App& app, Context& ctx) {
  CLI::App& index = index_command(app);

  auto q = std::make_shared<QueryArgs>();
  auto* query = index.add_subcommand(
      "query", "Every indexed wheel (or those of the packages named) judged for a GPU");
  query->add_option("packages", q->packages, "Only these packages");
  add_target_options(query, q->gpu, q->driver, "checks PTX");
  add_platform_option(query, q->platform, "Only wheels for this machine (default: every machine)");
  add_index_option(query, q->index);
  add_format_flags(query, q->json, &q->markdown, "smcompat.index-query/1");
  query->add_flag("-v,--verbose", q->verbose, "The verdict of every file of every wheel");
  query->callback([q, &ctx] { ctx.exit_code = run_query(ctx, *q); });

  auto d = std::make_shared<DiffArgs>();
  auto* diff = index.add_subcommand(
      "diff", "What one release (or wheel, or index) added or dropped against another");
  diff->add_option("old", d->old_side, "A wheel file, an index file, or PKG==VERSION")->required();
  diff->add_option("new", d->new_side, "A wheel file, an index file, or PKG==VERSION")->required();
  diff->add_option("--index", d->index,
                   "The index PKG==VERSION is looked up in; default: the index built in");
  diff->add_option("--fail-on", d->fail_on, "Exit 1 when a SASS or PTX target was dropped")
      ->check(CLI::IsMember({"dropped"}));
  add_format_flags(diff, d->json, &d->markdown, "smcompat.index-diff/1");
  diff->callback([d, &ctx] { ctx.exit_code = run_diff(ctx, *d); });
}

}  // namespace smcompat::cli
