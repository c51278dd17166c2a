// `smcompat ptx check|retarget|budget`: reads PTX (.ptx files or PTX embedded in binaries),
// reports per kernel which features and resources stand in the way of a target, retargets what
// can be rewritten mechanically (optionally proven with ptxas), and explains shared memory by
// declaration. Library: include/smcompat/ptx/. Schemas: docs/ptx.md.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "smcompat/ptx/analysis.hpp"
#include "smcompat/ptx/files.hpp"
#include "smcompat/ptx/ptxas.hpp"
#include "smcompat/ptx/retarget.hpp"
#include "smcompat/ptx/sources.hpp"
#include "smcompat/report/ptx_report.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_text.hpp"

namespace smcompat::cli {
namespace {

using json = nlohmann::json;
using namespace smcompat::ptx;

std::optional<SmTarget> parse_sm(const std::string& s, const char* what) {
  auto t = SmTarget::parse(s);
  if (!t || t->kind == ImageKind::kLto) {
    fmt::print(stderr, "smcompat ptx: {} '{}' is not a target such as sm_120, sm_120a, sm_90\n",
               what, s);
    return std::nullopt;
  }
  t->kind = ImageKind::kSass;
  return t;
}

// ---------------------------------------------------------------- check
struct CheckOptions {
  std::vector<std::string> files;
  std::string target;
  bool json = false;
  bool all = false;
  int64_t dynamic_smem = -1;
};

int run_check(const CheckOptions& o, Context& ctx) {
  auto target = parse_sm(o.target, "--target");
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

// ---------------------------------------------------------------- retarget
struct RetargetOptions {
  std::string file, to, output;
  bool json = false;
  bool verify = false;
};

int run_retarget(const RetargetOptions& o, Context& ctx) {
  auto to = parse_sm(o.to, "--to");
  if (!to) return kExitError;
  auto text = read_single_ptx(o.file);
  if (!text.ok()) {
    fmt::print(stderr, "smcompat ptx retarget: {}\n", text.error().to_string());
    return kExitError;
  }
  auto r = retarget(*text, *to);
  if (!r.ok()) {
    fmt::print(stderr, "{}: {}\n", o.file, r.error().what);
    return kExitError;
  }
  const Style st = ctx.err_style();
  PtxasVerification verification;
  if (r->ok && o.verify) verification = verify_with_ptxas(r->text, *to);
  const std::optional<PtxasOutcome>& verified = verification.outcome;
  bool wrote = false;
  if (r->ok && !o.output.empty()) {
    if (auto e = write_file_atomically(o.output, r->text)) {
      fmt::print(stderr, "smcompat ptx retarget: {}\n", e->to_string());
      return kExitError;
    }
    wrote = true;
  }
  PtxRetargetOutcome outcome{o.file, *to, &*r};
  if (wrote) outcome.written = o.output;
  outcome.verify_requested = o.verify;
  outcome.verified = verified;
  outcome.verify_note = verification.note;
  if (o.json) {
    fmt::print("{}\n", json_text(ptx_retarget_json(outcome, ctx.argv)));
  } else {
    // The PTX goes to stdout (or -o); the report goes to stderr.
    fmt::print(stderr, "{}", render_ptx_retarget_text(outcome, st));
    if (r->ok && !wrote) fmt::print("{}", r->text);
  }
  if (!r->ok) return kExitFindings;
  if (verified && !verified->accepted) return kExitFindings;
  return kExitOk;
}

// ---------------------------------------------------------------- budget
struct BudgetOptions {
  std::vector<std::string> files;
  std::string target = "sm_120";
  std::string kernel;
  bool json = false;
};

int run_budget(const BudgetOptions& o, Context& ctx) {
  auto target = parse_sm(o.target, "--target");
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
  if (!o.kernel.empty() && shown == 0) {
    fmt::print(stderr, "smcompat ptx budget: no kernel named '{}' in {} PTX text{}\n", o.kernel,
               texts, texts == 1 ? "" : "s");
    return kExitError;
  }
  return over ? kExitFindings : kExitOk;
}

}  // namespace

void register_ptx(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("ptx", "Read PTX: features per kernel, retarget, shared memory");
  cmd->require_subcommand(1);

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

  static RetargetOptions rt;
  auto* r = cmd->add_subcommand(
      "retarget",
      "Set .target/.version and apply the safe rewrites (the PTX goes to stdout or -o)");
  r->add_option("file", rt.file, "A .ptx file")->required();
  r->add_option("--to", rt.to, "Target such as sm_120, sm_89")->required();
  r->add_option("-o,--output", rt.output, "Write the PTX here instead of stdout");
  r->add_flag("--verify", rt.verify, "Assemble the result with ptxas, if one is installed");
  r->add_flag("--json", rt.json, "Machine-readable report (schema smcompat.ptx-retarget/1)");
  r->callback([&ctx] { ctx.exit_code = run_retarget(rt, ctx); });

  static BudgetOptions bg;
  auto* b = cmd->add_subcommand("budget", "Explain each kernel's shared memory by declaration");
  b->add_option("files", bg.files, ".ptx files or binaries with embedded PTX")->required();
  b->add_option("--target,-t", bg.target, "Target whose limits apply (default sm_120)");
  b->add_option("--kernel,-k", bg.kernel, "Only this kernel");
  b->add_flag("--json", bg.json, "Machine-readable output (schema smcompat.ptx-budget/1)");
  b->callback([&ctx] { ctx.exit_code = run_budget(bg, ctx); });
}

}  // namespace smcompat::cli
