// Inventory of device code in any file (include/smcompat/binary/inventory.hpp).
// Scanner checklist: ../shared/reference/fatbin-format.md section 7. Containers are searched in
// every non-NOBITS section at 8-aligned file offsets and validated; bare zstd frames holding an
// EM_CUDA ELF are found outside containers. Archives and wheels are walked member by member.
#include "smcompat/binary/inventory.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <zip.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <future>
#include <iterator>
#include <memory>
#include <optional>

#include "inventory_internal.hpp"
#if defined(SMCOMPAT_HAVE_ISAL)
#include "member_inflate.hpp"
#endif
#include "smcompat/binary/elf.hpp"
#include "smcompat/util/enum_names.hpp"
#include "smcompat/util/mapped_file.hpp"
#include "smcompat/util/strings.hpp"
#include "smcompat/util/thread_pool.hpp"

namespace smcompat {

namespace {

using detail::decode_payload;
using detail::deep_decode;
using detail::image_from_entry;
using detail::scan_region;

// ---------------------------------------------------------------------------------------------
// Formats.

bool name_is_candidate(std::string_view name) {
  // Members of zips worth reading: shared objects, objects, archives, device code, nested zips.
  auto base = name.substr(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1);
  if (base.empty()) return false;
  for (auto ext : {".a", ".o", ".cubin", ".fatbin", ".ptx", ".whl", ".zip", ".so", ".bin"})
    if (base.ends_with(ext)) return true;
  return base.find(".so.") != std::string_view::npos;
}

using Sink = std::function<void(FileInventory&&, ByteView)>;

void walk(ByteView bytes, Backing backing, const std::string& path, const std::string& member,
          const InspectOptions& opt, int depth, const Sink& sink);

void inspect_elf(ByteView bytes, Backing backing, const InspectOptions& opt, FileInventory& inv) {
  const bool release = backing == Backing::kFileMapping;
  auto elf = ElfFile::parse(bytes);
  if (!elf) {
    inv.errors.push_back(elf.error());
    // Still look for validated containers in the raw bytes: a truncated .so loses its section
    // table (at the end of the file) but not its device code.
    scan_region(bytes, bytes, "<raw>", opt, inv, release);
    return;
  }
  if (elf->is_cuda()) {
    inv.format = FileFormat::kCubin;
    if (elf->described_size() > bytes.size())
      inv.errors.push_back(bytes.error_at(
          bytes.size(), fmt::format("file is truncated: its headers describe {:#x} bytes",
                                    elf->described_size())));
    auto c = parse_cubin(bytes, false);
    if (!c) {
      inv.errors.push_back(c.error());
      return;
    }
    DeviceImage img;
    img.in_container = false;
    img.target = SmTarget{ImageKind::kSass, c->sm, c->variant.value_or(ArchVariant::kBase)};
    img.stored_size = bytes.size();
    img.elf_abi = c->abi_version;
    img.relocatable = c->relocatable;
    img.debug = c->debug;
    img.payload_offset = 0;
    inv.images.push_back(std::move(img));
    return;
  }
  inv.format = FileFormat::kHostElf;
  if (elf->described_size() > bytes.size())
    inv.errors.push_back(bytes.error_at(
        bytes.size(),
        fmt::format("file is truncated: its headers describe {:#x} bytes", elf->described_size())));
  // Sections are scanned in parallel, each into its own partial inventory, merged in order.
  std::vector<const ElfSection*> regions;
  for (const auto& s : elf->sections())
    if (s.type != kShtNobits && s.size != 0 && s.type != 0) regions.push_back(&s);
  std::vector<FileInventory> parts(regions.size());
  parallel_for(regions.size(), opt.jobs, [&](size_t i) {
    auto data = elf->section_data(*regions[i]);
    if (!data)
      parts[i].errors.push_back(data.error());
    else
      scan_region(bytes, *data, regions[i]->name, opt, parts[i], release);
  });
  for (auto& part : parts) {
    size_t base = inv.images.size();
    for (auto& c : part.containers) {
      c.first_image += base;
      inv.containers.push_back(std::move(c));
    }
    std::move(part.images.begin(), part.images.end(), std::back_inserter(inv.images));
    std::move(part.errors.begin(), part.errors.end(), std::back_inserter(inv.errors));
    std::move(part.warnings.begin(), part.warnings.end(), std::back_inserter(inv.warnings));
    inv.chain += part.chain;
  }
}

void inspect_fatbin_file(ByteView bytes, const InspectOptions& opt, FileInventory& inv) {
  uint64_t pos = 0;
  while (pos < bytes.size() && fatbin_sniff(bytes.clamp(pos, 16))) {  // < 16 bytes: an error
    auto c = parse_fatbin(bytes.clamp(pos, bytes.size()));
    if (!c) {
      inv.errors.push_back(c.error());
      return;
    }
    ContainerInfo ci{"", c->offset, c->size, inv.images.size(), c->entries.size(), false};
    for (const auto& e : c->entries)
      inv.images.push_back(image_from_entry(e, "", c->offset, false, bytes.file_offset()));
    inv.containers.push_back(std::move(ci));
    pos += c->size;
    pos = (pos + 7) & ~uint64_t{7};
  }
}

void inspect_ptx_file(ByteView bytes, FileInventory& inv) {
  auto h = parse_ptx_header(bytes.as_string_view(), false);
  if (!h) {
    inv.errors.push_back(h.error());
    return;
  }
  DeviceImage img;
  img.in_container = false;
  img.target = h->target;
  img.ptx_version = h->version;
  img.stored_size = bytes.size();
  img.debug = h->debug;
  inv.images.push_back(std::move(img));
}

// "!<arch>\n" static archives: 60-byte member headers, GNU long-name table "//".
void walk_archive(ByteView bytes, Backing backing, const std::string& path,
                  const std::string& member, const InspectOptions& opt, int depth, const Sink& sink,
                  FileInventory& self) {
  uint64_t pos = 8;
  ByteView long_names;
  while (pos + 60 <= bytes.size()) {
    ByteView h = bytes.clamp(pos, 60);
    auto hs = h.as_string_view();
    if (hs.substr(58, 2) != "`\n") {
      self.errors.push_back(h.error_at(58, "archive member header has a bad terminator"));
      return;
    }
    auto size = parse_uint(trim(hs.substr(48, 10)));
    if (!size) {
      self.errors.push_back(h.error_at(
          48, fmt::format("archive member size '{}' is not a number", trim(hs.substr(48, 10)))));
      return;
    }
    auto data = bytes.sub(pos + 60, *size);
    if (!data) {
      self.errors.push_back(
          h.error_at(48, fmt::format("archive member of {} bytes extends past the "
                                     "end of the archive",
                                     *size)));
      return;
    }
    std::string name(trim(hs.substr(0, 16)));
    if (name == "//") {
      long_names = *data;
    } else if (name != "/" && name != "/SYM64/" && name != "__.SYMDEF") {
      if (name.size() > 1 && name[0] == '/' && std::isdigit(static_cast<unsigned char>(name[1]))) {
        auto idx = parse_uint(name.substr(1));
        if (idx && *idx < long_names.size()) {
          auto s = long_names.clamp(*idx, long_names.size()).as_string_view();
          name = std::string(s.substr(0, s.find('\n')));
        }
      }
      if (!name.empty() && name.back() == '/') name.pop_back();
      std::string sub = member.empty() ? name : member + "!" + name;
      // Offsets (and the 8-byte alignment of containers) are relative to the member itself.
      walk(ByteView(data->data(), data->size(), 0), backing, path, sub, opt, depth + 1, sink);
    }
    pos += 60 + *size;
    pos += pos & 1;
  }
  if (pos < bytes.size())
    self.errors.push_back(bytes.error_at(pos, fmt::format("archive ends inside a member header "
                                                          "({} of 60 bytes)",
                                                          bytes.size() - pos)));
}

struct ZipCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};

// The zip in `bytes` opened by libzip, or the error (at offset 0) why not.
std::unique_ptr<zip_t, ZipCloser> open_zip(ByteView bytes, std::optional<Error>& error) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
  std::unique_ptr<zip_t, ZipCloser> z(src ? zip_open_from_source(src, ZIP_RDONLY, &err) : nullptr);
  if (!z) {
    if (src) zip_source_free(src);
    error = bytes.error_at(0, fmt::format("zip: {}", zip_error_strerror(&err)));
  }
  zip_error_fini(&err);
  return z;
}

