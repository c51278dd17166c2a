// Running a child process without a shell: argv as given, stdin fed from a string, stdout
// collected, stderr passed on as it arrives with its tail kept for errors, a timeout that stops
// the child's whole process group (SIGTERM, then SIGKILL). Used for `python -` (bench --torch)
// and for pip (index build).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/util/result.hpp"

namespace smcompat {

inline constexpr std::size_t kStderrTail = 8192;

/// What a finished (or stopped) child left behind.
struct ChildOutcome {
  std::string out;
  std::string err_tail;  ///< the last kStderrTail bytes of stderr
  int exit_code = -1;    ///< -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
};

/// Runs argv (argv[0] searched on PATH when `search_path`), writing `input` to its stdin and
/// collecting stdout and stderr until it exits or `timeout_s` passes (0: no limit). The child
/// leads its own process group. Errors only when it cannot be started.
Result<ChildOutcome> run_child(const std::vector<std::string>& argv, bool search_path,
                               std::string_view input, double timeout_s,
                               const std::function<void(std::string_view)>& on_stderr = {});

}  // namespace smcompat
