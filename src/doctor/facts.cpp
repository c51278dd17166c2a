// Static fact collection for the doctor: CUDA toolkits (version.json or include/cuda.h),
// library resolution in the dynamic loader's order (ld.so(8): LD_LIBRARY_PATH, ld.so.cache,
// default paths) and host resources (/proc/meminfo). Nothing here runs user code.
#include "smcompat/doctor/facts.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "smcompat/util/files.hpp"
#include "smcompat/util/process.hpp"
#include "smcompat/util/shell.hpp"
#include "smcompat/util/strings.hpp"

extern char** environ;

namespace smcompat::doctor {

namespace fs = std::filesystem;

Environment current_environment() {
  Environment env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    auto eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return env;
}

const char* to_string(DriverFacts::State state) {
  // In the order of DriverFacts::State.
  static constexpr const char* kNames[] = {"not-checked", "no-driver", "stub-library",
                                           "no-device",   "ok",        "error"};
  auto i = static_cast<size_t>(state);
  return i < std::size(kNames) ? kNames[i] : "?";
}

namespace {

bool is_dir(const std::string& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}
bool is_file(const std::string& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);  // follows symlinks
}
bool is_executable(const std::string& p) { return is_file(p) && ::access(p.c_str(), X_OK) == 0; }

std::string canonical_or_same(const std::string& p) {
  std::error_code ec;
  auto c = fs::canonical(p, ec);
  return ec ? p : c.string();
}

}  // namespace

// ---- toolkits ----

std::optional<Version> toolkit_version(const std::string& root, std::string* source) {
  // version.json (CUDA 11.1+ runfile/deb installs): {"cuda": {"version": "12.8.1"}}.
  if (auto text = read_file_prefix(root + "/version.json", 1 << 20)) {
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_discarded() && j.contains("cuda") && j["cuda"].is_object() &&
        j["cuda"].contains("version") && j["cuda"]["version"].is_string()) {
      if (auto v = Version::parse(j["cuda"]["version"].get<std::string>())) {
        if (source) *source = "version.json";
        return v;
      }
    }
  }
  // include/cuda.h: "#define CUDA_VERSION 13000" (present in every toolkit, also pip-installed).
  for (const char* rel : {"/include/cuda.h", "/targets/x86_64-linux/include/cuda.h",
                          "/targets/sbsa-linux/include/cuda.h"}) {
    auto text = read_file_prefix(root + rel, 4 << 20);
    if (!text) continue;
    auto pos = text->find("#define CUDA_VERSION ");
    if (pos == std::string::npos) continue;
    auto end = text->find('\n', pos);
    auto num = trim(std::string_view(*text).substr(pos + 21, end - pos - 21));
    if (auto n = parse_uint(num)) {
      if (source) *source = fmt::format("{} CUDA_VERSION {}", rel + 1, *n);
      return Version::from_cuda_int(static_cast<int>(*n));
    }
  }
  return std::nullopt;
}

std::string find_on_path(const std::string& name, const Environment& env) {
  auto it = env.find("PATH");
  if (it == env.end()) return {};
  return find_executable(name, it->second).value_or("");
}

std::vector<ToolkitFacts> find_toolkits(const Environment& env, const std::string& usr_local) {
  std::vector<ToolkitFacts> out;
  auto add = [&](const std::string& root, const std::string& how) {
    if (root.empty() || !is_dir(root)) return;
    std::string canon = canonical_or_same(root);
    for (auto& t : out) {
      if (canonical_or_same(t.root) == canon) {
        if (std::find(t.found_by.begin(), t.found_by.end(), how) == t.found_by.end())
          t.found_by.push_back(how);
        return;
      }
    }
    ToolkitFacts t;
    t.root = root;
    t.version = toolkit_version(root, &t.version_source);
    if (is_executable(root + "/bin/nvcc")) t.nvcc = root + "/bin/nvcc";
    t.found_by.push_back(how);
    out.push_back(std::move(t));
  };
  for (const char* var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"}) {
    auto it = env.find(var);
    if (it != env.end() && !it->second.empty()) add(it->second, var);
  }
  if (auto nvcc = find_on_path("nvcc", env); !nvcc.empty()) {
    std::string root = fs::path(canonical_or_same(nvcc)).parent_path().parent_path().string();
    add(root, "nvcc on PATH");
  }
  add(usr_local + "/cuda", usr_local + "/cuda");
  std::error_code ec;
  std::vector<std::string> versioned;
  for (auto& e : fs::directory_iterator(usr_local, ec)) {
    auto name = e.path().filename().string();
    if (starts_with(name, "cuda-")) versioned.push_back(e.path().string());
  }
  std::sort(versioned.begin(), versioned.end());
  for (auto& v : versioned) add(v, usr_local + "/cuda-*");
  return out;
}

