// The hand-written package knowledge (data/python_packages.json) against the measured wheel index
// (data/wheel_index.json): where both speak about the same PyPI wheel they must agree, so that a
// rule written from a release note and the bytes of the released wheels cannot drift apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "smcompat/doctor/doctor.hpp"
#include "smcompat/index/record.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::doctor {
namespace {

std::vector<const WheelRecord*> wheels_of(const std::string& package, const std::string& machine) {
  std::vector<const WheelRecord*> out;
  for (const auto& w : builtin_wheel_index().wheels)
    if (w.package == package && w.machine == machine && w.errors.empty()) out.push_back(&w);
  std::sort(out.begin(), out.end(), [](const WheelRecord* a, const WheelRecord* b) {
    return smcompat::compare_versions(a->version, b->version) < 0;
  });
  return out;
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(KnowledgeVsIndex, ShippedIndexIsFilled) {
  ASSERT_FALSE(builtin_wheel_index().wheels.empty())
      << "data/wheel_index.json holds no wheels: run scripts/refresh-wheel-index.sh";
}

// "bitsandbytes: sm_100/sm_120 kernels from 0.45.3" is the first x86-64 release whose wheel has
// sm_120 SASS, and every later release has it too.
TEST(KnowledgeVsIndex, FirstBitsandbytesReleaseWithBlackwellSass) {
  const auto* info = PackageKnowledge::builtin().package("bitsandbytes");
  ASSERT_NE(info, nullptr);
  auto wheels = wheels_of("bitsandbytes", "x86_64");
  ASSERT_FALSE(wheels.empty());
  ASSERT_LT(smcompat::compare_versions(wheels.front()->version, info->min_version_blackwell), 0)
      << "the index starts at " << wheels.front()->version
      << ", so it cannot tell the first release with sm_120";
  std::string first;
  for (const auto* w : wheels) {
    bool blackwell = has(w->sass, "sm_120") && has(w->sass, "sm_100");
    if (blackwell && first.empty()) first = w->version;
    if (!first.empty())
      EXPECT_TRUE(blackwell) << w->filename << " lost sm_100/sm_120 after " << first;
  }
  EXPECT_EQ(first, info->min_version_blackwell);
}

// The torch channel table's arch lists are TORCH_CUDA_ARCH_LIST: the targets of the units most
// of libtorch_cuda.so is compiled into (a few kernels add arch-specific sm_90a/sm_100a/... code,
// and libtorch_cuda_linalg or libtorch_nvshmem have lists of their own). For the channel each
// PyPI wheel was built for (its pinned CUDA runtime or toolkit: 12.8 -> cu128) the row must equal
// what the wheel holds, +PTX included.
std::vector<std::string> main_arch_list(const WheelRecord& w) {
  for (const auto& f : w.files) {
    if (f.path != "torch/lib/libtorch_cuda.so") continue;
    const UnitSignature* most = nullptr;
    for (const auto& u : f.units)
      if (!u.prelink && (!most || u.count > most->count)) most = &u;
    if (!most) return {};
    std::vector<std::string> out;
    for (const auto& i : most->images) out.push_back(i.target.to_string());
    return out;
  }
  return {};
}

TEST(KnowledgeVsIndex, TorchChannelArchListsMatchPyPIWheels) {
  const auto& k = PackageKnowledge::builtin();
  size_t compared = 0;
  for (const auto* w : wheels_of("torch", "x86_64")) {
    auto cuda = Version::parse(w->cuda);
    if (!cuda) continue;
    std::string channel = "cu" + std::to_string(cuda->major) + std::to_string(cuda->minor);
    for (const auto* row : k.channels_of(w->version)) {
      if (row->channel != channel) continue;
      std::set<std::string> want_sass, want_ptx, got_sass, got_ptx;
      for (const auto& arch : row->archs) {
        bool ptx = arch.find("+PTX") != std::string::npos;
        auto cc = ComputeCapability::parse(arch.substr(0, arch.find('+')));
        ASSERT_TRUE(cc) << arch;
        want_sass.insert("sm_" + std::to_string(cc->arch()));
        if (ptx) want_ptx.insert("compute_" + std::to_string(cc->arch()));
      }
      for (const auto& t : main_arch_list(*w))
        (t.rfind("compute_", 0) == 0 ? got_ptx : got_sass).insert(t);
      EXPECT_EQ(got_sass, want_sass) << w->filename << " vs the " << row->torch << "/"
                                     << row->channel << " row (" << row->source << ")";
      if (row->note.find("+PTX not confirmed") == std::string::npos)
        EXPECT_EQ(got_ptx, want_ptx)
            << w->filename << " vs the " << row->torch << "/" << row->channel << " row";
      ++compared;
    }
  }
  EXPECT_GE(compared, 3u) << "fewer than three PyPI torch wheels have a row in the channel table";
}

// The runtime-variant releases list the CUDA runtimes of the libraries each release ships.
TEST(KnowledgeVsIndex, BitsandbytesRuntimeVariantsMatchTheWheels) {
  size_t compared = 0;
  for (const auto& row : PackageKnowledge::builtin().variant_releases) {
    for (const auto* w : wheels_of(row.package, "x86_64")) {
      if (w->version != row.version) continue;
      std::vector<std::string> want;
      for (const auto& v : row.cuda) want.push_back(v.to_string());
      std::vector<std::string> got;
      for (auto part : split(w->cuda, ';')) got.emplace_back(part);
      EXPECT_EQ(got, want) << w->filename << " (" << w->cuda_evidence << ")";
      ++compared;
    }
  }
  EXPECT_GE(compared, 1u);
}

}  // namespace
}  // namespace smcompat::doctor
