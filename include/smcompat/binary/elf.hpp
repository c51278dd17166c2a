// A minimal, bounds-checked ELF64 little-endian reader for host binaries and cubins (EM_CUDA).
// Layout facts: ../shared/reference/fatbin-format.md sections 1 and 4.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "smcompat/util/byte_view.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat {

inline constexpr uint16_t kEmCuda = 190;
inline constexpr uint32_t kShtNobits = 8;
inline constexpr uint32_t kShtNote = 7;
inline constexpr uint32_t kShtSymtab = 2;
inline constexpr uint32_t kShtDynsym = 11;
inline constexpr uint32_t kShtNvInfo = 0x70000000;    // .nv.info
inline constexpr uint32_t kShtNvCompat = 0x70000086;  // .nv.compat

struct ElfSection {
  uint32_t index = 0;
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t addr = 0;
  uint64_t offset = 0;  ///< file offset of the section's bytes
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t addralign = 0;
  uint64_t entsize = 0;
};

struct ElfSymbol {
  std::string name;
  uint64_t value = 0;
  uint64_t size = 0;
  uint8_t info = 0;   ///< type in the low nibble (STT_FUNC = 2), binding in the high nibble
  uint8_t other = 0;  ///< visibility; CUDA marks kernels with 0x10
  uint16_t shndx = 0;
  uint8_t type() const { return info & 0xf; }
};

struct ElfNote {
  std::string name;
  uint32_t type = 0;
  ByteView desc;
};

class ElfFile {
 public:
  /// True if the bytes start with the ELF magic (never fails).
  static bool sniff(ByteView bytes);
  /// Parses the header and section table. 32-bit and big-endian files are reported as errors.
  static Result<ElfFile> parse(ByteView bytes);

  ByteView bytes() const { return bytes_; }
  uint16_t type() const { return type_; }        ///< ET_REL 1, ET_EXEC 2, ET_DYN 3
  uint16_t machine() const { return machine_; }  ///< EM_CUDA 190, EM_X86_64 62, ...
  uint8_t osabi() const { return osabi_; }
  uint8_t abi_version() const { return abi_version_; }
  uint32_t version() const { return version_; }
  uint32_t flags() const { return flags_; }
  bool is_cuda() const { return machine_ == kEmCuda; }

  const std::vector<ElfSection>& sections() const { return sections_; }
  const ElfSection* section(std::string_view name) const;
  /// The bytes of a section (empty view for NOBITS), or an error if they lie outside the file.
  Result<ByteView> section_data(const ElfSection& s) const;
  /// Symbols of the section with type `symtab_type` (SHT_SYMTAB by default).
  Result<std::vector<ElfSymbol>> symbols(uint32_t symtab_type = kShtSymtab) const;
  /// Notes of a SHT_NOTE section.
  Result<std::vector<ElfNote>> notes(const ElfSection& s) const;
  /// Translates a virtual address to a file offset through the section table.
  std::optional<uint64_t> va_to_offset(uint64_t va) const;
  /// Extent of the file as described by its headers (end of the furthest section/header table);
  /// used to bound ELF images found in memory.
  uint64_t described_size() const { return described_size_; }

 private:
  ByteView bytes_;
  uint16_t type_ = 0, machine_ = 0;
  uint8_t osabi_ = 0, abi_version_ = 0;
  uint32_t version_ = 0, flags_ = 0;
  uint64_t described_size_ = 0;
  std::vector<ElfSection> sections_;
};

}  // namespace smcompat
