// Catalog loading (data/catalog.json, compiled in) and the compatibility rules of
// ../shared/reference/compatibility-rules.md sections 1-6.
#include "smcompat/catalog/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

#include "smcompat/util/embedded.hpp"
#include "smcompat/util/strings.hpp"

SMCOMPAT_EMBEDDED(catalog_json)

namespace smcompat {

namespace {

using nlohmann::json;

std::optional<Version> opt_version(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return Version::parse(j[key].get<std::string>());
}

template <class T>
std::optional<T> opt_num(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<T>();
}

std::string opt_str(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return {};
  return j[key].get<std::string>();
}

std::vector<std::string> str_list(const json& j, const char* key) {
  if (!j.contains(key)) return {};
  return j[key].get<std::vector<std::string>>();
}

// Lowercase, '-' and '_' as spaces, vendor words dropped, spaces collapsed: "NVIDIA GeForce
// RTX-5090" -> "rtx 5090".
std::string normalize_gpu_name(std::string_view name) {
  std::string s = to_lower(name);
  for (auto& c : s)
    if (c == '-' || c == '_' || c == '(' || c == ')' || c == ',') c = ' ';
  std::string out;
  for (auto word : split(s, ' ')) {
    if (word.empty() || word == "nvidia" || word == "geforce" || word == "tesla") continue;
    if (!out.empty()) out += ' ';
    out += word;
  }
  return out;
}

std::string compact(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

bool all_words_in(std::string_view query, std::string_view name) {
  auto name_words = split(name, ' ');
  for (auto w : split(query, ' ')) {
    if (w.empty()) continue;
    if (std::find(name_words.begin(), name_words.end(), w) == name_words.end()) return false;
  }
  return true;
}

}  // namespace

bool ArchInfo::has_feature(std::string_view feature, ArchVariant variant) const {
  auto in = [&](const std::vector<std::string>& v) {
    return std::find(v.begin(), v.end(), feature) != v.end();
  };
  if (in(features)) return true;
  if (variant == ArchVariant::kArchSpecific) return in(a_features) || in(f_features);
  if (variant == ArchVariant::kFamily) return in(f_features);
  return false;
}

const Catalog& Catalog::builtin() {
  static const Catalog catalog = [] {
    std::string_view text = embedded_text(embedded::catalog_json, embedded::catalog_json_size);
    auto parsed = Catalog::from_json(text);
    // The compiled-in catalog is validated by the test suite; an empty catalog is the safe
    // fallback should it ever fail to parse.
    return parsed ? std::move(*parsed) : Catalog{};
  }();
  return catalog;
}

Result<Catalog> Catalog::from_json(std::string_view json_text) {
  Catalog c;
  try {
    json j = json::parse(json_text);
    for (const auto& a : j.at("archs")) {
      ArchInfo info;
      info.sm = a.at("sm").get<int>();
      info.name = a.at("name").get<std::string>();
      for (const auto& v : a.at("variants")) {
        if (v == "a") info.has_a = true;
        if (v == "f") info.has_f = true;
      }
      info.renamed_to = opt_num<int>(a, "renamed_to");
      if (auto k = opt_num<uint32_t>(a, "smem_per_sm_kib")) info.smem_per_sm = *k * 1024;
      if (auto k = opt_num<uint32_t>(a, "smem_per_block_optin_kib"))
        info.smem_per_block_optin = *k * 1024;
      // Limits with a value every architecture shares when the row leaves them out.
      for (auto [key, field, fallback] :
           {std::tuple{"reserved_smem_per_block", &ArchInfo::reserved_smem_per_block, 0u},
            {"regs_per_sm", &ArchInfo::regs_per_sm, 65536u},
            {"regs_per_block", &ArchInfo::regs_per_block, 65536u},
            {"max_regs_per_thread", &ArchInfo::max_regs_per_thread, 255u}})
        info.*field = a.value(key, fallback);
      for (auto [key, field] : {std::pair{"threads_per_sm", &ArchInfo::threads_per_sm},
                                {"blocks_per_sm", &ArchInfo::blocks_per_sm}})
        info.*field = opt_num<uint32_t>(a, key);
      for (auto [key, field] : {std::pair{"features", &ArchInfo::features},
                                {"a_features", &ArchInfo::a_features},
                                {"f_features", &ArchInfo::f_features}})
        info.*field = str_list(a, key);
      for (auto [key, field] : {std::pair{"first_cuda", &ArchInfo::first_cuda},
                                {"first_cuda_f", &ArchInfo::first_cuda_f},
                                {"last_cuda", &ArchInfo::last_cuda},
                                {"min_ptx_isa", &ArchInfo::min_ptx_isa}})
        info.*field = opt_version(a, key);
      info.tags = opt_str(a, "tags");
      info.notes = opt_str(a, "notes");
      info.source = a.at("source").get<std::string>();
      c.archs_.push_back(std::move(info));
    }
    std::sort(c.archs_.begin(), c.archs_.end(),
              [](const ArchInfo& x, const ArchInfo& y) { return x.sm < y.sm; });
    for (const auto& f : j.at("families")) {
      c.families_.push_back(FamilyInfo{f.at("target").get<int>(),
                                       f.at("members").get<std::vector<int>>(),
                                       f.at("source").get<std::string>()});
    }
    for (const auto& p : j.at("ptx_isa")) {
      auto isa = Version::parse(p.at("isa").get<std::string>());
      auto cuda = Version::parse(p.at("min_cuda").get<std::string>());
      if (!isa || !cuda) return make_error("catalog: bad ptx_isa row " + p.dump());
      c.ptx_isa_min_cuda_.emplace_back(*isa, *cuda);
    }
    std::sort(c.ptx_isa_min_cuda_.begin(), c.ptx_isa_min_cuda_.end());
    for (const auto& r : j.at("cuda_releases")) {
      CudaRelease rel;
      auto v = Version::parse(r.at("cuda").get<std::string>());
      if (!v) return make_error("catalog: bad cuda release " + r.dump());
      rel.cuda = *v;
      if (r.contains("min_driver_linux"))
        rel.min_driver_linux = DriverVersion::parse(r["min_driver_linux"].get<std::string>());
      if (r.contains("min_driver_windows"))
        rel.min_driver_windows = DriverVersion::parse(r["min_driver_windows"].get<std::string>());
      rel.source = opt_str(r, "source");
      c.cuda_releases_.push_back(std::move(rel));
    }
    std::sort(c.cuda_releases_.begin(), c.cuda_releases_.end(),
              [](const CudaRelease& x, const CudaRelease& y) { return x.cuda < y.cuda; });
    for (const auto& g : j.at("gpus")) {
      GpuSpec spec;
      spec.name = g.at("name").get<std::string>();
      spec.aliases = str_list(g, "aliases");
      auto cc = ComputeCapability::parse(g.at("cc").get<std::string>());
      if (!cc) return make_error("catalog: bad cc for GPU " + spec.name);
      spec.cc = *cc;
      spec.sms = g.at("sms").get<int>();
      spec.memory = opt_str(g, "memory");
      // Optional figures (clocks, memory, bandwidths): absent when the sources do not give them.
      for (auto [key, field] : {std::pair{"boost_mhz", &GpuSpec::boost_mhz},
                                {"tensor_mhz", &GpuSpec::tensor_mhz},
                                {"bus_width_bits", &GpuSpec::bus_width_bits},
                                {"pcie_gen", &GpuSpec::pcie_gen}})
        spec.*field = opt_num<int>(g, key);
      for (auto [key, field] : {std::pair{"memory_gib", &GpuSpec::memory_gib},
                                {"bandwidth_gbs", &GpuSpec::bandwidth_gbs},
                                {"l2_mb", &GpuSpec::l2_mb},
                                {"nvlink_gbs", &GpuSpec::nvlink_gbs}})
        spec.*field = opt_num<double>(g, key);
      if (g.contains("peak_tflops"))
        for (const auto& [k, v] : g["peak_tflops"].items()) spec.peak_tflops[k] = v.get<double>();
      spec.tags = opt_str(g, "tags");
      spec.source = g.at("source").get<std::string>();
      c.gpus_.push_back(std::move(spec));
    }
  } catch (const std::exception& e) {
    return make_error(std::string("catalog: ") + e.what());
  }
  return c;
}

const ArchInfo* Catalog::arch(int sm) const {
  for (const auto& a : archs_)
    if (a.sm == sm) return &a;
  return nullptr;
}

const GpuSpec* Catalog::find_gpu(std::string_view query) const {
  std::string q = normalize_gpu_name(query);
  if (q.empty()) return nullptr;
  std::string qc = compact(q);
  // 1. Exact match on a name or alias (ignoring spaces): "rtx5090", "h100 sxm".
  for (const auto& g : gpus_) {
    if (compact(normalize_gpu_name(g.name)) == qc) return &g;
    for (const auto& a : g.aliases)
      if (compact(normalize_gpu_name(a)) == qc) return &g;
  }
  // 2. Every query word appears in exactly one product's name or aliases: "5090", "pro 6000".
  auto matches = suggest_gpus(query);
  return matches.size() == 1 ? matches.front() : nullptr;
}

std::vector<const GpuSpec*> Catalog::suggest_gpus(std::string_view query) const {
  std::string q = normalize_gpu_name(query);
  std::vector<const GpuSpec*> out;
  if (q.empty()) return out;
  for (const auto& g : gpus_) {
    bool hit = all_words_in(q, normalize_gpu_name(g.name));
    for (const auto& a : g.aliases) hit = hit || all_words_in(q, normalize_gpu_name(a));
    if (hit) out.push_back(&g);
  }
  return out;
}

std::optional<Version> Catalog::min_cuda_for_ptx(Version isa) const {
  for (const auto& [i, cuda] : ptx_isa_min_cuda_)
    if (i == isa) return cuda;
  return std::nullopt;
}

std::optional<Version> Catalog::max_ptx_for_cuda(Version cuda) const {
  std::optional<Version> best;
  for (const auto& [isa, min_cuda] : ptx_isa_min_cuda_)
    if (min_cuda <= cuda) best = isa;
  return best;
}

const CudaRelease* Catalog::cuda_release(Version cuda) const {
  for (const auto& r : cuda_releases_)
    if (r.cuda == cuda) return &r;
  return nullptr;
}

std::optional<Version> Catalog::max_cuda_for_driver(DriverVersion driver) const {
  std::optional<Version> best;
  for (const auto& r : cuda_releases_)
    if (r.min_driver_linux && *r.min_driver_linux <= driver) best = r.cuda;
  return best;
}

std::vector<int> Catalog::archs_built_by(Version cuda) const {
  std::vector<int> out;
  for (const auto& a : archs_) {
    if (!a.first_cuda || *a.first_cuda > cuda) continue;
    if (a.last_cuda && cuda > *a.last_cuda) continue;
    out.push_back(a.sm);
  }
  return out;
}

const std::vector<int>& Catalog::family_members(int arch) const {
  static const std::vector<int> kNone;
  for (const auto& f : families_)
    if (f.target == arch) return f.members;
  return kNone;
}

}  // namespace smcompat
