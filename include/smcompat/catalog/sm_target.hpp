// Names of GPU code targets and devices: sm_120, sm_120a, sm_120f, compute_90, lto_80, and compute
// capabilities 12.0. Parsing is forgiving on input ("12.0", "sm120", "120a") and strict on output.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace smcompat {

/// A device's compute capability, e.g. 12.0. Ordered by (major, minor).
struct ComputeCapability {
  int major = 0;
  int minor = 0;

  /// 120 for 12.0, 90 for 9.0 (the "arch number" used in sm_XX and fatbin headers).
  int arch() const { return major * 10 + minor; }
  static ComputeCapability from_arch(int arch) { return {arch / 10, arch % 10}; }
  /// "12.0"
  std::string to_string() const;
  /// Accepts "12.0", "12", "120", "sm_120", "sm_120a", "compute_90" (suffixes are dropped).
  static std::optional<ComputeCapability> parse(std::string_view text);

  auto operator<=>(const ComputeCapability&) const = default;
};

/// How an image was built: generic, architecture-specific (`a`) or family-specific (`f`).
enum class ArchVariant { kBase, kArchSpecific, kFamily };

/// What an image holds: machine code (SASS in a cubin), PTX for JIT, or LTO-IR for nvJitLink.
enum class ImageKind { kSass, kPtx, kLto };

const char* to_string(ImageKind kind);    // "sass", "ptx", "lto"
const char* suffix(ArchVariant variant);  // "", "a", "f"

/// A compilation target: kind × arch number × variant. Printed as sm_120f, compute_90a, lto_80.
struct SmTarget {
  ImageKind kind = ImageKind::kSass;
  int arch = 0;  ///< major*10 + minor, e.g. 120
  ArchVariant variant = ArchVariant::kBase;

  ComputeCapability cc() const { return ComputeCapability::from_arch(arch); }
  std::string to_string() const;
  /// Accepts sm_XX[a|f], compute_XX[a|f], lto_XX[a|f] (also without the underscore).
  static std::optional<SmTarget> parse(std::string_view text);

  auto operator<=>(const SmTarget&) const = default;
};

/// A "major.minor" version such as a CUDA release (13.0) or a PTX ISA version (9.1).
struct Version {
  int major = 0;
  int minor = 0;
  std::string to_string() const;  // "13.0"
  /// "13.0", "13", "13.0.88" (patch ignored), or a CUDA integer such as "13000".
  static std::optional<Version> parse(std::string_view text);
  /// From the integer cuDriverGetVersion returns: 13000 -> 13.0, 12080 -> 12.8.
  static Version from_cuda_int(int v) { return {v / 1000, (v % 1000) / 10}; }
  int to_cuda_int() const { return major * 1000 + minor * 10; }
  auto operator<=>(const Version&) const = default;
};

/// A driver build number such as 580.65.06, compared component-wise.
struct DriverVersion {
  int major = 0, minor = 0, patch = 0;
  std::string to_string() const;
  static std::optional<DriverVersion> parse(std::string_view text);
  auto operator<=>(const DriverVersion&) const = default;
};

}  // namespace smcompat
