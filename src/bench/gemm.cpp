// The gemm suite's plan, cuBLASLt type mapping and the exact small-case reference check
// (gemm.hpp). No GPU and no cuBLASLt are needed here.
#include "smcompat/bench/gemm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace smcompat::bench {

namespace cl = cublaslt;

namespace {

// The catalog feature a precision needs (architecture row), or nullptr if every tensor-core GPU
// the suite supports has it.
const char* needed_feature(Precision p, std::string_view variant) {
  if (!variant.empty()) return "fp4";  // block-scaled MMA came with the fp4 generation
  switch (p) {
    case Precision::kTf32:
      return "tf32";
    case Precision::kBf16:
      return "bf16";
    case Precision::kFp8E4M3:
    case Precision::kFp8E5M2:
      return "fp8";
    case Precision::kFp4:
      return "fp4";
    default:
      return nullptr;
  }
}

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) { return (v + to - 1) / to * to; }

}  // namespace

std::size_t type_bits(int type) {
  switch (type) {
    case cl::kR64F:
      return 64;
    case cl::kR32F:
      return 32;
    case cl::kR16F:
    case cl::kR16BF:
      return 16;
    case cl::kR8F_E4M3:
    case cl::kR8F_E5M2:
    case cl::kR8F_UE8M0:
      return 8;
    case cl::kR4F_E2M1:
      return 4;
    default:
      return 0;
  }
}

std::optional<GemmTypes> gemm_types(Precision p, std::string_view variant) {
  GemmTypes t;
  t.scale = cl::kR32F;
  t.compute = cl::kCompute32F;
  if (variant == "mxfp8") {
    t.a = t.b = cl::kR8F_E4M3;
    t.c = t.d = cl::kR16BF;
    t.block_scale_mode = cl::kScaleVec32UE8M0;
    t.block_size = 32;
  } else if (variant == "nvfp4") {
    t.a = t.b = cl::kR4F_E2M1;
    t.c = t.d = cl::kR16BF;
    t.block_scale_mode = cl::kScaleVec16UE4M3;
    t.block_size = 16;
  } else if (!variant.empty()) {
    return std::nullopt;
  } else {
    switch (p) {
      case Precision::kFp64:
        t.a = t.b = t.c = t.d = cl::kR64F;
        t.compute = cl::kCompute64F;
        t.scale = cl::kR64F;
        break;
      case Precision::kFp32:
        t.a = t.b = t.c = t.d = cl::kR32F;
        break;
      case Precision::kTf32:
        t.a = t.b = t.c = t.d = cl::kR32F;
        t.compute = cl::kCompute32FFastTf32;
        break;
      // FP32 accumulate: what the catalog's fp16_bf16 peak is quoted for.
      case Precision::kFp16:
        t.a = t.b = t.c = t.d = cl::kR16F;
        break;
      case Precision::kBf16:
        t.a = t.b = t.c = t.d = cl::kR16BF;
        break;
      case Precision::kFp8E4M3:
        t.a = t.b = cl::kR8F_E4M3;
        t.c = t.d = cl::kR16BF;
        t.scale_pointers = true;
        break;
      case Precision::kFp8E5M2:
        // cuBLASLt has no e5m2 × e5m2; e5m2 × e4m3 is the supported pairing.
        t.a = cl::kR8F_E5M2;
        t.b = cl::kR8F_E4M3;
        t.c = t.d = cl::kR16BF;
        t.scale_pointers = true;
        break;
      default:
        return std::nullopt;  // fp4 only block-scaled; int8 not in this suite
    }
  }
  t.a_bits = type_bits(t.a);
  t.b_bits = type_bits(t.b);
  t.d_bits = type_bits(t.d);
  return t;
}

std::string GemmConfig::name() const {
  const std::string type = variant.empty() ? to_string(precision) : variant;
  if (batch > 1) return fmt::format("{} batched {}x{}x{}x{}", type, batch, m, n, k);
  return fmt::format("{} {}x{}x{}", type, m, n, k);
}

std::uint64_t GemmConfig::bytes() const {
  const std::uint64_t a = m * k * types.a_bits / 8, b = k * n * types.b_bits / 8,
                      d = m * n * types.d_bits / 8;
  std::uint64_t scales = 0;
  if (types.block_size > 0) {
    // One byte per block, padded to the 128×4 tiles cuBLASLt's scale layout uses.
    scales = round_up(m, 128) * round_up(k / types.block_size, 4) +
             round_up(n, 128) * round_up(k / types.block_size, 4);
  }
  return (a + b + d + scales) * batch;
}

