// Shell commands for tests: quoting an argument, and running a command line for its exit code and
// output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>
#include <utility>

namespace smcompat::testshell {

/// `s` in single quotes, for a sh command line.
inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Runs `cmd` with sh: its exit code (-1 when it did not exit) and its stdout and stderr together.
inline std::pair<int, std::string> run(const std::string& cmd) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return {-1, ""};
  std::string out;
  std::array<char, 65536> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int st = ::pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

}  // namespace smcompat::testshell
