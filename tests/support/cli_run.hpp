// The smcompat binary (SMCOMPAT_CLI, set by tests/CMakeLists.txt) run by tests through the shell:
// its exit code and its stdout (stderr is dropped).
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace smcompat::testcli {

struct CliRun {
  int code;
  std::string out;
};

/// `env smcompat args`: `env` is a prefix of VAR=value assignments (or nothing).
inline CliRun run(const std::string& args, const std::string& env = "") {
  std::string cmd = env + " " + SMCOMPAT_CLI + " " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace smcompat::testcli
