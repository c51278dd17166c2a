// The real-world corpus of scripts/fetch-corpus.sh for tests: where its cache is, and the object
// files of its wheels inflated (libzip) one at a time for NVIDIA's cuobjdump, which needs files.
#pragma once

#include <zip.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace smcompat::testcorpus {

/// $SMCOMPAT_CORPUS, or ~/.cache/smcompat-corpus.
inline std::filesystem::path corpus_dir() {
  if (const char* e = std::getenv("SMCOMPAT_CORPUS"); e && *e) return e;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home ? home : "/root") / ".cache/smcompat-corpus";
}

/// The venv's lib/python3.X/site-packages, whichever CPython built it; empty when there is none.
inline std::filesystem::path site_packages(const std::filesystem::path& venv) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(venv / "lib", ec))
    if (entry.path().filename().string().starts_with("python3") &&
        std::filesystem::is_directory(entry.path() / "site-packages"))
      return entry.path() / "site-packages";
  return {};
}

/// Empty when `venv`/bin/python is a CPython 3.11, which imports the locked wheels; otherwise
/// why the tests that run it skip. fetch-corpus.sh installs the CPython 3.11 wheels whatever pip
/// runs, and the venv's interpreter is a 3.11 only where the machine had one (pyvenv.cfg records
/// its version). The Python twin is tests/support/corpus_venv.py.
inline std::string venv_interpreter_skip_reason(const std::filesystem::path& venv) {
  auto python = venv / "bin/python";
  if (!std::filesystem::exists(python))
    return "corpus cache missing: " + python.string() +
           " (run scripts/fetch-corpus.sh, or set SMCOMPAT_CORPUS)";
  std::ifstream cfg(venv / "pyvenv.cfg");
  std::string line, version;
  while (std::getline(cfg, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    auto key = line.substr(0, line.find_first_of(" =\t"));
    auto value = line.find_first_not_of(" \t", eq + 1);
    if (key == "version" && value != std::string::npos)
      version = line.substr(value, line.find_last_not_of(" \t\r") + 1 - value);
  }
  if (version.starts_with("3.11.") || version == "3.11") return {};
  return python.string() + " is CPython " + (version.empty() ? "?" : version) +
         ": the corpus holds CPython 3.11 wheels, and no CPython 3.11 was found when the cache "
         "was filled (SMCOMPAT_CORPUS_PYTHON311)";
}

/// Reads the open wheel member `zf` and closes it. An ELF file or an ar archive is written to
/// `dir`/member.so or `dir`/member.a (replacing the previous member's) and that path returned;
/// anything else gives an empty path.
inline std::filesystem::path inflate_object_member(zip_file_t* zf,
                                                   const std::filesystem::path& dir) {
  std::vector<char> buf(1 << 20);
  zip_int64_t r = zip_fread(zf, buf.data(), buf.size());
  std::string_view head(buf.data(), r > 0 ? size_t(r) : 0);
  std::filesystem::path file;
  if (head.starts_with("\x7f"
                       "ELF") ||
      head.starts_with("!<arch>\n")) {
    file = dir / (head.starts_with("!<arch>") ? "member.a" : "member.so");
    std::ofstream os(file, std::ios::binary | std::ios::trunc);
    do os.write(buf.data(), r);
    while ((r = zip_fread(zf, buf.data(), buf.size())) > 0);
  }
  zip_fclose(zf);
  return file;
}

}  // namespace smcompat::testcorpus
