// query_index() and diff_records() over hand-built wheel records (index_fixtures.hpp): the rows
// and their order, the machine and package filters, and what a release added or dropped.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "index/index_fixtures.hpp"
#include "smcompat/index/advise.hpp"

namespace smcompat {
namespace {

using test_index::bitsandbytes;
using test_index::sample_index;
using ::testing::ElementsAre;

Target rtx5090() { return *resolve_target("RTX 5090"); }

std::vector<std::string> keys(const std::vector<QueryRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.package + " " + r.version + " " + r.machine);
  return out;
}

TEST(Query, EveryWheelSortedByPackageThenNewestFirst) {
  auto rows = query_index(sample_index(), rtx5090());
  EXPECT_THAT(keys(rows),
              ElementsAre("bitsandbytes 0.45.3 x86_64", "bitsandbytes 0.45.2 x86_64",
                          "bitsandbytes 0.45.1 x86_64", "flashinfer-python 0.2.0 x86_64",
                          "torch 2.9.0 aarch64", "torch 2.9.0 x86_64", "torch 2.8.0 x86_64",
                          "torch 2.6.0 x86_64", "triton 3.5.0 x86_64", "triton 3.4.0 x86_64",
                          "xformers 0.0.33 x86_64", "xformers 0.0.32.post2 x86_64",
                          "xformers 0.0.31 x86_64"));
  EXPECT_EQ(rows[0].verdict.fit, Fit::kNative);
  EXPECT_EQ(rows[1].verdict.fit, Fit::kPtxJit);
  EXPECT_EQ(rows[0].filename, "bitsandbytes-0.45.3-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(rows[5].cuda, "12.8");
  EXPECT_FALSE(rows[8].verdict.has_device_code);  // triton
}

TEST(Query, MachineAndPackageFilters) {
  auto rows = query_index(sample_index(), rtx5090(), "aarch64");
  EXPECT_THAT(keys(rows), ElementsAre("torch 2.9.0 aarch64"));
  rows = query_index(sample_index(), rtx5090(), "x86_64", {"Torch", "triton"});
  EXPECT_THAT(keys(rows),
              ElementsAre("torch 2.9.0 x86_64", "torch 2.8.0 x86_64", "torch 2.6.0 x86_64",
                          "triton 3.5.0 x86_64", "triton 3.4.0 x86_64"));
  EXPECT_TRUE(query_index(sample_index(), rtx5090(), "", {"flash-attn"}).empty());
  // NAME==VERSION keeps the pin (it was normalised into the name "torch-2-9-0": no rows).
  rows = query_index(sample_index(), rtx5090(), "", {"torch==2.9.0", "Triton==3.4.0"});
  EXPECT_THAT(keys(rows),
              ElementsAre("torch 2.9.0 aarch64", "torch 2.9.0 x86_64", "triton 3.4.0 x86_64"));
}

TEST(Query, PureWheelsCountForEveryMachine) {
  WheelIndex index = sample_index();
  index.wheels.push_back(test_index::wheel("triton", "3.6.0", "any", {}));
  auto rows = query_index(index, rtx5090(), "aarch64", {"triton"});
  EXPECT_THAT(keys(rows), ElementsAre("triton 3.6.0 any"));
}

TEST(Diff, BitsandbytesAddsBlackwell) {
  auto d = diff_records({bitsandbytes("0.45.2", false)}, {bitsandbytes("0.45.3", true)});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].package, "bitsandbytes");
  EXPECT_EQ(d[0].machine, "x86_64");
  EXPECT_EQ(d[0].old_version, "0.45.2");
  EXPECT_EQ(d[0].new_version, "0.45.3");
  EXPECT_THAT(d[0].added_sass, ElementsAre("sm_100", "sm_120"));
  EXPECT_TRUE(d[0].dropped_sass.empty());
  EXPECT_THAT(d[0].added_ptx, ElementsAre("compute_120@8.7"));
  EXPECT_TRUE(d[0].dropped_ptx.empty());
  EXPECT_THAT(d[0].added_files, ElementsAre("bitsandbytes/libbitsandbytes_cuda128.so"));
  EXPECT_TRUE(d[0].dropped_files.empty());
  EXPECT_FALSE(d[0].dropped_any());
}

