// Verdicts (include/smcompat/verdict/verdict.hpp), from ../shared/reference/compatibility-rules.md:
// section 1 (which image runs where: fit.cpp), section 7 (selection order, working model)
// and section 12 (resources beyond image presence).
#include "smcompat/verdict/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "smcompat/util/strings.hpp"

namespace smcompat {

namespace {

// Ranking within a unit (higher wins): exact SASS > compatible SASS (higher arch first) >
// PTX JIT (higher arch first) > unsupported PTX. Among equal arches a base image is preferred to an
// a/f one (which of the two the driver prefers is unverified; the verdict is the same).
int64_t image_rank(const DeviceImage& img, const ImageVerdict& v) {
  if (rank(v.fit) > rank(Fit::kUnsupportedPtx)) return -1;   // cannot be chosen
  const int64_t by_fit = rank(Fit::kNoImage) - rank(v.fit);  // native 4 ... unsupported PTX 1
  return by_fit * 1'000'000 + img.target.arch * 10 +
         (img.target.variant == ArchVariant::kBase ? 1 : 0);
}

void choose(const FileInventory& inv, const std::vector<ImageVerdict>& iv, UnitVerdict& u) {
  int64_t best = -1;
  for (size_t i : u.images) {
    int64_t r = image_rank(inv.images[i], iv[i]);
    if (r > best) {
      best = r;
      u.chosen = i;
    }
  }
  if (u.chosen) {
    u.verdict = as_verdict(iv[*u.chosen].fit);
    u.reason = iv[*u.chosen].reason;
    return;
  }
  u.verdict = Fit::kNoImage;
  bool all_specific = !u.images.empty();
  bool only_lto = !u.images.empty();
  std::vector<std::string> offered;
  for (size_t i : u.images) {
    const auto& t = inv.images[i].target;
    if (t.variant == ArchVariant::kBase) all_specific = false;
    if (t.kind != ImageKind::kLto) only_lto = false;
    offered.push_back(t.to_string());
  }
  std::sort(offered.begin(), offered.end());
  offered.erase(std::unique(offered.begin(), offered.end()), offered.end());
  std::string list;
  for (const auto& o : offered) list += (list.empty() ? "" : ", ") + o;
  u.specialized_elsewhere = all_specific && !u.bare;
  if (u.images.empty())
    // A container header with no entries (the static CUDA runtime links one into every library):
    // nothing in it to load, for any GPU.
    u.reason = "an empty fatbin container: it holds no code for any GPU";
  else if (only_lto)
    u.reason = fmt::format("only LTO-IR ({}), which the driver cannot load", list);
  else if (u.specialized_elsewhere)
    u.reason = fmt::format("only architecture/family-specific code for other GPUs ({})", list);
  else
    u.reason = fmt::format("no compatible SASS and no usable PTX (offers {})", list);
}

// The distinct targets a unit offers, sorted.
std::vector<SmTarget> offer_of(const FileInventory& inv, const UnitVerdict& u) {
  std::vector<SmTarget> offer;
  for (size_t i : u.images) offer.push_back(inv.images[i].target);
  std::sort(offer.begin(), offer.end());
  offer.erase(std::unique(offer.begin(), offer.end()), offer.end());
  return offer;
}

constexpr const char* kPrelinkReason =
    "relocatable (-rdc) pre-link code: an input of device linking (nvlink at build time, or the "
    "runtime's JIT link when the device-linked image has no code for the GPU), never loaded as a "
    "module";

}  // namespace

FileVerdict judge_file(const FileInventory& inv, const Target& target, const Catalog& catalog) {
  FileVerdict fv;
  fv.images.reserve(inv.images.size());
  for (const auto& img : inv.images) {
    auto r = fit_image(img.target, target.cc, img.ptx_version, target.driver_cuda, catalog);
    fv.images.push_back(ImageVerdict{r.fit, std::move(r.reason)});
  }
  // Units: containers, then standalone images.
  std::vector<bool> in_unit(inv.images.size(), false);
  std::vector<std::optional<Fit>> jit_fits;  // per __nv_relfatbin container
  for (const auto& c : inv.containers) {
    UnitVerdict u;
    u.section = c.section;
    u.offset = c.offset;
    size_t kernelless = 0;
    for (size_t i = c.first_image; i < c.first_image + c.image_count && i < inv.images.size();
         ++i) {
      in_unit[i] = true;
      // Nothing to launch in it: not an image the unit can offer. Relocatable code is kept: its
      // device functions serve kernels elsewhere once linked.
      if (inv.images[i].kernelless() && !c.relocatable)
        kernelless++;
      else
        u.images.push_back(i);
    }
    choose(inv, fv.images, u);
    if (u.images.empty()) {
      u.no_code = true;
      u.loadable = !c.relocatable;
      if (kernelless)
        u.reason = fmt::format("{} image{} without a single kernel: nothing to launch on any GPU",
                               kernelless, kernelless == 1 ? "" : "s");
    } else if (c.relocatable) {
      // Pre-link code: what it could offer the runtime's JIT link is kept in jit_fits.
      u.loadable = false;
      // Linking needs relocatable SASS for exactly this GPU, or PTX to compile; compatible SASS
      // of a lower minor is not an input the link can use for this GPU.
      std::optional<Fit> link_fit;
      for (size_t k : u.images) {
        Fit f = fv.images[k].fit;
        if (f == Fit::kNative || (f == Fit::kPtxJit && link_fit != Fit::kNative) ||
            (f == Fit::kUnsupportedPtx && !link_fit))
          link_fit = f;
      }
      jit_fits.push_back(link_fit);
      u.verdict = Fit::kNoImage;
      u.chosen.reset();
      u.specialized_elsewhere = false;
      u.reason = kPrelinkReason;
    }
    fv.units.push_back(std::move(u));
  }
  for (size_t i = 0; i < inv.images.size(); ++i) {
    if (in_unit[i]) continue;
    UnitVerdict u;
    u.section = inv.images[i].section;
    u.offset = inv.images[i].entry_offset;
    u.images = {i};
    u.bare = inv.format == FileFormat::kHostElf;  // a cubin inside a host library
    choose(inv, fv.images, u);
    if (inv.images[i].kernelless() && !inv.images[i].relocatable) {
      u.no_code = true;
      u.chosen.reset();
      u.verdict = Fit::kNoImage;
      u.specialized_elsewhere = false;
      u.reason = "an image without a single kernel: nothing to launch on any GPU";
    }
    fv.units.push_back(std::move(u));
  }
  std::optional<Fit> best;
  for (const auto& u : fv.units) {
    if (u.no_code) {
      fv.no_code_units++;
      continue;
    }
    if (!u.loadable) {
      fv.prelink_units++;
      continue;
    }
    fv.unit_counts[static_cast<size_t>(u.verdict)]++;
    if (u.specialized_elsewhere) fv.specialized_elsewhere++;
    if (u.verdict == Fit::kNoImage) fv.units_without_image++;
    best = best ? smcompat::best(*best, u.verdict) : u.verdict;
  }
  fv.has_device_code = fv.units.size() > fv.no_code_units;
  // Units that offer different targets are a library built per architecture, choosing among
  // them at run time (cuBLAS); units that all offer the same targets are not alternatives to
  // each other: each is code the library needs.
  std::set<std::vector<SmTarget>> offers;
  for (const auto& u : fv.units)
    if (u.loadable && !u.no_code) offers.insert(offer_of(inv, u));
  fv.alternatives = offers.size() > 1;
  fv.verdict = best.value_or(Fit::kNoImage);
  fv.partial = fv.verdict != Fit::kNoImage && fv.units_without_image > 0;

  // The runtime's JIT link (docs/scan.md, "Pre-link code"): it links every pre-link container of
  // the device link, so each must offer PTX the driver can compile or SASS for exactly this GPU.
  if (!jit_fits.empty()) {
    size_t usable = 0;
    Fit link = Fit::kPtxJit;
    for (const auto& f : jit_fits) {
      if (!f) continue;
      if (*f == Fit::kPtxJit || *f == Fit::kNative) {
        usable++;
      } else if (*f == Fit::kUnsupportedPtx) {
        usable++;
        link = Fit::kUnsupportedPtx;
      }
    }
    bool device_linked = std::any_of(fv.units.begin(), fv.units.end(), [](const UnitVerdict& u) {
      return u.loadable && u.section == ".nv_fatbin";
    });
    if (!device_linked) {
      // An object before device linking (nvcc -dc): nothing registers this code.
      fv.jit_link_reason =
          "no device-linked image (.nv_fatbin) to register: relocatable (-rdc) code that has not "
          "been device-linked is never handed to the runtime";
    } else if (usable == jit_fits.size()) {
      fv.jit_link = link;
      fv.jit_link_reason = fmt::format(
          "the runtime can JIT-link the {} relocatable (-rdc) pre-link containers for {}",
          jit_fits.size(), target.cc.to_string());
    } else {
      fv.jit_link_reason = fmt::format(
          "{} of {} relocatable (-rdc) pre-link containers have no PTX or native SASS for {}: "
          "the runtime's JIT link cannot cover them",
          jit_fits.size() - usable, jit_fits.size(), target.cc.to_string());
    }
    // A binary has one device-linked image (link.stub registers one __fatDeviceText), and the
    // JIT link replaces only that one; any other unit without an image still has none. So the
    // link decides the file only when no other unit is left without code for this GPU but
    // arch-gated specialisations for other GPUs.
    size_t left_without = fv.units_without_image - fv.specialized_elsewhere;
    if (fv.jit_link && fv.verdict == Fit::kNoImage && left_without > 1) {
      fv.jit_link_reason += fmt::format(
          ", but that replaces only the one device-linked image: {} other units still have no "
          "image",
          left_without - 1);
    } else if (fv.jit_link && fv.verdict == Fit::kNoImage) {
      fv.verdict = *fv.jit_link;
      fv.jit_link_used = true;
      fv.partial = fv.units_without_image > 1;
    }
  }

  // Resources: static shared memory of the chosen SASS kernels against the opt-in limit.
  const ArchInfo* arch = catalog.arch(target.cc.arch());
  if (arch && arch->smem_per_block_optin) {
    for (const auto& u : fv.units) {
      if (!u.chosen) continue;
      const DeviceImage& img = inv.images[*u.chosen];
      if (!img.cubin) continue;
      for (const auto& k : img.cubin->kernels) {
        if (k.shared_bytes > *arch->smem_per_block_optin) {
          fv.resource_warnings.push_back(ResourceWarning{
              *u.chosen, k.name,
              fmt::format("static shared memory {} bytes exceeds the {}-byte per-block opt-in "
                          "limit of {}",
                          k.shared_bytes, *arch->smem_per_block_optin, target.cc.to_string())});
        }
      }
    }
  }
  size_t total = fv.units.size() - fv.prelink_units - fv.no_code_units;
  if (!fv.has_device_code) {
    fv.summary = fv.no_code_units && !inv.images.empty()
                     ? "only images without kernels: nothing to launch on any GPU"
                     : "no device code";
    return fv;
  }
  if (auto reason = driver_cannot_run_gpu(target, catalog); reason && fv.verdict != Fit::kNoImage) {
    fv.code_verdict = fv.verdict;
    fv.verdict = Fit::kDriverTooOld;
    fv.driver_reason = *reason;
  }
  std::string prelink =
      fv.prelink_units
          ? fmt::format("; {} relocatable (-rdc) pre-link containers not counted", fv.prelink_units)
          : "";
  if (fv.jit_link_used) {
    fv.summary = fmt::format("no loadable unit of {} has an image for {}; {}", total,
                             target.cc.to_string(), fv.jit_link_reason);
    return fv;
  }
  size_t fitting = total - fv.units_without_image;
  if (fv.verdict == Fit::kDriverTooOld) {
    fv.summary =
        fmt::format("{} by its code, but {}", to_string(fv.code_verdict), fv.driver_reason);
  } else if (fv.verdict == Fit::kNoImage) {
    fv.summary = fmt::format("none of {} units has an image for {}", total, target.cc.to_string());
    if (fv.prelink_units) fv.summary += "; " + fv.jit_link_reason;
  } else {
    std::string parts;
    for (size_t v = 0; v + 1 < kVerdictFitCount; ++v) {
      if (!fv.unit_counts[v]) continue;
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", fv.unit_counts[v],
                           to_string(static_cast<Fit>(v)));
    }
    fv.summary = fmt::format("{} of {} units run ({})", fitting, total, parts);
    if (fv.partial) {
      fv.summary +=
          fmt::format("; {} have no image for {}", fv.units_without_image, target.cc.to_string());
      if (fv.specialized_elsewhere)
        fv.summary +=
            fmt::format(" ({} of them a/f-specific code for other GPUs)", fv.specialized_elsewhere);
    }
  }
  fv.summary += prelink;
  return fv;
}

std::string driver_for_cuda(Version cuda, const Catalog& catalog) {
  if (const CudaRelease* r = catalog.cuda_release(cuda); r && r->min_driver_linux)
    return r->min_driver_linux->to_string() + " or newer";
  return "";
}

std::string driver_words(Version cuda, const Catalog& catalog) {
  std::string driver = driver_for_cuda(cuda, catalog);
  return fmt::format("a driver for CUDA {} or newer{}", cuda.to_string(),
                     driver.empty() ? "" : " (" + driver + ")");
}

std::optional<std::string> driver_cannot_run_gpu(const Target& target, const Catalog& catalog) {
  if (!target.driver_cuda) return std::nullopt;
  const ArchInfo* arch = catalog.arch(target.cc.arch());
  if (!arch || !arch->first_cuda || !(*target.driver_cuda < *arch->first_cuda)) return std::nullopt;
  return fmt::format("the driver supports CUDA {}, and sm_{} needs {}",
                     target.driver_cuda->to_string(), target.cc.arch(),
                     driver_words(*arch->first_cuda, catalog));
}

}  // namespace smcompat
