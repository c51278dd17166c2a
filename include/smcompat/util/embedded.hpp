// Data compiled into the library (cmake/EmbedWrite.cmake): the file NAME is the byte array
// `smcompat::embedded::NAME[]` and its size `NAME_size`. SMCOMPAT_EMBEDDED(NAME), at file scope,
// declares both; embedded_text() views them.
#pragma once

#include <cstddef>
#include <string_view>

#define SMCOMPAT_EMBEDDED(name)         \
  namespace smcompat::embedded {        \
  extern const unsigned char name[];    \
  extern const std::size_t name##_size; \
  }

namespace smcompat {

inline std::string_view embedded_text(const unsigned char* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace smcompat
