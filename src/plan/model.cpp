// The model reader (include/smcompat/plan/model.hpp): a Hugging Face config.json into the shapes
// and number formats the cost model needs, and the parameter counts that follow from them.
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

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <set>
#include <type_traits>
#include <utility>
#include <vector>

#include "smcompat/util/enum_names.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_read.hpp"

namespace smcompat::plan {

namespace {

using nlohmann::json;

// A config.json is a few KB (Qwen FP8 configs with long modules_to_not_convert lists ~100 KB).
constexpr size_t kMaxConfigBytes = 16u << 20;

// Bounds for the shape fields: far above any published model, low enough that every product in
// the counts stays well inside 64 bits (the total is checked once more in 128 bits after reading).
constexpr int64_t kMaxLayers = 100'000;
constexpr int64_t kMaxWidth = 1 << 20;     // hidden, head and FFN widths
constexpr int64_t kMaxFfnWidth = 1 << 24;  // dense and expert FFN widths
constexpr int64_t kMaxVocab = 1 << 24;
constexpr int64_t kMaxHeads = 1 << 16;
constexpr int64_t kMaxExperts = 1 << 16;
constexpr int64_t kMaxWindow = int64_t{1} << 30;

// One JSON object being read, with the text it came from so that an error can point at the key.
class Fields {
 public:
  Fields(const json& obj, std::string_view text, size_t search_from, std::string where)
      : obj_(obj), text_(text), search_from_(search_from), where_(std::move(where)) {}

  const json& object() const { return obj_; }
  std::string_view text() const { return text_; }
  size_t search_from() const { return search_from_; }
  bool has(const char* key) const {
    auto it = obj_.find(key);
    return it != obj_.end() && !it->is_null();
  }
  const json* get(const char* key) const {
    auto it = obj_.find(key);
    return it == obj_.end() || it->is_null() ? nullptr : &*it;
  }

  // Where `"key"` first appears in the text (from the start of this object's region), if it does.
  std::optional<uint64_t> offset_of(const char* key) const {
    std::string quoted = fmt::format("\"{}\"", key);
    auto at = text_.find(quoted, search_from_);
    if (at == std::string_view::npos) return std::nullopt;
    return at;
  }

  Error error(const char* key, const std::string& what) const {
    return make_error(fmt::format("\"{}{}\" {}", where_, key, what), offset_of(key));
  }

  // An integer field: absent or null gives nullopt; a float with an integral value is accepted
  // (some exporters write 4096.0); anything else, or a value outside [lo, hi], is an error.
  Result<std::optional<int64_t>> integer(const char* key, int64_t lo, int64_t hi) const {
    const json* v = get(key);
    if (!v) return std::optional<int64_t>{};
    int64_t n = 0;
    if (v->is_number_unsigned()) {
      uint64_t u = v->get<uint64_t>();
      if (u > static_cast<uint64_t>(hi))
        return error(key, fmt::format("is {}, above the limit of {}", u, hi));
      n = static_cast<int64_t>(u);
    } else if (v->is_number_integer()) {
      n = v->get<int64_t>();
    } else if (v->is_number_float()) {
      double d = v->get<double>();
      if (!std::isfinite(d) || d != std::floor(d))
        return error(key, fmt::format("is {}, not a whole number", v->dump()));
      if (d < static_cast<double>(lo) || d > static_cast<double>(hi))
        return error(key, fmt::format("is {}, outside [{}, {}]", v->dump(), lo, hi));
      n = static_cast<int64_t>(d);
    } else {
      return error(key, fmt::format("is {}, not a number", describe(*v)));
    }
    if (n < lo) {
      if (n < 0) return error(key, fmt::format("is {}, negative", n));
      return error(key, fmt::format("is {}, below the minimum of {}", n, lo));
    }
    if (n > hi) return error(key, fmt::format("is {}, above the limit of {}", n, hi));
    return std::optional<int64_t>{n};
  }

  Result<int> required(const char* key, int64_t lo, int64_t hi) const {
    SMCOMPAT_TRY(auto v, integer(key, lo, hi));
    if (!v) return make_error(fmt::format("required field \"{}{}\" is missing", where_, key));
    return static_cast<int>(*v);
  }

