// Helpers for the trace tests: running a program with a chosen environment (optionally with the
// shim preloaded) and capturing its output, and the paths of the built fakes and fixtures.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

/// Tests that run programs under the shim need the test programs and nvcc fixtures. They are built
/// wherever the CUDA toolkit was found at build time (SMCOMPAT_HAVE_NVCC): there a missing one is
/// a failure, not a skip. Without the toolkit they cannot exist, and the test is skipped; the
/// record parser and report tests still run.
#ifdef SMCOMPAT_HAVE_NVCC
#define SMCOMPAT_REQUIRE_BUILT(path) \
  ASSERT_TRUE(std::filesystem::exists(path)) << (path) << " was not built"
#else
#define SMCOMPAT_REQUIRE_BUILT(path)  \
  if (!std::filesystem::exists(path)) \
  GTEST_SKIP() << (path) << " cannot exist: no CUDA toolkit at build time"
#endif

/// Every test that runs programs under the shim starts with this.
#define SMCOMPAT_REQUIRE_SHIM_PROGRAMS()                                        \
  do {                                                                          \
    SMCOMPAT_REQUIRE_BUILT(::smcompat::trace::testing::fixture("sm80.fatbin")); \
    SMCOMPAT_REQUIRE_BUILT(::smcompat::trace::testing::kProg);                  \
  } while (0)

namespace smcompat::trace::testing {

inline const std::string kTestDir = SMCOMPAT_TRACE_TEST_DIR;
inline const std::string kFakeDir = SMCOMPAT_FAKE_DRIVER_DIR;
inline const std::string kShim = std::string(SMCOMPAT_BINARY_DIR) + "/lib/libsmcompat_trace.so";
inline const std::string kProg = kTestDir + "/trace_driver_prog";
inline const std::string kProgDl = kTestDir + "/trace_driver_prog_dl";
inline std::string fixture(const std::string& name) { return kTestDir + "/fixtures/" + name; }

/// What a program that the sanitizer build did not make (the nvcc-built CUDA runtime programs,
/// cudart_prog_*) needs preloaded there, with or without the shim, to load the instrumented fake
/// driver and shim: the shared ASan runtime, first. Empty elsewhere.
inline std::string runtime_preload(const std::string& program) {
#ifdef SMCOMPAT_ASAN_RUNTIME
  if (program.find("/cudart_prog_") != std::string::npos) return SMCOMPAT_ASAN_RUNTIME;
#endif
  (void)program;
  return "";
}

/// LD_PRELOAD that loads the shim into `program` (after the runtime it needs, if any).
inline std::string preload_for(const std::string& program) {
  std::string runtime = runtime_preload(program);
  return runtime.empty() ? kShim : runtime + ":" + kShim;
}

struct Output {
  int status = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A fresh temporary directory, removed at destruction.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "smcompat-trace-test-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

/// Runs argv with exactly the environment `env` (plus PATH and HOME), capturing output.
inline Output run(const std::vector<std::string>& argv,
                  const std::vector<std::pair<std::string, std::string>>& env) {
  TempDir tmp;
  std::string out_path = tmp.file("out"), err_path = tmp.file("err");
  std::vector<std::string> env_strings;
  for (const char* keep : {"PATH", "HOME", "TMPDIR"})
    if (const char* v = std::getenv(keep)) env_strings.push_back(std::string(keep) + "=" + v);
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    int o = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    alarm(120);  // a hang (deadlock, endless recursion) becomes a failure, not a stuck test
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  Output r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

}  // namespace smcompat::trace::testing
