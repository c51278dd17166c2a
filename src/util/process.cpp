// The child runner of util/process.hpp: posix_spawn with three pipes and poll().
#include "smcompat/util/process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace smcompat {

namespace {

using Clock = std::chrono::steady_clock;

/// Closes the fds it holds on every path.
struct Fds {
  std::vector<int> fds;
  ~Fds() {
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
  void close(int& fd) {
    if (fd < 0) return;
    ::close(fd);
    for (int& f : fds) {
      if (f == fd) f = -1;
    }
    fd = -1;
  }
};

void append_tail(std::string& tail, std::string_view chunk) {
  tail.append(chunk);
  if (tail.size() > kStderrTail) tail.erase(0, tail.size() - kStderrTail);
}

/// Stops the child's process group: SIGTERM, up to `grace` for it to exit, then SIGKILL. Reaps
/// the child; returns its wait status.
int stop_group(pid_t pid, std::chrono::milliseconds grace) {
  ::kill(-pid, SIGTERM);
  int status = 0;
  const auto until = Clock::now() + grace;
  while (Clock::now() < until) {
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      ::kill(-pid, SIGKILL);  // anything the child left behind in its group
      return status;
    }
    if (w < 0 && errno != EINTR) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

Result<ChildOutcome> run_child(const std::vector<std::string>& argv, bool search_path,
                               std::string_view input, double timeout_s,
                               const std::function<void(std::string_view)>& on_stderr) {
  int in[2], out[2], err[2];
  Fds fds;
  for (int* p : {in, out, err}) {
    if (::pipe2(p, O_CLOEXEC) != 0) return make_error(fmt::format("pipe: {}", strerror(errno)));
    fds.fds.push_back(p[0]);
    fds.fds.push_back(p[1]);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults, none;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGINT);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = search_path ? posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ)
                       : posix_spawn(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return make_error(fmt::format("cannot start {}: {}", argv[0], strerror(rc)));
  }
  fds.close(in[0]);
  fds.close(out[1]);
  fds.close(err[1]);
  for (int fd : {in[1], out[0], err[0]}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);

  // A child that exits without reading its stdin must not kill us with SIGPIPE: block it while
  // writing and discard one raised here.
  sigset_t pipe_set, old_mask;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigset_t pending_before;
  sigpending(&pending_before);
  const bool pipe_was_pending = sigismember(&pending_before, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);

  ChildOutcome outcome;
  std::size_t written = 0;
  if (input.empty()) fds.close(in[1]);
  const auto deadline = timeout_s > 0 ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                           std::chrono::duration<double>(timeout_s))
                                      : Clock::time_point::max();
  char buf[65536];
  int status = 0;
  bool reaped = false;
  while (out[0] >= 0 || err[0] >= 0 || in[1] >= 0) {
    const auto now = Clock::now();
    if (now >= deadline) {
      outcome.timed_out = true;
      status = stop_group(pid, std::chrono::milliseconds(2000));
      reaped = true;
      break;
    }
    pollfd p[3];
    int n = 0;
    int* order[3];
    for (int* fd : {&in[1], &out[0], &err[0]}) {
      if (*fd < 0) continue;
      p[n] = {*fd, static_cast<short>(fd == &in[1] ? POLLOUT : POLLIN), 0};
      order[n++] = fd;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    const int wait_ms = static_cast<int>(std::min<long long>(left.count() + 1, 1000));
    int ready = ::poll(p, n, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      status = stop_group(pid, std::chrono::milliseconds(0));
      reaped = true;
      pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
      return make_error(fmt::format("poll: {}", strerror(errno)));
    }
    for (int i = 0; i < n; ++i) {
      if (p[i].revents == 0) continue;
      int& fd = *order[i];
      if (&fd == &in[1]) {
        ssize_t w = ::write(fd, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) {
          fds.close(fd);  // EOF for the interpreter; EPIPE: it stopped reading
        }
        continue;
      }
      ssize_t r = ::read(fd, buf, sizeof buf);
      if (r > 0) {
        std::string_view chunk(buf, static_cast<std::size_t>(r));
        if (&fd == &out[0]) {
          outcome.out.append(chunk);
        } else {
          append_tail(outcome.err_tail, chunk);
          if (on_stderr) on_stderr(chunk);
        }
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        fds.close(fd);
      }
    }
  }
  // Both streams closed: the child is exiting (or handed them on to something that did).
  while (!reaped) {
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    if (Clock::now() >= deadline) {
      outcome.timed_out = true;
      status = stop_group(pid, std::chrono::milliseconds(2000));
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!pipe_was_pending) {
    timespec zero{0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  if (WIFEXITED(status)) {
    outcome.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    outcome.signal = WTERMSIG(status);
  }
  return outcome;
}

}  // namespace smcompat
