// index_wheel() on real PyPI wheels (the corpus of scripts/fetch-corpus.sh, $SMCOMPAT_CORPUS or
// ~/.cache/smcompat-corpus), label corpus; each test skips naming the missing path without it.
//
// 1. NVIDIA's cuobjdump as the oracle for a record's target sets: every ELF member of three
//    small-to-medium wheels (xformers, torchvision, jax-cuda13-plugin) is inflated (libzip) into a
//    temporary directory and listed with `cuobjdump --list-elf --list-ptx --all-fatbin`. The
//    record's SASS and PTX targets must be the union of cuobjdump's, the ISA of each PTX target
//    the `.version` of its text (`cuobjdump --dump-ptx`), and each indexed file's image count the
//    number of images cuobjdump lists for it. These three have no device code
//    where cuobjdump does not look (other sections, bare cubins, LTO-IR) and no `f` targets,
//    which cuobjdump names without their suffix (docs/testing.md, the corpus table), so equality
//    is exact. bitsandbytes 0.45.2 against 0.50.2: sm_120 SASS must appear between them (0.45.3
//    was the first release built with CUDA 12.8 for Blackwell), on both sides of the oracle.
// 2. The shipped index (data/wheel_index.json, builtin_wheel_index()) against fresh records: every
//    corpus wheel that is in it (same file name and same sha256) must be recorded exactly as
//    shipped. The shipped index must hold at least three corpus wheels; while it is empty, that
//    test fails saying so (it is filled by scripts/refresh-wheel-index.sh).
#include <gtest/gtest.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "smcompat/index/advise.hpp"
#include "smcompat/index/record.hpp"
#include "support/corpus.hpp"
#include "support/shell.hpp"

