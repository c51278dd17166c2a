// `smcompat ptx lower`: rewrites Hopper wgmma tensor-core PTX into mma.sync so that it runs on
// GPUs without wgmma (sm_120, sm_121, sm_80, sm_89), optionally proven by assembling it with
// ptxas. Schema: docs/ptx.md ("smcompat.ptx-lower/1").
#include <fmt/format.h>

#include <algorithm>

#include "ptx_cli.hpp"
#include "smcompat/ptx/files.hpp"
#include "smcompat/ptx/lower.hpp"
#include "smcompat/ptx/ptxas.hpp"
#include "smcompat/report/ptx_report.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_text.hpp"

namespace smcompat::cli {
namespace {

using namespace smcompat::ptx;

struct LowerOptions {
  std::string file, to, output, kernel;
  bool json = false;
  bool verify = false;
};

int run_lower(const LowerOptions& o, Context& ctx) {
  auto to = parse_ptx_target(o.to, "--to");
  if (!to) return kExitError;
  auto text = read_single_ptx(o.file);
  if (!text.ok()) return ctx.fail("ptx lower", text.error().to_string());
  auto r = lower(*text, *to, o.kernel);
  if (!r.ok()) {
    fmt::print(stderr, "{}: {}\n", o.file, r.error().what);
    return kExitError;
  }
  PtxasVerification verification;
  std::vector<KernelVerification> interpreted;
  if (r->ok && o.verify) {
    verification = verify_with_ptxas(r->text, *to);
    LowerVerifyOptions vo;
    vo.kernel = o.kernel;
    // Tensor memory put first in the dynamic shared memory needs that much more of it.
    uint64_t extra = 0;
    for (const auto& a : r->shared_added)
      if (a.dynamic) extra = std::max(extra, a.bytes);
    vo.dynamic_shared_bytes += static_cast<uint32_t>(extra);
    interpreted = verify_lowering(*text, r->text, vo);
  }
  bool wrote = false;
  if (r->ok && !o.output.empty()) {
    if (auto e = write_file_atomically(o.output, r->text))
      return ctx.fail("ptx lower", e->to_string());
    wrote = true;
  }
  PtxLowerOutcome outcome{o.file, *to, &*r};
  if (wrote) outcome.written = o.output;
  outcome.verify_requested = o.verify;
  outcome.verified = verification.outcome;
  outcome.verify_note = verification.note;
  outcome.interpreted = interpreted;
  if (o.json) {
    fmt::print("{}\n", json_text(ptx_lower_json(outcome, ctx.argv)));
  } else {
    // The PTX goes to stdout (or -o); the report goes to stderr.
    fmt::print(stderr, "{}", render_ptx_lower_text(outcome, ctx.err_style()));
    if (r->ok && !wrote) fmt::print("{}", r->text);
  }
  if (!r->ok) return kExitFindings;
  if (verification.outcome && !verification.outcome->accepted) return kExitFindings;
  for (const auto& v : interpreted)
    if (v.status == "differs") return kExitFindings;
  return kExitOk;
}

}  // namespace

void register_ptx_lower(CLI::App& ptx, Context& ctx) {
  static LowerOptions lo;
  auto* l = ptx.add_subcommand(
      "lower",
      "Rewrite wgmma (sm_90a) and tcgen05 (sm_100a) tensor-core PTX into mma.sync for GPUs "
      "without them (the PTX goes to stdout or -o)");
  l->add_option("file", lo.file, "A .ptx file")->required();
  l->add_option("--to", lo.to, "Target such as sm_120, sm_121, sm_89")->required();
  l->add_option("-o,--output", lo.output, "Write the PTX here instead of stdout");
  l->add_option("--kernel", lo.kernel,
                "Keep and lower only this kernel (the other kernels are left out)");
  l->add_flag("--verify", lo.verify,
              "Assemble the result with ptxas, if one is installed, and run every kernel as given "
              "and as lowered in the reference interpreter on the same made-up inputs");
  l->add_flag("--json", lo.json, "Machine-readable report (schema smcompat.ptx-lower/1)");
  l->callback([&ctx] { ctx.exit_code = run_lower(lo, ctx); });
}

}  // namespace smcompat::cli