  Result<int> optional_int(const char* key, int64_t lo, int64_t hi, int fallback) const {
    SMCOMPAT_TRY(auto v, integer(key, lo, hi));
    return v ? static_cast<int>(*v) : fallback;
  }

  // The first of several spellings that is present; `found` (if given) is set to its key.
  Result<std::optional<int64_t>> first_of(std::initializer_list<const char*> keys, int64_t lo,
                                          int64_t hi, const char** found = nullptr) const {
    for (const char* key : keys) {
      if (!has(key)) continue;
      if (found) *found = key;
      return integer(key, lo, hi);
    }
    return std::optional<int64_t>{};
  }

  Result<bool> boolean(const char* key, bool fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_boolean()) return error(key, fmt::format("is {}, not true or false", describe(*v)));
    return v->get<bool>();
  }

  Result<std::string> string(const char* key) const {
    const json* v = get(key);
    if (!v) return std::string();
    if (!v->is_string()) return error(key, fmt::format("is {}, not a string", describe(*v)));
    return v->get<std::string>();
  }

  // A value for an error message, without recursing into it: a scalar as JSON (a string cut to
  // 40 bytes; invalid UTF-8 replaced, so the dump cannot throw), an array or object by its size.
  // (nlohmann's dump() recurses once per nesting level: a deeply nested value must not reach it.)
  static std::string short_dump(const json& v) {
    auto plural = [](size_t n, const char* one) {
      return fmt::format("{} {}{}", n, one, n == 1 ? "" : "s");
    };
    if (v.is_array()) return "an array of " + plural(v.size(), "item");
    if (v.is_object()) return "an object of " + plural(v.size(), "key");
    constexpr size_t kCut = 37;
    if (v.is_string() && v.get_ref<const std::string&>().size() > kCut + 3)
      return json(v.get_ref<const std::string&>().substr(0, kCut))
                 .dump(-1, ' ', true, json::error_handler_t::replace) +
             "...";
    return v.dump(-1, ' ', true, json::error_handler_t::replace);
  }
  // "a string (\"4096\")", "a number (4.5)", "an array of 3 items", "null".
  static std::string describe(const json& v) {
    if (v.is_array() || v.is_object()) return short_dump(v);
    if (v.is_null()) return "null";
    const char* kind = v.is_number() ? "a number" : v.is_boolean() ? "a boolean" : "a string";
    return fmt::format("{} ({})", kind, short_dump(v));
  }

 private:
  const json& obj_;
  std::string_view text_;
  size_t search_from_;
  std::string where_;  // "" or "text_config." prefix for messages
};

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

// The width a TP slice of block-quantised weights must be a multiple of: the block's two sides
// ([128, 128] in every checkpoint read here; the least common multiple where they differ, since a
// split runs along either side). 0 for anything not a pair of positive integers.
int block_width(const json& b) {
  if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() || !b[1].is_number_integer())
    return 0;
  int64_t x = b[0].get<int64_t>(), y = b[1].get<int64_t>();
  if (x <= 0 || y <= 0 || x > 4096 || y > 4096) return 0;
  return static_cast<int>(std::lcm(x, y));
}

