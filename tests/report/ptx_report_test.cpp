// The `smcompat ptx` printers (report/ptx_report.hpp) on hand-built analysis results: exact text
// and exact JSON, independent of the feature table's data and of the analysis itself.
#include "smcompat/report/ptx_report.hpp"

#include <gtest/gtest.h>

namespace smcompat {
namespace {

using nlohmann::json;
using ptx::KernelCheck;

ptx::FeatureRow make_row(std::string id, std::string strategy) {
  ptx::FeatureRow row;
  row.id = std::move(id);
  row.title = row.id + " title";
  row.strategy = std::move(strategy);
  row.source = "PTX ISA 9.0";
  return row;
}
const ptx::FeatureRow kSetmaxnreg = make_row("setmaxnreg", "drop it");
const ptx::FeatureRow kWgmma = make_row("wgmma", "");

ptx::PtxSource file_source() {
  ptx::PtxSource s;
  s.file = "k.ptx";
  s.text = ".version 8.0\n.target sm_90a\nbad";
  return s;
}

ptx::PtxSource embedded_source() {
  ptx::PtxSource s;
  s.file = "lib.so";
  s.embedded = true;
  s.entry_offset = 0x1234;
  s.image_target = SmTarget{ImageKind::kPtx, 90, ArchVariant::kArchSpecific};
  s.section = ".nv_fatbin";
  return s;
}

// A kernel that needs sm_120f for setmaxnreg, cannot use wgmma, and declares too much shared
// memory; and one that runs.
ptx::ModuleReport module_report() {
  ptx::ModuleReport rep;
  rep.target = SmTarget{ImageKind::kSass, 120, ArchVariant::kBase};
  rep.ptx_version = Version{8, 0};
  rep.ptx_target = "sm_90a";
  rep.notes = {"the PTX targets sm_90a (arch-specific)"};
  ptx::KernelReport k;
  k.name = "ws";
  k.loc = {4, 1, 60};
  k.features.push_back({&kSetmaxnreg,
                        {10, 2, 200},
                        "ws",
                        "setmaxnreg.inc.sync.aligned.u32",
                        2,
                        KernelCheck::kNeedsSpecificTarget,
                        SmTarget{ImageKind::kSass, 120, ArchVariant::kFamily},
                        "needs sm_120f"});
  k.features.push_back({&kWgmma,
                        {12, 2, 260},
                        "helper",
                        "wgmma.fence.sync.aligned",
                        1,
                        KernelCheck::kUnavailable,
                        std::nullopt,
                        "no wgmma on sm_120"});
  k.shared.push_back({"stage", 32768, 16, false, {7, 2, 120}});
  k.shared.push_back({"table", 16384, 8, true, {3, 1, 40}});
  k.shared.push_back({"dyn", std::nullopt, 16, false, {8, 2, 150}});
  k.static_smem = 49152;
  k.dynamic_smem = true;
  k.smem_optin_limit = 101376;
  k.dynamic_smem_room = 52224;
  k.cluster_dims = std::array<uint32_t, 3>{2, 1, 1};
  k.perf.maxnreg = 128;
  k.resources.push_back({"shared memory", KernelCheck::kExceedsResources,
                         "49152 bytes static is above the 48 KiB static limit"});
  k.resources.push_back({"cluster", KernelCheck::kRuns, "a note"});
  k.outcome = KernelCheck::kUnavailable;
  k.specific_target = SmTarget{ImageKind::kSass, 120, ArchVariant::kFamily};
  rep.kernels.push_back(std::move(k));
  ptx::KernelReport plain;
  plain.name = "plain";
  plain.loc = {20, 1, 400};
  rep.kernels.push_back(std::move(plain));
  rep.outcome = KernelCheck::kUnavailable;
  return rep;
}

ptx::RetargetResult retarget_result(bool ok) {
  ptx::RetargetResult r;
  r.ok = ok;
  r.text = ok ? ".version 8.7\n.target sm_120\n" : "";
  r.to = SmTarget{ImageKind::kSass, 120, ArchVariant::kBase};
  r.rewrites.push_back({{1, 1, 0}, "", "version", ".version 8.0", ".version 8.7"});
  r.rewrites.push_back({{10, 2, 200}, "ws", "drop-setmaxnreg", "setmaxnreg.inc", ""});
  if (!ok)
    r.blockers.push_back({"ws", "wgmma", {12, 2, 260}, "no wgmma on sm_120", "use mma.sync"});
  r.intact_alternative = SmTarget{ImageKind::kSass, 120, ArchVariant::kFamily};
  return r;
}

TEST(PtxReport, ModuleText) {
  auto rep = module_report();
  // The kernel that does not run, shown either way.
  const std::string ws = R"txt(  note: the PTX targets sm_90a (arch-specific)
  ws  line 4  unavailable (builds for sm_120f)
    feature     first use                             uses  verdict                why
    setmaxnreg  10:2 setmaxnreg.inc.sync.aligned.u32  2     needs-specific-target  needs sm_120f
    wgmma       12:2 wgmma.fence.sync.aligned         1     unavailable            no wgmma on sm_120
    shared memory: 49152 bytes static, opt-in limit 101376 on sm_120, room for 52224 bytes dynamic
    cluster: 2x1x1
    shared memory: exceeds-resources 49152 bytes static is above the 48 KiB static limit
    cluster: runs a note
    strategy setmaxnreg: drop it
)txt";
  EXPECT_EQ(
      render_ptx_module_text(embedded_source(), rep, false, Style::plain()),
      "lib.so@0x1234 (compute_90a)  PTX 8.0 .target sm_90a  2 kernels: 1 runs, 1 unavailable\n" +
          ws);
  EXPECT_EQ(render_ptx_module_text(file_source(), rep, true, Style::plain()),
            "k.ptx  PTX 8.0 .target sm_90a  2 kernels: 1 runs, 1 unavailable\n" + ws +
                "  plain  line 20  runs\n"
                "    shared memory: 0 bytes static\n");
}

TEST(PtxReport, ParseErrorAndSummaryText) {
  Error e{"unexpected token", "", 29};
  EXPECT_EQ(render_ptx_parse_error_text(file_source(), e, Style::plain()),
            "k.ptx: error: unexpected token\n");
  PtxCheckTotals t;
  t.target = SmTarget{ImageKind::kSass, 120, ArchVariant::kBase};
  t.ptx_texts = 2;
  t.errors = 1;
  t.add(module_report());
  EXPECT_EQ(t.kernels, 2u);
  EXPECT_EQ(t.worst, KernelCheck::kUnavailable);
  EXPECT_EQ(render_ptx_check_summary_text(t, Style::plain()),
            R"txt(2 PTX texts, 2 kernels for sm_120, 1 runs, 1 unavailable, 1 error
Verdicts say whether each kernel's code fits sm_120 once built or retargeted for it; notes say when the PTX as shipped cannot load there.
)txt");
}

TEST(PtxReport, CheckJson) {
  auto rep = module_report();
  std::vector<json> inputs;
  inputs.push_back(ptx_module_json(embedded_source(), rep));
  inputs.push_back(ptx_parse_error_json(file_source(), Error{"unexpected token", "", 29}));
  inputs.push_back(ptx_file_error_json("missing.ptx", Error{"cannot open", "missing.ptx", {}}));
  PtxCheckTotals t;
  t.target = rep.target;
  t.ptx_texts = 2;
  t.errors = 2;
  t.add(rep);
  json j = ptx_check_json(t, inputs, {"smcompat", "ptx", "check"});
  EXPECT_EQ(j["tool_version"], SMCOMPAT_VERSION);
  j.erase("tool_version");
  EXPECT_EQ(j, json::parse(R"json({
  "argv": ["smcompat", "ptx", "check"],
  "inputs": [
    {
      "file": "lib.so",
      "image": {"entry_offset": 4660, "section": ".nv_fatbin", "target": "compute_90a"},
      "kernels": [
        {
          "cluster_dims": [2, 1, 1],
          "declared_at": {"column": 1, "line": 4},
          "features": [
            {
              "count": 2,
              "first_function": "ws",
              "first_instruction": "setmaxnreg.inc.sync.aligned.u32",
              "first_use": {"column": 2, "line": 10},
              "id": "setmaxnreg",
              "reason": "needs sm_120f",
              "source": "PTX ISA 9.0",
              "specific_target": "sm_120f",
              "strategy": "drop it",
              "title": "setmaxnreg title",
              "verdict": "needs-specific-target"
            },
            {
              "count": 1,
              "first_function": "helper",
              "first_instruction": "wgmma.fence.sync.aligned",
              "first_use": {"column": 2, "line": 12},
              "id": "wgmma",
              "reason": "no wgmma on sm_120",
              "source": "PTX ISA 9.0",
              "title": "wgmma title",
              "verdict": "unavailable"
            }
          ],
          "maxnreg": 128,
          "name": "ws",
          "resources": [
            {
              "reason": "49152 bytes static is above the 48 KiB static limit",
              "resource": "shared memory",
              "verdict": "exceeds-resources"
            },
            {"reason": "a note", "resource": "cluster", "verdict": "runs"}
          ],
          "shared_memory": {
            "declarations": [
              {
                "align": 16,
                "bytes": 32768,
                "declared_at": {"column": 2, "line": 7},
                "name": "stage",
                "scope": "kernel"
              },
              {
                "align": 8,
                "bytes": 16384,
                "declared_at": {"column": 1, "line": 3},
                "name": "table",
                "scope": "module"
              },
              {
                "align": 16,
                "bytes": null,
                "declared_at": {"column": 2, "line": 8},
                "name": "dyn",
                "scope": "kernel"
              }
            ],
            "dynamic": true,
            "dynamic_room": 52224,
            "optin_limit": 101376,
            "static_bytes": 49152
          },
          "specific_target": "sm_120f",
          "verdict": "unavailable"
        },
        {
          "cluster_dims": null,
          "declared_at": {"column": 1, "line": 20},
          "features": [],
          "maxnreg": null,
          "name": "plain",
          "resources": [],
          "shared_memory": {
            "declarations": [],
            "dynamic": false,
            "dynamic_room": null,
            "optin_limit": null,
            "static_bytes": 0
          },
          "specific_target": null,
          "verdict": "runs"
        }
      ],
      "member": "",
      "notes": ["the PTX targets sm_90a (arch-specific)"],
      "ptx_target": "sm_90a",
      "ptx_version": "8.0",
      "verdict": "unavailable"
    },
    {
      "error": {"column": 2, "line": 3, "offset": 29, "what": "unexpected token"},
      "file": "k.ptx",
      "image": null,
      "member": ""
    },
    {"error": {"what": "missing.ptx: cannot open"}, "file": "missing.ptx"}
  ],
  "schema": "smcompat.ptx-check/1",
  "summary": {"by_verdict": {"runs": 1, "unavailable": 1}, "errors": 2, "kernels": 2, "ptx_texts": 2},
  "target": "sm_120",
  "verdict": "unavailable"
})json"));
}

TEST(PtxReport, RetargetText) {
  auto ok = retarget_result(true);
  PtxRetargetOutcome o{"k.ptx", ok.to, &ok};
  EXPECT_EQ(render_ptx_retarget_text(o, Style::plain()),
            R"txt(k.ptx:1:1: rewrite version: '.version 8.0' -> '.version 8.7'
k.ptx:10:2: rewrite drop-setmaxnreg in ws: 'setmaxnreg.inc' -> ''
hint: --to sm_120f keeps this PTX intact (code built for it runs only on that family)
not verified: only the feature table was checked; --verify assembles the result with ptxas
)txt");
  o.verify_requested = true;
  o.verify_note = "no ptxas found";
  EXPECT_EQ(render_ptx_retarget_text(o, Style::plain()),
            R"txt(k.ptx:1:1: rewrite version: '.version 8.0' -> '.version 8.7'
k.ptx:10:2: rewrite drop-setmaxnreg in ws: 'setmaxnreg.inc' -> ''
hint: --to sm_120f keeps this PTX intact (code built for it runs only on that family)
not verified: no ptxas found
)txt");
  o.verified = ptx::PtxasOutcome{false, 255, "ptxas error: bad\n"};
  EXPECT_EQ(render_ptx_retarget_text(o, Style::plain()),
            R"txt(k.ptx:1:1: rewrite version: '.version 8.0' -> '.version 8.7'
k.ptx:10:2: rewrite drop-setmaxnreg in ws: 'setmaxnreg.inc' -> ''
hint: --to sm_120f keeps this PTX intact (code built for it runs only on that family)
ptxas -arch=sm_120: REJECTS the result
ptxas error: bad
)txt");
  auto blocked = retarget_result(false);
  PtxRetargetOutcome b{"k.ptx", blocked.to, &blocked};
  EXPECT_EQ(render_ptx_retarget_text(b, Style::plain()),
            R"txt(k.ptx:1:1: rewrite version: '.version 8.0' -> '.version 8.7'
k.ptx:10:2: rewrite drop-setmaxnreg in ws: 'setmaxnreg.inc' -> ''
k.ptx:12:2: cannot retarget ws: no wgmma on sm_120
    strategy: use mma.sync
hint: --to sm_120f keeps this PTX intact (code built for it runs only on that family)
)txt");
}

TEST(PtxReport, RetargetJson) {
  auto ok = retarget_result(true);
  PtxRetargetOutcome o{"k.ptx", ok.to, &ok};
  json j = ptx_retarget_json(o, {"smcompat"});
  j.erase("tool_version");
  EXPECT_EQ(j, json::parse(R"json({
  "argv": ["smcompat"],
  "blockers": [],
  "input": "k.ptx",
  "intact_alternative": "sm_120f",
  "ok": true,
  "output": null,
  "ptx": ".version 8.7\n.target sm_120\n",
  "ptxas": {"note": "not requested", "verified": null},
  "rewrites": [
    {
      "after": ".version 8.7",
      "at": {"column": 1, "line": 1},
      "before": ".version 8.0",
      "function": "",
      "kind": "version"
    },
    {
      "after": "",
      "at": {"column": 2, "line": 10},
      "before": "setmaxnreg.inc",
      "function": "ws",
      "kind": "drop-setmaxnreg"
    }
  ],
  "schema": "smcompat.ptx-retarget/1",
  "to": "sm_120"
})json"));
  // Written to -o and verified: the path instead of the PTX, and ptxas's verdict.
  json written = j;
  written["output"] = "out.ptx";
  written.erase("ptx");
  written["ptxas"] = {{"log", ""}, {"verified", true}};
  o.written = "out.ptx";
  o.verify_requested = true;
  o.verified = ptx::PtxasOutcome{true, 0, ""};
  json j2 = ptx_retarget_json(o, {"smcompat"});
  j2.erase("tool_version");
  EXPECT_EQ(j2, written);
  // Refused: not ok, the blocker, and no PTX.
  auto blocked = retarget_result(false);
  json jb = ptx_retarget_json({"k.ptx", blocked.to, &blocked}, {"smcompat"});
  EXPECT_EQ(jb["ok"], false);
  EXPECT_FALSE(jb.contains("ptx"));
  EXPECT_EQ(jb["blockers"],
            json::parse(R"json([{"at": {"column": 2, "line": 12}, "feature": "wgmma",
    "kernel": "ws", "reason": "no wgmma on sm_120", "strategy": "use mma.sync"}])json"));
}

