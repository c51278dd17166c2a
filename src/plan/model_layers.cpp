// The layer patterns of hybrid families (data/layer_patterns.json, compiled in): which layers
// attend (full, sliding window, linear attention, Mamba SSM or none) and which carry a dense FFN
// or routed experts, read from the fields each family's config.json uses, and the shapes of the
// Mamba and Gated DeltaNet mixers. Each row names the Hugging Face modeling file its rules were
// read from; docs/plan.md ("Layer patterns") has the table. A new family with the same kinds of
// layers is a new row, not new code.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "model_internal.hpp"
#include "smcompat/util/embedded.hpp"

SMCOMPAT_EMBEDDED(layer_patterns_json)

namespace smcompat::plan {

namespace {

using nlohmann::json;

using detail::kMaxHeads;
using detail::kMaxLayers;
using detail::kMaxWidth;
constexpr int64_t kMaxState = 1 << 16;

// The data file is ours: a malformed row is a bug, reported as an error rather than thrown.
Error data_error(const std::string& what) {
  return make_error("data/layer_patterns.json: " + what);
}

std::string str_or(const json& row, const char* key, const std::string& fallback = "") {
  auto it = row.find(key);
  return it != row.end() && it->is_string() ? it->get<std::string>() : fallback;
}
int64_t int_or(const json& row, const char* key, int64_t fallback) {
  auto it = row.find(key);
  return it != row.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}
bool bool_or(const json& row, const char* key, bool fallback) {
  auto it = row.find(key);
  return it != row.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

Result<MixerKind> mixer_kind(const std::string& name) {
  if (name == "full") return MixerKind::kFull;
  if (name == "sliding") return MixerKind::kSliding;
  if (name == "linear") return MixerKind::kLinear;
  if (name == "mamba") return MixerKind::kMamba;
  if (name == "none") return MixerKind::kNone;
  return data_error(fmt::format("unknown mixer kind '{}'", name));
}
Result<FfnKind> ffn_kind(const std::string& name) {
  if (name == "dense") return FfnKind::kDense;
  if (name == "moe") return FfnKind::kMoe;
  if (name == "none") return FfnKind::kNone;
  return data_error(fmt::format("unknown FFN kind '{}'", name));
}

// A field the row names, read from the config as an integer in [lo, hi] (the row's default when
// the config lacks it; an error naming the field when there is no default either).
Result<int> shape_field(const detail::Fields& f, const json& rule, const char* key,
                        const char* default_key, int64_t lo, int64_t hi, const char* what) {
  std::string field = str_or(rule, key);
  int64_t fallback = int_or(rule, default_key, -1);
  std::optional<int64_t> v;
  if (!field.empty()) {
    SMCOMPAT_TRY(v, f.integer(field.c_str(), lo, hi));
  }
  if (v) return static_cast<int>(*v);
  if (fallback >= 0) return static_cast<int>(fallback);
  return make_error(
      fmt::format("required field \"{}\" ({}) is missing", field.empty() ? key : field, what));
}

Result<bool> flag_field(const detail::Fields& f, const json& rule, const char* key,
                        const char* default_key) {
  std::string field = str_or(rule, key);
  bool fallback = bool_or(rule, default_key, false);
  if (field.empty()) return fallback;
  return f.boolean(field.c_str(), fallback);
}

// period rule: layer i is `on` where i % period == offset (Jamba's attn_layer_period/offset and
// expert_layer_period/offset), else `off`.
Result<std::vector<bool>> period_rule(const detail::Fields& f, const json& rule, int layers) {
  std::string period_field = str_or(rule, "period"), offset_field = str_or(rule, "offset");
  SMCOMPAT_TRY(int period, f.optional_int(period_field.c_str(), 1, kMaxLayers,
                                          int(int_or(rule, "default_period", 1))));
  SMCOMPAT_TRY(int offset, f.optional_int(offset_field.c_str(), 0, kMaxLayers,
                                          int(int_or(rule, "default_offset", 0))));
  if (offset >= period)
    return f.error(offset_field.c_str(), fmt::format("is {}, not below {} ({}), so no layer "
                                                     "matches",
                                                     offset, period_field, period));
  std::vector<bool> on(static_cast<size_t>(layers));
  for (int i = 0; i < layers; ++i) on[i] = i % period == offset;
  return on;
}

// interval rule: every interval-th layer (1-based) is `on` (Qwen3-Next's full_attention_interval:
// layer i is full attention where (i + 1) % interval == 0).
Result<std::vector<bool>> interval_rule(const detail::Fields& f, const json& rule, int layers) {
  std::string field = str_or(rule, "field");
  SMCOMPAT_TRY(int interval,
               f.optional_int(field.c_str(), 1, kMaxLayers, int(int_or(rule, "default", 1))));
  std::vector<bool> on(static_cast<size_t>(layers));
  for (int i = 0; i < layers; ++i) on[i] = (i + 1) % interval == 0;
  return on;
}

Result<void> read_mamba(const detail::Fields& f, const json& m, ModelSpec& spec) {
  MambaShape& s = spec.mamba;
  std::string kind = str_or(m, "kind");
  SMCOMPAT_TRY(s.d_state,
               shape_field(f, m, "d_state", "default_d_state", 1, kMaxState, "the SSM state size"));
  SMCOMPAT_TRY(s.conv_kernel, shape_field(f, m, "conv_kernel", "default_conv_kernel", 1, 1024,
                                          "the convolution's kernel"));
  SMCOMPAT_TRY(s.conv_bias, flag_field(f, m, "conv_bias", "default_conv_bias"));
  SMCOMPAT_TRY(s.proj_bias, flag_field(f, m, "proj_bias", "default_proj_bias"));
  if (kind == "mamba1") {
    s.version = 1;
    SMCOMPAT_TRY(int expand,
                 shape_field(f, m, "expand", "default_expand", 1, 64, "the Mamba expansion"));
    s.d_inner = expand * spec.hidden;
    // JambaConfig: mamba_dt_rank "auto" (the default) is ceil(hidden_size / 16).
    std::string dt_field = str_or(m, "dt_rank");
    const json* dt = f.get(dt_field.c_str());
    if (!dt || (dt->is_string() && dt->get<std::string>() == "auto")) {
      s.dt_rank = (spec.hidden + 15) / 16;
    } else {
      SMCOMPAT_TRY(auto r, f.integer(dt_field.c_str(), 1, kMaxWidth));
      s.dt_rank = static_cast<int>(r.value_or(1));
    }
  } else if (kind == "mamba2") {
    s.version = 2;
    SMCOMPAT_TRY(s.heads,
                 shape_field(f, m, "heads", "default_heads", 1, kMaxHeads, "the Mamba heads"));
    SMCOMPAT_TRY(s.head_dim, shape_field(f, m, "head_dim", "default_head_dim", 1, kMaxWidth,
                                         "the Mamba head width"));
    SMCOMPAT_TRY(s.groups,
                 shape_field(f, m, "groups", "default_groups", 1, kMaxHeads, "the B/C groups"));
    if (int64_t(s.heads) * s.head_dim > kMaxWidth || int64_t(s.groups) * s.d_state > kMaxWidth)
      return make_error(
          fmt::format("the Mamba heads ({}) x head width ({}) or groups ({}) x "
                      "state ({}) are too wide",
                      s.heads, s.head_dim, s.groups, s.d_state));
    s.d_inner = s.heads * s.head_dim;
  } else {
    return data_error(fmt::format("unknown Mamba kind '{}'", kind));
  }
  return {};
}

Result<void> read_linear(const detail::Fields& f, const json& l, ModelSpec& spec) {
  LinearAttentionShape& s = spec.linear;
  if (str_or(l, "kind") != "gated_deltanet")
    return data_error(fmt::format("unknown linear-attention kind '{}'", str_or(l, "kind")));
  SMCOMPAT_TRY(s.key_heads, shape_field(f, l, "key_heads", "default_key_heads", 1, kMaxHeads,
                                        "linear-attention key heads"));
  SMCOMPAT_TRY(s.value_heads, shape_field(f, l, "value_heads", "default_value_heads", 1, kMaxHeads,
                                          "linear-attention value heads"));
  SMCOMPAT_TRY(s.key_head_dim, shape_field(f, l, "key_head_dim", "default_key_head_dim", 1,
                                           kMaxState, "linear-attention key head width"));
  SMCOMPAT_TRY(s.value_head_dim, shape_field(f, l, "value_head_dim", "default_value_head_dim", 1,
                                             kMaxState, "linear-attention value head width"));
  SMCOMPAT_TRY(s.conv_kernel, shape_field(f, l, "conv_kernel", "default_conv_kernel", 1, 1024,
                                          "the convolution's kernel"));
  if (int64_t(s.key_heads) * s.key_head_dim > kMaxWidth ||
      int64_t(s.value_heads) * s.value_head_dim > kMaxWidth)
    return make_error(
        fmt::format("the linear-attention heads ({} key heads of {}, {} value heads "
                    "of {}) are too wide",
                    s.key_heads, s.key_head_dim, s.value_heads, s.value_head_dim));
  return {};
}

}  // namespace

namespace detail {

namespace {

json layer_pattern_data() {
  return json::parse(
      embedded_text(embedded::layer_patterns_json, embedded::layer_patterns_json_size), nullptr,
      /*allow_exceptions=*/false);
}

bool usable(const json& data) {
  return !data.is_discarded() && data.is_object() && data.contains("families") &&
         data["families"].is_array();
}

const json* row_for(const json& data, const std::string& type) {
  const json* row = nullptr;
  for (const json& r : data["families"]) {
    if (!r.is_object()) continue;
    bool match = str_or(r, "model_type") == type;
    if (auto also = r.find("model_types"); also != r.end() && also->is_array())
      for (const json& t : *also) match = match || (t.is_string() && t.get<std::string>() == type);
    if (match) row = &r;
  }
  return row;
}

}  // namespace

bool has_layer_pattern_row(const std::string& type) {
  json data = layer_pattern_data();
  return usable(data) && row_for(data, type) != nullptr;
}

Result<LayerRules> read_layer_rules(const Fields& f, const std::string& type, ModelSpec& spec) {
  LayerRules rules;
  spec.layer_kinds.assign(static_cast<size_t>(spec.layers), LayerKind{});
  json data = layer_pattern_data();
  if (!usable(data)) return data_error("not the expected document (families[])");
  const json* row = row_for(data, type);
  if (!row) return rules;
  rules.has_row = true;
  spec.layer_rules_source = str_or(*row, "source");
  const int n = spec.layers;

  // Mixers (and FFNs where the row decides them).
  if (auto p = row->find("pattern"); p != row->end()) {
    std::string field = str_or(*p, "field");
    SMCOMPAT_TRY(std::string pattern, f.string(field.c_str()));
    if (pattern.empty()) return make_error(fmt::format("required field \"{}\" is missing", field));
    if (pattern.size() != size_t(n))
      return f.error(field.c_str(), fmt::format("has {} letters for {} layers (num_hidden_layers)",
                                                pattern.size(), n));
    auto chars_it = p->find("chars");
    if (chars_it == p->end() || !chars_it->is_object())
      return data_error(fmt::format("the {} pattern has no letters (chars)", type));
    const json& chars = *chars_it;
    for (int i = 0; i < n; ++i) {
      std::string c(1, pattern[i]);
      auto it = chars.find(c);
      if (it == chars.end() || !it->is_array() || it->size() != 2)
        return f.error(field.c_str(), fmt::format("holds '{}' at layer {}, not one of the "
                                                  "letters the family's rules know ({})",
                                                  Fields::short_dump(json(c)), i, chars.dump()));
      SMCOMPAT_TRY(spec.layer_kinds[i].mixer, mixer_kind((*it)[0].get<std::string>()));
      SMCOMPAT_TRY(spec.layer_kinds[i].ffn, ffn_kind((*it)[1].get<std::string>()));
    }
    rules.ffn_decided = true;
  } else {
    // layer_types, where the config has it, names every layer; else the row's mixer rule.
    const json* types = f.get("layer_types");
    const json& names = data["layer_type_names"];
    if (types && types->is_array() && types->size() == size_t(n)) {
      for (int i = 0; i < n; ++i) {
        const json& t = (*types)[i];
        auto it = t.is_string() ? names.find(t.get<std::string>()) : names.end();
        if (it == names.end())
          return f.error("layer_types", fmt::format("holds {} at layer {}, not a layer type the "
                                                    "rules know",
                                                    Fields::short_dump(t), i));
        SMCOMPAT_TRY(spec.layer_kinds[i].mixer, mixer_kind(it->get<std::string>()));
      }
    } else if (auto m = row->find("mixer"); m != row->end()) {
      std::string rule = str_or(*m, "rule");
      std::vector<bool> on;
      if (rule == "period") {
        SMCOMPAT_TRY(on, period_rule(f, *m, n));
      } else if (rule == "interval") {
        SMCOMPAT_TRY(on, interval_rule(f, *m, n));
      } else {
        return data_error(fmt::format("unknown mixer rule '{}'", rule));
      }
      SMCOMPAT_TRY(MixerKind yes, mixer_kind(str_or(*m, "on")));
      SMCOMPAT_TRY(MixerKind no, mixer_kind(str_or(*m, "off")));
      for (int i = 0; i < n; ++i) spec.layer_kinds[i].mixer = on[i] ? yes : no;
    }
    if (auto ffn = row->find("ffn"); ffn != row->end()) {
      if (str_or(*ffn, "rule") != "period")
        return data_error(fmt::format("unknown FFN rule '{}'", str_or(*ffn, "rule")));
      SMCOMPAT_TRY(std::vector<bool> on, period_rule(f, *ffn, n));
      SMCOMPAT_TRY(FfnKind yes, ffn_kind(str_or(*ffn, "on")));
      SMCOMPAT_TRY(FfnKind no, ffn_kind(str_or(*ffn, "off")));
      for (int i = 0; i < n; ++i) spec.layer_kinds[i].ffn = on[i] ? yes : no;
      rules.ffn_decided = true;
    }
  }

  // The activation, and with it the FFN's matrix count.
  if (auto a = row->find("activation"); a != row->end()) {
    std::string field = str_or(*a, "field");
    SMCOMPAT_TRY(spec.activation, f.string(field.c_str()));
    if (spec.activation.empty()) spec.activation = str_or(*a, "default");
    auto act = data["activations"].find(spec.activation);
    if (act == data["activations"].end())
      return f.error(field.c_str(), fmt::format("is '{}', an activation the rules do not know "
                                                "(its matrix count decides the FFN's size)",
                                                spec.activation));
    spec.gated_ffn = int_or(*act, "matrices", 3) == 3;
  }
  spec.norms_per_layer = static_cast<int>(int_or(*row, "norms_per_layer", 2));
  if (bool_or(*row, "qk_norm", false)) spec.qk_norm = true;
  if (bool_or(*row, "attention_output_gate", false)) {
    // Qwen3NextConfig's attn_output_gate (default true) where the config says it.
    SMCOMPAT_TRY(spec.attention_output_gate, f.boolean("attn_output_gate", true));
  }
  // Norms of the whole query and key that the config switches on (MiniMax-M2: use_qk_norm, with
  // qk_norm_type "per_layer": q_norm over heads x head_dim, k_norm over kv_heads x head_dim).
  if (auto q = row->find("qk_norm_switch"); q != row->end() && q->is_object()) {
    const std::string field = str_or(*q, "field"), type_field = str_or(*q, "type_field");
    SMCOMPAT_TRY(bool on, f.boolean(field.c_str(), bool_or(*q, "default", false)));
    if (on) {
      SMCOMPAT_TRY(std::string kind, f.string(type_field.c_str()));
      if (kind.empty()) kind = str_or(*q, "default_type");
      if (kind == "per_layer")
        spec.qk_norm_per_layer = true;
      else if (kind == "per_head")
        spec.qk_norm = true;
      else
        return f.error(type_field.c_str(),
                       fmt::format("is '{}', neither per_layer nor per_head", kind));
    }
  }
  rules.shared_expert_width = str_or(*row, "shared_expert_width");
  rules.router_bias = bool_or(*row, "router_bias", false);
  // A router bias the config switches on (MiniMax-M2's use_routing_bias: e_score_correction_bias).
  if (auto rb = row->find("router_bias_switch"); rb != row->end() && rb->is_object()) {
    const std::string field = str_or(*rb, "field");
    SMCOMPAT_TRY(bool on, f.boolean(field.c_str(), bool_or(*rb, "default", false)));
    rules.router_bias = rules.router_bias || on;
  }
  rules.shared_expert_gate = bool_or(*row, "shared_expert_gate", false);

  // The shapes of the recurrent mixers the pattern uses.
  auto uses = [&](MixerKind k) {
    return std::any_of(spec.layer_kinds.begin(), spec.layer_kinds.end(),
                       [&](const LayerKind& l) { return l.mixer == k; });
  };
  if (uses(MixerKind::kMamba)) {
    auto m = row->find("mamba");
    if (m == row->end())
      return make_error(
          fmt::format("the {} layer pattern has Mamba layers, but its rules give "
                      "no Mamba shape",
                      type));
    SMCOMPAT_CHECK(read_mamba(f, *m, spec));
  }
  if (uses(MixerKind::kLinear)) {
    auto l = row->find("linear_attention");
    if (l == row->end())
      return make_error(
          fmt::format("the {} layer pattern has linear-attention layers, but its "
                      "rules give no shape",
                      type));
    SMCOMPAT_CHECK(read_linear(f, *l, spec));
  }
  // The recurrent state's number format: fp32 where the config's field (the row's state_dtype:
  // Nemotron-H's mamba_ssm_cache_dtype, Qwen3.5's mamba_ssm_dtype) says so, as vLLM keeps it;
  // else the model's 16 bits.
  if (std::string field = str_or(*row, "state_dtype"); !field.empty()) {
    SMCOMPAT_TRY(std::string dtype, f.string(field.c_str()));
    if (dtype == "float32") spec.state_bytes_per_value = 4;
  }
  for (const LayerKind& l : spec.layer_kinds) {
    if (l.mixer == MixerKind::kMamba) ++spec.mamba_layers;
    if (l.mixer == MixerKind::kLinear) ++spec.linear_layers;
    if (l.mixer == MixerKind::kNone) ++spec.mixerless_layers;
  }
  return rules;
}

}  // namespace detail

}  // namespace smcompat::plan
