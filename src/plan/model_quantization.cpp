// The quantization_config of a config.json (model_internal.hpp: read_quantization): which
// format the attention/dense linears and the experts are stored in, for each documented layout,
// and which modules a checkpoint keeps in 16 bits.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model_internal.hpp"
#include "smcompat/plan/model.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::plan::detail {
namespace {

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

}  // namespace

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

}  // namespace smcompat::plan::detail
