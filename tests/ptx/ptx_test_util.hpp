// Helpers for the ptx tests: finding the CUDA toolkit, running nvcc and ptxas (the ground
// truth), and temporary files under the build directory.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace smcompat::ptx::testing {

inline std::string cuda_bin(const char* tool) {
  namespace fs = std::filesystem;
  if (const char* home = std::getenv("CUDA_HOME")) {
    fs::path p = fs::path(home) / "bin" / tool;
    if (fs::exists(p)) return p.string();
  }
  fs::path p = fs::path("/usr/local/cuda/bin") / tool;
  if (fs::exists(p)) return p.string();
  return {};
}

/// A scratch directory of this test process (ctest runs tests in parallel processes, so nothing
/// is shared between them); all of them are removed when the process exits.
inline std::filesystem::path work_root() {
  return std::filesystem::path(SMCOMPAT_BINARY_DIR) / "ptx-test-work" /
         ("p" + std::to_string(getpid()));
}
struct WorkRootCleanup {
  ~WorkRootCleanup() {
    std::error_code ec;
    std::filesystem::remove_all(work_root(), ec);
  }
};
inline WorkRootCleanup work_root_cleanup;

inline std::filesystem::path work_dir(const std::string& name) {
  auto dir = work_root() / name;
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_file(const std::filesystem::path& p, std::string_view text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

/// Runs a shell command; returns its exit status and (merged) output.
inline int run_command(const std::string& cmd, std::string* output = nullptr) {
  std::string full = cmd + " 2>&1";
  FILE* f = popen(full.c_str(), "r");
  if (!f) return -1;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int status = pclose(f);
  if (output) *output = std::move(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Assembles `text` with `ptxas -arch=<arch>`; true if ptxas accepts it.
inline bool ptxas_accepts(std::string_view text, const std::string& arch,
                          std::string* log = nullptr, const std::string& extra = {}) {
  static std::atomic<int> counter{0};
  auto dir = work_dir("ptxas");
  auto file = dir / ("in" + std::to_string(getpid()) + "_" + std::to_string(counter++) + ".ptx");
  write_file(file, text);
  int rc = run_command(
      cuda_bin("ptxas") + " -arch=" + arch + " " + extra + " " + file.string() + " -o /dev/null",
      log);
  std::filesystem::remove(file);
  return rc == 0;
}

/// Compiles a .cu file to PTX with nvcc; returns the PTX text ("" on failure, with `log`).
inline std::string nvcc_ptx(const std::string& cu, const std::string& arch,
                            const std::string& out_name, std::string* log) {
  auto out = work_dir("nvcc") / out_name;
  std::filesystem::remove(out);
  // nvcc -ptx checks the inline asm with ptxas for `arch`; the PTX is written even when that
  // check fails (the features fixture uses instructions of many targets on purpose).
  run_command(cuda_bin("nvcc") + " -ptx -arch=" + arch + " " + cu + " -o " + out.string(), log);
  if (!std::filesystem::exists(out)) return {};
  return read_file(out);
}

#define SMCOMPAT_REQUIRE_CUDA()                                                         \
  do {                                                                                  \
    if (::smcompat::ptx::testing::cuda_bin("ptxas").empty() ||                          \
        ::smcompat::ptx::testing::cuda_bin("nvcc").empty())                             \
      GTEST_SKIP() << "no CUDA toolkit (nvcc, ptxas) in $CUDA_HOME or /usr/local/cuda"; \
  } while (0)

}  // namespace smcompat::ptx::testing
