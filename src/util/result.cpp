// Error formatting for Result<T> (include/smcompat/util/result.hpp).
#include "smcompat/util/result.hpp"

#include <fmt/format.h>

namespace smcompat {

std::string Error::to_string() const {
  std::string out;
  if (!file.empty()) out += file + ": ";
  if (offset) out += fmt::format("offset {:#x}: ", *offset);
  out += what;
  return out;
}

Error make_error(std::string what, std::optional<uint64_t> offset) {
  return Error{std::move(what), {}, offset};
}

}  // namespace smcompat
