// Cubin (EM_CUDA ELF) reader: architecture by ABI version, a/f variant, kernels and resources.
// Facts: ../shared/reference/fatbin-format.md section 4 (e_flags layouts 4.2, variants 4.3, kernel
// symbol rule 4.4, .nv.info records 4.5, static shared memory rule 4.6).
#include "smcompat/binary/cubin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "smcompat/binary/elf.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat {

namespace {

// EIATTR codes (nvlink 13.0.88 name table, fatbin-format.md 4.5).
enum : uint8_t {
  kMaxThreads = 0x05,
  kFrameSize = 0x11,
  kMinStackSize = 0x12,
  kReqntid = 0x10,
  kCbankParamSize = 0x19,
  kMaxStackSize = 0x23,
  kRegcount = 0x2f,
  kCtaPerCluster = 0x3d,
  kExplicitCluster = 0x3e,
  kMaxClusterRank = 0x3f,
  kNumBarriers = 0x4c,
  kTcgen05OneCta = 0x51,
  kTcgen05TwoCta = 0x52,
  kRegReconfig = 0x54,
};
// .nv.info record formats.
enum : uint8_t { kNval = 1, kBval = 2, kHval = 3, kSval = 4 };

struct InfoRecord {
  uint8_t format;
  uint8_t attr;
  uint16_t value;  // BVAL/HVAL value, or SVAL size
  ByteView data;   // SVAL payload
};

// Walks .nv.info records; stops quietly at the first malformed record (the rest is unknown).
template <class F>
void for_each_info(ByteView v, F&& f) {
  uint64_t pos = 0;
  while (pos + 4 <= v.size()) {
    InfoRecord r{v.read_or_zero<uint8_t>(pos),
                 v.read_or_zero<uint8_t>(pos + 1),
                 v.read_or_zero<uint16_t>(pos + 2),
                 {}};
    pos += 4;
    if (r.format == kSval) {
      if (!v.contains(pos, r.value)) return;
      r.data = v.clamp(pos, r.value);
      pos += r.value;
    } else if (r.format != kNval && r.format != kBval && r.format != kHval) {
      return;
    }
    f(r);
  }
}

std::array<uint32_t, 3> xyz(ByteView d) {
  return {d.read_or_zero<uint32_t>(0), d.read_or_zero<uint32_t>(4), d.read_or_zero<uint32_t>(8)};
}

// "-arch sm_120f" in the ptxas command line recorded by .note.nv.tkinfo.
std::string arch_from_tkinfo(std::string_view desc) {
  size_t p = desc.find("-arch ");
  if (p == std::string_view::npos) p = desc.find("-arch=");
  if (p == std::string_view::npos) return {};
  p += 6;
  while (p < desc.size() && desc[p] == ' ') ++p;
  size_t e = p;
  while (e < desc.size() && desc[e] != ' ' && desc[e] != '\0') ++e;
  return std::string(desc.substr(p, e - p));
}

}  // namespace

bool cubin_sniff(ByteView bytes) {
  return ElfFile::sniff(bytes) && bytes.read_or_zero<uint8_t>(4) == 2 &&
         bytes.read_or_zero<uint16_t>(18) == kEmCuda;
}