std::vector<GemmPlanEntry> gemm_plan(const ArchInfo* arch, const GemmPlanOptions& options) {
  const std::vector<std::uint64_t> sizes =
      options.quick ? std::vector<std::uint64_t>{4096, 8192}
                    : std::vector<std::uint64_t>{1024, 2048, 4096, 8192, 16384};
  std::vector<Precision> precisions = options.precisions;
  if (precisions.empty()) {
    precisions = {Precision::kFp64, Precision::kFp32,    Precision::kTf32,   Precision::kFp16,
                  Precision::kBf16, Precision::kFp8E4M3, Precision::kFp8E5M2};
  }
  std::vector<GemmPlanEntry> plan;
  const auto add = [&](Precision p, std::string_view variant, std::uint64_t size,
                       std::uint64_t batch) {
    GemmPlanEntry e;
    e.config.precision = p;
    e.config.variant = std::string(variant);
    e.config.m = e.config.n = e.config.k = size;
    e.config.batch = batch;
    auto types = gemm_types(p, variant);
    if (!types) {
      e.skip_reason = fmt::format("{} is not a cuBLASLt GEMM type of this suite", to_string(p));
      plan.push_back(std::move(e));
      return;
    }
    e.config.types = *types;
    if (options.device_memory &&
        static_cast<double>(e.config.bytes()) > 0.8 * static_cast<double>(*options.device_memory)) {
      e.skip_reason = fmt::format("needs {:.1f} GiB of device memory; the GPU has {:.1f} GiB",
                                  static_cast<double>(e.config.bytes()) / (1ull << 30),
                                  static_cast<double>(*options.device_memory) / (1ull << 30));
    }
    plan.push_back(std::move(e));
  };
  // One skip per precision (and variant) the architecture lacks.
  const auto lacks = [&](Precision p, std::string_view variant) -> bool {
    const char* feature = needed_feature(p, variant);
    if (!feature || (arch && arch->has_feature(feature))) return false;
    GemmPlanEntry e;
    e.config.precision = p;
    e.config.variant = std::string(variant);
    e.config.m = e.config.n = e.config.k = sizes.back();
    if (auto t = gemm_types(p, variant)) e.config.types = *t;
    e.skip_reason =
        arch ? fmt::format("sm_{} has no {} ({}; catalog architecture features)", arch->sm, feature,
                           variant.empty() ? to_string(p) : std::string(variant))
             : fmt::format("the GPU's architecture is not in the catalog: {} not assumed", feature);
    plan.push_back(std::move(e));
    return true;
  };
  for (Precision p : precisions) {
    if (lacks(p, "")) continue;
    for (auto size : sizes) add(p, "", size, 1);
  }
  for (Precision p : precisions) {
    if (needed_feature(p, "") && !(arch && arch->has_feature(needed_feature(p, "")))) continue;
    add(p, "", 1024, 32);
  }
  if (options.precisions.empty()) {
    const std::pair<Precision, const char*> block_scaled[] = {{Precision::kFp8E4M3, "mxfp8"},
                                                              {Precision::kFp4, "nvfp4"}};
    for (const auto& [p, variant] : block_scaled) {
      if (lacks(p, variant)) continue;
      add(p, variant, 8192, 1);
    }
  }
  return plan;
}

int verify_a(std::uint64_t i, std::uint64_t l) { return static_cast<int>((i * 3 + l * 5) % 5) - 2; }
int verify_b(std::uint64_t l, std::uint64_t j) { return static_cast<int>((l * 7 + j * 2) % 5) - 2; }

std::vector<double> reference_gemm(std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  std::vector<double> d(m * n, 0.0);
  for (std::uint64_t j = 0; j < n; ++j) {
    for (std::uint64_t i = 0; i < m; ++i) {
      double sum = 0;
      for (std::uint64_t l = 0; l < k; ++l) sum += verify_a(i, l) * verify_b(l, j);
      d[j * m + i] = sum;
    }
  }
  return d;
}

