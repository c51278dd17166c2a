// JSON as text for output. nlohmann's dump() throws on a string that is not valid UTF-8; the
// strings smcompat writes come from outside (file names, log lines, argv, driver messages), so
// one odd byte would cost the whole document. Here such bytes become U+FFFD instead.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace smcompat {

/// j as JSON text (indent -1: one line), invalid UTF-8 replaced by U+FFFD.
inline std::string json_text(const nlohmann::json& j, int indent = 2) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace smcompat
