// Python environments read from disk without running Python: site-packages discovery
// (<prefix>/lib/pythonX.Y/{site,dist}-packages; pyenv shims resolved through PYENV_VERSION and
// $PYENV_ROOT/version), dist-info METADATA (core metadata: "Name:", "Version:" headers, PEP 566)
// and RECORD (CSV of paths relative to site-packages, PEP 376) as scan/ reads them
// (read_installed_distribution), and torch/version.py. scan/ inventories the shared libraries
// listed in RECORD (scan_paths) to learn their device code.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "smcompat/doctor/facts.hpp"
#include "smcompat/scan/scan.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::doctor {

namespace fs = std::filesystem;

namespace {

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

std::string weakly_canonical_or_same(const std::string& p) {
  std::error_code ec;
  auto c = fs::weakly_canonical(p, ec);
  return ec ? p : c.string();
}

// <prefix>/lib/pythonX.Y/{site,dist}-packages, newest Python first.
std::vector<std::string> site_dirs_of_prefix(const std::string& prefix) {
  std::vector<std::string> out;
  std::error_code ec;
  std::vector<fs::path> libs;
  for (const char* lib : {"lib", "lib64"}) {
    for (auto& e : fs::directory_iterator(fs::path(prefix) / lib, ec)) {
      auto n = e.path().filename().string();
      if (starts_with(n, "python3") && is_dir(e.path())) libs.push_back(e.path());
    }
  }
  std::sort(libs.begin(), libs.end(), [](const fs::path& a, const fs::path& b) {
    // python3.9 < python3.13 numerically
    auto minor = [](const fs::path& p) {
      auto n = p.filename().string();
      auto v = parse_uint(n.size() > 8 ? std::string_view(n).substr(8) : std::string_view());
      return v ? static_cast<int>(*v) : -1;
    };
    return minor(a) > minor(b);
  });
  // lib64 is often a symlink to lib (venv on 64-bit Linux): list each real directory once.
  std::set<std::string> seen;
  for (auto& l : libs) {
    for (const char* sp : {"site-packages", "dist-packages"}) {
      if (is_dir(l / sp) && seen.insert(weakly_canonical_or_same((l / sp).string())).second)
        out.push_back((l / sp).string());
    }
  }
  return out;
}

std::string python_version_of(const std::string& site_packages) {
  // .../lib/python3.11/site-packages -> "3.11"
  auto parent = fs::path(site_packages).parent_path().filename().string();
  if (starts_with(parent, "python")) return parent.substr(6);
  return {};
}

std::string kind_of_prefix(const std::string& prefix) {
  if (fs::exists(fs::path(prefix) / "pyvenv.cfg")) return "venv";
  if (is_dir(fs::path(prefix) / "conda-meta")) return "conda";
  if (prefix.find("/.pyenv/versions/") != std::string::npos) return "pyenv";
  return "system";
}

std::vector<EnvLocation> locations_of_prefix(const std::string& prefix, const std::string& kind,
                                             const std::string& found_by) {
  std::vector<EnvLocation> out;
  for (auto& sp : site_dirs_of_prefix(prefix))
    out.push_back({prefix, sp, kind.empty() ? kind_of_prefix(prefix) : kind, found_by});
  return out;
}

bool looks_like_site_packages(const fs::path& p) {
  auto n = p.filename().string();
  if (n == "site-packages" || n == "dist-packages") return true;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(p, ec)) {
    if (ends_with(e.path().filename().string(), ".dist-info")) return true;
  }
  return false;
}

}  // namespace

bool is_shared_library_name(std::string_view name) {
  return ends_with(name, ".so") || name.find(".so.") != std::string_view::npos;
}

Distribution distribution_of(InstalledDistribution inst) {
  Distribution d;
  d.name = std::move(inst.name);
  d.version = std::move(inst.version);
  d.dist_info = std::move(inst.dist_info);
  d.warnings = std::move(inst.warnings);
  d.requires_dist = std::move(inst.requires_dist);
  for (auto& file : inst.files) {
    auto name = fs::path(file).filename().string();
    if (!is_shared_library_name(name)) continue;
    // libcudart.so.13, or auditwheel's libcudart.<hash>.so.13.
    if (auto cudart = parse_cudart_file_name(name); cudart && d.bundled_cudart.empty()) {
      d.bundled_cudart = file;
      d.bundled_cudart_major = cudart->major;
    }
    d.shared_libraries.push_back(std::move(file));
  }
  return d;
}

