// Rendering of `smcompat ptx` (include/smcompat/report/ptx_report.hpp). Schemas: docs/ptx.md.
#include "smcompat/report/ptx_report.hpp"

#include <fmt/format.h>

#include <iterator>

#include "smcompat/report/json_document.hpp"

namespace smcompat {

namespace {

using json = nlohmann::json;
using ptx::KernelCheck;

json loc_json(const ptx::SourceLoc& l) { return json{{"line", l.line}, {"column", l.col}}; }

std::string fmt_loc(const ptx::SourceLoc& l) { return fmt::format("{}:{}", l.line, l.col); }

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json error_json(const Error& e, std::string_view text) {
  json j{{"what", e.what}};
  if (e.offset) {
    j["offset"] = *e.offset;
    auto l = ptx::locate(text, *e.offset);
    j["line"] = l.line;
    j["column"] = l.col;
  }
  return j;
}

}  // namespace

std::string styled_check(KernelCheck check, const Style& style) {
  std::string s = to_string(check);
  switch (check) {
    case KernelCheck::kRuns:
      return style.green(s);
    case KernelCheck::kNeedsSpecificTarget:
      return style.yellow(s);
    default:
      return style.red(s);
  }
}

json ptx_source_json(const ptx::PtxSource& s) {
  json j{{"file", s.file}, {"member", s.member}};
  if (s.embedded)
    j["image"] = {{"entry_offset", s.entry_offset},
                  {"target", s.image_target ? s.image_target->to_string() : ""},
                  {"section", s.section}};
  else
    j["image"] = nullptr;
  return j;
}

json ptx_kernel_json(const ptx::KernelReport& k) {
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
    if (f.outcome != KernelCheck::kRuns && !f.row->strategy.empty())
      fj["strategy"] = f.row->strategy;
    feats.push_back(std::move(fj));
  }
  json shared = json::array();
  for (const auto& s : k.shared)
    shared.push_back({{"name", s.name},
                      {"bytes", or_null(s.bytes)},
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
           {"optin_limit", or_null(k.smem_optin_limit)},
           {"dynamic_room", or_null(k.dynamic_smem_room)},
           {"declarations", std::move(shared)}}},
         {"resources", std::move(res)}};
  j["specific_target"] = k.specific_target ? json(k.specific_target->to_string()) : json(nullptr);
  j["cluster_dims"] = or_null(k.cluster_dims);
  j["maxnreg"] = or_null(k.perf.maxnreg);
  return j;
}

json ptx_module_json(const ptx::PtxSource& source, const ptx::ModuleReport& rep) {
  json j = ptx_source_json(source);
  j["ptx_version"] = rep.ptx_version.to_string();
  j["ptx_target"] = rep.ptx_target;
  j["notes"] = rep.notes;
  j["verdict"] = to_string(rep.outcome);
  j["kernels"] = json::array();
  for (const auto& k : rep.kernels) j["kernels"].push_back(ptx_kernel_json(k));
  return j;
}

json ptx_parse_error_json(const ptx::PtxSource& source, const Error& error) {
  json j = ptx_source_json(source);
  j["error"] = error_json(error, source.text);
  return j;
}

json ptx_file_error_json(const std::string& file, const Error& error) {
  return {{"file", file}, {"error", {{"what", error.to_string()}}}};
}

void PtxCheckTotals::add(const ptx::ModuleReport& report) {
  worst = std::max(worst, report.outcome);
  for (const auto& k : report.kernels) ++by_outcome[to_string(k.outcome)];
  kernels += report.kernels.size();
}

json ptx_check_json(const PtxCheckTotals& t, std::vector<json> inputs,
                    const std::vector<std::string>& argv) {
  return json_document(kPtxCheckSchema, argv,
                       {{"target", t.target.to_string()},
                        {"inputs", std::move(inputs)},
                        {"summary",
                         {{"ptx_texts", t.ptx_texts},
                          {"kernels", t.kernels},
                          {"errors", t.errors},
                          {"by_verdict", t.by_outcome}}},
                        {"verdict", to_string(t.worst)}});
}

