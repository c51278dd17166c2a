#include "smcompat/fleet/fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <utility>

#include "fleet_findings.hpp"
#include "smcompat/binary/inventory.hpp"
#include "smcompat/catalog/catalog.hpp"
#include "smcompat/util/json_fields.hpp"
#include "smcompat/util/json_read.hpp"
#include "smcompat/util/mapped_file.hpp"
#include "smcompat/verdict/package.hpp"
#include "smcompat/verdict/runtime_need.hpp"
#include "smcompat/verdict/targets.hpp"
#include "smcompat/verdict/verdict.hpp"

namespace smcompat::fleet {
namespace {

using doctor::Finding;
using doctor::Severity;
using nlohmann::json;

// A report larger than this is not one smcompat wrote (a torch wheel's scan is ~20 MB).
constexpr uint64_t kMaxReportBytes = 512ull << 20;

struct Document {
  json doc;
  std::string kind;  // probe, doctor, scan
};

Result<Document> read_report(const std::string& path) {
  auto mapped = MappedFile::open(path);
  if (!mapped) return Error(mapped.error()).in_file(path);
  if (mapped->size() > kMaxReportBytes)
    return make_error(fmt::format("report is {} bytes, above the {}-byte limit for one report",
                                  mapped->size(), kMaxReportBytes))
        .in_file(path);
  if (mapped->size() == 0) return make_error("empty file", 0).in_file(path);
  ByteView bytes = mapped->view();
  const auto* begin = reinterpret_cast<const char*>(bytes.data());
  SMCOMPAT_TRY(json doc, parse_json_document(std::string_view(begin, bytes.size()), path));
  if (!doc.is_object())
    return make_error("not a report: the document is not a JSON object", 0).in_file(path);
  std::string schema = json_string(doc, "schema");
  if (schema.empty()) return make_error("not a report: no \"schema\" field", 0).in_file(path);
  auto kind = report_kind(schema);
  if (!kind) return Error(kind.error()).in_file(path);
  return Document{std::move(doc), *kind};
}

std::string stem_of(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  if (name.size() > 5 && name.ends_with(".json")) name.resize(name.size() - 5);
  return name;
}

std::optional<Version> cuda_of(const json& v) {
  if (v.is_number_integer()) return Version::from_cuda_int(v.get<int>());
  if (v.is_string()) return Version::parse(v.get<std::string>());
  return std::nullopt;
}

std::string model_name(const std::string& catalog_name, const std::string& driver_name) {
  if (!catalog_name.empty()) return catalog_name;
  // The driver's name for a GPU the catalog does not know ("NVIDIA Foo"): as given.
  return driver_name.empty() ? "unknown GPU" : driver_name;
}

void read_probe(Node& node, const json& doc) {
  node.driver_state = json_string(doc, "status");
  node.driver_detail = json_string(doc, "explanation");
  node.driver_version = json_string(doc, "driver_version");
  node.driver_cuda = std::nullopt;
  if (doc.contains("cuda_driver_version")) node.driver_cuda = cuda_of(doc["cuda_driver_version"]);
  node.gpus.clear();
  if (doc.contains("devices") && doc["devices"].is_array()) {
    for (const auto& d : doc["devices"]) {
      if (!d.is_object()) continue;
      NodeGpu g;
      g.model = model_name(json_string(d, "catalog_gpu"), json_string(d, "name"));
      // Under a capability override CUDA reports the fake one; NVML tells the truth, and code
      // is loaded for the real architecture.
      bool masquerade =
          d.contains("masquerade") && d["masquerade"].is_boolean() && d["masquerade"].get<bool>();
      g.cc = masquerade && !json_string(d, "nvml_cc").empty() ? json_string(d, "nvml_cc")
                                                              : json_string(d, "cc");
      if (d.contains("memory_bytes") && d["memory_bytes"].is_number_unsigned())
        g.memory_bytes = d["memory_bytes"].get<uint64_t>();
      node.gpus.push_back(std::move(g));
    }
  }
  node.topology_known = false;
  node.gpu_pairs = node.p2p_pairs = node.nvlink_pairs = 0;
  if (!doc.contains("topology") || !doc["topology"].is_object()) return;
  const json& topo = doc["topology"];
  const size_t n = node.gpus.size();
  auto matrix_ok = [&](const char* key) {
    if (!topo.contains(key) || !topo[key].is_array() || topo[key].size() != n) return false;
    for (const auto& row : topo[key])
      if (!row.is_array() || row.size() != n) return false;
    return true;
  };
  if (!matrix_ok("p2p_access")) return;
  node.topology_known = true;
  const json& p2p = topo["p2p_access"];
  bool links = matrix_ok("nvlink_links");
  auto yes = [](const json& v) { return v.is_boolean() && v.get<bool>(); };
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      ++node.gpu_pairs;
      if (yes(p2p[i][j]) && yes(p2p[j][i])) ++node.p2p_pairs;
      if (links) {
        const json& l = topo["nvlink_links"][i][j];
        if (l.is_number_integer() && l.get<int64_t>() > 0) ++node.nvlink_pairs;
      }
    }
}

void read_doctor(Node& node, const json& doc, bool have_probe) {
  node.doctor_known = true;
  node.doctor_findings.clear();
  if (doc.contains("findings") && doc["findings"].is_array()) {
    for (const auto& f : doc["findings"]) {
      if (!f.is_object()) continue;
      auto sev = doctor::parse_severity(json_string(f, "severity"));
      std::string id = json_string(f, "id");
      if (!sev || id.empty()) continue;
      node.doctor_findings.push_back(Finding{*sev, id, json_string(f, "title"), {}, {}, {}, {}});
    }
  }
  // The probe's report is the fuller account of the driver and GPUs; the doctor's stands in.
  if (have_probe || !doc.contains("driver") || !doc["driver"].is_object()) return;
  const json& d = doc["driver"];
  node.driver_state = json_string(d, "state");
  node.driver_detail = json_string(d, "detail");
  node.driver_version = json_string(d, "version");
  node.driver_cuda = d.contains("cuda") ? cuda_of(d["cuda"]) : std::nullopt;
  node.gpus.clear();
  if (d.contains("gpus") && d["gpus"].is_array())
    for (const auto& g : d["gpus"])
      if (g.is_object())
        node.gpus.push_back(
            NodeGpu{model_name(json_string(g, "name"), ""), json_string(g, "cc"), 0});
}

// ---- scans: the inventory back from the JSON, as judge_file needs it -----------------------

uint64_t uint_field(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number_unsigned() ? j[key].get<uint64_t>() : 0;
}
bool bool_field(const json& j, const char* key) {
  return j.contains(key) && j[key].is_boolean() && j[key].get<bool>();
}

/// The file's images and containers from its `entries` (in inventory order: a container's
/// images are contiguous). Entries whose target cannot be read are left out.
FileInventory inventory_from_json(const json& file) {
  FileInventory inv;
  inv.path = json_string(file, "path");
  inv.member = json_string(file, "member");
  if (!file.contains("entries") || !file["entries"].is_array()) return inv;
  for (const auto& e : file["entries"]) {
    if (!e.is_object()) continue;
    auto target = SmTarget::parse(json_string(e, "target"));
    if (!target) continue;
    DeviceImage img;
    img.target = *target;
    img.section = json_string(e, "section");
    img.container_offset = uint_field(e, "container_offset");
    img.entry_offset = uint_field(e, "entry_offset");
    img.in_container = !e.contains("in_container") || bool_field(e, "in_container");
    img.relocatable = bool_field(e, "relocatable");
    if (auto v = json_string(e, "ptx_version"); !v.empty()) img.ptx_version = Version::parse(v);
    if (e.contains("kernel_count") && e["kernel_count"].is_number_unsigned() &&
        e["kernel_count"].get<uint64_t>() <= UINT32_MAX)
      img.kernels = static_cast<uint32_t>(e["kernel_count"].get<uint64_t>());
    if (img.in_container) {
      bool same = !inv.containers.empty() && inv.containers.back().section == img.section &&
                  inv.containers.back().offset == img.container_offset;
      if (!same)
        inv.containers.push_back(ContainerInfo{img.section, img.container_offset, 0,
                                               inv.images.size(), 0,
                                               img.section == "__nv_relfatbin"});
      ++inv.containers.back().image_count;
    }
    inv.images.push_back(std::move(img));
  }
  // The scan's own container list, when it has one, replaces the containers inferred from the
  // entries: it holds the empty ones too (an -rdc library's empty .nv_fatbin decides whether the
  // runtime's JIT link applies).
  if (file.contains("container_list") && file["container_list"].is_array()) {
    std::vector<ContainerInfo> listed;
    for (const auto& c : file["container_list"]) {
      if (!c.is_object()) return inv;
      ContainerInfo info{json_string(c, "section"), uint_field(c, "offset"),
                         uint_field(c, "size"),     uint_field(c, "first_image"),
                         uint_field(c, "images"),   bool_field(c, "relocatable")};
      // Indices must stay inside the entries read (no sum that can wrap), else the inferred
      // list stands.
      if (info.first_image > inv.images.size() ||
          info.image_count > inv.images.size() - info.first_image)
        return inv;
      listed.push_back(std::move(info));
    }
    inv.containers = std::move(listed);
  }
  return inv;
}

std::string display_name(const json& file) {
  std::string path = json_string(file, "path");
  std::string member = json_string(file, "member");
  return member.empty() ? path : path + "!" + member;
}

/// The directory all paths share ("/opt/venv/lib/python3.12/site-packages"), or the one path.
std::string common_path(const std::vector<std::string>& paths) {
  if (paths.empty()) return {};
  std::string prefix = paths.front();
  for (const auto& p : paths) {
    size_t n = 0;
    while (n < prefix.size() && n < p.size() && prefix[n] == p[n]) ++n;
    prefix.resize(n);
  }
  bool all_same = std::all_of(paths.begin(), paths.end(), [&](auto& p) { return p == prefix; });
  if (!all_same) {
    auto slash = prefix.rfind('/');
    prefix = slash == std::string::npos ? std::string() : prefix.substr(0, slash == 0 ? 1 : slash);
  }
  return prefix.empty() ? std::string("(several paths)") : prefix;
}

/// A class of nodes: same GPU model, architecture and driver CUDA version.
struct NodeClass {
  std::string model, cc;
  std::optional<Version> driver_cuda;
  std::optional<Target> target;  // unset when the architecture cannot be read
  std::vector<std::string> hosts;
};

std::vector<NodeClass> node_classes(const std::vector<Node>& nodes) {
  std::map<std::tuple<std::string, std::string, int>, NodeClass> by_key;
  for (const auto& n : nodes) {
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto& g : n.gpus) {
      if (!seen.insert({g.model, g.cc}).second) continue;
      int cuda = n.driver_cuda ? n.driver_cuda->to_cuda_int() : 0;
      auto& c = by_key[{g.model, g.cc, cuda}];
      if (c.hosts.empty()) {
        c.model = g.model;
        c.cc = g.cc;
        c.driver_cuda = n.driver_cuda;
        if (auto cc = ComputeCapability::parse(g.cc)) {
          Target t;
          t.cc = *cc;
          t.driver_cuda = n.driver_cuda;
          t.name = g.model;
          t.label = fmt::format("{} ({})", g.model, g.cc);
          c.target = t;
        }
      }
      c.hosts.push_back(n.host);
    }
  }
  std::vector<NodeClass> out;
  for (auto& [k, c] : by_key) out.push_back(std::move(c));
  return out;
}