std::string local_version_suffix(std::string_view version) {
  auto plus = version.find('+');
  return plus == std::string_view::npos ? std::string() : std::string(version.substr(plus + 1));
}

TorchFacts parse_torch_version_py(std::string_view text) {
  TorchFacts t;
  for (auto raw : split(text, '\n')) {
    auto line = trim(raw);
    auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    auto lhs = trim(line.substr(0, eq));
    lhs = trim(lhs.substr(0, lhs.find(':')));  // drop a type annotation
    auto rhs = trim(line.substr(eq + 1));
    std::string value;
    if (!rhs.empty() && (rhs[0] == '\'' || rhs[0] == '"')) {
      auto close = rhs.find(rhs[0], 1);
      if (close == std::string_view::npos) continue;
      value = std::string(rhs.substr(1, close - 1));
    } else {
      continue;  // None or an expression
    }
    if (lhs == "__version__")
      t.version = value;
    else if (lhs == "cuda")
      t.cuda = Version::parse(value);
    else if (lhs == "git_version")
      t.git_version = value;
  }
  t.channel = local_version_suffix(t.version);
  return t;
}

std::vector<SmTarget> PackageCode::all_targets() const {
  std::set<SmTarget> s;
  for (auto& l : libraries) s.insert(l.targets.begin(), l.targets.end());
  return {s.begin(), s.end()};
}

const PackageCode* PythonEnv::find(std::string_view normalized_name) const {
  for (auto& p : packages)
    if (normalize_package_name(p.dist.name) == normalized_name) return &p;
  return nullptr;
}

Result<std::vector<EnvLocation>> locate_python(const std::string& path,
                                               const std::string& found_by) {
  std::error_code ec;
  fs::path p(path);
  if (!fs::exists(p, ec))
    return make_error(fmt::format("--python {}: no such file or directory", path));
  if (fs::is_regular_file(p, ec)) {
    // An interpreter: <prefix>/bin/python3. Keep the unresolved path first (a venv's bin/python
    // is a symlink to the base interpreter, but the venv is the environment).
    std::vector<EnvLocation> out;
    for (auto candidate : {p, fs::canonical(p, ec)}) {
      if (candidate.empty()) continue;  // canonical() failed
      auto prefix = candidate.parent_path().parent_path().string();
      auto locs = locations_of_prefix(prefix, "", found_by);
      if (!locs.empty()) return locs;
    }
    return make_error(fmt::format(
        "--python {}: found no lib/python3.*/site-packages next to this interpreter", path));
  }
  if (is_dir(p)) {
    auto locs = locations_of_prefix(p.string(), "", found_by);
    if (!locs.empty()) return locs;
    if (looks_like_site_packages(p)) {
      return std::vector<EnvLocation>{{p.parent_path().parent_path().parent_path().string(),
                                       p.string(), "site-packages", found_by}};
    }
  }
  return make_error(fmt::format(
      "--python {}: not an interpreter, an environment prefix or a site-packages directory", path));
}

std::vector<EnvLocation> unique_locations(std::vector<EnvLocation> locations) {
  std::vector<EnvLocation> out;
  std::vector<std::string> canon;
  for (auto& l : locations) {
    auto c = weakly_canonical_or_same(l.site_packages);
    auto it = std::find(canon.begin(), canon.end(), c);
    if (it == canon.end()) {
      canon.push_back(c);
      out.push_back(std::move(l));
      continue;
    }
    auto& first = out[static_cast<size_t>(it - canon.begin())];
    if (first.found_by.find(l.found_by) == std::string::npos) first.found_by += ", " + l.found_by;
  }
  return out;
}

std::vector<EnvLocation> pth_locations(const EnvLocation& site) {
  std::vector<EnvLocation> out;
  std::error_code ec;
  std::vector<fs::path> pths;
  for (auto& e : fs::directory_iterator(site.site_packages, ec))
    if (e.path().extension() == ".pth") pths.push_back(e.path());
  std::sort(pths.begin(), pths.end());  // site.py reads them in name order
  for (auto& pth : pths) {
    auto text = read_file_prefix(pth.string(), 1 << 20);
    if (!text) continue;
    for (auto raw : split(*text, '\n')) {
      auto line = trim(raw);
      if (line.empty() || line[0] == '#' || starts_with(line, "import ") ||
          starts_with(line, "import\t"))
        continue;
      fs::path dir(std::string{line});
      if (dir.is_relative()) dir = fs::path(site.site_packages) / dir;
      dir = dir.lexically_normal();
      if (!is_dir(dir) || !looks_like_site_packages(dir)) continue;
      out.push_back({site.prefix, dir.string(), site.kind,
                     fmt::format("{} (via {})", site.found_by, pth.filename().string())});
    }
  }
  return out;
}