std::string render_ptx_module_text(const ptx::PtxSource& src, const ptx::ModuleReport& rep,
                                   bool show_all, const Style& st) {
  std::string out;
  auto put = std::back_inserter(out);
  std::map<KernelCheck, size_t> counts;
  for (const auto& k : rep.kernels) ++counts[k.outcome];
  std::string summary;
  for (const auto& [v, n] : counts)
    summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, styled_check(v, st));
  fmt::format_to(put, "{}  PTX {} .target {}  {} kernel{}{}{}\n", st.bold(src.display_name()),
                 rep.ptx_version.to_string(), rep.ptx_target, rep.kernels.size(),
                 rep.kernels.size() == 1 ? "" : "s", summary.empty() ? "" : ": ", summary);
  for (const auto& n : rep.notes) fmt::format_to(put, "  {} {}\n", st.dim("note:"), n);
  for (const auto& k : rep.kernels) {
    if (!show_all && k.outcome == KernelCheck::kRuns) continue;
    std::string extra;
    if (k.specific_target) extra = fmt::format(" (builds for {})", k.specific_target->to_string());
    fmt::format_to(put, "  {}  line {}  {}{}\n", st.bold(k.name), k.loc.line,
                   styled_check(k.outcome, st), extra);
    Table t({"feature", "first use", "uses", "verdict", "why"});
    for (const auto& f : k.features)
      t.add_row({f.row->id,
                 fmt::format("{} {}", fmt_loc(f.first), f.first_instruction.substr(0, 40)),
                 std::to_string(f.count), styled_check(f.outcome, st), f.reason});
    if (!t.empty()) out += t.render(st, "    ");
    std::string smem = fmt::format("shared memory: {} bytes static", k.static_smem);
    if (k.smem_optin_limit)
      smem += fmt::format(", opt-in limit {} on {}", *k.smem_optin_limit, rep.target.to_string());
    if (k.dynamic_smem_room)
      smem += fmt::format(", room for {} bytes dynamic", *k.dynamic_smem_room);
    fmt::format_to(put, "    {}\n", smem);
    if (k.cluster_dims)
      fmt::format_to(put, "    cluster: {}x{}x{}\n", (*k.cluster_dims)[0], (*k.cluster_dims)[1],
                     (*k.cluster_dims)[2]);
    for (const auto& r : k.resources)
      fmt::format_to(put, "    {}: {} {}\n", r.resource, styled_check(r.outcome, st), r.reason);
    for (const auto& f : k.features)
      if (f.outcome != KernelCheck::kRuns && !f.row->strategy.empty())
        fmt::format_to(put, "    {} {}: {}\n", st.dim("strategy"), f.row->id, f.row->strategy);
  }
  return out;
}

std::string render_ptx_parse_error_text(const ptx::PtxSource& source, const Error& error,
                                        const Style& st) {
  return fmt::format("{}: {}: {}\n", source.display_name(), st.red("error"), error.what);
}

std::string render_ptx_check_summary_text(const PtxCheckTotals& t, const Style& st) {
  std::string counts;
  for (const auto& [v, n] : t.by_outcome) counts += fmt::format(", {} {}", n, v);
  std::string out = fmt::format(
      "{} PTX text{}, {} kernel{} for {}{}{}\n", t.ptx_texts, t.ptx_texts == 1 ? "" : "s",
      t.kernels, t.kernels == 1 ? "" : "s", t.target.to_string(), counts,
      t.errors ? fmt::format(", {} error{}", t.errors, t.errors == 1 ? "" : "s") : "");
  out +=
      st.dim(fmt::format("Verdicts say whether each kernel's code fits {} once built or retargeted "
                         "for it; notes say when the PTX as shipped cannot load there.",
                         t.target.to_string()));
  out += '\n';
  return out;
}

