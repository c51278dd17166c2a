// The model reader (include/smcompat/plan/model.hpp): a Hugging Face config.json into the shapes
// and number formats the cost model needs (its quantization_config: model_quantization.cpp), and
// the parameter counts that follow from them.
//
// Field names and defaults follow the transformers configuration classes of each family
// (configuration_deepseek.py shipped with DeepSeek-V3, Qwen2MoeConfig, Qwen3MoeConfig,
// MixtralConfig, GptOssConfig, Llama4TextConfig) and the modules that build the tensors
// (modeling_deepseek.py: DeepseekV3Attention/MoE; modeling_gpt_oss.py: GptOssAttention with sinks,
// GptOssExperts with biases, GptOssTopKRouter with bias; modeling_llama4.py: moe_layers from
// interleave_moe_layer_step, Llama4TextMoe with one shared expert). The real configs the counts
// are checked against live in tests/plan/configs/ (SOURCES.md says where each came from).
#include "smcompat/plan/model.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <type_traits>
#include <utility>
#include <vector>

#include "model_internal.hpp"
#include "smcompat/util/enum_names.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_read.hpp"

namespace smcompat::plan {

using detail::Fields;
using detail::kMaxHeads;
using detail::kMaxLayers;
using detail::kMaxWidth;
using detail::read_quantization;

namespace {

using nlohmann::json;

// A config.json is a few KB (Qwen FP8 configs with long modules_to_not_convert lists ~100 KB).
constexpr size_t kMaxConfigBytes = 16u << 20;

// Bounds beside detail::kMaxLayers, kMaxWidth and kMaxHeads (model_internal.hpp).
constexpr int64_t kMaxFfnWidth = 1 << 24;  // dense and expert FFN widths
constexpr int64_t kMaxVocab = 1 << 24;
constexpr int64_t kMaxExperts = 1 << 16;
constexpr int64_t kMaxWindow = int64_t{1} << 30;

std::string name_from_source(std::string_view source) {
  std::string s(source);
  while (!s.empty() && s.back() == '/') s.pop_back();
  auto slash = s.rfind('/');
  std::string base = slash == std::string::npos ? s : s.substr(slash + 1);
  if (base == "config.json") {
    // The checkpoint's directory names the model, also for `config.json` or `./config.json`
    // given from inside it.
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(s, ec);
    std::string dir = ec ? "" : abs.lexically_normal().parent_path().filename().string();
    if (!dir.empty()) return dir;
  }
  if (base.size() > 5 && base.ends_with(".json")) base.resize(base.size() - 5);
  return base;
}

// Every product in the counts, in 128 bits, to refuse shapes whose totals would wrap.
bool fits_in_64_bits(const ModelSpec& m) {
  using u128 = unsigned __int128;
  u128 h = static_cast<u128>(m.hidden);
  u128 per_layer = static_cast<u128>(m.heads) * 4 * h * std::max(m.head_dim, 1) +
                   h * (static_cast<u128>(m.kv_lora_rank) + m.q_lora_rank + 1024) * 8 +
                   3 * h * static_cast<u128>(m.intermediate) +
                   static_cast<u128>(m.experts) * 3 * h * static_cast<u128>(m.moe_intermediate) +
                   3 * h * static_cast<u128>(m.shared_intermediate) +
                   static_cast<u128>(m.heads) *
                       (static_cast<u128>(m.qk_nope_head_dim) + m.qk_rope_head_dim + m.v_head_dim) *
                       (h + m.kv_lora_rank + m.q_lora_rank);
  // Mamba and linear-attention mixers (their widths are bounded when read, so these do not wrap).
  const u128 mamba_d = static_cast<u128>(m.mamba.d_inner),
             conv = static_cast<u128>(m.mamba.conv_dim());
  per_layer +=
      3 * h * (mamba_d + conv) +
      mamba_d * (static_cast<u128>(m.mamba.dt_rank) + 3 * static_cast<u128>(m.mamba.d_state) + 2) +
      conv * (static_cast<u128>(m.mamba.conv_kernel) + 1);
  per_layer +=
      3 * h *
          static_cast<u128>(m.linear.conv_dim() + m.linear.value_heads * m.linear.value_head_dim) +
      static_cast<u128>(m.linear.conv_dim()) * static_cast<u128>(m.linear.conv_kernel);
  u128 total = per_layer * static_cast<u128>(m.layers) + 2 * h * static_cast<u128>(m.vocab);
  return total < (static_cast<u128>(1) << 62);
}

// The families whose config fields the rules above read (model_type); any other is read by the
// generic rules, and says so.
constexpr const char* kFamiliesWithRules[] = {"deepseek_v2", "deepseek_v3", "qwen2",   "qwen2_moe",
                                              "qwen3",       "qwen3_moe",   "mixtral", "mistral",
                                              "llama",       "llama4",      "gpt_oss"};

bool is_family_with_rules(const std::string& type) {
  return std::find_if(std::begin(kFamiliesWithRules), std::end(kFamiliesWithRules),
                      [&](const char* t) { return type == t; }) != std::end(kFamiliesWithRules);
}

// The transformers model classes of the families above (the config's "architectures"), for a
// checkpoint that names its own model_type but runs one of these classes.
constexpr std::pair<const char*, const char*> kArchitectureFamilies[] = {
    {"DeepseekV2ForCausalLM", "deepseek_v2"},
    {"DeepseekV3ForCausalLM", "deepseek_v3"},
    {"Qwen2ForCausalLM", "qwen2"},
    {"Qwen2MoeForCausalLM", "qwen2_moe"},
    {"Qwen3ForCausalLM", "qwen3"},
    {"Qwen3MoeForCausalLM", "qwen3_moe"},
    {"MixtralForCausalLM", "mixtral"},
    {"MistralForCausalLM", "mistral"},
    {"LlamaForCausalLM", "llama"},
    {"GptOssForCausalLM", "gpt_oss"}};

// Fields of layer patterns in a family without a row in data/layer_patterns.json: every layer is
// costed as attention + FFN, so such a hybrid (Mamba, linear attention) comes out too large, and
// its recurrent state is not counted. Each is a note, so that the figures are never silently
// wrong. (A family with a row has its layers read by model_layers.cpp.)
Result<void> note_what_is_not_modelled(const Fields& top, const Fields& f, const std::string& type,
                                       bool has_layer_rules, ModelSpec& spec) {
  if (!has_layer_rules && !is_family_with_rules(type))
    spec.notes.push_back(fmt::format(
        "model_type '{}' has no family rules here: its config was read with the generic rules "
        "(attention + FFN in every layer), so check the counts against the model card",
        type.empty() ? "(none)" : type));
  std::vector<std::string> hybrid;
  for (const char* field : {"hybrid_override_pattern", "attn_layer_period", "attn_layer_offset",
                            "expert_layer_period", "full_attention_interval", "layers_block_type",
                            "mamba_d_state", "ssm_state_size", "linear_num_value_heads"})
    if (f.has(field)) hybrid.push_back(field);
  if (!hybrid.empty() && !has_layer_rules)
    spec.notes.push_back(fmt::format(
        "{} describe a hybrid layer pattern (Mamba or linear-attention layers) that the planner "
        "does not model yet: every layer is costed as attention + FFN, so the parameter counts may "
        "be off, the KV cache is overestimated and the recurrent state is not counted",
        fmt::join(hybrid, ", ")));
  if (const json* types = f.get("layer_types"); types && types->is_array() && !has_layer_rules) {
    size_t other = 0;
    for (const auto& t : *types)
      if (t.is_string() && t != "full_attention" && t != "sliding_attention") ++other;
    if (other > 0)
      spec.notes.push_back(fmt::format(
          "layer_types names {} layers that are neither full nor sliding-window attention "
          "(linear attention or state-space layers): the planner costs them as full attention, "
          "so the KV cache and decode reads are overestimated",
          other));
  }
  if (top.has("vision_config"))
    spec.notes.push_back(
        "vision_config: the vision tower is not counted (the plan is for the language model)");
  if (spec.mtp_layers > 0)
    spec.notes.push_back(fmt::format("{} multi-token-prediction layer(s) ({}) are not counted",
                                     spec.mtp_layers, spec.mtp_field));
  if (f.has("moe_latent_size"))
    spec.notes.push_back(
        "moe_latent_size: the experts work in a latent space (projections to and from it) that "
        "the planner does not model: the expert counts may be off");
  if (f.has("index_topk") || f.has("index_n_heads"))
    spec.notes.push_back("the sparse-attention indexer (index_*) is not counted");
  return {};
}

Result<ModelSpec> read_spec(const json& doc, std::string_view text, std::string_view source) {
  if (!doc.is_object())
    return make_error("not a model config: the document is not a JSON object", 0);
  Fields top(doc, text, 0, "");
  ModelSpec spec;
  SMCOMPAT_TRY(spec.model_type, top.string("model_type"));
  SMCOMPAT_TRY(spec.name, top.string("_name_or_path"));
  if (spec.name.empty()) spec.name = name_from_source(source);
  if (const json* arch = top.get("architectures");
      arch && arch->is_array() && !arch->empty() && arch->front().is_string())
    spec.architecture = arch->front().get<std::string>();

  // Multimodal wrappers (Llama 4, and others with the same layout) keep the language model's
  // shape in text_config; read it there unless the top level has the shape itself.
  const json* text_cfg = top.get("text_config");
  bool nested = text_cfg && !top.has("hidden_size");
  if (nested && !text_cfg->is_object()) return top.error("text_config", "is not an object");
  size_t nested_at = 0;
  if (nested) nested_at = top.offset_of("text_config").value_or(0);
  Fields f = nested ? Fields(*text_cfg, text, nested_at, "text_config.") : top;
  // The family rules below go by model_type: the language model's own where a wrapper's
  // text_config names it (Llama 4: "llama4" holding "llama4_text"). A text-only Llama 4
  // checkpoint has "llama4_text" at the top level (Llama4TextConfig); both follow Llama 4's rules.
  std::string type = spec.model_type;
  if (nested) {
    SMCOMPAT_TRY(std::string inner, f.string("model_type"));
    if (!inner.empty()) type = inner;
  }
  if (type == "llama4_text") type = "llama4";
  // A model_type without rules whose config names the class of a family with rules is read by
  // that family's rules, as transformers would load it (Kimi-K2: kimi_k2, DeepseekV3ForCausalLM).
  if (!is_family_with_rules(type) && !detail::has_layer_pattern_row(type)) {
    if (const json* arch = top.get("architectures"); arch && arch->is_array()) {
      for (const json& a : *arch) {
        if (!a.is_string()) continue;
        for (const auto& [cls, family] : kArchitectureFamilies)
          if (a.get<std::string>() == cls) {
            spec.notes.push_back(fmt::format(
                "model_type '{}' is read with the rules of {} (its architectures names {})", type,
                family, cls));
            type = family;
            break;
          }
        if (is_family_with_rules(type)) break;
      }
    }
  }

  SMCOMPAT_TRY(spec.hidden, f.required("hidden_size", 1, kMaxWidth));
  SMCOMPAT_TRY(spec.layers, f.required("num_hidden_layers", 1, kMaxLayers));
  SMCOMPAT_TRY(spec.heads, f.required("num_attention_heads", 1, kMaxHeads));
  SMCOMPAT_TRY(spec.vocab, f.required("vocab_size", 1, kMaxVocab));
  SMCOMPAT_TRY(spec.kv_heads, f.optional_int("num_key_value_heads", 1, kMaxHeads, spec.heads));
  if (spec.kv_heads > spec.heads)
    return f.error("num_key_value_heads", fmt::format("is {}, more than the {} attention heads",
                                                      spec.kv_heads, spec.heads));
  {
    // tie_word_embeddings: every family read here defaults to false (PretrainedConfig's own
    // default is true, but LlamaConfig, Qwen*Config, MixtralConfig, DeepseekV3Config, GptOssConfig
    // and Llama4TextConfig all pass false).
    SMCOMPAT_TRY(bool tied_top, top.boolean("tie_word_embeddings", false));
    SMCOMPAT_TRY(bool tied_in, f.boolean("tie_word_embeddings", tied_top));
    spec.tied_embeddings = tied_in;
  }
  {
    SMCOMPAT_TRY(std::string d, f.string("torch_dtype"));
    if (d.empty()) {
      SMCOMPAT_TRY(std::string d2, f.string("dtype"));
      d = d2;
    }
    if (d.empty() && nested) {
      SMCOMPAT_TRY(std::string d3, top.string("torch_dtype"));
      d = d3;
    }
    spec.dtype = d;
  }

  // Attention: MLA where the config has the latent rank (DeepSeek-V2/V3/R1, Kimi K2), else GQA.
  if (f.has("kv_lora_rank")) {
    spec.attention = AttentionKind::kMla;
    SMCOMPAT_TRY(spec.kv_lora_rank, f.required("kv_lora_rank", 1, kMaxWidth));
    SMCOMPAT_TRY(spec.q_lora_rank, f.optional_int("q_lora_rank", 0, kMaxWidth, 0));  // null: 0
    SMCOMPAT_TRY(spec.qk_nope_head_dim, f.required("qk_nope_head_dim", 0, kMaxWidth));
    SMCOMPAT_TRY(spec.qk_rope_head_dim, f.required("qk_rope_head_dim", 0, kMaxWidth));
    SMCOMPAT_TRY(spec.v_head_dim, f.required("v_head_dim", 1, kMaxWidth));
    if (spec.qk_nope_head_dim + spec.qk_rope_head_dim == 0)
      return f.error("qk_rope_head_dim", "and qk_nope_head_dim are both 0");
    spec.head_dim = spec.qk_nope_head_dim + spec.qk_rope_head_dim;
  } else {
    spec.attention = AttentionKind::kGqa;
    SMCOMPAT_TRY(auto hd, f.integer("head_dim", 1, kMaxWidth));
    if (hd) {
      spec.head_dim = static_cast<int>(*hd);
    } else {
      if (spec.hidden % spec.heads != 0)
        return f.error("num_attention_heads",
                       fmt::format("({}) does not divide hidden_size ({}) and there is no "
                                   "\"head_dim\"",
                                   spec.heads, spec.hidden));
      spec.head_dim = spec.hidden / spec.heads;
    }
  }
  SMCOMPAT_TRY(bool attention_bias, f.boolean("attention_bias", false));
  if (type == "qwen2" || type == "qwen2_moe") {
    spec.qkv_bias = true;  // Qwen2Attention: q/k/v with bias, o_proj without
  } else if (spec.attention == AttentionKind::kGqa) {
    spec.qkv_bias = attention_bias;
    spec.o_bias = attention_bias;
  }
  spec.qk_norm = type == "qwen3" || type == "qwen3_moe";
  spec.attention_sinks = type == "gpt_oss";

  // Which layers attend and how (data/layer_patterns.json: hybrid families), the recurrent
  // mixers' shapes, and the per-family flags the row sets.
  SMCOMPAT_TRY(detail::LayerRules rules, detail::read_layer_rules(f, type, spec));

  // Sliding windows: an explicit layer_types list (gpt-oss, newer transformers), Llama 4's
  // chunked attention on the RoPE layers, Mistral's window on every layer, Qwen's opt-in window.
  SMCOMPAT_TRY(int window, f.optional_int("sliding_window", 0, kMaxWindow, 0));
  if (const json* lt = f.get("layer_types")) {
    if (!lt->is_array()) return f.error("layer_types", "is not an array");
    int sliding = 0;
    for (const auto& t : *lt)
      if (t.is_string() && t.get<std::string>() == "sliding_attention") ++sliding;
    if (window > 0 && sliding > 0) {
      spec.sliding_window = window;
      spec.sliding_window_layers = std::min(sliding, spec.layers);
    }
  } else if (type == "llama4") {
    SMCOMPAT_TRY(int chunk, f.optional_int("attention_chunk_size", 0, kMaxWindow, 0));
    if (chunk > 0) {
      // no_rope_layers[i] == 1: layer i uses RoPE and chunked attention; default every 4th layer
      // is a global NoPE layer (no_rope_layer_interval 4).
      int chunked = 0;
      if (const json* nr = f.get("no_rope_layers"); nr && nr->is_array() && !nr->empty()) {
        for (const auto& v : *nr)
          if (v.is_number_integer() && v.get<int64_t>() != 0) ++chunked;
      } else {
        SMCOMPAT_TRY(int interval, f.optional_int("no_rope_layer_interval", 1, kMaxLayers, 4));
        for (int i = 0; i < spec.layers; ++i)
          if ((i + 1) % interval != 0) ++chunked;
      }
      spec.sliding_window = chunk;
      spec.sliding_window_layers = std::min(chunked, spec.layers);
    }
  } else if (window > 0) {
    if (type == "mistral" || type == "mixtral") {
      spec.sliding_window = window;
      spec.sliding_window_layers = spec.layers;
    } else if (type.starts_with("qwen")) {
      SMCOMPAT_TRY(bool use, f.boolean("use_sliding_window", false));
      SMCOMPAT_TRY(int max_window_layers,
                   f.optional_int("max_window_layers", 0, kMaxLayers, spec.layers));
      if (use && max_window_layers < spec.layers) {
        spec.sliding_window = window;
        spec.sliding_window_layers = spec.layers - max_window_layers;
      }
    }
  }

  // FFNs and experts.
  SMCOMPAT_TRY(auto experts, f.first_of({"n_routed_experts", "num_experts", "num_local_experts"}, 0,
                                        kMaxExperts));
  const char* per_token_key = "num_experts_per_tok";  // the spelling read, for errors
  SMCOMPAT_TRY(auto per_token, f.first_of({"num_experts_per_tok", "experts_per_token",
                                           "num_experts_per_token", "moe_topk"},
                                          0, kMaxExperts, &per_token_key));
  SMCOMPAT_TRY(auto inter, f.integer("intermediate_size", 1, kMaxFfnWidth));
  SMCOMPAT_TRY(auto moe_inter, f.integer("moe_intermediate_size", 1, kMaxFfnWidth));
  spec.experts = experts.value_or(0);
  spec.experts_per_token = per_token.value_or(0);
  // DeepSeek, GLM and Nemotron-H spell it num_nextn_predict_layers; Qwen3.5 mtp_num_hidden_layers;
  // MiniMax-M2 num_mtp_modules.
  const char* mtp_key = "num_nextn_predict_layers";
  SMCOMPAT_TRY(auto mtp,
               f.first_of({"num_nextn_predict_layers", "mtp_num_hidden_layers", "num_mtp_modules"},
                          0, kMaxLayers, &mtp_key));
  spec.mtp_layers = static_cast<int>(mtp.value_or(0));
  spec.mtp_field = mtp_key;

  if (spec.experts == 0) {
    // Dense decoder.
    if (!inter)
      return make_error(fmt::format("required field \"{}intermediate_size\" is missing",
                                    nested ? "text_config." : ""));
    spec.intermediate = static_cast<int>(*inter);
    if (!rules.ffn_decided)
      for (LayerKind& l : spec.layer_kinds) l.ffn = FfnKind::kDense;
    for (LayerKind& l : spec.layer_kinds)
      if (l.ffn == FfnKind::kMoe) l.ffn = FfnKind::kDense;  // no experts: a pattern's E is dense
    spec.dense_layers = static_cast<int>(
        std::count_if(spec.layer_kinds.begin(), spec.layer_kinds.end(),
                      [](const LayerKind& l) { return l.ffn == FfnKind::kDense; }));
    spec.experts_per_token = 0;
  } else {
    if (spec.experts_per_token < 1) {
      return per_token ? f.error(per_token_key, "is 0 in a model with experts")
                       : make_error(fmt::format("required field \"{}num_experts_per_tok\" is "
                                                "missing (the config has {} experts)",
                                                nested ? "text_config." : "", spec.experts));
    }
    if (spec.experts_per_token > spec.experts)
      return f.error(per_token_key, fmt::format("is {}, more than the {} experts",
                                                spec.experts_per_token, spec.experts));
    // One expert's width: moe_intermediate_size where the family has a separate dense width,
    // else intermediate_size (Mixtral, gpt-oss, Llama 4).
    if (moe_inter && type != "llama4") {
      spec.moe_intermediate = static_cast<int>(*moe_inter);
      if (inter) spec.intermediate = static_cast<int>(*inter);
    } else if (inter) {
      spec.moe_intermediate = static_cast<int>(*inter);
    } else {
      return make_error(
          fmt::format("required field \"{}moe_intermediate_size\" is missing (the "
                      "config has {} experts)",
                      nested ? "text_config." : "", spec.experts));
    }

    // Which layers are MoE.
    std::vector<bool> is_moe(static_cast<size_t>(spec.layers), true);
    if (f.has("first_k_dense_replace") || f.has("moe_layer_freq")) {
      // DeepSeek: layer i is MoE if i >= first_k_dense_replace and i % moe_layer_freq == 0.
      SMCOMPAT_TRY(int first_dense, f.optional_int("first_k_dense_replace", 0, spec.layers, 0));
      SMCOMPAT_TRY(int freq, f.optional_int("moe_layer_freq", 1, kMaxLayers, 1));
      for (int i = 0; i < spec.layers; ++i) is_moe[i] = i >= first_dense && i % freq == 0;
    } else if (type == "llama4") {
      if (const json* ml = f.get("moe_layers"); ml && ml->is_array()) {
        std::fill(is_moe.begin(), is_moe.end(), false);
        for (const auto& v : *ml) {
          if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= spec.layers)
            return f.error("moe_layers", fmt::format("holds {}, not a layer index below {}",
                                                     Fields::short_dump(v), spec.layers));
          is_moe[static_cast<size_t>(v.get<int64_t>())] = true;
        }
      } else {
        // Llama4TextConfig: moe_layers = range(step - 1, num_hidden_layers, step).
        SMCOMPAT_TRY(int step, f.optional_int("interleave_moe_layer_step", 1, kMaxLayers, 1));
        for (int i = 0; i < spec.layers; ++i) is_moe[i] = (i + 1) % step == 0;
      }
    } else {
      // Qwen2/3-MoE: decoder_sparse_step and mlp_only_layers (both absent elsewhere: all MoE).
      SMCOMPAT_TRY(int step, f.optional_int("decoder_sparse_step", 1, kMaxLayers, 1));
      std::set<int64_t> mlp_only;
      if (const json* mo = f.get("mlp_only_layers")) {
        if (!mo->is_array()) return f.error("mlp_only_layers", "is not an array");
        for (const auto& v : *mo) {
          if (!v.is_number_integer())
            return f.error("mlp_only_layers",
                           fmt::format("holds {}, not a layer index", Fields::short_dump(v)));
          mlp_only.insert(v.get<int64_t>());
        }
      }
      for (int i = 0; i < spec.layers; ++i)
        is_moe[i] = !mlp_only.contains(i) && (i + 1) % step == 0;
    }
    // A family whose row decides the FFNs (a pattern, or Jamba's expert_layer_period) keeps
    // them; else each layer is MoE or dense by the rules above.
    for (int i = 0; i < spec.layers; ++i) {
      LayerKind& l = spec.layer_kinds[static_cast<size_t>(i)];
      if (!rules.ffn_decided) l.ffn = is_moe[i] ? FfnKind::kMoe : FfnKind::kDense;
    }
    auto count_ffn = [&](FfnKind k) {
      return static_cast<int>(std::count_if(spec.layer_kinds.begin(), spec.layer_kinds.end(),
                                            [&](const LayerKind& l) { return l.ffn == k; }));
    };
    spec.moe_layers = count_ffn(FfnKind::kMoe);
    spec.dense_layers = count_ffn(FfnKind::kDense);

    // The dense layers' width: Llama 4's intermediate_size_mlp, else intermediate_size.
    if (type == "llama4") {
      SMCOMPAT_TRY(auto mlp, f.integer("intermediate_size_mlp", 1, kMaxFfnWidth));
      spec.intermediate = mlp ? static_cast<int>(*mlp) : 0;
    }
    // Jamba: intermediate_size is the width of its dense MLPs and of each expert alike.
    if (spec.dense_layers > 0 && spec.intermediate == 0 && inter && type != "llama4")
      spec.intermediate = static_cast<int>(*inter);
    if (spec.dense_layers > 0 && spec.intermediate == 0)
      return make_error(fmt::format(
          "required field \"{}{}\" is missing ({} layers are dense)", nested ? "text_config." : "",
          type == "llama4" ? "intermediate_size_mlp" : "intermediate_size", spec.dense_layers));

    // Shared experts.
    if (type == "llama4") {
      spec.shared_experts = 1;  // Llama4TextMoe.shared_expert, intermediate_size wide
      spec.shared_intermediate = spec.moe_intermediate;
    } else if (!rules.shared_expert_width.empty()) {
      // The family's own spelling (Nemotron-H: moe_shared_expert_intermediate_size).
      const char* key = rules.shared_expert_width.c_str();
      SMCOMPAT_TRY(int w, f.optional_int(key, 0, kMaxFfnWidth, 0));
      SMCOMPAT_TRY(int n, f.optional_int("n_shared_experts", 0, kMaxExperts, w > 0 ? 1 : 0));
      spec.shared_intermediate = n > 0 ? w : 0;
      spec.shared_experts = spec.shared_intermediate > 0 ? 1 : 0;
      spec.shared_expert_gate = spec.shared_experts > 0 && rules.shared_expert_gate;
    } else if (f.has("shared_expert_intermediate_size")) {
      SMCOMPAT_TRY(int w, f.optional_int("shared_expert_intermediate_size", 0, kMaxFfnWidth, 0));
      spec.shared_intermediate = w;
      spec.shared_experts = w > 0 ? 1 : 0;
      spec.shared_expert_gate = w > 0 && (type == "qwen2_moe" || rules.shared_expert_gate);
    } else {
      SMCOMPAT_TRY(int n, f.optional_int("n_shared_experts", 0, kMaxExperts, 0));
      // In 64 bits: n (up to 2^16) x the width (up to 2^24) does not fit an int.
      const int64_t width = static_cast<int64_t>(n) * spec.moe_intermediate;
      if (width > kMaxFfnWidth)
        return f.error("n_shared_experts", fmt::format("({}) x moe_intermediate_size ({}) is too "
                                                       "wide",
                                                       n, spec.moe_intermediate));
      spec.shared_experts = n;
      spec.shared_intermediate = static_cast<int>(width);
    }

    if (type == "gpt_oss") {
      spec.expert_bias = true;  // GptOssExperts: gate_up_proj_bias, down_proj_bias
      spec.router_bias = true;  // GptOssTopKRouter: bias per expert
    }
    SMCOMPAT_TRY(std::string topk_method, f.string("topk_method"));
    if (topk_method == "noaux_tc") spec.router_bias = true;  // e_score_correction_bias
    if (rules.router_bias) spec.router_bias = true;  // the family's row (Nemotron-H's router)
  }

