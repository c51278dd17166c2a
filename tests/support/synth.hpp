// Hand-built device-code inputs for unit tests: fatbin containers with chosen entries, byte for
// byte as ../shared/reference/fatbin-format.md section 2 describes them.
#pragma once

#include <lz4.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace smcompat::synth {

inline void put16(std::vector<uint8_t>& b, size_t at, uint16_t v) { std::memcpy(&b[at], &v, 2); }
inline void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); }
inline void put64(std::vector<uint8_t>& b, size_t at, uint64_t v) { std::memcpy(&b[at], &v, 8); }

struct Entry {
  uint16_t kind = 2;  // 1 PTX, 2 ELF, 8 LTO
  uint32_t arch = 120;
  uint64_t flags = 0x11;  // 64-bit, Linux
  uint16_t major = 1, minor = 8;
  std::vector<uint8_t> payload;  // uncompressed
  enum Comp { kNone, kZstd, kLz4 } comp = kNone;
  std::string options;     // PTX options block
  std::string identifier;  // ident string
};

inline std::vector<uint8_t> bytes_of(const std::string& s, bool nul = true) {
  std::vector<uint8_t> v(s.begin(), s.end());
  if (nul) v.push_back(0);
  return v;
}

/// Builds one entry (header with extension area + padded payload).
inline std::vector<uint8_t> entry_bytes(const Entry& e) {
  std::vector<uint8_t> stored = e.payload;
  uint64_t flags = e.flags;
  if (e.comp == Entry::kZstd) {
    stored.resize(ZSTD_compressBound(e.payload.size()));
    stored.resize(
        ZSTD_compress(stored.data(), stored.size(), e.payload.data(), e.payload.size(), 3));
    flags |= 0x8000;
  } else if (e.comp == Entry::kLz4) {
    stored.resize(LZ4_compressBound(static_cast<int>(e.payload.size())));
    stored.resize(LZ4_compress_default(
        reinterpret_cast<const char*>(e.payload.data()), reinterpret_cast<char*>(stored.data()),
        static_cast<int>(e.payload.size()), static_cast<int>(stored.size())));
    flags |= 0x2000;
  }
  // Extension area: identifier, then options block {u32 off, u32 len} + data, 8-aligned.
  std::vector<uint8_t> ext;
  uint32_t ident_off = 0, ident_len = 0, opt_off = 0;
  auto align8 = [](std::vector<uint8_t>& v) {
    while (v.size() % 8) v.push_back(0);
  };
  if (!e.identifier.empty()) {
    ident_off = 0x40;
    ident_len = static_cast<uint32_t>(e.identifier.size() + 1);
    for (char c : e.identifier) ext.push_back(static_cast<uint8_t>(c));
    ext.push_back(0);
    align8(ext);
  }
  if (!e.options.empty()) {
    opt_off = static_cast<uint32_t>(0x40 + ext.size());
    uint32_t data_off = opt_off + 8, len = static_cast<uint32_t>(e.options.size());
    for (int i = 0; i < 8; ++i) ext.push_back(0);
    std::memcpy(&ext[opt_off - 0x40], &data_off, 4);
    std::memcpy(&ext[opt_off - 0x40 + 4], &len, 4);
    for (char c : e.options) ext.push_back(static_cast<uint8_t>(c));
    align8(ext);
  }
  uint32_t header = static_cast<uint32_t>(0x40 + ext.size());
  uint64_t padded = (stored.size() + 7) & ~uint64_t{7};
  std::vector<uint8_t> b(header + padded, 0);
  put16(b, 0, e.kind);
  put16(b, 2, 0x0101);
  put32(b, 4, header);
  put64(b, 8, padded);
  if (e.comp != Entry::kNone) {
    put32(b, 0x10, static_cast<uint32_t>(stored.size()));
    put64(b, 0x38, e.payload.size());
  }
  put32(b, 0x14, opt_off);
  put16(b, 0x18, e.minor);
  put16(b, 0x1a, e.major);
  put32(b, 0x1c, e.arch);
  put32(b, 0x20, ident_off);
  put32(b, 0x24, ident_len);
  put64(b, 0x28, flags);
  if (!ext.empty()) std::memcpy(&b[0x40], ext.data(), ext.size());
  if (!stored.empty()) std::memcpy(&b[header], stored.data(), stored.size());
  return b;
}

/// A container holding the entries.
inline std::vector<uint8_t> container(const std::vector<Entry>& entries) {
  std::vector<uint8_t> body;
  for (const auto& e : entries) {
    auto eb = entry_bytes(e);
    body.insert(body.end(), eb.begin(), eb.end());
  }
  std::vector<uint8_t> b(16, 0);
  put32(b, 0, 0xBA55ED50);
  put16(b, 4, 1);
  put16(b, 6, 16);
  put64(b, 8, body.size());
  b.insert(b.end(), body.begin(), body.end());
  return b;
}

/// Minimal PTX text for a target.
inline std::string ptx_text(const std::string& target, const std::string& version = "9.0",
                            const std::string& entry = "k") {
  return ".version " + version + "\n.target " + target + "\n.address_size 64\n\n.visible .entry " +
         entry + "()\n{\n\tret;\n}\n";
}

inline Entry ptx_entry(uint32_t arch, const std::string& target, uint16_t major = 9,
                       uint16_t minor = 0) {
  Entry e;
  e.kind = 1;
  e.arch = arch;
  e.major = major;
  e.minor = minor;
  e.payload = bytes_of(ptx_text(target, std::to_string(major) + "." + std::to_string(minor)));
  e.options = " ";
  return e;
}

/// A fake "cubin" payload: only the kind/arch in the entry header matter to the inventory; a
/// short ELF-looking blob keeps raw decoding bounded.
inline Entry sass_entry(uint32_t arch, uint64_t extra_flags = 0) {
  Entry e;
  e.kind = 2;
  e.arch = arch;
  e.flags = 0x11 | extra_flags;
  e.payload = std::vector<uint8_t>(256, 0xab);
  return e;
}

}  // namespace smcompat::synth
