// Reading a JSON document from untrusted text: the one parser entry point, with the error located.
// nlohmann's json::parse throws parse_error (with an offset) for malformed text and out_of_range
// (without one) for a number no type holds ("1e400", 400 digits); here both come back as an Error
// whose offset is where reading stopped (the offending token's start for a number), and nothing
// throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "smcompat/util/result.hpp"

namespace smcompat {

/// The document in `text`, or "not a JSON document: <why>" at the byte where it went wrong, in
/// `file` when given.
Result<nlohmann::json> parse_json_document(std::string_view text, const std::string& file = {});

}  // namespace smcompat
