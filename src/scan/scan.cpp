// Path walking, package grouping and parallel inspection (include/smcompat/scan/scan.hpp).
#include "smcompat/scan/scan.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <unordered_map>

#include "smcompat/scan/wheel.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/host.hpp"
#include "smcompat/util/mapped_file.hpp"
#include "smcompat/util/strings.hpp"
#include "smcompat/util/thread_pool.hpp"

namespace smcompat {

namespace fs = std::filesystem;

namespace {

// Files whose name says they cannot hold object code are not opened (site-packages hold tens of
// thousands of .py files).
bool skip_by_name(std::string_view name) {
  static const char* kText[] = {
      ".py",    ".pyc",  ".pyi", ".pyx",  ".pxd", ".txt",   ".md",    ".rst", ".json", ".yaml",
      ".yml",   ".toml", ".cfg", ".ini",  ".h",   ".hpp",   ".cuh",   ".hxx", ".inl",  ".c",
      ".cc",    ".cpp",  ".cu",  ".html", ".js",  ".css",   ".png",   ".jpg", ".svg",  ".csv",
      ".typed", ".pth",  ".sh",  ".bat",  ".xml", ".proto", ".cmake", ".pc"};
  for (const char* ext : kText)
    if (ends_with(name, ext)) return true;
  return name == "RECORD" || name == "METADATA" || name == "WHEEL" || name == "LICENSE" ||
         name == "INSTALLER" || name == "REQUESTED";
}

}  // namespace

bool scan_skips_by_name(std::string_view file_name) { return skip_by_name(file_name); }

namespace {

struct Candidate {
  std::string path;
  std::string root;  // the scan root it was found under ("" for a path given as a file)
};

struct Walker {
  std::vector<Candidate> files;
  std::vector<Error> errors;
  std::set<std::pair<dev_t, ino_t>> visited_dirs;
  size_t seen = 0, skipped = 0;

  void add_file(const std::string& path, const std::string& root, bool explicit_path) {
    ++seen;
    if (!explicit_path && skip_by_name(fs::path(path).filename().string())) {
      ++skipped;
      return;
    }
    files.push_back({path, root});
  }

  void walk_dir(const std::string& dir, const std::string& root, int depth) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
      errors.push_back(
          make_error(fmt::format("cannot stat directory: {}", std::strerror(errno))).in_file(dir));
      return;
    }
    if (!visited_dirs.insert({st.st_dev, st.st_ino}).second) {
      errors.push_back(make_error("directory already visited through another path (symlink "
                                  "cycle); not descended again")
                           .in_file(dir));
      return;
    }
    if (depth > 64) {
      errors.push_back(
          make_error("directory nesting deeper than 64 levels; not descended").in_file(dir));
      return;
    }
    std::error_code ec;
    fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
      errors.push_back(
          make_error(fmt::format("cannot read directory: {}", ec.message())).in_file(dir));
      return;
    }
    std::vector<std::string> entries;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      entries.push_back(it->path().string());
    }
    std::sort(entries.begin(), entries.end());  // deterministic order
    for (const auto& p : entries) visit(p, root, depth + 1, false);
  }

  void visit(const std::string& path, const std::string& root, int depth, bool explicit_path) {
    struct stat lst {};
    if (::lstat(path.c_str(), &lst) != 0) {
      errors.push_back(
          make_error(fmt::format("cannot access: {}", std::strerror(errno))).in_file(path));
      return;
    }
    struct stat st = lst;
    if (S_ISLNK(lst.st_mode)) {
      if (::stat(path.c_str(), &st) != 0) {
        int err = errno;
        errors.push_back(
            make_error(err == ELOOP ? std::string("symbolic link loop")
                                    : fmt::format("dangling symbolic link: {}", std::strerror(err)))
                .in_file(path));
        return;
      }
    }
    if (S_ISDIR(st.st_mode)) {
      walk_dir(path, root.empty() ? path : root, depth);
    } else if (S_ISREG(st.st_mode)) {
      // A symlink to a regular file under the same root (libfoo.so -> libfoo.so.1) is scanned
      // once: through its target's canonical path.
      if (S_ISLNK(lst.st_mode) && !explicit_path) {
        ++seen;
        ++skipped;
        return;
      }
      add_file(path, root, explicit_path);
    } else if (explicit_path) {
      errors.push_back(make_error("not a regular file or directory").in_file(path));
    }
  }
};

