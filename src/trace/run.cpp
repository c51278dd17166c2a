// Running a command with the trace shim preloaded (fork + execvp, the child's stdin/stdout/stderr
// untouched), the environment that loads the shim, and finding libsmcompat_trace.so.
// Environment variables: docs/trace.md.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "smcompat/probe/probe.hpp"
#include "smcompat/trace/trace.hpp"
#include "smcompat/util/shell.hpp"

namespace smcompat::trace {

namespace fs = std::filesystem;

std::vector<std::pair<std::string, std::string>> shim_environment(const RunOptions& options) {
  std::vector<std::pair<std::string, std::string>> env;
  std::string preload = options.shim_path;
  if (const char* old = std::getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
  env.emplace_back("LD_PRELOAD", preload);
  env.emplace_back("SMCOMPAT_TRACE_FILE", options.trace_file);
  if (options.report_cc) env.emplace_back("SMCOMPAT_REPORT_CC", options.report_cc->to_string());
  if (!options.only_for.empty()) {
    std::string list;
    for (const std::string& s : options.only_for) list += (list.empty() ? "" : ":") + s;
    env.emplace_back("SMCOMPAT_REPORT_CC_ONLY_FOR", list);
  }
  return env;
}

Result<int> run_traced(const std::vector<std::string>& argv, const RunOptions& options) {
  if (argv.empty()) return make_error("no command to run");
  auto env = shim_environment(options);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Everything the child needs is prepared before fork (no allocation after it).
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) return make_error(std::string("pipe: ") + strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    close(err_pipe[0]);
    close(err_pipe[1]);
    return make_error(std::string("fork: ") + strerror(errno));
  }
  if (pid == 0) {
    close(err_pipe[0]);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    if (!options.report_cc) unsetenv("SMCOMPAT_REPORT_CC");
    if (options.only_for.empty()) unsetenv("SMCOMPAT_REPORT_CC_ONLY_FOR");
    execvp(args[0], args.data());
    int e = errno;
    ssize_t ignored = write(err_pipe[1], &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  close(err_pipe[1]);
  int child_errno = 0;
  ssize_t n;
  do {
    n = read(err_pipe[0], &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  close(err_pipe[0]);
  // Like time(1): the terminal's Ctrl-C goes to the child; we wait for it and then report.
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  int status = 0;
  pid_t w;
  do {
    w = waitpid(pid, &status, 0);
  } while (w < 0 && errno == EINTR);
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  if (n == static_cast<ssize_t>(sizeof child_errno))
    return make_error("cannot run " + argv[0] + ": " + strerror(child_errno));
  if (w < 0) return make_error(std::string("waitpid: ") + strerror(errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

std::optional<std::string> find_shim(const std::string& self_exe) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* v = std::getenv("SMCOMPAT_TRACE_LIB"); v && *v) {
    if (fs::exists(v, ec)) return fs::absolute(v, ec).string();
    return std::nullopt;
  }
  fs::path exe = fs::canonical(self_exe.empty() ? "/proc/self/exe" : self_exe, ec);
  if (ec) exe = fs::canonical("/proc/self/exe", ec);
  if (!ec) {
    fs::path candidate = exe.parent_path().parent_path() / "lib" / "libsmcompat_trace.so";
    if (fs::exists(candidate, ec)) return candidate.string();
  }
  return std::nullopt;
}

std::optional<ComputeCapability> query_device_cc(int ordinal) {
  // The probe's one driver loader, and its true capability (a masquerading device reports the
  // capability its code is chosen for through NVML: ProbeDevice::true_cc()).
  auto probed = probe_system();
  if (!probed) return std::nullopt;
  for (const ProbeDevice& d : probed->devices)
    if (d.ordinal == ordinal) return d.true_cc();
  return std::nullopt;
}

OverridePreview preview_override(ComputeCapability reported, const std::string& program,
                                 const std::vector<std::string>& images) {
  OverridePreview p;
  p.real_cc = query_device_cc(0);
  if (!p.real_cc) return p;
  p.implications = override_implications(reported, *p.real_cc);
  std::vector<std::string> files = images;
  const char* path = std::getenv("PATH");
  if (auto exe = find_executable(program, path ? path : "/usr/bin:/bin"))
    files.insert(files.begin(), *exe);
  p.file_predictions = override_implications_for_files(files, reported, *p.real_cc, std::nullopt);
  return p;
}

Result<RecordsFile> RecordsFile::create(const std::string& keep) {
  RecordsFile f;
  if (keep.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "smcompat-trace-XXXXXX").string();
    int fd = ::mkstemp(tmpl.data());
    if (fd < 0) return make_error("cannot create a temporary file for the records");
    ::close(fd);
    f.path_ = tmpl;
    return f;
  }
  f.keep_ = fs::absolute(keep).string();
  f.path_ = f.keep_ + ".tmp." + std::to_string(::getpid());
  int fd = ::open(f.path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return make_error(std::string("cannot write: ") + std::strerror(errno)).in_file(f.path_);
  ::close(fd);
  return f;
}

RecordsFile::RecordsFile(RecordsFile&& o) noexcept
    : path_(std::move(o.path_)), keep_(std::move(o.keep_)), done_(o.done_) {
  o.done_ = true;
}

RecordsFile::~RecordsFile() {
  if (done_ || path_.empty()) return;
  std::error_code ec;
  fs::remove(path_, ec);
}

std::optional<Error> RecordsFile::finish() {
  if (done_) return std::nullopt;
  done_ = true;
  std::error_code ec;
  if (keep_.empty()) {
    fs::remove(path_, ec);
    return std::nullopt;
  }
  fs::rename(path_, keep_, ec);
  if (!ec) return std::nullopt;
  std::string why = ec.message();
  fs::remove(path_, ec);
  return make_error("cannot write: " + why).in_file(keep_);
}

}  // namespace smcompat::trace
