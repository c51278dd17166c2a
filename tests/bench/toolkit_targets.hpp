// What the installed CUDA toolkit itself says, for the bench tests' expected values: the SASS
// targets its nvcc builds (`nvcc --list-gpu-code`) and its cuBLASLt. The tests derive their
// expectations from these rather than from one toolkit release, so that CUDA 12.x and 13.x both
// run them (issue 33); they skip only where the toolkit is absent, saying so.
#pragma once

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "smcompat/util/strings.hpp"

namespace smcompat::bench::testtoolkit {

/// `nvcc --list-gpu-code`'s plain sm_XY from sm_75 on, in arch order (nvcc lists sm_110 before
/// sm_103), then the PTX levels of SMCOMPAT_BENCH_PTX_ARCHS; empty when nvcc cannot be run.
inline std::vector<std::string> nvcc_bench_targets() {
  std::vector<std::string> out;
  std::string command = std::string(SMCOMPAT_TEST_NVCC) + " --list-gpu-code 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return out;
  std::string listing;
  for (char buf[256]; fgets(buf, sizeof buf, pipe.get());) listing += buf;
  std::istringstream lines(listing);
  for (std::string code; std::getline(lines, code);) {
    code = std::string(trim(code));
    if (code.size() > 3 && code.starts_with("sm_") &&
        std::all_of(code.begin() + 3, code.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
        std::stoi(code.substr(3)) >= 75)
      out.push_back(code);
  }
  if (out.empty()) return out;
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return std::stoi(a.substr(3)) < std::stoi(b.substr(3));
  });
  for (const auto& arch : split(SMCOMPAT_TEST_BENCH_PTX_ARCHS, ','))
    out.push_back("compute_" + std::string(arch));
  return out;
}

/// The toolkit's cuBLASLt, newest soname first (CUDA 13: .so.13, CUDA 12: .so.12); empty if none.
inline std::string toolkit_cublaslt() {
  for (const char* p :
       {"/usr/local/cuda/lib64/libcublasLt.so.13", "/usr/local/cuda/lib64/libcublasLt.so.12"})
    if (std::filesystem::exists(p)) return p;
  return {};
}

}  // namespace smcompat::bench::testtoolkit