// One member's bytes, or why they could not be read (the text of its one error).
struct MemberBytes {
  SpooledBytes data;
  std::string error;
};

// Reads member `index` (its stat `st`) of the zip `z` over `bytes`. Callable from any thread
// with a zip_t of its own.
MemberBytes read_member(zip_t* z, zip_int64_t index, const zip_stat_t& st, ByteView bytes,
                        Backing backing) {
  MemberBytes out;
  // Deflated members are inflated by ISA-L from their stored bytes (member_inflate.hpp), which
  // then checks the CRC and size as libzip would; stored, other and encrypted members go
  // through libzip.
#if defined(SMCOMPAT_HAVE_ISAL)
  const bool deflated =
      (st.valid & ZIP_STAT_COMP_METHOD) && st.comp_method == ZIP_CM_DEFLATE &&
      (st.valid & ZIP_STAT_CRC) &&
      (!(st.valid & ZIP_STAT_ENCRYPTION_METHOD) || st.encryption_method == ZIP_EM_NONE);
#else
  const bool deflated = false;  // built without ISA-L (SMCOMPAT_ISAL=OFF): libzip inflates
#endif
  std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> f(
      zip_fopen_index(z, index, deflated ? ZIP_FL_COMPRESSED : 0), zip_fclose);
  if (!f) {
    out.error = fmt::format("zip member cannot be opened: {}", zip_strerror(z));
    return out;
  }
  // Memory follows the bytes that really arrive, not the declared size (a 350 KB wheel may
  // declare a 3.75 GiB member), and deflate makes at most 1032:1 of the stored bytes; a large
  // member goes to a temporary file whose pages the walk drops as it finishes with them.
  const uint64_t plausible = (st.valid & ZIP_STAT_COMP_SIZE)
                                 ? std::min<uint64_t>(st.size, st.comp_size * 1032 + 4096)
                                 : std::min<uint64_t>(st.size, 16 << 20);
  // The zip's compressed pages are done with once inflated: in a file mapping they are dropped
  // every 16 MiB of output, so a 300 MB member does not keep 300 MB of the wheel resident.
  uint64_t since_release = 0;
  // What reads the member (ISA-L's inflater, or libzip), what it says at the end, and why it
  // failed.
#if defined(SMCOMPAT_HAVE_ISAL)
  std::optional<detail::MemberInflater> inflater;
  if (deflated) inflater.emplace(f.get());
  auto pull = [&](uint8_t* buffer, uint64_t capacity) -> int64_t {
    return inflater ? inflater->pull(buffer, capacity)
                    : static_cast<int64_t>(zip_fread(f.get(), buffer, capacity));
  };
  auto end_check = [&] { return inflater ? inflater->check_end(st.size, st.crc) : std::string(); };
  auto failure = [&]() -> std::string {
    return inflater ? inflater->why() : zip_file_strerror(f.get());
  };
#else
  auto pull = [&](uint8_t* buffer, uint64_t capacity) -> int64_t {
    return static_cast<int64_t>(zip_fread(f.get(), buffer, capacity));
  };
  auto end_check = [] { return std::string(); };  // libzip's reader checked
  auto failure = [&]() -> std::string { return zip_file_strerror(f.get()); };
#endif
  out.data = SpooledBytes::read(
      [&](uint8_t* buffer, uint64_t capacity) {
        int64_t r = pull(buffer, capacity);
        if (backing == Backing::kFileMapping && r > 0 &&
            (since_release += static_cast<uint64_t>(r)) >= (16u << 20)) {
          release_mapped_pages(bytes);
          since_release = 0;
        }
        return r;
      },
      st.size, plausible);
  if (backing == Backing::kFileMapping) release_mapped_pages(bytes);
  // libzip's reader, or the inflater, verifies the CRC and the declared size: a member that
  // lies about either ends here.
  const SpooledBytes& data = out.data;
  std::string inflate_end;
  if (data.spool_error().empty() && !data.failed() && data.size() == st.size)
    inflate_end = end_check();
  if (!data.spool_error().empty() || data.failed() || data.size() != st.size ||
      !inflate_end.empty()) {
    std::string why = !data.spool_error().empty() ? data.spool_error()
                      : data.failed()             ? failure()
                      : !inflate_end.empty()      ? inflate_end
                                                  : "short read";
    out.error = fmt::format("zip member does not match its declared size of {} bytes (read {}): {}",
                            st.size, data.failed() ? -1 : static_cast<int64_t>(data.size()), why);
  }
  return out;
}

