// ELF64 little-endian reader (include/smcompat/binary/elf.hpp). Every header field is checked
// against the file size with overflow-safe arithmetic before use (LLVM Object/ELF.h practice).
#include "smcompat/binary/elf.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace smcompat {

namespace {
constexpr uint64_t kEhdrSize = 64;
constexpr uint64_t kShdrSize = 64;
constexpr uint64_t kSymSize = 24;
}  // namespace

bool ElfFile::sniff(ByteView bytes) {
  return bytes.size() >= 4 && bytes.data()[0] == 0x7f && bytes.data()[1] == 'E' &&
         bytes.data()[2] == 'L' && bytes.data()[3] == 'F';
}

Result<ElfFile> ElfFile::parse(ByteView bytes) {
  if (!sniff(bytes)) return bytes.error_at(0, "not an ELF file");
  if (bytes.size() < kEhdrSize)
    return bytes.error_at(
        0, fmt::format("ELF header truncated: file has {} bytes, need 64", bytes.size()));
  const uint8_t* id = bytes.data();
  if (id[4] != 2)
    return bytes.error_at(4, fmt::format("ELF class {} not supported (64-bit only)", id[4]));
  if (id[5] != 1)
    return bytes.error_at(
        5, fmt::format("ELF data encoding {} not supported (little-endian only)", id[5]));
  ElfFile f;
  f.bytes_ = bytes;
  f.osabi_ = id[7];
  f.abi_version_ = id[8];
  f.type_ = bytes.read_or_zero<uint16_t>(16);
  f.machine_ = bytes.read_or_zero<uint16_t>(18);
  f.version_ = bytes.read_or_zero<uint32_t>(20);
  const uint64_t phoff = bytes.read_or_zero<uint64_t>(32);
  const uint64_t shoff = bytes.read_or_zero<uint64_t>(40);
  f.flags_ = bytes.read_or_zero<uint32_t>(48);
  const uint16_t phentsize = bytes.read_or_zero<uint16_t>(54);
  const uint16_t phnum = bytes.read_or_zero<uint16_t>(56);
  const uint16_t shentsize = bytes.read_or_zero<uint16_t>(58);
  uint64_t shnum = bytes.read_or_zero<uint16_t>(60);
  uint32_t shstrndx = bytes.read_or_zero<uint16_t>(62);

  f.described_size_ = kEhdrSize;
  if (phnum) {
    auto ph_bytes = checked_mul(phnum, phentsize);
    auto ph_end = ph_bytes ? checked_add(phoff, *ph_bytes) : std::nullopt;
    if (ph_end) f.described_size_ = std::max(f.described_size_, *ph_end);
  }
  if (shoff == 0) return f;  // no section table (possible for stripped images)
  if (shentsize < kShdrSize)
    return bytes.error_at(58, fmt::format("e_shentsize {} is smaller than 64", shentsize));
  if (shoff > bytes.size() || bytes.size() - shoff < kShdrSize)
    return bytes.error_at(40, fmt::format("section header table at e_shoff {:#x} lies past the end "
                                          "of the {:#x}-byte file",
                                          shoff, bytes.size()));
  // Extended numbering: e_shnum 0 / e_shstrndx SHN_XINDEX keep the real values in section 0.
  if (shnum == 0) shnum = bytes.read_or_zero<uint64_t>(shoff + 32);
  if (shstrndx == 0xffff) shstrndx = bytes.read_or_zero<uint32_t>(shoff + 40);
  auto table_bytes = checked_mul(shnum, shentsize);
  auto table_end = table_bytes ? checked_add(shoff, *table_bytes) : std::nullopt;
  if (!table_end || *table_end > bytes.size())
    return bytes.error_at(40, fmt::format("section header table ({} entries of {} bytes at {:#x}) "
                                          "extends past the end of the {:#x}-byte file",
                                          shnum, shentsize, shoff, bytes.size()));
  f.described_size_ = std::max(f.described_size_, *table_end);
  f.sections_.reserve(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    uint64_t h = shoff + i * shentsize;
    ElfSection s;
    s.index = static_cast<uint32_t>(i);
    s.type = bytes.read_or_zero<uint32_t>(h + 4);
    s.flags = bytes.read_or_zero<uint64_t>(h + 8);
    s.addr = bytes.read_or_zero<uint64_t>(h + 16);
    s.offset = bytes.read_or_zero<uint64_t>(h + 24);
    s.size = bytes.read_or_zero<uint64_t>(h + 32);
    s.link = bytes.read_or_zero<uint32_t>(h + 40);
    s.info = bytes.read_or_zero<uint32_t>(h + 44);
    s.addralign = bytes.read_or_zero<uint64_t>(h + 48);
    s.entsize = bytes.read_or_zero<uint64_t>(h + 56);
    // 0x7000000a: .nv.shared.<k> in relocatable cubins, which occupies no file bytes either.
    if (s.type != kShtNobits && s.type != 0x7000000a) {
      if (auto end = checked_add(s.offset, s.size))
        f.described_size_ = std::max(f.described_size_, *end);
    }
    f.sections_.push_back(std::move(s));
  }
  // Section names: a bad shstrtab leaves names empty rather than failing the whole file.
  if (shstrndx < f.sections_.size()) {
    const ElfSection& strtab = f.sections_[shstrndx];
    if (auto data = f.section_data(strtab)) {
      for (uint64_t i = 0; i < shnum; ++i) {
        uint32_t name_off = bytes.read_or_zero<uint32_t>(shoff + i * shentsize);
        if (auto name = data->cstring(name_off, 4096)) f.sections_[i].name = std::string(*name);
      }
    }
  }
  return f;
}

