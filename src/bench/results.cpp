// Reading a recorded benchmark run (schema smcompat.bench/1, docs/json-schema.md) back into the
// model, so that any run can be rendered or compared without a GPU. The text is untrusted: every
// field is type-checked, errors name the JSON path ("results[3].time.median_s: expected a number,
// found a string"), `null` reads as "not measured" (never 0), and unknown fields are ignored so
// that later minor versions stay readable. The writer is report/'s bench_to_json().
#include "smcompat/bench/results.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <nlohmann/json.hpp>

#include "smcompat/util/enum_names.hpp"
#include "smcompat/util/json_read.hpp"

namespace smcompat::bench {

namespace {

using nlohmann::json;

constexpr std::array<const char*, 3> kOriginNames = {"native", "torch", "synthetic"};
constexpr const char* kSchema = "smcompat.bench/1";

// A short, printable rendering of an untrusted string for an error message: control bytes
// escaped so that a hostile file cannot drive the terminal, and long values cut.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size() && i < 60; ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  if (s.size() > 60) out += "...";
  return out + "\"";
}

std::string article_type(const json& j) {
  switch (j.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "a number";
    default:
      return "an unexpected value";
  }
}

// Reads fields and remembers the first error, so the readers below stay flat: on error every
// accessor returns a default, and read_bench_run() reports the one error at the end.
class Reader {
 public:
  std::optional<Error> error;

  static std::string at(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }
  static std::string at(const std::string& path, size_t index) {
    return fmt::format("{}[{}]", path, index);
  }

  void fail(const std::string& path, const std::string& what) {
    if (!error) error = make_error(path + ": " + what);
  }
  void expected(const std::string& path, const char* what, const json& got) {
    fail(path, fmt::format("expected {}, found {}", what, article_type(got)));
  }

  // obj[key], or nullptr when absent (a missing field reads like null). `required` fields fail.
  const json* field(const json& obj, std::string_view key, const std::string& path,
                    bool required = false) {
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(at(path, key), "missing");
      return nullptr;
    }
    return &*it;
  }

  std::string str(const json& obj, std::string_view key, const std::string& path,
                  bool required = false) {
    const json* v = field(obj, key, path, required);
    if (!v || (v->is_null() && !required)) return {};
    if (!v->is_string()) {
      expected(at(path, key), "a string", *v);
      return {};
    }
    return v->get<std::string>();
  }

  std::optional<std::string> opt_str(const json& obj, std::string_view key,
                                     const std::string& path) {
    const json* v = field(obj, key, path);
    if (!v || v->is_null()) return std::nullopt;
    if (!v->is_string()) {
      expected(at(path, key), "a string or null", *v);
      return std::nullopt;
    }
    return v->get<std::string>();
  }

  std::optional<double> opt_num(const json& obj, std::string_view key, const std::string& path) {
    const json* v = field(obj, key, path);
    if (!v || v->is_null()) return std::nullopt;
    if (!v->is_number()) {
      expected(at(path, key), "a number or null", *v);
      return std::nullopt;
    }
    return v->get<double>();
  }

  double num(const json& obj, std::string_view key, const std::string& path, double fallback) {
    const json* v = field(obj, key, path);
    if (!v) return fallback;
    if (!v->is_number()) {
      expected(at(path, key), "a number", *v);
      return fallback;
    }
    return v->get<double>();
  }

  // An integer within [lo, hi]; floats are refused (a count of 2.5 samples is a broken file).
  std::optional<long long> integer(const json& v, const std::string& path, long long lo,
                                   long long hi) {
    if (v.is_number_unsigned()) {
      auto u = v.get<unsigned long long>();
      if (u > static_cast<unsigned long long>(hi)) {
        fail(path, fmt::format("{} is out of range", u));
        return std::nullopt;
      }
      return static_cast<long long>(u);
    }
    if (!v.is_number_integer()) {
      expected(path, "an integer", v);
      return std::nullopt;
    }
    auto i = v.get<long long>();
    if (i < lo || i > hi) {
      fail(path, fmt::format("{} is out of range", i));
      return std::nullopt;
    }
    return i;
  }

  std::optional<int> opt_int(const json& obj, std::string_view key, const std::string& path) {
    const json* v = field(obj, key, path);
    if (!v || v->is_null()) return std::nullopt;
    auto i = integer(*v, at(path, key), std::numeric_limits<int>::min(),
                     std::numeric_limits<int>::max());
    if (!i) return std::nullopt;
    return static_cast<int>(*i);
  }

  size_t count(const json& obj, std::string_view key, const std::string& path, size_t fallback) {
    const json* v = field(obj, key, path);
    if (!v) return fallback;
    auto i = integer(*v, at(path, key), 0, std::numeric_limits<long long>::max());
    return i ? static_cast<size_t>(*i) : fallback;
  }

  bool boolean(const json& obj, std::string_view key, const std::string& path, bool fallback) {
    const json* v = field(obj, key, path);
    if (!v) return fallback;
    if (!v->is_boolean()) {
      expected(at(path, key), "true or false", *v);
      return fallback;
    }
    return v->get<bool>();
  }

