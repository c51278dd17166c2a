// The feature table against ptxas, the ground truth: tests/ptx/data/features.cu has one kernel
// per table row (inline PTX). nvcc -ptx builds it; each kernel is cut out with the parser and
// assembled for several targets; the analysis verdict must say "runs" exactly when ptxas accepts,
// and when it says "needs-specific-target" the a/f target it names must be accepted.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>

#include "ptx_test_util.hpp"
#include "smcompat/ptx/analysis.hpp"
#include "smcompat/util/thread_pool.hpp"

namespace smcompat::ptx {
namespace {

using testing::ptxas_accepts;

// Which rows each fixture kernel must be found to use (exactly).
const std::map<std::string, std::set<std::string>> kExpected = {
    {"feat_wgmma_fence", {"wgmma"}},
    {"feat_wgmma_mma_async", {"wgmma"}},
    {"feat_tcgen05_fence", {"tcgen05"}},
    {"feat_tcgen05_alloc", {"tcgen05"}},
    {"feat_setmaxnreg", {"setmaxnreg"}},
    {"feat_tensormap_replace", {"tensormap_replace"}},
    {"feat_tensormap_cp_fenceproxy", {"tensormap_cp_fenceproxy"}},
    {"feat_fence_proxy_tensormap", {"fence_proxy_tensormap"}},
    {"feat_cp_async_bulk", {"cp_async_bulk"}},
    {"feat_cp_async_bulk_tensor", {"cp_async_bulk_tensor"}},
    {"feat_cp_async_bulk_multicast", {"cp_async_bulk_multicast"}},
    {"feat_cp_async_bulk_tensor_multicast", {"cp_async_bulk_multicast"}},
    {"feat_mbarrier_init", {"mbarrier"}},
    {"feat_mbarrier_expect_tx", {"mbarrier_expect_tx"}},
    {"feat_mbarrier_try_wait", {"mbarrier_try_wait"}},
    {"feat_barrier_cluster", {"barrier_cluster"}},
    {"feat_mapa", {"mapa"}},
    {"feat_ld_shared_cluster", {"dsmem_access"}},
    {"feat_cluster_sreg", {"cluster_sreg"}},
    {"feat_elect_sync", {"elect_sync"}},
    {"feat_griddepcontrol", {"griddepcontrol"}},
    {"feat_clusterlaunchcontrol", {"clusterlaunchcontrol"}},
    {"feat_stmatrix", {"stmatrix"}},
    {"feat_ldmatrix", {"ldmatrix"}},
    {"feat_mma_sync_f16", {"mma_sync_m16n8k16"}},
    {"feat_mma_sync_fp8", {"mma_sync_fp8"}},
    {"feat_mma_kind_f8f6f4", {"mma_kind_f8f6f4"}},
    {"feat_mma_block_scale_mxf8f6f4", {"mma_block_scale_mxf8f6f4"}},
    {"feat_mma_block_scale_mxf4", {"mma_block_scale_mxf4"}},
    {"feat_mma_block_scale_mxf4nvf4", {"mma_block_scale_mxf4nvf4"}},
    {"feat_cvt_e4m3x2", {"cvt_fp8"}},
    {"feat_cvt_e2m1x2", {"cvt_e2m1x2"}},
    {"feat_cvt_e3m2x2", {"cvt_e3m2x2"}},
    {"feat_cvt_e2m3x2", {"cvt_e2m3x2"}},
    {"feat_cvt_ue8m0x2", {"cvt_ue8m0x2"}},
    {"feat_multimem", {"multimem"}},
    {"feat_redux_sync", {"redux_sync"}},
    {"feat_cp_async", {"cp_async"}},
    {"feat_fence_proxy_async", {"fence_proxy_async"}},
    {"feat_cluster_dims", {"cluster_dims"}},
    {"feat_cluster_scope", {"cluster_scope"}},
};

// sm_120, sm_100a and sm_90 are required by the issue; the others pin the a/f distinctions.
const char* const kTargets[] = {"sm_120", "sm_100a", "sm_90", "sm_120a", "sm_120f",
                                "sm_90a", "sm_100f", "sm_89", "sm_86"};

// One kernel of a module as a standalone PTX text for `target`.
std::string kernel_ptx(const Module& m, const Function& fn, const std::string& target) {
  std::string out =
      ".version " + m.version.to_string() + "\n.target " + target + "\n.address_size 64\n";
  for (const auto& d : m.variable_decls)
    out.append(m.source.substr(d.span.begin, d.span.end - d.span.begin)).append("\n");
  out.append(m.source.substr(fn.span.begin, fn.span.end - fn.span.begin)).append("\n");
  return out;
}

class FeatureTableTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (testing::cuda_bin("nvcc").empty()) return;
    std::string log;
    ptx_ = new std::string(
        testing::nvcc_ptx(std::string(SMCOMPAT_SOURCE_DIR) + "/tests/ptx/data/features.cu",
                          "compute_90", "features.ptx", &log));
  }
  static void TearDownTestSuite() {
    delete ptx_;
    ptx_ = nullptr;
  }
  static std::string* ptx_;
};
std::string* FeatureTableTest::ptx_ = nullptr;

