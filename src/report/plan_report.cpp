// Serving-plan renderers (include/smcompat/report/plan_report.hpp).
#include "smcompat/report/plan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "smcompat/report/json_document.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat {

using nlohmann::json;
using plan::PlanEstimate;

namespace {

std::string gib(uint64_t bytes) { return fmt::format("{:.1f}", double(bytes) / (1ull << 30)); }
std::string gib_unit(double bytes) { return fmt::format("{:.1f} GiB", bytes / (1ull << 30)); }

std::string params_text(uint64_t n) {
  if (n >= 1'000'000'000ull) return fmt::format("{:.1f}B", double(n) / 1e9);
  return fmt::format("{:.1f}M", double(n) / 1e6);
}

std::string rate(double v) {
  return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v);
}

// The first reason, cut at a word boundary near `max` display columns.
std::string short_reason(const std::vector<std::string>& why, size_t max = 60) {
  if (why.empty()) return "";
  std::string s = why.front();
  if (s.size() > max) {
    size_t cut = s.rfind(' ', max);
    if (cut == std::string::npos || cut < max / 2) {
      cut = max;  // no space near: cut there, but not inside a UTF-8 sequence
      while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    }
    s = s.substr(0, cut);
    while (!s.empty() && (s.back() == ',' || s.back() == ';' || s.back() == ':' || s.back() == ' '))
      s.pop_back();
    s += "…";
  }
  if (why.size() > 1) s += fmt::format(" (+{})", why.size() - 1);
  return s;
}

const char* expert_mode_name(plan::ExpertMode m) {
  switch (m) {
    case plan::ExpertMode::kTpSharded:
      return "tp-sharded";
    case plan::ExpertMode::kExpertParallel:
      return "expert-parallel";
    default:
      return "none";
  }
}

const char* change_kind_name(plan::FlagChange::Kind k) {
  switch (k) {
    case plan::FlagChange::Kind::kChanged:
      return "changed";
    case plan::FlagChange::Kind::kRemoved:
      return "removed";
    default:
      return "added";
  }
}

std::string formats_text(const plan::ModelSpec& m) {
  if (m.attention_format == m.expert_format) return std::string(plan::to_string(m.expert_format));
  return fmt::format("experts {}, attention {}", plan::to_string(m.expert_format),
                     plan::to_string(m.attention_format));
}

// How many layers of each mixer and FFN kind, for a model whose layers differ (hybrids):
// "layers: 4 full attention + 28 Mamba; FFN 16 dense + 16 MoE; recurrent state 4.59 MiB per
// sequence; activation silu (3 FFN matrices)".
std::string layer_pattern_text(const plan::ModelSpec& m) {
  std::map<std::string, int> mixers, ffns;
  if (m.layer_kinds.empty()) {
    mixers["full"] = m.layers;
  } else {
    for (const auto& l : m.layer_kinds) {
      ++mixers[std::string(plan::to_string(l.mixer))];
      ++ffns[std::string(plan::to_string(l.ffn))];
    }
  }
  auto join = [](const std::map<std::string, int>& counts,
                 const std::map<std::string, std::string>& names) {
    std::string out;
    for (const auto& [kind, n] : counts) {
      auto name = names.find(kind);
      out += fmt::format("{}{} {}", out.empty() ? "" : " + ", n,
                         name == names.end() ? kind : name->second);
    }
    return out;
  };
  std::string out = fmt::format("layers: {}; FFN {}",
                                join(mixers, {{"full", "full attention"},
                                              {"sliding", "sliding-window attention"},
                                              {"linear", "linear attention (Gated DeltaNet)"},
                                              {"mamba", m.mamba.version == 2 ? "Mamba-2" : "Mamba"},
                                              {"none", "without a mixer"}}),
                                join(ffns, {{"dense", "dense"}, {"moe", "MoE"}, {"none", "none"}}));
  if (m.has_recurrent_state())
    out += fmt::format("; recurrent state {:.2f} MiB per sequence",
                       double(m.recurrent_state_bytes_per_sequence()) / (1 << 20));
  if (!m.activation.empty())
    out += fmt::format("; activation {} ({} FFN matrices)", m.activation, m.gated_ffn ? 3 : 2);
  return out;
}

json layers_by_kind(const plan::ModelSpec& m) {
  json mixers = json::object(), ffns = json::object();
  for (const auto& l : m.layer_kinds) {
    std::string mk(plan::to_string(l.mixer)), fk(plan::to_string(l.ffn));
    mixers[mk] = mixers.value(mk, 0) + 1;
    ffns[fk] = ffns.value(fk, 0) + 1;
  }
  return {{"mixer", mixers}, {"ffn", ffns}};
}

std::string why_best_text(const PlanSetResult& s) {
  const PlanEstimate* b = s.best();
  if (!b) return "";
  if (const PlanEstimate* r = s.runner_up()) return plan::why_wins(*b, *r);
  return fmt::format("{} is the only plan that fits", b->shape.name());
}

// The plan that needs the least memory per GPU (what "fits nowhere" is measured against).
const PlanEstimate* smallest(const PlanSetResult& s) {
  const PlanEstimate* out = nullptr;
  for (const auto& p : s.plans)
    if (!out || p.memory.total() < out->memory.total()) out = &p;
  return out;
}

void append_fits_nowhere(std::string& out, const PlanReport& r, const PlanSetResult& s,
                         const Style& st) {
  out += st.red(st.bold(fmt::format("  Fits nowhere on {}", s.gpus.label()))) + "\n";
  const PlanEstimate* p = smallest(s);
  if (!p) {
    out += "    no candidate plan for this model on this many GPUs\n";
    return;
  }
  const auto& m = p->memory;
  const double gpu = double(s.gpus.memory_bytes);
  out += fmt::format(
      "    The plan needing the least memory, {}, needs {} per GPU (weights {}, KV cache {}, "
      "activations {}, reserve {}); a GPU has {}.\n",
      p->shape.name(), gib_unit(double(m.total())), gib_unit(double(m.weights)),
      gib_unit(double(m.kv_cache)), gib_unit(double(m.activations)), gib_unit(double(m.reserve)),
      gib_unit(gpu));
  const bool weights_too_big = double(m.weights) + double(m.reserve) + double(m.activations) > gpu;
  if (s.advice) {
    const plan::FitAdvice& a = *s.advice;
    out += fmt::format("    The weights are {} in all; the {} GPUs offer {} after the reserve.\n",
                       gib_unit(double(a.weights_bytes)), s.gpus.count,
                       gib_unit(double(a.usable_bytes)));
    if (a.gpus_needed)
      out += fmt::format("    {} GPUs of this kind ({} each) would fit a plan.\n", *a.gpus_needed,
                         gib_unit(gpu));
    else
      out += "    No count of this GPU up to 64 fits a plan.\n";
    if (!a.formats_that_fit.empty()) {
      std::string names;
      for (auto f : a.formats_that_fit)
        names += (names.empty() ? "" : ", ") + std::string(plan::to_string(f));
      out += fmt::format("    A smaller weight format would fit on these {} GPUs: {}.\n",
                         s.gpus.count, names);
    } else if (weights_too_big) {
      // No smaller format fits at the requested batch; say which would at a smaller one.
      std::string at_smaller;
      for (const auto& f : a.smaller_formats)
        if (f.max_batch > 0)
          at_smaller +=
              fmt::format("      {}: {} holds at most {} sequences of {} tokens (--batch {})\n",
                          plan::to_string(f.format), f.plan, f.max_batch,
                          r.workload.prompt_len + r.workload.gen_len, f.max_batch);
      if (at_smaller.empty())
        out += "    No smaller weight format fits on these GPUs either, even for one sequence.\n";
      else
        out += fmt::format("    No smaller weight format fits {} sequences; with fewer:\n{}",
                           r.workload.batch, at_smaller);
    }
  }
  if (!weights_too_big) {
    // The weights fit: the KV cache is what does not. The runnable plan that holds the most
    // sequences at these lengths says how far to lower --batch.
    const PlanEstimate* most = nullptr;
    for (const auto& q : s.plans)
      if (q.runnable && (!most || q.max_batch_that_fits > most->max_batch_that_fits)) most = &q;
    if (most && most->max_batch_that_fits > 0)
      out += fmt::format(
          "    The weights fit; the KV cache for {} sequences of {} tokens does not: {} holds at "
          "most {} at these lengths (--batch {}).\n",
          r.workload.batch, r.workload.prompt_len + r.workload.gen_len, most->shape.name(),
          most->max_batch_that_fits, most->max_batch_that_fits);
    else if (std::any_of(s.plans.begin(), s.plans.end(),
                         [](const PlanEstimate& q) { return q.runnable; }))  // else: why_not says
      out +=
          "    The weights fit, but not one sequence's KV cache at these lengths: shorten "
          "--prompt-len / --gen-len or add GPUs.\n";
  }
  if (!p->why_not.empty()) out += "    Why it does not fit:\n";
  for (const auto& why : p->why_not) out += st.dim("    - " + why) + "\n";
}

}  // namespace

