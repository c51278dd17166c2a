// The envelope of every `--json` document (docs/json-schema.md): the schema with its major
// version, the tool's version and the command line, around the command's own fields.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace smcompat {

/// `fields` (an object) with "schema", "tool_version" and "argv" added.
inline nlohmann::json json_document(const char* schema, const std::vector<std::string>& argv,
                                    nlohmann::json fields = nlohmann::json::object()) {
  fields["schema"] = schema;
  fields["tool_version"] = SMCOMPAT_VERSION;
  fields["argv"] = argv;
  return fields;
}

}  // namespace smcompat
