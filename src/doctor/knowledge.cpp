// PyTorch channel / arch-list knowledge and known GPU packages, loaded from
// data/python_packages.json (compiled in). Arch-list semantics: compatibility-rules.md section 11
// (entries carry "+PTX" and a/f decorations that a capability comparison must strip).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "smcompat/doctor/doctor.hpp"
#include "smcompat/util/embedded.hpp"
#include "smcompat/util/json_fields.hpp"
#include "smcompat/util/strings.hpp"

SMCOMPAT_EMBEDDED(python_packages_json)

namespace smcompat::doctor {

namespace fs = std::filesystem;

namespace {

// "2.7.1+cu128" -> "2.7"
std::string release_of(std::string_view version) {
  auto v = version.substr(0, version.find('+'));
  auto parts = split(v, '.');
  if (parts.size() < 2) return std::string(v);
  return fmt::format("{}.{}", parts[0], parts[1]);
}

}  // namespace

namespace {

PackageKnowledge load() {
  PackageKnowledge k;
  std::string_view text =
      embedded_text(embedded::python_packages_json, embedded::python_packages_json_size);
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return k;  // a broken build-time file: the tests catch this
  k.pytorch_index = json_string(j, "pytorch_index");
  for (auto& c : j.value("torch_channels", nlohmann::json::array())) {
    TorchChannel t;
    t.torch = json_string(c, "torch");
    t.channel = json_string(c, "channel");
    t.cuda = Version::parse(json_string(c, "cuda")).value_or(Version{});
    std::string archs = json_string(c, "archs");
    for (auto a : split(archs, ';'))
      if (!a.empty()) t.archs.emplace_back(a);
    t.note = json_string(c, "note");
    t.source = json_string(c, "source");
    k.channels.push_back(std::move(t));
  }
  for (auto& c : j.value("torch_companions", nlohmann::json::array()))
    k.companions.push_back(
        {json_string(c, "torch"), json_string(c, "torchvision"), json_string(c, "torchaudio")});
  for (auto& p : j.value("gpu_packages", nlohmann::json::array()))
    k.packages.push_back({json_string(p, "name"), json_string(p, "install"), json_string(p, "pip"),
                          json_string(p, "min_version_blackwell"), json_string(p, "note"),
                          json_string(p, "source")});
  for (auto& r : j.value("runtime_variants", nlohmann::json::array())) {
    RuntimeVariantRule v;
    v.package = json_string(r, "package");
    v.from_version = json_string(r, "from_version");
    v.library_prefix = json_string(r, "library_prefix");
    v.library_suffix = json_string(r, "library_suffix");
    v.major_digits = r.value("major_digits", 2);
    v.chosen_by = json_string(r, "chosen_by");
    v.override_env = json_string(r, "override_env");
    v.empty_override_is_error = json_string(r, "empty_override") == "error";
    v.same_major_nearest = json_string(r, "fallback") == "same-major-nearest";
    v.when_missing = json_string(r, "when_missing");
    for (auto& o : r.value("others", nlohmann::json::array()))
      v.others.push_back({json_string(o, "prefix"), json_string(o, "backend")});
    v.source = json_string(r, "source");
    k.variant_rules.push_back(std::move(v));
  }
  for (auto& r : j.value("runtime_variant_releases", nlohmann::json::array())) {
    RuntimeVariantRelease rel{
        json_string(r, "package"), json_string(r, "version"), {}, json_string(r, "source")};
    std::string cudas = json_string(r, "cuda");
    for (auto c : split(cudas, ';'))
      if (auto v = Version::parse(trim(c))) rel.cuda.push_back(*v);
    k.variant_releases.push_back(std::move(rel));
  }
  return k;
}

}  // namespace

const PackageKnowledge& PackageKnowledge::builtin() {
  static const PackageKnowledge k = load();
  return k;
}

std::vector<const TorchChannel*> PackageKnowledge::channels_of(
    std::string_view torch_version) const {
  std::vector<const TorchChannel*> out;
  auto rel = release_of(torch_version);
  for (auto& c : channels)
    if (c.torch == rel) out.push_back(&c);
  std::sort(out.begin(), out.end(),
            [](const TorchChannel* a, const TorchChannel* b) { return a->cuda < b->cuda; });
  return out;
}

std::string PackageKnowledge::latest_torch() const {
  std::string best;
  for (auto& c : channels)
    if (best.empty() || compare_versions(c.torch, best) > 0) best = c.torch;
  return best;
}

const GpuPackageInfo* PackageKnowledge::package(std::string_view name) const {
  auto n = normalize_package_name(name);
  for (auto& p : packages)
    if (normalize_package_name(p.name) == n) return &p;
  return nullptr;
}

const PackageKnowledge::Companion* PackageKnowledge::companion(
    std::string_view torch_version) const {
  auto rel = release_of(torch_version);
  for (auto& c : companions)
    if (c.torch == rel) return &c;
  return nullptr;
}

bool arch_list_covers(const std::vector<std::string>& archs, ComputeCapability cc) {
  for (auto& raw : archs) {
    std::string_view e = trim(raw);
    bool ptx = false;
    if (auto plus = e.find('+'); plus != std::string_view::npos) {
      ptx = to_lower(e.substr(plus + 1)) == "ptx";
      e = e.substr(0, plus);
    }
    bool specific = !e.empty() && (e.back() == 'a' || e.back() == 'f');
    auto c = ComputeCapability::parse(e);
    if (!c) continue;
    // SASS: same major, minor <= device (a-specific: exact only; f: same family ~ same major).
    if (c->major == cc.major && c->minor <= cc.minor && !(e.back() == 'a' && *c != cc)) return true;
    // PTX: any device at or above, unless a/f-specific.
    if (ptx && !specific && *c <= cc) return true;
  }
  return false;
}

const TorchChannel* pick_channel(const PackageKnowledge& k, std::string_view torch_version,
                                 const std::vector<ComputeCapability>& gpus,
                                 std::string* release_used) {
  auto try_release = [&](std::string_view ver) -> const TorchChannel* {
    for (auto* c : k.channels_of(ver)) {
      bool all = std::all_of(gpus.begin(), gpus.end(),
                             [&](ComputeCapability cc) { return arch_list_covers(c->archs, cc); });
      if (all) return c;
    }
    return nullptr;
  };
  if (auto* c = try_release(torch_version)) {
    if (release_used) *release_used = release_of(torch_version);
    return c;
  }
  auto latest = k.latest_torch();
  if (auto* c = try_release(latest)) {
    if (release_used) *release_used = latest;
    return c;
  }
  return nullptr;
}

std::string torch_pip_command(const PackageKnowledge& k, const TorchChannel& channel,
                              const std::string& python) {
  std::string pip = python.empty() ? "pip" : fmt::format("{} -m pip", python);
  return fmt::format("{} install --force-reinstall torch torchvision torchaudio --index-url {}{}",
                     pip, k.pytorch_index, channel.channel);
}

}  // namespace smcompat::doctor