  // Number formats.
  spec.quantization = "none";
  if (const json* q = top.get("quantization_config")) {
    SMCOMPAT_CHECK(read_quantization(*q, top, spec));
  } else if (nested) {
    if (const json* q2 = f.get("quantization_config"))
      SMCOMPAT_CHECK(read_quantization(*q2, f, spec));
  }

  SMCOMPAT_CHECK(note_what_is_not_modelled(top, f, type, rules.has_row, spec));

  if (!fits_in_64_bits(spec))
    return make_error(
        fmt::format("the shape (hidden_size {}, {} layers, {} experts of width {}) "
                    "gives a parameter count too large to be a model",
                    spec.hidden, spec.layers, spec.experts, spec.moe_intermediate));
  return spec;
}

// Arrays and objects nested deeper than this are refused before parsing: a config.json nests a
// handful of levels (quantization_config.config_groups.group_0.weights), and nothing downstream
// has to be trusted with recursion as deep as the input (nlohmann's parser and destructor are
// iterative, but dump(), copies and comparisons recurse once per level).
constexpr int kMaxDepth = 512;

// Whether a scan through JSON text is inside a string literal (escapes included).
struct JsonStringTracker {
  bool in_string = false, escaped = false;
  /// Feeds the next character; true when it lies outside every string (a quote is inside).
  bool outside(char c) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      return false;
    }
    if (c == '"') in_string = true;
    return !in_string;
  }
};