namespace {

json rewrites_json(const std::vector<ptx::Rewrite>& rewrites) {
  json rw = json::array();
  for (const auto& w : rewrites)
    rw.push_back({{"kind", w.kind},
                  {"at", loc_json(w.loc)},
                  {"function", w.function},
                  {"before", w.before},
                  {"after", w.after}});
  return rw;
}

json blockers_json(const std::vector<ptx::Blocker>& blockers) {
  json bl = json::array();
  for (const auto& b : blockers)
    bl.push_back({{"kernel", b.kernel},
                  {"feature", b.feature},
                  {"at", loc_json(b.loc)},
                  {"reason", b.reason},
                  {"strategy", b.strategy}});
  return bl;
}

json ptxas_json(const std::optional<ptx::PtxasOutcome>& verified, bool requested,
                const std::string& note) {
  if (verified) return {{"verified", verified->accepted}, {"log", verified->log}};
  return {{"verified", nullptr}, {"note", requested ? note : "not requested"}};
}

void render_blockers(std::string& out, const std::string& input, std::string_view verb,
                     const std::vector<ptx::Blocker>& blockers, const Style& st) {
  auto put = std::back_inserter(out);
  for (const auto& b : blockers) {
    fmt::format_to(put, "{}:{}: {} {}: {}\n", input, fmt_loc(b.loc), st.red(std::string(verb)),
                   b.kernel, b.reason);
    if (!b.strategy.empty()) fmt::format_to(put, "    strategy: {}\n", b.strategy);
  }
}

void render_verification(std::string& out, const SmTarget& to,
                         const std::optional<ptx::PtxasOutcome>& verified, bool requested, bool ok,
                         const std::string& note, const Style& st) {
  auto put = std::back_inserter(out);
  if (verified)
    fmt::format_to(
        put, "ptxas -arch={}: {}\n{}", to.to_string(),
        verified->accepted ? st.green("assembles (verified)") : st.red("REJECTS the result"),
        verified->accepted ? "" : verified->log);
  else if (requested && ok)
    fmt::format_to(put, "not verified: {}\n", note);
  else if (ok)
    out +=
        "not verified: only the feature table was checked; --verify assembles the result with "
        "ptxas\n";
}

}  // namespace

json ptx_retarget_json(const PtxRetargetOutcome& o, const std::vector<std::string>& argv) {
  const ptx::RetargetResult& r = *o.result;
  json out = json_document(
      kPtxRetargetSchema, argv,
      {{"input", o.input},
       {"to", o.to.to_string()},
       {"ok", r.ok},
       {"rewrites", rewrites_json(r.rewrites)},
       {"blockers", blockers_json(r.blockers)},
       {"intact_alternative",
        r.intact_alternative ? json(r.intact_alternative->to_string()) : json(nullptr)},
       {"output", or_null(o.written)}});
  if (r.ok && !o.written) out["ptx"] = r.text;
  out["ptxas"] = ptxas_json(o.verified, o.verify_requested, o.verify_note);
  return out;
}

std::string render_ptx_retarget_text(const PtxRetargetOutcome& o, const Style& st) {
  const ptx::RetargetResult& r = *o.result;
  std::string out;
  auto put = std::back_inserter(out);
  for (const auto& w : r.rewrites)
    fmt::format_to(put, "{}:{}: {} {}{}: '{}' -> '{}'\n", o.input, fmt_loc(w.loc),
                   st.cyan("rewrite"), w.kind, w.function.empty() ? "" : " in " + w.function,
                   w.before, w.after);
  render_blockers(out, o.input, "cannot retarget", r.blockers, st);
  if (r.intact_alternative)
    fmt::format_to(put, "{} --to {} keeps this PTX intact (code built for it runs only on {})\n",
                   st.bold("hint:"), r.intact_alternative->to_string(),
                   r.intact_alternative->variant == ArchVariant::kFamily
                       ? "that family"
                       : fmt::format("sm_{} exactly", r.intact_alternative->arch));
  render_verification(out, o.to, o.verified, o.verify_requested, r.ok, o.verify_note, st);
  return out;
}

