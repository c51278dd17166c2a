// Lenient readers of fields in knowledge data files: a missing or mistyped field reads as empty,
// so one odd row does not hide the rest. (The catalog uses strict readers instead: a malformed
// catalog row must fail its tests.)
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace smcompat {

/// j[key] if it is a string, else "".
inline std::string json_string(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

/// The string elements of j[key] if it is an array, else empty.
inline std::vector<std::string> json_string_list(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  if (!j.contains(key) || !j[key].is_array()) return out;
  for (const auto& v : j[key])
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

}  // namespace smcompat
