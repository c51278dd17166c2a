// Wheel records: a wheel scanned once into what verdicts need (units reduced to their targets),
// stored as JSON, and judged later through judge_file on the rebuilt units.
#include "smcompat/index/record.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <openssl/evp.h>
#include <zip.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "smcompat/scan/wheel.hpp"
#include "smcompat/util/embedded.hpp"
#include "smcompat/util/json_read.hpp"
#include "smcompat/util/mapped_file.hpp"
#include "smcompat/util/strings.hpp"
#include "smcompat/verdict/runtime_need.hpp"
#include "smcompat/verdict/verdict.hpp"

SMCOMPAT_EMBEDDED(wheel_index_json)

namespace smcompat {

// ---- images and units --------------------------------------------------------------------------

std::string IndexedImage::to_string() const {
  std::string s = target.to_string();
  if (ptx_isa) s += "@" + ptx_isa->to_string();
  return s;
}

std::optional<IndexedImage> IndexedImage::parse(std::string_view text) {
  IndexedImage image;
  std::string_view target = text;
  if (auto at = text.find('@'); at != std::string_view::npos) {
    auto isa = Version::parse(text.substr(at + 1));
    if (!isa) return std::nullopt;
    image.ptx_isa = isa;
    target = text.substr(0, at);
  }
  auto t = SmTarget::parse(target);
  if (!t) return std::nullopt;
  image.target = *t;
  return image;
}

namespace {

IndexedImage indexed_image(const DeviceImage& image) {
  IndexedImage out;
  out.target = image.target;
  if (image.target.kind == ImageKind::kPtx) out.ptx_isa = image.ptx_version;
  return out;
}

UnitSignature signature_of(const FileInventory& inv, size_t first, size_t count, bool prelink,
                           bool bare) {
  UnitSignature unit;
  std::set<IndexedImage> images;
  for (size_t i = first; i < first + count && i < inv.images.size(); ++i)
    // Nothing to launch: not code a GPU can lack (judge_file); relocatable code is kept, its
    // device functions serve kernels elsewhere once linked.
    if (!inv.images[i].kernelless() || prelink || inv.images[i].relocatable)
      images.insert(indexed_image(inv.images[i]));
  unit.images.assign(images.begin(), images.end());
  unit.prelink = prelink;
  unit.bare = bare;
  return unit;
}

std::string error_text(const Error& e) {
  Error copy = e;
  copy.file.clear();  // the member path is the record's own
  return copy.to_string();
}

IndexedFile indexed_file(const FileInventory& inv) {
  IndexedFile file;
  file.path = inv.member.empty() ? inv.path : inv.member;
  file.size = inv.size;
  file.images = inv.images.size();
  std::map<UnitSignature, size_t> counts;
  std::vector<bool> in_container(inv.images.size(), false);
  for (const auto& c : inv.containers) {
    for (size_t i = c.first_image; i < c.first_image + c.image_count && i < inv.images.size(); ++i)
      in_container[i] = true;
    auto unit = signature_of(inv, c.first_image, c.image_count, c.relocatable, false);
    if (!unit.images.empty()) ++counts[unit];
  }
  for (size_t i = 0; i < inv.images.size(); ++i)
    if (!in_container[i])
      if (auto unit = signature_of(inv, i, 1, inv.images[i].relocatable, true);
          !unit.images.empty())
        ++counts[unit];
  for (auto& [unit, n] : counts) {
    UnitSignature u = unit;
    u.count = n;
    file.units.push_back(std::move(u));
  }
  for (const auto& e : inv.errors) file.errors.push_back(error_text(e));
  return file;
}

void sorted_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Standalone images (bare cubin and PTX members, each its own unit) of one directory with the
// same extension and identical units become one entry "dir/*.ext" with a count: lossless for
// verdicts, and 12,000 files of a cubin package become a handful of rows.
void compact_files(std::vector<IndexedFile>& files) {
  auto groupable = [](const IndexedFile& f) {
    if (f.units.empty() || !f.errors.empty()) return false;
    for (const auto& u : f.units)
      if (!u.bare) return false;
    return true;
  };
  auto key_of = [](const IndexedFile& f) {
    auto slash = f.path.rfind('/');
    std::string dir = slash == std::string::npos ? "" : f.path.substr(0, slash + 1);
    std::string base = slash == std::string::npos ? f.path : f.path.substr(slash + 1);
    auto dot = base.rfind('.');
    std::string ext = dot == std::string::npos ? "" : base.substr(dot);
    return std::make_pair(dir + "*" + ext, f.units);
  };
  std::map<std::pair<std::string, std::vector<UnitSignature>>, std::vector<size_t>> groups;
  for (size_t i = 0; i < files.size(); ++i)
    if (groupable(files[i])) groups[key_of(files[i])].push_back(i);
  std::vector<bool> drop(files.size(), false);
  for (auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    IndexedFile& head = files[members.front()];
    head.path = key.first;
    for (size_t k = 1; k < members.size(); ++k) {
      const IndexedFile& f = files[members[k]];
      head.size += f.size;
      head.images += f.images;
      head.count += f.count;
      drop[members[k]] = true;
    }
  }
  std::vector<IndexedFile> kept;
  for (size_t i = 0; i < files.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(files[i]));
  std::sort(kept.begin(), kept.end(),
            [](const IndexedFile& a, const IndexedFile& b) { return a.path < b.path; });
  files = std::move(kept);
}

}  // namespace

void add_inventories(WheelRecord& record, const std::vector<FileInventory>& inventories) {
  std::set<SmTarget> sass, lto;
  std::set<IndexedImage> ptx;
  for (const auto& inv : inventories) {
    if (inv.member.empty()) {  // the wheel file itself: its errors are the record's
      for (const auto& e : inv.errors) record.errors.push_back(error_text(e));
      continue;
    }
    if (inv.images.empty() && inv.errors.empty()) continue;
    record.files.push_back(indexed_file(inv));
    for (const auto& image : inv.images) {
      switch (image.target.kind) {
        case ImageKind::kSass:
          sass.insert(image.target);
          break;
        case ImageKind::kLto:
          lto.insert(image.target);
          break;
        case ImageKind::kPtx:
          ptx.insert(indexed_image(image));
          break;
      }
    }
  }
  compact_files(record.files);
  for (const auto& t : sass) record.sass.push_back(t.to_string());
  for (const auto& t : lto) record.lto.push_back(t.to_string());
  for (const auto& t : ptx) record.ptx.push_back(t.to_string());
}

// ---- scanning a wheel --------------------------------------------------------------------------

namespace {

std::string sha256_hex(ByteView bytes) {
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) return {};
  // In slices, each dropped from the resident set once hashed (`bytes` is a file mapping), so a
  // 500 MB wheel costs 8 MiB of memory, not 500 MB.
  const uint8_t* p = bytes.data();
  uint64_t left = bytes.size();
  while (left > 0) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(left, 8ull << 20));
    if (EVP_DigestUpdate(ctx.get(), p, n) != 1) return {};
    release_mapped_pages(ByteView(p, n));
    p += n;
    left -= n;
  }
  if (EVP_DigestFinal_ex(ctx.get(), digest, &len) != 1) return {};
  std::string out;
  for (unsigned i = 0; i < len; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

// The Requires-Dist lines worth keeping: torch-family pins and NVIDIA/CUDA wheels.
bool relevant_requirement(std::string_view line) {
  std::string name;
  for (char c : line) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')
      name += c;
    else
      break;
  }
  name = normalize_package_name(name);
  for (std::string_view exact :
       {"torch", "torchvision", "torchaudio", "triton", "xformers", "jaxlib", "jax"})
    if (name == exact) return true;
  for (std::string_view prefix : {"nvidia-", "cuda-", "jax-cuda", "cupy-cuda"})
    if (starts_with(name, prefix)) return true;
  return false;
}

}  // namespace

