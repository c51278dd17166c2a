// Helpers for the `ptx lower` tests: the Triton fixtures and the interpreter comparison.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ptx_test_util.hpp"
#include "smcompat/ptx/analysis.hpp"
#include "smcompat/ptx/lower.hpp"

namespace smcompat::ptx::testing {

/// tests/ptx/data/triton/*<suffix> (".sm_90.ptx", ".sm_100.ptx"), sorted by name.
inline std::vector<std::filesystem::path> triton_fixtures(std::string_view suffix) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(
           std::filesystem::path(SMCOMPAT_SOURCE_DIR) / "tests/ptx/data/triton"))
    if (e.path().string().ends_with(suffix)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// Lowers every fixture `files` for sm_120 and sm_121 and expects: ok; at least two `mma_kind`
/// lowerings each; no `opcode` instruction left; `ptx check` finds nothing left for the target;
/// ptxas (when installed) assembles it. `more` checks the rest. Returns the `mma_kind` lowerings
/// for sm_120.
inline size_t expect_every_fixture_lowers(
    const std::vector<std::filesystem::path>& files, std::string_view opcode,
    std::string_view mma_kind,
    const std::function<void(const std::filesystem::path&, const LowerResult&)>& more = {}) {
  size_t mmas = 0;
  for (const auto& f : files) {
    SCOPED_TRACE(f.filename().string());
    const std::string text = read_file(f);
    for (const char* target : {"sm_120", "sm_121"}) {
      SCOPED_TRACE(target);
      auto r = lower(text, *SmTarget::parse(target));
      EXPECT_TRUE(r.ok()) << r.error().to_string();
      if (!r.ok()) continue;
      EXPECT_TRUE(r->ok) << (r->blockers.empty() ? "" : r->blockers[0].reason);
      if (!r->ok) continue;
      size_t here = 0;
      for (const auto& l : r->lowered) here += l.kind == mma_kind;
      EXPECT_GE(here, 2u);
      if (std::string(target) == "sm_120") mmas += here;
      auto again = parse_module(r->text);
      EXPECT_TRUE(again.ok());
      if (!again.ok()) continue;
      size_t left = 0;
      for (const auto& st : again->statements)
        left += st.kind == StatementKind::kInstruction && st.opcode() == opcode;
      EXPECT_EQ(left, 0u);
      EXPECT_EQ(analyze(*again, *SmTarget::parse(target)).outcome, KernelCheck::kRuns);
      if (more) more(f, *r);
      if (cuda_bin("ptxas").empty()) continue;
      std::string log;
      EXPECT_TRUE(ptxas_accepts(r->text, target, &log)) << log;
    }
  }
  return mmas;
}

/// Runs the one kernel of `original` and of `other` in the interpreter on the same inputs and
/// expects every byte to agree, with at least `min_written` bytes written by the original.
inline bool expect_same_bytes(std::string_view original, std::string_view other,
                              const LowerVerifyOptions& options, uint64_t min_written = 1024) {
  const auto results = verify_lowering(original, other, options);
  EXPECT_EQ(results.size(), 1u);
  if (results.size() != 1) return false;
  const auto& v = results[0];
  EXPECT_EQ(v.status, "equal") << v.reason << " " << v.differing_bytes << " of "
                               << v.bytes_compared;
  EXPECT_GE(v.bytes_written, min_written);
  return v.status == "equal";
}

/// Lowers each fixture for sm_120 and runs it as given and as lowered in the interpreter on the
/// same inputs (64 KiB buffers: the largest operand is attention's 128x64 f16 K and V); every
/// byte must agree and at least 1 KiB (the output tile) be written. Returns how many agree.
inline size_t expect_every_fixture_computes_the_same(
    const std::vector<std::filesystem::path>& files) {
  size_t equal = 0;
  for (const auto& f : files) {
    SCOPED_TRACE(f.filename().string());
    const std::string text = read_file(f);
    auto r = lower(text, *SmTarget::parse("sm_120"));
    EXPECT_TRUE(r.ok() && r->ok);
    if (!r.ok() || !r->ok) continue;
    LowerVerifyOptions o;
    o.buffer_bytes = 64 * 1024;
    // Tensor memory placed in the dynamic shared memory needs that much more of it.
    for (const auto& a : r->shared_added)
      if (a.dynamic) o.dynamic_shared_bytes += static_cast<uint32_t>(a.bytes);
    equal += expect_same_bytes(text, r->text, o);
  }
  return equal;
}

}  // namespace smcompat::ptx::testing
