// NVIDIA's cuobjdump as the oracle for `smcompat scan`, on every ELF file of every wheel of the
// real-world corpus (scripts/fetch-corpus.sh). smcompat reads each wheel in place; cuobjdump needs
// files, so the ELF members are inflated (libzip) into a temporary directory one at a time.
//
// Per file, `cuobjdump --list-elf --list-ptx --all-fatbin` must list exactly smcompat's entries in
// fatbin containers of `.nv_fatbin` and `__nv_relfatbin` (the sections cuobjdump reads), per
// target. Everything else smcompat finds is where it finds more, and each kind is counted and
// asserted exactly per wheel (kExpected), with the reason:
//   bare          zstd cubins outside any container (cuobjdump does not look for them)
//   other_section containers in other sections (.lrodata, .cask_resource, .ldata, ...), which no
//                 `.nvFatBinSegment` wrapper points to and cuobjdump does not read
//   lto           LTO-IR entries: --list-elf / --list-ptx list only cubins and PTX
//   f_folded      `f` cubins/PTX: cuobjdump names them without the suffix (sm_100f -> sm_100)
// cuobjdump's default listing (no --all-fatbin) shows only the "executable fatbin" when a file has
// one: it is checked to be exactly the `.nv_fatbin` entries for files with `__nv_relfatbin`.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zip.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "support/corpus.hpp"
#include "support/shell.hpp"

namespace fs = std::filesystem;

