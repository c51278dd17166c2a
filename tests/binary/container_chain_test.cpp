// The container chain (issue 32, item 1): containers and bare cubins are jumped over by their
// recorded sizes and the next one is expected at the end of the last; where other bytes follow
// the chain breaks, the magic search reads on, and the reason is counted (ChainCounts). Inputs
// are minimal host ELF files built here around synth containers. The same bytes give the same
// inventory from memory and from a file mapping (whose search goes in growing windows); broken
// and truncated inputs give located warnings and errors, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "smcompat/binary/fatbin.hpp"
#include "smcompat/binary/inventory.hpp"
#include "support/synth.hpp"

namespace smcompat {
namespace {

using Bytes = std::vector<uint8_t>;

void append(Bytes& to, const Bytes& b) { to.insert(to.end(), b.begin(), b.end()); }

// A host ELF64 (x86-64, ET_DYN) whose one PROGBITS section ".nv_fatbin" holds `body` at file
// offset 0x100, then ".shstrtab" and the section table.
constexpr uint64_t kBodyOffset = 0x100;
Bytes host_elf(const Bytes& body) {
  Bytes b(kBodyOffset, 0);
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::memcpy(b.data(), ident, sizeof ident);
  synth::put16(b, 16, 3);   // ET_DYN
  synth::put16(b, 18, 62);  // EM_X86_64
  synth::put32(b, 20, 1);
  synth::put16(b, 52, 64);  // e_ehsize
  synth::put16(b, 58, 64);  // e_shentsize
  synth::put16(b, 60, 3);   // null, .nv_fatbin, .shstrtab
  synth::put16(b, 62, 2);
  append(b, body);
  const std::string names("\0.nv_fatbin\0.shstrtab\0", 22);
  const uint64_t names_offset = b.size();
  b.insert(b.end(), names.begin(), names.end());
  while (b.size() % 8) b.push_back(0);
  const uint64_t shoff = b.size();
  synth::put64(b, 40, shoff);
  b.resize(shoff + 3 * 64, 0);
  auto section = [&](int i, uint32_t name, uint32_t type, uint64_t offset, uint64_t size) {
    const size_t at = shoff + i * 64;
    synth::put32(b, at, name);
    synth::put32(b, at + 4, type);
    synth::put64(b, at + 24, offset);
    synth::put64(b, at + 32, size);
    synth::put64(b, at + 48, 8);
  };
  section(1, 1, 1, kBodyOffset, body.size());  // PROGBITS
  section(2, 12, 3, names_offset, names.size());
  return b;
}

Bytes container_of(uint32_t arch) { return synth::container({synth::sass_entry(arch)}); }

// A fatbin magic that does not validate (version 2).
Bytes invalid_container() {
  Bytes b = container_of(52);
  synth::put16(b, 4, 2);
  return b;
}

// A zstd magic followed by bytes that are no frame.
Bytes zstd_magic_without_cubin() {
  Bytes b(16, 0x5a);
  synth::put32(b, 0, kZstdMagic);
  return b;
}

// The inventory of `bytes` from an exactly sized heap copy (ASan sees any overread).
FileInventory inspect_exact(const Bytes& bytes) {
  std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.size()]);
  if (!bytes.empty()) std::memcpy(exact.get(), bytes.data(), bytes.size());  // data() may be null
  auto all = inspect_buffer(ByteView(exact.get(), bytes.size()), "chain.so", InspectOptions{});
  return all.empty() ? FileInventory{} : all.front();
}

// The inventory of `bytes` written to a file and read through inspect_file() (a file mapping:
// the windowed search and the page advice).
FileInventory inspect_as_file(const Bytes& bytes) {
  char path[] = "/tmp/smcompat-chain-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  close(fd);
  auto all = inspect_file(path, InspectOptions{});
  unlink(path);
  return all.empty() ? FileInventory{} : all.front();
}

std::vector<std::string> image_lines(const FileInventory& inv) {
  std::vector<std::string> out;
  for (const auto& img : inv.images)
    out.push_back(img.target.to_string() + "@" + std::to_string(img.entry_offset) + "/" +
                  std::to_string(img.container_offset) + " " + img.section);
  return out;
}

TEST(ContainerChain, LinkedContainersNeedNoSearch) {
  Bytes body;
  for (uint32_t arch : {75, 80, 86, 90}) append(body, container_of(arch));
  ASSERT_EQ(container_of(75).size() % 8, 0u);
  auto inv = inspect_exact(host_elf(body));
  ASSERT_TRUE(inv.errors.empty()) << inv.errors.front().to_string();
  EXPECT_EQ(inv.containers.size(), 4u);
  EXPECT_EQ(inv.chain.searched_from_section_start, 1u);
  EXPECT_EQ(inv.chain.linked, 3u);  // the last one ends the section: not a break
  EXPECT_EQ(inv.chain.breaks_gap, 0u);
  EXPECT_EQ(inv.chain.breaks_invalid_container, 0u);
}