TEST(FeatureTable, BuiltinTableLoadsAndEveryRowCitesItsSource) {
  const auto& t = FeatureTable::builtin();
  ASSERT_GE(t.rows().size(), 38u);
  std::set<std::string> ids;
  for (const auto& r : t.rows()) {
    EXPECT_TRUE(ids.insert(r.id).second) << "duplicate id " << r.id;
    EXPECT_NE(r.source.find("PTXISA"), std::string::npos) << r.id;
    EXPECT_FALSE(r.ptxas_note.empty()) << r.id;
  }
  auto bad = FeatureTable::from_json(R"({"features":[{"id":"x","match":{"prefix":"x"}}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().what.find("cites no source"), std::string::npos);
  EXPECT_FALSE(FeatureTable::from_json("{").ok());
}

TEST(FeatureTable, AvailabilityModel) {
  const auto& t = FeatureTable::builtin();
  // Per row: {target, availability} pairs.
  using On = std::initializer_list<std::pair<const char*, Availability>>;
  auto expect = [&](const char* id, On on) {
    const FeatureRow* row = t.find(id);
    ASSERT_NE(row, nullptr) << id;
    for (const auto& [target, want] : on)
      EXPECT_EQ(FeatureTable::availability(*row, *SmTarget::parse(target)), want)
          << id << " on " << target;
  };
  expect("setmaxnreg", {{"sm_120", Availability::kNeedsFamily},
                        {"sm_120a", Availability::kAvailable},
                        {"sm_90", Availability::kNeedsArchSpecific}});
  expect("wgmma", {{"sm_100a", Availability::kUnavailable}});
  expect("tcgen05",
         {{"sm_120a", Availability::kUnavailable}, {"sm_103f", Availability::kAvailable}});
  expect("cp_async", {{"sm_86", Availability::kAvailable}});
  expect("cluster_dims", {{"sm_89", Availability::kUnavailable}});
}

TEST_F(FeatureTableTest, VerdictsMatchPtxasForEveryRow) {
  SMCOMPAT_REQUIRE_CUDA();
  ASSERT_TRUE(ptx_ && !ptx_->empty()) << "nvcc -ptx failed on tests/ptx/data/features.cu";
  auto m = parse_module(*ptx_);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  const auto& table = FeatureTable::builtin();

  std::set<std::string> covered;
  struct Job {
    const Function* fn;
    std::string target;
  };
  std::vector<Job> jobs;
  size_t kernels = 0;
  for (const auto& fn : m->functions) {
    if (!fn.is_entry) continue;
    ++kernels;
    std::string name(fn.name);
    auto exp = kExpected.find(name);
    ASSERT_NE(exp, kExpected.end()) << "fixture kernel without expectations: " << name;
    // Features found must be exactly the expected rows.
    auto rep = analyze(*m, *SmTarget::parse("sm_120"));
    std::set<std::string> found;
    for (const auto& k : rep.kernels)
      if (k.name == name)
        for (const auto& f : k.features) found.insert(f.row->id);
    EXPECT_EQ(found, exp->second) << name;
    covered.insert(exp->second.begin(), exp->second.end());
    for (const char* t : kTargets) jobs.push_back({&fn, t});
  }
  EXPECT_EQ(kernels, kExpected.size());
  for (const auto& r : table.rows()) EXPECT_TRUE(covered.count(r.id)) << "row not tested: " << r.id;

  std::mutex mu;
  size_t agreed = 0, specific_checked = 0, round_trips = 0, round_trip_candidates = 0;
  parallel_for(jobs.size(), 2, [&](size_t i) {
    const Job& j = jobs[i];
    SmTarget target = *SmTarget::parse(j.target);
    auto rep = analyze(*m, target);
    const KernelReport* k = nullptr;
    for (const auto& kr : rep.kernels)
      if (kr.name == j.fn->name) k = &kr;
    std::string log;
    bool ok = ptxas_accepts(kernel_ptx(*m, *j.fn, j.target), j.target, &log);
    // Round trip: the printed kernel assembles wherever the original did.
    bool round_trip_ok = true;
    std::string rt_log;
    const bool check_round_trip = ok && (j.target == "sm_90a" || j.target == "sm_100a" ||
                                         j.target == "sm_120a" || j.target == "sm_86");
    if (check_round_trip) {
      const std::string kernel_text = kernel_ptx(*m, *j.fn, j.target);  // the module views it
      auto km = parse_module(kernel_text);
      round_trip_ok = km.ok() && ptxas_accepts(print_module(*km), j.target, &rt_log);
    }
    bool spec_ok = true;
    std::string spec_log;
    if (k && k->outcome == KernelCheck::kNeedsSpecificTarget && k->specific_target)
      spec_ok = ptxas_accepts(kernel_ptx(*m, *j.fn, k->specific_target->to_string()),
                              k->specific_target->to_string(), &spec_log);
    std::lock_guard<std::mutex> lock(mu);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->outcome == KernelCheck::kRuns, ok)
        << j.fn->name << " on " << j.target << ": smcompat says " << to_string(k->outcome)
        << ", ptxas " << (ok ? "accepts" : "rejects") << "\n"
        << log;
    if ((k->outcome == KernelCheck::kRuns) == ok) ++agreed;
    EXPECT_TRUE(round_trip_ok) << j.fn->name << " on " << j.target
                               << ": the printed kernel no longer assembles\n"
                               << rt_log;
    round_trips += check_round_trip && round_trip_ok;
    round_trip_candidates += check_round_trip;
    if (k->outcome == KernelCheck::kNeedsSpecificTarget) {
      ++specific_checked;
      EXPECT_TRUE(spec_ok) << j.fn->name << ": suggested " << k->specific_target->to_string()
                           << " is rejected by ptxas\n"
                           << spec_log;
    }
  });
  EXPECT_EQ(agreed, jobs.size());
  // setmaxnreg and tensormap.replace on sm_120 and sm_90, four cvt and four mma kinds on sm_120,
  // the two wgmma kernels on sm_90.
  EXPECT_EQ(specific_checked, 14u);
  std::printf(
      "ptxas agreed on %zu kernel x target pairs (%zu kernels, %zu targets); %zu a/f "
      "suggestions assembled; %zu printed kernels assembled\n",
      agreed, kernels, std::size(kTargets), specific_checked, round_trips);
  // Every kernel ptxas accepts on sm_86/sm_90a/sm_100a/sm_120a still assembles after printing.
  EXPECT_EQ(round_trips, round_trip_candidates);
  EXPECT_GT(round_trip_candidates, 100u);
}