// dist-info RECORD files under a root: relative path -> (distribution, version).
struct DistIndex {
  std::unordered_map<std::string, std::pair<std::string, std::string>> by_path;
  /// By distribution name: what its METADATA and RECORD say of the CUDA runtime it needs.
  std::map<std::string, RuntimeClues> clues;
};

std::pair<std::string, std::string> dist_name_version(const std::string& dist_info_dir) {
  // "torch-2.7.0+cu128.dist-info" -> ("torch", "2.7.0+cu128"); METADATA would also have them.
  std::string base = fs::path(dist_info_dir).filename().string();
  base = base.substr(0, base.size() - std::string(".dist-info").size());
  size_t dash = base.find('-');
  if (dash == std::string::npos) return {base, ""};
  return {base.substr(0, dash), base.substr(dash + 1)};
}

void index_records(const std::string& site, DistIndex& index) {
  for (const auto& dir : dist_info_dirs(site)) {
    auto [name, version] = dist_name_version(dir);
    std::error_code ec;
    InstalledDistribution d = read_installed_distribution(dir);
    for (const auto& file : d.files)
      index.by_path[fs::weakly_canonical(file, ec).string()] = {name, version};
    index.clues[name] = {
        name, host_machine(), std::move(d.requires_dist), bundled_cuda_runtimes(d.files), {}};
  }
}

// Python distributions: index RECORDs of every directory that holds *.dist-info folders and is
// an ancestor of (or equal to) a scanned file's directory.
DistIndex index_distributions(const std::vector<Candidate>& files) {
  DistIndex dists;
  std::set<std::string> indexed;
  for (const auto& c : files) {
    std::error_code ec;
    for (fs::path dir = fs::path(c.path).parent_path(); !dir.empty(); dir = dir.parent_path()) {
      std::string d = fs::weakly_canonical(dir, ec).string();
      if (!indexed.insert(d).second) break;
      bool has_dist = false;
      for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec))
        if (ends_with(it->path().filename().string(), ".dist-info")) {
          has_dist = true;
          break;
        }
      if (has_dist) index_records(d, dists);
      if (dir == dir.parent_path()) break;
    }
  }
  return dists;
}

// Wheel file name: {dist}-{version}(-{build})?-{python}-{abi}-{platform}.whl
std::pair<std::string, std::string> wheel_name_version(const std::string& path) {
  std::string base = fs::path(path).filename().string();
  if (auto name = parse_wheel_name(base)) return {name->name, name->version};
  return {base, ""};
}

}  // namespace

// RECORD is CSV: path,hash,size. Paths with commas or quotes are double-quoted ("" escapes ").
std::string dist_record_path(std::string_view line) {
  if (line.empty()) return {};
  if (line[0] != '"') return std::string(line.substr(0, line.find(',')));
  std::string out;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '"') {
      if (i + 1 < line.size() && line[i + 1] == '"') {
        out += '"';
        ++i;
      } else {
        break;
      }
    } else {
      out += line[i];
    }
  }
  return out;
}

std::vector<std::string> dist_info_dirs(const std::string& dir, std::error_code* error) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code dir_ec;
    if (ends_with(it->path().filename().string(), ".dist-info") &&
        fs::is_directory(it->path(), dir_ec))
      out.push_back(it->path().string());
  }
  if (error) *error = ec;
  std::sort(out.begin(), out.end());
  return out;
}

InstalledDistribution read_installed_distribution(const std::string& dist_info_dir) {
  const fs::path dir(dist_info_dir);
  return parse_installed_distribution(dist_info_dir,
                                      read_file_prefix((dir / "METADATA").string(), 1 << 20),
                                      read_file_prefix((dir / "RECORD").string(), 64 << 20));
}

