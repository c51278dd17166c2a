// `smcompat ptx check|retarget|budget`: reads PTX (.ptx files or PTX embedded in binaries),
// reports per kernel which features and resources stand in the way of a target, retargets what
// can be rewritten mechanically (optionally proven with ptxas), and explains shared memory by
// declaration. Library: include/smcompat/ptx/. Schemas: docs/ptx.md.
#include <fmt/format.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "smcompat/ptx/analysis.hpp"
#include "smcompat/ptx/ptxas.hpp"
#include "smcompat/ptx/retarget.hpp"
#include "smcompat/ptx/sources.hpp"

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

json loc_json(const SourceLoc& l) { return json{{"line", l.line}, {"column", l.col}}; }

json error_json(const Error& e, std::string_view text) {
  json j{{"what", e.what}};
  if (e.offset) {
    j["offset"] = *e.offset;
    auto l = locate(text, *e.offset);
    j["line"] = l.line;
    j["column"] = l.col;
  }
  return j;
}

json kernel_json(const KernelReport& k) {
  json feats = json::array();
  for (const auto& f : k.features) {
    json fj{{"id", f.row->id},
            {"title", f.row->title},
            {"verdict", to_string(f.outcome)},
            {"first_use", loc_json(f.first)},
            {"first_function", f.first_function},
            {"first_instruction", f.first_instruction},
            {"count", f.count},
            {"source", f.row->source}};
    if (f.specific_target) fj["specific_target"] = f.specific_target->to_string();
    if (!f.reason.empty()) fj["reason"] = f.reason;
    if (f.outcome != KernelCheck::kRuns && !f.row->strategy.empty()) fj["strategy"] = f.row->strategy;
    feats.push_back(std::move(fj));
  }
  json shared = json::array();
  for (const auto& s : k.shared)
    shared.push_back({{"name", s.name},
                      {"bytes", s.bytes ? json(*s.bytes) : json(nullptr)},
                      {"align", s.align},
                      {"scope", s.module_scope ? "module" : "kernel"},
                      {"declared_at", loc_json(s.loc)}});
  json res = json::array();
  for (const auto& r : k.resources)
    res.push_back(
        {{"resource", r.resource}, {"verdict", to_string(r.outcome)}, {"reason", r.reason}});
  json j{{"name", k.name},
         {"declared_at", loc_json(k.loc)},
         {"verdict", to_string(k.outcome)},
         {"features", std::move(feats)},
         {"shared_memory",
          {{"static_bytes", k.static_smem},
           {"dynamic", k.dynamic_smem},
           {"optin_limit", k.smem_optin_limit ? json(*k.smem_optin_limit) : json(nullptr)},
           {"dynamic_room", k.dynamic_smem_room ? json(*k.dynamic_smem_room) : json(nullptr)},
           {"declarations", std::move(shared)}}},
         {"resources", std::move(res)}};
  j["specific_target"] = k.specific_target ? json(k.specific_target->to_string()) : json(nullptr);
  j["cluster_dims"] = k.cluster_dims ? json(*k.cluster_dims) : json(nullptr);
  j["maxnreg"] = k.perf.maxnreg ? json(*k.perf.maxnreg) : json(nullptr);
  return j;
}

json source_json(const PtxSource& s) {
  json j{{"file", s.file}, {"member", s.member}};
  if (s.embedded)
    j["image"] = {{"entry_offset", s.entry_offset},
                  {"target", s.image_target ? s.image_target->to_string() : ""},
                  {"section", s.section}};
  else
    j["image"] = nullptr;
  return j;
}

std::string colour_verdict(const Style& st, KernelCheck v) {
  std::string s = to_string(v);
  switch (v) {
    case KernelCheck::kRuns:
      return st.green(s);
    case KernelCheck::kNeedsSpecificTarget:
      return st.yellow(s);
    default:
      return st.red(s);
  }
}

