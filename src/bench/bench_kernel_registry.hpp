// The rows of the generated registry of embedded bench kernel images (src/bench/CMakeLists.txt
// writes bench_kernel_images.cpp; src/bench/kernels.cpp reads it). Plain types only: the
// generated file is compiled outside the bench layer's include view.
#pragma once

#include <cstddef>

namespace smcompat::bench::detail {

struct EmbeddedImageRow {
  bool ptx;                   ///< PTX text (NUL-terminated) rather than a cubin
  int arch;                   ///< 90 for sm_90 / compute_90
  const unsigned char* data;  ///< followed by a NUL not counted in *size
  const std::size_t* size;
};

/// kEmbeddedImageCount rows (the array holds one placeholder row when there are none).
extern const EmbeddedImageRow kEmbeddedImageRows[];
extern const std::size_t kEmbeddedImageCount;
/// Why there are no images ("built without nvcc ..."); empty when there are.
extern const char* const kEmbeddedImagesAbsentReason;
/// The CUDA release of the nvcc that built them ("13.0"), empty if unknown.
extern const char* const kEmbeddedImagesToolkit;

}  // namespace smcompat::bench::detail
