// ptxas discovery and invocation (include/smcompat/ptx/ptxas.hpp). The input goes to a mkstemp
// file in $TMPDIR; ptxas runs through util's child runner with its output captured; the files are
// removed.
#include "smcompat/ptx/ptxas.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "smcompat/util/process.hpp"

namespace smcompat::ptx {

std::optional<std::string> find_ptxas() {
  namespace fs = std::filesystem;
  auto ok = [](const fs::path& p) { return ::access(p.c_str(), X_OK) == 0; };
  if (const char* p = std::getenv("SMCOMPAT_PTXAS"); p && *p && ok(p)) return std::string(p);
  if (const char* home = std::getenv("CUDA_HOME"); home && *home)
    if (ok(fs::path(home) / "bin/ptxas")) return (fs::path(home) / "bin/ptxas").string();
  if (ok("/usr/local/cuda/bin/ptxas")) return std::string("/usr/local/cuda/bin/ptxas");
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest(path);
    while (!rest.empty()) {
      size_t c = rest.find(':');
      std::string_view dir = rest.substr(0, c);
      if (!dir.empty() && ok(fs::path(dir) / "ptxas")) return (fs::path(dir) / "ptxas").string();
      if (c == std::string_view::npos) break;
      rest.remove_prefix(c + 1);
    }
  }
  return std::nullopt;
}

namespace {
struct TempFile {
  std::string path;
  int fd = -1;
  explicit TempFile(const char* suffix) {
    const char* dir = std::getenv("TMPDIR");
    path = fmt::format("{}/smcompat-ptxas-XXXXXX{}", dir && *dir ? dir : "/tmp", suffix);
    fd = ::mkstemps(path.data(), static_cast<int>(std::string_view(suffix).size()));
  }
  ~TempFile() {
    if (fd >= 0) ::close(fd);
    if (fd >= 0) ::unlink(path.c_str());
  }
};
}  // namespace

constexpr double kPtxasTimeoutSeconds = 300;

Result<PtxasOutcome> run_ptxas(const std::string& ptxas, std::string_view text,
                               const SmTarget& target) {
  TempFile in(".ptx"), out(".o");
  if (in.fd < 0 || out.fd < 0)
    return make_error("cannot create temporary files for ptxas (set TMPDIR)");
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(in.fd, text.data() + done, text.size() - done);
    if (n <= 0) return make_error("cannot write the temporary PTX file for ptxas");
    done += static_cast<size_t>(n);
  }
  SmTarget sass = target;
  sass.kind = ImageKind::kSass;
  // The one child runner (util/process.hpp): no shell, and a timeout, because a PTX file can
  // make ptxas run for minutes.
  auto run = run_child({ptxas, "-arch=" + sass.to_string(), "-c", in.path, "-o", out.path},
                       /*search_path=*/false, "", kPtxasTimeoutSeconds);
  if (!run) return make_error(fmt::format("cannot run {}: {}", ptxas, run.error().what));
  PtxasOutcome o;
  o.exit_code = run->exit_code;
  o.log = run->out + run->err_tail;
  if (run->timed_out)
    o.log += fmt::format("\nsmcompat: ptxas stopped after {} s", kPtxasTimeoutSeconds);
  o.accepted = o.exit_code == 0 && !run->timed_out;
  return o;
}

PtxasVerification verify_with_ptxas(std::string_view text, const SmTarget& target) {
  PtxasVerification v;
  auto ptxas = find_ptxas();
  if (!ptxas) {
    v.note = "no ptxas found ($SMCOMPAT_PTXAS, $CUDA_HOME/bin, /usr/local/cuda/bin, PATH)";
    return v;
  }
  auto run = run_ptxas(*ptxas, text, target);
  if (run.ok())
    v.outcome = *run;
  else
    v.note = run.error().what;
  return v;
}

}  // namespace smcompat::ptx
