// The index printers' shared wording (src/report/index_view.hpp).
#include "index_view.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace smcompat::index_view {

std::vector<std::pair<std::string, std::string>> header_facts(const IndexAnswerContext& c) {
  std::vector<std::pair<std::string, std::string>> out;
  if (c.target) {
    const Target& t = *c.target;
    out.emplace_back("target", t.label);
    out.emplace_back("driver", t.driver_cuda
                                   ? fmt::format("supports CUDA {}{}", t.driver_cuda->to_string(),
                                                 t.driver ? " (" + t.driver->to_string() + ")" : "")
                                   : "not given: PTX ISA versions not checked (--driver)");
  }
  out.emplace_back("wheels for", c.machine.empty() ? "every machine" : c.machine);
  out.emplace_back("index", index_fact(c));
  if (!c.python.empty()) {
    std::string env = c.python;
    if (!c.site_packages.empty()) {
      env += " (";
      for (size_t i = 0; i < c.site_packages.size(); ++i)
        env += (i ? ", " : "") + c.site_packages[i];
      env += ")";
    }
    out.emplace_back("environment", env);
  }
  return out;
}

std::string index_fact(const IndexAnswerContext& c) {
  std::string index = c.index_source;
  index += c.index_built.empty() ? ", build date unknown" : ", built " + c.index_built;
  index += fmt::format(", {} wheel{}", c.index_wheels, c.index_wheels == 1 ? "" : "s");
  return index;
}

const ReleaseFit* find_release(const PackageAdvice& a, const std::string& version) {
  for (const auto& r : a.releases)
    if (same_public_version(r.version, version)) return &r;
  return nullptr;
}

const ReleaseFit* recommended_release(const PackageAdvice& a) {
  return a.recommended ? find_release(a, *a.recommended) : nullptr;
}

std::string native_cell(const PackageAdvice& a) {
  if (!a.indexed) return "not indexed";
  if (!a.device_code) return "no GPU code";
  if (!a.newest_native) return a.jit_only.empty() ? "none" : "JIT only";
  std::string first = (a.first_native_is_oldest_indexed ? "≤ " : "") + *a.first_native;
  if (!a.releases.empty() && a.releases.front().version == *a.newest_native)
    return "since " + first;
  if (*a.first_native == *a.newest_native && !a.first_native_is_oldest_indexed)
    return *a.newest_native + " only";
  return first + "–" + *a.newest_native + " only";
}

std::string native_sentence(const PackageAdvice& a) {
  if (!a.indexed || !a.device_code) return {};
  if (!a.newest_native) {
    if (a.jit_only.empty()) return "no indexed release runs on this GPU";
    return fmt::format("no indexed release runs natively; {} through PTX JIT only",
                       join(a.jit_only, ""));
  }
  std::string first = a.first_native_is_oldest_indexed
                          ? fmt::format("at or before {} (the index starts there)", *a.first_native)
                          : *a.first_native;
  bool newest_is_latest = !a.releases.empty() && a.releases.front().version == *a.newest_native;
  bool single = *a.first_native == *a.newest_native;
  if (newest_is_latest) {
    if (single && a.first_native_is_oldest_indexed)
      return fmt::format("runs natively: {} is the only indexed release", *a.newest_native);
    if (single)
      return fmt::format("runs natively since {}, its newest release; older ones do not", first);
    return fmt::format("runs natively since {} (newest {})", first, *a.newest_native);
  }
  if (single)
    return fmt::format("only {}{} runs natively; newer releases ({}) do not", *a.newest_native,
                       a.first_native_is_oldest_indexed ? " (the oldest indexed)" : "",
                       a.releases.front().version);
  return fmt::format("runs natively from {} to {}; newer releases ({}) do not", first,
                     *a.newest_native, a.releases.front().version);
}

std::string jit_ranges(const PackageAdvice& a) {
  auto is_jit = [&](const std::string& version) {
    return std::find(a.jit_only.begin(), a.jit_only.end(), version) != a.jit_only.end();
  };
  std::string out;
  const auto& rs = a.releases;  // newest first
  for (size_t i = 0; i < rs.size();) {
    if (!is_jit(rs[i].version)) {
      ++i;
      continue;
    }
    size_t oldest = i;
    while (oldest + 1 < rs.size() && is_jit(rs[oldest + 1].version)) ++oldest;
    out += out.empty() ? "" : ", ";
    out += oldest == i ? rs[i].version : rs[oldest].version + "–" + rs[i].version;
    i = oldest + 1;
  }
  return out;
}

std::string fit_word(const WheelVerdict& v) {
  return v.has_device_code ? to_string(v.fit) : "no device code";
}

bool any_without_native(const std::vector<PackageAdvice>& advice) {
  for (const auto& a : advice)
    if (!a.indexed || (a.device_code && !a.newest_native)) return true;
  return false;
}

std::string cuda_cell(const std::string& cuda) {
  auto first_end = cuda.find(';');
  if (first_end == std::string::npos) return cuda;
  size_t n = 1 + static_cast<size_t>(std::count(cuda.begin(), cuda.end(), ';'));
  return fmt::format("{}–{} ({} variants)", cuda.substr(0, first_end),
                     cuda.substr(cuda.rfind(';') + 1), n);
}

std::string join(const std::vector<std::string>& items, const char* empty) {
  if (items.empty()) return empty;
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : " ") + s;
  return out;
}

}  // namespace smcompat::index_view
