// The envelope of every `--json` document (docs/json-schema.md): the schema with its major
// version, the tool's version and the command line, around the command's own fields.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "smcompat/util/host.hpp"

namespace smcompat {

/// `fields` (an object) with "schema", "tool_version" and "argv" added.
inline nlohmann::json json_document(const char* schema, const std::vector<std::string>& argv,
                                    nlohmann::json fields = nlohmann::json::object()) {
  fields["schema"] = schema;
  fields["tool_version"] = SMCOMPAT_VERSION;
  fields["argv"] = argv;
  return fields;
}

/// A document about this machine (probe, doctor, scan, check): the envelope plus "hostname"
/// (host_name(): $SMCOMPAT_HOSTNAME or gethostname()), which `fleet merge` tags the node with.
inline nlohmann::json node_json_document(const char* schema, const std::vector<std::string>& argv,
                                         nlohmann::json fields = nlohmann::json::object()) {
  fields["hostname"] = host_name();
  return json_document(schema, argv, std::move(fields));
}

}  // namespace smcompat
