// Verdicts: will the device code in a file run on a target GPU, and how? Pure functions of an
// Inventory (binary/) and a Target, using the catalog's compatibility rules. These are
// predictions from files; `smcompat trace` observes what the driver really does.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/binary/inventory.hpp"
#include "smcompat/catalog/catalog.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/verdict/fit.hpp"
#include "smcompat/verdict/targets.hpp"

namespace smcompat {

/// How one image fits the target.
struct ImageVerdict {
  Fit fit = Fit::kNoImage;
  std::string reason;
};

/// A unit of loading: a fatbin container (all of its images are alternatives for the same code)
/// or a standalone image (bare cubin, .cubin or .ptx file).
struct UnitVerdict {
  Fit verdict = Fit::kNoImage;
  std::optional<size_t> chosen;        ///< index into FileInventory::images of the predicted choice
  std::vector<size_t> images;          ///< indices of the unit's images
  bool specialized_elsewhere = false;  ///< nothing fits and every image is an `a`/`f` target for
                                       ///< other GPUs: a library's arch-gated specialisation
  bool bare = false;                   ///< a bare cubin the library loads itself (chooses by arch)
  /// false for `__nv_relfatbin` containers: relocatable (-rdc) pre-link code is never loaded as a
  /// module; it is an input of device linking (nvlink at build time, or the runtime's JIT link
  /// when the device-linked image has no code for the GPU). Such units are listed but not counted.
  bool loadable = true;
  /// Nothing to launch: an empty container, or cubins without a single kernel (DeviceImage::
  /// kernelless). Listed, never counted: no GPU can lack what is not there.
  bool no_code = false;
  std::string section;
  uint64_t offset = 0;
  std::string reason;
};

/// A kernel whose resources exceed what the target allows.
struct ResourceWarning {
  size_t image = 0;  ///< index into FileInventory::images
  std::string kernel;
  std::string message;
};

struct FileVerdict {
  Fit verdict = Fit::kNoImage;  ///< see judge_file() for how units combine
  bool partial = false;         ///< some units have no image although the verdict is not no-image
  size_t units_without_image = 0;
  bool has_device_code = false;
  std::vector<ImageVerdict> images;  ///< parallel to FileInventory::images
  std::vector<UnitVerdict> units;
  std::array<size_t, kVerdictFitCount> unit_counts{};  ///< units per verdict
  size_t specialized_elsewhere = 0;  ///< no-image units that are arch-gated specialisations
  size_t prelink_units = 0;          ///< `__nv_relfatbin` containers (units with loadable=false)
  size_t no_code_units = 0;          ///< units with nothing to launch (UnitVerdict::no_code)
  /// The loadable units offer different sets of targets: a library built per architecture that
  /// picks among them at run time (cuBLAS), where units without an image for this GPU can be
  /// normal. When every unit offers the same targets they are not alternatives to each other.
  bool alternatives = false;
  /// The verdict of the code itself when the driver decides the file (verdict kDriverTooOld).
  Fit code_verdict = Fit::kNoImage;
  std::string driver_reason;  ///< why the driver cannot run it, with the driver to install
  /// How the runtime's JIT link of the pre-link containers would fit (ptx-jit or unsupported-ptx)
  /// when every one of them offers PTX the driver can compile or native SASS; it decides the file
  /// verdict only when no loadable unit fits (the runtime links only then).
  std::optional<Fit> jit_link;
  bool jit_link_used = false;  ///< the file verdict comes from the JIT link
  std::string jit_link_reason;
  std::vector<ResourceWarning> resource_warnings;
  std::string summary;  ///< one line for people
};

/// Judges every image and unit of a file. The file verdict is the best way the file's code can
/// run on the target: multi-architecture libraries (cuBLAS, cuDNN) compile many units for one
/// architecture each and select among them at run time, so units without an image for this GPU
/// are normal there; which units a library will call cannot be known from the file. Such units
/// are counted (`units_without_image`, `partial`) and the ones holding only `a`/`f` code for
/// other GPUs are told apart (`specialized_elsewhere`). A file none of whose units fits is
/// `no-image`: nothing in it can run, unless the runtime's JIT link of its `__nv_relfatbin`
/// pre-link code can (`jit_link`; docs/scan.md has the evidence for when that happens).
/// Image choice within a unit follows the working model of compatibility-rules.md 7: exact SASS,
/// then the highest compatible SASS, then the highest compatible PTX (unverified on a GPU).
FileVerdict judge_file(const FileInventory& inv, const Target& target,
                       const Catalog& catalog = Catalog::builtin());

/// Whether the target's driver can run any code on its GPU: nullopt when it can (or the driver
/// is unknown), else the reason with the driver to install ("the driver supports CUDA 12.6;
/// sm_120 needs CUDA 12.8 or newer: driver 570.26 or newer"). From the catalog's first CUDA per
/// architecture (compatibility-rules.md 10) and the driver table (section 9).
std::optional<std::string> driver_cannot_run_gpu(const Target& target,
                                                 const Catalog& catalog = Catalog::builtin());
/// The minimum Linux driver for a CUDA release, as "570.26 or newer", or "" if not in the table.
std::string driver_for_cuda(Version cuda, const Catalog& catalog = Catalog::builtin());
/// The driver to install, in the words every verdict and note uses: "a driver for CUDA 13.0 or
/// newer (580.65.06 or newer)".
std::string driver_words(Version cuda, const Catalog& catalog = Catalog::builtin());

}  // namespace smcompat