namespace {

// Flags (or changes) and why each, the explanations aligned in one column.
void append_explained(std::string& out,
                      const std::vector<std::pair<std::string, std::string>>& rows,
                      const Style& st) {
  size_t width = 0;
  for (const auto& [what, why] : rows) width = std::max(width, display_width(what));
  for (const auto& [what, why] : rows)
    out += "      " + what + std::string(width - display_width(what) + 2, ' ') + st.dim(why) + "\n";
}

}  // namespace

std::string render_plan_text(const PlanReport& r, const Style& st, const PlanTextOptions& opt) {
  std::string out;
  const auto& m = r.model;
  out += st.bold(fmt::format("Serving plan for {}", r.model_id.empty() ? m.name : r.model_id)) +
         st.dim("  (estimated, not measured)") + "\n";
  out +=
      fmt::format("  model: {} ({}), {} layers, {} routed experts ({} per token{}), attention {}\n",
                  m.name, m.model_type, m.layers, m.experts, m.experts_per_token,
                  m.shared_experts ? fmt::format(", {} shared", m.shared_experts) : std::string(),
                  m.attention == plan::AttentionKind::kMla ? "MLA" : "GQA");
  out +=
      fmt::format("  params: {} total, {} active; weights {}; KV cache {} B per token per layer\n",
                  params_text(m.total_params()), params_text(m.active_params()),
                  formats_text(m) + (m.quantization_file.empty()
                                         ? std::string()
                                         : " (format from " + m.quantization_file + ")"),
                  m.kv_bytes_per_token_per_layer());
  if (m.has_recurrent_state() || m.mixerless_layers > 0 || m.dense_layers + m.moe_layers < m.layers)
    out += fmt::format("  {}\n", layer_pattern_text(m));
  for (const auto& note : m.notes) out += st.yellow("  note: " + note) + "\n";
  out += fmt::format("  workload: batch {}, prompt {} tokens, generation {} tokens; engine {}\n",
                     r.workload.batch, r.workload.prompt_len, r.workload.gen_len,
                     plan::to_string(r.engine));
  if (!r.peaks.source.empty()) {
    std::string what;
    if (r.peaks.tflops)
      what += fmt::format("{} GEMM {:.1f} TFLOPS", r.peaks.tflops_format, *r.peaks.tflops);
    if (r.peaks.memory_gbs)
      what += fmt::format("{}memory {:.0f} GB/s", what.empty() ? "" : ", ", *r.peaks.memory_gbs);
    out += fmt::format("  peaks: measured, from {} ({})\n", r.peaks.source, what);
  } else {
    out += "  peaks: the catalog's (pass --bench RESULTS.json for measured ones)\n";
  }

  for (const auto& s : r.sets) {
    out += "\n";
    out += st.bold(s.gpus.label()) +
           fmt::format(": {} per GPU; link {} ({})\n", gib_unit(double(s.gpus.memory_bytes)),
                       plan::to_string(s.gpus.link.kind), s.gpus.link.source);
    if (s.kernels) {
      out += fmt::format("  installed kernels ({}, judged for {}):\n", s.kernels->python,
                         s.kernels->gpu);
      if (s.kernels->packages.empty()) out += "    no serving package installed there\n";
      for (const auto& k : s.kernels->packages)
        out += fmt::format("    {} {}: {}\n", k.name, k.version, st.dim(k.detail));
      for (const auto& e : s.kernels->errors)
        out += "    " + st.yellow("could not read: " + e) + "\n";
    }
    // A model with recurrent layers gets a column for their state beside the KV cache.
    const bool state_column = m.has_recurrent_state();
    std::vector<std::string> heads{"#",        "plan",         "fits",         "weights",
                                   "KV cache", "activations",  "reserve",      "total",
                                   "TPOT ms",  "decode tok/s", "output tok/s", "why not"};
    std::vector<Table::Align> aligns{
        Table::Align::kRight, Table::Align::kLeft,  Table::Align::kLeft,  Table::Align::kRight,
        Table::Align::kRight, Table::Align::kRight, Table::Align::kRight, Table::Align::kRight,
        Table::Align::kRight, Table::Align::kRight, Table::Align::kRight, Table::Align::kLeft};
    if (state_column) {
      heads.insert(heads.begin() + 5, "state");
      aligns.insert(aligns.begin() + 5, Table::Align::kRight);
    }
    Table t(std::move(heads), std::move(aligns));
    size_t shown_unfit = 0, hidden = 0;
    for (size_t i = 0; i < s.plans.size(); ++i) {
      const auto& p = s.plans[i];
      if (!p.fits && !opt.all && shown_unfit++ >= 3) {
        ++hidden;
        continue;
      }
      std::vector<std::string> row{std::to_string(i + 1),
                                   p.shape.name(),
                                   p.fits ? "yes" : (p.runnable ? "no" : "no (can't run)"),
                                   gib(p.memory.weights),
                                   gib(p.memory.kv_cache),
                                   gib(p.memory.activations),
                                   gib(p.memory.reserve),
                                   gib(p.memory.total()),
                                   fmt::format("{:.1f}", p.tpot_ms),
                                   rate(p.decode_tokens_per_s),
                                   rate(p.output_tokens_per_s),
                                   short_reason(p.why_not)};
      if (state_column) row.insert(row.begin() + 5, gib(p.memory.state));
      if (!p.fits)
        for (auto& c : row) c = st.dim(c);
      else if (&p == s.best())
        row[1] = st.green(row[1]);
      t.add_row(std::move(row));
    }
    out += "  memory per GPU in GiB\n";
    out += t.render(st, "  ");
    if (hidden)
      out += st.dim(fmt::format("  {} more plans that do not fit (--all shows them)\n", hidden));

    const PlanEstimate* best = s.best();
    if (!best) {
      out += "\n";
      append_fits_nowhere(out, r, s, st);
      continue;
    }
    const auto& cmd = s.commands[size_t(best - s.plans.data())];
    out += "\n" + st.bold("  Best: " + best->shape.name()) + " — " + why_best_text(s) + "\n";
    for (const auto& n : best->notes) out += "    note: " + n + "\n";
    out += "\n  " + st.bold("Command") + fmt::format(" ({}):\n", plan::to_string(cmd.engine));
    out += "    " + st.cyan(cmd.shell()) + "\n";
    std::vector<std::pair<std::string, std::string>> flag_rows;
    for (const auto& f : cmd.flags)
      flag_rows.emplace_back(f.name + (f.value.empty() ? "" : " " + f.value), f.why);
    append_explained(out, flag_rows, st);
    for (const auto& file : cmd.extra_files) {
      out += "    with this file:\n";
      for (std::string_view line : split(file, '\n'))
        if (!line.empty()) out += "      " + std::string(line) + "\n";
    }
    if (s.rewrite) {
      out += "\n  " + st.bold("Your command, rewritten") + ":\n";
      out += "    " + st.cyan(s.rewrite->shell()) + "\n";
      if (s.rewrite->changes.empty()) out += "      (already says this plan: nothing changed)\n";
      std::vector<std::pair<std::string, std::string>> change_rows;
      for (const auto& c : s.rewrite->changes) {
        std::string what;
        switch (c.kind) {
          case plan::FlagChange::Kind::kAdded:
            what = fmt::format("added {}{}", c.flag, c.new_value.empty() ? "" : " " + c.new_value);
            break;
          case plan::FlagChange::Kind::kChanged:
            what = fmt::format("changed {} {} → {}", c.flag, c.old_value, c.new_value);
            break;
          case plan::FlagChange::Kind::kRemoved:
            what =
                fmt::format("removed {}{}", c.flag, c.old_value.empty() ? "" : " " + c.old_value);
            break;
        }
        change_rows.emplace_back(std::move(what), c.why);
      }
      append_explained(out, change_rows, st);
    }
  }
  if (!r.fits_anywhere())
    out += "\n" + st.red(st.bold("No plan fits on any GPU set given.")) + "\n";
  return out;
}

