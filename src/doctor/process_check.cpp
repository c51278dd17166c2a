// Checking a live process (include/smcompat/doctor/process_check.hpp): /proc/PID/maps (proc(5):
// "address perms offset dev inode pathname", the pathname padded to a column and suffixed
// " (deleted)" for a removed file) names the loaded files; scan/ inventories those that are ELF;
// the dist-info RECORD of the site-packages a file lives under (PEP 376) names its package; the
// doctor's own rules (rules.hpp) judge the loaded libraries only, for the GPU the process uses
// (the probe's true compute capability, ProbeDevice::true_cc()) and any what-if GPUs; and, with
// torch's run-time answers, three cross-checks compare them with the driver and libtorch_cuda.so.
#include "smcompat/doctor/process_check.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "rules.hpp"
#include "smcompat/scan/scan.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::doctor {

namespace fs = std::filesystem;

DriverFacts collect_driver(const DoctorOptions& options);  // driver.cpp

namespace {

bool all_of_chars(std::string_view s, bool (*ok)(char)) {
  return !s.empty() && std::all_of(s.begin(), s.end(), ok);
}
bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_dec(char c) { return c >= '0' && c <= '9'; }

// Splits off the next space-separated field; `rest` keeps what follows the spaces after it.
std::string_view next_field(std::string_view& rest) {
  size_t start = rest.find_first_not_of(' ');
  if (start == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(start);
  size_t end = rest.find(' ');
  std::string_view field = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  return field;
}

// One maps line -> (path, deleted, range); an empty path for mappings that name no file.
// Returns the reason on a malformed line.
// The kernel writes a newline in a mapped file's name as the four characters "\012" (proc(5),
// seq_file_path with "\n" escaped) and leaves a backslash as it is, so a name that really holds
// "\012" reads the same: the decoded name is taken when such a file exists, else the text.
std::string decoded_maps_path(std::string_view path) {
  constexpr std::string_view kEscapedNewline = "\\012";
  if (path.find(kEscapedNewline) == std::string_view::npos) return std::string(path);
  std::string decoded;
  for (size_t i = 0; i < path.size();) {
    if (path.substr(i, kEscapedNewline.size()) == kEscapedNewline) {
      decoded += '\n';
      i += kEscapedNewline.size();
    } else {
      decoded += path[i++];
    }
  }
  std::error_code ec;
  if (fs::exists(decoded, ec) || !fs::exists(std::string(path), ec)) return decoded;
  return std::string(path);
}

std::optional<std::string> parse_maps_line(std::string_view line, MappedFile& out) {
  std::string_view rest = line;
  auto range = next_field(rest);
  auto perms = next_field(rest);
  auto offset = next_field(rest);
  auto dev = next_field(rest);
  auto inode = next_field(rest);
  auto dash = range.find('-');
  if (dash == std::string_view::npos || !all_of_chars(range.substr(0, dash), is_hex) ||
      !all_of_chars(range.substr(dash + 1), is_hex) || dash > 16 || range.size() - dash - 1 > 16)
    return fmt::format("address range \"{}\" is not START-END in hex", range.substr(0, 40));
  if (perms.size() != 4 || (perms[0] != 'r' && perms[0] != '-') ||
      (perms[1] != 'w' && perms[1] != '-') || (perms[2] != 'x' && perms[2] != '-') ||
      (perms[3] != 'p' && perms[3] != 's'))
    return fmt::format("permissions \"{}\" are not four of rwxp/s", perms.substr(0, 16));
  if (!all_of_chars(offset, is_hex))
    return fmt::format("offset \"{}\" is not hex", offset.substr(0, 24));
  auto colon = dev.find(':');
  if (colon == std::string_view::npos || !all_of_chars(dev.substr(0, colon), is_hex) ||
      !all_of_chars(dev.substr(colon + 1), is_hex))
    return fmt::format("device \"{}\" is not MAJOR:MINOR in hex", dev.substr(0, 24));
  if (!all_of_chars(inode, is_dec))
    return fmt::format("inode \"{}\" is not a decimal number", inode.substr(0, 24));
  // The pathname is the rest of the line after the padding; it may itself hold spaces.
  size_t start = rest.find_first_not_of(' ');
  std::string_view path = start == std::string_view::npos ? std::string_view() : rest.substr(start);
  out.address_range = std::string(range);
  out.deleted = false;
  constexpr std::string_view kDeleted = " (deleted)";
  if (ends_with(path, kDeleted)) {
    path.remove_suffix(kDeleted.size());
    out.deleted = true;
  }
  // Only absolute paths are files: "[heap]", "[vdso]", "[anon:x]" and "" are not; memfd and
  // SysV shared memory ("/memfd:x", "/SYSV0000") have no path on disk to read.
  if (path.empty() || path[0] != '/' || starts_with(path, "/memfd:") ||
      starts_with(path, "/SYSV") || starts_with(path, "/dev/"))
    out.path.clear();
  else
    out.path = decoded_maps_path(path);
  return std::nullopt;
}

// Four bytes, not a buffer's worth: a large process maps hundreds of files.
bool is_elf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' &&
         magic[3] == 'F';
}

// The distributions of one site-packages directory, by file.
struct SiteOwners {
  std::vector<InstalledDistribution> dists;
  std::map<std::string, size_t> owner;  // file -> index in dists
};

// Finds, for loaded files, the distribution whose RECORD lists them: the nearest ancestor
// directory holding *.dist-info whose RECORDs name the file. Each directory is listed once.
class OwnerFinder {
 public:
  // (site-packages, distribution) or nullptr.
  std::pair<std::string, const InstalledDistribution*> find(const std::string& file) {
    fs::path dir = fs::path(file).parent_path();
    for (int depth = 0; depth < 64 && !dir.empty(); ++depth) {
      const SiteOwners& site = site_of(dir.string());
      if (auto it = site.owner.find(file); it != site.owner.end())
        return {dir.string(), &site.dists[it->second]};
      if (dir == dir.root_path()) break;
      dir = dir.parent_path();
    }
    return {"", nullptr};
  }