// Members whose stored bytes reach InspectOptions::inflate_ahead_bytes (16 MiB) are inflated
// ahead, on other cores, while the walk goes on in order: torch's wheel holds libtorch_cuda.so
// (345 MB stored) and libtorch_cpu.so (115 MB), which one core inflated one after the other.
// At most this many members in flight at once: each may hold up to SpooledBytes::kMemoryLimit
// in memory (larger ones go to temporary files).
constexpr unsigned kMaxInflateAhead = 4;

void walk_zip(ByteView bytes, Backing backing, const std::string& path, const std::string& member,
              const InspectOptions& opt, int depth, const Sink& sink, FileInventory& self) {
  std::optional<Error> open_error;
  auto z = open_zip(bytes, open_error);
  if (!z) {
    self.errors.push_back(std::move(*open_error));
    return;
  }
  struct Candidate {
    zip_int64_t index;
    zip_stat_t st;
  };
  std::vector<Candidate> candidates;
  zip_int64_t n = zip_get_num_entries(z.get(), 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z.get(), i, 0, &st) != 0 || !st.name) continue;
    if (name_is_candidate(st.name)) candidates.push_back({i, st});
  }
  auto within_limit = [&](const zip_stat_t& st) {
    return (st.valid & ZIP_STAT_SIZE) && st.size <= opt.max_member_bytes;
  };
  auto large = [&](const zip_stat_t& st) {
    return within_limit(st) && (st.valid & ZIP_STAT_COMP_SIZE) &&
           st.comp_size >= opt.inflate_ahead_bytes;
  };
  // Large members are read by worker threads, each with a zip_t of its own over the same bytes
  // (libzip's handles are not shared between threads), in order, at most `ahead` at a time.
  const unsigned jobs = opt.jobs == 0 ? default_jobs() : opt.jobs;
  const unsigned ahead = std::min(jobs, kMaxInflateAhead);
  std::deque<std::pair<size_t, std::future<MemberBytes>>> in_flight;
  size_t next_large = 0;  // candidates before this one were looked at for launching
  auto launch_ahead = [&](size_t from) {
    next_large = std::max(next_large, from);
    while (ahead > 1 && in_flight.size() < ahead && next_large < candidates.size()) {
      const size_t c = next_large++;
      if (!large(candidates[c].st)) continue;
      in_flight.emplace_back(c, std::async(std::launch::async, [&, c] {
                               std::optional<Error> error;
                               auto own = open_zip(bytes, error);
                               if (!own) return MemberBytes{{}, error->what};
                               return read_member(own.get(), candidates[c].index, candidates[c].st,
                                                  bytes, backing);
                             }));
    }
  };
  for (size_t c = 0; c < candidates.size(); ++c) {
    const zip_stat_t& st = candidates[c].st;
    std::string sub = member.empty() ? std::string(st.name) : member + "!" + st.name;
    FileInventory minv;
    minv.path = path;
    minv.member = sub;
    if (!within_limit(st)) {
      minv.errors.push_back(
          make_error(fmt::format("zip member declares {} bytes, above the {}-byte "
                                 "limit; not read",
                                 st.size, opt.max_member_bytes)));
      for (auto& e : minv.errors) e.in_file(minv.display_name());
      sink(std::move(minv), {});
      continue;
    }
    launch_ahead(c);
    MemberBytes read;
    if (!in_flight.empty() && in_flight.front().first == c) {
      read = in_flight.front().second.get();
      in_flight.pop_front();
      launch_ahead(c + 1);
    } else {
      read = read_member(z.get(), candidates[c].index, st, bytes, backing);
    }
    if (!read.error.empty()) {
      minv.errors.push_back(make_error(std::move(read.error)));
      for (auto& e : minv.errors) e.in_file(minv.display_name());
      sink(std::move(minv), {});
      continue;
    }
    walk(read.data.view(), read.data.file_backed() ? Backing::kFileMapping : Backing::kMemory, path,
         sub, opt, depth + 1, sink);
  }
}