int fail_rank(Fit f) { return rank(f); }

/// Judges one scan document against every node class; one Image per scanned image (an OCI or
/// docker archive) and one for the other files.
std::vector<Image> judge_scan(const json& doc, const std::string& report,
                              const std::vector<NodeClass>& classes) {
  struct Subject {
    Image image;
    std::vector<FileInventory> files;
    std::vector<std::string> names;
    std::vector<std::string> paths;
    std::vector<std::string> packages;  // per file: the scan's package, for the roll-up
    std::vector<std::string> members;   // per file: the member (or path) role patterns match
  };
  std::map<std::string, size_t> image_of_path;  // image path -> subject
  std::vector<Subject> subjects;
  if (doc.contains("images") && doc["images"].is_array()) {
    for (const auto& im : doc["images"]) {
      if (!im.is_object()) continue;
      std::string path = json_string(im, "path");
      if (path.empty() || image_of_path.count(path)) continue;
      Subject s;
      std::string ref = json_string(im, "reference");
      s.image.name = ref.empty() ? path : ref;
      image_of_path[path] = subjects.size();
      subjects.push_back(std::move(s));
    }
  }
  std::optional<size_t> rest;  // files of no image
  if (doc.contains("files") && doc["files"].is_array()) {
    for (const auto& f : doc["files"]) {
      if (!f.is_object()) continue;
      FileInventory inv = inventory_from_json(f);
      // Only kernel-less images (libcufftw): nothing to launch, no file with code.
      if (std::all_of(inv.images.begin(), inv.images.end(),
                      [](const DeviceImage& img) { return img.kernelless(); }))
        continue;
      size_t s;
      if (auto it = image_of_path.find(inv.path); it != image_of_path.end()) {
        s = it->second;
      } else {
        if (!rest) {
          rest = subjects.size();
          subjects.emplace_back();
        }
        s = *rest;
      }
      subjects[s].paths.push_back(inv.path);
      subjects[s].names.push_back(display_name(f));
      subjects[s].packages.push_back(json_string(f, "package"));
      subjects[s].members.push_back(inv.member.empty() ? inv.path : inv.member);
      subjects[s].files.push_back(std::move(inv));
    }
  }
  std::vector<std::string> runtimes;
  std::optional<int> runtime_major;
  if (doc.contains("cuda_runtimes") && doc["cuda_runtimes"].is_array()) {
    for (const auto& r : doc["cuda_runtimes"]) {
      if (!r.is_object()) continue;
      int major = r.contains("major") && r["major"].is_number_integer() ? r["major"].get<int>() : 0;
      if (major <= 0) continue;
      std::string v = json_string(r, "version");
      std::string shown = v.empty() ? std::to_string(major) : v;
      if (std::find(runtimes.begin(), runtimes.end(), shown) == runtimes.end())
        runtimes.push_back(shown);
      runtime_major = std::max(runtime_major.value_or(0), major);
    }
  }
  // What each package needs of the CUDA runtime, as the scan read it (`cuda_runtime`).
  std::map<std::string, std::optional<RuntimeNeed>> needs;
  if (doc.contains("packages") && doc["packages"].is_array())
    for (const auto& p : doc["packages"])
      if (p.is_object() && p.contains("cuda_runtime") && p["cuda_runtime"].is_object())
        needs[json_string(p, "name")] = runtime_need(
            {json_string(p["cuda_runtime"], "cuda"), json_string(p["cuda_runtime"], "evidence")});
  std::string host = json_string(doc, "hostname");
  std::vector<Image> out;
  for (auto& s : subjects) {
    if (s.files.empty()) continue;
    Image& im = s.image;
    if (im.name.empty()) im.name = common_path(s.paths);
    im.report = report;
    im.scanned_on = host;
    im.files_with_code = s.files.size();
    im.cuda_runtimes = runtimes;
    std::map<std::string, int> host_worst;  // host -> worst rank (5 = the runtime is too new)
    for (const auto& c : classes) {
      if (!c.target) continue;
      ImageOnClass r;
      r.model = c.model;
      r.cc = c.cc;
      r.driver_cuda = c.driver_cuda;
      r.hosts = c.hosts;
      // Per package, the one roll-up scan, advise and the doctor use (judge_package): the
      // libraries that load on this class's GPU decide; the image is its worst package.
      std::map<std::string, std::vector<size_t>> files_of;  // package -> file indices
      std::vector<std::optional<FileVerdict>> verdicts(s.files.size());
      for (size_t i = 0; i < s.files.size(); ++i) {
        FileVerdict v = judge_file(s.files[i], *c.target);
        if (!v.has_device_code) continue;
        ++r.files[static_cast<size_t>(v.verdict)];
        verdicts[i] = std::move(v);
        files_of[s.packages[i]].push_back(i);
      }
      for (const auto& [package, indices] : files_of) {
        std::vector<PackageLibrary> libraries;
        for (size_t i : indices) libraries.push_back({s.members[i], *verdicts[i]});
        auto need = needs.find(package);
        PackageFit p = judge_package(
            libraries, {package, need == needs.end() ? std::nullopt : need->second, ""}, *c.target);
        // The fleet tells the hosts where code JITs: "native; 3 units in 1 library JIT" is one.
        bool runs = runs_natively(p.fit);
        r.verdict = worse(r.verdict, runs && p.jit_units > 0 ? Fit::kPtxJit : p.fit);
        for (size_t k = 0; k < indices.size(); ++k) {
          const JudgedLibrary& l = p.libraries[k];
          if (!l.decides) continue;
          const std::string& name = s.names[indices[k]];
          if (l.fit == Fit::kNoImage || l.fit == Fit::kUnsupportedPtx ||
              l.fit == Fit::kDriverTooOld) {
            if (r.failing_files.size() < kNamedFiles) r.failing_files.push_back(name);
          } else if (l.fit == Fit::kPtxJit && r.jit_files.size() < kNamedFiles) {
            r.jit_files.push_back(name);
          }
        }
      }
      if (runtime_major && c.driver_cuda && c.driver_cuda->major < *runtime_major)
        r.runtime_too_new = *runtime_major;
      int worst = r.runtime_too_new ? 99 : fail_rank(r.verdict);
      for (const auto& h : c.hosts) {
        auto [it, fresh] = host_worst.emplace(h, worst);
        if (!fresh) it->second = std::max(it->second, worst);
      }
      im.classes.push_back(std::move(r));
    }
    for (auto& [h, worst] : host_worst) {
      if (worst >= fail_rank(Fit::kUnsupportedPtx))
        im.hosts_failing.push_back(h);
      else if (worst == fail_rank(Fit::kPtxJit))
        im.hosts_jit.push_back(h);
      else
        im.hosts_native.push_back(h);
    }
    out.push_back(std::move(im));
  }
  return out;
}

}  // namespace