std::string fmt_loc(const SourceLoc& l) { return fmt::format("{}:{}", l.line, l.col); }

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
  json inputs = json::array();
  std::map<std::string, size_t> by_verdict;
  size_t images = 0, kernels = 0, errors = 0;
  KernelCheck worst = KernelCheck::kRuns;
  for (const auto& file : o.files) {
    auto r = for_each_ptx(
        file,
        [&](PtxSource&& src) {
          ++images;
          auto m = parse_module(src.text);
          if (!m.ok()) {
            ++errors;
            if (o.json) {
              json j = source_json(src);
              j["error"] = error_json(m.error(), src.text);
              inputs.push_back(std::move(j));
            } else {
              fmt::print("{}: {}: {}\n", src.display_name(), st.red("error"), m.error().what);
            }
            return;
          }
          auto rep = analyze(*m, *target, ao);
          worst = std::max(worst, rep.outcome);
          std::map<KernelCheck, size_t> counts;
          for (const auto& k : rep.kernels) {
            ++counts[k.outcome];
            ++by_verdict[to_string(k.outcome)];
          }
          kernels += rep.kernels.size();
          if (o.json) {
            json j = source_json(src);
            j["ptx_version"] = rep.ptx_version.to_string();
            j["ptx_target"] = rep.ptx_target;
            j["notes"] = rep.notes;
            j["verdict"] = to_string(rep.outcome);
            j["kernels"] = json::array();
            for (const auto& k : rep.kernels) j["kernels"].push_back(kernel_json(k));
            inputs.push_back(std::move(j));
            return;
          }
          std::string summary;
          for (const auto& [v, n] : counts)
            summary +=
                fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, colour_verdict(st, v));
          fmt::print("{}  PTX {} .target {}  {} kernel{}{}{}\n", st.bold(src.display_name()),
                     rep.ptx_version.to_string(), rep.ptx_target, rep.kernels.size(),
                     rep.kernels.size() == 1 ? "" : "s", summary.empty() ? "" : ": ", summary);
          for (const auto& n : rep.notes) fmt::print("  {} {}\n", st.dim("note:"), n);
          bool show_all = o.all || !src.embedded;
          for (const auto& k : rep.kernels) {
            if (!show_all && k.outcome == KernelCheck::kRuns) continue;
            std::string extra;
            if (k.specific_target)
              extra = fmt::format(" (builds for {})", k.specific_target->to_string());
            fmt::print("  {}  line {}  {}{}\n", st.bold(k.name), k.loc.line,
                       colour_verdict(st, k.outcome), extra);
            Table t({"feature", "first use", "uses", "verdict", "why"});
            for (const auto& f : k.features)
              t.add_row({f.row->id,
                         fmt::format("{} {}", fmt_loc(f.first), f.first_instruction.substr(0, 40)),
                         std::to_string(f.count), colour_verdict(st, f.outcome),
                         f.reason.empty() ? "" : f.reason});
            if (!t.empty()) fmt::print("{}", t.render(st, "    "));
            std::string smem = fmt::format("shared memory: {} bytes static", k.static_smem);
            if (k.smem_optin_limit)
              smem +=
                  fmt::format(", opt-in limit {} on {}", *k.smem_optin_limit, target->to_string());
            if (k.dynamic_smem_room)
              smem += fmt::format(", room for {} bytes dynamic", *k.dynamic_smem_room);
            fmt::print("    {}\n", smem);
            if (k.cluster_dims)
              fmt::print("    cluster: {}x{}x{}\n", (*k.cluster_dims)[0], (*k.cluster_dims)[1],
                         (*k.cluster_dims)[2]);
            for (const auto& r : k.resources)
              fmt::print("    {}: {} {}\n", r.resource, colour_verdict(st, r.outcome), r.reason);
            for (const auto& f : k.features)
              if (f.outcome != KernelCheck::kRuns && !f.row->strategy.empty())
                fmt::print("    {} {}: {}\n", st.dim("strategy"), f.row->id, f.row->strategy);
          }
        },
        [&](const Error& e) {
          ++errors;
          if (o.json)
            inputs.push_back({{"file", file}, {"error", {{"what", e.to_string()}}}});
          else
            fmt::print(stderr, "{}: {}\n", file, e.to_string());
        });
    if (!r.ok()) {
      ++errors;
      if (o.json)
        inputs.push_back({{"file", file}, {"error", {{"what", r.error().to_string()}}}});
      else
        fmt::print(stderr, "smcompat ptx check: {}\n", r.error().to_string());
    }
  }
  if (o.json) {
    json out{{"schema", "smcompat.ptx-check/1"},
             {"tool_version", SMCOMPAT_VERSION},
             {"argv", ctx.argv},
             {"target", target->to_string()},
             {"inputs", std::move(inputs)},
             {"summary",
              {{"ptx_texts", images},
               {"kernels", kernels},
               {"errors", errors},
               {"by_verdict", by_verdict}}},
             {"verdict", to_string(worst)}};
    fmt::print("{}\n", out.dump(2));
  } else {
    std::string counts;
    for (const auto& [v, n] : by_verdict) counts += fmt::format(", {} {}", n, v);
    fmt::print("{} PTX text{}, {} kernel{} for {}{}{}\n", images, images == 1 ? "" : "s", kernels,
               kernels == 1 ? "" : "s", target->to_string(), counts,
               errors ? fmt::format(", {} error{}", errors, errors == 1 ? "" : "s") : "");
    fmt::print("{}\n",
               st.dim(fmt::format(
                   "Verdicts say whether each kernel's code fits {} once built or retargeted "
                   "for it; notes say when the PTX as shipped cannot load there.",
                   target->to_string())));
  }
  if (images == 0 || (errors > 0 && kernels == 0)) return kExitError;
  return worst == KernelCheck::kRuns ? kExitOk : kExitFindings;
}

