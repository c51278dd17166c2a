// Test helper: builds Python environments as folders (dist-info METADATA + RECORD, torch/
// version.py, shared libraries copied from the nvcc-built fixtures) in a temporary directory.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace smcompat::testing {

#ifdef SMCOMPAT_DOCTOR_FIXTURES
inline std::string fixture_so(const std::string& name) {
  return std::string(SMCOMPAT_DOCTOR_FIXTURES) + "/" + name + ".so";
}
inline bool have_fixtures() { return std::filesystem::exists(fixture_so("k_90_120")); }
/// Why the fixtures are missing (for GTEST_SKIP), naming what to install.
inline std::string doctor_fixtures_missing() {
  return "doctor fixtures not built in " + std::string(SMCOMPAT_DOCTOR_FIXTURES) +
         " (nvcc was not found when CMake ran: install the CUDA toolkit or set CUDA_HOME)";
}
/// In a test body or a fixture's SetUp(): skips the test, saying why, without the fixtures.
#define SMCOMPAT_SKIP_WITHOUT_DOCTOR_FIXTURES()                     \
  do {                                                              \
    if (!smcompat::testing::have_fixtures())                        \
      GTEST_SKIP() << smcompat::testing::doctor_fixtures_missing(); \
  } while (0)
#endif

/// A temporary directory removed at destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "smcompat-doctor-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline void write_file(const std::filesystem::path& p, const std::string& content) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
}

/// One environment: <root>/<name>/lib/python3.11/site-packages.
class FakeEnv {
 public:
  FakeEnv(const std::string& root, const std::string& name)
      : prefix_(root + "/" + name), site_(prefix_ + "/lib/python3.11/site-packages") {
    std::filesystem::create_directories(site_);
  }
  const std::string& prefix() const { return prefix_; }
  const std::string& site() const { return site_; }

  /// Adds a distribution. `files` maps a path relative to site-packages to either a fixture
  /// shared library (value "so:<fixture name>") or literal file content.
  void add(const std::string& name, const std::string& version,
           const std::map<std::string, std::string>& files = {}) {
    std::string dist = name;
    for (auto& c : dist)
      if (c == '-') c = '_';
    auto di = std::filesystem::path(site_) / (dist + "-" + version + ".dist-info");
    write_file(di / "METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version +
                                    "\nSummary: fixture\n\nLong description.\nName: not-this\n");
    std::string record;
    for (auto& [rel, what] : files) {
      auto dst = std::filesystem::path(site_) / rel;
      std::filesystem::create_directories(dst.parent_path());
#ifdef SMCOMPAT_DOCTOR_FIXTURES
      if (what.rfind("so:", 0) == 0) {
        std::filesystem::copy_file(fixture_so(what.substr(3)), dst,
                                   std::filesystem::copy_options::overwrite_existing);
      } else
#endif
      {
        write_file(dst, what);
      }
      record += rel + ",sha256=fixture,1\n";
    }
    record += (di.filename().string() + "/METADATA,,\n") + (di.filename().string() + "/RECORD,,\n");
    write_file(di / "RECORD", record);
  }

  /// torch with torch/version.py (annotated assignments as in torch 2.x).
  void add_torch(const std::string& version, const std::string& cuda, const std::string& so) {
    add("torch", version,
        {{"torch/__init__.py", "# fixture\n"},
         {"torch/version.py",
          "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', "
          "'git_version', 'hip']\n"
          "__version__ = '" +
              version + "'\ndebug = False\ncuda: Optional[str] = '" + cuda +
              "'\ngit_version = '1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340'\nhip: Optional[str] = "
              "None\n"},
         {"torch/lib/libtorch_cuda.so", "so:" + so},
         {"torch/lib/libtorch_cpu.so", "not an ELF: no device code\n"}});
  }

 private:
  std::string prefix_;
  std::string site_;
};

/// Runs a command with /bin/sh, returns (exit status, stdout).
inline std::pair<int, std::string> run_command(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {-1, out};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace smcompat::testing
