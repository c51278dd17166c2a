// Which parallelism plan a model should be served with on a set of GPUs, by a cost model that can
// be read term by term: per GPU the memory (weights, KV cache, activations, the runtime's reserve),
// per decode step the bytes each GPU reads, the FLOPs it computes and the bytes it sends
// (all-reduce for tensor parallelism, all-to-all dispatch/combine for expert parallelism with the
// load of the busiest rank), and the times those take at the GPU's peaks and the link's bandwidth
// and latency. Every constant is in PlanAssumptions, documented in docs/plan.md with its source.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/plan/model.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::plan {

/// How the GPUs reach each other.
enum class LinkKind {
  kNvlink,    ///< NVLink (every pair, through NVSwitch or direct)
  kPcieP2p,   ///< PCIe with peer-to-peer access
  kPcieHost,  ///< PCIe without P2P: copies staged through host memory
};
std::string_view to_string(LinkKind k);

struct Link {
  LinkKind kind = LinkKind::kPcieP2p;
  double gbs_per_direction = 0;  ///< bandwidth one GPU can send at, GB/s (10^9), spec
  double efficiency = 0.8;       ///< what NCCL collectives reach of it (measured, per kind)
  double latency_us = 0;         ///< per step of a ring collective
  std::string source;            ///< "catalog: NVLink 900 GB/s total", "probe: P2P 0/6 pairs", ...
};

/// A set of identical GPUs in one machine.
struct GpuSet {
  int count = 0;
  const GpuSpec* gpu = nullptr;  ///< from the catalog
  uint64_t memory_bytes = 0;     ///< per GPU (catalog memory_gib, or the probe's total)
  Link link;
  int pcie_gen = 0;           ///< 0: unknown
  int pcie_width = 16;        ///< lanes (the probe's, else a full x16 link)
  std::string origin;         ///< "--gpus 4x\"RTX PRO 6000\"" or "probe"
  std::string label() const;  ///< "4x RTX PRO 6000 Blackwell"
};

/// PCIe bandwidth per direction, GB/s: lanes x transfer rate x 128/130 encoding / 8 (PCI-SIG base
/// specifications 3.0-6.0); an unknown generation counts as Gen3.
double pcie_gbs_per_direction(int gen, int lanes = 16);

/// Parses "8xH100", "4x\"RTX PRO 6000\"", "2xRTX 5090:nop2p", several comma-separated. Suffixes:
/// `:nvlink`, `:p2p`, `:nop2p` override the link (default: NVLink when the catalog lists it,
/// else PCIe with P2P, except GeForce cards: no P2P). Unknown GPU names are errors naming the
/// closest catalog entries.
Result<std::vector<GpuSet>> parse_gpu_sets(std::string_view spec, const Catalog& catalog);

/// The request shape the plan is sized for.
struct Workload {
  int batch = 64;  ///< concurrent sequences
  int prompt_len = 1024;
  int gen_len = 1024;
};

/// Constants of the model, each documented (docs/plan.md, "Assumptions").
struct PlanAssumptions {
  /// Achieved / spec DRAM bandwidth in a decode step's kernels (fused MoE, attention, GEMV-like
  /// GEMMs): fitted, with per_layer_overhead_us, to series P1 of docs/plan.md.
  double memory_efficiency = 0.59;
  double compute_efficiency = 0.60;  ///< achieved / spec tensor throughput in serving GEMMs
                                     ///< (bench-anchors.md: 0.71-0.80 for the best GEMM shapes)
  double memory_utilization = 0.90;  ///< the engine's share of GPU memory (vLLM default 0.9)
  uint64_t runtime_overhead_bytes = 2ull << 30;  ///< context, workspaces, NCCL buffers, graphs
  int prefill_chunk_tokens = 8192;               ///< tokens per prefill step (sizes activations)
  double routing_skew = 1.0;  ///< extra load on the hottest expert beyond the binomial
  /// Fixed time per layer and step that no byte or FLOP explains (kernel launches and their
  /// gaps, synchronisation, small kernels): fitted to published figures (docs/plan.md).
  double per_layer_overhead_us = 59;
};

enum class ExpertMode {
  kNone,            ///< dense model
  kTpSharded,       ///< every expert split over the TP ranks
  kExpertParallel,  ///< whole experts per rank (EP = TP x DP)
};

enum class AllToAll {
  kNone,                    ///< no all-to-all (TP all-reduce only)
  kAllgatherReduceScatter,  ///< vLLM default / SGLang `none`: runs on any link
  kDeepEp,                  ///< DeepEP (NVSHMEM): needs NVLink or InfiniBand, and DeepGEMM's archs
};
std::string_view to_string(AllToAll a);