  std::optional<bool> opt_bool(const json& obj, std::string_view key, const std::string& path) {
    const json* v = field(obj, key, path);
    if (!v || v->is_null()) return std::nullopt;
    if (!v->is_boolean()) {
      expected(at(path, key), "true, false or null", *v);
      return std::nullopt;
    }
    return v->get<bool>();
  }

  // An array at obj[key] (absent or null: none), for the caller to walk element by element.
  const json* array(const json& obj, std::string_view key, const std::string& path,
                    bool required = false) {
    const json* v = field(obj, key, path, required);
    if (!v || (v->is_null() && !required)) return nullptr;
    if (!v->is_array()) {
      expected(at(path, key), "an array", *v);
      return nullptr;
    }
    return v;
  }

  // An object at obj[key] (absent or null: nullptr).
  const json* object(const json& obj, std::string_view key, const std::string& path) {
    const json* v = field(obj, key, path);
    if (!v || v->is_null()) return nullptr;
    if (!v->is_object()) {
      expected(at(path, key), "an object or null", *v);
      return nullptr;
    }
    return v;
  }

  std::vector<std::string> strings(const json& obj, std::string_view key, const std::string& path) {
    std::vector<std::string> out;
    const json* a = array(obj, key, path);
    if (!a) return out;
    const std::string p = at(path, key);
    for (size_t i = 0; i < a->size(); ++i) {
      if (!(*a)[i].is_string()) {
        expected(at(p, i), "a string", (*a)[i]);
        return {};
      }
      out.push_back((*a)[i].get<std::string>());
    }
    return out;
  }

  std::vector<int> ints(const json& obj, std::string_view key, const std::string& path) {
    std::vector<int> out;
    const json* a = array(obj, key, path);
    if (!a) return out;
    const std::string p = at(path, key);
    for (size_t i = 0; i < a->size(); ++i) {
      auto v = integer((*a)[i], at(p, i), std::numeric_limits<int>::min(),
                       std::numeric_limits<int>::max());
      if (!v) return {};
      out.push_back(static_cast<int>(*v));
    }
    return out;
  }

  std::map<std::string, std::string> string_map(const json& obj, std::string_view key,
                                                const std::string& path) {
    std::map<std::string, std::string> out;
    const json* o = object(obj, key, path);
    if (!o) return out;
    for (const auto& [k, v] : o->items()) {
      if (!v.is_string()) {
        expected(at(at(path, key), k), "a string", v);
        return {};
      }
      out[k] = v.get<std::string>();
    }
    return out;
  }

  std::map<std::string, double> number_map(const json& obj, std::string_view key,
                                           const std::string& path) {
    std::map<std::string, double> out;
    const json* o = object(obj, key, path);
    if (!o) return out;
    for (const auto& [k, v] : o->items()) {
      if (!v.is_number()) {
        expected(at(at(path, key), k), "a number", v);
        return {};
      }
      out[k] = v.get<double>();
    }
    return out;
  }
};

std::optional<DeviceState> read_state(Reader& r, const json& obj, std::string_view key,
                                      const std::string& path) {
  const json* o = r.object(obj, key, path);
  if (!o) return std::nullopt;
  const std::string p = Reader::at(path, key);
  DeviceState s;
  s.sm_clock_mhz = r.opt_int(*o, "sm_clock_mhz", p);
  s.memory_clock_mhz = r.opt_int(*o, "memory_clock_mhz", p);
  s.temperature_c = r.opt_int(*o, "temperature_c", p);
  s.power_w = r.opt_num(*o, "power_w", p);
  s.throttle_reasons = r.strings(*o, "throttle_reasons", p);
  return s;
}

std::optional<SampleSummary> read_time(Reader& r, const json& obj, const std::string& path) {
  const json* o = r.object(obj, "time", path);
  if (!o) return std::nullopt;
  const std::string p = Reader::at(path, "time");
  SampleSummary s;
  s.samples = r.count(*o, "samples", p, 0);
  s.throttled = r.count(*o, "throttled", p, 0);
  s.mean_s = r.num(*o, "mean_s", p, 0);
  s.median_s = r.num(*o, "median_s", p, 0);
  s.min_s = r.num(*o, "min_s", p, 0);
  s.max_s = r.num(*o, "max_s", p, 0);
  s.stddev_s = r.num(*o, "stddev_s", p, 0);
  s.rel_stddev = r.num(*o, "rel_stddev", p, 0);
  s.total_s = r.num(*o, "total_s", p, 0);
  const std::string stop = r.str(*o, "stop", p);
  if (!stop.empty()) {
    bool known = false;
    for (auto reason : {StopReason::kConverged, StopReason::kTimeout, StopReason::kMaxSamples,
                        StopReason::kError})
      if (stop == to_string(reason)) {
        s.stop = reason;
        known = true;
      }
    if (!known) r.fail(Reader::at(p, "stop"), "unknown stop reason " + quoted(stop));
  }
  return s;
}