void infer_cuda(WheelRecord& record) {
  RuntimeClues clues{
      record.package, record.machine, record.requires_dist, record.runtime_libraries, {}};
  for (const auto& file : record.files) clues.library_paths.push_back(file.path);
  auto guess = infer_cuda_runtime(clues);
  record.cuda = std::move(guess.cuda);
  record.cuda_evidence = std::move(guess.evidence);
}

Result<WheelRecord> index_wheel(const std::string& path, const InspectOptions& options) {
  std::string filename =
      path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  auto name = parse_wheel_name(filename);
  if (!name)
    return make_error(fmt::format("'{}' is not a wheel's file name (NAME-VERSION-PYTHON-ABI-"
                                  "PLATFORM.whl, PEP 427)",
                                  filename))
        .in_file(path);
  WheelRecord record;
  record.package = normalize_package_name(name->name);
  record.version = name->version;
  record.filename = filename;
  record.python_tag = name->python;
  record.abi_tag = name->abi;
  record.platform_tag = name->platform;
  record.machine = machine_of(name->platform);
  auto mapped = MappedFile::open(path);
  if (!mapped) {
    record.errors.push_back(mapped.error().to_string());
    return record;
  }
  ByteView bytes = mapped->view();
  record.size = bytes.size();
  record.sha256 = sha256_hex(bytes);
  WheelFacts facts = read_wheel_facts(bytes);
  record.members = facts.members;
  for (auto& req : facts.requires_dist)
    if (relevant_requirement(req)) record.requires_dist.push_back(std::move(req));
  add_inventories(record, inspect_buffer(bytes, path, options, Backing::kFileMapping));
  if (facts.error && record.errors.empty()) record.errors.push_back(error_text(*facts.error));
  record.runtime_libraries = bundled_cuda_runtimes(facts.member_paths);
  infer_cuda(record);
  return record;
}

