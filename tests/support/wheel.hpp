// A small wheel for tests, written with libzip: one fatbin member and a METADATA file.
#pragma once

#include <gtest/gtest.h>
#include <zip.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <vector>

namespace smcompat::testwheel {

/// Writes `p`: fancy/kernels.fatbin holding `fatbin`, and fancy-1.2.dist-info/METADATA holding
/// `metadata`.
inline void make_wheel(const std::filesystem::path& p, const std::vector<uint8_t>& fatbin,
                       const char* metadata) {
  int err = 0;
  zip_t* z = zip_open(p.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(z, nullptr);
  auto add = [&](const char* name, const void* data, size_t n) {
    zip_source_t* s = zip_source_buffer(z, data, n, 0);
    ASSERT_GE(zip_file_add(z, name, s, ZIP_FL_OVERWRITE), 0);
  };
  add("fancy/kernels.fatbin", fatbin.data(), fatbin.size());
  add("fancy-1.2.dist-info/METADATA", metadata, std::strlen(metadata));
  ASSERT_EQ(zip_close(z), 0);
}

}  // namespace smcompat::testwheel