// The byte offset of the bracket that opens level kMaxDepth + 1, if any (brackets inside strings
// are not counted; a malformed document is left to the parser).
std::optional<uint64_t> too_deep(std::string_view text) {
  int depth = 0;
  JsonStringTracker strings;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (!strings.outside(c)) {
      continue;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

}  // namespace

constexpr std::array<const char*, 5> kWeightFormatNames = {"bf16", "fp8", "mxfp4", "nvfp4", "int4"};
std::string_view to_string(WeightFormat f) { return enum_name(f, kWeightFormatNames, "?"); }
constexpr std::array<const char*, 5> kMixerKindNames = {"full", "sliding", "linear", "mamba",
                                                        "none"};
std::string_view to_string(MixerKind k) { return enum_name(k, kMixerKindNames, "?"); }
constexpr std::array<const char*, 3> kFfnKindNames = {"dense", "moe", "none"};
std::string_view to_string(FfnKind k) { return enum_name(k, kFfnKindNames, "?"); }

double bytes_per_param(WeightFormat f) {
  switch (f) {
    case WeightFormat::kBf16:
      return 2.0;
    case WeightFormat::kFp8:
      return 1.0 + 4.0 / (128.0 * 128.0);  // fp32 scale per 128x128 block
    case WeightFormat::kMxfp4:
      return (4.0 + 8.0 / 32.0) / 8.0;  // E8M0 scale per 32 values
    case WeightFormat::kNvfp4:
      return (4.0 + 8.0 / 16.0) / 8.0;  // E4M3 scale per 16 values
    case WeightFormat::kInt4:
      return (4.0 + 16.0 / 128.0) / 8.0;  // bf16 scale per group of 128
  }
  return 2.0;
}

uint64_t ModelSpec::attention_params_per_layer() const {
  const uint64_t h = static_cast<uint64_t>(hidden);
  const uint64_t n = static_cast<uint64_t>(heads);
  if (attention == AttentionKind::kMla) {
    const uint64_t qk = static_cast<uint64_t>(qk_nope_head_dim) + qk_rope_head_dim;
    uint64_t p = 0;
    if (q_lora_rank > 0) {
      p += h * q_lora_rank;                 // q_a_proj
      p += q_lora_rank;                     // q_a_layernorm
      p += uint64_t(q_lora_rank) * n * qk;  // q_b_proj
    } else {
      p += h * n * qk;  // q_proj
    }
    p += h * (uint64_t(kv_lora_rank) + qk_rope_head_dim);  // kv_a_proj_with_mqa
    p += kv_lora_rank;                                     // kv_a_layernorm
    p += uint64_t(kv_lora_rank) * n * (uint64_t(qk_nope_head_dim) + v_head_dim);  // kv_b_proj
    p += n * v_head_dim * h;                                                      // o_proj
    return p;
  }
  const uint64_t q = n * head_dim;
  const uint64_t kv = uint64_t(kv_heads) * head_dim;
  uint64_t p = h * q + 2 * h * kv + q * h;  // q, k, v, o
  if (attention_output_gate) p += h * q;    // q_proj's second half: the output gate
  if (qkv_bias) p += q + 2 * kv;
  if (o_bias) p += h;
  if (qk_norm) p += 2 * uint64_t(head_dim);
  if (qk_norm_per_layer) p += q + kv;
  if (attention_sinks) p += n;
  return p;
}

uint64_t ModelSpec::dense_ffn_params_per_layer() const {
  return (gated_ffn ? 3u : 2u) * uint64_t(hidden) * uint64_t(intermediate);
}

uint64_t ModelSpec::expert_params() const {
  if (experts == 0) return 0;
  uint64_t p = (gated_ffn ? 3u : 2u) * uint64_t(hidden) * uint64_t(moe_intermediate);
  if (expert_bias) p += (gated_ffn ? 2u : 1u) * uint64_t(moe_intermediate) + uint64_t(hidden);
  return p;
}

uint64_t ModelSpec::shared_ffn_params_per_layer() const {
  if (shared_intermediate == 0) return 0;
  uint64_t p = (gated_ffn ? 3u : 2u) * uint64_t(hidden) * uint64_t(shared_intermediate);
  if (shared_expert_gate) p += uint64_t(hidden);
  return p;
}

uint64_t ModelSpec::router_params_per_layer() const {
  if (experts == 0) return 0;
  return uint64_t(hidden) * experts + (router_bias ? uint64_t(experts) : 0);
}

uint64_t ModelSpec::norm_params_per_layer() const {
  return uint64_t(norms_per_layer) * uint64_t(hidden);
}

// JambaMambaMixer (modeling_jamba.py): in_proj (hidden -> 2 x d_inner), a depthwise conv1d,
// x_proj (d_inner -> dt_rank + 2 x d_state), dt_proj (dt_rank -> d_inner, with bias), A_log
// (d_inner x d_state), D (d_inner), out_proj (d_inner -> hidden), and RMSNorms on dt, B and C.
// NemotronHMamba2Mixer (modeling_nemotron_h.py): in_proj (hidden -> d_inner + conv_dim + heads),
// a depthwise conv1d over x, B and C (conv_dim = d_inner + 2 x groups x d_state), dt_bias, A_log
// and D per head, a gated RMSNorm of d_inner, out_proj (d_inner -> hidden).
uint64_t ModelSpec::mamba_params_per_layer() const {
  const uint64_t h = uint64_t(hidden), d = uint64_t(mamba.d_inner), n = uint64_t(mamba.d_state);
  const uint64_t k = uint64_t(mamba.conv_kernel), conv = uint64_t(mamba.conv_dim());
  uint64_t p = conv * k + (mamba.conv_bias ? conv : 0);  // conv1d
  if (mamba.version == 1) {
    const uint64_t r = uint64_t(mamba.dt_rank);
    p += h * 2 * d + (mamba.proj_bias ? 2 * d : 0);  // in_proj
    p += d * (r + 2 * n);                            // x_proj
    p += r * d + d;                                  // dt_proj with its bias
    p += d * n + d;                                  // A_log, D
    p += d * h + (mamba.proj_bias ? h : 0);          // out_proj
    p += r + 2 * n;                                  // dt, B and C layernorms
    return p;
  }
  if (mamba.version == 2) {
    const uint64_t heads = uint64_t(mamba.heads), in = d + conv + heads;
    p += h * in + (mamba.proj_bias ? in : 0);  // in_proj
    p += 3 * heads;                            // dt_bias, A_log, D
    p += d;                                    // gated RMSNorm
    p += d * h + (mamba.proj_bias ? h : 0);    // out_proj
    return p;
  }
  return 0;
}

// Qwen3NextGatedDeltaNet (modeling_qwen3_next.py): in_proj_qkvz (hidden -> 2 x key_dim + 2 x
// value_dim), in_proj_ba (hidden -> 2 x value heads), a depthwise conv1d over q, k and v without
// bias, dt_bias and A_log per value head, a gated RMSNorm of value_head_dim, out_proj.
uint64_t ModelSpec::linear_attention_params_per_layer() const {
  if (linear.key_heads == 0) return 0;
  const uint64_t h = uint64_t(hidden);
  const uint64_t key_dim = uint64_t(linear.key_heads) * linear.key_head_dim;
  const uint64_t value_dim = uint64_t(linear.value_heads) * linear.value_head_dim;
  uint64_t p = h * (2 * key_dim + 2 * value_dim);                   // in_proj_qkvz
  p += h * 2 * uint64_t(linear.value_heads);                        // in_proj_ba
  p += uint64_t(linear.conv_dim()) * uint64_t(linear.conv_kernel);  // conv1d
  p += 2 * uint64_t(linear.value_heads);                            // dt_bias, A_log
  p += uint64_t(linear.value_head_dim);                             // norm
  p += value_dim * h;                                               // out_proj
  return p;
}

uint64_t ModelSpec::mixer_params() const {
  return uint64_t(attention_layers()) * attention_params_per_layer() +
         uint64_t(mamba_layers) * mamba_params_per_layer() +
         uint64_t(linear_layers) * linear_attention_params_per_layer();
}

uint64_t ModelSpec::embedding_params() const {
  return uint64_t(vocab) * uint64_t(hidden) * (tied_embeddings ? 1u : 2u);
}

uint64_t ModelSpec::lm_head_params() const { return uint64_t(vocab) * uint64_t(hidden); }

uint64_t ModelSpec::total_params() const {
  uint64_t p = embedding_params() + uint64_t(hidden);  // + final norm
  p += mixer_params() + uint64_t(layers) * norm_params_per_layer();
  p += uint64_t(dense_layers) * dense_ffn_params_per_layer();
  p += uint64_t(moe_layers) * (uint64_t(experts) * expert_params() + shared_ffn_params_per_layer() +
                               router_params_per_layer());
  return p;
}

uint64_t ModelSpec::active_params() const {
  uint64_t idle = uint64_t(moe_layers) * uint64_t(experts - experts_per_token) * expert_params();
  // The input embedding is a lookup; when tied, the one table is the LM head and stays counted.
  uint64_t lookup = tied_embeddings ? 0 : uint64_t(vocab) * uint64_t(hidden);
  return total_params() - idle - lookup;
}

uint64_t ModelSpec::mamba_state_bytes_per_layer() const {
  if (mamba.version == 0) return 0;
  const uint64_t ssm = mamba.version == 2
                           ? uint64_t(mamba.heads) * mamba.head_dim * uint64_t(mamba.d_state)
                           : uint64_t(mamba.d_inner) * uint64_t(mamba.d_state);
  const uint64_t conv = uint64_t(std::max(mamba.conv_kernel - 1, 0)) * uint64_t(mamba.conv_dim());
  return ssm * uint64_t(state_bytes_per_value) + conv * 2;
}

uint64_t ModelSpec::linear_state_bytes_per_layer() const {
  if (linear.key_heads == 0) return 0;
  const uint64_t state =
      uint64_t(linear.value_heads) * linear.key_head_dim * uint64_t(linear.value_head_dim);
  const uint64_t conv = uint64_t(std::max(linear.conv_kernel - 1, 0)) * uint64_t(linear.conv_dim());
  return state * uint64_t(state_bytes_per_value) + conv * 2;
}

uint64_t ModelSpec::recurrent_state_bytes_per_sequence() const {
  return uint64_t(mamba_layers) * mamba_state_bytes_per_layer() +
         uint64_t(linear_layers) * linear_state_bytes_per_layer();
}

uint64_t ModelSpec::kv_bytes_per_token_per_layer() const {
  const uint64_t b = static_cast<uint64_t>(kv_cache_bytes_per_value);
  if (attention == AttentionKind::kMla) return (uint64_t(kv_lora_rank) + qk_rope_head_dim) * b;
  return 2 * uint64_t(kv_heads) * uint64_t(head_dim) * b;
}

// A JSON file of the checkpoint (config.json, hf_quant_config.json), bounded before it is parsed:
// at most kMaxConfigBytes and kMaxDepth levels. `kind` names it in the errors ("a config.json"),
// `content` says what a too-deep document is not ("a model config").
Result<json> parse_bounded_json(std::string_view text, const std::string& file,
                                std::string_view kind, std::string_view content) {
  if (text.empty()) return make_error("empty file", 0).in_file(file);
  if (text.size() > kMaxConfigBytes)
    return make_error(fmt::format("{} bytes, above the {}-byte limit for {}", text.size(),
                                  kMaxConfigBytes, kind))
        .in_file(file);
  if (auto at = too_deep(text))
    return make_error(fmt::format("not {}: arrays and objects nested more than {} levels deep",
                                  content, kMaxDepth),
                      *at)
        .in_file(file);
  // Python's json module writes an infinite float as a bare Infinity (Nemotron-H's
  // "time_step_limit": [0.0, Infinity]), which JSON does not allow: outside strings it is read
  // as null, padded to the same length so that offsets in errors stay those of the file.
  std::string patched;
  size_t at = 0;
  JsonStringTracker strings;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!strings.outside(text[i])) continue;
    for (std::string_view word : {std::string_view("-Infinity"), std::string_view("Infinity")}) {
      if (text.substr(i, word.size()) != word) continue;
      patched.append(text.substr(at, i - at));
      patched.append("null");
      patched.append(word.size() - 4, ' ');
      i += word.size() - 1;
      at = i + 1;
      break;
    }
  }
  if (at == 0) return parse_json_document(text, file);
  patched.append(text.substr(at));
  return parse_json_document(patched, file);
}