TEST(Diff, TheOtherWayDrops) {
  auto d = diff_records({bitsandbytes("0.45.3", true)}, {bitsandbytes("0.45.2", false)});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_THAT(d[0].dropped_sass, ElementsAre("sm_100", "sm_120"));
  EXPECT_THAT(d[0].dropped_ptx, ElementsAre("compute_120@8.7"));
  EXPECT_THAT(d[0].dropped_files, ElementsAre("bitsandbytes/libbitsandbytes_cuda128.so"));
  EXPECT_TRUE(d[0].dropped_any());
}

TEST(Diff, PtxIsaChangeIsListedBothWaysButIsNoDrop) {
  auto old_w = test_index::wheel(
      "mylib", "1.0", "x86_64",
      {test_index::device_file("mylib/k.so", {"sm_90", "compute_90@8.4"})}, {}, "12.4");
  auto new_w = test_index::wheel(
      "mylib", "1.1", "x86_64",
      {test_index::device_file("mylib/k.so", {"sm_90", "compute_90@8.7"})}, {}, "12.8");
  auto d = diff_records({old_w}, {new_w});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_THAT(d[0].added_ptx, ElementsAre("compute_90@8.7"));
  EXPECT_THAT(d[0].dropped_ptx, ElementsAre("compute_90@8.4"));
  EXPECT_FALSE(d[0].dropped_any());
  EXPECT_EQ(d[0].old_cuda, "12.4");
  EXPECT_EQ(d[0].new_cuda, "12.8");
  // Dropping the PTX target altogether is a drop.
  auto sass_only = test_index::wheel("mylib", "1.2", "x86_64",
                                     {test_index::device_file("mylib/k.so", {"sm_90"})});
  EXPECT_TRUE(diff_records({new_w}, {sass_only})[0].dropped_any());
}

TEST(Diff, SingleRecordsArePairedWhateverTheirNames) {
  auto a = bitsandbytes("0.45.2", false);
  auto b = test_index::wheel("bitsandbytes-cuda128", "0.45.2", "aarch64",
                             {test_index::device_file("lib.so", {"sm_90"})});
  auto d = diff_records({a}, {b});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].package, "bitsandbytes-cuda128");
  EXPECT_EQ(d[0].old_filename, a.filename);
  EXPECT_EQ(d[0].new_filename, b.filename);
  EXPECT_THAT(d[0].dropped_sass,
              ElementsAre("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89"));
}

TEST(Diff, PairsByPackageAndMachineNewestOnEachSide) {
  WheelIndex index = sample_index();
  std::vector<WheelRecord> old_side, new_side;
  for (const auto& w : index.wheels) {
    if (w.package == "torch" && w.version == "2.8.0") old_side.push_back(w);
    if (w.package == "torch" && w.version == "2.6.0") old_side.push_back(w);  // older: ignored
    if (w.package == "torch" && w.version == "2.9.0") new_side.push_back(w);
    if (w.package == "triton") new_side.push_back(w);
  }
  auto d = diff_records(old_side, new_side);
  ASSERT_EQ(d.size(), 3u);
  // Sorted by (package, machine); one side missing compares with nothing.
  EXPECT_EQ(d[0].package + " " + d[0].machine, "torch aarch64");
  EXPECT_EQ(d[0].old_version, "");
  EXPECT_EQ(d[0].new_version, "2.9.0");
  EXPECT_THAT(d[0].added_files, ElementsAre("torch/lib/libtorch_cuda.so"));
  EXPECT_FALSE(d[0].dropped_any());
  EXPECT_EQ(d[1].package + " " + d[1].machine, "torch x86_64");
  EXPECT_EQ(d[1].old_version, "2.8.0");
  EXPECT_EQ(d[1].new_version, "2.9.0");
  EXPECT_TRUE(d[1].added_sass.empty());
  EXPECT_FALSE(d[1].dropped_any());
  EXPECT_EQ(d[2].package, "triton");
  EXPECT_EQ(d[2].new_version, "3.5.0");
  EXPECT_TRUE(d[2].added_files.empty());  // no device code
  // An index that lost a package's wheels: everything it had is dropped.
  auto gone = diff_records(new_side, {test_index::wheel("other", "1.0", "x86_64", {}),
                                      test_index::wheel("other", "1.1", "x86_64", {})});
  ASSERT_EQ(gone.size(), 4u);
  EXPECT_EQ(gone[1].package, "torch");
  EXPECT_EQ(gone[1].new_version, "");
  EXPECT_TRUE(gone[1].dropped_any());
}

}  // namespace
}  // namespace smcompat
