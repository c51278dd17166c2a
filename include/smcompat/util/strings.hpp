// Small string helpers shared by parsers and printers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace smcompat {

std::string to_lower(std::string_view s);
/// PEP 503 name normalisation of a Python distribution: "Flash_Attn" -> "flash-attn".
std::string normalize_package_name(std::string_view name);
std::string_view trim(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);
std::vector<std::string_view> split(std::string_view s, char sep);
/// Parses a non-negative decimal integer that fills the whole string.
std::optional<uint64_t> parse_uint(std::string_view s);
/// "0x1a2b"
std::string hex(uint64_t v);
/// Demangles an Itanium C++ symbol name; returns the input if it is not mangled.
std::string demangle(const std::string& name);
/// Human-readable byte count: "541.6 MB".
std::string human_bytes(uint64_t n);
/// The items with `sep` between them; `if_empty` when there are none.
std::string join(const std::vector<std::string>& items, std::string_view sep,
                 std::string_view if_empty = "");

}  // namespace smcompat