json ptx_lower_json(const PtxLowerOutcome& o, const std::vector<std::string>& argv) {
  const ptx::LowerResult& r = *o.result;
  json low = json::array();
  for (const auto& l : r.lowered)
    low.push_back({{"kind", l.kind},
                   {"at", loc_json(l.loc)},
                   {"function", l.function},
                   {"instruction", l.instruction},
                   {"mma_sync", l.mma_count}});
  json out = json_document(kPtxLowerSchema, argv,
                           {{"input", o.input},
                            {"to", o.to.to_string()},
                            {"ok", r.ok},
                            {"lowered", std::move(low)},
                            {"rewrites", rewrites_json(r.rewrites)},
                            {"blockers", blockers_json(r.blockers)},
                            {"output", or_null(o.written)}});
  json shared = json::array();
  for (const auto& a : r.shared_added)
    shared.push_back({{"function", a.function},
                      {"bytes", a.bytes},
                      {"where", a.dynamic ? "dynamic" : "static"},
                      {"block_limit", or_null(a.block_limit)}});
  out["shared_memory_added"] = std::move(shared);
  if (r.ok && !o.written) out["ptx"] = r.text;
  out["ptxas"] = ptxas_json(o.verified, o.verify_requested, o.verify_note);
  json interp = json::array();
  for (const auto& v : o.interpreted)
    interp.push_back({{"kernel", v.kernel},
                      {"status", v.status},
                      {"bytes_compared", v.bytes_compared},
                      {"differing_bytes", v.differing_bytes},
                      {"bytes_written", v.bytes_written},
                      {"reason", v.reason}});
  out["interpreter"] = std::move(interp);
  return out;
}

std::string render_ptx_lower_text(const PtxLowerOutcome& o, const Style& st) {
  const ptx::LowerResult& r = *o.result;
  std::string out;
  auto put = std::back_inserter(out);
  for (const auto& l : r.lowered) {
    if (l.kind == "wgmma-mma")
      fmt::format_to(put, "{}:{}: {} in {}: '{}' -> {} x mma.sync per warp\n", o.input,
                     fmt_loc(l.loc), st.cyan("lower"), l.function, l.instruction, l.mma_count);
    else if (l.kind == "tcgen05-mma")
      fmt::format_to(put, "{}:{}: {} in {}: '{}' -> {} x mma.sync by the issuing warp\n", o.input,
                     fmt_loc(l.loc), st.cyan("lower"), l.function, l.instruction, l.mma_count);
    else if (l.kind == "tcgen05-memory")
      fmt::format_to(put, "{}:{}: {} in {}: '{}' -> shared memory\n", o.input, fmt_loc(l.loc),
                     st.cyan("lower"), l.function, l.instruction);
    else if (l.kind == "tcgen05-commit")
      fmt::format_to(put, "{}:{}: {} in {}: '{}' -> mbarrier.arrive\n", o.input, fmt_loc(l.loc),
                     st.cyan("lower"), l.function, l.instruction);
    else
      fmt::format_to(put, "{}:{}: {} in {}: '{}' ({})\n", o.input, fmt_loc(l.loc),
                     st.cyan("remove"), l.function, l.instruction,
                     l.kind == "wgmma-sync" ? "mma.sync is synchronous"
                                            : "shared-memory tensor memory needs no ordering");
  }
  for (const auto& a : r.shared_added) {
    const std::string limit = a.block_limit ? fmt::format("; {} allows {} bytes per block in all",
                                                          o.to.to_string(), *a.block_limit)
                                            : std::string();
    if (a.dynamic)
      fmt::format_to(put,
                     "{}: {} in {}: tensor memory is the first {} bytes of the dynamic shared "
                     "memory (the kernel's own moved up): launch it with {} bytes more dynamic "
                     "shared memory than the original{}\n",
                     o.input, st.yellow("note"), a.function, a.bytes, a.bytes, limit);
    else
      fmt::format_to(put,
                     "{}: {} in {}: {} bytes of static shared memory stand for tensor memory, "
                     "besides the launch's dynamic shared memory{}\n",
                     o.input, st.yellow("note"), a.function, a.bytes, limit);
  }
  for (const auto& w : r.rewrites)
    fmt::format_to(put, "{}:{}: {} {}{}: '{}' -> '{}'\n", o.input, fmt_loc(w.loc),
                   st.cyan("rewrite"), w.kind, w.function.empty() ? "" : " in " + w.function,
                   w.before, w.after);
  render_blockers(out, o.input, "cannot lower", r.blockers, st);
  if (r.ok)
    fmt::format_to(put, "{} {} wgmma and {} tcgen05.mma instruction(s) for {}\n",
                   st.green("lowered"),
                   std::count_if(r.lowered.begin(), r.lowered.end(),
                                 [](const ptx::Lowering& l) { return l.kind == "wgmma-mma"; }),
                   std::count_if(r.lowered.begin(), r.lowered.end(),
                                 [](const ptx::Lowering& l) { return l.kind == "tcgen05-mma"; }),
                   o.to.to_string());
  render_verification(out, o.to, o.verified, o.verify_requested, r.ok, o.verify_note, st);
  for (const auto& v : o.interpreted) {
    if (v.status == "equal")
      fmt::format_to(put,
                     "interpreter: {} {} (original vs lowered: {} bytes of memory compared, {} of "
                     "them written by the kernel)\n",
                     v.kernel, st.green("same results"), v.bytes_compared, v.bytes_written);
    else if (v.status == "differs")
      fmt::format_to(put, "interpreter: {} {}: {} of {} bytes differ\n", v.kernel,
                     st.red("DIFFERENT results"), v.differing_bytes, v.bytes_compared);
    else
      fmt::format_to(put, "interpreter: {} not run: {}\n", v.kernel, v.reason);
  }
  return out;
}