InstalledDistribution parse_installed_distribution(const std::string& dist_info_dir,
                                                   const std::optional<std::string>& metadata,
                                                   const std::optional<std::string>& record) {
  InstalledDistribution d;
  d.dist_info = dist_info_dir;
  const fs::path dir(dist_info_dir);
  if (metadata) {
    for (auto line : split(*metadata, '\n')) {
      line = trim(line);
      if (line.empty()) break;  // headers end at the first blank line
      if (starts_with(line, "Name:")) d.name = std::string(trim(line.substr(5)));
      if (starts_with(line, "Version:")) d.version = std::string(trim(line.substr(8)));
      if (starts_with(line, "Requires-Dist:")) d.requires_dist.emplace_back(trim(line.substr(14)));
    }
  } else {
    d.warnings.push_back(fmt::format("{}: METADATA missing or unreadable", dist_info_dir));
  }
  if (d.name.empty() || d.version.empty()) {
    auto [name, version] = dist_name_version(dist_info_dir);
    if (d.name.empty()) d.name = name;
    if (d.version.empty()) d.version = version;
  }
  auto site = dir.parent_path();
  if (record) {
    d.has_record = true;
    std::set<std::string> seen;
    for (auto line : split(*record, '\n')) {
      auto rel = dist_record_path(trim(line));
      if (rel.empty()) continue;
      auto abs = fs::path(rel).is_absolute() ? fs::path(rel) : (site / rel).lexically_normal();
      if (seen.insert(abs.string()).second) d.files.push_back(abs.string());
    }
  } else {
    d.warnings.push_back(
        fmt::format("{}: RECORD missing; its files were not inspected", dist_info_dir));
  }
  return d;
}