/// One candidate: pp stages x (tp x dp) ranks per stage.
struct PlanShape {
  int tp = 1;
  int dp = 1;  ///< data-parallel attention ranks (with EP) or full replicas (dense / no EP)
  int pp = 1;
  ExpertMode experts = ExpertMode::kNone;
  AllToAll a2a = AllToAll::kNone;
  bool dp_attention = false;  ///< dp > 1 with experts shared over the dp ranks (EP)
  int ep() const { return experts == ExpertMode::kExpertParallel ? tp * dp : 1; }
  int gpus() const { return tp * dp * pp; }
  std::string name() const;  ///< "TP4", "TP2xEP4", "DP4+EP4 (DeepEP)", "PP2xTP4", "DP8"
};

/// Per GPU memory, bytes.
struct MemoryUse {
  uint64_t weights = 0;
  uint64_t kv_cache = 0;
  uint64_t activations = 0;
  uint64_t reserve = 0;
  uint64_t state = 0;  ///< recurrent state (Mamba, Gated DeltaNet): fixed per sequence
  uint64_t total() const { return weights + kv_cache + state + activations + reserve; }
};

/// One decode step (one output token for every sequence), per GPU of the busiest rank. With
/// pipeline stages every term is for the whole step: the pp micro-batches the GPU's stage runs.
struct StepCost {
  double weight_bytes_read = 0;  ///< mixers + dense + shared + the distinct experts touched +
                                 ///< the LM head and the tokens' embedding rows
  double kv_bytes_read = 0;
  double state_bytes = 0;  ///< recurrent state read and written back (Mamba, Gated DeltaNet)
  double flops = 0;
  double allreduce_bytes = 0;        ///< sent per GPU
  double all2all_bytes = 0;          ///< sent per GPU (dispatch + combine), busiest rank
  double pipeline_bytes = 0;         ///< sent per GPU to the next pipeline stage
  double expert_load_imbalance = 1;  ///< busiest rank's tokens / mean
  double memory_s = 0, compute_s = 0, comm_s = 0;
  double overhead_s = 0;  ///< layers x per_layer_overhead_us
  double step_s = 0;      ///< max(memory, compute) + comm + overhead
};

struct PlanEstimate {
  PlanShape shape;
  MemoryUse memory;
  uint64_t gpu_memory_bytes = 0;
  bool fits = false;                 ///< memory fits and nothing stops it from running
  bool runnable = true;              ///< false: a kernel or a transport the GPUs lack
  std::vector<std::string> why_not;  ///< each reason, for people
  std::vector<std::string> notes;    ///< caveats that do not stop it
  StepCost decode;
  double prefill_s = 0;            ///< the whole batch's prompts
  double tpot_ms = 0;              ///< time per output token (one decode step)
  double decode_tokens_per_s = 0;  ///< batch / step time (all replicas)
  double output_tokens_per_s = 0;  ///< batch x gen / (prefill + gen x step)
  int max_batch_that_fits = 0;     ///< at the requested lengths
};

struct PlanRequest {
  ModelSpec model;
  GpuSet gpus;
  Workload workload;
  PlanAssumptions assumptions;
  /// Measured peaks (from `smcompat bench` results) replacing the catalog's: TFLOPS, GB/s.
  std::optional<double> measured_tflops, measured_memory_gbs;
};

/// Every candidate plan for the request, best first (fitting plans by output tokens/s, then
/// the rest by how far they are from fitting).
std::vector<PlanEstimate> rank_plans(const PlanRequest& request);

/// The ranking rank_plans returns, applied again (after --python marks plans that cannot run).
void sort_plans(std::vector<PlanEstimate>& plans);

/// Estimates one shape (rank_plans' building block; tests call it directly).
PlanEstimate estimate(const PlanRequest& request, const PlanShape& shape);

/// What would make a model fit when no plan does: more GPUs of the same kind, or smaller weights.
struct FitAdvice {
  std::optional<int> gpus_needed;  ///< fewest GPUs of this kind (up to 64) with a fitting plan
  std::vector<WeightFormat> formats_that_fit;  ///< smaller formats (expert and attention weights
                                               ///< both) with which a plan fits on these GPUs
  /// Each smaller format and the most sequences (at the requested lengths) a runnable plan holds
  /// with it: a format can fit at a smaller --batch when it does not at the requested one.
  struct SmallerFormat {
    WeightFormat format = WeightFormat::kBf16;
    int max_batch = 0;  ///< 0: the weights do not fit even alone
    std::string plan;   ///< the plan holding max_batch
  };
  std::vector<SmallerFormat> smaller_formats;
  uint64_t weights_bytes = 0;  ///< the whole model's weights in its own format
  uint64_t usable_bytes = 0;   ///< what all the GPUs offer after the reserve
};
FitAdvice fit_advice(const PlanRequest& request);

/// Why the first plan beats the second, in a sentence.
std::string why_wins(const PlanEstimate& winner, const PlanEstimate& runner_up);

}  // namespace smcompat::plan