bool HostOrder::operator()(const std::string& a, const std::string& b) const {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t i0 = i, j0 = j;
      while (i < a.size() && a[i] == '0') ++i;
      while (j < b.size() && b[j] == '0') ++j;
      size_t is = i, js = j;
      while (i < a.size() && std::isdigit(static_cast<unsigned char>(a[i]))) ++i;
      while (j < b.size() && std::isdigit(static_cast<unsigned char>(b[j]))) ++j;
      std::string_view da(a.data() + is, i - is), db(b.data() + js, j - js);
      if (da.size() != db.size()) return da.size() < db.size();
      if (da != db) return da < db;
      if (i - i0 != j - j0) return i - i0 < j - j0;  // "01" after "1"
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

size_t FleetReport::count(Severity s) const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(),
                                           [&](const auto& f) { return f.finding.severity == s; }));
}

Result<std::string> report_kind(const std::string& schema) {
  if (schema == "smcompat.probe/1") return std::string("probe");
  if (schema == "smcompat.doctor/1") return std::string("doctor");
  if (schema == "smcompat.scan/1" || schema == "smcompat.scan/2") return std::string("scan");
  return make_error(fmt::format("schema \"{}\" is not one fleet merge reads (smcompat.probe/1, "
                                "smcompat.doctor/1, smcompat.scan/1 or /2)",
                                schema),
                    0);
}

