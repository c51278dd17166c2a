// Private to plan/: the pieces of the engine command lines (engine.hpp) that their files share
// (engine.cpp: the flags a plan asks of each engine; shell_words.cpp: the shell splitter;
// engine_args.cpp: reading an existing command line; engine_rewrite.cpp: rewriting it).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/plan/engine.hpp"
#include "smcompat/plan/plan.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::plan::detail {

// ---------------------------------------------------------------------------------------------
// Shell words (shell_words.cpp).

struct Token {
  bool op = false;    // a shell operator (| && ; & < > 2>& ...) or a newline
  std::string value;  // after quote removal
  std::string raw;    // as written (line continuations dropped)
};

bool all_digits(std::string_view s);

// The words and operators of `text` as a POSIX shell splits them before expansion.
Result<std::vector<Token>> tokenize(std::string_view text);

// The words joined by single spaces.
std::string join(const std::vector<std::string>& words);

// ---------------------------------------------------------------------------------------------
// What the plan asks of an engine (engine.cpp).

// The parallelism settings a command line carries (and the sequence limits engine_command adds).
enum class Param {
  kTp,
  kPp,
  kDp,
  kDpAttention,  // SGLang --enable-dp-attention
  kEp,           // vLLM: the --enable-expert-parallel switch; SGLang, TensorRT-LLM: the size
  kA2a,          // vLLM --all2all-backend, SGLang --moe-a2a-backend
  kOptionsFile,  // TensorRT-LLM --extra_llm_api_options (attention DP lives in it)
  kMaxLen,
  kMaxSeqs,
  // Read in a rewrite only, following the settings above: vLLM's per-node DP size, the flags that
  // place its DP ranks (rank, start rank, address, RPC port, load-balancing mode), its expert
  // load balancer (which refuses to start without expert parallelism), its multi-node flags, and
  // its context-parallel sizes (DCP must divide the TP size); SGLang's LM-head switches that need
  // DP attention.
  kDpLocal,
  kDpPlacement,
  kEplb,
  kNodes,
  kDcp,
  kPcp,
  kDpLmHead,
  kTpLmHeadA2a,
};

// One setting as the plan wants it: `present` false means the flag must not be there.
struct Desired {
  Param param;
  std::string name;   // the long form emitted
  std::string value;  // empty for a switch
  bool present = false;
  std::string why;  // for a present flag: what its value does; for an absent one: why it goes
  // For an absent flag whose default is what the plan wants: a written flag with this value is
  // kept, one with another value is changed to it (SGLang's --moe-a2a-backend none).
  std::string default_value;
};

// The plan in the terms every engine needs.
struct Layout {
  int tp = 1, dp = 1, pp = 1;
  bool moe = false;           // the model has routed experts
  bool ep = false;            // experts placed whole (EP = TP x DP)
  bool attention_dp = false;  // DP ranks run attention on their own requests, experts shared
  bool replicas = false;      // DP ranks are independent copies
  bool deepep = false;
  int group() const { return tp * dp; }  // GPUs of one pipeline stage that share the experts
};

std::string plural(int n, std::string_view one, std::string_view many);

Layout layout_of(const PlanShape& s);

// Every setting the plan asks of `e`'s command line, in the order they are emitted.
std::vector<Desired> desired_for(Engine e, const Layout& l, const Workload& w);

// ---------------------------------------------------------------------------------------------
// Reading an existing command line (engine_args.cpp).

// A spelling the rewrite recognises. kLegacy* and kNoEp are SGLang's and vLLM's other ways of
// saying kEp / kA2a.
enum class Spelling { kNormal, kNoEp, kLegacyEpMoe, kLegacyDeepEpMoe };

struct FlagSpec {
  std::string_view name;
  Param param;
  bool takes_value;
  Spelling spelling = Spelling::kNormal;
};

// The engine invocations find_engine recognises, for error messages.
inline constexpr std::string_view kRecognised =
    "`vllm serve`, `python -m vllm.entrypoints.openai.api_server`, "
    "`python -m sglang.launch_server`, `python -m sglang_router.launch_server`, `sglang serve`, "
    "`trtllm-serve`, `python -m tensorrt_llm.commands.serve`";

struct Found {
  Engine engine;
  size_t engine_word;  // token index of `vllm`, `python3`, `trtllm-serve`, ...
  size_t args_begin;   // token index of the first engine argument
  // A TensorRT-LLM subcommand other than `serve` (`grpc`, `disaggregated`, ...): not rewritten.
  std::string other_subcommand;
};

// The first engine invocation among the words of `tokens`.
std::optional<Found> find_engine(const std::vector<Token>& tokens);

// One recognised flag in the original.
struct Occurrence {
  const FlagSpec* spec;
  std::string written;  // the flag as written ("-tp", "--tp_size")
  std::string value;
  size_t flag_index;                  // token index of the flag word
  std::optional<size_t> value_index;  // the separate value word, if any (else inline or none)
  bool inline_value = false;
};

struct Parsed {
  std::vector<size_t> args;  // token indices of the engine's argument words (redirections out)
  size_t insert_at = 0;      // where added flags go: after the last argument word
  std::vector<Occurrence> found;
};

// The engine's argument words from `begin` to the end of its simple command, and the recognised
// flags among them.
Parsed parse_args(Engine e, const std::vector<Token>& tokens, size_t begin);

// An `export NAME=value` or `NAME=value` word before the engine.
struct EnvAssignment {
  size_t index;
  std::string value;
  bool prefix;  // a prefix of the engine's simple command (removing it removes nothing else)
};

inline constexpr std::string_view kVllmA2aEnv = "VLLM_ALL2ALL_BACKEND";

// vLLM's VLLM_ALL2ALL_BACKEND assignment among the words before the engine word, if any.
std::optional<EnvAssignment> find_a2a_env(const std::vector<Token>& tokens, size_t engine_word);

}  // namespace smcompat::plan::detail
