// `smcompat ptx check`: reads PTX (.ptx files or PTX embedded in binaries) and reports per
// kernel which features and resources stand in the way of a target; registers `ptx` and its
// other subcommands (ptx_retarget.cpp, ptx_budget.cpp). Library: include/smcompat/ptx/. Schemas:
// docs/ptx.md.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "ptx_cli.hpp"
#include "smcompat/ptx/analysis.hpp"
#include "smcompat/ptx/files.hpp"
#include "smcompat/report/ptx_report.hpp"
#include "smcompat/util/json_text.hpp"

namespace smcompat::cli {
namespace {

using json = nlohmann::json;
using namespace smcompat::ptx;

struct CheckOptions {
  std::vector<std::string> files;
  std::string target;
  bool json = false;
  bool all = false;
  int64_t dynamic_smem = -1;
};

int run_check(const CheckOptions& o, Context& ctx) {
  auto target = parse_ptx_target(o.target, "--target");
  if (!target) return kExitError;
  AnalyzeOptions ao;
  if (o.dynamic_smem >= 0) ao.dynamic_smem = static_cast<uint64_t>(o.dynamic_smem);
  const Style st = ctx.out_style();
  std::vector<json> inputs;  // each item built by report/
  PtxCheckTotals totals;
  totals.target = *target;
  PtxTextVisitor visit;
  visit.module = [&](const PtxSource& src, const Module& m) {
    ++totals.ptx_texts;
    auto rep = analyze(m, *target, ao);
    totals.add(rep);
    if (o.json)
      inputs.push_back(ptx_module_json(src, rep));
    else
      fmt::print("{}", render_ptx_module_text(src, rep, o.all || !src.embedded, st));
  };
  visit.parse_error = [&](const PtxSource& src, const Error& e) {
    ++totals.ptx_texts;
    ++totals.errors;
    if (o.json)
      inputs.push_back(ptx_parse_error_json(src, e));
    else
      fmt::print("{}", render_ptx_parse_error_text(src, e, st));
  };
  auto file_error = [&](const std::string& file, const Error& e, const char* prefix) {
    ++totals.errors;
    if (o.json)
      inputs.push_back(ptx_file_error_json(file, e));
    else
      fmt::print(stderr, "{}: {}\n", prefix ? prefix : file.c_str(), e.to_string());
  };
  visit.image_error = [&](const std::string& f, const Error& e) { file_error(f, e, nullptr); };
  visit.file_error = [&](const std::string& f, const Error& e) {
    file_error(f, e, "smcompat ptx check");
  };
  visit_ptx_texts(o.files, visit);
  if (o.json)
    fmt::print("{}\n", json_text(ptx_check_json(totals, std::move(inputs), ctx.argv)));
  else
    fmt::print("{}", render_ptx_check_summary_text(totals, st));
  if (totals.ptx_texts == 0 || (totals.errors > 0 && totals.kernels == 0)) return kExitError;
  return totals.worst == KernelCheck::kRuns ? kExitOk : kExitFindings;
}

}  // namespace

void register_ptx(CLI::App& app, Context& ctx) {
  CLI::App* cmd = &ptx_command(app);
  static CheckOptions check;
  auto* c = cmd->add_subcommand(
      "check", "Which instructions and resources of each kernel stand in the way of a target");
  c->add_option("files", check.files, ".ptx files or binaries with embedded PTX")->required();
  c->add_option("--target,-t", check.target, "Target such as sm_120, sm_120a, sm_100a")->required();
  c->add_option("--dynamic-smem", check.dynamic_smem,
                "A dynamic shared memory request (bytes) to check against the opt-in limit");
  c->add_flag("--all", check.all,
              "Show every kernel of embedded PTX (default: those that do not run)");
  c->add_flag("--json", check.json, "Machine-readable output (schema smcompat.ptx-check/1)");
  c->callback([&ctx] { ctx.exit_code = run_check(check, ctx); });

  register_ptx_retarget(*cmd, ctx);
  register_ptx_budget(*cmd, ctx);
  register_ptx_lower(*cmd, ctx);
}

}  // namespace smcompat::cli