 private:
  const SiteOwners& site_of(const std::string& dir) {
    auto [it, fresh] = sites_.try_emplace(dir);
    if (!fresh) return it->second;
    std::error_code ec;
    for (auto& d : dist_info_dirs(dir, &ec)) {
      it->second.dists.push_back(read_installed_distribution(d));
      for (auto& f : it->second.dists.back().files)
        it->second.owner.emplace(f, it->second.dists.size() - 1);
    }
    return it->second;
  }
  std::map<std::string, SiteOwners> sites_;
};

// "lib/python3.11/site-packages" -> the environment prefix and Python version.
void describe_site(PythonEnv& env, const std::string& site) {
  env.site_packages = site;
  fs::path p(site);
  auto py = p.parent_path().filename().string();
  if (starts_with(py, "python") &&
      (p.filename() == "site-packages" || p.filename() == "dist-packages")) {
    env.python_version = py.substr(6);
    env.prefix = p.parent_path().parent_path().parent_path().string();
    env.kind = "process";
  } else {
    env.prefix = site;
    env.kind = "site-packages";  // no interpreter known: pip commands say plain "pip"
  }
  env.found_by = "loaded by the process";
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s.empty() ? "(none)" : s;
}

// torch's run-time answers against the driver and the loaded libtorch_cuda.so (docs/doctor.md,
// "Checking a running process").
void torch_runtime_rules(ProcessCheck& pc, const Catalog& cat) {
  if (!pc.torch || !pc.gpu) return;
  const TorchRuntime& t = *pc.torch;
  DoctorReport& r = pc.report;
  Rules rules{r, cat, PackageKnowledge::builtin(), {}};
  const Target& gpu = r.targets[*pc.gpu];
  const PythonEnv* torch_env = nullptr;
  for (auto& e : r.envs)
    if (e.torch) torch_env = &e;
  std::string python = torch_env ? python_of(*torch_env) : "";
  std::string subject = torch_env ? torch_env->prefix : "torch";
  std::string torch_line = fmt::format("torch {} (torch.version.cuda {}) in process {}", t.version,
                                       t.cuda.empty() ? "None" : t.cuda, pc.pid);

  // 1. The device's architecture in torch's own arch list, or reachable from an entry.
  if (!t.arch_list.empty()) {
    Fit best_fit = Fit::kNoImage;
    std::string best_entry;
    for (auto& entry : t.arch_list) {
      auto st = SmTarget::parse(entry);
      if (!st || st->kind == ImageKind::kLto) continue;
      auto f = fit_image(*st, gpu.cc, std::nullopt, rules.driver_cuda(), cat).fit;
      if (better(f, best_fit)) {
        best_fit = f;
        best_entry = entry;
      }
    }
    if (as_verdict(best_fit) == Fit::kNoImage) {
      std::string release;
      const TorchChannel* pick = pick_channel(rules.k, t.version, {gpu.cc}, &release);
      rules.add({Severity::kError,
                 "torch-arch-list-excludes-gpu",
                 fmt::format("torch.cuda.get_arch_list() has no code for {} (sm_{}) of device {}: "
                             "\"no kernel image is available\"",
                             gpu.name, gpu.cc.arch(), t.device),
                 {torch_line, "torch.cuda.get_arch_list(): " + joined(t.arch_list),
                  fmt::format("device {}: {} (compute capability {}, from the driver)", t.device,
                              gpu.name, gpu.cc.to_string()),
                  "neither the same major with a lower minor (SASS) nor compute_XY PTX at or "
                  "below it"},
                 pick ? fmt::format("Install torch from the {} channel, whose wheels include {} "
                                    "(torch {} arch list).",
                                    pick->channel, gpu.cc.to_string(), release)
                      : "No published torch channel covers this GPU; build torch from source "
                        "(smcompat build-env --for pytorch).",
                 pick ? std::vector<std::string>{torch_pip_command(rules.k, *pick, python)}
                      : std::vector<std::string>{},
                 subject});
    }
  }
  // 2. What torch is told about the device against the driver's true capability (NVML wins
  // when CUDA's attributes are overridden: ProbeDevice::true_cc()).
  if (t.capability && *t.capability != gpu.cc) {
    rules.add(
        {Severity::kWarning,
         "torch-capability-differs",
         fmt::format("torch reports compute capability {} for device {}, the driver says {} ({})",
                     t.capability->to_string(), t.device, gpu.cc.to_string(), gpu.name),
         {torch_line,
          fmt::format("torch.cuda.get_device_capability({}) = ({}, {})", t.device,
                      t.capability->major, t.capability->minor),
          fmt::format("driver: {} compute capability {} (NVML, the architecture the driver loads "
                      "code for)",
                      gpu.name, gpu.cc.to_string()),
          "a capability override or masquerade (an LD_PRELOAD shim, a patched library) makes CUDA "
          "report another architecture: torch picks kernels for the wrong one"},
         "Remove the override (LD_PRELOAD, the patched library) so that torch sees the real "
         "architecture; if the override was meant as a workaround, install a torch that has code "
         "for this GPU instead.",
         {},
         subject});
  }
  // 3. torch's arch list against the SASS/PTX actually in the loaded libtorch_cuda.so. Only an
  // architecture the list names and the library lacks is a contradiction: official wheels carry
  // more than their list (sm_89, sm_90a, sm_100a, sm_120a... from kernels built for one
  // architecture, e.g. PyPI's torch 2.15.0), so code beyond the list is normal.
  for (auto& lib : pc.libraries) {
    if (!starts_with(fs::path(lib.path).filename().string(), "libtorch_cuda")) continue;
    if (t.arch_list.empty()) break;
    std::set<std::string> listed, found;
    for (auto& e : t.arch_list)
      if (auto st = SmTarget::parse(e)) listed.insert(st->to_string());
    for (auto& st : lib.code.targets)
      if (st.kind != ImageKind::kLto) found.insert(st.to_string());
    std::vector<std::string> only_list, only_lib, l(listed.begin(), listed.end()),
        f(found.begin(), found.end());
    std::set_difference(listed.begin(), listed.end(), found.begin(), found.end(),
                        std::back_inserter(only_list));
    std::set_difference(found.begin(), found.end(), listed.begin(), listed.end(),
                        std::back_inserter(only_lib));
    if (only_list.empty()) break;
    rules.add({Severity::kWarning,
               "torch-arch-list-differs",
               fmt::format("torch.cuda.get_arch_list() names code that {} does not have",
                           fs::path(lib.path).filename().string()),
               {torch_line, "torch.cuda.get_arch_list(): " + joined(l),
                fmt::format("{}: {}", lib.path, joined(f)),
                "listed but not in the library: " + joined(only_list),
                "in the library but not listed (normal: kernels built for one architecture): " +
                    joined(only_lib)},
               "Trust the library's code (it is what loads); a list naming code the library does "
               "not have means a patched or mixed torch installation: reinstall torch from one "
               "channel.",
               {},
               subject});
    break;
  }
  std::stable_sort(r.findings.begin(), r.findings.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
}

}  // namespace

Result<std::vector<MappedFile>> parse_proc_maps(std::string_view text, const std::string& source,
                                                std::vector<Error>* warnings) {
  std::vector<MappedFile> files;
  if (auto nul = text.find('\0'); nul != std::string_view::npos)
    return make_error("a NUL byte: not the text of a maps file", nul).in_file(source);
  std::set<std::string> seen;
  size_t good = 0, bad = 0;
  std::optional<Error> first_bad;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    uint64_t line_offset = pos;
    pos = end + 1;
    if (trim(line).empty()) continue;
    MappedFile m;
    m.line_offset = line_offset;
    if (auto why = parse_maps_line(line, m)) {
      ++bad;
      auto e = make_error("malformed maps line: " + *why, line_offset).in_file(source);
      if (!first_bad) first_bad = e;
      if (warnings) warnings->push_back(std::move(e));
      continue;
    }
    ++good;
    if (m.path.empty()) continue;
    if (seen.insert(m.path).second) files.push_back(std::move(m));
  }
  if (good == 0 && bad > 0) {
    Error e = *first_bad;
    e.what = fmt::format("no line is a maps line ({} malformed); the first: {}", bad, e.what);
    return e;
  }
  return files;
}