namespace {

// "nvidia-cuda-runtime-cu12", "nvidia_cuda_runtime_cu12", "nvidia-cuda-runtime": the wheels
// that carry libcudart; their version is the runtime's.
bool is_cuda_runtime_distribution(std::string name) {
  for (auto& c : name) c = (c == '_' || c == '.') ? '-' : static_cast<char>(std::tolower(c));
  return name == "nvidia-cuda-runtime" ||
         std::regex_match(name, std::regex("nvidia-cuda-runtime-cu[0-9]+"));
}

void add_cuda_runtime(ScanReport& report, std::string path, std::string member,
                      std::string_view file_name, const std::string& dist,
                      const std::string& dist_version) {
  auto n = parse_cudart_file_name(file_name);
  if (!n) return;
  CudaRuntimeLibrary lib{std::move(path), std::move(member), n->major, n->version};
  if (!lib.version && !dist_version.empty() && is_cuda_runtime_distribution(dist))
    lib.version = dist_version;
  report.cuda_runtimes.push_back(std::move(lib));
}

std::string base_name(const std::string& p) {
  auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// The CUDA runtime a wheel needs, by the rule the index uses (verdict/runtime_need.hpp), from
// its METADATA, the libcudart it bundles and its device-code members.
RuntimeGuess wheel_runtime(const std::string& path, const WheelFacts& facts,
                           const std::vector<FileInventory>& inventories) {
  std::string file_name = fs::path(path).filename().string();
  auto name = parse_wheel_name(file_name);
  RuntimeClues clues;
  clues.package = name ? name->name : file_name;
  clues.machine = name ? machine_of(name->platform) : "any";
  clues.requires_dist = facts.requires_dist;
  clues.runtime_libraries = bundled_cuda_runtimes(facts.member_paths);
  for (const auto& inv : inventories)
    if (!inv.member.empty() && !inv.images.empty()) clues.library_paths.push_back(inv.member);
  return infer_cuda_runtime(clues);
}

// One file (or member) on its way into the report, with the package it belongs to.
struct Grouped {
  FileInventory inventory;
  std::string package, version, kind;
};

class ReportBuilder {
 public:
  ReportBuilder(ScanReport& report, const ScanOptions& options)
      : report_(report), options_(options) {}
  void add(Grouped&& g) {
    ScannedFile sf;
    sf.package = g.package;
    sf.inventory = std::move(g.inventory);
    auto [it, inserted] = package_index_.try_emplace(g.package, report_.packages.size());
    if (inserted) {
      PackageSummary p;
      p.name = g.package;
      p.version = g.version;
      p.kind = g.kind;
      report_.packages.push_back(std::move(p));
    }
    report_.packages[it->second].files.push_back(report_.files.size());
    report_.files.push_back(std::move(sf));
  }

 private:
  ScanReport& report_;
  const ScanOptions& options_;
  std::map<std::string, size_t> package_index_;
};

// The files of container images: dist-info texts kept, other wanted files inventoried as they
// arrive (one file's bytes at a time).
class ImageCollector : public ImageFileVisitor {
 public:
  struct PerImage {
    std::map<std::string, std::optional<std::string>> metadata, record;  // by .dist-info dir
    std::vector<std::pair<std::string, std::vector<FileInventory>>> files;
    std::vector<std::string> cudart;
    uint64_t bytes = 0;
    size_t seen = 0, skipped = 0;
  };
  ImageCollector(std::string path, InspectOptions inspect)
      : path_(std::move(path)), inspect_(std::move(inspect)) {}

  bool want(size_t image, const std::string& member, uint64_t) override {
    PerImage& im = at(image);
    std::string base = base_name(member);
    if (parse_cudart_file_name(base)) im.cudart.push_back(member);
    if (auto d = dist_info_of(member)) {
      auto& slot = base == "METADATA" ? im.metadata : im.record;
      slot.try_emplace(*d);
      return true;
    }
    ++im.seen;
    if (scan_skips_by_name(base)) {
      ++im.skipped;
      return false;
    }
    return true;
  }
  void file(size_t image, const std::string& member, ByteView bytes, Backing backing) override {
    PerImage& im = at(image);
    if (auto d = dist_info_of(member)) {
      auto& slot = base_name(member) == "METADATA" ? im.metadata : im.record;
      slot[*d] = std::string(bytes.as_string_view().substr(0, 64 << 20));
      return;
    }
    im.bytes += bytes.size();
    im.files.emplace_back(member, inspect_member(bytes, path_, member, inspect_, backing));
  }
  void file_error(size_t image, const std::string& member, Error error) override {
    if (dist_info_of(member)) return;  // RECORD unreadable: files fall back to folders
    FileInventory inv;
    inv.path = path_;
    inv.member = member;
    inv.errors.push_back(std::move(error.in_file(path_ + "!" + member)));
    at(image).files.emplace_back(member, std::vector<FileInventory>{std::move(inv)});
  }
  std::vector<PerImage>& images() { return images_; }

 private:
  PerImage& at(size_t image) {
    if (images_.size() <= image) images_.resize(image + 1);
    return images_[image];
  }
  // "…/x.dist-info" for "…/x.dist-info/METADATA" or "…/RECORD".
  static std::optional<std::string> dist_info_of(const std::string& member) {
    std::string base = base_name(member);
    if (base != "METADATA" && base != "RECORD") return std::nullopt;
    std::string dir =
        member.size() > base.size() ? member.substr(0, member.size() - base.size() - 1) : "";
    if (!ends_with(dir, ".dist-info") || dir.find(".dist-info/") != std::string::npos)
      return std::nullopt;
    return dir;
  }

  std::string path_;
  InspectOptions inspect_;
  std::vector<PerImage> images_;
};

void scan_image(const std::string& path, const ScanOptions& options, ScanReport& report,
                ReportBuilder& builder) {
  InspectOptions inner = options.inspect;
  inner.jobs = options.jobs ? options.jobs : default_jobs();
  ImageCollector collector(path, inner);
  ImageReadOptions read;
  read.max_file_bytes = options.inspect.max_member_bytes;
  ImageReadResult r = read_container_image(path, collector, read);
  for (auto& e : r.errors) report.errors.push_back(std::move(e));
  for (auto& e : r.warnings) report.warnings.push_back(std::move(e));
  auto& per = collector.images();
  per.resize(r.images.size());
  for (size_t i = 0; i < r.images.size(); ++i) {
    auto& im = per[i];
    report.files_seen += im.seen;
    report.files_skipped += im.skipped;
    report.bytes_scanned += im.bytes;
    // The image's own distributions, by RECORD (paths relative to the site directory).
    std::unordered_map<std::string, std::pair<std::string, std::string>> owner;
    std::set<std::string> dist_dirs;
    for (const auto& [d, _] : im.metadata) dist_dirs.insert(d);
    for (const auto& [d, _] : im.record) dist_dirs.insert(d);
    for (const auto& d : dist_dirs) {
      auto meta = im.metadata.count(d) ? im.metadata[d] : std::nullopt;
      auto rec = im.record.count(d) ? im.record[d] : std::nullopt;
      auto dist = parse_installed_distribution(d, meta, rec);
      for (const auto& f : dist.files)
        if (auto n = normalize_image_path(f)) owner[*n] = {dist.name, dist.version};
    }
    for (const auto& m : im.cudart) {
      auto it = owner.find(m);
      add_cuda_runtime(report, path, m, base_name(m), it == owner.end() ? "" : it->second.first,
                       it == owner.end() ? "" : it->second.second);
    }
    std::sort(im.files.begin(), im.files.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [member, invs] : im.files) {
      for (auto& inv : invs) {
        if (inv.images.empty() && inv.errors.empty()) continue;  // as in a directory walk
        Grouped g{std::move(inv), {}, {}, {}};
        if (auto it = owner.find(member); it != owner.end()) {
          g.package = it->second.first;
          g.version = it->second.second;
          g.kind = "python-distribution";
        } else if (auto slash = member.find('/'); slash != std::string::npos) {
          g.package = member.substr(0, slash);
          g.kind = "directory";
        } else {
          g.package = member;
          g.kind = "file";
        }
        builder.add(std::move(g));
      }
    }
    report.images.push_back(std::move(r.images[i]));
  }
}

}  // namespace

ScanReport scan_paths(const std::vector<std::string>& paths, const ScanOptions& options) {
  ScanReport report;
  Walker walker;
  std::vector<std::string> images;
  for (const auto& p : paths) {
    if (sniff_container_image(p))
      images.push_back(p);
    else
      walker.visit(p, "", 0, true);
  }
  report.errors = std::move(walker.errors);
  report.files_seen = walker.seen;
  report.files_skipped = walker.skipped;

  DistIndex dists;
  if (options.group_by_record) dists = index_distributions(walker.files);

  // Inspect files in parallel; a single large file gets the cores for its deep decode instead.
  std::vector<std::vector<FileInventory>> results(walker.files.size());
  unsigned jobs = options.jobs ? options.jobs : default_jobs();
  InspectOptions inner = options.inspect;
  inner.jobs = walker.files.size() == 1 ? jobs : 1;
  std::mutex progress_mu;
  ScanProgress progress;
  progress.files_total = walker.files.size();
  parallel_for(walker.files.size(), walker.files.size() == 1 ? 1 : jobs, [&](size_t i) {
    results[i] = inspect_file(walker.files[i].path, inner);
    if (options.progress) {
      std::lock_guard<std::mutex> lock(progress_mu);
      progress.files_done++;
      progress.bytes_done += results[i].empty() ? 0 : results[i].front().size;
      progress.current = walker.files[i].path;
      options.progress(progress);
    }
  });

  ReportBuilder builder(report, options);
  std::map<std::string, RuntimeGuess> runtimes;  // by package: what its wheel says it needs
  for (size_t i = 0; i < walker.files.size(); ++i) {
    const Candidate& c = walker.files[i];
    std::error_code ec;
    std::string canon = fs::weakly_canonical(c.path, ec).string();
    auto owner = dists.by_path.find(canon);
    std::string file_name = fs::path(c.path).filename().string();
    if (owner != dists.by_path.end())
      add_cuda_runtime(report, c.path, "", file_name, owner->second.first, owner->second.second);
    else
      add_cuda_runtime(report, c.path, "", file_name, "", "");
    if (ends_with(c.path, ".whl")) {
      auto [wheel, wheel_version] = wheel_name_version(c.path);
      WheelFacts facts;
      if (auto mapped = MappedFile::open(c.path)) facts = read_wheel_facts(mapped->view());
      for (const auto& m : facts.member_paths)
        add_cuda_runtime(report, c.path, m, base_name(m), wheel, wheel_version);
      runtimes[wheel] = wheel_runtime(c.path, facts, results[i]);
    }
    for (auto& inv : results[i]) {
      if (inv.member.empty()) report.bytes_scanned += inv.size;
      bool unknown_top = inv.member.empty() && inv.format == FileFormat::kUnknown;
      if (unknown_top && inv.errors.empty()) continue;  // not object code
      if (inv.images.empty() && inv.errors.empty() && !c.root.empty())
        continue;  // object code without device code, found by a directory walk
      if (inv.images.empty() && inv.errors.empty() && inv.member.empty() &&
          (inv.format == FileFormat::kZip || inv.format == FileFormat::kArchive))
        continue;  // the wheel or archive itself: its members are the files
      Grouped g{std::move(inv), {}, {}, {}};
      if (owner != dists.by_path.end()) {
        g.package = owner->second.first;
        g.version = owner->second.second;
        g.kind = "python-distribution";
      } else if (ends_with(c.path, ".whl")) {
        std::tie(g.package, g.version) = wheel_name_version(c.path);
        g.kind = "wheel";
      } else if (!c.root.empty()) {
        // The top-level folder under the scan root, or the file itself at the root's top.
        fs::path rel = fs::path(c.path).lexically_relative(c.root);
        auto first = rel.begin();
        if (first != rel.end() && std::next(first) != rel.end()) {
          g.package = first->string();
          g.kind = "directory";
        } else {
          g.package = file_name;
          g.kind = "file";
        }
      } else {
        g.package = file_name;
        g.kind = "file";
      }
      builder.add(std::move(g));
    }
  }
  for (const auto& p : images) scan_image(p, options, report, builder);
  for (auto& p : report.packages) {
    if (auto it = runtimes.find(p.name); it != runtimes.end()) {
      p.runtime = it->second;
    } else if (auto c = dists.clues.find(p.name); c != dists.clues.end()) {
      RuntimeClues clues = c->second;  // an installed distribution, as the doctor reads it
      for (size_t fi : p.files) clues.library_paths.push_back(report.files[fi].inventory.path);
      p.runtime = infer_cuda_runtime(clues);
    }
  }

  for (auto& p : report.packages) {
    std::set<SmTarget> targets;  // distinct targets across the package's files, in arch order
    for (size_t fi : p.files) {
      const auto& f = report.files[fi];
      p.images += f.inventory.images.size();
      p.errors += f.inventory.errors.size();
      for (const auto& img : f.inventory.images) targets.insert(img.target);
    }
    for (const auto& t : targets) {
      auto& list = t.kind == ImageKind::kSass  ? p.sass_targets
                   : t.kind == ImageKind::kPtx ? p.ptx_targets
                                               : p.lto_targets;
      list.push_back(t.to_string());
    }
  }
  if (options.target) judge_report(report, *options.target);
  return report;
}

void judge_report(ScanReport& report, const Target& target) {
  for (auto& f : report.files) f.verdict = judge_file(f.inventory, target);
  for (auto& p : report.packages) {
    p.resource_warnings = 0;
    p.partial = false;
    p.verdict.reset();
    // One roll-up for scan, advise and the doctor (verdict/package.hpp).
    std::vector<PackageLibrary> libraries;
    for (size_t fi : p.files) {
      const auto& f = report.files[fi];
      p.resource_warnings += f.verdict->resource_warnings.size();
      if (f.verdict->partial) p.partial = true;
      libraries.push_back(
          {f.inventory.member.empty() ? f.inventory.path : f.inventory.member, *f.verdict});
    }
    PackageFit fit = judge_package(libraries, {p.name, runtime_need(p.runtime), ""}, target);
    if (fit.has_device_code) p.verdict = fit.fit;
    p.fit = std::move(fit);
  }
}

}  // namespace smcompat