BenchResult read_result(Reader& r, const json& o, const std::string& p) {
  BenchResult b;
  b.suite = r.str(o, "suite", p, true);
  b.name = r.str(o, "name", p, true);
  const std::string origin = r.str(o, "origin", p, true);
  if (!r.error) {
    auto parsed = parse_origin(origin);
    if (!parsed)
      r.fail(Reader::at(p, "origin"), "unknown origin " + quoted(origin));
    else
      b.origin = *parsed;
  }
  b.devices = r.ints(o, "devices", p);
  b.params = r.string_map(o, "params", p);
  b.value = r.opt_num(o, "value", p);
  b.unit = r.str(o, "unit", p);
  b.time = read_time(r, o, p);
  b.peak = r.opt_num(o, "peak", p);
  b.peak_source = r.str(o, "peak_source", p);
  b.skip_reason = r.str(o, "skip_reason", p);
  b.verified = r.opt_bool(o, "verified", p);
  b.state = read_state(r, o, "state", p);
  b.extra = r.number_map(o, "extra", p);
  b.notes = r.strings(o, "notes", p);
  // percent_of_peak is written for convenience only; it is recomputed from value and peak.
  return b;
}

}  // namespace

const char* to_string(Origin origin) { return enum_name(origin, kOriginNames, "synthetic"); }

std::optional<Origin> parse_origin(std::string_view text) {
  return enum_from_name<Origin>(text, kOriginNames);
}

std::optional<double> BenchResult::percent_of_peak() const {
  if (!value || !peak || !(*peak > 0)) return std::nullopt;
  return *value / *peak * 100.0;
}

Result<BenchRun> read_bench_run(std::string_view json_text) {
  // The one located reader (util/json_read.hpp): nothing throws, and the error says where.
  // nlohmann's parser is iterative, so deeply nested hostile input cannot exhaust the stack.
  SMCOMPAT_TRY(json doc, parse_json_document(json_text));
  Reader r;
  const std::string root;
  if (!doc.is_object()) {
    r.expected("(document)", "an object", doc);
    return *r.error;
  }
  const std::string schema = r.str(doc, "schema", root, true);
  if (!r.error && schema != kSchema)
    r.fail("schema", fmt::format("{} is not {}", quoted(schema), kSchema));
  if (r.error) return *r.error;

  BenchRun run;
  run.tool_version = r.str(doc, "tool_version", root);
  run.argv = r.strings(doc, "argv", root);
  run.started_utc = r.str(doc, "started_utc", root);
  run.host = r.str(doc, "host", root);
  run.driver_version = r.opt_str(doc, "driver_version", root);
  run.cuda_driver_version = r.opt_int(doc, "cuda_driver_version", root);

  if (const json* devices = r.array(doc, "devices", root)) {
    for (size_t i = 0; i < devices->size() && !r.error; ++i) {
      const json& d = (*devices)[i];
      const std::string p = Reader::at("devices", i);
      if (!d.is_object()) {
        r.expected(p, "an object", d);
        break;
      }
      BenchDevice dev;
      if (auto ordinal = r.opt_int(d, "ordinal", p)) dev.ordinal = *ordinal;
      dev.name = r.str(d, "name", p);
      dev.uuid = r.str(d, "uuid", p);
      dev.cc = r.str(d, "cc", p);
      dev.catalog_gpu = r.opt_str(d, "catalog_gpu", p);
      dev.state_at_start = read_state(r, d, "state_at_start", p);
      run.devices.push_back(std::move(dev));
    }
  }

  if (const json* m = r.object(doc, "method", root)) {
    const std::string p = "method";
    MethodSettings& s = run.method;
    s.stop.min_samples = r.count(*m, "min_samples", p, s.stop.min_samples);
    s.stop.min_time_s = r.num(*m, "min_time_s", p, s.stop.min_time_s);
    s.stop.max_rel_stddev = r.num(*m, "max_rel_stddev", p, s.stop.max_rel_stddev);
    s.stop.timeout_s = r.num(*m, "timeout_s", p, s.stop.timeout_s);
    s.stop.max_samples = r.count(*m, "max_samples", p, s.stop.max_samples);
    s.blocking_kernel = r.boolean(*m, "blocking_kernel", p, s.blocking_kernel);
    s.l2_flush = r.boolean(*m, "l2_flush", p, s.l2_flush);
    s.quick = r.boolean(*m, "quick", p, s.quick);
  }
  run.libraries = r.string_map(doc, "libraries", root);

  if (const json* results = r.array(doc, "results", root, /*required=*/true)) {
    for (size_t i = 0; i < results->size() && !r.error; ++i) {
      const json& o = (*results)[i];
      const std::string p = Reader::at("results", i);
      if (!o.is_object()) {
        r.expected(p, "an object", o);
        break;
      }
      run.results.push_back(read_result(r, o, p));
    }
  }
  run.warnings = r.strings(doc, "warnings", root);
  if (r.error) return *r.error;
  return run;
}

}  // namespace smcompat::bench