Result<ModelSpec> parse_model_config(std::string_view json_text, std::string_view source) {
  const std::string file(source);
  try {
    SMCOMPAT_TRY(json doc, parse_bounded_json(json_text, file, "a config.json", "a model config"));
    auto spec = read_spec(doc, json_text, source);
    if (!spec) return Error(spec.error()).in_file(file);
    return spec;
  } catch (const std::exception& e) {
    // Not expected (every access above is checked); kept so that no input can throw out.
    return make_error(std::string("cannot read the config: ") + e.what()).in_file(file);
  }
}

// NVIDIA ModelOpt checkpoints keep their quantization in hf_quant_config.json beside config.json
// ({"producer": ..., "quantization": {"quant_algo": "NVFP4", "exclude_modules": [...]}}); it is
// read as config.json's quantization_config would be, and the plan says which file gave it.
Result<void> read_hf_quant_config(const std::string& path, ModelSpec& spec) {
  auto text = read_file_prefix(path, kMaxConfigBytes + 1);
  if (!text) return make_error("cannot open the file").in_file(path);
  try {
    SMCOMPAT_TRY(json doc, parse_bounded_json(*text, path, "an hf_quant_config.json",
                                              "a quantization config"));
    const json* q =
        doc.is_object() && doc.contains("quantization") ? &doc["quantization"] : nullptr;
    if (!q || !q->is_object())
      return make_error("no \"quantization\" object (ModelOpt's layout)", 0).in_file(path);
    json as_config = *q;
    as_config["quant_method"] = "modelopt";
    Fields top(doc, *text, 0, "");
    auto r = read_quantization(as_config, top, spec);
    if (!r) return Error(r.error()).in_file(path);
    spec.quantization_file = "hf_quant_config.json";
    return {};
  } catch (const std::exception& e) {
    return make_error(std::string("cannot read it: ") + e.what()).in_file(path);
  }
}

Result<ModelSpec> read_model_config(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A checkpoint directory: its config.json, and the quantization files beside it.
  const std::string config =
      fs::is_directory(path, ec) ? (fs::path(path) / "config.json").string() : path;
  auto text = read_file_prefix(config, kMaxConfigBytes + 1);
  if (!text) return make_error("cannot open the file").in_file(config);
  auto spec = parse_model_config(*text, config);
  if (!spec) return spec;
  const fs::path quant = fs::path(config).parent_path() / "hf_quant_config.json";
  if (spec->quantization == "none" && fs::is_regular_file(quant, ec))
    SMCOMPAT_CHECK(read_hf_quant_config(quant.string(), *spec));
  return spec;
}

}  // namespace smcompat::plan
