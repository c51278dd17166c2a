// The command line that says a plan to a serving engine (vLLM, SGLang, TensorRT-LLM), and the
// rewrite of an existing command line into it, each changed flag explained. Flag names follow the
// engines' documentation (docs/plan.md cites the pages; src/plan/engine.cpp lists them too).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/plan/plan.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/util/shell.hpp"  // shell_quote (engine command lines)

namespace smcompat::plan {

enum class Engine { kVllm, kSglang, kTrtllm };
std::string_view to_string(Engine e);  // "vllm", "sglang", "trtllm"
std::optional<Engine> parse_engine(std::string_view name);

/// One flag of the emitted command line, with why it has its value.
struct EngineFlag {
  std::string name;   ///< "--tensor-parallel-size"
  std::string value;  ///< "4"; empty for a switch
  std::string why;    ///< "attention and dense layers split over 4 GPUs"
};

struct EngineCommand {
  Engine engine = Engine::kVllm;
  std::vector<std::string> argv;  ///< the whole command, one word per element
  /// The flags the plan sets (parallelism, then the sequence limits), in argv order, explained.
  std::vector<EngineFlag> flags;
  /// Files the command names, as text; each starts with a comment line naming the file
  /// ("# extra-llm-api-options.yaml ..."): TensorRT-LLM's attention-DP switch lives in one.
  std::vector<std::string> extra_files;
  std::string shell() const;  ///< argv joined, words quoted where the shell needs it
};

/// The command that serves `model_id` with `shape` (sequence limits from the workload).
/// vLLM: `vllm serve`; SGLang: `python3 -m sglang.launch_server` (every release has it; newer
/// ones also offer `sglang serve`); TensorRT-LLM: `trtllm-serve`. Where the engine cannot run
/// the plan's data-parallel replicas in one process (TensorRT-LLM; vLLM for an MoE model, whose
/// --data-parallel-size would split the experts over every GPU), the command is one replica and
/// the first flag's `why` says so. The shape is taken as given (sizes of at least 1).
EngineCommand engine_command(Engine engine, const std::string& model_id, const PlanShape& shape,
                             const Workload& workload);

/// Why `engine` cannot run `shape` as it was costed, or nullopt when a command expresses it
/// exactly. TensorRT-LLM's `enable_attention_dp` makes every one of the tp_size ranks an
/// attention rank of its own (attention TP 1), so attention groups of several GPUs (TP2xDP4
/// attention) have no command; and trtllm-serve has no switch for the all-to-all, so of two plans
/// that differ only in it one command stands for the all-gather/reduce-scatter one and the DeepEP
/// one is not expressible. vLLM and SGLang express every plan shape the planner makes.
std::optional<std::string> not_expressible(Engine engine, const PlanShape& shape);

/// Why `engine` has no model for `model`'s architecture (the config's "architectures"), or
/// nullopt: data/engine_architectures.json, read from each engine's model registry or model
/// directory at a cited commit, lists the hybrid architectures the planner models and which
/// engines serve them. An architecture not listed there is not judged (nullopt).
std::optional<std::string> architecture_not_served(Engine engine, const ModelSpec& model);

/// One change made to an existing command line.
struct FlagChange {
  enum class Kind { kAdded, kChanged, kRemoved } kind = Kind::kAdded;
  std::string flag;       ///< as written in the original ("--tp", "-tp", "--tensor-parallel-size")
  std::string old_value;  ///< empty for added flags and switches
  std::string new_value;  ///< empty for removed flags and switches
  std::string why;
};

struct Rewrite {
  Engine engine = Engine::kVllm;
  /// The rewritten command: every word after the shell's quote removal (`$VAR` and `$(...)` left
  /// as text, not expanded), and the shell's operators (`|`, `&&`, `2>&`, `>`) as their own
  /// elements, in order; environment assignments before the engine are included.
  std::vector<std::string> argv;
  /// argv as shell text, one element per argv element: words kept from the original exactly as
  /// written there (quotes, `$VARIABLES`), new and changed words quoted where needed.
  std::vector<std::string> shell_words;
  std::vector<FlagChange> changes;
  std::string shell() const;  ///< shell_words joined by spaces, on one line
};

/// Reads `original` (a shell command line: "vllm serve M --tensor-parallel-size 8 ...",
/// "python -m sglang.launch_server ...", "trtllm-serve ..."), recognises the engine, and rewrites
/// its parallelism flags to say `shape`; every other word is kept as written. Errors: unbalanced
/// quotes, no recognisable engine, an empty command, a TensorRT-LLM subcommand other than serve
/// (`trtllm-serve grpc|disaggregated|disaggregated_mpi_worker|mm_embedding_serve ...`).
///
/// Recognised: long forms, the engines' short forms and aliases (vLLM -tp/-pp/-dp; SGLang --tp,
/// --dp, --ep, --tensor-parallel-size, ...; TensorRT-LLM --tensor_parallel_size,
/// --pipeline_parallel_size, --moe_expert_parallel_size), `--flag=value`, python options before
/// `-m` (`python -u -m ...`, `python3 -X dev -m ...`), vLLM's VLLM_ALL2ALL_BACKEND environment
/// assignment, SGLang's old --enable-ep-moe/--enable-deepep-moe. A flag found is changed in
/// place in the spelling it was written in; one missing is added (long form) after the engine's
/// last argument; one the plan does not use is removed.
///
/// Followers: vLLM's all-to-all backend is said with --all2all-backend where the plan has
/// data-parallel ranks (vLLM >= 0.16 no longer reads VLLM_ALL2ALL_BACKEND: a prefix assignment
/// is removed; an exported one is kept and the flag overrides it), and removed without them (vLLM
/// runs no all-to-all then). vLLM's DP placement flags (--data-parallel-rank, -start-rank,
/// -address, -rpc-port, the load-balancing switches) go with the DP size; its
/// --data-parallel-size-local follows the DP size on one machine, and in a multi-node or
/// per-rank launch (those flags, --nnodes > 1, --headless) it is kept and a change says to check
/// the split by hand; --enable-eplb/--eplb-config go when expert parallelism does (vLLM refuses
/// them without it); a --decode-context-parallel-size that does not divide the new TP size goes.
/// SGLang's --enable-dp-lm-head and --enable-tp-lm-head-all-to-all go when DP attention does
/// (SGLang refuses them without it). TensorRT-LLM's options file is named in a change that says
/// what it must hold (it overrides the command line). Sequence limits already in the command are
/// the user's and kept; none are added (`workload` is not used yet).
///
/// Each change's `why` says what the new value does for this plan (or why a flag goes); why this
/// plan was chosen (the link, the fit) is the caller's to add.
Result<Rewrite> rewrite_command(std::string_view original, const PlanShape& shape,
                                const Workload& workload);

/// Splits a command line into words the way a POSIX shell does before expansion (quotes removed,
/// backslash escapes, line continuations, comments); the shell's operators come out as words of
/// their own. Errors: an unbalanced quote, `$(`, `${` or backquote, with its offset.
Result<std::vector<std::string>> split_shell_words(std::string_view text);

}  // namespace smcompat::plan