// Whether the lists of modules kept in 16 bits (modules_to_not_convert, ignore, exclude_modules)
// cover the attention of every one of `layers` layers. An entry counts when it names a whole
// attention module (its last "attn"/"attention" followed by nothing but wildcards: "self_attn",
// "model.layers.*.self_attn*", "re:.*self_attn.*"); one with a layer index
// ("model.layers.7.self_attn*", as NVIDIA's ModelOpt checkpoints list them, one per layer) covers
// that layer, one without covers them all. An entry for one projection
// ("model.layers.0.self_attn.q_proj") or exclusions of some layers only leave the attention
// quantised (the format is one per kind of weight: the majority's).
bool attention_left_out(const Fields& f, int layers) {
  std::vector<bool> covered(static_cast<size_t>(std::max(layers, 0)), false);
  size_t count = 0;
  for (const char* key : {"modules_to_not_convert", "ignore", "exclude_modules"}) {
    const json* list = f.get(key);
    if (!list || !list->is_array()) continue;
    for (const auto& m : *list) {
      if (!m.is_string()) continue;
      std::string e = m.get<std::string>();
      std::transform(e.begin(), e.end(), e.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      size_t end = std::string::npos;
      for (std::string_view token : {"attn", "attention"}) {
        size_t at = e.rfind(token);
        if (at != std::string::npos && (end == std::string::npos || at + token.size() > end))
          end = at + token.size();
      }
      if (end == std::string::npos) continue;
      bool whole = std::all_of(e.begin() + static_cast<std::ptrdiff_t>(end), e.end(),
                               [](char c) { return c == '*' || c == '.' || c == '$' || c == ')'; });
      if (!whole) continue;
      size_t li = e.find("layers.");
      if (li == std::string::npos || li + 7 >= e.size() ||
          !std::isdigit(static_cast<unsigned char>(e[li + 7])))
        return true;  // no particular layer: all of them
      int64_t index = 0;
      for (size_t i = li + 7; i < e.size() && std::isdigit(static_cast<unsigned char>(e[i])); ++i)
        index = std::min<int64_t>(index * 10 + (e[i] - '0'), int64_t{1} << 40);
      if (index < layers && !covered[static_cast<size_t>(index)]) {
        covered[static_cast<size_t>(index)] = true;
        ++count;
      }
    }
  }
  return layers > 0 && count == static_cast<size_t>(layers);
}

// quantization_config into the formats of the attention/dense linears and of the experts.
// Documented layouts: DeepSeek/Qwen FP8 ("quant_method": "fp8", "weight_block_size": [128, 128]);
// gpt-oss ("mxfp4", with self_attn, router, embeddings in modules_to_not_convert); llm-compressor's
// "compressed-tensors" (config_groups.*.weights {num_bits, type}); NVIDIA ModelOpt ("modelopt",
// quant_algo FP8 / NVFP4); AutoAWQ and GPTQ ("awq", "gptq", bits 4).
Result<void> read_quantization(const json& q, const Fields& top, ModelSpec& spec) {
  if (!q.is_object()) return top.error("quantization_config", "is not an object");
  Fields f(q, top.text(), top.offset_of("quantization_config").value_or(top.search_from()),
           "quantization_config.");
  SMCOMPAT_TRY(std::string method, f.string("quant_method"));
  // Modules kept in 16 bits: attention left out of every layer means attention stays kBf16.
  auto attention_excluded = [&] { return attention_left_out(f, spec.layers); };
  auto both = [&](WeightFormat w) {
    spec.attention_format = w;
    spec.expert_format = w;
  };
  if (method == "fp8") {
    both(WeightFormat::kFp8);
    spec.quantization = "fp8";
    if (const json* b = f.get("weight_block_size")) {
      spec.weight_block = block_width(*b);
      if (spec.weight_block > 0)
        spec.quantization +=
            fmt::format(" block {}x{}", (*b)[0].get<int64_t>(), (*b)[1].get<int64_t>());
    }
    if (attention_excluded()) spec.attention_format = WeightFormat::kBf16;
  } else if (method == "mxfp4") {
    // gpt-oss: the MoE weights only; attention, router and embeddings stay bf16 (model card).
    spec.expert_format = WeightFormat::kMxfp4;
    spec.attention_format = WeightFormat::kBf16;
    spec.quantization = "mxfp4 (experts)";
  } else if (method == "modelopt") {
    SMCOMPAT_TRY(std::string algo, f.string("quant_algo"));
    if (algo.empty()) {
      if (const json* inner = f.get("quantization"); inner && inner->is_object()) {
        auto it = inner->find("quant_algo");
        if (it != inner->end() && it->is_string()) algo = it->get<std::string>();
      }
    }
    if (algo == "FP8" || algo == "FP8_BLOCK") {
      both(WeightFormat::kFp8);
      if (algo == "FP8_BLOCK") spec.weight_block = 128;  // ModelOpt's FP8 blocks are 128x128
    } else if (algo == "NVFP4" || algo == "MIXED_PRECISION") {
      both(WeightFormat::kNvfp4);
    } else {
      return f.error("quant_algo", fmt::format("is \"{}\", not FP8 or NVFP4", algo));
    }
    if (attention_excluded()) spec.attention_format = WeightFormat::kBf16;
    spec.quantization = "modelopt " + algo;
  } else if (method == "compressed-tensors") {
    std::optional<WeightFormat> found;
    if (const json* groups = f.get("config_groups"); groups && groups->is_object()) {
      for (const auto& [name, group] : groups->items()) {
        if (!group.is_object()) continue;
        auto w = group.find("weights");
        if (w == group.end() || !w->is_object()) continue;
        auto bits = w->find("num_bits");
        auto type = w->find("type");
        if (bits == w->end() || !bits->is_number_integer()) continue;
        int64_t nb = bits->get<int64_t>();
        std::string ty = type != w->end() && type->is_string() ? type->get<std::string>() : "int";
        if (nb == 8 && ty == "float") {
          found = WeightFormat::kFp8;
          auto strategy = w->find("strategy");
          auto blocks = w->find("block_structure");
          if (strategy != w->end() && strategy->is_string() && *strategy == "block" &&
              blocks != w->end())
            spec.weight_block = block_width(*blocks);
        } else if (nb == 4 && ty == "float")
          found = WeightFormat::kNvfp4;
        else if (nb == 4 && ty == "int")
          found = WeightFormat::kInt4;
        if (found) break;
      }
    }
    if (!found)
      return top.error("quantization_config",
                       "(compressed-tensors) has no weight "
                       "scheme read here (8-bit float, 4-bit "
                       "float or 4-bit int)");
    both(*found);
    if (attention_excluded()) spec.attention_format = WeightFormat::kBf16;
    spec.quantization = fmt::format("compressed-tensors {}", to_string(*found));
  } else if (method == "awq" || method == "gptq") {
    SMCOMPAT_TRY(auto bits, f.integer("bits", 1, 64));
    if (!bits) bits = f.get("w_bit") ? std::optional<int64_t>(4) : std::nullopt;
    if (bits != 4)
      return f.error("bits", fmt::format("is {}, only 4-bit {} is read",
                                         bits ? std::to_string(*bits) : "absent", method));
    both(WeightFormat::kInt4);
    spec.quantization = method + " int4";
  } else if (method.empty()) {
    return top.error("quantization_config", "has no \"quant_method\"");
  } else {
    return f.error("quant_method", fmt::format("is \"{}\", not a method read here (fp8, mxfp4, "
                                               "modelopt, compressed-tensors, awq, gptq)",
                                               method));
  }
  return {};
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
  u128 total = per_layer * static_cast<u128>(m.layers) + 2 * h * static_cast<u128>(m.vocab);
  return total < (static_cast<u128>(1) << 62);
}

Result<ModelSpec> read_spec(const json& doc, std::string_view text, std::string_view source) {
  if (!doc.is_object())
    return make_error("not a model config: the document is not a JSON object", 0);
  Fields top(doc, text, 0, "");
  ModelSpec spec;
  SMCOMPAT_TRY(spec.model_type, top.string("model_type"));
  SMCOMPAT_TRY(spec.name, top.string("_name_or_path"));
  if (spec.name.empty()) spec.name = name_from_source(source);

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
  SMCOMPAT_TRY(spec.mtp_layers, f.optional_int("num_nextn_predict_layers", 0, kMaxLayers, 0));

  if (spec.experts == 0) {
    // Dense decoder.
    if (!inter)
      return make_error(fmt::format("required field \"{}intermediate_size\" is missing",
                                    nested ? "text_config." : ""));
    spec.intermediate = static_cast<int>(*inter);
    spec.dense_layers = spec.layers;
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
    spec.moe_layers = static_cast<int>(std::count(is_moe.begin(), is_moe.end(), true));
    spec.dense_layers = spec.layers - spec.moe_layers;

    // The dense layers' width: Llama 4's intermediate_size_mlp, else intermediate_size.
    if (type == "llama4") {
      SMCOMPAT_TRY(auto mlp, f.integer("intermediate_size_mlp", 1, kMaxFfnWidth));
      spec.intermediate = mlp ? static_cast<int>(*mlp) : 0;
    }
    if (spec.dense_layers > 0 && spec.intermediate == 0)
      return make_error(fmt::format(
          "required field \"{}{}\" is missing ({} layers are dense)", nested ? "text_config." : "",
          type == "llama4" ? "intermediate_size_mlp" : "intermediate_size", spec.dense_layers));

    // Shared experts.
    if (type == "llama4") {
      spec.shared_experts = 1;  // Llama4TextMoe.shared_expert, intermediate_size wide
      spec.shared_intermediate = spec.moe_intermediate;
    } else if (f.has("shared_expert_intermediate_size")) {
      SMCOMPAT_TRY(int w, f.optional_int("shared_expert_intermediate_size", 0, kMaxFfnWidth, 0));
      spec.shared_intermediate = w;
      spec.shared_experts = w > 0 ? 1 : 0;
      spec.shared_expert_gate = w > 0 && type == "qwen2_moe";
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
  }

  // Number formats.
  spec.quantization = "none";
  if (const json* q = top.get("quantization_config")) {
    SMCOMPAT_CHECK(read_quantization(*q, top, spec));
  } else if (nested) {
    if (const json* q2 = f.get("quantization_config"))
      SMCOMPAT_CHECK(read_quantization(*q2, f, spec));
  }

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

// The byte offset of the bracket that opens level kMaxDepth + 1, if any (brackets inside strings
// are not counted; a malformed document is left to the parser).
std::optional<uint64_t> too_deep(std::string_view text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
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
  if (qkv_bias) p += q + 2 * kv;
  if (o_bias) p += h;
  if (qk_norm) p += 2 * uint64_t(head_dim);
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

uint64_t ModelSpec::norm_params_per_layer() const { return 2 * uint64_t(hidden); }

uint64_t ModelSpec::embedding_params() const {
  return uint64_t(vocab) * uint64_t(hidden) * (tied_embeddings ? 1u : 2u);
}

uint64_t ModelSpec::total_params() const {
  uint64_t p = embedding_params() + uint64_t(hidden);  // + final norm
  p += uint64_t(layers) * (attention_params_per_layer() + norm_params_per_layer());
  p += uint64_t(dense_layers) * dense_ffn_params_per_layer();
  p += uint64_t(moe_layers) * (uint64_t(experts) * expert_params() + shared_ffn_params_per_layer() +
                               router_params_per_layer());
  return p;
}

uint64_t ModelSpec::active_params() const {
  uint64_t idle = uint64_t(moe_layers) * uint64_t(experts - experts_per_token) * expert_params();
  return total_params() - idle;
}

uint64_t ModelSpec::kv_bytes_per_token_per_layer() const {
  const uint64_t b = static_cast<uint64_t>(kv_cache_bytes_per_value);
  if (attention == AttentionKind::kMla) return (uint64_t(kv_lora_rank) + qk_rope_head_dim) * b;
  return 2 * uint64_t(kv_heads) * uint64_t(head_dim) * b;
}

Result<ModelSpec> parse_model_config(std::string_view json_text, std::string_view source) {
  const std::string file(source);
  if (json_text.empty()) return make_error("empty file", 0).in_file(file);
  if (json_text.size() > kMaxConfigBytes)
    return make_error(fmt::format("{} bytes, above the {}-byte limit for a config.json",
                                  json_text.size(), kMaxConfigBytes))
        .in_file(file);
  if (auto at = too_deep(json_text))
    return make_error(fmt::format("not a model config: arrays and objects nested more than {} "
                                  "levels deep",
                                  kMaxDepth),
                      *at)
        .in_file(file);
  try {
    SMCOMPAT_TRY(json doc, parse_json_document(json_text, file));
    auto spec = read_spec(doc, json_text, source);
    if (!spec) return Error(spec.error()).in_file(file);
    return spec;
  } catch (const std::exception& e) {
    // Not expected (every access above is checked); kept so that no input can throw out.
    return make_error(std::string("cannot read the config: ") + e.what()).in_file(file);
  }
}

Result<ModelSpec> read_model_config(const std::string& path) {
  auto text = read_file_prefix(path, kMaxConfigBytes + 1);
  if (!text) return make_error("cannot open the file").in_file(path);
  return parse_model_config(*text, path);
}

}  // namespace smcompat::plan
