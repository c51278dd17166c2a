// Every PTX image embedded in the CUDA toolkit's shared libraries parses, and a deterministic
// sample of them (the smallest images of each library plus every 40th image under 512 KiB)
// still assembles with ptxas after a round trip through the printer. Skips without a toolkit.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>

#include "ptx_test_util.hpp"
#include "smcompat/catalog/catalog.hpp"
#include "smcompat/ptx/module.hpp"
#include "smcompat/ptx/sources.hpp"
#include "smcompat/util/thread_pool.hpp"

namespace smcompat::ptx {
namespace {

namespace fs = std::filesystem;

struct Sample {
  std::string name;
  std::string target;
  std::string text;      // printed
  std::string original;  // as embedded
};

std::string ptxas_arch(const SmTarget& t) {
  // ptxas 13 assembles sm_75 and newer; PTX for an older base target compiles for any newer one.
  SmTarget s = t;
  s.kind = ImageKind::kSass;
  if (s.variant == ArchVariant::kBase && s.arch < 75) s.arch = 75;
  return s.to_string();
}

// The census of CUDA 13.0 (tests/binary/toolkit_census_test.cpp): libcublasLt.so.13 carries
// 288 PTX images, and every one of them is read.
TEST(PtxToolkit, CublasLtPtxImagesMatchTheCensus) {
  const fs::path path = "/usr/local/cuda/lib64/libcublasLt.so.13";
  if (!fs::exists(path)) GTEST_SKIP() << path << " not installed";
  ASSERT_EQ(fs::file_size(path), 541595600u)
      << path << " is not the CUDA 13.0.88 build the census was taken from";
  size_t images = 0;
  auto r = for_each_ptx(
      path.string(), [&](PtxSource&&) { ++images; },
      [&](const Error& e) { ADD_FAILURE() << "decoding: " << e.to_string(); });
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(images, 288u);
}

TEST(PtxToolkit, EveryEmbeddedPtxImageParsesAndASampleRoundTripsThroughPtxas) {
  const fs::path lib = "/usr/local/cuda/lib64";
  if (!fs::exists(lib) || testing::cuda_bin("ptxas").empty())
    GTEST_SKIP() << "no CUDA toolkit libraries in " << lib;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(lib)) {
    if (e.is_symlink() || !e.is_regular_file()) continue;
    std::string n = e.path().filename().string();
    if (n.find(".so") != std::string::npos) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());

  // The newest PTX ISA this ptxas reads (CUDA 13.0: 9.0); cuDNN 9 also embeds 9.1 PTX.
  std::string version_text;
  testing::run_command(testing::cuda_bin("ptxas") + " --version", &version_text);
  auto rel = version_text.find("release ");
  ASSERT_NE(rel, std::string::npos) << version_text;
  auto cuda = Version::parse(version_text.substr(rel + 8, version_text.find(',', rel) - rel - 8));
  ASSERT_TRUE(cuda) << version_text;
  auto max_isa = Catalog::builtin().max_ptx_for_cuda(*cuda);
  ASSERT_TRUE(max_isa) << "catalog has no PTX ISA for CUDA " << cuda->to_string();
  size_t too_new = 0;

  size_t images = 0, failures = 0, counter = 0;
  uint64_t bytes = 0, statements = 0;
  std::map<std::string, size_t> per_file;
  std::vector<Sample> samples;
  for (const auto& f : files) {
    std::vector<Sample> smallest;  // the 2 smallest images of this library
    auto r = for_each_ptx(
        f.string(),
        [&](PtxSource&& src) {
          ++images;
          ++per_file[f.filename().string()];
          bytes += src.text.size();
          auto m = parse_module(src.text);
          if (!m.ok()) {
            ++failures;
            ADD_FAILURE() << src.display_name() << ": " << m.error().to_string();
            return;
          }
          statements += m->statements.size();
          if (!m->target) return;
          if (m->version > *max_isa) {
            ++too_new;
            return;
          }
          Sample s{src.display_name(), ptxas_arch(*m->target), {}};
          bool every_nth = counter++ % 40 == 0 && src.text.size() < (512u << 10);
          bool small = smallest.size() < 2 || src.text.size() < smallest.back().text.size();
          if (every_nth || small) {
            s.text = print_module(*m);
            s.original = src.text;
          }
          if (every_nth) samples.push_back(s);
          if (small) {
            smallest.push_back(std::move(s));
            std::sort(smallest.begin(), smallest.end(), [](const Sample& a, const Sample& b) {
              return a.text.size() < b.text.size();
            });
            if (smallest.size() > 2) smallest.pop_back();
          }
        },
        [&](const Error& e) { ADD_FAILURE() << "decoding: " << e.to_string(); });
    (void)r;  // libraries without device code are fine
    for (auto& s : smallest) samples.push_back(std::move(s));
  }
  EXPECT_EQ(failures, 0u);
  ASSERT_GT(images, 0u);

  // -c: relocatable (-rdc) images name extern symbols that only the device linker resolves.
  std::mutex mu;
  size_t assembled = 0, original_rejected = 0;
  parallel_for(samples.size(), 2, [&](size_t i) {
    std::string log, log0;
    bool ok = testing::ptxas_accepts(samples[i].text, samples[i].target, &log, "-c");
    bool ok0 = ok || testing::ptxas_accepts(samples[i].original, samples[i].target, &log0, "-c");
    std::lock_guard<std::mutex> lock(mu);
    if (!ok0) {  // not a round-trip problem; report it but do not count it
      ++original_rejected;
      std::printf("  ptxas rejects the original of %s too: %s\n", samples[i].name.c_str(),
                  log0.substr(0, 200).c_str());
      return;
    }
    EXPECT_TRUE(ok) << samples[i].name << " (" << samples[i].target
                    << ") no longer assembles after the round trip:\n"
                    << log.substr(0, 2000);
    assembled += ok;
  });
  std::printf(
      "parsed %zu PTX images (%.1f MB, %llu statements) from %zu libraries; "
      "round trip through ptxas: %zu of %zu samples assemble\n",
      images, bytes / 1e6, static_cast<unsigned long long>(statements), per_file.size(), assembled,
      samples.size());
  for (const auto& [name, n] : per_file) std::printf("  %-40s %zu\n", name.c_str(), n);
  std::printf(
      "  (%zu images with a PTX ISA above %s were not sampled: this ptxas cannot read them)\n",
      too_new, max_isa->to_string().c_str());
  EXPECT_EQ(original_rejected, 0u);
  EXPECT_EQ(assembled, samples.size());
}

}  // namespace
}  // namespace smcompat::ptx