bool encode_small_int(int value, int type, std::span<std::uint8_t> out, std::size_t index) {
  if (value < -2 || value > 2) return false;
  const std::size_t bits = type_bits(type);
  if (bits == 0 || (index + 1) * bits > out.size() * 8) return false;
  const unsigned mag = static_cast<unsigned>(value < 0 ? -value : value);
  const bool neg = value < 0;
  // Bit patterns of 0, 1 and 2 (sign bit clear), from each format's definition (IEEE 754 binary16,
  // bfloat16; OCP FP8 E4M3 bias 7 and E5M2 bias 15; OCP MX FP4 E2M1 bias 1).
  switch (type) {
    case cl::kR64F: {
      const double v = value;
      std::memcpy(out.data() + index * 8, &v, 8);
      return true;
    }
    case cl::kR32F: {
      const float v = static_cast<float>(value);
      std::memcpy(out.data() + index * 4, &v, 4);
      return true;
    }
    case cl::kR16F:
    case cl::kR16BF: {
      static constexpr std::array<std::uint16_t, 3> kHalf = {0x0000, 0x3C00, 0x4000};
      static constexpr std::array<std::uint16_t, 3> kBf16 = {0x0000, 0x3F80, 0x4000};
      std::uint16_t bitsv = (type == cl::kR16F ? kHalf : kBf16)[mag];
      if (neg) bitsv |= 0x8000;
      out[index * 2] = static_cast<std::uint8_t>(bitsv & 0xFF);
      out[index * 2 + 1] = static_cast<std::uint8_t>(bitsv >> 8);
      return true;
    }
    case cl::kR8F_E4M3:
    case cl::kR8F_E5M2: {
      static constexpr std::array<std::uint8_t, 3> kE4m3 = {0x00, 0x38, 0x40};
      static constexpr std::array<std::uint8_t, 3> kE5m2 = {0x00, 0x3C, 0x40};
      std::uint8_t b = (type == cl::kR8F_E4M3 ? kE4m3 : kE5m2)[mag];
      if (neg) b |= 0x80;
      out[index] = b;
      return true;
    }
    case cl::kR4F_E2M1: {
      static constexpr std::array<std::uint8_t, 3> kE2m1 = {0x0, 0x2, 0x4};
      std::uint8_t nib = kE2m1[mag];
      if (neg) nib |= 0x8;
      std::uint8_t& byte = out[index / 2];
      byte = index % 2 == 0 ? static_cast<std::uint8_t>((byte & 0xF0) | nib)
                            : static_cast<std::uint8_t>((byte & 0x0F) | (nib << 4));
      return true;
    }
    default:
      return false;
  }
}

std::optional<double> decode_element(int type, std::span<const std::uint8_t> data,
                                     std::size_t index) {
  const std::size_t bits = type_bits(type);
  if (bits < 16 || (index + 1) * bits > data.size() * 8) return std::nullopt;
  switch (type) {
    case cl::kR64F: {
      double v;
      std::memcpy(&v, data.data() + index * 8, 8);
      return v;
    }
    case cl::kR32F: {
      float v;
      std::memcpy(&v, data.data() + index * 4, 4);
      return v;
    }
    case cl::kR16BF: {
      const std::uint32_t b = data[index * 2] | (data[index * 2 + 1] << 8);
      const std::uint32_t f = b << 16;  // bf16 is the upper half of a binary32
      float v;
      std::memcpy(&v, &f, 4);
      return v;
    }
    case cl::kR16F: {
      const std::uint32_t h = data[index * 2] | (data[index * 2 + 1] << 8);
      const int exp = static_cast<int>((h >> 10) & 0x1F);
      const double frac = h & 0x3FF;
      double v;
      if (exp == 0) {
        v = std::ldexp(frac, -24);  // subnormal
      } else if (exp == 31) {
        v = frac == 0 ? HUGE_VAL : NAN;
      } else {
        v = std::ldexp(1024 + frac, exp - 25);
      }
      return (h & 0x8000) ? -v : v;
    }
    default:
      return std::nullopt;
  }
}

std::uint8_t unit_scale_byte(int type) {
  // UE8M0 is a bare biased exponent (bias 127); UE4M3 is E4M3 without sign (1.0 = 0x38).
  return type == cl::kR8F_UE8M0 ? 0x7F : 0x38;
}