// ---- JSON --------------------------------------------------------------------------------------

nlohmann::json to_json(const WheelRecord& r) {
  using nlohmann::json;
  json files = json::array();
  for (const auto& f : r.files) {
    json units = json::array();
    for (const auto& u : f.units) {
      json images = json::array();
      for (const auto& i : u.images) images.push_back(i.to_string());
      json unit = {{"images", images}};
      if (u.count != 1) unit["count"] = u.count;
      if (u.prelink) unit["prelink"] = true;
      if (u.bare) unit["bare"] = true;
      units.push_back(std::move(unit));
    }
    json file = {{"path", f.path}, {"size", f.size}, {"images", f.images}, {"units", units}};
    if (f.count != 1) file["count"] = f.count;
    if (!f.errors.empty()) file["errors"] = f.errors;
    files.push_back(std::move(file));
  }
  json j = {{"package", r.package},   {"version", r.version},
            {"filename", r.filename}, {"python", r.python_tag},
            {"abi", r.abi_tag},       {"platform", r.platform_tag},
            {"machine", r.machine},   {"size", r.size},
            {"sha256", r.sha256},     {"members", r.members},
            {"cuda", r.cuda},         {"cuda_evidence", r.cuda_evidence},
            {"sass", r.sass},         {"ptx", r.ptx},
            {"lto", r.lto},           {"requires_dist", r.requires_dist},
            {"files", files}};
  if (!r.runtime_libraries.empty()) j["runtime_libraries"] = r.runtime_libraries;
  if (!r.errors.empty()) j["errors"] = r.errors;
  return j;
}

void write_json(JsonWriter& out, const WheelIndex& index) {
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& f : index.failures)
    failures.push_back({{"package", f.package},
                        {"version", f.version},
                        {"platform", f.platform},
                        {"stage", f.stage},
                        {"message", f.message}});
  out.object({{"schema", kWheelIndexSchema},
              {"built", index.built},
              {"tool_version", index.tool_version},
              {"rebuild", index.rebuild},
              {"platforms", index.platforms},
              {"failures", failures}},
             {{"wheels", [&index](JsonWriter& w) {
                 w.array(index.wheels,
                         [](JsonWriter& w, const WheelRecord& r) { w.value(to_json(r)); });
               }}});
}

nlohmann::json to_json(const WheelIndex& index) {
  return json_tree([&index](JsonWriter& w) { write_json(w, index); });
}

namespace {

// Strict field readers: an index row that does not have the documented shape is an error that
// names the row, not a silently empty record.
struct Reader {
  Reader(const nlohmann::json& json, std::string place) : j(json), where(std::move(place)) {}
  const nlohmann::json& j;
  std::string where;
  std::optional<Error> error;

