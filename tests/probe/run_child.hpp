// Runs a program in a child process with an exact environment and captures its output, so that
// each test can give the fake driver (which reads its configuration once per process) its own GPU
// set. Optionally drops to another user first (the permission test, when run as root).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace smcompat::test {

struct ChildResult {
  int exit_code = -1;  ///< exit status, or 128 + signal
  std::string out;
  std::string err;
};

/// Runs `argv` with exactly `env` (no inherited variables) and returns its exit status and output.
/// If `run_as_uid` is set, the child switches to that uid/gid before exec (needs root).
ChildResult run_child(const std::vector<std::string>& argv,
                      const std::map<std::string, std::string>& env,
                      std::optional<unsigned> run_as_uid = std::nullopt);

/// A fresh empty directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace smcompat::test