Environment parse_environ(std::string_view text) {
  Environment env;
  for (auto entry : split(text, '\0')) {
    auto eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return env;
}

ProcessCheck check_process(const ProcessCheckOptions& options, const Catalog& catalog) {
  ProcessCheck pc;
  pc.pid = options.pid > 0 ? options.pid : static_cast<int>(::getpid());
  pc.torch = options.torch;
  std::string proc_dir = fmt::format("{}/{}", options.proc_root, pc.pid);
  pc.maps = proc_dir + "/maps";

  // The maps file: a process that does not exist (or is not ours to read) ends the check.
  std::string text;
  {
    errno = 0;
    std::ifstream in(pc.maps, std::ios::binary);
    if (!in) {
      pc.errors.push_back(fmt::format("process {}: cannot read {}: {}", pc.pid, pc.maps,
                                      errno ? std::strerror(errno) : "cannot open"));
      return pc;
    }
    char buf[65536];
    constexpr size_t kMaxMaps = 256u << 20;  // a large process has ~10^5 lines of ~100 bytes
    while (text.size() < kMaxMaps && (in.read(buf, sizeof buf), in.gcount() > 0))
      text.append(buf, static_cast<size_t>(in.gcount()));
    if (in.bad()) {
      pc.errors.push_back(fmt::format("process {}: reading {} failed", pc.pid, pc.maps));
      return pc;
    }
  }
  std::vector<Error> warnings;
  auto mapped = parse_proc_maps(text, pc.maps, &warnings);
  if (!mapped) {
    pc.errors.push_back(mapped.error().to_string());
    return pc;
  }
  pc.maps_read = true;
  pc.mapped_files = mapped->size();
  for (auto& w : warnings) pc.errors.push_back(w.to_string());

  // Which mapped files can hold device code: ELF files whose names do not rule it out. A file
  // removed on disk is read through /proc/PID/map_files (the mapping itself), if allowed.
  struct Candidate {
    const MappedFile* mapped;
    std::string readable;  // the path to read
  };
  std::vector<Candidate> candidates;
  std::vector<std::string> paths;
  for (auto& m : *mapped) {
    if (scan_skips_by_name(fs::path(m.path).filename().string())) continue;
    std::string readable = m.deleted ? proc_dir + "/map_files/" + m.address_range : m.path;
    if (!is_elf(readable)) {
      if (m.deleted && is_shared_library_name(m.path))
        pc.errors.push_back(fmt::format(
            "{}: removed on disk after the process loaded it, and {} is not readable; its device "
            "code is not judged",
            m.path, readable));
      continue;
    }
    candidates.push_back({&m, readable});
    paths.push_back(readable);
  }
  ScanOptions scan_options;
  scan_options.jobs = options.jobs;
  scan_options.group_by_record = false;  // owners are found below, for loaded files only
  auto scanned = scan_paths(paths, scan_options);
  std::map<std::string, std::vector<FileInventory>> by_path;
  for (auto& f : scanned.files) by_path[f.inventory.path].push_back(std::move(f.inventory));
  for (auto& e : scanned.errors) pc.errors.push_back(e.to_string());

  // Loaded libraries with device code, and their owners.
  OwnerFinder owners;
  std::map<std::string, size_t> env_of_site;  // site-packages -> index in report.envs
  std::map<std::pair<size_t, std::string>, size_t> package_of;  // (env, dist_info) -> package
  DoctorReport& r = pc.report;
  auto env_for = [&](const std::string& site) -> PythonEnv& {
    auto [it, fresh] = env_of_site.try_emplace(site, r.envs.size());
    if (fresh) {
      r.envs.emplace_back();
      if (site.empty()) {
        r.envs.back().site_packages = "outside any Python distribution";
        r.envs.back().kind = "site-packages";
        r.envs.back().found_by = "loaded by the process";
      } else {
        describe_site(r.envs.back(), site);
      }
    }
    return r.envs[it->second];
  };
  for (auto& c : candidates) {
    auto it = by_path.find(c.readable);
    if (it == by_path.end()) continue;
    auto code = library_code(c.readable, it->second);
    if (code.targets.empty()) continue;  // no device code (and its inventory errors: noise)
    code.path = c.mapped->path;
    for (auto& inv : code.inventories) inv.path = c.mapped->path;
    LoadedLibrary lib;
    lib.path = c.mapped->path;
    lib.deleted = c.mapped->deleted;
    auto [site, dist] = owners.find(c.mapped->path);
    PythonEnv& env = env_for(dist ? site : std::string());
    size_t env_index = env_of_site[dist ? site : std::string()];
    std::string key = dist ? dist->dist_info : lib.path;  // a lone file is its own package
    auto [pit, fresh] = package_of.try_emplace({env_index, key}, env.packages.size());
    if (fresh) {
      PackageCode p;
      if (dist) {
        p.dist = distribution_of(*dist);
        p.dist.shared_libraries.clear();  // only the loaded ones, added below
      } else {
        p.dist.name = fs::path(lib.path).filename().string();
      }
      env.packages.push_back(std::move(p));
    }
    PackageCode& package = env.packages[pit->second];
    package.dist.shared_libraries.push_back(lib.path);
    lib.package = dist ? dist->name : "";
    lib.version = dist ? dist->version : "";
    lib.code = code;
    package.libraries.push_back(std::move(code));
    pc.libraries.push_back(std::move(lib));
  }

  // torch as the doctor knows it: the run-time answers if given, else torch/version.py of the
  // site-packages whose torch is loaded.
  for (auto& e : r.envs) {
    if (!e.find("torch")) continue;
    TorchFacts t;
    std::string vp = (fs::path(e.site_packages) / "torch" / "version.py").string();
    if (auto file = read_file_prefix(vp, 1 << 16)) {
      t = parse_torch_version_py(*file);
      t.version_py = vp;
    }
    if (t.version.empty()) t.version = e.find("torch")->dist.version;
    e.torch = t;
  }
  if (options.torch) {
    PythonEnv* holder = nullptr;
    for (auto& e : r.envs)
      if (e.torch) holder = &e;
    // torch imported, but no library of it with device code loaded: the site-packages that
    // holds torch among those of the loaded libraries, else the files outside any.
    for (auto& e : r.envs) {
      std::error_code ec;
      if (holder || e.kind != "process" ||
          !fs::exists(fs::path(e.site_packages) / "torch" / "version.py", ec))
        continue;
      holder = &e;
      holder->torch = TorchFacts{};
      holder->torch->version_py = (fs::path(e.site_packages) / "torch" / "version.py").string();
    }
    if (!holder) holder = &env_for("");
    TorchFacts t = holder->torch.value_or(TorchFacts{});
    t.version = options.torch->version;
    if (!options.torch->cuda.empty()) t.cuda = Version::parse(options.torch->cuda);
    t.channel = local_version_suffix(t.version);
    holder->torch = t;
  }
  // The companions state their channel in their own version.py (as read_python_env does).
  for (auto& e : r.envs) read_companion_versions(e.site_packages, e.packages);

  // The environment: as given, else the process's own (its CUDA_VISIBLE_DEVICES, LD_LIBRARY_PATH).
  Environment env = options.env;
  if (env.empty()) {
    if (auto file = read_file_prefix(proc_dir + "/environ", 16u << 20)) env = parse_environ(*file);
  }
  for (auto& [n, v] : env)
    if (is_cuda_variable(n)) r.env_vars.emplace_back(n, v);
  // What a rebuild fix needs (the toolkit's nvcc, MAX_JOBS from cores and memory); the toolkit
  // rules themselves do not run here.
  r.toolkits = find_toolkits(env);
  r.host = read_host(env);

  // The driver and the process's GPU: device 0 of the visible ones, or torch's current device.
  if (options.driver) {
    r.driver = *options.driver;
  } else {
    DoctorOptions d;
    d.proc_root = options.proc_root;
    r.driver = collect_driver(d);
  }
  TargetQuery query;
  query.names = options.gpus;
  int device = options.torch ? options.torch->device : 0;
  if (device >= 0 && static_cast<size_t>(device) < r.driver.gpus.size()) {
    auto& g = r.driver.gpus[static_cast<size_t>(device)];
    query.machine.push_back({g.name, g.cc, device});
  } else if (!r.driver.gpus.empty()) {
    pc.errors.push_back(fmt::format("device {} is not among the {} GPUs the driver shows", device,
                                    r.driver.gpus.size()));
  }
  auto resolved = resolve_targets(query, catalog);
  r.targets = std::move(resolved.targets);
  for (auto& e : resolved.errors) r.errors.push_back(e.what);
  if (!r.targets.empty() && r.targets.front().observed) pc.gpu = 0;

  Rules rules{r, catalog, PackageKnowledge::builtin(), {}};
  for (auto& [n, v] : r.env_vars) rules.env[n] = v;
  rules.run_for_process();
  torch_runtime_rules(pc, catalog);
  // A file outside any distribution has no version: "k.so  has no code" reads "k.so has …".
  // Nor can pip reinstall it: the rebuild settings stay, the pip line goes.
  for (auto& f : r.findings) {
    for (size_t at; (at = f.title.find("  ")) != std::string::npos;) f.title.erase(at, 1);
    for (auto& line : f.evidence)
      while (!line.empty() && line.back() == ' ') line.pop_back();
    if (!f.subject.empty() || !starts_with(f.id, "package-")) continue;
    std::erase_if(f.fix_commands,
                  [](const std::string& c) { return c.find(" install ") != std::string::npos; });
    if (!f.fix.empty())
      f.fix += " The file belongs to no Python distribution: rebuild it where it comes from.";
  }

  // Each library's verdict on the process's GPU (else the first target).
  if (!r.targets.empty()) {
    const std::string& gpu = r.targets[pc.gpu.value_or(0)].name;
    for (auto& lib : pc.libraries)
      for (auto& v : r.verdicts)
        if (v.gpu == gpu)
          for (auto& lv : v.libraries)
            if (lv.path == lib.path) lib.verdict = lv;
  }
  return pc;
}

}  // namespace smcompat::doctor