Result<CubinInfo> parse_cubin(ByteView bytes, bool with_kernels) {
  SMCOMPAT_TRY(ElfFile elf, ElfFile::parse(bytes));
  if (!elf.is_cuda())
    return bytes.error_at(18, fmt::format("e_machine {} is not EM_CUDA (190)", elf.machine()));
  CubinInfo info;
  info.abi_version = elf.abi_version();
  info.relocatable = elf.type() == 1;
  // e_flags layout is chosen by ABI version, never by SM (fatbin-format.md 4.2).
  if (info.abi_version >= 8) {
    info.sm = static_cast<int>((elf.flags() >> 8) & 0xff);
  } else {
    info.sm = static_cast<int>(elf.flags() & 0xff);
    info.virtual_sm = static_cast<int>((elf.flags() >> 16) & 0xff);
  }
  // SM numbers above 255 do not fit e_flags' byte; none exist yet.
  bool has_reserved_smem = false;
  for (const auto& s : elf.sections()) {
    if (s.name == ".debug_info" || s.name == ".nv_debug_info_reg_sass") info.debug = true;
    if (s.type == kShtNvCompat) {
      if (auto d = elf.section_data(s)) {
        for (uint64_t pos = 0; pos + 4 <= d->size();) {  // {u8 fmt, u8 attr, ...}
          uint8_t fmt = d->read_or_zero<uint8_t>(pos), attr = d->read_or_zero<uint8_t>(pos + 1);
          if (attr == 0x09 && fmt == 2 && d->read_or_zero<uint8_t>(pos + 2) == 1)
            info.variant = ArchVariant::kArchSpecific;
          if (fmt == 4)
            pos += 4 + d->read_or_zero<uint16_t>(pos + 2);
          else if (fmt == 2 || fmt == 3 || fmt == 1)
            pos += 4;
          else
            break;
        }
      }
    }
    if (s.type == kShtNote) {
      auto notes = elf.notes(s);
      if (!notes) continue;
      for (const auto& n : *notes) {
        if (n.type == 2000) {  // .note.nv.tkinfo: ptxas command line and toolkit version
          auto desc = n.desc.as_string_view();
          info.tkinfo_arch = arch_from_tkinfo(desc);
          if (size_t p = desc.find("Cuda compilation tools"); p != std::string_view::npos)
            info.toolkit = std::string(desc.substr(p, desc.find('\0', p) - p));
        } else if (n.type == 1000 && n.desc.size() >= 8) {  // .note.nv.cuinfo {2, vsm, toolkit}
          info.virtual_sm = n.desc.read_or_zero<uint16_t>(2);
        }
      }
    }
  }
  if (!info.tkinfo_arch.empty()) {
    if (auto t = SmTarget::parse(info.tkinfo_arch); t && t->variant != ArchVariant::kBase)
      info.variant = t->variant;
    else if (t && !info.variant)
      info.variant = ArchVariant::kBase;
  }
  if (!with_kernels) return info;

  const auto& secs = elf.sections();
  // Dense indexes (symbol index / .text.<k> section index -> kernels index, kNone if none): a
  // large cubin has thousands of each and hash-map nodes cost an allocation apiece.
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> kernel_by_symbol;
  std::vector<uint32_t> kernel_by_text(secs.size(), kNone);
  // The symbol table is walked in place (string_view names): cubins of large libraries hold
  // thousands of symbols and only kernels matter here.
  const ElfSection* symtab = nullptr;
  for (const auto& s : secs)
    if (s.type == kShtSymtab) {
      symtab = &s;
      break;
    }
  if (symtab) {
    SMCOMPAT_TRY(ByteView syms, elf.section_data(*symtab));
    if (symtab->link >= secs.size())
      return bytes.error_at(symtab->offset,
                            fmt::format("symbol table sh_link {} is not a section", symtab->link));
    SMCOMPAT_TRY(ByteView strings, elf.section_data(secs[symtab->link]));
    uint64_t entsize = symtab->entsize >= 24 ? symtab->entsize : 24;
    uint64_t count = syms.size() / entsize;
    kernel_by_symbol.assign(count, kNone);
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t o = i * entsize;
      uint8_t st_info = syms.read_or_zero<uint8_t>(o + 4),
              other = syms.read_or_zero<uint8_t>(o + 5);
      uint16_t shndx = syms.read_or_zero<uint16_t>(o + 6);
      bool kernel = (st_info & 0xf) == 2 && (other & 0x10) && shndx != 0 && shndx < secs.size();
      if (!kernel && shndx != 0) continue;  // only kernels and undefined symbols matter
      auto name = strings.cstring(syms.read_or_zero<uint32_t>(o), 1 << 20);
      if (!name) continue;
      if (!kernel) {
        if (name->starts_with(".nv.reservedSmem")) has_reserved_smem = true;
        continue;
      }
      // Kernel rule (4.4): STT_FUNC, st_other & 0x10, in section ".text.<name>".
      const std::string& text = secs[shndx].name;
      if (text.size() != name->size() + 6 || !text.starts_with(".text.") ||
          std::string_view(text).substr(6) != *name)
        continue;
      CubinKernel k;
      k.name = std::string(*name);
      k.demangled = demangle(k.name);
      k.sass_bytes = syms.read_or_zero<uint64_t>(o + 16);
      kernel_by_symbol[i] = static_cast<uint32_t>(info.kernels.size());
      kernel_by_text[shndx] = static_cast<uint32_t>(info.kernels.size());
      info.kernels.push_back(std::move(k));
    }
  }
  // Kernels by name, for the .nv.shared.<k> sections (sorted: equal names stay adjacent).
  std::vector<std::pair<std::string_view, uint32_t>> kernel_by_name;
  kernel_by_name.reserve(info.kernels.size());
  for (size_t i = 0; i < info.kernels.size(); ++i)
    kernel_by_name.emplace_back(info.kernels[i].name, static_cast<uint32_t>(i));
  std::sort(kernel_by_name.begin(), kernel_by_name.end());
  for (const auto& s : secs) {
    // Linked cubins give .nv.shared.<k> SHT_NOBITS; relocatable (-rdc) ones SHT_LOPROC+0xa.
    if ((s.type == kShtNobits || s.type == 0x7000000a) && s.name.starts_with(".nv.shared.") &&
        s.name != ".nv.shared.reserved.0") {
      std::string_view kname = std::string_view(s.name).substr(11);
      auto it = std::lower_bound(kernel_by_name.begin(), kernel_by_name.end(),
                                 std::pair<std::string_view, uint32_t>{kname, 0});
      for (; it != kernel_by_name.end() && it->first == kname; ++it)
        info.kernels[it->second].shared_section_bytes = s.size;
    }
    if (s.type != kShtNvInfo) continue;
    auto data = elf.section_data(s);
    if (!data) continue;
    if (s.name == ".nv.info") {  // global: per-function SVAL {u32 symidx, u32 value}
      for_each_info(*data, [&](const InfoRecord& r) {
        if (r.format != kSval || r.data.size() < 8) return;
        uint32_t sym = r.data.read_or_zero<uint32_t>(0);
        if (sym >= kernel_by_symbol.size() || kernel_by_symbol[sym] == kNone) return;
        CubinKernel& k = info.kernels[kernel_by_symbol[sym]];
        uint32_t v = r.data.read_or_zero<uint32_t>(4);
        if (r.attr == kRegcount)
          k.registers = v;
        else if (r.attr == kFrameSize)
          k.stack_bytes = v;
        else if (r.attr == kMinStackSize)
          k.min_stack_bytes = v;
        else if (r.attr == kMaxStackSize)
          k.max_stack_bytes = v;
      });
      continue;
    }
    // .nv.info.<k>: sh_info = index of .text.<k>
    if (s.info >= kernel_by_text.size() || kernel_by_text[s.info] == kNone) continue;
    CubinKernel& k = info.kernels[kernel_by_text[s.info]];
    for_each_info(*data, [&](const InfoRecord& r) {
      switch (r.attr) {
        case kMaxThreads:
          if (r.data.size() >= 12) k.max_threads = xyz(r.data);
          break;
        case kReqntid:
          if (r.data.size() >= 12) k.reqntid = xyz(r.data);
          break;
        case kCtaPerCluster:
          if (r.data.size() >= 12) k.cluster_dims = xyz(r.data);
          break;
        case kExplicitCluster:
          k.explicit_cluster = true;
          break;
        case kMaxClusterRank:
          k.max_cluster_rank = r.format == kSval ? r.data.read_or_zero<uint32_t>(0) : r.value;
          break;
        case kCbankParamSize:
          k.param_bytes = r.value;
          break;
        case kNumBarriers:
          k.barriers = r.format == kBval ? (r.value & 0xff) : r.value;
          break;
        case kTcgen05OneCta:
        case kTcgen05TwoCta:
          k.uses_tcgen05 = true;
          break;
        case kRegReconfig:
          k.uses_reg_reconfig = true;
          break;
        default:
          break;
      }
    });
  }
  // Static shared memory rule (4.6): sm_90+ sections carry 1 KiB reserved for the system, marked
  // by the .nv.reservedSmem.* symbols; ptxas -v reports the size without it.
  for (auto& k : info.kernels) {
    k.shared_bytes = k.shared_section_bytes;
    if (has_reserved_smem && k.shared_section_bytes >= 1024) k.shared_bytes -= 1024;
  }
  return info;
}

}  // namespace smcompat
