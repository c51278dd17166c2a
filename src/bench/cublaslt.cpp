// The cuBLASLt loader (cublaslt.hpp): candidate paths in search order, dlopen, dlsym of the
// entry points the gemm suite calls. Relies on dlfcn only; nothing of CUDA is linked.
#include "smcompat/bench/cublaslt.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <system_error>
#include <utility>

namespace smcompat::bench::cublaslt {

namespace fs = std::filesystem;

namespace {

constexpr std::array<std::pair<Status, const char*>, 10> kStatusNames = {{
    {0, "CUBLAS_STATUS_SUCCESS"},
    {1, "CUBLAS_STATUS_NOT_INITIALIZED"},
    {3, "CUBLAS_STATUS_ALLOC_FAILED"},
    {7, "CUBLAS_STATUS_INVALID_VALUE"},
    {8, "CUBLAS_STATUS_ARCH_MISMATCH"},
    {11, "CUBLAS_STATUS_MAPPING_ERROR"},
    {13, "CUBLAS_STATUS_EXECUTION_FAILED"},
    {14, "CUBLAS_STATUS_INTERNAL_ERROR"},
    {15, "CUBLAS_STATUS_NOT_SUPPORTED"},
    {16, "CUBLAS_STATUS_LICENSE_ERROR"},
}};

// libcublasLt.so.* files in `dir`, highest major first (13 before 12), the unversioned name last.
std::vector<fs::path> libraries_in(const fs::path& dir) {
  std::vector<std::pair<int, fs::path>> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("libcublasLt.so", 0) != 0) continue;
    const std::string rest = name.substr(std::string("libcublasLt.so").size());
    if (!rest.empty() && rest[0] != '.') continue;
    // The major after ".so."; the plain .so (a dev symlink) sorts last.
    const int major = rest.size() > 1 ? std::atoi(rest.c_str() + 1) : -1;
    found.push_back({major, it->path()});
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second.string() < b.second.string();
  });
  std::vector<fs::path> out;
  for (auto& [major, path] : found) out.push_back(std::move(path));
  return out;
}

void add_dir(std::vector<Candidate>& out, const fs::path& dir, const std::string& origin) {
  for (const auto& p : libraries_in(dir)) out.push_back({p.string(), origin});
}

// lib/python3*/site-packages under an environment prefix.
std::vector<fs::path> site_packages_of(const fs::path& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(prefix / "lib", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("python3", 0) != 0) continue;
    for (const char* sp : {"site-packages", "dist-packages"}) {
      if (fs::is_directory(it->path() / sp, ec)) out.push_back(it->path() / sp);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

template <class F>
bool resolve(void* lib, const char* name, F& slot) {
  slot = reinterpret_cast<F>(dlsym(lib, name));
  return slot != nullptr;
}

}  // namespace

std::string status_name(Status status) {
  for (const auto& [value, name] : kStatusNames) {
    if (value == status) return name;
  }
  return fmt::format("CUBLAS_STATUS_{}", status);
}

SearchPaths default_search_paths() {
  SearchPaths paths;
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    if (const char* v = std::getenv(var); v && *v) {
      for (auto& sp : site_packages_of(v)) paths.site_packages.push_back(std::move(sp));
    }
  }
  for (const char* var : {"SMCOMPAT_CUDA_HOME", "CUDA_HOME", "CUDA_PATH"}) {
    if (const char* v = std::getenv(var); v && *v) paths.cuda_homes.emplace_back(v);
  }
  paths.cuda_homes.emplace_back("/usr/local/cuda");
  return paths;
}

