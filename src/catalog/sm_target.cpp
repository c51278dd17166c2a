// Parsing and printing of targets, compute capabilities and versions (sm_target.hpp).
#include "smcompat/catalog/sm_target.hpp"

#include <fmt/format.h>

#include <cctype>

#include "smcompat/util/enum_names.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat {

namespace {

// Splits "120a" into (120, kArchSpecific); returns nullopt for anything else.
std::optional<std::pair<int, ArchVariant>> parse_arch_digits(std::string_view s) {
  ArchVariant variant = ArchVariant::kBase;
  if (!s.empty() && (s.back() == 'a' || s.back() == 'f')) {
    variant = s.back() == 'a' ? ArchVariant::kArchSpecific : ArchVariant::kFamily;
    s.remove_suffix(1);
  }
  if (s.size() < 2 || s.size() > 3) return std::nullopt;
  auto n = parse_uint(s);
  if (!n || *n < 10) return std::nullopt;
  return std::make_pair(static_cast<int>(*n), variant);
}

}  // namespace

const char* to_string(ImageKind kind) {
  static constexpr std::array<const char*, 3> kNames{"sass", "ptx", "lto"};
  return enum_name(kind, kNames);
}

const char* suffix(ArchVariant variant) {
  static constexpr std::array<const char*, 3> kSuffixes{"", "a", "f"};
  return enum_name(variant, kSuffixes, "");
}

std::string ComputeCapability::to_string() const { return fmt::format("{}.{}", major, minor); }

std::optional<ComputeCapability> ComputeCapability::parse(std::string_view text) {
  std::string t = to_lower(trim(text));
  std::string_view s = t;
  for (std::string_view prefix : {"sm_", "sm", "compute_", "compute", "lto_"}) {
    if (s.starts_with(prefix)) {
      s.remove_prefix(prefix.size());
      break;
    }
  }
  if (auto dot = s.find('.'); dot != std::string_view::npos) {
    auto maj = parse_uint(s.substr(0, dot));
    std::string_view rest = s.substr(dot + 1);
    if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) rest.remove_suffix(1);
    auto min = parse_uint(rest);
    if (!maj || !min || *maj == 0 || *maj > 99 || *min > 9) return std::nullopt;
    return ComputeCapability{static_cast<int>(*maj), static_cast<int>(*min)};
  }
  if (auto n = parse_uint(s); n && *n >= 1 && *n <= 9) {
    return ComputeCapability{static_cast<int>(*n), 0};  // "9" -> 9.0
  }
  if (auto d = parse_arch_digits(s)) {
    // "12" (two digits below 30) reads as a major version, 12 -> 12.0: no CC 1.x or 2.x device is
    // supported by any current toolkit. "75" and "120" are arch numbers.
    if (d->first < 30) return ComputeCapability{d->first, 0};
    return ComputeCapability::from_arch(d->first);
  }
  return std::nullopt;
}

std::string SmTarget::to_string() const {
  const char* prefix = kind == ImageKind::kSass  ? "sm_"
                       : kind == ImageKind::kPtx ? "compute_"
                                                 : "lto_";
  return fmt::format("{}{}{}", prefix, arch, suffix(variant));
}

std::optional<SmTarget> SmTarget::parse(std::string_view text) {
  std::string t = to_lower(trim(text));
  std::string_view s = t;
  SmTarget target;
  if (s.starts_with("sm_") || s.starts_with("sm")) {
    target.kind = ImageKind::kSass;
    s.remove_prefix(s.starts_with("sm_") ? 3 : 2);
  } else if (s.starts_with("compute_") || s.starts_with("compute")) {
    target.kind = ImageKind::kPtx;
    s.remove_prefix(s.starts_with("compute_") ? 8 : 7);
  } else if (s.starts_with("lto_")) {
    target.kind = ImageKind::kLto;
    s.remove_prefix(4);
  } else {
    return std::nullopt;
  }
  auto d = parse_arch_digits(s);
  if (!d) return std::nullopt;
  target.arch = d->first;
  target.variant = d->second;
  return target;
}

std::string Version::to_string() const { return fmt::format("{}.{}", major, minor); }

std::optional<Version> Version::parse(std::string_view text) {
  std::string_view s = trim(text);
  if (s.starts_with("v") || s.starts_with("V")) s.remove_prefix(1);
  auto parts = split(s, '.');
  if (parts.size() == 1) {
    auto n = parse_uint(parts[0]);
    if (!n) return std::nullopt;
    if (*n >= 1000) return Version::from_cuda_int(static_cast<int>(*n));  // 13000
    if (*n > 99) return std::nullopt;
    return Version{static_cast<int>(*n), 0};
  }
  auto maj = parse_uint(parts[0]);
  auto min = parse_uint(parts[1]);
  if (!maj || !min || *maj > 99 || *min > 99) return std::nullopt;
  return Version{static_cast<int>(*maj), static_cast<int>(*min)};
}

std::string DriverVersion::to_string() const {
  if (patch == 0 && minor == 0) return fmt::format("{}", major);
  if (patch == 0) return fmt::format("{}.{:02}", major, minor);
  return fmt::format("{}.{:02}.{:02}", major, minor, patch);
}

std::optional<DriverVersion> DriverVersion::parse(std::string_view text) {
  auto parts = split(trim(text), '.');
  if (parts.empty() || parts.size() > 3) return std::nullopt;
  int v[3] = {0, 0, 0};
  for (size_t i = 0; i < parts.size(); ++i) {
    auto n = parse_uint(parts[i]);
    if (!n || *n > 100000) return std::nullopt;
    v[i] = static_cast<int>(*n);
  }
  if (v[0] < 100) return std::nullopt;  // driver branches are three digits (525, 580, 590)
  return DriverVersion{v[0], v[1], v[2]};
}

}  // namespace smcompat
