// libsmcompat_py.so: the library (include/smcompat/api/api.hpp) behind a C ABI for the Python
// package, which loads it with ctypes (python/smcompat/_native.py). A C ABI instead of a CPython
// extension makes one wheel serve every CPython >= 3.9 (tag py3-none-manylinux_*), and ctypes
// releases the GIL for the duration of each call, so other Python threads go on during a scan.
//
// One entry point: a JSON request {"function": "scan" | "doctor" | "explain" | "gpus" | "probe" |
// "check" | "version", ...arguments} in, a JSON text out: the document the CLI prints with
// `--json` (status 0), or {"what", "file", "offset"} (status 1), which the Python layer raises as
// smcompat.SmcompatError. No exception leaves this file.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/api/api.hpp"
#include "smcompat/report/check_report.hpp"
#include "smcompat/util/json_text.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/util/table.hpp"

#define SMCOMPAT_C_EXPORT extern "C" __attribute__((visibility("default")))

using nlohmann::json;
using smcompat::Error;
using smcompat::Result;

namespace {

enum CallStatus : int { kDocument = 0, kFailure = 1, kOutOfMemory = 2 };

// Compact JSON text; invalid UTF-8 in file names or members becomes U+FFFD (util/json_text.hpp).
std::string compact(const json& j) { return smcompat::json_text(j, -1); }

// The request's fields, read with their types checked: a request the Python layer did not mean
// to send is a clear error, never an exception.
class RequestFields {
 public:
  explicit RequestFields(const json& request) : request_(request) {}

  Result<std::string> text(const char* name) const {
    const json* value = find(name);
    if (!value) return std::string();
    if (!value->is_string()) return wrong_type(name, "a string");
    return value->get<std::string>();
  }
  Result<bool> flag(const char* name, bool missing) const {
    const json* value = find(name);
    if (!value) return missing;
    if (!value->is_boolean()) return wrong_type(name, "true or false");
    return value->get<bool>();
  }
  Result<unsigned> count(const char* name) const {
    const json* value = find(name);
    if (!value) return 0u;
    if (!value->is_number_unsigned() || value->get<uint64_t>() > 0xffffffffu)
      return wrong_type(name, "an unsigned 32-bit integer");
    return value->get<unsigned>();
  }
  Result<int> pid(const char* name) const {
    const json* value = find(name);
    if (!value) return 0;
    if (!value->is_number_integer() || value->get<int64_t>() < 0 ||
        value->get<int64_t>() > 0x7fffffff)
      return wrong_type(name, "a process id >= 0");
    return value->get<int>();
  }
  Result<std::vector<std::string>> texts(const char* name) const {
    const json* value = find(name);
    std::vector<std::string> out;
    if (!value) return out;
    if (!value->is_array()) return wrong_type(name, "a list of strings");
    for (const json& item : *value) {
      if (!item.is_string()) return wrong_type(name, "a list of strings");
      out.push_back(item.get<std::string>());
    }
    return out;
  }

