// Words for a POSIX shell, and finding a program the way execvp does: the commands smcompat
// prints (fix scripts, engine command lines, the trace shim's environment) and runs.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace smcompat {

/// `word` as one word of a shell command line: unchanged when it holds only letters, digits and
/// `_@%+=:,./-`, else in single quotes (a quote inside written '\'').
std::string shell_quote(std::string_view word);

/// The file execvp would run for `name`: `name` itself when it holds a slash (if it is a regular
/// file), else the first executable regular file of that name in the directories of `path` (a
/// PATH value; empty entries skipped); nullopt when there is none.
std::optional<std::string> find_executable(const std::string& name, std::string_view path);

}  // namespace smcompat