  void fail(const std::string& what) {
    if (!error) error = make_error(where + ": " + what);
  }
  std::string str(const char* key, bool required = true) {
    if (!j.contains(key)) {
      if (required) fail(fmt::format("missing \"{}\"", key));
      return {};
    }
    if (!j[key].is_string()) {
      fail(fmt::format("\"{}\" is not a string", key));
      return {};
    }
    return j[key].get<std::string>();
  }
  uint64_t num(const char* key, bool required = true) {
    if (!j.contains(key)) {
      if (required) fail(fmt::format("missing \"{}\"", key));
      return 0;
    }
    if (!j[key].is_number_unsigned()) {
      fail(fmt::format("\"{}\" is not a non-negative integer", key));
      return 0;
    }
    return j[key].get<uint64_t>();
  }
  std::vector<std::string> strs(const char* key, bool required = true) {
    std::vector<std::string> out;
    if (!j.contains(key)) {
      if (required) fail(fmt::format("missing \"{}\"", key));
      return out;
    }
    if (!j[key].is_array()) {
      fail(fmt::format("\"{}\" is not an array", key));
      return out;
    }
    for (const auto& v : j[key]) {
      if (!v.is_string()) {
        fail(fmt::format("\"{}\" holds a non-string", key));
        return {};
      }
      out.push_back(v.get<std::string>());
    }
    return out;
  }
  bool flag(const char* key) {
    if (!j.contains(key)) return false;
    if (!j[key].is_boolean()) {
      fail(fmt::format("\"{}\" is not a boolean", key));
      return false;
    }
    return j[key].get<bool>();
  }
};

}  // namespace

Result<WheelRecord> wheel_record_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return make_error("a wheel record is not an object");
  Reader r{j, "wheel"};
  WheelRecord w;
  w.filename = r.str("filename");
  if (!w.filename.empty()) r.where = "wheel " + w.filename;
  w.package = r.str("package");
  w.version = r.str("version");
  w.python_tag = r.str("python");
  w.abi_tag = r.str("abi");
  w.platform_tag = r.str("platform");
  w.machine = r.str("machine");
  w.size = r.num("size");
  w.sha256 = r.str("sha256");
  w.members = r.num("members");
  w.cuda = r.str("cuda");
  w.cuda_evidence = r.str("cuda_evidence");
  w.sass = r.strs("sass");
  w.ptx = r.strs("ptx");
  w.lto = r.strs("lto");
  w.requires_dist = r.strs("requires_dist");
  w.errors = r.strs("errors", false);
  w.runtime_libraries = r.strs("runtime_libraries", false);
  if (r.error) return *r.error;
  if (!j.contains("files") || !j["files"].is_array())
    return make_error(r.where + ": \"files\" missing or not an array");
  for (const auto& fj : j["files"]) {
    if (!fj.is_object()) return make_error(r.where + ": a file entry is not an object");
    Reader fr{fj, r.where};
    IndexedFile f;
    f.path = fr.str("path");
    fr.where = r.where + " file " + f.path;
    f.size = fr.num("size");
    f.images = fr.num("images");
    f.count = fj.contains("count") ? fr.num("count") : 1;
    f.errors = fr.strs("errors", false);
    if (fr.error) return *fr.error;
    if (!fj.contains("units") || !fj["units"].is_array())
      return make_error(fr.where + ": \"units\" missing or not an array");
    for (const auto& uj : fj["units"]) {
      if (!uj.is_object()) return make_error(fr.where + ": a unit is not an object");
      Reader ur{uj, fr.where + " unit"};
      UnitSignature u;
      for (const auto& text : ur.strs("images")) {
        auto image = IndexedImage::parse(text);
        if (!image)
          return make_error(fmt::format("{}: image '{}' is not a target", ur.where, text));
        u.images.push_back(*image);
      }
      u.count = uj.contains("count") ? ur.num("count") : 1;
      u.prelink = ur.flag("prelink");
      u.bare = ur.flag("bare");
      if (ur.error) return *ur.error;
      f.units.push_back(std::move(u));
    }
    w.files.push_back(std::move(f));
  }
  return w;
}