namespace smcompat {
namespace {

namespace fs = std::filesystem;

using testcorpus::corpus_dir;
using testshell::quote;
using testshell::run;

#define REQUIRE_CORPUS_FILE(path)                                                             \
  do {                                                                                        \
    if (!fs::exists(path))                                                                    \
      GTEST_SKIP() << "corpus cache missing: " << (path) << " (run scripts/fetch-corpus.sh)"; \
  } while (0)

// What cuobjdump lists for one file: ("sass", "sm_90a") / ("ptx", "sm_120") -> count.
struct Listing {
  std::map<std::pair<std::string, std::string>, size_t> images;
  std::set<std::string> ptx_isa;  // "sm_80@8.7": PTX target and the `.version` of its text
  std::string fatal;              // "cuobjdump fatal : ..." when it refused the file
  size_t total() const {
    size_t n = 0;
    for (const auto& [k, c] : images) n += c;
    return n;
  }
};

Listing cuobjdump(const fs::path& tool, const fs::path& file) {
  Listing l;
  auto [rc, out] =
      run(quote(tool.string()) + " --list-elf --list-ptx --all-fatbin " + quote(file.string()));
  (void)rc;  // "No PTX file found" exits non-zero although the listing is complete
  static const std::regex line(R"(^(ELF|PTX) file\s+\d+: .*\.(sm_\w+)\.(cubin|ptx)$)");
  std::istringstream in(out);
  std::string s;
  while (std::getline(in, s)) {
    std::smatch m;
    if (std::regex_match(s, m, line))
      l.images[{m[1] == "ELF" ? "sass" : "ptx", m[2]}]++;
    else if (s.starts_with("cuobjdump fatal"))
      l.fatal = s;
  }
  if (l.images.empty() || l.fatal.size()) return l;
  bool any_ptx = false;
  for (const auto& [k, c] : l.images) any_ptx |= k.first == "ptx";
  if (!any_ptx) return l;
  // The PTX texts: "Fatbin ptx code:", "arch = sm_80", ..., ".version 8.7".
  auto [rc2, text] = run(quote(tool.string()) + " --dump-ptx --all-fatbin " + quote(file.string()));
  (void)rc2;
  std::istringstream dump(text);
  std::string arch;
  bool in_ptx = false;
  while (std::getline(dump, s)) {
    if (s.starts_with("Fatbin ")) {
      in_ptx = s.starts_with("Fatbin ptx code:");
      arch.clear();
    } else if (in_ptx && s.starts_with("arch = ")) {
      arch = s.substr(7);
    } else if (in_ptx && !arch.empty() && s.starts_with(".version ")) {
      l.ptx_isa.insert(arch + "@" + s.substr(9));
      arch.clear();
    }
  }
  return l;
}

// Every ELF or ar member of the wheel, inflated to a temporary file and listed by cuobjdump.
std::map<std::string, Listing> cuobjdump_wheel(const fs::path& tool, const fs::path& wheel) {
  std::map<std::string, Listing> out;
  char tmpl[] = "/tmp/smcompat-index-corpus-XXXXXX";
  if (!::mkdtemp(tmpl)) {
    ADD_FAILURE() << "mkdtemp failed";
    return out;
  }
  fs::path tmp = tmpl;
  int zerr = 0;
  zip_t* za = zip_open(wheel.c_str(), ZIP_RDONLY, &zerr);
  if (!za) {
    ADD_FAILURE() << "libzip cannot open " << wheel << ": error " << zerr;
    fs::remove_all(tmp);
    return out;
  }
  zip_int64_t n = zip_get_num_entries(za, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    std::string member = zip_get_name(za, i, 0);
    if (member.ends_with("/")) continue;
    zip_file_t* zf = zip_fopen_index(za, i, 0);
    if (!zf) {
      ADD_FAILURE() << "libzip cannot read " << member;
      continue;
    }
    fs::path file = testcorpus::inflate_object_member(zf, tmp);
    if (!file.empty()) out[member] = cuobjdump(tool, file);
  }
  zip_close(za);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return out;
}

// "compute_90@8.4" -> "sm_90@8.4" (cuobjdump's name for PTX of compute_90), or "sm_90" without
// the ISA.
std::string ptx_as_cuobjdump_names_it(const std::string& ptx, bool with_isa) {
  std::string t = with_isa ? ptx : ptx.substr(0, ptx.find('@'));
  return t.starts_with("compute_") ? "sm_" + t.substr(8) : t;
}

struct OracleCase {
  const char* name;
  const char* wheel;
};
void PrintTo(const OracleCase& c, std::ostream* os) { *os << c.wheel; }

class RecordVsCuobjdump : public ::testing::TestWithParam<OracleCase> {};

TEST_P(RecordVsCuobjdump, TargetSetsAndImageCountsAgree) {
  fs::path tool = corpus_dir() / "bin/cuobjdump";
  fs::path wheel = corpus_dir() / "wheels" / GetParam().wheel;
  REQUIRE_CORPUS_FILE(tool);
  REQUIRE_CORPUS_FILE(wheel);

  auto rec = index_wheel(wheel.string());
  ASSERT_TRUE(rec.ok()) << rec.error().to_string();
  const WheelRecord& r = *rec;
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_EQ(r.filename, GetParam().wheel);
  EXPECT_EQ(r.size, fs::file_size(wheel));
  EXPECT_TRUE(r.lto.empty());

  std::map<std::string, Listing> oracle = cuobjdump_wheel(tool, wheel);
  std::set<std::string> sass, ptx, ptx_isa;
  std::set<std::string> members_with_code;
  for (const auto& [member, l] : oracle) {
    EXPECT_TRUE(l.fatal.empty()) << member << ": " << l.fatal;
    for (const auto& [k, c] : l.images) (k.first == "sass" ? sass : ptx).insert(k.second);
    ptx_isa.insert(l.ptx_isa.begin(), l.ptx_isa.end());
    if (l.total() > 0) members_with_code.insert(member);
  }
  ASSERT_FALSE(members_with_code.empty()) << "cuobjdump found no device code in " << wheel;

  EXPECT_EQ(std::set<std::string>(r.sass.begin(), r.sass.end()), sass);
  std::set<std::string> record_ptx, record_ptx_isa;
  for (const auto& p : r.ptx) {
    EXPECT_NE(p.find('@'), std::string::npos) << p << ": a PTX target carries its ISA";
    record_ptx.insert(ptx_as_cuobjdump_names_it(p, false));
    record_ptx_isa.insert(ptx_as_cuobjdump_names_it(p, true));
  }
  EXPECT_EQ(record_ptx, ptx);
  // The ISA of each PTX target is the `.version` line of its text.
  EXPECT_EQ(record_ptx_isa, ptx_isa);

  std::set<std::string> indexed;
  for (const auto& f : r.files) {
    indexed.insert(f.path);
    EXPECT_TRUE(f.errors.empty()) << f.path << ": " << f.errors.front();
    auto it = oracle.find(f.path);
    ASSERT_NE(it, oracle.end()) << f.path << " is indexed but is no ELF member cuobjdump read";
    EXPECT_EQ(f.images, it->second.total()) << f.path;
  }
  EXPECT_EQ(indexed, members_with_code);
}

const OracleCase kOracleCases[] = {
    {"xformers_0_0_35", "xformers-0.0.35-py39-none-manylinux_2_28_x86_64.whl"},
    {"torchvision_0_29_2", "torchvision-0.29.2-py3-none-manylinux_2_28_x86_64.whl"},
    {"jax_cuda13_plugin_0_10_2", "jax_cuda13_plugin-0.10.2-cp311-cp311-manylinux_2_27_x86_64.whl"},
};
INSTANTIATE_TEST_SUITE_P(Wheels, RecordVsCuobjdump, ::testing::ValuesIn(kOracleCases),
                         [](const auto& info) { return std::string(info.param.name); });

bool lists_sass(const std::map<std::string, Listing>& oracle, const std::string& target) {
  for (const auto& [member, l] : oracle)
    if (l.images.count({"sass", target})) return true;
  return false;
}

TEST(RecordCorpus, BitsandbytesGainsSm120Sass) {
  fs::path tool = corpus_dir() / "bin/cuobjdump";
  fs::path old_wheel =
      corpus_dir() / "wheels/bitsandbytes-0.45.2-py3-none-manylinux_2_24_x86_64.whl";
  fs::path new_wheel =
      corpus_dir() / "wheels/bitsandbytes-0.50.2-py3-none-manylinux_2_24_x86_64.whl";
  REQUIRE_CORPUS_FILE(tool);
  REQUIRE_CORPUS_FILE(old_wheel);
  REQUIRE_CORPUS_FILE(new_wheel);
  auto old_rec = index_wheel(old_wheel.string());
  auto new_rec = index_wheel(new_wheel.string());
  ASSERT_TRUE(old_rec.ok() && new_rec.ok());
  auto has = [](const std::vector<std::string>& v, const std::string& t) {
    return std::find(v.begin(), v.end(), t) != v.end();
  };
  EXPECT_FALSE(has(old_rec->sass, "sm_120"));
  EXPECT_TRUE(has(new_rec->sass, "sm_120"));
  EXPECT_TRUE(has(old_rec->sass, "sm_90") && has(new_rec->sass, "sm_90"));
  EXPECT_EQ(old_rec->package, "bitsandbytes");
  EXPECT_EQ(new_rec->version, "0.50.2");
  // The oracle agrees (on the files it reads: it refuses 0.45.2's CUDA 12.0-12.2 builds, which
  // cannot hold sm_120 code anyway).
  EXPECT_FALSE(lists_sass(cuobjdump_wheel(tool, old_wheel), "sm_120"));
  EXPECT_TRUE(lists_sass(cuobjdump_wheel(tool, new_wheel), "sm_120"));
}

// torch 2.15.0 pins its CUDA runtime through NVIDIA's metapackage, not nvidia-cuda-runtime:
// its METADATA says `Requires-Dist: cuda-toolkit[cublas,cudart,...]==13.2.2; platform_system ==
// "Linux"`, so the runtime it needs is 13.2 (record.hpp: `cuda` from "requires ...").
TEST(RecordCorpus, TorchCudaRuntimeFromItsCudaToolkitPin) {
  fs::path wheel = corpus_dir() / "wheels/torch-2.15.0-cp311-cp311-manylinux_2_28_x86_64.whl";
  REQUIRE_CORPUS_FILE(wheel);
  auto [rc, metadata] =
      run("unzip -p " + quote(wheel.string()) + " torch-2.15.0.dist-info/METADATA");
  ASSERT_EQ(rc, 0) << metadata.substr(0, 500);
  const std::string pin =
      "Requires-Dist: cuda-toolkit[cublas,cudart,cufft,cufile,cupti,cusolver,cusparse,nvjitlink,"
      "nvrtc,nvtx]==13.2.2; platform_system == \"Linux\"";
  ASSERT_NE(metadata.find(pin), std::string::npos) << "the wheel's METADATA changed";
  auto r = index_wheel(wheel.string());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_NE(std::find(r->requires_dist.begin(), r->requires_dist.end(), pin.substr(15)),
            r->requires_dist.end());
  EXPECT_EQ(r->cuda, "13.2") << r->cuda_evidence;
  EXPECT_NE(r->cuda_evidence.find("cuda-toolkit"), std::string::npos) << r->cuda_evidence;
}

// The shipped index against fresh records.

// The corpus wheels with device code (docs/testing.md, the corpus table) and the rest of those
// whose packages scripts/refresh-wheel-index.sh indexes.
const char* const kCorpusWheels[] = {
    "bitsandbytes-0.45.2-py3-none-manylinux_2_24_x86_64.whl",
    "bitsandbytes-0.50.2-py3-none-manylinux_2_24_x86_64.whl",
    "cupy_cuda12x-14.2.0-cp311-cp311-manylinux2014_x86_64.whl",
    "jax_cuda13_pjrt-0.10.2-py3-none-manylinux_2_27_x86_64.whl",
    "jax_cuda13_plugin-0.10.2-cp311-cp311-manylinux_2_27_x86_64.whl",
    "nvidia_cublas-13.4.1.3-py3-none-manylinux_2_27_x86_64.whl",
    "nvidia_cuda_cupti-13.2.86-py3-none-manylinux_2_25_x86_64.whl",
    "nvidia_cuda_nvrtc-13.2.86-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl",
    "nvidia_cuda_runtime-13.2.86-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
    "nvidia_cudnn_cu13-9.26.0.51-py3-none-manylinux_2_27_x86_64.whl",
    "nvidia_cufft-12.2.0.57-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
    "nvidia_cufile-1.17.1.22-py3-none-manylinux_2_27_x86_64.whl",
    "nvidia_cusolver-12.2.0.11-py3-none-manylinux_2_27_x86_64.whl",
    "nvidia_cusparse-12.7.10.12-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
    "nvidia_cusparselt_cu13-0.8.1-py3-none-manylinux2014_x86_64.whl",
    "nvidia_nccl_cu13-2.30.7-py3-none-manylinux_2_18_x86_64.whl",
    "nvidia_nvshmem_cu13-3.7.2-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
    "sgl_kernel-0.3.21-cp310-abi3-manylinux2014_x86_64.whl",
    "torch-2.15.0-cp311-cp311-manylinux_2_28_x86_64.whl",
    "torchvision-0.29.2-py3-none-manylinux_2_28_x86_64.whl",
    "triton-3.9.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
    "vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl",
    "xformers-0.0.35-py39-none-manylinux_2_28_x86_64.whl",
};

std::string sha256_of(const fs::path& file) {
  auto [rc, out] = run("sha256sum " + quote(file.string()));
  EXPECT_EQ(rc, 0) << out;
  return out.substr(0, out.find(' '));
}

// The shipped record of this file, when the shipped index has one with the same name and hash.
// Names first (cheap), then the hash of the few candidates: a corpus wheel is "in the shipped
// index" only when its sha256 is.
const WheelRecord* shipped_record_of(const fs::path& wheel) {
  const std::string name = wheel.filename().string();
  for (const auto& w : builtin_wheel_index().wheels)
    if (w.filename == name && fs::exists(wheel) && w.sha256 == sha256_of(wheel)) return &w;
  return nullptr;
}

const char* const kEmptyShipped =
    "the shipped index data/wheel_index.json is empty (no wheels): fill it with "
    "scripts/refresh-wheel-index.sh";

TEST(ShippedIndex, HoldsAtLeastThreeCorpusWheels) {
  REQUIRE_CORPUS_FILE(corpus_dir() / "READY");  // a complete cache, not an empty wheels/
  ASSERT_FALSE(builtin_wheel_index().wheels.empty()) << kEmptyShipped;
  std::vector<std::string> found;
  for (const char* w : kCorpusWheels)
    if (shipped_record_of(corpus_dir() / "wheels" / w)) found.push_back(w);
  std::string list;
  for (const auto& f : found) list += "\n  " + f;
  // The corpus pins CPython 3.11 wheels and the index is built for 3.12 (IndexBuildOptions::
  // python_version): only py3 / abi3 wheels (bitsandbytes, torchvision, xformers, vllm,
  // sgl-kernel, jax-cuda13-pjrt, the nvidia-* libraries) can be in both.
  EXPECT_GE(found.size(), 3u) << "corpus wheels in the shipped index (same name and sha256): "
                              << found.size() << list;
}

// The corpus wheels the shipped index holds (same file name and sha256): the py3 / abi3 ones of
// releases among the indexed ones. Each must be there; the others (CPython 3.11 wheels, releases
// older than the indexed ones) cannot be.
const char* const kShippedCorpusWheels[] = {
    "bitsandbytes-0.45.2-py3-none-manylinux_2_24_x86_64.whl",
    "bitsandbytes-0.50.2-py3-none-manylinux_2_24_x86_64.whl",
    "jax_cuda13_pjrt-0.10.2-py3-none-manylinux_2_27_x86_64.whl",
    "nvidia_cuda_runtime-13.2.86-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
    "nvidia_cudnn_cu13-9.26.0.51-py3-none-manylinux_2_27_x86_64.whl",
    "nvidia_nccl_cu13-2.30.7-py3-none-manylinux_2_18_x86_64.whl",
    "sgl_kernel-0.3.21-cp310-abi3-manylinux2014_x86_64.whl",
    "torchvision-0.29.2-py3-none-manylinux_2_28_x86_64.whl",
    "vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl",
    "xformers-0.0.35-py39-none-manylinux_2_28_x86_64.whl",
};

class ShippedVsFresh : public ::testing::TestWithParam<const char*> {};

TEST_P(ShippedVsFresh, RecordIsExactlyAsShipped) {
  fs::path wheel = corpus_dir() / "wheels" / GetParam();
  REQUIRE_CORPUS_FILE(wheel);
  if (builtin_wheel_index().wheels.empty())
    GTEST_SKIP() << kEmptyShipped << " (ShippedIndex.HoldsAtLeastThreeCorpusWheels fails for it)";
  const WheelRecord* shipped = shipped_record_of(wheel);
  ASSERT_NE(shipped, nullptr) << GetParam() << " is not in the shipped index (by sha256)";
  auto fresh = index_wheel(wheel.string());
  ASSERT_TRUE(fresh.ok()) << fresh.error().to_string();
  EXPECT_EQ(*fresh, *shipped) << "fresh:   " << to_json(*fresh).dump().substr(0, 3000)
                              << "\nshipped: " << to_json(*shipped).dump().substr(0, 3000);
}

std::string test_name(const char* wheel) {
  std::string n = wheel;
  n = n.substr(0, n.find('-', n.find('-') + 1));  // "torch-2.15.0"
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}
INSTANTIATE_TEST_SUITE_P(Wheels, ShippedVsFresh, ::testing::ValuesIn(kShippedCorpusWheels),
                         [](const auto& info) { return test_name(info.param); });

}  // namespace
}  // namespace smcompat

