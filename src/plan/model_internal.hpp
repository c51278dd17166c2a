// Private to plan/: the config.json reading that the model reader's files share (model.cpp: the
// shapes; model_quantization.cpp: quantization_config into the weight formats).
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "smcompat/plan/model.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::plan::detail {

using nlohmann::json;

// Bounds for the shape fields (model.cpp and model_layers.cpp): far above any published model,
// low enough that every product in the counts stays well inside 64 bits (the total is checked
// once more in 128 bits after reading).
constexpr int64_t kMaxLayers = 100'000;
constexpr int64_t kMaxWidth = 1 << 20;  // hidden, head and FFN widths
constexpr int64_t kMaxHeads = 1 << 16;

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

// What a family's row in data/layer_patterns.json decided beyond the layer kinds
// (model_layers.cpp).
struct LayerRules {
  bool has_row = false;      ///< the family has a row: its mixers and shapes were read from it
  bool ffn_decided = false;  ///< the row gave each layer's FFN kind (a pattern or an ffn rule)
  std::string shared_expert_width;  ///< the field that holds the shared expert's width
  bool router_bias = false;         ///< the router carries one bias per expert
  bool shared_expert_gate = false;  ///< a hidden x 1 gate on the shared expert
};

// Applies the row of data/layer_patterns.json for `type` (if any) to the config: sizes
// spec.layer_kinds to spec.layers with each layer's mixer (and FFN, where the row decides it),
// reads the Mamba and linear-attention shapes, the activation (gated_ffn from its matrix
// count), norms per layer and the attention flags. Without a row, every mixer is full attention
// and nothing else changes. Errors quote the field and value (a pattern of the wrong length, an
// unknown pattern letter, a period of 0, a missing shape field).
Result<LayerRules> read_layer_rules(const Fields& f, const std::string& type, ModelSpec& spec);
/// Whether data/layer_patterns.json has a row for this model_type.
bool has_layer_pattern_row(const std::string& type);

// quantization_config (`q`, found in `top`) into `spec`'s attention_format, expert_format,
// quantization and weight_block; model_quantization.cpp lists the layouts read.
Result<void> read_quantization(const json& q, const Fields& top, ModelSpec& spec);

}  // namespace smcompat::plan::detail