namespace {

using smcompat::testcorpus::corpus_dir;
using smcompat::testshell::quote;
using smcompat::testshell::run;  // stdout and stderr together

// (kind, name as cuobjdump spells it): ("sass", "sm_90a"), ("ptx", "sm_120").
using Listing = std::map<std::pair<std::string, std::string>, size_t>;

struct CuobjdumpResult {
  Listing listing;
  bool no_device_code = false;
  std::string fatal;  // "cuobjdump fatal : ..." when it refused the file
};

CuobjdumpResult cuobjdump(const fs::path& tool, const fs::path& file, bool all_fatbin) {
  CuobjdumpResult r;
  auto [rc, out] = run(quote(tool.string()) + " --list-elf --list-ptx" +
                       (all_fatbin ? " --all-fatbin " : " ") + quote(file.string()));
  static const std::regex line(R"(^(ELF|PTX) file\s+\d+: .*\.(sm_\w+)\.(cubin|ptx)$)");
  std::istringstream in(out);
  std::string l;
  while (std::getline(in, l)) {
    std::smatch m;
    if (std::regex_match(l, m, line)) {
      r.listing[{m[1] == "ELF" ? "sass" : "ptx", m[2]}]++;
    } else if (l.find("does not contain device code") != std::string::npos) {
      r.no_device_code = true;
    } else if (l.starts_with("cuobjdump fatal")) {
      r.fatal = l;
    }
  }
  (void)rc;  // "No PTX file found" exits non-zero although the listing is complete
  return r;
}

// smcompat's name for a target, spelled as cuobjdump spells it.
std::string cuobjdump_name(const std::string& target, bool* f_folded) {
  std::string t = target;
  if (t.starts_with("compute_")) t = "sm_" + t.substr(8);
  *f_folded = !t.empty() && t.back() == 'f';
  if (*f_folded) t.pop_back();
  return t;
}

struct Counts {
  size_t elf_files = 0;           // ELF and ar members inflated and given to cuobjdump
  size_t files_with_code = 0;     // ELF members with device code (smcompat)
  size_t sass = 0, ptx = 0;       // compared entries (equal on both sides)
  size_t bare = 0;                // bare cubins outside containers
  size_t other_section = 0;       // entries in containers of other sections
  size_t lto = 0;                 // LTO-IR entries in .nv_fatbin / __nv_relfatbin
  size_t f_folded = 0;            // compared entries cuobjdump names without their `f`
  size_t relfatbin = 0;           // compared entries from __nv_relfatbin
  size_t cuobjdump_rejected = 0;  // files cuobjdump refuses ("Invalid ELF")
  bool operator==(const Counts&) const = default;
};

std::ostream& operator<<(std::ostream& o, const Counts& c) {
  return o << "{" << c.elf_files << ", " << c.files_with_code << ", " << c.sass << ", " << c.ptx
           << ", " << c.bare << ", " << c.other_section << ", " << c.lto << ", " << c.f_folded
           << ", " << c.relfatbin << ", " << c.cuobjdump_rejected << "}";
}

struct WheelCase {
  const char* name;   // test name
  const char* wheel;  // file name in wheels/ (pinned by scripts/corpus/*.txt)
  Counts expected;
};

// Measured with this test (see docs/testing.md for the table and the explanations).
// {elf_files, files_with_code, sass, ptx, bare, other_section, lto, f_folded, relfatbin, rejected}
const WheelCase kWheels[] = {
#include "corpus_expected.inc"
};

void PrintTo(const WheelCase& wc, std::ostream* os) { *os << wc.wheel; }

class CuobjdumpOracle : public ::testing::TestWithParam<WheelCase> {};

TEST_P(CuobjdumpOracle, PerTargetCountsAgree) {
  const WheelCase& wc = GetParam();
  fs::path dir = corpus_dir();
  fs::path tool = dir / "bin/cuobjdump";
  fs::path wheel = dir / "wheels" / wc.wheel;
  if (!fs::exists(tool))
    GTEST_SKIP() << "corpus cache missing: " << tool << " (run scripts/fetch-corpus.sh)";
  if (!fs::exists(wheel))
    GTEST_SKIP() << "corpus cache missing: " << wheel << " (run scripts/fetch-corpus.sh)";

  auto [rc, out] = run(std::string(SMCOMPAT_CLI) + " scan --json --no-probe -q " +
                       quote(wheel.string()) + " 2>/dev/null");
  ASSERT_EQ(rc, 0) << out.substr(0, 2000);
  nlohmann::json scan = nlohmann::json::parse(out);
  // smcompat's files by wheel member; members of an archive in the wheel ("x.a!y.o") go with
  // the archive, which cuobjdump reads as a whole.
  std::map<std::string, std::vector<const nlohmann::json*>> by_member;
  for (const auto& f : scan["files"]) {
    EXPECT_TRUE(f["errors"].empty()) << f["member"] << ": " << f["errors"].dump();
    std::string m = f["member"];
    if (!m.empty()) by_member[m.substr(0, m.find('!'))].push_back(&f);
  }
  std::set<std::string> compared;

  char tmpl[] = "/tmp/smcompat-corpus-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  fs::path tmp = tmpl;
  struct RemoveOnExit {  // also when an assertion returns early
    fs::path dir;
    ~RemoveOnExit() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } remove_tmp{tmp};
  int zerr = 0;
  zip_t* za = zip_open(wheel.c_str(), ZIP_RDONLY, &zerr);
  ASSERT_NE(za, nullptr) << "libzip error " << zerr;

  Counts got;
  std::vector<std::string> report;
  std::map<std::string, size_t> other_sections;  // section -> entries cuobjdump does not read
  zip_int64_t n = zip_get_num_entries(za, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    std::string member = zip_get_name(za, i, 0);
    if (member.ends_with("/")) continue;
    zip_file_t* zf = zip_fopen_index(za, i, 0);
    ASSERT_NE(zf, nullptr) << member;
    fs::path file = smcompat::testcorpus::inflate_object_member(zf, tmp);
    if (file.empty()) continue;
    got.elf_files++;
    compared.insert(member);

    CuobjdumpResult cu = cuobjdump(tool, file, true);
    auto it = by_member.find(member);
    Counts add;  // this file's share, added when cuobjdump could compare it
    Listing mine, exec_only, rel_only;
    bool has_rel = false, has_exec = false;
    size_t entries_here = 0;
    std::vector<const nlohmann::json*> items;
    if (it != by_member.end()) items = it->second;
    for (const nlohmann::json* item : items) entries_here += (*item)["entries"].size();
    if (entries_here) got.files_with_code++;
    for (const nlohmann::json* item : items) {
      for (const auto& e : (*item)["entries"]) {
        std::string kind = e["kind"], section = e["section"];
        if (!e["in_container"].get<bool>()) {
          add.bare++;
        } else if (section != ".nv_fatbin" && section != "__nv_relfatbin") {
          add.other_section++;
          other_sections[section]++;
        } else if (kind == "lto") {
          add.lto++;
        } else {
          bool folded = false;
          auto key = std::make_pair(kind, cuobjdump_name(e["target"], &folded));
          mine[key]++;
          (section == ".nv_fatbin" ? exec_only : rel_only)[key]++;
          add.f_folded += folded;
          (kind == "sass" ? add.sass : add.ptx)++;
          if (section == "__nv_relfatbin") {
            add.relfatbin++;
            has_rel = true;
          } else {
            has_exec = true;
          }
        }
      }
    }
    if (!cu.fatal.empty()) {
      got.cuobjdump_rejected++;
      report.push_back(member + ": cuobjdump refused it (" + cu.fatal + "); smcompat found " +
                       std::to_string(entries_here) + " images, not compared");
      continue;
    }
    got.sass += add.sass;
    got.ptx += add.ptx;
    got.bare += add.bare;
    got.other_section += add.other_section;
    got.lto += add.lto;
    got.f_folded += add.f_folded;
    got.relfatbin += add.relfatbin;
    if (cu.listing != mine) {
      std::string diff = member + ": cuobjdump and smcompat differ:";
      std::set<std::pair<std::string, std::string>> keys;
      for (auto& [k, v] : cu.listing) keys.insert(k);
      for (auto& [k, v] : mine) keys.insert(k);
      for (auto& k : keys) {
        size_t a = cu.listing.count(k) ? cu.listing.at(k) : 0, b = mine.count(k) ? mine.at(k) : 0;
        if (a != b)
          diff += " " + k.first + " " + k.second + " cuobjdump " + std::to_string(a) +
                  " smcompat " + std::to_string(b) + ";";
      }
      ADD_FAILURE() << diff;
    }
    if (mine.empty()) {
      EXPECT_TRUE(cu.listing.empty()) << member;
    }
    // Which fatbin cuobjdump calls "executable": .nv_fatbin when there is one.
    if (has_rel) {
      CuobjdumpResult def = cuobjdump(tool, file, false);
      EXPECT_EQ(def.listing, has_exec ? exec_only : rel_only)
          << member << ": cuobjdump's default listing is not the "
          << (has_exec ? ".nv_fatbin" : "__nv_relfatbin") << " entries";
      report.push_back(member + ": " + std::to_string(rel_only.size()) +
                       " targets in __nv_relfatbin; cuobjdump's default (executable) listing = " +
                       (has_exec ? ".nv_fatbin" : "__nv_relfatbin") + " entries only");
    }
  }
  zip_close(za);
  for (const auto& [member, items] : by_member)
    for (const nlohmann::json* item : items)
      if (!(*item)["entries"].empty() && !compared.count(member))
        ADD_FAILURE() << member
                      << ": smcompat found device code in a member not given to cuobjdump";
  for (const auto& r : report) std::cout << "  " << r << "\n";
  for (const auto& [section, count] : other_sections)
    std::cout << "  entries in " << section << " (not read by cuobjdump): " << count << "\n";
  std::cout << "RESULT " << wc.name << " " << got << "\n";
  EXPECT_EQ(got, wc.expected) << "{elf_files, files_with_code, sass, ptx, bare, other_section, "
                                 "lto, f_folded, relfatbin, cuobjdump_rejected}";
}

INSTANTIATE_TEST_SUITE_P(Wheels, CuobjdumpOracle, ::testing::ValuesIn(kWheels),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