namespace {

json formats_json(const std::vector<plan::WeightFormat>& formats) {
  json out = json::array();
  for (auto f : formats) out.push_back(std::string(plan::to_string(f)));
  return out;
}

json smaller_formats_json(const std::vector<plan::FitAdvice::SmallerFormat>& formats) {
  json out = json::array();
  for (const auto& f : formats)
    out.push_back({{"format", std::string(plan::to_string(f.format))},
                   {"max_batch", f.max_batch},
                   {"plan", f.plan.empty() ? json(nullptr) : json(f.plan)}});
  return out;
}

json plan_json(const PlanEstimate& p, const plan::EngineCommand& cmd) {
  const auto& d = p.decode;
  json flags = json::array();
  for (const auto& f : cmd.flags)
    flags.push_back({{"name", f.name}, {"value", f.value}, {"why", f.why}});
  return {
      {"plan", p.shape.name()},
      {"tp", p.shape.tp},
      {"dp", p.shape.dp},
      {"pp", p.shape.pp},
      {"ep", p.shape.ep()},
      {"experts", expert_mode_name(p.shape.experts)},
      {"a2a", std::string(plan::to_string(p.shape.a2a))},
      {"dp_attention", p.shape.dp_attention},
      {"fits", p.fits},
      {"runnable", p.runnable},
      {"why_not", p.why_not},
      {"notes", p.notes},
      {"per_gpu",
       {{"weights_bytes", p.memory.weights},
        {"kv_cache_bytes", p.memory.kv_cache},
        {"state_bytes", p.memory.state},
        {"activation_bytes", p.memory.activations},
        {"reserve_bytes", p.memory.reserve},
        {"total_bytes", p.memory.total()},
        {"gpu_memory_bytes", p.gpu_memory_bytes}}},
      {"decode",
       {{"weight_bytes_read", d.weight_bytes_read},
        {"kv_bytes_read", d.kv_bytes_read},
        {"state_bytes", d.state_bytes},
        {"flops", d.flops},
        {"allreduce_bytes", d.allreduce_bytes},
        {"all2all_bytes", d.all2all_bytes},
        {"expert_load_imbalance", d.expert_load_imbalance},
        {"memory_s", d.memory_s},
        {"compute_s", d.compute_s},
        {"comm_s", d.comm_s},
        {"overhead_s", d.overhead_s},
        {"step_s", d.step_s}}},
      {"estimates",
       {{"tpot_ms", p.tpot_ms},
        {"decode_tokens_per_s", p.decode_tokens_per_s},
        {"output_tokens_per_s", p.output_tokens_per_s},
        {"prefill_s", p.prefill_s},
        {"max_batch_that_fits", p.max_batch_that_fits}}},
      {"flags",
       {{"engine", std::string(plan::to_string(cmd.engine))},
        {"argv", cmd.argv},
        {"shell", cmd.shell()},
        {"flags", flags},
        {"extra_files", cmd.extra_files}}},
  };
}

}  // namespace

