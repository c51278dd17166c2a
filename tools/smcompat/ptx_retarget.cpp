// `smcompat ptx retarget`: rewrites a PTX file for another target where the rewrite is
// mechanical and safe, optionally proven by assembling it with ptxas. Schema: docs/ptx.md.
#include <fmt/format.h>

#include "ptx_cli.hpp"
#include "smcompat/ptx/files.hpp"
#include "smcompat/ptx/ptxas.hpp"
#include "smcompat/ptx/retarget.hpp"
#include "smcompat/report/ptx_report.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_text.hpp"

namespace smcompat::cli {
namespace {

using namespace smcompat::ptx;

struct RetargetOptions {
  std::string file, to, output;
  bool json = false;
  bool verify = false;
};

int run_retarget(const RetargetOptions& o, Context& ctx) {
  auto to = parse_ptx_target(o.to, "--to");
  if (!to) return kExitError;
  auto text = read_single_ptx(o.file);
  if (!text.ok()) return ctx.fail("ptx retarget", text.error().to_string());
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
    if (auto e = write_file_atomically(o.output, r->text))
      return ctx.fail("ptx retarget", e->to_string());
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

}  // namespace

void register_ptx_retarget(CLI::App& ptx, Context& ctx) {
  CLI::App* cmd = &ptx;
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
}

}  // namespace smcompat::cli
