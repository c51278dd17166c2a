// PTX retargeting (include/smcompat/ptx/retarget.hpp). Decides module-wide which rewrites are
// needed from the analysis for the target, refuses anything that is not mechanically safe, and
// then edits the original text by byte ranges.
#include "smcompat/ptx/retarget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "smcompat/catalog/catalog.hpp"
#include "text_edits.hpp"

namespace smcompat::ptx {
namespace {

std::string comment(std::string_view what) { return removed_comment(what); }

// Rewrites of cluster special registers for a cluster of one (PTX ISA "Special Registers").
std::optional<std::string> cluster_sreg_constant(std::string_view op) {
  static const std::pair<std::string_view, std::string_view> kMap[] = {
      {"%cluster_ctarank", "0"},      {"%cluster_nctarank", "1"},
      {"%cluster_ctaid.x", "0"},      {"%cluster_ctaid.y", "0"},
      {"%cluster_ctaid.z", "0"},      {"%cluster_nctaid.x", "1"},
      {"%cluster_nctaid.y", "1"},     {"%cluster_nctaid.z", "1"},
      {"%clusterid.x", "%ctaid.x"},   {"%clusterid.y", "%ctaid.y"},
      {"%clusterid.z", "%ctaid.z"},   {"%nclusterid.x", "%nctaid.x"},
      {"%nclusterid.y", "%nctaid.y"}, {"%nclusterid.z", "%nctaid.z"},
  };
  for (const auto& [from, to] : kMap)
    if (op == from) return std::string(to);
  return std::nullopt;
}

bool is_available(const FeatureRow& row, const SmTarget& t) {
  return FeatureTable::availability(row, t) == Availability::kAvailable;
}

}  // namespace

Result<RetargetResult> retarget(std::string_view text, const SmTarget& to_in,
                                const FeatureTable& table) {
  SMCOMPAT_TRY(Module m, parse_module(text));
  RetargetResult res;
  SmTarget to = to_in;
  to.kind = ImageKind::kSass;
  res.to = to;
  res.before = analyze(m, to, {}, table);

  // Which rewrites the target needs, and what blocks them.
  bool need_drop_setmaxnreg = false, need_cluster_collapse = false;
  std::vector<std::pair<std::string, const FeatureUse*>> dsmem_uses;
  for (const auto& k : res.before.kernels) {
    for (const auto& f : k.features) {
      if (f.row->dsmem) dsmem_uses.emplace_back(k.name, &f);
      if (f.outcome == KernelCheck::kRuns) continue;
      if (f.row->rewrite == "drop") {
        need_drop_setmaxnreg = true;
      } else if (f.row->rewrite == "cluster") {
        need_cluster_collapse = true;
      } else if (!f.row->dsmem) {
        res.blockers.push_back({k.name, f.row->id, f.first, f.reason, f.row->strategy});
      }
    }
    for (const auto& r : k.resources)
      if (r.outcome != KernelCheck::kRuns)
        res.blockers.push_back(
            {k.name, r.resource, k.loc, r.reason,
             r.resource == "shared memory"
                 ? "smaller tiles or fewer pipeline stages (one stage of a 128x128x64 FP16 tile "
                   "is 32 KiB), or keep the accumulator in registers"
                 : ""});
  }
  for (const auto& [kernel, f] : dsmem_uses) {
    if (need_cluster_collapse)
      res.blockers.push_back(
          {kernel, f->row->id, f->first,
           fmt::format("{} uses another block's shared memory (DSMEM) with {} ('{}'): its "
                       "cluster cannot be collapsed to one block",
                       kernel, f->row->title, f->first_instruction),
           f->row->strategy});
    else if (f->outcome != KernelCheck::kRuns)
      res.blockers.push_back({kernel, f->row->id, f->first, f->reason, f->row->strategy});
  }

  // An a/f target of the same arch that takes the code as it is.
  if (need_drop_setmaxnreg || need_cluster_collapse || !res.blockers.empty()) {
    for (ArchVariant v : {ArchVariant::kFamily, ArchVariant::kArchSpecific}) {
      SmTarget alt = to;
      alt.variant = v;
      if (alt == to) continue;
      const ArchInfo* ai = Catalog::builtin().arch(to.arch);
      if (!ai || (v == ArchVariant::kFamily && !ai->has_f) ||
          (v == ArchVariant::kArchSpecific && !ai->has_a))
        continue;
      if (analyze(m, alt, {}, table).outcome == KernelCheck::kRuns) {
        res.intact_alternative = alt;
        break;
      }
    }
  }
  if (!res.blockers.empty()) return res;

  // Edits.
  std::vector<TextEdit> edits;
  auto fn_of = [&](uint32_t stmt_index) -> std::string {
    for (const auto& f : m.functions)
      if (stmt_index >= f.first_statement && stmt_index < f.first_statement + f.statement_count)
        return std::string(f.name);
    return {};
  };
  auto span_text = [&](Span s) { return std::string(text.substr(s.begin, s.end - s.begin)); };
  std::vector<uint16_t> matched;
  for (uint32_t si = 0; si < m.statements.size(); ++si) {
    const Statement& st = m.statements[si];
    if (st.kind != StatementKind::kInstruction) continue;
    matched.clear();
    table.match_instruction(st, m.operands_of(st), matched);
    for (uint16_t r : matched) {
      const FeatureRow& row = table.rows()[r];
      if (is_available(row, to)) continue;
      const std::string before = span_text(st.span);
      if (row.rewrite == "drop" && need_drop_setmaxnreg) {
        edits.push_back({st.span.begin, st.span.end, comment(before)});
        res.rewrites.push_back({st.loc, fn_of(si), "drop-setmaxnreg", before, comment(before)});
      } else if (row.rewrite == "cluster" && row.id == "barrier_cluster") {
        std::string after;
        if (st.name.find(".arrive") != std::string_view::npos) {
          after = comment(before);
        } else {
          after = std::string(st.guard) + (st.guard.empty() ? "" : " ") +
                  (st.has_modifier(".aligned") ? "barrier.sync.aligned 0;" : "barrier.sync 0;");
        }
        edits.push_back({st.span.begin, st.span.end, after});
        res.rewrites.push_back({st.loc, fn_of(si), "cluster-collapse", before, after});
      } else if (row.rewrite == "cluster" && row.id == "cluster_sreg") {
        if (st.opcode() != "mov") {
          res.blockers.push_back(
              {fn_of(si), row.id, st.loc,
               fmt::format("'{}' reads a cluster register outside a mov", before), row.strategy});
          continue;
        }
        const std::string_view* ops = m.operands_of(st);
        for (uint32_t k = 0; k < st.operand_count; ++k) {
          if (ops[k].find("%cluster") == std::string_view::npos &&
              ops[k].find("%ncluster") == std::string_view::npos &&
              ops[k].find("%is_explicit_cluster") == std::string_view::npos)
            continue;
          auto c = cluster_sreg_constant(ops[k]);
          if (!c) {
            res.blockers.push_back({fn_of(si), row.id, st.loc,
                                    fmt::format("no constant for '{}' in a cluster of one", ops[k]),
                                    row.strategy});
            continue;
          }
          uint32_t b = static_cast<uint32_t>(ops[k].data() - text.data());
          edits.push_back({b, b + static_cast<uint32_t>(ops[k].size()), *c});
          res.rewrites.push_back({st.loc, fn_of(si), "cluster-collapse", std::string(ops[k]), *c});
        }
      } else if (row.rewrite == "cluster" && row.id == "cluster_scope") {
        // Replace the ".cluster" part of the instruction name by ".cta".
        std::string_view name = st.name;
        size_t pos = 0;
        while ((pos = name.find(".cluster", pos)) != std::string_view::npos) {
          size_t end = pos + 8;
          if (end == name.size() || name[end] == '.') {
            uint32_t b = static_cast<uint32_t>(name.data() - text.data() + pos);
            edits.push_back({b, b + 8, ".cta"});
            std::string after(name);
            after.replace(pos, 8, ".cta");
            res.rewrites.push_back(
                {st.loc, fn_of(si), "cluster-collapse", std::string(name), after});
          }
          pos = end;
        }
      }
    }
  }
  if (need_cluster_collapse) {
    for (const auto& f : m.functions)
      for (const auto& item : f.perf.items) {
        if (item.directive != ".reqnctapercluster" && item.directive != ".explicitcluster" &&
            item.directive != ".maxclusterrank")
          continue;
        std::string before = span_text(item.span);
        edits.push_back({item.span.begin, item.span.end, comment(before)});
        res.rewrites.push_back(
            {item.loc, std::string(f.name), "cluster-collapse", before, comment(before)});
      }
  }
  if (!res.blockers.empty()) {
    res.rewrites.clear();
    return res;
  }

  // .target and .version.
  if (m.target_span.end > m.target_span.begin) {
    std::string rest;
    size_t comma = m.target_text.find(',');
    if (comma != std::string_view::npos) rest = std::string(m.target_text.substr(comma));
    std::string after = ".target " + to.to_string() + rest;
    std::string before = span_text(m.target_span);
    if (before != after) {
      edits.push_back({m.target_span.begin, m.target_span.end, after});
      res.rewrites.push_back({m.target_loc, "", "target", before, after});
    }
  } else {
    res.blockers.push_back({"", "target", {}, "the PTX has no .target directive", ""});
    return res;
  }
  Version need = m.version;
  if (const ArchInfo* ai = Catalog::builtin().arch(to.arch); ai && ai->min_ptx_isa)
    need = std::max(need, *ai->min_ptx_isa);
  if (need > m.version) {
    std::string before = span_text(m.version_span);
    std::string after = ".version " + need.to_string();
    edits.push_back({m.version_span.begin, m.version_span.end, after});
    res.rewrites.push_back({m.version_loc, "", "version", before, after});
  }

  std::string out = apply_text_edits(text, std::move(edits));
  std::sort(res.rewrites.begin(), res.rewrites.end(),
            [](const Rewrite& a, const Rewrite& b) { return a.loc.offset < b.loc.offset; });

  // Check the result the same way as the input.
  auto again = parse_module(out);
  if (!again.ok()) {
    res.blockers.push_back(
        {"", "internal", {}, "the rewritten PTX does not parse: " + again.error().what, ""});
    return res;
  }
  auto after = analyze(*again, to, {}, table);
  for (const auto& k : after.kernels)
    if (k.outcome != KernelCheck::kRuns)
      res.blockers.push_back(
          {k.name, "internal", k.loc,
           fmt::format("after the rewrites the kernel still does not fit {} ({})", to.to_string(),
                       to_string(k.outcome)),
           ""});
  if (!res.blockers.empty()) return res;
  res.ok = true;
  res.text = std::move(out);
  return res;
}

}  // namespace smcompat::ptx