TEST_F(FeatureTableTest, FirstUseIsLocated) {
  SMCOMPAT_REQUIRE_CUDA();
  ASSERT_TRUE(ptx_ && !ptx_->empty());
  auto m = parse_module(*ptx_);
  ASSERT_TRUE(m.ok());
  auto rep = analyze(*m, *SmTarget::parse("sm_120"));
  for (const auto& k : rep.kernels) {
    if (k.name != "feat_setmaxnreg") continue;
    ASSERT_EQ(k.features.size(), 1u);
    const auto& f = k.features[0];
    EXPECT_EQ(f.first_instruction, "setmaxnreg.inc.sync.aligned.u32");
    EXPECT_EQ(f.outcome, KernelCheck::kNeedsSpecificTarget);
    ASSERT_TRUE(f.specific_target);
    EXPECT_EQ(f.specific_target->to_string(), "sm_120f");
    // The line really holds the instruction.
    size_t line_start = 0;
    for (uint32_t l = 1; l < f.first.line; ++l) line_start = ptx_->find('\n', line_start) + 1;
    EXPECT_EQ(ptx_->compare(line_start + f.first.col - 1, 10, "setmaxnreg"), 0);
    return;
  }
  FAIL() << "feat_setmaxnreg not found";
}

}  // namespace
}  // namespace smcompat::ptx