// [A][B] 8 bytes of padding [C] an invalid container [D] a zstd magic with no cubin, 16 bytes.
Bytes broken_chain_body(uint64_t padding = 8) {
  Bytes body;
  append(body, container_of(75));
  append(body, container_of(80));
  body.resize(body.size() + padding, 0x11);
  append(body, container_of(86));
  append(body, invalid_container());
  append(body, container_of(90));
  append(body, zstd_magic_without_cubin());
  return body;
}

TEST(ContainerChain, BrokenChainFallsBackToTheSearchAndCountsWhy) {
  const Bytes elf = host_elf(broken_chain_body());
  auto inv = inspect_exact(elf);
  ASSERT_TRUE(inv.errors.empty()) << inv.errors.front().to_string();
  ASSERT_EQ(inv.containers.size(), 4u);
  EXPECT_EQ(inv.images[2].target.to_string(), "sm_86");
  EXPECT_EQ(inv.images[3].target.to_string(), "sm_90");
  EXPECT_EQ(inv.chain.searched_from_section_start, 1u);
  // A→B linked; B→padding a gap; C→the invalid container's magic (linked, then invalid);
  // D→the zstd magic (linked, then not a cubin).
  EXPECT_EQ(inv.chain.linked, 3u);
  EXPECT_EQ(inv.chain.breaks_gap, 1u);
  EXPECT_EQ(inv.chain.breaks_invalid_container, 1u);
  EXPECT_EQ(inv.chain.breaks_not_a_cubin, 1u);
  // The invalid container is a located warning (its version field), not an error.
  ASSERT_EQ(inv.warnings.size(), 1u);
  const uint64_t invalid_at = kBodyOffset + 3 * container_of(75).size() + 8;
  EXPECT_NE(inv.warnings[0].what.find("version 2"), std::string::npos) << inv.warnings[0].what;
  EXPECT_EQ(inv.warnings[0].offset, invalid_at + 4);
}

TEST(ContainerChain, FileMappingGivesTheSameInventoryAcrossSearchWindows) {
  // Gaps from none to 5 MB: the windowed search (4 KiB doubling to 8 MiB) must find every
  // container the one-pass search of a memory buffer finds, at every window boundary.
  for (uint64_t padding :
       {8ull, 4096ull - 8, 4096ull + 8, 12288ull, (3ull << 20) + 40, (5ull << 20) + 8}) {
    const Bytes elf = host_elf(broken_chain_body(padding));
    auto memory = inspect_exact(elf);
    auto file = inspect_as_file(elf);
    EXPECT_EQ(image_lines(memory), image_lines(file)) << "padding " << padding;
    EXPECT_EQ(memory.containers.size(), 4u) << "padding " << padding;
    EXPECT_EQ(memory.warnings.size(), file.warnings.size()) << "padding " << padding;
    EXPECT_EQ(memory.chain.linked, file.chain.linked);
    EXPECT_EQ(memory.chain.breaks_gap, file.chain.breaks_gap);
    EXPECT_EQ(memory.chain.breaks_invalid_container, file.chain.breaks_invalid_container);
  }
}

TEST(ContainerChain, ContainerDeclaringMoreThanTheSectionIsAWarningAndTheSearchGoesOn) {
  Bytes body;
  append(body, container_of(75));
  Bytes liar = container_of(80);
  synth::put64(liar, 8, 1ull << 40);  // body size far past the section
  append(body, liar);
  append(body, container_of(86));
  for (const auto& inv : {inspect_exact(host_elf(body)), inspect_as_file(host_elf(body))}) {
    ASSERT_EQ(inv.containers.size(), 2u);
    EXPECT_EQ(inv.images[1].target.to_string(), "sm_86");
    EXPECT_EQ(inv.chain.breaks_invalid_container, 1u);
    ASSERT_EQ(inv.warnings.size(), 1u);
    EXPECT_EQ(inv.warnings[0].offset, kBodyOffset + container_of(75).size() + 8);
    EXPECT_NE(inv.warnings[0].what.find("bytes of entries"), std::string::npos);
  }
}

TEST(ContainerChain, EveryPrefixGivesAResultOrALocatedError) {
  const Bytes elf = host_elf(broken_chain_body());
  for (size_t n = 0; n <= elf.size(); ++n) {
    auto inv = inspect_exact(Bytes(elf.begin(), elf.begin() + static_cast<long>(n)));
    for (const auto& e : inv.errors) EXPECT_TRUE(e.offset.has_value()) << n << ": " << e.what;
    if (n == elf.size()) EXPECT_EQ(inv.containers.size(), 4u);
  }
}

}  // namespace
}  // namespace smcompat