const ElfSection* ElfFile::section(std::string_view name) const {
  for (const auto& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

Result<ByteView> ElfFile::section_data(const ElfSection& s) const {
  if (s.type == kShtNobits) return ByteView(bytes_.data(), 0, bytes_.file_offset() + s.offset);
  auto v = bytes_.sub(s.offset, s.size);
  if (!v) {
    return bytes_.error_at(s.offset, fmt::format("section [{}] '{}' has sh_offset ({:#x}) + "
                                                 "sh_size ({:#x}) past the end of the {:#x}-byte "
                                                 "file",
                                                 s.index, s.name, s.offset, s.size, bytes_.size()));
  }
  return v;
}

Result<std::vector<ElfSymbol>> ElfFile::symbols(uint32_t symtab_type) const {
  std::vector<ElfSymbol> out;
  const ElfSection* symtab = nullptr;
  for (const auto& s : sections_)
    if (s.type == symtab_type) {
      symtab = &s;
      break;
    }
  if (!symtab) return out;
  SMCOMPAT_TRY(ByteView data, section_data(*symtab));
  if (symtab->link >= sections_.size())
    return bytes_.error_at(symtab->offset,
                           fmt::format("symbol table sh_link {} is not a section", symtab->link));
  SMCOMPAT_TRY(ByteView strings, section_data(sections_[symtab->link]));
  uint64_t entsize = symtab->entsize ? symtab->entsize : kSymSize;
  if (entsize < kSymSize)
    return bytes_.error_at(symtab->offset,
                           fmt::format("symbol entry size {} is below 24", entsize));
  uint64_t count = data.size() / entsize;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t o = i * entsize;
    ElfSymbol sym;
    uint32_t name_off = data.read_or_zero<uint32_t>(o);
    sym.info = data.read_or_zero<uint8_t>(o + 4);
    sym.other = data.read_or_zero<uint8_t>(o + 5);
    sym.shndx = data.read_or_zero<uint16_t>(o + 6);
    sym.value = data.read_or_zero<uint64_t>(o + 8);
    sym.size = data.read_or_zero<uint64_t>(o + 16);
    if (auto name = strings.cstring(name_off, 1 << 20)) sym.name = std::string(*name);
    out.push_back(std::move(sym));
  }
  return out;
}

Result<std::vector<ElfNote>> ElfFile::notes(const ElfSection& s) const {
  std::vector<ElfNote> out;
  SMCOMPAT_TRY(ByteView data, section_data(s));
  uint64_t pos = 0;
  while (pos + 12 <= data.size()) {
    uint32_t namesz = data.read_or_zero<uint32_t>(pos);
    uint32_t descsz = data.read_or_zero<uint32_t>(pos + 4);
    uint32_t type = data.read_or_zero<uint32_t>(pos + 8);
    uint64_t name_off = pos + 12;
    uint64_t desc_off = name_off + ((uint64_t{namesz} + 3) & ~uint64_t{3});
    uint64_t next = desc_off + ((uint64_t{descsz} + 3) & ~uint64_t{3});
    if (next > data.size())
      return data.error_at(pos, fmt::format("note (namesz {}, descsz {}) extends past the end of "
                                            "section '{}'",
                                            namesz, descsz, s.name));
    ElfNote note;
    note.type = type;
    if (namesz) {
      auto name = data.clamp(name_off, namesz).as_string_view();
      while (!name.empty() && name.back() == '\0') name.remove_suffix(1);
      note.name = std::string(name);
    }
    note.desc = data.clamp(desc_off, descsz);
    out.push_back(std::move(note));
    pos = next;
  }
  return out;
}

std::optional<uint64_t> ElfFile::va_to_offset(uint64_t va) const {
  for (const auto& s : sections_) {
    if (!(s.flags & 0x2) || s.type == kShtNobits || s.size == 0) continue;  // SHF_ALLOC
    if (va >= s.addr && va - s.addr < s.size) return s.offset + (va - s.addr);
  }
  return std::nullopt;
}

}  // namespace smcompat