json ptx_budget_kernel_json(const ptx::PtxSource& source, const ptx::KernelReport& kernel) {
  json j = ptx_kernel_json(kernel);
  j["input"] = ptx_source_json(source);
  return j;
}

json ptx_budget_json(const SmTarget& target, std::vector<json> kernels,
                     const std::vector<std::string>& argv) {
  return json_document(kPtxBudgetSchema, argv,
                       {{"target", target.to_string()}, {"kernels", std::move(kernels)}});
}

std::string render_ptx_budget_text(const ptx::PtxSource& src, const ptx::KernelReport& k,
                                   const SmTarget& target, const Style& st) {
  std::string out;
  auto put = std::back_inserter(out);
  fmt::format_to(put, "{}  {}\n", st.bold(k.name), st.dim(src.display_name()));
  using A = Table::Align;
  Table t({"declaration", "bytes", "align", "scope", "declared at", "share"},
          {A::kLeft, A::kRight, A::kRight, A::kLeft, A::kLeft, A::kRight});
  for (const auto& s : k.shared)
    t.add_row(
        {s.name, s.bytes ? std::to_string(*s.bytes) : "dynamic", std::to_string(s.align),
         s.module_scope ? "module" : "kernel", fmt_loc(s.loc),
         s.bytes && k.static_smem ? fmt::format("{:.1f}%", 100.0 * *s.bytes / k.static_smem) : ""});
  if (!t.empty()) out += t.render(st, "  ");
  fmt::format_to(put, "  static total {} bytes (static limit {})", k.static_smem,
                 ptx::kMaxStaticSharedBytes);
  if (k.smem_optin_limit)
    fmt::format_to(put, "; {} opt-in limit {} bytes", target.to_string(), *k.smem_optin_limit);
  if (k.dynamic_smem_room) fmt::format_to(put, "; room for {} bytes dynamic", *k.dynamic_smem_room);
  out += '\n';
  for (const auto& r : k.resources)
    if (r.resource == "shared memory")
      fmt::format_to(put, "  {} {}\n", styled_check(r.outcome, st), r.reason);
  return out;
}

}  // namespace smcompat
