// PyTorch channel / arch-list knowledge and known GPU packages, loaded from
// data/python_packages.json (compiled in). Arch-list semantics: compatibility-rules.md section 11
// (entries carry "+PTX" and a/f decorations that a capability comparison must strip).
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "smcompat/doctor/doctor.hpp"
#include "smcompat/util/json_fields.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::embedded {
extern const unsigned char python_packages_json[];
extern const std::size_t python_packages_json_size;
}  // namespace smcompat::embedded

namespace smcompat::doctor {

namespace {

// "2.7.1+cu128" -> "2.7"
std::string release_of(std::string_view version) {
  auto v = version.substr(0, version.find('+'));
  auto parts = split(v, '.');
  if (parts.size() < 2) return std::string(v);
  return fmt::format("{}.{}", parts[0], parts[1]);
}

int compare_release(std::string_view a, std::string_view b) {
  auto pa = split(a, '.'), pb = split(b, '.');
  for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    auto x = i < pa.size() ? parse_uint(pa[i]).value_or(0) : 0;
    auto y = i < pb.size() ? parse_uint(pb[i]).value_or(0) : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

PackageKnowledge load() {
  PackageKnowledge k;
  std::string_view text(reinterpret_cast<const char*>(embedded::python_packages_json),
                        embedded::python_packages_json_size);
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
    if (best.empty() || compare_release(c.torch, best) > 0) best = c.torch;
  return best;
}

const GpuPackageInfo* PackageKnowledge::package(std::string_view name) const {
  auto n = normalize_dist_name(name);
  for (auto& p : packages)
    if (normalize_dist_name(p.name) == n) return &p;
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
