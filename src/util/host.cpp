#include "smcompat/util/host.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstdlib>

namespace smcompat {

std::string host_name() {
  if (const char* v = std::getenv("SMCOMPAT_HOSTNAME"); v && *v) return v;
  std::array<char, 256> buf{};
  if (gethostname(buf.data(), buf.size() - 1) != 0) return {};
  return buf.data();
}

std::string host_machine() {
  struct utsname u;
  if (::uname(&u) != 0) return "x86_64";
  return u.machine;
}

}  // namespace smcompat