// ---------------------------------------------------------------- retarget
struct RetargetOptions {
  std::string file, to, output;
  bool json = false;
  bool verify = false;
};

Result<std::string> read_ptx_file(const std::string& path) {
  std::string text;
  size_t n = 0;
  auto r = for_each_ptx(path, [&](PtxSource&& s) {
    if (n++ == 0) text = std::move(s.text);
  });
  if (!r.ok()) return std::move(r).error();
  if (n != 1)
    return make_error(
        fmt::format("{} holds {} PTX texts; retarget takes one .ptx file (extract "
                    "an image first)",
                    path, n));
  return text;
}

int run_retarget(const RetargetOptions& o, Context& ctx) {
  auto to = parse_sm(o.to, "--to");
  if (!to) return kExitError;
  auto text = read_ptx_file(o.file);
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
  std::optional<PtxasOutcome> verified;
  std::string verify_note;
  if (r->ok && o.verify) {
    if (auto ptxas = find_ptxas()) {
      auto v = run_ptxas(*ptxas, r->text, *to);
      if (v.ok())
        verified = *v;
      else
        verify_note = v.error().what;
    } else {
      verify_note = "no ptxas found ($SMCOMPAT_PTXAS, $CUDA_HOME/bin, /usr/local/cuda/bin, PATH)";
    }
  }
  bool wrote = false;
  if (r->ok && !o.output.empty()) {
    std::ofstream out(o.output, std::ios::binary);
    out << r->text;
    if (!out) {
      fmt::print(stderr, "smcompat ptx retarget: cannot write {}\n", o.output);
      return kExitError;
    }
    wrote = true;
  }
  if (o.json) {
    json rw = json::array();
    for (const auto& w : r->rewrites)
      rw.push_back({{"kind", w.kind},
                    {"at", loc_json(w.loc)},
                    {"function", w.function},
                    {"before", w.before},
                    {"after", w.after}});
    json bl = json::array();
    for (const auto& b : r->blockers)
      bl.push_back({{"kernel", b.kernel},
                    {"feature", b.feature},
                    {"at", loc_json(b.loc)},
                    {"reason", b.reason},
                    {"strategy", b.strategy}});
    json out{{"schema", "smcompat.ptx-retarget/1"},
             {"tool_version", SMCOMPAT_VERSION},
             {"argv", ctx.argv},
             {"input", o.file},
             {"to", to->to_string()},
             {"ok", r->ok},
             {"rewrites", std::move(rw)},
             {"blockers", std::move(bl)},
             {"intact_alternative",
              r->intact_alternative ? json(r->intact_alternative->to_string()) : json(nullptr)},
             {"output", wrote ? json(o.output) : json(nullptr)}};
    if (r->ok && !wrote) out["ptx"] = r->text;
    if (verified)
      out["ptxas"] = {{"verified", verified->accepted}, {"log", verified->log}};
    else
      out["ptxas"] = {{"verified", nullptr}, {"note", o.verify ? verify_note : "not requested"}};
    fmt::print("{}\n", out.dump(2));
  } else {
    // The PTX goes to stdout (or -o); the report goes to stderr.
    for (const auto& w : r->rewrites)
      fmt::print(stderr, "{}:{}: {} {}{}: '{}' -> '{}'\n", o.file, fmt_loc(w.loc),
                 st.cyan("rewrite"), w.kind, w.function.empty() ? "" : " in " + w.function,
                 w.before, w.after);
    for (const auto& b : r->blockers) {
      fmt::print(stderr, "{}:{}: {} {}: {}\n", o.file, fmt_loc(b.loc), st.red("cannot retarget"),
                 b.kernel, b.reason);
      if (!b.strategy.empty()) fmt::print(stderr, "    strategy: {}\n", b.strategy);
    }
    if (r->intact_alternative)
      fmt::print(stderr, "{} --to {} keeps this PTX intact (code built for it runs only on {})\n",
                 st.bold("hint:"), r->intact_alternative->to_string(),
                 r->intact_alternative->variant == ArchVariant::kFamily
                     ? "that family"
                     : fmt::format("sm_{} exactly", r->intact_alternative->arch));
    if (verified)
      fmt::print(
          stderr, "ptxas -arch={}: {}\n{}", to->to_string(),
          verified->accepted ? st.green("assembles (verified)") : st.red("REJECTS the result"),
          verified->accepted ? "" : verified->log);
    else if (o.verify && r->ok)
      fmt::print(stderr, "not verified: {}\n", verify_note);
    else if (r->ok)
      fmt::print(stderr,
                 "not verified: only the feature table was checked; --verify assembles the "
                 "result with ptxas\n");
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
  json out_kernels = json::array();
  size_t texts = 0, shown = 0;
  bool over = false, failed = false;
  for (const auto& file : o.files) {
    auto r = for_each_ptx(file, [&](PtxSource&& src) {
      ++texts;
      auto m = parse_module(src.text);
      if (!m.ok()) {
        failed = true;
        fmt::print(stderr, "{}: {}\n", src.display_name(), m.error().what);
        return;
      }
      auto rep = analyze(*m, *target);
      for (const auto& k : rep.kernels) {
        if (!o.kernel.empty() && k.name != o.kernel) continue;
        ++shown;
        for (const auto& r : k.resources)
          if (r.resource == "shared memory" && r.outcome != KernelCheck::kRuns) over = true;
        if (o.json) {
          json j = kernel_json(k);
          j["input"] = source_json(src);
          out_kernels.push_back(std::move(j));
          continue;
        }
        fmt::print("{}  {}\n", st.bold(k.name), st.dim(src.display_name()));
        Table t({"declaration", "bytes", "align", "scope", "declared at", "share"},
                {Table::Align::kLeft, Table::Align::kRight, Table::Align::kRight,
                 Table::Align::kLeft, Table::Align::kLeft, Table::Align::kRight});
        for (const auto& s : k.shared)
          t.add_row({s.name, s.bytes ? std::to_string(*s.bytes) : "dynamic",
                     std::to_string(s.align), s.module_scope ? "module" : "kernel", fmt_loc(s.loc),
                     s.bytes && k.static_smem
                         ? fmt::format("{:.1f}%", 100.0 * *s.bytes / k.static_smem)
                         : ""});
        if (!t.empty()) fmt::print("{}", t.render(st, "  "));
        fmt::print("  static total {} bytes (static limit {})", k.static_smem,
                   kMaxStaticSharedBytes);
        if (k.smem_optin_limit)
          fmt::print("; {} opt-in limit {} bytes", target->to_string(), *k.smem_optin_limit);
        if (k.dynamic_smem_room) fmt::print("; room for {} bytes dynamic", *k.dynamic_smem_room);
        fmt::print("\n");
        for (const auto& r : k.resources)
          if (r.resource == "shared memory")
            fmt::print("  {} {}\n", colour_verdict(st, r.outcome), r.reason);
      }
    });
    if (!r.ok()) {
      failed = true;
      fmt::print(stderr, "smcompat ptx budget: {}\n", r.error().to_string());
    }
  }
  if (o.json)
    fmt::print("{}\n", json{{"schema", "smcompat.ptx-budget/1"},
                            {"tool_version", SMCOMPAT_VERSION},
                            {"argv", ctx.argv},
                            {"target", target->to_string()},
                            {"kernels", std::move(out_kernels)}}
                           .dump(2));
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
