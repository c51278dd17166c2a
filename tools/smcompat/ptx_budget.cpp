// `smcompat ptx budget`: explains each kernel's shared memory by declaration against a
// target's limits. Schema: docs/ptx.md.
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

struct BudgetOptions {
  std::vector<std::string> files;
  std::string target = "sm_120";
  std::string kernel;
  bool json = false;
};

int run_budget(const BudgetOptions& o, Context& ctx) {
  auto target = parse_ptx_target(o.target, "--target");
  if (!target) return kExitError;
  const Style st = ctx.out_style();
  std::vector<json> out_kernels;  // each item built by report/
  size_t shown = 0;
  bool over = false, failed = false;
  PtxTextVisitor visit;
  visit.module = [&](const PtxSource& src, const Module& m) {
    for (const auto& k : analyze(m, *target).kernels) {
      if (!o.kernel.empty() && k.name != o.kernel) continue;
      ++shown;
      for (const auto& r : k.resources)
        if (r.resource == "shared memory" && r.outcome != KernelCheck::kRuns) over = true;
      if (o.json)
        out_kernels.push_back(ptx_budget_kernel_json(src, k));
      else
        fmt::print("{}", render_ptx_budget_text(src, k, *target, st));
    }
  };
  visit.parse_error = [&](const PtxSource& src, const Error& e) {
    failed = true;
    fmt::print(stderr, "{}: {}\n", src.display_name(), e.what);
  };
  visit.file_error = [&](const std::string&, const Error& e) {
    failed = true;
    fmt::print(stderr, "smcompat ptx budget: {}\n", e.to_string());
  };
  size_t texts = visit_ptx_texts(o.files, visit);
  if (o.json)
    fmt::print("{}\n", json_text(ptx_budget_json(*target, std::move(out_kernels), ctx.argv)));
  if (failed && shown == 0) return kExitError;
  if (!o.kernel.empty() && shown == 0)
    return ctx.fail("ptx budget", fmt::format("no kernel named '{}' in {} PTX text{}", o.kernel,
                                              texts, texts == 1 ? "" : "s"));
  return over ? kExitFindings : kExitOk;
}

}  // namespace

void register_ptx_budget(CLI::App& ptx, Context& ctx) {
  CLI::App* cmd = &ptx;
  static BudgetOptions bg;
  auto* b = cmd->add_subcommand("budget", "Explain each kernel's shared memory by declaration");
  b->add_option("files", bg.files, ".ptx files or binaries with embedded PTX")->required();
  b->add_option("--target,-t", bg.target, "Target whose limits apply (default sm_120)");
  b->add_option("--kernel,-k", bg.kernel, "Only this kernel");
  b->add_flag("--json", bg.json, "Machine-readable output (schema smcompat.ptx-budget/1)");
  b->callback([&ctx] { ctx.exit_code = run_budget(bg, ctx); });
}

}  // namespace smcompat::cli