Result<WheelIndex> wheel_index_from_json(const nlohmann::json& j, const std::string& file) {
  auto located = [&](Error e) { return e.in_file(file); };
  if (!j.is_object()) return located(make_error("not a JSON object"));
  if (!j.contains("schema") || !j["schema"].is_string())
    return located(make_error("no \"schema\": not a smcompat index"));
  std::string schema = j["schema"].get<std::string>();
  if (schema != kWheelIndexSchema)
    return located(
        make_error(fmt::format("schema is \"{}\", expected \"{}\"", schema, kWheelIndexSchema)));
  Reader r{j, "index"};
  WheelIndex index;
  index.built = r.str("built");
  index.tool_version = r.str("tool_version");
  index.rebuild = r.str("rebuild", false);
  index.platforms = r.strs("platforms");
  if (r.error) return located(*r.error);
  if (!j.contains("wheels") || !j["wheels"].is_array())
    return located(make_error("\"wheels\" missing or not an array"));
  size_t row = 0;
  for (const auto& wj : j["wheels"]) {
    auto w = wheel_record_from_json(wj);
    if (!w) {
      Error e = w.error();
      e.what = fmt::format("wheels[{}]: {}", row, e.what);
      return located(e);
    }
    index.wheels.push_back(std::move(*w));
    ++row;
  }
  if (j.contains("failures")) {
    if (!j["failures"].is_array()) return located(make_error("\"failures\" is not an array"));
    for (const auto& fj : j["failures"]) {
      if (!fj.is_object()) return located(make_error("a failure is not an object"));
      Reader fr{fj, "failure"};
      IndexFailure f{fr.str("package"), fr.str("version"), fr.str("platform"), fr.str("stage"),
                     fr.str("message")};
      if (fr.error) return located(*fr.error);
      index.failures.push_back(std::move(f));
    }
  }
  return index;
}

