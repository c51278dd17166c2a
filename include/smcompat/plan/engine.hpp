// The command line that says a plan to a serving engine (vLLM, SGLang, TensorRT-LLM), and the
// rewrite of an existing command line into it, each changed flag explained. Flag names follow the
// engines' documentation (docs/plan.md cites the pages).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/plan/plan.hpp"
#include "smcompat/util/result.hpp"

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
  std::vector<EngineFlag> flags;  ///< the parallelism flags in it, explained
  std::vector<std::string> extra_files;  ///< e.g. TensorRT-LLM's extra options YAML, as text
  std::string shell() const;  ///< argv joined, words quoted where the shell needs it
};

/// The command that serves `model_id` with `shape` (sequence limits from the workload).
EngineCommand engine_command(Engine engine, const std::string& model_id, const PlanShape& shape,
                             const Workload& workload);

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
  std::vector<std::string> argv;  ///< the rewritten command
  std::vector<FlagChange> changes;
  std::string shell() const;
};

/// Reads `original` (a shell command line: "vllm serve M --tensor-parallel-size 8 ...",
/// "python -m sglang.launch_server ...", "trtllm-serve ..."), recognises the engine, and rewrites
/// its parallelism flags to say `shape`; every other word is kept as written. Errors: unbalanced
/// quotes, no recognisable engine.
Result<Rewrite> rewrite_command(std::string_view original, const PlanShape& shape,
                                const Workload& workload);

}  // namespace smcompat::plan