std::vector<EnvLocation> discover_active_pythons(const Environment& env) {
  std::vector<EnvLocation> out;
  auto add = [&](std::vector<EnvLocation> locs) {
    for (auto& l : locs) out.push_back(std::move(l));
    out = unique_locations(std::move(out));  // one entry per real directory, found_by merged
  };
  if (auto it = env.find("VIRTUAL_ENV"); it != env.end() && !it->second.empty())
    add(locations_of_prefix(it->second, "venv", "VIRTUAL_ENV"));
  if (auto it = env.find("CONDA_PREFIX"); it != env.end() && !it->second.empty())
    add(locations_of_prefix(it->second, "conda", "CONDA_PREFIX"));
  std::string py = find_on_path("python3", env);
  if (!py.empty()) {
    if (py.find("/shims/") != std::string::npos && py.find("pyenv") != std::string::npos) {
      // A pyenv shim is a shell script; the version it runs comes from PYENV_VERSION or the
      // global version file (pyenv docs, "Choosing the Python version").
      std::string root = env.count("PYENV_ROOT")
                             ? env.at("PYENV_ROOT")
                             : fs::path(py).parent_path().parent_path().string();
      std::string version;
      if (auto it = env.find("PYENV_VERSION"); it != env.end()) version = it->second;
      if (version.empty()) {
        if (auto text = read_file_prefix(root + "/version", 4096))
          version = std::string(trim(text->substr(0, text->find('\n'))));
      }
      version = version.substr(0, version.find(':'));
      if (!version.empty() && version != "system")
        add(locations_of_prefix(root + "/versions/" + version, "pyenv", "python3 on PATH (pyenv)"));
    } else {
      std::error_code ec;
      auto real = fs::canonical(py, ec);
      for (auto cand : {fs::path(py), real}) {
        if (cand.empty()) continue;
        auto prefix = cand.parent_path().parent_path().string();
        auto locs = locations_of_prefix(prefix, "", "python3 on PATH");
        if (!locs.empty()) {
          add(std::move(locs));
          break;
        }
      }
    }
  }
  // Debian's system Python also reads /usr/local (pip installs there), and a Python outside a
  // venv reads the user site ~/.local/lib/pythonX.Y/site-packages (PEP 370).
  std::vector<EnvLocation> extra;
  for (auto& l : out) {
    if (l.prefix == "/usr") {
      for (auto& x : locations_of_prefix("/usr/local", "system", l.found_by + " (/usr/local)"))
        extra.push_back(x);
    }
  }
  if (!env.count("VIRTUAL_ENV") && env.count("HOME") && !out.empty()) {
    std::string ver = python_version_of(out.back().site_packages);
    std::string user = env.at("HOME") + "/.local/lib/python" + ver + "/site-packages";
    if (!ver.empty() && is_dir(user))
      extra.push_back({env.at("HOME") + "/.local", user, "user", "user site (PEP 370)"});
  }
  add(std::move(extra));
  return out;
}

LibraryCode library_code(const std::string& path, std::vector<FileInventory> invs) {
  LibraryCode lc;
  lc.path = path;
  std::set<SmTarget> targets;
  for (auto& inv : invs) {
    for (auto& img : inv.images) {
      targets.insert(img.target);
      if (img.target.kind == ImageKind::kPtx && img.ptx_version) {
        auto [it, fresh] = lc.ptx_isa.emplace(img.target, *img.ptx_version);
        if (!fresh && it->second < *img.ptx_version) it->second = *img.ptx_version;
      }
    }
    for (auto& e : inv.errors) lc.errors.push_back(e.to_string());
  }
  // Every image a cubin without a kernel (the inventory counts the kernels of small cubins):
  // nothing to launch. judge_file() leaves such units out, as for any scan.
  bool any_image = false, all_kernelless = true;
  for (auto& inv : invs)
    for (auto& img : inv.images) {
      any_image = true;
      all_kernelless = all_kernelless && img.kernelless();
    }
  lc.no_kernels = any_image && all_kernelless;
  if (!targets.empty()) lc.inventories = std::move(invs);
  lc.targets.assign(targets.begin(), targets.end());
  return lc;
}