namespace smcompat::doctor {

const RuntimeVariantRule* PackageKnowledge::variant_rule(std::string_view package,
                                                         std::string_view version) const {
  auto n = normalize_package_name(package);
  const RuntimeVariantRule* first = nullptr;
  const RuntimeVariantRule* best = nullptr;
  for (auto& r : variant_rules) {
    if (normalize_package_name(r.package) != n) continue;
    if (!first || compare_versions(r.from_version, first->from_version) < 0) first = &r;
    if (compare_versions(r.from_version, version) <= 0 &&
        (!best || compare_versions(r.from_version, best->from_version) > 0))
      best = &r;
  }
  return best ? best : first;
}

VariantChoice choose_variant(const RuntimeVariantRule& rule, const Distribution& dist,
                             const std::optional<Version>& torch_cuda, const Environment& env) {
  VariantChoice c;
  c.rule = &rule;
  // The CUDA variants shipped: <prefix><digits><suffix>, digits = MAJOR (major_digits) MINOR.
  std::map<Version, std::string> shipped;
  std::vector<std::string> others;
  for (auto& so : dist.shared_libraries) {
    auto file = fs::path(so).filename().string();
    if (starts_with(file, rule.library_prefix) && ends_with(file, rule.library_suffix)) {
      auto digits = std::string_view(file).substr(
          rule.library_prefix.size(),
          file.size() - rule.library_prefix.size() - rule.library_suffix.size());
      auto md = static_cast<size_t>(rule.major_digits);
      auto major = parse_uint(digits.substr(0, md));
      auto minor = digits.size() > md ? parse_uint(digits.substr(md)) : std::nullopt;
      if (major && minor) {
        shipped[Version{static_cast<int>(*major), static_cast<int>(*minor)}] = so;
        continue;
      }
    }
    for (auto& o : rule.others)
      if (starts_with(file, o.prefix)) others.push_back(fmt::format("{} ({})", file, o.backend));
  }
  auto name_of = [&](std::string_view digits) {
    return fmt::format("{}{}{}", rule.library_prefix, digits, rule.library_suffix);
  };
  std::optional<Version> wanted = torch_cuda;
  bool overridden = false;
  if (auto it = env.find(rule.override_env); it != env.end()) {
    const std::string& value = it->second;
    bool digits = !value.empty() && std::all_of(value.begin(), value.end(),
                                                [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!value.empty() || rule.empty_override_is_error) {
      overridden = true;
      c.wanted_by = fmt::format("{}={}", rule.override_env, value);
      c.wanted_name = name_of(value);
      if (rule.empty_override_is_error && !digits) {
        c.problem = fmt::format("{}='{}' is not digits: import fails with RuntimeError",
                                rule.override_env, value);
        wanted.reset();
      } else if (digits && value.size() > static_cast<size_t>(rule.major_digits)) {
        auto md = static_cast<size_t>(rule.major_digits);
        wanted = Version{static_cast<int>(*parse_uint(std::string_view(value).substr(0, md))),
                         static_cast<int>(*parse_uint(std::string_view(value).substr(md)))};
      } else {
        wanted.reset();
      }
    }
  }
  if (!overridden && torch_cuda) {
    c.wanted_by = fmt::format("torch.version.cuda = '{}'", torch_cuda->to_string());
    c.wanted_name = name_of(fmt::format("{}{}", torch_cuda->major, torch_cuda->minor));
  }
  c.wanted = wanted;
  if (c.problem.empty()) {
    std::optional<Version> pick;
    if (wanted && shipped.count(*wanted)) {
      pick = wanted;
      c.how = overridden ? "named by " + rule.override_env : "exact match";
    } else if (wanted && !overridden && rule.same_major_nearest) {
      for (auto& [v, _] : shipped)
        if (v.major == wanted->major && v < *wanted) pick = v;  // highest below
      if (!pick)
        for (auto& [v, _] : shipped)
          if (v.major == wanted->major && *wanted < v) {
            pick = v;  // lowest above
            break;
          }
      if (pick) c.how = fmt::format("nearest of the same major ({})", pick->to_string());
    }
    if (pick) {
      c.chosen = shipped[*pick];
    } else if (!c.wanted_name.empty()) {
      c.problem = fmt::format("{} {} has no {} ({}): it {}", dist.name, dist.version, c.wanted_name,
                              c.wanted_by, rule.when_missing);
    }
  }
  for (auto& [v, so] : shipped)
    if (so != c.chosen)
      c.alternatives.push_back(
          fmt::format("{} (CUDA {})", fs::path(so).filename().string(), v.to_string()));
  for (auto& o : others) c.alternatives.push_back(o);
  return c;
}

}  // namespace smcompat::doctor