bool fill_random(int type, std::span<std::uint8_t> out, std::uint64_t seed) {
  // splitmix64: fast, deterministic, good enough to decorrelate bits.
  std::uint64_t x = seed;
  const auto next = [&x] {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  // Each element: random sign and significand, exponent from a small set around 1 (never
  // Inf/NaN). Encoded directly in the format's bit layout.
  switch (type) {
    case cl::kR64F:
      for (std::size_t i = 0; i + 8 <= out.size(); i += 8) {
        const std::uint64_t r = next();
        const std::uint64_t bits =
            (r & 0x800FFFFFFFFFFFFFull) | ((1021ull + (r >> 52) % 3) << 52);  // 2^-2 .. 2^0
        std::memcpy(out.data() + i, &bits, 8);
      }
      return true;
    case cl::kR32F:
      for (std::size_t i = 0; i + 4 <= out.size(); i += 4) {
        const auto r = static_cast<std::uint32_t>(next());
        const std::uint32_t bits = (r & 0x807FFFFFu) | ((125u + (r >> 23) % 3) << 23);
        std::memcpy(out.data() + i, &bits, 4);
      }
      return true;
    case cl::kR16F:
    case cl::kR16BF:
      for (std::size_t i = 0; i + 2 <= out.size(); i += 2) {
        const auto r = static_cast<std::uint32_t>(next());
        const std::uint16_t bits =
            type == cl::kR16F
                ? static_cast<std::uint16_t>((r & 0x83FFu) | ((13u + (r >> 16) % 3) << 10))
                : static_cast<std::uint16_t>((r & 0x807Fu) | ((125u + (r >> 16) % 3) << 7));
        out[i] = static_cast<std::uint8_t>(bits & 0xFF);
        out[i + 1] = static_cast<std::uint8_t>(bits >> 8);
      }
      return true;
    case cl::kR8F_E4M3:
    case cl::kR8F_E5M2:
      for (auto& byte : out) {
        const auto r = static_cast<std::uint32_t>(next());
        byte = type == cl::kR8F_E4M3
                   ? static_cast<std::uint8_t>((r & 0x87u) | ((5u + (r >> 8) % 3) << 3))
                   : static_cast<std::uint8_t>((r & 0x83u) | ((13u + (r >> 8) % 3) << 2));
      }
      return true;
    case cl::kR4F_E2M1:
      // Every e2m1 code is a finite value (0, ±0.5 … ±6).
      for (auto& byte : out) byte = static_cast<std::uint8_t>(next());
      return true;
    case cl::kR8F_UE8M0:
      std::fill(out.begin(), out.end(), unit_scale_byte(type));
      return true;
    default:
      return false;
  }
}

std::optional<VerifyInputs> verify_inputs(const GemmTypes& types, std::uint64_t m, std::uint64_t n,
                                          std::uint64_t k) {
  VerifyInputs in;
  in.a.assign((m * k * types.a_bits + 7) / 8, 0);
  in.b.assign((k * n * types.b_bits + 7) / 8, 0);
  // A is stored transposed (k×m, lda k): A(i, l) at l + i·k.
  for (std::uint64_t i = 0; i < m; ++i) {
    for (std::uint64_t l = 0; l < k; ++l) {
      if (!encode_small_int(verify_a(i, l), types.a, in.a, l + i * k)) return std::nullopt;
    }
  }
  for (std::uint64_t j = 0; j < n; ++j) {
    for (std::uint64_t l = 0; l < k; ++l) {
      if (!encode_small_int(verify_b(l, j), types.b, in.b, l + j * k)) return std::nullopt;
    }
  }
  return in;
}

Result<void> check_against_reference(int d_type, std::span<const std::uint8_t> d, std::uint64_t m,
                                     std::uint64_t n, std::uint64_t k) {
  const auto ref = reference_gemm(m, n, k);
  std::size_t bad = 0;
  std::string first;
  for (std::uint64_t j = 0; j < n; ++j) {
    for (std::uint64_t i = 0; i < m; ++i) {
      auto got = decode_element(d_type, d, j * m + i);
      if (!got) return make_error(fmt::format("D type {} cannot be read back", d_type));
      if (*got != ref[j * m + i]) {
        if (bad++ == 0)
          first = fmt::format("D({}, {}) = {} (expected {})", i, j, *got, ref[j * m + i]);
      }
    }
  }
  if (bad > 0) {
    return make_error(fmt::format("{} of {} elements differ from the CPU reference; first: {}", bad,
                                  m * n, first));
  }
  return {};
}

}  // namespace smcompat::bench
