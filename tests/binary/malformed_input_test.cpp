// Malformed input is normal input: truncated files (every prefix of small fixtures: the
// "truncation sweep"), corrupted header fields, sizes pointing past the end, decompression bombs,
// zip members that lie about their size, symlink loops, unreadable and special files. Each must
// give an error naming the file and an offset where one exists, nothing may crash or hang, and the
// rest of the file or scan goes on. Inputs are derived from the nvcc fixtures at test time; zstd
// bombs are written by hand from the frame format (RFC 8878 sections 3.1.1-3.1.1.2: an RLE block
// of up to 128 KiB costs 4 bytes).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "fixtures/support.hpp"
#include "smcompat/binary/elf.hpp"
#include "smcompat/binary/fatbin.hpp"
#include "smcompat/binary/inventory.hpp"
#include "smcompat/scan/scan.hpp"

namespace smcompat {
namespace {

using testing::fixture;
using Bytes = std::vector<uint8_t>;

void put16(Bytes& b, size_t at, uint16_t v) { std::memcpy(b.data() + at, &v, 2); }
void put32(Bytes& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
void put64(Bytes& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }
uint16_t get16(const Bytes& b, size_t at) {
  uint16_t v;
  std::memcpy(&v, b.data() + at, 2);
  return v;
}
uint32_t get32(const Bytes& b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}
uint64_t get64(const Bytes& b, size_t at) {
  uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}

std::vector<FileInventory> inspect(const Bytes& bytes, const std::string& name, bool deep = true) {
  InspectOptions opt;
  opt.deep = deep;
  opt.jobs = 1;
  // An exactly sized heap copy, so that sanitizers see any read past the end.
  std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.size() ? bytes.size() : 1]);
  if (!bytes.empty()) std::memcpy(exact.get(), bytes.data(), bytes.size());
  return inspect_buffer(ByteView(exact.get(), bytes.size()), name, opt);
}

// Every error of the result names the file, and at least one carries an offset inside the input.
::testing::AssertionResult has_located_error(const std::vector<FileInventory>& inv,
                                             const std::string& name, uint64_t size) {
  bool located = false;
  for (const auto& f : inv) {
    for (const auto& e : f.errors) {
      if (e.file.rfind(name, 0) != 0)
        return ::testing::AssertionFailure()
               << "error does not name " << name << ": " << e.to_string();
      if (e.offset && *e.offset <= size) located = true;
    }
  }
  if (!located)
    return ::testing::AssertionFailure() << "no error with an offset within " << size
                                         << " bytes; errors: [" << testing::all_errors(inv) << "]";
  return ::testing::AssertionSuccess();
}

// The first error's offset (for exact-field checks).
std::optional<uint64_t> first_error_offset(const std::vector<FileInventory>& inv) {
  for (const auto& f : inv)
    for (const auto& e : f.errors) return e.offset;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Truncation sweeps.

// Every prefix of a fatbin that holds its magic is an error at a known offset; shorter prefixes
// are simply not a fatbin. Deep decode is on, so a prefix that cuts a compressed payload is also
// exercised through the decompressors.
TEST(Malformed, TruncationSweepFatbin) {
  SMCOMPAT_REQUIRE_FIXTURES();
  for (const char* name : {"compress_size.fatbin", "compress_speed_all.fatbin",
                           "compress_none.fatbin", "compute120f.fatbin", "lto.fatbin"}) {
    Bytes full = testing::read_bytes(fixture(name));
    ASSERT_GT(full.size(), 64u);
    auto whole = inspect(full, name);
    ASSERT_TRUE(whole[0].errors.empty()) << testing::all_errors(whole);
    size_t failures = 0;
    for (size_t n = 0; n < full.size() && failures < 5; ++n) {
      Bytes prefix(full.begin(), full.begin() + n);
      auto inv = inspect(prefix, name);
      ASSERT_EQ(inv.size(), 1u);
      if (n < 4) {
        EXPECT_EQ(inv[0].format, FileFormat::kUnknown);
        EXPECT_TRUE(inv[0].images.empty());
        continue;
      }
      EXPECT_EQ(inv[0].format, FileFormat::kFatbin);
      auto ok = has_located_error(inv, name, n);
      if (!ok) {
        ++failures;
        ADD_FAILURE() << name << " truncated to " << n << " of " << full.size()
                      << " bytes: " << ok.message();
      }
    }
  }
}

// Every prefix of a cubin is an error (its section header table is at the end); the ELF header
// alone is not a cubin.
TEST(Malformed, TruncationSweepCubin) {
  SMCOMPAT_REQUIRE_FIXTURES();
  std::string name = "kernels_sm90.cubin";
  Bytes full = testing::read_bytes(fixture(name));
  auto elf = ElfFile::parse(ByteView(full.data(), full.size()));
  ASSERT_TRUE(elf);
  size_t failures = 0;
  for (size_t n = 4; n < full.size() && failures < 5; ++n) {
    Bytes prefix(full.begin(), full.begin() + n);
    auto inv = inspect(prefix, name);
    ASSERT_EQ(inv.size(), 1u);
    EXPECT_TRUE(inv[0].images.empty() || !inv[0].errors.empty());
    auto ok = has_located_error(inv, name, n);
    if (!ok) {
      ++failures;
      ADD_FAILURE() << name << " truncated to " << n << " of " << full.size()
                    << " bytes (described size " << elf->described_size() << "): " << ok.message();
    }
  }
}

// A truncated shared library loses its section table but not the device code before the cut:
// an error for the file, and the containers that fit are still found.
TEST(Malformed, TruncationSweepSharedLibrary) {
  SMCOMPAT_REQUIRE_FIXTURES();
  std::string name = "libfixture.so";
  Bytes full = testing::read_bytes(fixture(name));
  auto whole = inspect(full, name, false);
  ASSERT_FALSE(whole[0].containers.empty());
  const uint64_t last_container_end =
      whole[0].containers.back().offset + whole[0].containers.back().size;
  for (size_t n = 4; n < full.size(); n += (n < 0x90000 || n > 0xa0000) ? 4093 : 61) {
    Bytes prefix(full.begin(), full.begin() + n);
    auto inv = inspect(prefix, name, false);
    ASSERT_EQ(inv.size(), 1u);
    ASSERT_TRUE(has_located_error(inv, name, n)) << "truncated to " << n;
    for (const auto& img : inv[0].images) EXPECT_LT(img.entry_offset, n);
    if (n >= last_container_end) {
      EXPECT_EQ(inv[0].images.size(), whole[0].images.size()) << "truncated to " << n;
    }
  }
}

TEST(Malformed, TruncationSweepArchiveAndWheel) {
  SMCOMPAT_REQUIRE_FIXTURES();
  {
    std::string name = "libfixture.a";
    Bytes full = testing::read_bytes(fixture(name));
    // A cut exactly between members leaves a valid, shorter archive: no error there.
    std::set<size_t> boundaries = {8};
    for (size_t pos = 8; pos + 60 <= full.size();) {
      pos += 60 + std::stoull(std::string(full.begin() + pos + 48, full.begin() + pos + 58));
      boundaries.insert(pos);
      pos += pos & 1;
      boundaries.insert(pos);
    }
    size_t silent = 0;
    for (size_t n = 8; n < full.size(); n += 7) {
      if (boundaries.count(n)) continue;
      Bytes prefix(full.begin(), full.begin() + n);
      auto inv = inspect(prefix, name, false);
      ASSERT_FALSE(inv.empty());
      EXPECT_EQ(inv[0].format, FileFormat::kArchive);
      if (!has_located_error(inv, name, n)) {
        ++silent;
        if (silent < 5) ADD_FAILURE() << name << " truncated to " << n << " gives no error";
      }
    }
  }
  {
    std::string name = "fixture_pkg-0.1-py3-none-linux_x86_64.whl";
    Bytes full = testing::read_bytes(fixture(name));
    for (size_t n = 4; n < full.size(); n += 997) {
      Bytes prefix(full.begin(), full.begin() + n);
      auto inv = inspect(prefix, name, false);
      ASSERT_FALSE(inv.empty());
      EXPECT_TRUE(has_located_error(inv, name, n)) << "truncated to " << n;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Corrupted header fields of a fatbin (compress_size.fatbin: sm_80 ELF + compute_80 PTX, both
// zstd). Each corruption is an error located at the field (container header at 0, first entry
// header at 16; layout fatbin-format.md 2.1-2.2).

TEST(Malformed, CorruptFatbinHeaderFields) {
  SMCOMPAT_REQUIRE_FIXTURES();
  const std::string name = "compress_size.fatbin";
  const Bytes good = testing::read_bytes(fixture(name));
  ASSERT_EQ(get32(good, 0), kFatbinMagic);
  const size_t e = 16;  // first entry
  struct Case {
    const char* what;
    size_t field;  // expected error offset
    std::function<void(Bytes&)> corrupt;
  };
  const std::vector<Case> cases = {
      {"container version 2", 4, [](Bytes& b) { put16(b, 4, 2); }},
      {"container header size 32", 6, [](Bytes& b) { put16(b, 6, 32); }},
      {"container size past the end", 8, [](Bytes& b) { put64(b, 8, get64(b, 8) + 8); }},
      {"container size 2^64-1", 8, [](Bytes& b) { put64(b, 8, ~uint64_t{0}); }},
      {"entry kind 7", e, [](Bytes& b) { put16(b, e, 7); }},
      {"entry version 0x0202", e + 2, [](Bytes& b) { put16(b, e + 2, 0x0202); }},
      {"entry header size 0", e + 4, [](Bytes& b) { put32(b, e + 4, 0); }},
      {"entry header size 2^32-1", e + 8, [](Bytes& b) { put32(b, e + 4, 0xffffffff); }},
      {"entry padded size past the end", e + 8,
       [](Bytes& b) { put64(b, e + 8, get64(b, e + 8) + 0x1000); }},
      {"entry padded size 2^64-8", e + 8, [](Bytes& b) { put64(b, e + 8, ~uint64_t{7}); }},
      {"compressed size above padded size", e + 0x10,
       [](Bytes& b) { put32(b, e + 0x10, static_cast<uint32_t>(get64(b, e + 8) + 1)); }},
      {"arch 100000", e + 0x1c, [](Bytes& b) { put32(b, e + 0x1c, 100000); }},
      {"zstd and LZ4 flags together", e + 0x28,
       [](Bytes& b) { put64(b, e + 0x28, get64(b, e + 0x28) | 0x2000); }},
  };
  for (const auto& c : cases) {
    Bytes bad = good;
    c.corrupt(bad);
    auto inv = inspect(bad, name);
    ASSERT_EQ(inv.size(), 1u);
    EXPECT_TRUE(has_located_error(inv, name, bad.size())) << c.what;
    EXPECT_EQ(first_error_offset(inv), std::optional<uint64_t>(c.field))
        << c.what << ": " << testing::all_errors(inv);
  }
}

// Corrupted payloads: the image's decode fails with an error at its payload, the other image of
// the container still decodes.
TEST(Malformed, CorruptPayloadsDecodeErrorOthersContinue) {
  SMCOMPAT_REQUIRE_FIXTURES();
  for (const char* name : {"compress_size.fatbin", "compress_speed_all.fatbin"}) {
    const Bytes good = testing::read_bytes(fixture(name));
    auto whole = inspect(good, name);
    ASSERT_EQ(whole[0].images.size(), 2u);
    const DeviceImage& first = whole[0].images[0];
    struct Case {
      const char* what;
      std::function<void(Bytes&)> corrupt;
    };
    const size_t p = first.payload_offset;
    const size_t e = first.entry_offset;
    const std::vector<Case> cases = {
        {"payload bytes overwritten",
         [&](Bytes& b) { std::memset(b.data() + p + 8, 0xA5, first.stored_size / 2); }},
        {"uncompressed size too small", [&](Bytes& b) { put64(b, e + 0x38, 100); }},
        {"uncompressed size too large", [&](Bytes& b) { put64(b, e + 0x38, 1 << 20); }},
        {"uncompressed size 0", [&](Bytes& b) { put64(b, e + 0x38, 0); }},
        {"compressed size 8", [&](Bytes& b) { put32(b, e + 0x10, 8); }},
    };
    for (const auto& c : cases) {
      Bytes bad = good;
      c.corrupt(bad);
      auto inv = inspect(bad, name);
      ASSERT_EQ(inv.size(), 1u);
      ASSERT_EQ(inv[0].images.size(), 2u) << name << ": " << c.what;
      EXPECT_TRUE(inv[0].images[0].decode_error.has_value()) << name << ": " << c.what;
      EXPECT_FALSE(inv[0].images[1].decode_error.has_value()) << name << ": " << c.what;
      EXPECT_TRUE(inv[0].images[1].ptx.has_value()) << name << ": " << c.what;
      EXPECT_TRUE(has_located_error(inv, name, bad.size())) << c.what;
      auto off = first_error_offset(inv);
      ASSERT_TRUE(off.has_value());
      EXPECT_GE(*off, e) << c.what;
      EXPECT_LT(*off, p + first.stored_size) << c.what;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Decompression bombs.

// A zstd frame declaring `declared` bytes whose RLE blocks produce `actual` zero bytes.
Bytes zstd_rle_frame(uint64_t declared, uint64_t actual) {
  Bytes f = {0x28, 0xB5, 0x2F, 0xFD, 0xE0};  // magic; FHD: 8-byte content size, single segment
  f.resize(13);
  put64(f, 5, declared);
  const uint64_t kBlock = 128 * 1024;
  for (uint64_t left = actual; left > 0;) {
    uint64_t n = std::min(left, kBlock);
    left -= n;
    uint32_t h = (left == 0 ? 1u : 0u) | (1u << 1) | static_cast<uint32_t>(n << 3);  // RLE block
    f.push_back(h & 0xff);
    f.push_back((h >> 8) & 0xff);
    f.push_back((h >> 16) & 0xff);
    f.push_back(0);  // the repeated byte
  }
  return f;
}

// A fatbin holding one entry with the given payload.
Bytes one_entry_fatbin(uint16_t kind, uint32_t arch, uint64_t flags, const Bytes& payload,
                       uint64_t usize) {
  uint64_t padded = (payload.size() + 7) & ~uint64_t{7};
  Bytes b(16 + 64 + padded, 0);
  put32(b, 0, kFatbinMagic);
  put16(b, 4, 1);
  put16(b, 6, 16);
  put64(b, 8, 64 + padded);
  put16(b, 16, kind);
  put16(b, 18, 0x0101);
  put32(b, 20, 64);
  put64(b, 24, padded);
  put32(b, 32, (flags & 0xA000) ? static_cast<uint32_t>(payload.size()) : 0);
  put16(b, 40, kind == 1 ? 0 : 8);  // minor: ELF ABI 8
  put16(b, 42, kind == 1 ? 9 : 1);
  put32(b, 44, arch);
  put64(b, 56, flags);
  put64(b, 72, usize);
  std::copy(payload.begin(), payload.end(), b.begin() + 80);
  return b;
}

TEST(Malformed, ZstdBombs) {
  const uint64_t kTwoGiB = 2ull << 30;
  // 2 GiB of zeros in 64 KiB of frame, honestly declared: refused by the default 1 GiB guard
  // before anything is allocated.
  {
    Bytes frame = zstd_rle_frame(kTwoGiB, kTwoGiB);
    EXPECT_LT(frame.size(), 70000u);
    Bytes fb = one_entry_fatbin(2, 80, 0x8011, frame, kTwoGiB);
    auto inv = inspect(fb, "bomb-honest.fatbin");
    ASSERT_EQ(inv[0].images.size(), 1u);
    ASSERT_TRUE(inv[0].images[0].decode_error.has_value());
    EXPECT_NE(inv[0].images[0].decode_error->what.find("limit"), std::string::npos)
        << inv[0].images[0].decode_error->what;
    EXPECT_TRUE(has_located_error(inv, "bomb-honest.fatbin", fb.size()));
    EXPECT_EQ(first_error_offset(inv), std::optional<uint64_t>(80));  // at the payload
  }
  // The entry lies (4 KiB) about a frame that inflates to 2 GiB: output stays bounded.
  {
    Bytes frame = zstd_rle_frame(kTwoGiB, kTwoGiB);
    Bytes fb = one_entry_fatbin(2, 80, 0x8011, frame, 4096);
    auto inv = inspect(fb, "bomb-lying-entry.fatbin");
    ASSERT_EQ(inv[0].images.size(), 1u);
    EXPECT_TRUE(inv[0].images[0].decode_error.has_value());
    EXPECT_TRUE(has_located_error(inv, "bomb-lying-entry.fatbin", fb.size()));
  }
  // The frame itself lies: it declares 4 KiB and carries 64 MiB of blocks.
  {
    Bytes frame = zstd_rle_frame(4096, 64ull << 20);
    Bytes fb = one_entry_fatbin(1, 80, 0x8011, frame, 4096);
    auto inv = inspect(fb, "bomb-lying-frame.fatbin");
    ASSERT_EQ(inv[0].images.size(), 1u);
    EXPECT_TRUE(inv[0].images[0].decode_error.has_value());
    EXPECT_TRUE(has_located_error(inv, "bomb-lying-frame.fatbin", fb.size()));
  }
  // A lowered guard applies too.
  {
    Bytes frame = zstd_rle_frame(8 << 20, 8 << 20);
    Bytes fb = one_entry_fatbin(1, 80, 0x8011, frame, 8 << 20);
    InspectOptions opt;
    opt.deep = true;
    opt.max_decoded_bytes = 1 << 20;
    auto inv = inspect_buffer(ByteView(fb.data(), fb.size()), "bomb-8m.fatbin", opt);
    ASSERT_EQ(inv[0].images.size(), 1u);
    EXPECT_TRUE(inv[0].images[0].decode_error.has_value());
    EXPECT_FALSE(decode_image(ByteView(fb.data(), fb.size()), inv[0].images[0], 1 << 20));
    EXPECT_FALSE(decode_zstd_frame(ByteView(frame.data(), frame.size()), 1 << 20));
    EXPECT_TRUE(decode_zstd_frame(ByteView(frame.data(), frame.size()), 8 << 20));
  }
  // LZ4 declaring 3 GiB.
  {
    Bytes fb = one_entry_fatbin(1, 80, 0x2011, Bytes(64, 0x11), 3ull << 30);
    auto inv = inspect(fb, "bomb-lz4.fatbin");
    ASSERT_EQ(inv[0].images.size(), 1u);
    EXPECT_TRUE(inv[0].images[0].decode_error.has_value());
    EXPECT_TRUE(has_located_error(inv, "bomb-lz4.fatbin", fb.size()));
  }
}

// ---------------------------------------------------------------------------------------------
// Host ELF section tables pointing past the end.

// Returns the file offset of section `name`'s header in an ELF64 file.
size_t section_header_at(const Bytes& b, const std::string& name) {
  auto elf = ElfFile::parse(ByteView(b.data(), b.size()));
  if (!elf) return 0;
  const ElfSection* s = elf->section(name);
  if (!s) return 0;
  return get64(b, 40) + s->index * uint64_t{get16(b, 58)};
}

TEST(Malformed, SectionsPastTheEnd) {
  SMCOMPAT_REQUIRE_FIXTURES();
  const std::string name = "rdc_app";  // device code in .nv_fatbin and __nv_relfatbin
  const Bytes good = testing::read_bytes(fixture(name));
  auto whole = inspect(good, name, false);
  ASSERT_EQ(whole[0].images.size(), 2u);
  // __nv_relfatbin's sh_size runs past the end: an error for that section, and the .nv_fatbin
  // image is still found.
  {
    Bytes bad = good;
    size_t sh = section_header_at(bad, "__nv_relfatbin");
    ASSERT_NE(sh, 0u);
    put64(bad, sh + 32, bad.size());
    auto inv = inspect(bad, name);
    EXPECT_TRUE(has_located_error(inv, name, bad.size()));
    ASSERT_EQ(inv[0].images.size(), 1u) << testing::all_errors(inv);
    EXPECT_EQ(inv[0].images[0].section, ".nv_fatbin");
    EXPECT_TRUE(inv[0].images[0].cubin.has_value());
  }
  // sh_offset near 2^64: overflow-safe.
  {
    Bytes bad = good;
    size_t sh = section_header_at(bad, "__nv_relfatbin");
    put64(bad, sh + 24, ~uint64_t{0} - 4);
    auto inv = inspect(bad, name);
    EXPECT_TRUE(has_located_error(inv, name, ~uint64_t{0}));
    EXPECT_EQ(inv[0].images.size(), 1u);
  }
  // The section header table past the end: an error at e_shoff (40); the raw scan still finds
  // both containers.
  {
    Bytes bad = good;
    put64(bad, 40, bad.size() - 10);
    auto inv = inspect(bad, name, false);
    EXPECT_EQ(first_error_offset(inv), std::optional<uint64_t>(40)) << testing::all_errors(inv);
    EXPECT_EQ(inv[0].images.size(), 2u);
  }
  // e_shnum * e_shentsize overflowing.
  {
    Bytes bad = good;
    put16(bad, 58, 0xffff);
    put16(bad, 60, 0xffff);
    auto inv = inspect(bad, name, false);
    EXPECT_TRUE(has_located_error(inv, name, bad.size()));
  }
}

// ---------------------------------------------------------------------------------------------
// Zip members that lie about their size (central directory and local header of the .so member).

struct ZipOffsets {
  size_t central = 0;  // "PK\1\2" record of the member
  size_t local = 0;    // "PK\3\4" record of the member
};

ZipOffsets find_member(const Bytes& z, const std::string& member) {
  ZipOffsets o;
  for (size_t i = 0; i + 46 < z.size(); ++i) {
    if (z[i] == 'P' && z[i + 1] == 'K' && z[i + 2] == 1 && z[i + 3] == 2) {
      uint16_t n = get16(z, i + 28);
      if (i + 46 + n <= z.size() &&
          std::string(z.begin() + i + 46, z.begin() + i + 46 + n) == member) {
        o.central = i;
        o.local = get32(z, i + 42);
      }
    }
  }
  return o;
}

TEST(Malformed, ZipMembersLyingAboutTheirSize) {
  SMCOMPAT_REQUIRE_FIXTURES();
  const std::string name = "fixture_pkg-0.1-py3-none-linux_x86_64.whl";
  const std::string so = "fixture_pkg/libfixture.so";
  const Bytes good = testing::read_bytes(fixture(name));
  ZipOffsets at = find_member(good, so);
  ASSERT_NE(at.central, 0u);
  const uint32_t real = get32(good, at.central + 24);
  struct Case {
    const char* what;
    std::function<void(Bytes&)> corrupt;
    bool may_be_harmless = false;
  };
  const std::vector<Case> cases = {
      {"uncompressed size larger than the data (central + local)",
       [&](Bytes& b) {
         put32(b, at.central + 24, real * 3);
         put32(b, at.local + 22, real * 3);
       }},
      {"uncompressed size smaller than the data (central + local)",
       [&](Bytes& b) {
         put32(b, at.central + 24, real / 3);
         put32(b, at.local + 22, real / 3);
       }},
      {"compressed size past the end of the file",
       [&](Bytes& b) {
         put32(b, at.central + 20, static_cast<uint32_t>(b.size()));
         put32(b, at.local + 18, static_cast<uint32_t>(b.size()));
       },
       true},
      {"local header disagrees with the central directory",
       [&](Bytes& b) { put32(b, at.local + 22, real + 1); }, true},
      {"deflate stream corrupted",
       [&](Bytes& b) {
         size_t data = at.local + 30 + get16(b, at.local + 26) + get16(b, at.local + 28);
         std::memset(b.data() + data + 1000, 0xff, 512);
       }},
      {"CRC-32 of other bytes (central + local)",
       [&](Bytes& b) {
         put32(b, at.central + 16, get32(b, at.central + 16) ^ 0x00010000u);
         put32(b, at.local + 14, get32(b, at.local + 14) ^ 0x00010000u);
       }},
      {"stored bytes end inside the deflate stream (compressed size halved)",
       [&](Bytes& b) {
         put32(b, at.central + 20, get32(b, at.central + 20) / 2);
         put32(b, at.local + 18, get32(b, at.local + 18) / 2);
       }},
  };
  auto whole = inspect(good, name, false);
  for (const auto& c : cases) {
    Bytes bad = good;
    c.corrupt(bad);
    auto inv = inspect(bad, name, false);
    std::map<std::string, const FileInventory*> by_member;
    for (const auto& f : inv) by_member[f.member] = &f;
    // The lying member is an error naming wheel!member (or the wheel, if libzip refuses it all).
    bool named = false;
    for (const auto& f : inv)
      for (const auto& e : f.errors)
        if (e.file == name + "!" + so || (f.member.empty() && e.file == name)) named = true;
    // libzip reads a member by its central-directory entry and stops at the end of the deflate
    // stream, so a lie the data does not depend on (the local header, a compressed size past the
    // end) may be harmless: then the member's inventory must be exactly the true one.
    if (!named) {
      ASSERT_EQ(inv.size(), whole.size()) << c.what << ": " << testing::all_errors(inv);
      for (size_t i = 0; i < inv.size(); ++i) {
        EXPECT_EQ(inv[i].member, whole[i].member) << c.what;
        EXPECT_EQ(inv[i].images.size(), whole[i].images.size()) << c.what;
        EXPECT_TRUE(inv[i].errors.empty()) << c.what;
      }
      EXPECT_TRUE(c.may_be_harmless) << c.what << ": no error";
      continue;
    }
    // The other member is still inventoried whenever the zip could be opened at all.
    if (by_member.count(so)) {
      ASSERT_TRUE(by_member.count("fixture_pkg/kernels.fatbin")) << c.what;
      EXPECT_EQ(by_member["fixture_pkg/kernels.fatbin"]->images.size(), 3u) << c.what;
      EXPECT_FALSE(by_member[so]->errors.empty()) << c.what;
    }
  }
}

// A member declaring more than max_member_bytes is not read (no allocation of its declared size).
// The fixture wheel with libfixture.so declaring `size` bytes in its central directory entry and
// its local header (empty if the member is not found).
const std::string kWheel = "fixture_pkg-0.1-py3-none-linux_x86_64.whl";
const std::string kWheelSo = "fixture_pkg/libfixture.so";
Bytes wheel_declaring(uint32_t size) {
  Bytes bad = testing::read_bytes(fixture(kWheel));
  ZipOffsets at = find_member(bad, kWheelSo);
  if (at.central == 0) return {};
  put32(bad, at.central + 24, size);
  put32(bad, at.local + 22, size);
  return bad;
}

// The fixture wheel with libfixture.so's CRC-32 changed, or its stored size halved (the deflate
// stream cut), in its central directory entry and its local header.
Bytes wheel_with_crc_flipped() {
  Bytes bad = testing::read_bytes(fixture(kWheel));
  ZipOffsets at = find_member(bad, kWheelSo);
  if (at.central == 0) return {};
  put32(bad, at.central + 16, get32(bad, at.central + 16) ^ 1u);
  put32(bad, at.local + 14, get32(bad, at.local + 14) ^ 1u);
  return bad;
}
Bytes wheel_with_stored_bytes_halved() {
  Bytes bad = testing::read_bytes(fixture(kWheel));
  ZipOffsets at = find_member(bad, kWheelSo);
  if (at.central == 0) return {};
  put32(bad, at.central + 20, get32(bad, at.central + 20) / 2);
  put32(bad, at.local + 18, get32(bad, at.local + 18) / 2);
  return bad;
}

// The member's deflated bytes are inflated by ISA-L where the build has it (SMCOMPAT_ISAL), which
// must check what libzip's reader checks; each lie is named.
TEST(Malformed, ZipMemberChecksNameTheReason) {
  SMCOMPAT_REQUIRE_FIXTURES();
  const Bytes good = testing::read_bytes(fixture(kWheel));
  ZipOffsets at = find_member(good, kWheelSo);
  ASSERT_NE(at.central, 0u);
  ASSERT_EQ(get16(good, at.central + 10), 8u) << "the member is not deflated";
  auto error_of = [&](const Bytes& bad) {
    std::string all;
    for (const auto& f : inspect_buffer(ByteView(bad.data(), bad.size()), kWheel, {}))
      for (const auto& e : f.errors)
        if (e.file == kWheel + "!" + kWheelSo) all += e.what + "\n";
    return all;
  };
  const std::string crc_error = error_of(wheel_with_crc_flipped());
#if defined(SMCOMPAT_HAVE_ISAL)
  EXPECT_NE(crc_error.find("CRC-32"), std::string::npos) << crc_error;
#else
  EXPECT_NE(crc_error.find("CRC error"), std::string::npos) << crc_error;
#endif
  const std::string cut_error = error_of(wheel_with_stored_bytes_halved());
  EXPECT_NE(cut_error.find("does not match its declared size"), std::string::npos) << cut_error;
#if defined(SMCOMPAT_HAVE_ISAL)
  EXPECT_NE(cut_error.find("the stored bytes end inside the deflate stream"), std::string::npos)
      << cut_error;
#endif
  EXPECT_TRUE(error_of(good).empty()) << error_of(good);
}

// What a wheel's inventory says, for comparing two ways of reading it.
std::string inventory_text(const std::vector<FileInventory>& inv) {
  std::string out;
  for (const auto& f : inv) {
    out += f.member + " size " + std::to_string(f.size) + "\n";
    for (const auto& img : f.images)
      out += "  " + img.target.to_string() + " at " + std::to_string(img.payload_offset) + " " +
             std::to_string(img.stored_size) + "\n";
    for (const auto& e : f.errors) out += "  error " + e.file + ": " + e.what + "\n";
  }
  return out;
}

// Members read ahead by other threads (inflate_ahead_bytes, here every member) give the inventory
// and the errors of the one-thread walk, in the same order, on the good wheel and on wheels
// whose deflated member lies about its CRC or is cut.
TEST(Malformed, ZipMembersReadAheadGiveTheSameInventory) {
  SMCOMPAT_REQUIRE_FIXTURES();
  const Bytes good = testing::read_bytes(fixture(kWheel));
  const Bytes crc = wheel_with_crc_flipped();
  const Bytes cut = wheel_with_stored_bytes_halved();
  ASSERT_FALSE(crc.empty() || cut.empty()) << kWheelSo << " not found in " << kWheel;
  for (const Bytes* wheel : std::vector<const Bytes*>{&good, &crc, &cut}) {
    InspectOptions one;
    one.jobs = 1;
    InspectOptions ahead;
    ahead.jobs = 4;
    ahead.inflate_ahead_bytes = 1;
    const std::string expected =
        inventory_text(inspect_buffer(ByteView(wheel->data(), wheel->size()), kWheel, one));
    EXPECT_NE(expected.find("fixture_pkg/kernels.fatbin"), std::string::npos) << expected;
    EXPECT_EQ(inventory_text(inspect_buffer(ByteView(wheel->data(), wheel->size()), kWheel, ahead)),
              expected);
  }
}

TEST(Malformed, ZipMemberAboveTheLimit) {
  SMCOMPAT_REQUIRE_FIXTURES();
  const std::string& name = kWheel;
  const std::string& so = kWheelSo;
  Bytes bad = wheel_declaring(0xF0000000u);  // 3.75 GiB
  ASSERT_FALSE(bad.empty()) << so << " not found in " << name;
  InspectOptions opt;
  opt.max_member_bytes = 64 << 20;
  auto inv = inspect_buffer(ByteView(bad.data(), bad.size()), name, opt);
  bool refused = false;
  for (const auto& f : inv)
    if (f.member == so)
      for (const auto& e : f.errors) refused |= e.what.find("limit") != std::string::npos;
  EXPECT_TRUE(refused) << testing::all_errors(inv);
}

// A member declaring 3.75 GiB (below the default 4 GiB max_member_bytes) that holds 1 MB: with the
// default options memory must follow the real bytes. Run in a child limited to 1 GiB, where
// allocating the declared size would throw (and abort) instead of reporting.
TEST(Malformed, ZipMemberDeclaringGigabytesUnderDefaultLimit) {
  SMCOMPAT_REQUIRE_FIXTURES();
  const std::string& name = kWheel;
  const std::string& so = kWheelSo;
  Bytes bad = wheel_declaring(0xF0000000u);
  ASSERT_FALSE(bad.empty()) << so << " not found in " << name;
  EXPECT_TRUE(testing::in_bounded_child([&] {
    auto inv = inspect_buffer(ByteView(bad.data(), bad.size()), name, InspectOptions{});
    int named = 0, fatbin_images = 0;
    for (const auto& f : inv) {
      for (const auto& e : f.errors) named += e.file == name + "!" + so;
      if (f.member == "fixture_pkg/kernels.fatbin") fatbin_images = f.images.size();
    }
    return named == 1 && fatbin_images == 3 ? 0 : 1;
  }));
}

// ---------------------------------------------------------------------------------------------
// Files that cannot be read, and the scan going on past them.

TEST(Malformed, FilesThatCannotBeRead) {
  testing::ScratchDir scratch("unreadable");
  const std::string& dir = scratch.path;
  // A symlink loop, a dangling link, a directory, a FIFO (opening it must not block), a missing
  // path: each an error naming the path.
  ASSERT_EQ(::symlink("loop_b", (dir + "/loop_a").c_str()), 0);
  ASSERT_EQ(::symlink("loop_a", (dir + "/loop_b").c_str()), 0);
  ASSERT_EQ(::symlink("nowhere", (dir + "/dangling").c_str()), 0);
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0600), 0);
  std::filesystem::create_directory(dir + "/subdir");
  for (const char* p : {"loop_a", "dangling", "fifo", "subdir", "missing"}) {
    std::string path = dir + "/" + p;
    auto inv = inspect_file(path, InspectOptions{});
    ASSERT_EQ(inv.size(), 1u) << p;
    ASSERT_EQ(inv[0].errors.size(), 1u) << p;
    EXPECT_EQ(inv[0].errors[0].file, path);
    EXPECT_FALSE(inv[0].errors[0].what.empty());
    EXPECT_FALSE(visit_images(path, InspectOptions{}, [](auto&, auto&, auto) {}));
  }
  // An empty file is not device code and not an error.
  testing::write_bytes(dir + "/empty.so", {});
  auto inv = inspect_file(dir + "/empty.so", InspectOptions{});
  ASSERT_EQ(inv.size(), 1u);
  EXPECT_TRUE(inv[0].images.empty());
}

// chmod 000: an error naming the file. Root reads such files anyway, so as root the check runs
// in a child that drops to uid/gid 65534 (nobody); it skips only where that is impossible.
TEST(Malformed, UnreadableFile) {
  testing::ScratchDir scratch("chmod000");
  const std::string& dir = scratch.path;
  std::string path = dir + "/secret.so";
  testing::write_bytes(path, Bytes(128, 0));
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  auto check = [&]() -> int {  // 0 pass, 1 fail, 77 cannot test
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return 77;     // cannot even reach the file
    if (::access(path.c_str(), R_OK) == 0) return 77;  // the file is readable after all
    auto inv = inspect_file(path, InspectOptions{});
    if (inv.size() != 1 || inv[0].errors.size() != 1) return 1;
    const Error& e = inv[0].errors[0];
    return e.file == path && e.what.find("ermission") != std::string::npos ? 0 : 1;
  };
  if (::geteuid() != 0) {
    EXPECT_EQ(check(), 0);
    return;
  }
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(77);
    ::_exit(check());
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77)
    GTEST_SKIP() << "running as root and cannot drop to uid 65534 with access to " << dir
                 << ": chmod 000 cannot be tested here (root reads any file)";
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "inspect_file(" << path << ") as uid 65534 did not give one 'Permission denied' error";
}

// A directory of good, corrupt and unreadable things: scan_paths reports each problem and still
// inventories every good file.
TEST(Malformed, ScanGoesOnPastBadFiles) {
  SMCOMPAT_REQUIRE_FIXTURES();
  testing::ScratchDir scratch("scan_mixed");
  const std::string& dir = scratch.path;
  auto copy = [&](const std::string& from, const std::string& to) {
    std::filesystem::copy_file(fixture(from), dir + "/" + to);
  };
  copy("multi.fatbin", "a_good.fatbin");
  Bytes trunc = testing::read_bytes(fixture("compress_size.fatbin"));
  trunc.resize(trunc.size() / 2);
  testing::write_bytes(dir + "/b_truncated.fatbin", trunc);
  Bytes cub = testing::read_bytes(fixture("kernels_sm90.cubin"));
  cub.resize(cub.size() - 100);
  testing::write_bytes(dir + "/c_truncated.cubin", cub);
  copy("libfixture.so", "d_good.so");
  std::filesystem::create_directory(dir + "/e_loop");
  ASSERT_EQ(::symlink("..", (dir + "/e_loop/up").c_str()), 0);
  ASSERT_EQ(::symlink("f_self", (dir + "/f_self").c_str()), 0);
  copy("kernels_sm90.cubin", "g_good.cubin");

  ScanOptions opt;
  opt.jobs = 2;
  ScanReport r = scan_paths({dir}, opt);
  std::map<std::string, const ScannedFile*> by_name;
  for (const auto& f : r.files)
    by_name[std::filesystem::path(f.inventory.path).filename().string()] = &f;
  for (const char* good : {"a_good.fatbin", "d_good.so", "g_good.cubin"}) {
    ASSERT_TRUE(by_name.count(good)) << good;
    EXPECT_TRUE(by_name[good]->inventory.errors.empty()) << good;
    EXPECT_FALSE(by_name[good]->inventory.images.empty()) << good;
  }
  for (const char* bad : {"b_truncated.fatbin", "c_truncated.cubin"}) {
    ASSERT_TRUE(by_name.count(bad)) << bad;
    ASSERT_FALSE(by_name[bad]->inventory.errors.empty()) << bad;
    const Error& e = by_name[bad]->inventory.errors[0];
    EXPECT_EQ(e.file, dir + "/" + bad);
    EXPECT_TRUE(e.offset.has_value()) << e.to_string();
  }
  // The self-link is a walk error naming it; the loop through ".." does not hang the walk.
  bool self_named = false;
  for (const auto& e : r.errors) self_named |= e.file == dir + "/f_self";
  EXPECT_TRUE(self_named);
}

// The CLI: bad files are error records in --json (exit 0 without --fail-on); --fail-on error
// exits 1; a path that cannot be read at all exits 2.
TEST(Malformed, CliReportsErrorsAndExitCodes) {
  SMCOMPAT_REQUIRE_FIXTURES();
  testing::ScratchDir scratch("cli_mixed");
  const std::string& dir = scratch.path;
  std::filesystem::copy_file(fixture("multi.fatbin"), dir + "/good.fatbin");
  Bytes trunc = testing::read_bytes(fixture("compress_size.fatbin"));
  trunc.resize(100);
  testing::write_bytes(dir + "/truncated.fatbin", trunc);
  auto run = [](const std::string& args, std::string* out) {
    std::string cmd = std::string(SMCOMPAT_CLI) + " " + args + " 2>/dev/null";
    FILE* p = ::popen(cmd.c_str(), "r");
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
    int st = ::pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  };
  std::string out;
  EXPECT_EQ(run("scan --json -q " + dir, &out), 0);
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["schema"], "smcompat.scan/2");
  bool good = false, bad = false;
  for (const auto& f : j["files"]) {
    std::string path = f["path"];
    if (path == dir + "/good.fatbin") good = f["errors"].empty();
    if (path == dir + "/truncated.fatbin" && !f["errors"].empty()) {
      bad = f["errors"][0]["file"] == path && f["errors"][0]["offset"].is_number();
    }
  }
  EXPECT_TRUE(good) << out;
  EXPECT_TRUE(bad) << out;
  out.clear();
  EXPECT_EQ(run("scan -q --fail-on error " + dir, &out), 1);
  out.clear();
  EXPECT_EQ(run("scan -q " + dir + "/does-not-exist " + dir, &out), 2);
}

}  // namespace
}  // namespace smcompat