// ---- library resolution ----

std::vector<std::string> ld_conf_dirs(const std::string& conf) {
  std::vector<std::string> out;
  std::vector<std::string> todo{conf};
  int guard = 0;
  while (!todo.empty() && guard++ < 64) {
    std::string file = todo.front();
    todo.erase(todo.begin());
    auto text = read_file_prefix(file, 1 << 20);
    if (!text) continue;
    for (auto raw : split(*text, '\n')) {
      auto line = trim(raw.substr(0, raw.find('#')));
      if (line.empty()) continue;
      if (starts_with(line, "include")) {
        auto pattern = std::string(trim(line.substr(7)));
        if (!pattern.empty() && pattern[0] != '/')
          pattern = fs::path(file).parent_path().string() + "/" + pattern;
        // Only the common "dir/*.conf" glob form is expanded.
        auto dir = fs::path(pattern).parent_path();
        auto leaf = fs::path(pattern).filename().string();
        std::vector<std::string> files;
        std::error_code ec;
        for (auto& e : fs::directory_iterator(dir, ec)) {
          auto n = e.path().filename().string();
          if (leaf == "*.conf" ? ends_with(n, ".conf") : n == leaf)
            files.push_back(e.path().string());
        }
        std::sort(files.begin(), files.end());
        todo.insert(todo.begin(), files.begin(), files.end());
      } else {
        out.emplace_back(line);
      }
    }
  }
  return out;
}

LibraryResolution resolve_library(const std::string& soname, const Environment& env,
                                  const std::vector<std::string>& ld_cache_dirs) {
  LibraryResolution r{soname, "", ""};
  if (auto it = env.find("LD_LIBRARY_PATH"); it != env.end()) {
    for (auto dir : split(it->second, ':')) {
      if (dir.empty()) continue;
      std::string p = std::string(dir) + "/" + soname;
      if (is_file(p)) return {soname, p, "LD_LIBRARY_PATH"};
    }
  }
  for (auto& dir : ld_cache_dirs) {
    std::string p = dir + "/" + soname;
    if (is_file(p)) return {soname, p, "ld.so.conf"};
  }
  for (const char* dir :
       {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}) {
    std::string p = std::string(dir) + "/" + soname;
    if (is_file(p)) return {soname, p, "default path"};
  }
  return r;
}

// ---- host ----

HostFacts read_host(const Environment& env) {
  HostFacts h;
  h.cores = std::max(1u, std::thread::hardware_concurrency());
  if (auto text = read_file_prefix("/proc/meminfo", 1 << 16)) {
    for (auto line : split(*text, '\n')) {
      auto kib = [&](std::string_view key) -> std::optional<double> {
        if (!starts_with(line, key)) return std::nullopt;
        auto rest = trim(line.substr(key.size()));
        auto num = rest.substr(0, rest.find(' '));
        if (auto n = parse_uint(num)) return static_cast<double>(*n) / (1024.0 * 1024.0);
        return std::nullopt;
      };
      if (auto v = kib("MemTotal:")) h.mem_total_gib = *v;
      if (auto v = kib("MemAvailable:")) h.mem_available_gib = *v;
    }
  }
  for (const char* cxx : {"c++", "g++", "clang++"}) {
    h.cxx = find_on_path(cxx, env);
    if (!h.cxx.empty()) break;
  }
  if (!h.cxx.empty()) {
    // Reading the compiler's version runs the compiler, not user code: no shell, 10 s at most.
    auto run = run_child({h.cxx, "--version"}, /*search_path=*/false, "", 10);
    if (run && run->exit_code == 0)
      h.cxx_version = std::string(trim(run->out.substr(0, run->out.find('\n'))));
  }
  return h;
}

}  // namespace smcompat::doctor
