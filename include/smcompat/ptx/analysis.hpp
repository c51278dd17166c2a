// Per-kernel analysis of a PTX module against a target: the table features each kernel uses
// (with the first use), static shared memory by declaration against the target's limits, cluster
// and register requirements, and an outcome (KernelCheck). Limits come from the catalog
// (smem_per_block_optin, max_regs_per_thread); the 48 KiB static shared memory limit is ptxas's
// ("uses too much shared data (0xc004 bytes, 0xc000 max)", ptxas 13.0) and Programming Guide
// Table 31's footnote.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/ptx/features.hpp"
#include "smcompat/ptx/module.hpp"

namespace smcompat::ptx {

/// Largest static (.shared declared) shared memory per block ptxas accepts, for every target.
inline constexpr uint64_t kMaxStaticSharedBytes = 48 * 1024;
/// Threads per block, every architecture (Programming Guide, Table 31).
inline constexpr uint32_t kMaxThreadsPerBlock = 1024;
/// Portable and non-portable cluster sizes (Programming Guide, "Thread Block Clusters").
inline constexpr uint32_t kPortableClusterSize = 8;
inline constexpr uint32_t kMaxClusterSize = 16;

/// Whether a kernel's code can be built for a target: a feature-availability and resource check
/// on the PTX, not a fit of a loaded image (that is smcompat::Fit, verdict/fit.hpp). Ordered
/// from best to worst. The JSON of `ptx check` keeps the key "verdict" for it (docs/ptx.md).
enum class KernelCheck { kRuns, kNeedsSpecificTarget, kExceedsResources, kUnavailable };
/// "runs", "needs-specific-target", "exceeds-resources", "unavailable"
const char* to_string(KernelCheck check);

struct FeatureUse {
  const FeatureRow* row = nullptr;
  SourceLoc first;                ///< first use (in the kernel or a function it calls)
  std::string first_function;     ///< function holding the first use
  std::string first_instruction;  ///< e.g. "setmaxnreg.inc.sync.aligned.u32"
  uint32_t count = 0;             ///< uses in the kernel and the functions it calls
  KernelCheck outcome = KernelCheck::kRuns;
  std::optional<SmTarget> specific_target;  ///< the a/f target that has it (kNeedsSpecificTarget)
  std::string reason;
};

/// One .shared declaration a kernel uses.
struct SharedDecl {
  std::string name;
  std::optional<uint64_t> bytes;  ///< nullopt for `.extern .shared x[]` (dynamic)
  uint32_t align = 0;
  bool module_scope = false;
  SourceLoc loc;
};

/// A resource or launch requirement that does not fit (or is worth saying).
struct ResourceFinding {
  std::string resource;                      ///< "shared memory", "threads", "registers", "cluster"
  KernelCheck outcome = KernelCheck::kRuns;  ///< kRuns for notes
  std::string reason;
};

struct KernelReport {
  std::string name;
  SourceLoc loc;
  std::vector<FeatureUse> features;
  std::vector<SharedDecl> shared;
  uint64_t static_smem = 0;                   ///< sum of sized .shared declarations
  bool dynamic_smem = false;                  ///< declares extern (dynamic) shared memory
  std::optional<uint64_t> smem_optin_limit;   ///< target's opt-in maximum per block (bytes)
  std::optional<uint64_t> dynamic_smem_room;  ///< opt-in limit minus static
  std::optional<std::array<uint32_t, 3>> cluster_dims;
  PerfDirectives perf;
  std::vector<ResourceFinding> resources;
  KernelCheck outcome = KernelCheck::kRuns;
  std::optional<SmTarget> specific_target;  ///< for kNeedsSpecificTarget: the target to use
};

struct AnalyzeOptions {
  /// A known dynamic shared memory request (bytes) to check against the opt-in limit.
  std::optional<uint64_t> dynamic_smem;
};

struct ModuleReport {
  SmTarget target;
  Version ptx_version;
  std::string ptx_target;  ///< .target as written
  std::vector<KernelReport> kernels;
  std::vector<std::string> notes;  ///< module-level facts (arch-specific PTX, ISA too old, ...)
  KernelCheck outcome = KernelCheck::kRuns;  ///< worst kernel outcome
};

/// Analyses every kernel (.entry) of `module` for `target` (an sm_XX[a|f] target).
ModuleReport analyze(const Module& module, const SmTarget& target,
                     const AnalyzeOptions& options = {},
                     const FeatureTable& table = FeatureTable::builtin());

}  // namespace smcompat::ptx