void walk(ByteView bytes, Backing backing, const std::string& path, const std::string& member,
          const InspectOptions& opt, int depth, const Sink& sink) {
  FileInventory inv;
  inv.path = path;
  inv.member = member;
  inv.size = bytes.size();
  inv.format = sniff_format(bytes, member.empty() ? path : member);
  if (depth > opt.max_nesting) {
    inv.errors.push_back(
        make_error(fmt::format("nested more than {} levels deep; not read", opt.max_nesting))
            .in_file(inv.display_name()));
    sink(std::move(inv), bytes);
    return;
  }
  // The header walk of a host ELF in a file mapping reads headers scattered through hundreds of
  // MB: MADV_RANDOM keeps each fault to its own page (the default read-around brought in the
  // whole of libcublasLt.so.13, 132,226 pages, for 13,550 pages of headers); the search asks
  // for its windows ahead itself. The deep decode reads payloads whole: normal readahead again.
  const bool random_reads = backing == Backing::kFileMapping && inv.format == FileFormat::kHostElf;
  if (random_reads) detail::advise_mapped_pages(bytes, MADV_RANDOM);
  switch (inv.format) {
    case FileFormat::kHostElf:
    case FileFormat::kCubin:
      inspect_elf(bytes, backing, opt, inv);
      break;
    case FileFormat::kFatbin:
      inspect_fatbin_file(bytes, opt, inv);
      break;
    case FileFormat::kPtx:
      inspect_ptx_file(bytes, inv);
      break;
    case FileFormat::kArchive:
      walk_archive(bytes, backing, path, member, opt, depth, sink, inv);
      break;
    case FileFormat::kZip:
      walk_zip(bytes, backing, path, member, opt, depth, sink, inv);
      break;
    case FileFormat::kUnknown:
      break;
  }
  if (opt.deep && !inv.images.empty()) {
    if (random_reads) detail::advise_mapped_pages(bytes, MADV_NORMAL);
    deep_decode(bytes, opt, inv);
  }
  if (!inv.images.empty())
    detail::count_header_level_kernels(bytes, inv, backing == Backing::kFileMapping);
  if (random_reads && !opt.deep) detail::advise_mapped_pages(bytes, MADV_NORMAL);
  for (auto& e : inv.errors) e.in_file(inv.display_name());
  for (auto& e : inv.warnings) e.in_file(inv.display_name());
  sink(std::move(inv), bytes);
}

}  // namespace