FleetReport merge_reports(const std::vector<std::string>& files, const MergeOptions& options) {
  FleetReport r;
  r.reports_read = files.size();
  std::map<std::string, Node, HostOrder> nodes;
  std::map<std::string, std::set<std::string>> kinds_of;                  // host -> kinds read
  std::map<std::string, std::vector<std::string>, HostOrder> duplicates;  // "host\nkind" -> files
  std::vector<std::string> scans;

  // Pass 1: node reports, reduced to a Node each; scans are only noted.
  for (const auto& path : files) {
    auto doc = read_report(path);
    if (!doc) {
      ++r.reports_failed;
      Node& n = nodes[stem_of(path)];
      if (n.host.empty()) {
        n.host = stem_of(path);
        n.host_from_file_name = true;
      }
      n.reports.push_back(path);
      n.errors.push_back(doc.error());
      continue;
    }
    if (doc->kind == "scan") {
      scans.push_back(path);
      continue;
    }
    std::string host = json_string(doc->doc, "hostname");
    bool from_file = host.empty();
    if (from_file) host = stem_of(path);
    Node& n = nodes[host];
    if (n.host.empty()) {
      n.host = host;
      n.host_from_file_name = from_file;
    }
    n.reports.push_back(path);
    kinds_of[host].insert(doc->kind);
    auto& same_kind = duplicates[host + "\n" + doc->kind];
    same_kind.push_back(path);
    if (doc->kind == "probe")
      read_probe(n, doc->doc);
    else
      read_doctor(n, doc->doc, kinds_of[host].count("probe") > 0);
  }
  for (auto& [h, n] : nodes) r.nodes.push_back(std::move(n));

  // Models and drivers.
  std::map<std::pair<std::string, std::string>, ModelSummary> models;
  std::map<std::pair<std::string, std::string>, std::map<std::string, size_t>> model_drivers;
  std::map<std::string, DriverSummary> drivers;
  for (const auto& n : r.nodes) {
    if (n.gpus.empty() && n.driver_version.empty()) continue;
    auto& d = drivers[n.driver_version];
    d.driver_version = n.driver_version;
    d.driver_cuda = n.driver_cuda;
    ++d.nodes;
    std::set<std::pair<std::string, std::string>> on_node;
    for (const auto& g : n.gpus) {
      auto key = std::make_pair(g.model, g.cc);
      auto& m = models[key];
      m.model = g.model;
      m.cc = g.cc;
      ++m.gpus;
      if (on_node.insert(key).second) {
        ++m.nodes;
        ++model_drivers[key][n.driver_version];
        if (std::find(d.models.begin(), d.models.end(), g.model) == d.models.end())
          d.models.push_back(g.model);
      }
    }
  }
  auto by_driver_version = [](const std::string& a, const std::string& b) {
    auto va = DriverVersion::parse(a), vb = DriverVersion::parse(b);
    if (va && vb) return *va < *vb;
    return a < b;
  };
  for (auto& [key, m] : models) {
    for (auto& dv : model_drivers[key]) m.drivers.push_back(dv);
    std::sort(m.drivers.begin(), m.drivers.end(),
              [&](auto& a, auto& b) { return by_driver_version(a.first, b.first); });
    r.models.push_back(std::move(m));
  }
  std::sort(r.models.begin(), r.models.end(),
            [](auto& a, auto& b) { return std::tie(b.gpus, a.model) < std::tie(a.gpus, b.model); });
  for (auto& [v, d] : drivers) r.drivers.push_back(std::move(d));
  std::sort(r.drivers.begin(), r.drivers.end(), [&](auto& a, auto& b) {
    return by_driver_version(a.driver_version, b.driver_version);
  });

  // Pass 2: each scan judged against the node classes, then dropped.
  std::vector<NodeClass> classes = node_classes(r.nodes);
  for (const auto& path : scans) {
    auto doc = read_report(path);
    if (!doc) {  // changed since pass 1
      ++r.reports_failed;
      Node n;
      n.host = stem_of(path);
      n.host_from_file_name = true;
      n.reports.push_back(path);
      n.errors.push_back(doc.error());
      r.nodes.push_back(std::move(n));
      continue;
    }
    for (auto& im : judge_scan(doc->doc, path, classes)) r.images.push_back(std::move(im));
  }

  node_findings(r, options, r.findings);
  for (const auto& [key, paths] : duplicates) {
    if (paths.size() < 2) continue;
    std::string host = key.substr(0, key.find('\n'));
    add_finding(r.findings, Severity::kWarning, "duplicate-report",
                fmt::format("{} has {} {} reports; the last one given is used", host, paths.size(),
                            key.substr(key.find('\n') + 1)),
                paths, "Give fleet merge one probe and one doctor report per node.", {host});
  }
  image_findings(r, options, r.findings);
  std::stable_sort(r.findings.begin(), r.findings.end(), [](auto& a, auto& b) {
    return static_cast<int>(a.finding.severity) > static_cast<int>(b.finding.severity);
  });
  return r;
}

}  // namespace smcompat::fleet