json plan_to_json(const PlanReport& r, const std::vector<std::string>& argv) {
  const auto& m = r.model;
  const auto& a = r.assumptions;
  json sets = json::array();
  for (const auto& s : r.sets) {
    json plans = json::array();
    for (size_t i = 0; i < s.plans.size(); ++i)
      plans.push_back(plan_json(s.plans[i], s.commands[i]));
    const PlanEstimate* best = s.best();
    json set = {
        {"label", s.gpus.label()},
        {"count", s.gpus.count},
        {"gpu", s.gpus.gpu ? json(s.gpus.gpu->name) : json(nullptr)},
        {"memory_bytes", s.gpus.memory_bytes},
        {"origin", s.gpus.origin},
        {"link",
         {{"kind", std::string(plan::to_string(s.gpus.link.kind))},
          {"gbs_per_direction", s.gpus.link.gbs_per_direction},
          {"efficiency", s.gpus.link.efficiency},
          {"latency_us", s.gpus.link.latency_us},
          {"source", s.gpus.link.source}}},
        {"pcie_gen", s.gpus.pcie_gen},
        {"pcie_width", s.gpus.pcie_width},
        {"plans", std::move(plans)},
        {"best", best ? json(best->shape.name()) : json(nullptr)},
        {"why_best", best ? json(why_best_text(s)) : json(nullptr)},
    };
    if (s.advice)
      set["fit_advice"] = {
          {"gpus_needed", s.advice->gpus_needed ? json(*s.advice->gpus_needed) : json(nullptr)},
          {"formats_that_fit", formats_json(s.advice->formats_that_fit)},
          {"smaller_formats", smaller_formats_json(s.advice->smaller_formats)},
          {"weights_bytes", s.advice->weights_bytes},
          {"usable_bytes", s.advice->usable_bytes}};
    if (s.kernels) {
      json packages = json::array();
      for (const auto& k : s.kernels->packages)
        packages.push_back({{"name", k.name},
                            {"version", k.version},
                            {"fit", to_string(k.fit)},
                            {"runs", to_string(k.runs)},
                            {"detail", k.detail},
                            {"carries", k.carries},
                            {"has_device_code", k.has_device_code},
                            {"without_code", k.without_code}});
      set["kernels"] = {{"python", s.kernels->python},
                        {"gpu", s.kernels->gpu},
                        {"packages", std::move(packages)},
                        {"errors", s.kernels->errors}};
    }
    if (s.rewrite) {
      json changes = json::array();
      for (const auto& c : s.rewrite->changes)
        changes.push_back({{"kind", change_kind_name(c.kind)},
                           {"flag", c.flag},
                           {"old_value", c.old_value},
                           {"new_value", c.new_value},
                           {"why", c.why}});
      set["rewrite"] = {{"argv", s.rewrite->argv},
                        {"shell", s.rewrite->shell()},
                        {"changes", std::move(changes)}};
    }
    sets.push_back(std::move(set));
  }
  json peaks = {{"source", r.peaks.source.empty() ? "catalog" : "measured"}};
  if (!r.peaks.source.empty()) {
    peaks["file"] = r.peaks.source;
    peaks["tflops"] = r.peaks.tflops ? json(*r.peaks.tflops) : json(nullptr);
    peaks["tflops_format"] = r.peaks.tflops ? json(r.peaks.tflops_format) : json(nullptr);
    peaks["memory_gbs"] = r.peaks.memory_gbs ? json(*r.peaks.memory_gbs) : json(nullptr);
  }
  json fields = {
      {"model",
       {{"name", m.name},
        {"model_type", m.model_type},
        {"layers", m.layers},
        {"hidden", m.hidden},
        {"experts", m.experts},
        {"experts_per_token", m.experts_per_token},
        {"shared_experts", m.shared_experts},
        {"attention", m.attention == plan::AttentionKind::kMla ? "mla" : "gqa"},
        {"total_params", m.total_params()},
        {"active_params", m.active_params()},
        {"expert_format", std::string(plan::to_string(m.expert_format))},
        {"attention_format", std::string(plan::to_string(m.attention_format))},
        {"kv_bytes_per_token_per_layer", m.kv_bytes_per_token_per_layer()},
        {"layers_by_kind", layers_by_kind(m)},
        {"recurrent_state_bytes_per_sequence", m.recurrent_state_bytes_per_sequence()},
        {"quantization", m.quantization},
        {"quantization_file", m.quantization_file.empty() ? "config.json" : m.quantization_file},
        {"notes", m.notes}}},
      {"model_id", r.model_id},
      {"engine", std::string(plan::to_string(r.engine))},
      {"workload",
       {{"batch", r.workload.batch},
        {"prompt_len", r.workload.prompt_len},
        {"gen_len", r.workload.gen_len}}},
      {"assumptions",
       {{"memory_efficiency", a.memory_efficiency},
        {"compute_efficiency", a.compute_efficiency},
        {"memory_utilization", a.memory_utilization},
        {"runtime_overhead_bytes", a.runtime_overhead_bytes},
        {"prefill_chunk_tokens", a.prefill_chunk_tokens},
        {"routing_skew", a.routing_skew},
        {"per_layer_overhead_us", a.per_layer_overhead_us}}},
      {"peaks", std::move(peaks)},
      {"gpu_sets", std::move(sets)},
      {"fits_anywhere", r.fits_anywhere()},
  };
  if (r.from) fields["from"] = *r.from;
  if (!r.python.empty()) fields["python"] = r.python;
  return json_document(kPlanSchema, argv, std::move(fields));
}

}  // namespace smcompat