Result<WheelIndex> read_wheel_index(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("cannot open the index file").in_file(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  SMCOMPAT_TRY(nlohmann::json j, parse_json_document(text, path));
  return wheel_index_from_json(j, path);
}

const WheelIndex& builtin_wheel_index() {
  static const WheelIndex index = [] {
    std::string_view text =
        embedded_text(embedded::wheel_index_json, embedded::wheel_index_json_size);
    auto j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    auto parsed = wheel_index_from_json(j, "data/wheel_index.json");
    // The shipped file is checked by the tests; a broken one must not take the tool down.
    return parsed ? std::move(*parsed) : WheelIndex{};
  }();
  return index;
}

void normalize(WheelIndex& index) {
  auto before = [](const WheelRecord& a, const WheelRecord& b) {
    if (a.package != b.package) return a.package < b.package;
    if (int c = compare_versions(a.version, b.version)) return c < 0;
    return a.filename < b.filename;
  };
  std::stable_sort(index.wheels.begin(), index.wheels.end(), before);
  std::set<std::string> seen;
  std::vector<WheelRecord> unique;
  for (auto& w : index.wheels) {
    std::string key = w.sha256.empty() ? "name:" + w.filename : w.sha256;
    if (seen.insert(key).second) unique.push_back(std::move(w));
  }
  index.wheels = std::move(unique);
  // Derived facts follow the current rules, so a merge carries a corrected rule to every record.
  for (auto& w : index.wheels) {
    compact_files(w.files);
    infer_cuda(w);
  }
  // A failure for a (package, version, machine) that now has a wheel is history, not a gap.
  std::set<std::tuple<std::string, std::string, std::string>> indexed;
  for (const auto& w : index.wheels)
    if (w.errors.empty()) indexed.insert({w.package, w.version, "linux_" + w.machine});
  std::vector<IndexFailure> failures;
  std::set<std::tuple<std::string, std::string, std::string, std::string>> failure_seen;
  for (auto& f : index.failures) {
    if (!f.version.empty() &&
        indexed.count({normalize_package_name(f.package), f.version, f.platform}))
      continue;
    if (!failure_seen.insert({f.package, f.version, f.platform, f.stage}).second) continue;
    failures.push_back(std::move(f));
  }
  std::sort(failures.begin(), failures.end(), [](const IndexFailure& a, const IndexFailure& b) {
    return std::tie(a.package, a.version, a.platform, a.stage) <
           std::tie(b.package, b.version, b.platform, b.stage);
  });
  index.failures = std::move(failures);
  sorted_unique(index.platforms);
}

WheelIndex merge_indexes(std::vector<WheelIndex> parts) {
  WheelIndex out;
  for (auto& p : parts) {
    if (p.built > out.built) out.built = p.built;
    if (p.tool_version > out.tool_version) out.tool_version = p.tool_version;
    if (out.rebuild.empty()) out.rebuild = p.rebuild;
    for (auto& pl : p.platforms) out.platforms.push_back(std::move(pl));
    for (auto& w : p.wheels) out.wheels.push_back(std::move(w));
    for (auto& f : p.failures) out.failures.push_back(std::move(f));
  }
  normalize(out);
  return out;
}

// ---- verdicts ----------------------------------------------------------------------------------

FileInventory rebuild_inventory(const IndexedFile& file) {
  FileInventory inv;
  inv.path = file.path;
  inv.size = file.size;
  inv.format = FileFormat::kHostElf;
  for (const auto& unit : file.units) {
    for (size_t copy = 0; copy < unit.count; ++copy) {
      size_t first = inv.images.size();
      for (const auto& image : unit.images) {
        DeviceImage d;
        d.target = image.target;
        d.ptx_version = image.ptx_isa;
        d.in_container = !unit.bare;
        d.relocatable = unit.prelink;
        inv.images.push_back(std::move(d));
      }
      if (!unit.bare) {
        ContainerInfo c;
        c.section = unit.prelink ? "__nv_relfatbin" : ".nv_fatbin";
        c.first_image = first;
        c.image_count = unit.images.size();
        c.relocatable = unit.prelink;
        inv.containers.push_back(c);
      }
    }
  }
  return inv;
}

WheelVerdict judge_wheel(const WheelRecord& record, const Target& target) {
  WheelVerdict out;
  const Catalog& catalog = Catalog::builtin();
  std::vector<PackageLibrary> libraries;
  for (const auto& file : record.files) {
    if (file.units.empty()) continue;  // errors only: reported in the record, not judged
    libraries.push_back({file.path, judge_file(rebuild_inventory(file), target, catalog)});
  }
  PackageQuery query;
  query.package = record.package;
  query.runtime = runtime_need({record.cuda, record.cuda_evidence});
  out.package = judge_package(libraries, query, target, catalog);
  out.fit = out.package.fit;
  out.has_device_code = out.package.has_device_code;
  std::optional<Version> driver;  // for a PTX-only fit: the CUDA whose JIT takes all its PTX
  for (const auto& l : out.package.libraries) {
    out.files.push_back({l.path, l.fit, l.other_gpus, l.summary});
    if (l.decides && l.runtime_variant) out.variant = l.path;
    if (!l.decides || (l.fit != Fit::kPtxJit && l.fit != Fit::kUnsupportedPtx)) continue;
    // The lowest PTX ISA among the PTX images this GPU could JIT decides the driver needed.
    std::optional<Version> lowest;
    for (const auto& file : record.files)
      if (file.path == l.path)
        for (const auto& unit : file.units)
          for (const auto& image : unit.images)
            if (image.target.kind == ImageKind::kPtx && image.ptx_isa &&
                image.target.arch <= target.cc.arch() &&
                image.target.variant == ArchVariant::kBase && (!lowest || *image.ptx_isa < *lowest))
              lowest = image.ptx_isa;
    if (auto need = lowest ? catalog.min_cuda_for_ptx(*lowest) : std::nullopt;
        need && (!driver || *driver < *need))
      driver = need;
  }
  if (out.fit == Fit::kPtxJit || out.fit == Fit::kUnsupportedPtx) out.driver_cuda_needed = driver;
  if (!out.has_device_code) {
    out.summary = record.errors.empty() ? "no device code" : "unreadable: " + record.errors[0];
  } else {
    out.summary = out.package.route;
    if (out.driver_cuda_needed)
      out.summary += " (a driver for CUDA " + out.driver_cuda_needed->to_string() + "+ JITs it)";
    if (!out.package.driver_reason.empty()) out.summary += ": " + out.package.driver_reason;
    if (!out.variant.empty()) out.summary += "; runtime variant " + out.variant;
  }
  return out;
}

}  // namespace smcompat