TEST(PtxReport, Budget) {
  auto rep = module_report();
  EXPECT_EQ(render_ptx_budget_text(file_source(), rep.kernels[0], rep.target, Style::plain()),
            R"txt(ws  k.ptx
  declaration    bytes  align  scope   declared at  share
  stage          32768     16  kernel  7:2          66.7%
  table          16384      8  module  3:1          33.3%
  dyn          dynamic     16  kernel  8:2
  static total 49152 bytes (static limit 49152); sm_120 opt-in limit 101376 bytes; room for 52224 bytes dynamic
  exceeds-resources 49152 bytes static is above the 48 KiB static limit
)txt");
  std::vector<json> kernels;
  kernels.push_back(ptx_budget_kernel_json(file_source(), rep.kernels[1]));
  json j = ptx_budget_json(rep.target, kernels, {"smcompat"});
  EXPECT_EQ(j["tool_version"], SMCOMPAT_VERSION);
  j.erase("tool_version");
  // The kernel as in `ptx check` (exact in CheckJson), with where it was read.
  json kernel = ptx_kernel_json(rep.kernels[1]);
  kernel["input"] = json::parse(R"json({"file": "k.ptx", "member": "", "image": null})json");
  EXPECT_EQ(j, (json{{"schema", "smcompat.ptx-budget/1"},
                     {"argv", json::array({"smcompat"})},
                     {"target", "sm_120"},
                     {"kernels", json::array({kernel})}}));
}

TEST(PtxReport, StyledCheckColours) {
  Style colour = Style::for_stream(stdout, Style::Mode::kAlways);
  EXPECT_EQ(styled_check(KernelCheck::kRuns, colour), colour.green("runs"));
  EXPECT_EQ(styled_check(KernelCheck::kNeedsSpecificTarget, colour),
            colour.yellow("needs-specific-target"));
  EXPECT_EQ(styled_check(KernelCheck::kExceedsResources, colour), colour.red("exceeds-resources"));
  EXPECT_EQ(styled_check(KernelCheck::kUnavailable, Style::plain()), "unavailable");
}

}  // namespace
}  // namespace smcompat