const char* to_string(FileFormat f) {
  static constexpr std::array<const char*, 7> kNames{"unknown", "elf", "cubin", "fatbin",
                                                     "ptx",     "ar",  "zip"};
  return enum_name(f, kNames);
}

FileFormat sniff_format(ByteView bytes, std::string_view name_hint) {
  if (ElfFile::sniff(bytes)) return cubin_sniff(bytes) ? FileFormat::kCubin : FileFormat::kHostElf;
  if (fatbin_sniff(bytes)) return FileFormat::kFatbin;
  auto s = bytes.clamp(0, 8).as_string_view();
  if (s == "!<arch>\n") return FileFormat::kArchive;
  if (s.starts_with("PK\x03\x04") || s.starts_with("PK\x05\x06")) return FileFormat::kZip;
  if (ptx_sniff(bytes.clamp(0, 1 << 16).as_string_view())) return FileFormat::kPtx;
  (void)name_hint;
  return FileFormat::kUnknown;
}

namespace {

// The walk from `member` ("" for the file itself): the top item first, then the nested members
// that hold device code or problems, in walk order (the rest are dropped to keep reports small).
std::vector<FileInventory> inspect_from(ByteView bytes, Backing backing, const std::string& path,
                                        const std::string& member, const InspectOptions& options) {
  std::vector<FileInventory> out;
  walk(bytes, backing, path, member, options, 0,
       [&](FileInventory&& inv, ByteView) { out.push_back(std::move(inv)); });
  std::vector<FileInventory> kept;
  for (size_t i = 0; i < out.size(); ++i) {
    bool top = out[i].member == member;
    if (top || !out[i].images.empty() || !out[i].errors.empty()) kept.push_back(std::move(out[i]));
  }
  std::stable_partition(kept.begin(), kept.end(),
                        [&](const FileInventory& f) { return f.member == member; });
  return kept;
}

}  // namespace

std::vector<FileInventory> inspect_buffer(ByteView bytes, const std::string& path,
                                          const InspectOptions& options, Backing backing) {
  return inspect_from(bytes, backing, path, "", options);
}

std::vector<FileInventory> inspect_member(ByteView bytes, const std::string& path,
                                          const std::string& member, const InspectOptions& options,
                                          Backing backing) {
  return inspect_from(bytes, backing, path, member, options);
}

std::vector<FileInventory> inspect_file(const std::string& path, const InspectOptions& options) {
  auto mf = MappedFile::open(path);
  if (!mf) {
    FileInventory inv;
    inv.path = path;
    inv.errors.push_back(mf.error());
    return {std::move(inv)};
  }
  return inspect_buffer(mf->view(), path, options, Backing::kFileMapping);
}

Result<std::vector<uint8_t>> decode_image(ByteView bytes, const DeviceImage& image,
                                          uint64_t max_output) {
  detail::Scratch scratch;
  SMCOMPAT_TRY(ByteView v, decode_payload(bytes, image, max_output, scratch));
  if (v.size() > max_output)
    return v.error_at(
        0, fmt::format("payload of {} bytes is above the {}-byte limit", v.size(), max_output));
  return std::vector<uint8_t>(v.data(), v.data() + v.size());
}