std::vector<Candidate> candidates(const SearchPaths& paths) {
  std::vector<Candidate> out;
  std::error_code ec;
  if (paths.user) {
    if (fs::is_directory(*paths.user, ec)) {
      add_dir(out, *paths.user, "user");
    } else {
      out.push_back({paths.user->string(), "user"});
    }
  }
  for (const auto& sp : paths.site_packages) {
    // nvidia-cublas-cu12 / nvidia-cublas (CUDA 13 wheels also ship nvidia/cu13/lib).
    add_dir(out, sp / "nvidia" / "cublas" / "lib", "nvidia-cublas wheel");
    add_dir(out, sp / "nvidia" / "cu13" / "lib", "nvidia cu13 wheel");
  }
  for (const auto& sp : paths.site_packages) add_dir(out, sp / "torch" / "lib", "torch/lib");
  for (const auto& home : paths.cuda_homes) {
    add_dir(out, home / "lib64", "toolkit");
    add_dir(out, home / "targets" / "x86_64-linux" / "lib", "toolkit");
    add_dir(out, home / "targets" / "sbsa-linux" / "lib", "toolkit");
  }
  if (paths.system) {
    for (const char* soname : {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"}) {
      out.push_back({soname, "system"});
    }
  }
  // The same file reached twice (a toolkit named by two variables) is tried once.
  std::vector<Candidate> unique;
  for (auto& c : out) {
    const bool seen = std::any_of(unique.begin(), unique.end(), [&](const Candidate& u) {
      std::error_code e;
      return u.path == c.path || (fs::exists(u.path, e) && fs::equivalent(u.path, c.path, e));
    });
    if (!seen) unique.push_back(std::move(c));
  }
  return unique;
}

Result<Library> Library::open(const std::string& path, const std::string& origin) {
  dlerror();
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    return make_error(fmt::format("{}: {}", path, why ? why : "dlopen failed"));
  }
  Library l;
  Functions& f = l.fn_;
  bool ok = resolve(lib, "cublasLtCreate", f.create) &&
            resolve(lib, "cublasLtDestroy", f.destroy) &&
            resolve(lib, "cublasLtGetVersion", f.get_version) &&
            resolve(lib, "cublasLtMatmulDescCreate", f.matmul_desc_create) &&
            resolve(lib, "cublasLtMatmulDescDestroy", f.matmul_desc_destroy) &&
            resolve(lib, "cublasLtMatmulDescSetAttribute", f.matmul_desc_set_attribute) &&
            resolve(lib, "cublasLtMatrixLayoutCreate", f.matrix_layout_create) &&
            resolve(lib, "cublasLtMatrixLayoutDestroy", f.matrix_layout_destroy) &&
            resolve(lib, "cublasLtMatrixLayoutSetAttribute", f.matrix_layout_set_attribute) &&
            resolve(lib, "cublasLtMatmulPreferenceCreate", f.preference_create) &&
            resolve(lib, "cublasLtMatmulPreferenceDestroy", f.preference_destroy) &&
            resolve(lib, "cublasLtMatmulPreferenceSetAttribute", f.preference_set_attribute) &&
            resolve(lib, "cublasLtMatmulAlgoGetHeuristic", f.algo_get_heuristic) &&
            resolve(lib, "cublasLtMatmul", f.matmul);
  if (!ok) {
    // Not a usable cuBLASLt; this handle is not needed by anyone else.
    dlclose(lib);
    return make_error(fmt::format("{}: not a cuBLASLt (missing entry points)", path));
  }
  resolve(lib, "cublasLtGetStatusName", f.get_status_name);  // optional
  l.path_ = path;
  l.origin_ = origin;
  l.version_ = f.get_version();
  // What the dynamic loader actually opened, for a soname found by the system search.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(f.get_version), &info) && info.dli_fname) {
    l.path_ = info.dli_fname;
  }
  return l;
}

Result<Library> Library::load(const SearchPaths& paths) {
  std::vector<std::string> tried;
  for (const auto& c : candidates(paths)) {
    auto l = open(c.path, c.origin);
    if (l) return l;
    tried.push_back(fmt::format("{} ({})", l.error().what, c.origin));
  }
  if (tried.empty()) return make_error("cuBLASLt not found: no candidate to try");
  return make_error(fmt::format("cuBLASLt not loaded; tried: {}", fmt::join(tried, "; ")));
}

std::string Library::version_string() const {
  return fmt::format("{}.{}.{}", version_ / 10000, (version_ / 100) % 100, version_ % 100);
}

std::string Library::name(Status status) const {
  if (fn_.get_status_name) {
    if (const char* n = fn_.get_status_name(status); n && *n) return n;
  }
  return status_name(status);
}

}  // namespace smcompat::bench::cublaslt
