#include "smcompat/verdict/runtime_need.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <utility>

#include "smcompat/util/strings.hpp"

namespace smcompat {

namespace {

// "12.8.90" -> "12.8"
std::string major_minor(std::string_view v) {
  auto parts = split(v, '.');
  if (parts.size() >= 2) return std::string(parts[0]) + "." + std::string(parts[1]);
  return std::string(v);
}

std::string requirement_name(const std::string& req) {
  return normalize_package_name(req.substr(0, req.find_first_of("=<>!~; [(")));
}

// NVIDIA's CUDA component wheels without a -cuNN suffix: every release of each is of the CUDA 13
// generation or later (oldest on PyPI, `pip index versions`, 2026-11-27: nvidia-cuda-runtime
// 13.0.48, nvidia-cublas 13.0.0.19, nvidia-cufft 12.0.0.15 and nvidia-curand 10.4.0.35 of CUDA
// 13.0, ...). The -cu11/-cu12 names carry the major themselves.
bool is_cuda13_generation_wheel(std::string_view name) {
  for (std::string_view n :
       {"nvidia-cuda-runtime", "nvidia-cuda-nvrtc", "nvidia-cuda-cupti", "nvidia-cuda-nvcc",
        "nvidia-cuda-cccl", "nvidia-cublas", "nvidia-cufft", "nvidia-curand", "nvidia-cusolver",
        "nvidia-cusparse", "nvidia-nvjitlink", "nvidia-npp", "nvidia-nvtx", "nvidia-cufile"})
    if (name == n) return true;
  return false;
}

std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

bool marker_applies(std::string_view requirement, std::string_view machine) {
  auto semi = requirement.find(';');
  if (semi == std::string_view::npos || machine.empty() || machine == "any") return true;
  std::string_view marker = requirement.substr(semi + 1);
  for (size_t at = marker.find("platform_machine"); at != std::string_view::npos;
       at = marker.find("platform_machine", at + 1)) {
    std::string_view rest = trim(marker.substr(at + 16));
    bool equal = starts_with(rest, "==");
    if (!equal && !starts_with(rest, "!=")) continue;
    rest = trim(rest.substr(2));
    if (rest.empty() || (rest[0] != '"' && rest[0] != '\'')) continue;
    auto close = rest.find(rest[0], 1);
    if (close == std::string_view::npos) continue;
    std::string_view value = rest.substr(1, close - 1);
    if (equal != (value == machine)) return false;
  }
  return true;
}

RuntimeGuess infer_cuda_runtime(const RuntimeClues& clues) {
  std::vector<std::string> requires_here;
  for (const auto& req : clues.requires_dist)
    if (marker_applies(req, clues.machine)) requires_here.push_back(req);
  for (const auto& req : requires_here) {
    std::string name = requirement_name(req);
    if (name != "nvidia-cuda-runtime-cu11" && name != "nvidia-cuda-runtime-cu12" &&
        name != "nvidia-cuda-runtime-cu13" && name != "nvidia-cuda-runtime" &&
        name != "cuda-toolkit")
      continue;
    // The pin of the version specifier, not an "==" of the marker after ';'.
    std::string_view spec = std::string_view(req).substr(0, req.find(';'));
    if (auto eq = spec.find("=="); eq != std::string_view::npos) {
      std::string v(trim(spec.substr(eq + 2)));
      v = v.substr(0, v.find_first_of(" ,)"));
      if (!v.empty() && std::isdigit(static_cast<unsigned char>(v[0])))
        return {major_minor(v), "requires " + name + "==" + v};
    }
    if (starts_with(name, "nvidia-cuda-runtime-cu"))
      return {name.substr(std::string("nvidia-cuda-runtime-cu").size()),
              "requires " + std::string(trim(req.substr(0, req.find(';'))))};
  }
  for (const auto& base : clues.runtime_libraries)
    if (auto name = parse_cudart_file_name(base))
      return {std::to_string(name->major), "bundles " + base};
  for (const auto& req : requires_here) {
    std::string name = requirement_name(req);
    if (is_cuda13_generation_wheel(name))
      return {"13", "requires " + name + ", an unsuffixed NVIDIA wheel: CUDA 13 or later"};
    auto cu = name.rfind("-cu");
    if (starts_with(name, "nvidia-") && cu != std::string::npos && name.size() - cu <= 5 &&
        name.size() > cu + 3 && std::all_of(name.begin() + cu + 3, name.end(), ::isdigit))
      return {name.substr(cu + 3), "requires " + name};
  }
  // One library per CUDA runtime (libbitsandbytes_cuda118.so ... _cuda130.so): each of them.
  std::set<std::pair<int, int>> variants;
  std::string example;
  for (const auto& path : clues.library_paths) {
    auto base = base_name(path);
    auto at = base.find("_cuda");
    if (at == std::string::npos) continue;
    size_t i = at + 5, j = i;
    while (j < base.size() && std::isdigit(static_cast<unsigned char>(base[j]))) ++j;
    if (j - i != 3 && j - i != 4) continue;  // 118 -> 11.8, 1210 (never seen) -> 12.10
    int major = std::stoi(base.substr(i, 2)), minor = std::stoi(base.substr(i + 2, j - i - 2));
    variants.insert({major, minor});
    if (example.empty()) example = base;
  }
  if (variants.size() >= 2) {
    std::vector<std::string> list;
    for (auto [major, minor] : variants) list.push_back(fmt::format("{}.{}", major, minor));
    return {fmt::format("{}", fmt::join(list, ";")),
            fmt::format("one library per CUDA runtime ({} …), loaded by the runtime torch uses",
                        example)};
  }
  // The package's own name: nvidia-cublas-cu12, cupy-cuda12x, jax-cuda13-plugin, nvidia-cublas.
  const std::string p = normalize_package_name(clues.package);
  if (is_cuda13_generation_wheel(p))
    return {"13", p + " is one of NVIDIA's unsuffixed wheels, which start at CUDA 13"};
  for (std::string_view marker : {"-cu", "-cuda"}) {
    for (auto at = p.find(marker); at != std::string::npos; at = p.find(marker, at + 1)) {
      size_t i = at + marker.size(), j = i;
      while (j < p.size() && std::isdigit(static_cast<unsigned char>(p[j]))) ++j;
      if (j > i && j - i <= 3 && (j == p.size() || p[j] == '-' || p[j] == 'x'))
        return {p.substr(i, j - i), "-" + p.substr(at + 1, j - at - 1) + " in the package name"};
    }
  }
  return {};
}

std::optional<CudartName> parse_cudart_file_name(std::string_view name) {
  // libcudart.so.12, libcudart.so.12.8.90; auditwheel renames bundled copies with a hash of their
  // contents: libcudart-1a2b3c4d.so.12 (manylinux), libcudart.1a2b3c4d.so.12 (older releases).
  static const std::regex kName(
      R"(libcudart(?:[-.][0-9a-fA-F]{6,})?\.so\.([0-9]{1,4})((?:\.[0-9]{1,6}){1,2})?)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(name.begin(), name.end(), m, kName)) return std::nullopt;
  CudartName out;
  out.major = std::stoi(m[1].str());
  if (m[2].matched) out.version = m[1].str() + m[2].str();
  return out;
}

std::vector<std::string> bundled_cuda_runtimes(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& path : paths)
    if (auto base = base_name(path); parse_cudart_file_name(base)) out.push_back(base);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<RuntimeNeed> runtime_need(const RuntimeGuess& guess) {
  if (guess.cuda.empty() || guess.cuda.find(';') != std::string::npos) return std::nullopt;
  auto v = Version::parse(guess.cuda);
  if (!v) return std::nullopt;
  return RuntimeNeed{*v, guess.evidence};
}

}  // namespace smcompat