bool visit_images(const std::string& path, const InspectOptions& options, const ImageVisitor& visit,
                  const ErrorVisitor& on_error) {
  auto mf = MappedFile::open(path);
  if (!mf) {
    if (on_error) {
      FileInventory inv;
      inv.path = path;
      on_error(inv, mf.error());
    }
    return false;
  }
  InspectOptions shallow = options;
  shallow.deep = false;
  walk(mf->view(), Backing::kFileMapping, path, "", shallow, 0,
       [&](FileInventory&& inv, ByteView bytes) {
         if (on_error)
           for (const auto& e : inv.errors) on_error(inv, e);
         detail::Scratch scratch;
         for (const auto& img : inv.images) {
           if (img.target.kind == ImageKind::kLto) continue;
           auto payload = decode_payload(bytes, img, options.max_decoded_bytes, scratch);
           if (!payload) {
             if (on_error) {
               Error e = payload.error();
               e.in_file(inv.display_name());
               on_error(inv, e);
             }
             continue;
           }
           visit(inv, img, *payload);
         }
       });
  return true;
}

FileInventory inspect_memory_image(const void* image, uint64_t max_size,
                                   const InspectOptions& options) {
  FileInventory inv;
  inv.path = "<memory>";
  if (!image || max_size < 4) {
    inv.errors.push_back(make_error("null or empty image"));
    return inv;
  }
  ByteView probe(static_cast<const uint8_t*>(image), std::min<uint64_t>(max_size, 16));
  uint32_t magic = probe.read_or_zero<uint32_t>(0);
  ByteView bytes;
  if (magic == kFatbinWrapperMagic) {  // __fatBinC_Wrapper_t: the container is at `data`
    ByteView w(static_cast<const uint8_t*>(image), std::min<uint64_t>(max_size, 24));
    uint64_t data = w.read_or_zero<uint64_t>(8);
    if (!data) {
      inv.errors.push_back(make_error("fatbin wrapper has a null data pointer"));
      return inv;
    }
    // A wrapper points at a container, never at another wrapper: unwrap exactly one level (a
    // wrapper pointing at itself must not recurse).
    const void* inner = reinterpret_cast<const void*>(data);
    if (ByteView(static_cast<const uint8_t*>(inner), 4).read_or_zero<uint32_t>(0) ==
        kFatbinWrapperMagic) {
      inv.errors.push_back(make_error("fatbin wrapper points at another wrapper, not a container"));
      return inv;
    }
    return inspect_memory_image(inner, max_size, options);
  }
  if (magic == kFatbinMagic) {
    ByteView h(static_cast<const uint8_t*>(image), std::min<uint64_t>(max_size, 16));
    auto total = checked_add(16, h.read_or_zero<uint64_t>(8));
    bytes = ByteView(static_cast<const uint8_t*>(image),
                     std::min<uint64_t>(total.value_or(16), max_size));
  } else if (ElfFile::sniff(probe)) {
    // The header table gives the extent: read the 64-byte header first, then the section table.
    ByteView head(static_cast<const uint8_t*>(image), std::min<uint64_t>(max_size, 64));
    uint64_t shoff = head.read_or_zero<uint64_t>(40);
    uint64_t extent = 64;
    if (auto t = checked_add(
            shoff, uint64_t{head.read_or_zero<uint16_t>(60)} * head.read_or_zero<uint16_t>(58)))
      extent = std::max(extent, *t);
    extent = std::min(extent, max_size);
    auto elf = ElfFile::parse(ByteView(static_cast<const uint8_t*>(image), extent));
    if (elf) extent = std::min(std::max(extent, elf->described_size()), max_size);
    bytes = ByteView(static_cast<const uint8_t*>(image), extent);
  } else {
    const void* nul = std::memchr(image, 0, max_size);
    uint64_t n =
        nul ? static_cast<const uint8_t*>(nul) - static_cast<const uint8_t*>(image) : max_size;
    bytes = ByteView(static_cast<const uint8_t*>(image), n);
  }
  auto all = inspect_buffer(bytes, "<memory>", options);
  if (all.empty()) return inv;
  inv = std::move(all.front());
  if (inv.format == FileFormat::kUnknown && inv.images.empty())
    inv.errors.push_back(make_error("image is not a fatbin wrapper, fatbin, cubin or PTX text"));
  return inv;
}

}  // namespace smcompat