 private:
  const json* find(const char* name) const {
    auto it = request_.find(name);
    return it == request_.end() || it->is_null() ? nullptr : &*it;
  }
  static Error wrong_type(const char* name, const char* expected) {
    return Error{std::string("request: '") + name + "' must be " + expected, "", std::nullopt};
  }
  const json& request_;
};

#define SMCOMPAT_FIELD(var, expr)                 \
  auto var##_result = (expr);                     \
  if (!var##_result) return var##_result.error(); \
  auto var = std::move(*var##_result)

Result<std::string> document(Result<json> result) {
  if (!result) return result.error();
  return compact(*result);
}

Result<std::string> scan(const RequestFields& f) {
  SMCOMPAT_FIELD(paths, f.texts("paths"));
  SMCOMPAT_FIELD(gpu, f.text("gpu"));
  SMCOMPAT_FIELD(target, f.text("target"));
  SMCOMPAT_FIELD(driver, f.text("driver"));
  SMCOMPAT_FIELD(deep, f.flag("deep", false));
  SMCOMPAT_FIELD(verbose, f.flag("verbose", false));
  SMCOMPAT_FIELD(probe, f.flag("probe", true));
  SMCOMPAT_FIELD(jobs, f.count("jobs"));
  SMCOMPAT_FIELD(strict, f.flag("strict", false));
  smcompat::api::ScanRequest r{std::move(paths),
                               std::move(gpu),
                               std::move(target),
                               std::move(driver),
                               deep,
                               verbose,
                               probe,
                               jobs,
                               strict};
  return document(smcompat::api::scan(r));
}

Result<std::string> doctor(const RequestFields& f) {
  SMCOMPAT_FIELD(gpus, f.texts("gpus"));
  SMCOMPAT_FIELD(pythons, f.texts("pythons"));
  SMCOMPAT_FIELD(discover_active, f.flag("discover_active", true));
  SMCOMPAT_FIELD(scan_code, f.flag("scan_code", true));
  smcompat::api::DoctorRequest r{std::move(gpus), std::move(pythons), discover_active, scan_code};
  return document(smcompat::api::doctor(r));
}

Result<std::string> explain(const RequestFields& f) {
  SMCOMPAT_FIELD(text, f.text("text"));
  SMCOMPAT_FIELD(run_doctor, f.flag("doctor", false));
  SMCOMPAT_FIELD(gpus, f.texts("gpus"));
  SMCOMPAT_FIELD(pythons, f.texts("pythons"));
  SMCOMPAT_FIELD(discover_active, f.flag("discover_active", true));
  smcompat::api::ExplainRequest r{std::move(text), run_doctor, std::move(gpus), std::move(pythons),
                                  discover_active};
  return document(smcompat::api::explain(r));
}

// check: {"check": the smcompat.check/1 document, "text": the report for people or ""}; one
// check serves both, so `python -m smcompat check` prints the text and exits by the findings.
Result<std::string> check(const RequestFields& f) {
  smcompat::api::CheckRequest r;
  SMCOMPAT_FIELD(pid, f.pid("pid"));
  SMCOMPAT_FIELD(gpus, f.texts("gpus"));
  SMCOMPAT_FIELD(torch, f.text("torch"));
  SMCOMPAT_FIELD(want_text, f.flag("text", false));
  r.pid = pid;
  r.gpus = std::move(gpus);
  if (!torch.empty()) {
    auto runtime = smcompat::api::torch_runtime_from_json(torch);
    if (!runtime) return runtime.error();
    r.torch = std::move(*runtime);
  }
  auto c = smcompat::api::check(r);
  if (!c) return c.error();
  json out = {{"check", smcompat::check_to_json(*c, smcompat::api::check_argv(r))}, {"text", ""}};
  if (want_text) out["text"] = smcompat::render_check_text(*c, smcompat::Style::for_stream(stdout));
  return compact(out);
}

Result<std::string> dispatch(std::string_view request_text) {
  json request = json::parse(request_text, nullptr, /*allow_exceptions=*/false);
  if (request.is_discarded() || !request.is_object())
    return Error{"request: not a JSON object", "", std::nullopt};
  RequestFields fields(request);
  SMCOMPAT_FIELD(function, fields.text("function"));
  if (function == "scan") return scan(fields);
  if (function == "doctor") return doctor(fields);
  if (function == "explain") return explain(fields);
  if (function == "check") return check(fields);
  if (function == "probe") {
    SMCOMPAT_FIELD(use_nvml, fields.flag("use_nvml", true));
    return document(smcompat::api::probe(use_nvml));
  }
  if (function == "gpus") {
    SMCOMPAT_FIELD(query, fields.text("query"));
    return document(smcompat::api::gpus(query));
  }
  if (function == "version") return compact(json{{"version", SMCOMPAT_VERSION}});
  return Error{"request: unknown function '" + function + "'", "", std::nullopt};
}

json error_object(const Error& e) {
  json out = {{"what", e.what}, {"file", nullptr}, {"offset", nullptr}};
  if (!e.file.empty()) out["file"] = e.file;
  if (e.offset) out["offset"] = *e.offset;
  return out;
}

// A malloc'ed copy for the caller, who frees it with smcompat_free.
char* release_to_caller(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out) std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

}  // namespace

/// Runs one request (`request_len` bytes of JSON). Sets *response to a NUL-terminated JSON text
/// of *response_len bytes, to be freed with smcompat_free, and returns 0 (the document) or 1 (an
/// error object {"what", "file", "offset"}); returns 2 with *response null when out of memory.
SMCOMPAT_C_EXPORT int smcompat_call(const char* request, size_t request_len, char** response,
                                    size_t* response_len) {
  *response = nullptr;
  *response_len = 0;
  std::string text;
  int status = kDocument;
  try {
    auto result = dispatch(std::string_view(request ? request : "", request ? request_len : 0));
    if (result) {
      text = std::move(*result);
    } else {
      status = kFailure;
      text = compact(error_object(result.error()));
    }
  } catch (const std::bad_alloc&) {
    return kOutOfMemory;
  } catch (const std::exception& e) {  // a defect below; still an error, never a crash
    try {
      status = kFailure;
      text = compact(error_object(Error{std::string("internal error: ") + e.what(), "", {}}));
    } catch (...) {
      return kOutOfMemory;
    }
  }
  *response = release_to_caller(text);
  if (!*response) return kOutOfMemory;
  *response_len = text.size();
  return status;
}

SMCOMPAT_C_EXPORT void smcompat_free(char* response) { std::free(response); }