void read_companion_versions(const std::string& site_packages, std::vector<PackageCode>& packages) {
  for (auto& pc : packages) {
    auto n = normalize_package_name(pc.dist.name);
    if (n != "torchvision" && n != "torchaudio") continue;
    std::string vp = (fs::path(site_packages) / n / "version.py").string();
    if (auto text = read_file_prefix(vp, 1 << 16)) {
      auto parsed = parse_torch_version_py(*text);
      if (!parsed.version.empty()) {
        pc.dist.own_version = parsed.version;
        pc.dist.own_version_source = vp;
      }
    }
  }
}

PythonEnv read_python_env(const EnvLocation& where, bool scan_code, unsigned jobs) {
  PythonEnv env;
  env.prefix = where.prefix;
  env.site_packages = where.site_packages;
  env.python_version = python_version_of(where.site_packages);
  env.kind = where.kind;
  env.found_by = where.found_by;
  std::error_code ec;
  auto dist_dirs = dist_info_dirs(where.site_packages, &ec);
  if (ec) env.warnings.push_back(fmt::format("{}: {}", where.site_packages, ec.message()));
  for (auto& d : dist_dirs) {
    PackageCode pc;
    pc.dist = distribution_of(read_installed_distribution(d));
    for (auto& w : pc.dist.warnings) env.warnings.push_back(w);
    env.packages.push_back(std::move(pc));
  }
  read_companion_versions(env.site_packages, env.packages);
  // torch/version.py (read, never imported).
  if (auto* torch = env.find("torch")) {
    std::string vp = (fs::path(where.site_packages) / "torch" / "version.py").string();
    if (auto text = read_file_prefix(vp, 1 << 16)) {
      auto t = parse_torch_version_py(*text);
      t.version_py = vp;
      if (t.version.empty()) t.version = torch->dist.version;
      t.channel = local_version_suffix(t.version);
      env.torch = t;
    } else {
      TorchFacts t;
      t.version = torch->dist.version;
      t.channel = local_version_suffix(t.version);
      env.torch = t;
      env.warnings.push_back(fmt::format("{}: not readable; CUDA version of torch unknown", vp));
    }
  }
  if (scan_code) {
    // scan/ inventories the shared libraries of every package (in parallel); each library is
    // then judged by what it holds.
    std::vector<std::pair<size_t, std::string>> libraries;  // (package, path)
    std::vector<std::string> paths;
    std::set<std::string> listed;
    for (size_t i = 0; i < env.packages.size(); ++i) {
      for (auto& so : env.packages[i].dist.shared_libraries) {
        if (!fs::is_regular_file(so, ec)) continue;
        libraries.emplace_back(i, so);
        if (listed.insert(so).second) paths.push_back(so);
      }
    }
    ScanOptions options;
    options.jobs = jobs;
    options.group_by_record = false;  // the packages are known already
    auto scanned = scan_paths(paths, options);
    std::map<std::string, std::vector<FileInventory>> by_path;
    for (auto& f : scanned.files) by_path[f.inventory.path].push_back(std::move(f.inventory));
    for (auto& [package, path] : libraries) {
      auto it = by_path.find(path);
      if (it == by_path.end()) continue;
      auto lc = library_code(path, it->second);
      // Files without device code (and their inventory errors: noise) are left out.
      if (!lc.targets.empty()) env.packages[package].libraries.push_back(std::move(lc));
    }
  }
  return env;
}

Result<InstalledPackages> read_installed_packages(const std::string& python) {
  auto locations = locate_python(python, "--python");
  if (!locations) return locations.error();
  InstalledPackages env;
  for (const auto& loc : unique_locations(*locations)) {
    std::error_code ec;
    auto dirs = dist_info_dirs(loc.site_packages, &ec);
    if (ec)
      return make_error(
          fmt::format("--python {}: cannot read {}: {}", python, loc.site_packages, ec.message()));
    env.site_packages.push_back(loc.site_packages);
    for (const auto& d : dirs) {
      auto dist = read_installed_distribution(d);
      if (dist.name.empty()) continue;
      env.installed.emplace_back(normalize_package_name(dist.name), dist.version);
    }
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(python, ec)) {
    env.pip_python = python;
  } else if (!locations->empty()) {
    for (const char* name : {"bin/python", "bin/python3"}) {
      auto candidate = fs::path(locations->front().prefix) / name;
      if (fs::exists(candidate, ec)) {
        env.pip_python = candidate.string();
        break;
      }
    }
  }
  return env;
}

}  // namespace smcompat::doctor