namespace smcompat {
namespace {

// `smcompat advise bitsandbytes torch xformers --gpu "RTX 5090"` (advise_shipped_test.cpp) against
// a fresh scan: for each corpus wheel of those packages, the verdict of the freshly scanned wheel
// equals the verdict advise gives its release from the shipped index. (The torch corpus wheel is
// CPython 3.11's; the index holds 3.12's of the same release.)
TEST(AdviseVsFresh, Rtx5090AnswersMatchAFreshScan) {
  auto rtx5090 = resolve_target("RTX 5090");
  ASSERT_TRUE(rtx5090);
  size_t compared = 0;
  for (const char* name : {"bitsandbytes-0.45.2-py3-none-manylinux_2_24_x86_64.whl",
                           "bitsandbytes-0.50.2-py3-none-manylinux_2_24_x86_64.whl",
                           "xformers-0.0.35-py39-none-manylinux_2_28_x86_64.whl",
                           "torch-2.15.0-cp311-cp311-manylinux_2_28_x86_64.whl"}) {
    fs::path wheel = corpus_dir() / "wheels" / name;
    REQUIRE_CORPUS_FILE(wheel);
    SCOPED_TRACE(name);
    auto fresh = index_wheel(wheel.string());
    ASSERT_TRUE(fresh) << fresh.error().to_string();
    ASSERT_TRUE(fresh->errors.empty());
    auto a = advise(builtin_wheel_index(), {fresh->package}, *rtx5090, {}).at(0);
    const ReleaseFit* release = nullptr;
    for (const auto& r : a.releases)
      if (r.version == fresh->version) release = &r;
    ASSERT_NE(release, nullptr) << "the shipped index lacks " << fresh->version;
    WheelVerdict verdict = judge_wheel(*fresh, *rtx5090);
    EXPECT_EQ(release->verdict.fit, verdict.fit);
    EXPECT_EQ(release->verdict.variant, verdict.variant);
    EXPECT_EQ(release->cuda, fresh->cuda);
    ++compared;
  }
  EXPECT_EQ(compared, 4u);
}

}  // namespace
}  // namespace smcompat
