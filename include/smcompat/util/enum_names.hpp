// One way to name the values of an enum: a table indexed by the value, instead of one
// switch-returning-a-string per enum. The table sits beside the enum's to_string() definition and
// lists the names in declaration order; a value outside the table reads as the fallback.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace smcompat {

/// `names[value]`, or `fallback` for a value outside the table.
template <class E, size_t N>
constexpr const char* enum_name(E value, const std::array<const char*, N>& names,
                                const char* fallback = "?") {
  auto i = static_cast<size_t>(value);
  return i < N ? names[i] : fallback;
}

/// The value whose name is `text`, if any.
template <class E, size_t N>
constexpr std::optional<E> enum_from_name(std::string_view text,
                                          const std::array<const char*, N>& names) {
  for (size_t i = 0; i < N; ++i)
    if (text == names[i]) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace smcompat
