// The tcgen05.mma instruction descriptor (PTX ISA 9.1, "Instruction descriptor", Table 42, for
// .kind::f16, .kind::tf32 and .kind::f8f6f4), decoded once for the interpreter
// (interp_tcgen05.cpp) and the lowering (lower_tcgen05.cpp).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string_view>

#include "smcompat/util/result.hpp"

namespace smcompat::ptx {

struct Tcgen05MmaShape {
  unsigned m = 0, n = 0, k = 0;
  std::string_view a, b;  ///< "f16", "bf16", "tf32", "e4m3" or "e5m2"
  bool d_f32 = false;     ///< D is f32 (else f16)
  bool negate_a = false, negate_b = false;
  bool mn_major_a = false, mn_major_b = false;  ///< "transpose" bits 15 and 16
};

/// Decodes a cta_group::1 dense descriptor of `kind` ("kind::f16" ...); a reason when the
/// descriptor asks for something outside that subset (sparse, .ws shift, fp6/fp4, shapes).
inline Result<Tcgen05MmaShape> decode_tcgen05_descriptor(uint32_t d, std::string_view kind) {
  Tcgen05MmaShape o;
  if (d & 4) return make_error("sparse MMA (descriptor bit 2)");
  if (d >> 30) return make_error("a B-reuse shift (descriptor bits 30-31, .ws only)");
  const unsigned dtype = (d >> 4) & 3, atype = (d >> 7) & 7, btype = (d >> 10) & 7;
  o.negate_a = (d >> 13) & 1;
  o.negate_b = (d >> 14) & 1;
  o.mn_major_a = (d >> 15) & 1;
  o.mn_major_b = (d >> 16) & 1;
  o.n = ((d >> 17) & 63) << 3;
  o.m = ((d >> 24) & 31) << 4;
  if (dtype > 1) return make_error(fmt::format("D type {} is neither f16 (0) nor f32 (1)", dtype));
  o.d_f32 = dtype == 1;
  auto fp8 = [](unsigned v) -> std::string_view { return v == 0 ? "e4m3" : v == 1 ? "e5m2" : ""; };
  if (kind == "kind::f16") {
    if (atype > 1 || btype != atype) return make_error("A/B types are not f16/f16 or bf16/bf16");
    o.a = o.b = atype == 0 ? "f16" : "bf16";
    if (atype == 1 && !o.d_f32) return make_error("bf16 inputs with an f16 D");
    o.k = 16;
  } else if (kind == "kind::tf32") {
    if (atype != 2 || btype != 2 || !o.d_f32) return make_error("tf32 needs A/B type 2 and D f32");
    o.a = o.b = "tf32";
    o.k = 8;
  } else if (kind == "kind::f8f6f4") {
    o.a = fp8(atype);
    o.b = fp8(btype);
    if (o.a.empty() || o.b.empty())
      return make_error(
          fmt::format("A/B types {}/{}: only e4m3 (0) and e5m2 (1), not fp6/fp4", atype, btype));
    o.k = 32;
  } else {
    return make_error(fmt::format(".{}", kind));
  }
  const bool n_ok =
      o.m == 64 ? (o.n >= 8 && o.n <= 256) : (o.n >= 16 && o.n <= 256 && o.n % 16 == 0);
  if ((o.m != 64 && o.m != 128) || !n_ok)
    return make_error(fmt::format("M={} N={} is not a cta_group::1 shape", o.m, o.n));
  return o;
}

}  // namespace smcompat::ptx
