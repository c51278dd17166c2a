// The engine command lines (src/plan/engine.cpp): the exact argv each engine gets for the plan
// shapes `smcompat plan` ranks, the quoting of shell(), and the rewrite of command lines as they
// appear in public threads and engine docs (vLLM's expert-parallel deployment page, SGLang's DP
// attention launch of DeepSeek, TensorRT-LLM's DeepSeek-R1 example), each change checked.
#include "smcompat/plan/engine.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/cases.hpp"

namespace smcompat::plan {
namespace {

using ::testing::HasSubstr;
using Argv = std::vector<std::string>;
using Kind = FlagChange::Kind;

PlanShape tp(int n, ExpertMode experts = ExpertMode::kNone) {
  PlanShape s;
  s.tp = n;
  s.experts = experts;
  return s;
}

PlanShape tp_ep(int n, AllToAll a2a = AllToAll::kAllgatherReduceScatter) {
  PlanShape s = tp(n, ExpertMode::kExpertParallel);
  s.a2a = a2a;
  return s;
}

PlanShape dp_ep(int dp, AllToAll a2a, int tp_size = 1) {
  PlanShape s = tp(tp_size, ExpertMode::kExpertParallel);
  s.dp = dp;
  s.a2a = a2a;
  s.dp_attention = true;
  return s;
}

PlanShape pp_tp(int pp, int tp_size) {
  PlanShape s = tp(tp_size);
  s.pp = pp;
  return s;
}

// An engine's argv: its launcher words, the model, then `flags`.
Argv launch(Argv launcher, const std::string& model, std::initializer_list<std::string> flags) {
  launcher.push_back(model);
  launcher.insert(launcher.end(), flags);
  return launcher;
}
Argv vllm_argv(const std::string& model, std::initializer_list<std::string> flags) {
  return launch({"vllm", "serve"}, model, flags);
}
Argv sglang_argv(const std::string& model, std::initializer_list<std::string> flags) {
  return launch({"python3", "-m", "sglang.launch_server", "--model-path"}, model, flags);
}
Argv trtllm_argv(const std::string& model, std::initializer_list<std::string> flags) {
  return launch({"trtllm-serve"}, model, flags);
}

const Workload kWorkload{};  // 64 sequences, 1024 + 1024 tokens

Argv argv_of(Engine e, const std::string& model, const PlanShape& s,
             const Workload& w = kWorkload) {
  return engine_command(e, model, s, w).argv;
}

struct Change {
  Kind kind;
  std::string flag, old_value, new_value;
  bool operator==(const Change&) const = default;
};

std::vector<Change> changes_of(const Rewrite& r) {
  std::vector<Change> out;
  for (const auto& c : r.changes) out.push_back({c.kind, c.flag, c.old_value, c.new_value});
  return out;
}

// The changes a rewrite makes: a flag added (with its value, if any), removed (with the value it
// had, if any), or given another value.
Change added(const std::string& flag, const std::string& value = "") {
  return {Kind::kAdded, flag, "", value};
}
Change removed(const std::string& flag, const std::string& old_value = "") {
  return {Kind::kRemoved, flag, old_value, ""};
}
Change changed(const std::string& flag, const std::string& old_value,
               const std::string& new_value) {
  return {Kind::kChanged, flag, old_value, new_value};
}

void PrintTo(const Change& c, std::ostream* os) {
  *os << "{" << static_cast<int>(c.kind) << " " << c.flag << " '" << c.old_value << "' -> '"
      << c.new_value << "'}";
}

Rewrite rewrite_ok(std::string_view cmd, const PlanShape& s) {
  auto r = rewrite_command(cmd, s, kWorkload);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? *r : Rewrite{};
}

// Rewrites `cmd` for `s`, which must give `argv` by `changes` (in order); the rewrite, for more
// checks.
Rewrite expect_rewrite(std::string_view cmd, const PlanShape& s, const Argv& argv,
                       const std::vector<Change>& changes) {
  Rewrite r = rewrite_ok(cmd, s);
  EXPECT_EQ(r.argv, argv);
  EXPECT_EQ(changes_of(r), changes);
  return r;
}

// The argv vLLM, SGLang and TensorRT-LLM get for model `m` in shape `s`: each launcher, the
// model, then the flags given for it.
void expect_argvs(const std::string& m, const PlanShape& s,
                  std::initializer_list<std::string> vllm_flags,
                  std::initializer_list<std::string> sglang_flags,
                  std::initializer_list<std::string> trtllm_flags) {
  EXPECT_EQ(argv_of(Engine::kVllm, m, s), vllm_argv(m, vllm_flags));
  EXPECT_EQ(argv_of(Engine::kSglang, m, s), sglang_argv(m, sglang_flags));
  EXPECT_EQ(argv_of(Engine::kTrtllm, m, s), trtllm_argv(m, trtllm_flags));
}

// ---- engine_command: exact argv ----------------------------------------------------------------

TEST(EngineCommand, Tp4DenseEveryEngine) {
  const std::string m = "meta-llama/Llama-3.1-70B-Instruct";
  EXPECT_EQ(argv_of(Engine::kVllm, m, tp(4)),
            vllm_argv(m, {"--tensor-parallel-size", "4", "--max-model-len", "2048",
                          "--max-num-seqs", "64"}));
  EXPECT_EQ(argv_of(Engine::kSglang, m, tp(4)),
            sglang_argv(
                m, {"--tp-size", "4", "--context-length", "2048", "--max-running-requests", "64"}));
  EXPECT_EQ(argv_of(Engine::kTrtllm, m, tp(4)),
            trtllm_argv(m, {"--tp_size", "4", "--max_batch_size", "64", "--max_seq_len", "2048"}));
  auto cmd = engine_command(Engine::kVllm, m, tp(4), kWorkload);
  ASSERT_EQ(cmd.flags.size(), 3u);
  EXPECT_EQ(cmd.flags[0].name, "--tensor-parallel-size");
  EXPECT_EQ(cmd.flags[0].value, "4");
  EXPECT_EQ(cmd.flags[0].why, "attention and dense layers split over 4 GPUs");
  EXPECT_EQ(cmd.flags[1].why, "1024 prompt + 1024 output tokens");
  EXPECT_EQ(cmd.flags[2].why, "64 concurrent sequences");
  EXPECT_TRUE(cmd.extra_files.empty());
}

TEST(EngineCommand, Tp8ExpertsTpSharded) {
  const std::string m = "Qwen/Qwen3-235B-A22B";
  PlanShape s = tp(8, ExpertMode::kTpSharded);
  EXPECT_EQ(argv_of(Engine::kVllm, m, s),
            vllm_argv(m, {"--tensor-parallel-size", "8", "--max-model-len", "2048",
                          "--max-num-seqs", "64"}));
  EXPECT_EQ(argv_of(Engine::kSglang, m, s),
            sglang_argv(
                m, {"--tp-size", "8", "--context-length", "2048", "--max-running-requests", "64"}));
  // TensorRT-LLM says the MoE TP explicitly: ep_size 1.
  EXPECT_EQ(argv_of(Engine::kTrtllm, m, s),
            trtllm_argv(m, {"--tp_size", "8", "--ep_size", "1", "--max_batch_size", "64",
                            "--max_seq_len", "2048"}));
  auto cmd = engine_command(Engine::kVllm, m, s, kWorkload);
  EXPECT_EQ(cmd.flags[0].why, "attention, dense layers and every expert split over 8 GPUs");
  auto trt = engine_command(Engine::kTrtllm, m, s, kWorkload);
  EXPECT_EQ(trt.flags[1].why,
            "every expert split over the 8 ranks (MoE TP = tp_size / ep_size = 8)");
}

TEST(EngineCommand, Tp8WithExpertParallel) {
  const std::string m = "deepseek-ai/DeepSeek-V3";
  PlanShape s = tp_ep(8);
  // One data-parallel rank: vLLM runs no all-to-all (ParallelConfig.use_all2all), so no backend.
  expect_argvs(
      m, s,
      {"--tensor-parallel-size", "8", "--enable-expert-parallel", "--max-model-len", "2048",
       "--max-num-seqs", "64"},
      {"--tp-size", "8", "--ep-size", "8", "--context-length", "2048", "--max-running-requests",
       "64"},
      {"--tp_size", "8", "--ep_size", "8", "--max_batch_size", "64", "--max_seq_len", "2048"});
  auto cmd = engine_command(Engine::kVllm, m, s, kWorkload);
  EXPECT_EQ(cmd.flags[1].name, "--enable-expert-parallel");
  EXPECT_EQ(cmd.flags[1].value, "");
  EXPECT_EQ(cmd.flags[1].why, "experts placed whole, not split: EP size = TP x DP = 8");
}

TEST(EngineCommand, TpOnlyEpWithDeepEpHasNoVllmAll2AllBackend) {
  // One data-parallel rank: vLLM runs no all-to-all, so the plan's DeepEP is not said to vLLM
  // (and its EP flag says so); SGLang takes DeepEP with TP-only EP.
  const std::string m = "deepseek-ai/DeepSeek-V3";
  PlanShape s = tp_ep(8, AllToAll::kDeepEp);
  auto cmd = engine_command(Engine::kVllm, m, s, kWorkload);
  EXPECT_EQ(cmd.argv, vllm_argv(m, {"--tensor-parallel-size", "8", "--enable-expert-parallel",
                                    "--max-model-len", "2048", "--max-num-seqs", "64"}));
  EXPECT_EQ(cmd.flags[1].why,
            "experts placed whole, not split: EP size = TP x DP = 8; with one data-parallel rank "
            "vLLM runs no all-to-all, so DeepEP is not used");
  EXPECT_EQ(argv_of(Engine::kSglang, m, s),
            sglang_argv(m, {"--tp-size", "8", "--ep-size", "8", "--moe-a2a-backend", "deepep",
                            "--context-length", "2048", "--max-running-requests", "64"}));
}

TEST(EngineCommand, SglangRunningRequestsAreAMultipleOfTheDpSize) {
  // SGLang gives each attention rank max_running_requests // dp_size: 50 over 4 ranks would
  // leave 48; 52 gives each rank 13.
  const std::string m = "Qwen/Qwen3-30B-A3B";
  Workload w;
  w.batch = 50;
  auto cmd = engine_command(Engine::kSglang, m, dp_ep(4, AllToAll::kAllgatherReduceScatter), w);
  EXPECT_EQ(cmd.argv, sglang_argv(m, {"--tp-size", "4", "--dp-size", "4", "--enable-dp-attention",
                                      "--ep-size", "4", "--context-length", "2048",
                                      "--max-running-requests", "52"}));
  EXPECT_EQ(cmd.flags.back().why,
            "50 concurrent sequences in all, rounded up to 52: SGLang gives each of the 4 "
            "attention ranks 52 // 4 = 13 (the division rounds down)");
  auto even = engine_command(Engine::kSglang, m, dp_ep(8, AllToAll::kDeepEp), kWorkload);
  EXPECT_EQ(even.argv.back(), "64");
  EXPECT_EQ(even.flags.back().why,
            "64 concurrent sequences in all; SGLang gives each of the 8 attention ranks 64 // 8 = "
            "8");
  // vLLM's limit is per rank already: ceil(50 / 4).
  EXPECT_EQ(argv_of(Engine::kVllm, m, dp_ep(4, AllToAll::kAllgatherReduceScatter), w).back(), "13");
}

TEST(EngineCommand, Dp8AttentionEp8DeepEp) {
  const std::string m = "deepseek-ai/DeepSeek-V3";
  PlanShape s = dp_ep(8, AllToAll::kDeepEp);
  EXPECT_EQ(argv_of(Engine::kVllm, m, s),
            vllm_argv(m, {"--tensor-parallel-size", "1", "--data-parallel-size", "8",
                          "--enable-expert-parallel", "--all2all-backend", "deepep_low_latency",
                          "--max-model-len", "2048", "--max-num-seqs", "8"}));
  // SGLang: --tp-size counts every GPU; DP attention splits them into 8 ranks of 1.
  EXPECT_EQ(argv_of(Engine::kSglang, m, s),
            sglang_argv(m, {"--tp-size", "8", "--dp-size", "8", "--enable-dp-attention",
                            "--ep-size", "8", "--moe-a2a-backend", "deepep", "--context-length",
                            "2048", "--max-running-requests", "64"}));
  auto trt = engine_command(Engine::kTrtllm, m, s, kWorkload);
  EXPECT_EQ(trt.argv, trtllm_argv(m, {"--tp_size", "8", "--ep_size", "8", "--extra_llm_api_options",
                                      "extra-llm-api-options.yaml", "--max_batch_size", "8",
                                      "--max_seq_len", "2048"}));
  ASSERT_EQ(trt.extra_files.size(), 1u);
  EXPECT_EQ(trt.extra_files[0],
            "# extra-llm-api-options.yaml (trtllm-serve --extra_llm_api_options): attention "
            "data-parallel over the 8 ranks\nenable_attention_dp: true\n");
  EXPECT_THAT(trt.flags[1].why, HasSubstr("no DeepEP switch"));

  auto vllm = engine_command(Engine::kVllm, m, s, kWorkload);
  EXPECT_EQ(vllm.flags[1].why,
            "8 data-parallel attention ranks, each with its own requests and KV cache; the "
            "experts are shared over all 8 GPUs");
  EXPECT_EQ(vllm.flags[5].why,
            "64 concurrent sequences over 8 data-parallel ranks (the limit is per rank)");
}

TEST(EngineCommand, Dp4Ep4AllgatherOnPcie) {
  const std::string m = "Qwen/Qwen3-30B-A3B";
  PlanShape s = dp_ep(4, AllToAll::kAllgatherReduceScatter);
  EXPECT_EQ(
      argv_of(Engine::kVllm, m, s),
      vllm_argv(m, {"--tensor-parallel-size", "1", "--data-parallel-size", "4",
                    "--enable-expert-parallel", "--all2all-backend", "allgather_reducescatter",
                    "--max-model-len", "2048", "--max-num-seqs", "16"}));
  EXPECT_EQ(
      argv_of(Engine::kSglang, m, s),
      sglang_argv(m, {"--tp-size", "4", "--dp-size", "4", "--enable-dp-attention", "--ep-size", "4",
                      "--context-length", "2048", "--max-running-requests", "64"}));
  EXPECT_EQ(argv_of(Engine::kTrtllm, m, s),
            trtllm_argv(m, {"--tp_size", "4", "--ep_size", "4", "--extra_llm_api_options",
                            "extra-llm-api-options.yaml", "--max_batch_size", "16", "--max_seq_len",
                            "2048"}));
  auto cmd = engine_command(Engine::kVllm, m, s, kWorkload);
  EXPECT_EQ(cmd.flags[3].why,
            "tokens reach their experts by all-gather and reduce-scatter (NCCL): runs on any "
            "link, PCIe included (the flag needs vLLM 0.11.1 or later)");
  auto sgl = engine_command(Engine::kSglang, m, s, kWorkload);
  EXPECT_THAT(sgl.flags[3].why, HasSubstr("--moe-a2a-backend none, the default"));
}

TEST(EngineCommand, Dp2AttentionWithTp2) {
  // Attention TP 2 inside each of 2 DP ranks: SGLang's --tp-size is 4; TensorRT-LLM cannot say
  // the attention TP and says so.
  const std::string m = "deepseek-ai/DeepSeek-V2-Lite";
  PlanShape s = dp_ep(2, AllToAll::kAllgatherReduceScatter, 2);
  EXPECT_EQ(
      argv_of(Engine::kSglang, m, s),
      sglang_argv(m, {"--tp-size", "4", "--dp-size", "2", "--enable-dp-attention", "--ep-size", "4",
                      "--context-length", "2048", "--max-running-requests", "64"}));
  EXPECT_EQ(
      argv_of(Engine::kVllm, m, s),
      vllm_argv(m, {"--tensor-parallel-size", "2", "--data-parallel-size", "2",
                    "--enable-expert-parallel", "--all2all-backend", "allgather_reducescatter",
                    "--max-model-len", "2048", "--max-num-seqs", "32"}));
  auto trt = engine_command(Engine::kTrtllm, m, s, kWorkload);
  EXPECT_EQ(trt.argv[3], "4");
  EXPECT_THAT(trt.flags[0].why, HasSubstr("no attention-TP size"));
}

TEST(EngineCommand, Pp2Tp4) {
  const std::string m = "meta-llama/Llama-3.1-405B-Instruct-FP8";
  PlanShape s = pp_tp(2, 4);
  expect_argvs(
      m, s,
      {"--tensor-parallel-size", "4", "--pipeline-parallel-size", "2", "--max-model-len", "2048",
       "--max-num-seqs", "64"},
      {"--tp-size", "4", "--pp-size", "2", "--context-length", "2048", "--max-running-requests",
       "64"},
      {"--tp_size", "4", "--pp_size", "2", "--max_batch_size", "64", "--max_seq_len", "2048"});
  auto cmd = engine_command(Engine::kVllm, m, s, kWorkload);
  EXPECT_EQ(cmd.flags[0].why,
            "attention and dense layers split over 4 GPUs, in each of 2 pipeline stages");
  EXPECT_EQ(cmd.flags[1].why,
            "the layers split into 2 stages run one after another, 8 GPUs in all");
}

TEST(EngineCommand, DenseReplicas) {
  const std::string m = "Qwen/Qwen3-8B";
  PlanShape s = tp(1);
  s.dp = 8;
  EXPECT_EQ(argv_of(Engine::kVllm, m, s),
            vllm_argv(m, {"--tensor-parallel-size", "1", "--data-parallel-size", "8",
                          "--max-model-len", "2048", "--max-num-seqs", "8"}));
  EXPECT_EQ(argv_of(Engine::kSglang, m, s),
            sglang_argv(m, {"--tp-size", "1", "--dp-size", "8", "--context-length", "2048",
                            "--max-running-requests", "8"}));
  // trtllm-serve has no DP flag: one replica, and the TP flag says to run 8.
  auto trt = engine_command(Engine::kTrtllm, m, s, kWorkload);
  EXPECT_EQ(trt.argv,
            trtllm_argv(m, {"--tp_size", "1", "--max_batch_size", "8", "--max_seq_len", "2048"}));
  EXPECT_EQ(trt.flags[0].why,
            "the whole model on one GPU; this command is one of 8 replicas: start 8 of them on "
            "separate GPUs (CUDA_VISIBLE_DEVICES) behind a router (trtllm-serve has no "
            "data-parallel flag)");
}

TEST(EngineCommand, MoeReplicasAreSeparateVllmServers) {
  // vLLM's --data-parallel-size on an MoE model splits the experts over DP x TP GPUs: not the
  // replicas the plan costed, so vLLM gets one replica's command.
  const std::string m = "Qwen/Qwen3-30B-A3B";
  PlanShape s = tp(2, ExpertMode::kTpSharded);
  s.dp = 2;
  auto cmd = engine_command(Engine::kVllm, m, s, kWorkload);
  EXPECT_EQ(cmd.argv, vllm_argv(m, {"--tensor-parallel-size", "2", "--max-model-len", "2048",
                                    "--max-num-seqs", "32"}));
  EXPECT_THAT(cmd.flags[0].why, HasSubstr("one of 2 replicas"));
  EXPECT_EQ(argv_of(Engine::kSglang, m, s),
            sglang_argv(m, {"--tp-size", "2", "--dp-size", "2", "--context-length", "2048",
                            "--max-running-requests", "32"}));
}

TEST(EngineCommand, EveryFlagIsExplained) {
  for (Engine e : {Engine::kVllm, Engine::kSglang, Engine::kTrtllm})
    for (const PlanShape& s :
         {tp(4), tp(8, ExpertMode::kTpSharded), tp_ep(8), tp_ep(8, AllToAll::kDeepEp),
          dp_ep(8, AllToAll::kDeepEp), dp_ep(4, AllToAll::kAllgatherReduceScatter), pp_tp(2, 4)}) {
      auto cmd = engine_command(e, "m", s, kWorkload);
      for (const auto& f : cmd.flags) {
        EXPECT_FALSE(f.why.empty()) << f.name;
        EXPECT_EQ(f.why.find('\n'), std::string::npos) << f.name;
      }
      // Every explained flag is in argv, in order.
      size_t at = 0;
      for (const auto& f : cmd.flags) {
        auto it = std::find(cmd.argv.begin() + static_cast<long>(at), cmd.argv.end(), f.name);
        ASSERT_NE(it, cmd.argv.end()) << f.name;
        at = static_cast<size_t>(it - cmd.argv.begin()) + 1;
      }
    }
}

TEST(EngineNames, RoundTrip) {
  for (Engine e : {Engine::kVllm, Engine::kSglang, Engine::kTrtllm})
    EXPECT_EQ(parse_engine(to_string(e)), e);
  EXPECT_EQ(parse_engine("TensorRT-LLM"), Engine::kTrtllm);
  EXPECT_EQ(parse_engine("SGLang"), Engine::kSglang);
  EXPECT_EQ(parse_engine("llama.cpp"), std::nullopt);
}

// ---- shell quoting ---------------------------------------------------------------------------

TEST(ShellQuote, QuotesOnlyWhatTheShellWouldRead) {
  smcompat::testing::expect_mapped(shell_quote,
                                   {
                                       {"deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3"},
                                       {"--max-model-len=2048", "--max-model-len=2048"},
                                       {"0.0.0.0:8000,a@b%c+d", "0.0.0.0:8000,a@b%c+d"},
                                       {"", "''"},
                                       {"my model", "'my model'"},
                                       {"$HOME/x", "'$HOME/x'"},
                                       {"~/ckpt", "'~/ckpt'"},
                                       {"a*b", "'a*b'"},
                                       {"it's", "'it'\\''s'"},
                                       {"{\"k\": 1}", "'{\"k\": 1}'"},
                                   });
}

TEST(ShellQuote, EngineCommandShell) {
  auto cmd = engine_command(Engine::kVllm, "/models/My Model's v2", tp(2), kWorkload);
  EXPECT_EQ(cmd.shell(),
            "vllm serve '/models/My Model'\\''s v2' --tensor-parallel-size 2 --max-model-len 2048 "
            "--max-num-seqs 64");
  // The shell reads the quoted words back as argv.
  auto words = split_shell_words(cmd.shell());
  ASSERT_TRUE(words.ok());
  EXPECT_EQ(*words, cmd.argv);
}

TEST(SplitShellWords, PosixQuoting) {
  auto words = split_shell_words(
      "a \"b c\" 'd e' f\\ g \"x\\\"y\\n\" $(echo \"x y\") ${A:-z w} `u v` h#i # a comment\n"
      "next \\\n  line");
  ASSERT_TRUE(words.ok()) << words.error().to_string();
  EXPECT_EQ(*words, (Argv{"a", "b c", "d e", "f g", "x\"y\\n", "$(echo \"x y\")", "${A:-z w}",
                          "`u v`", "h#i", "\n", "next", "line"}));
}

TEST(SplitShellWords, Operators) {
  auto words = split_shell_words("cmd a 2>&1 | tee log.txt && echo done >/dev/null; b&");
  ASSERT_TRUE(words.ok());
  EXPECT_EQ(*words, (Argv{"cmd", "a", "2>&", "1", "|", "tee", "log.txt", "&&", "echo", "done", ">",
                          "/dev/null", ";", "b", "&"}));
}

TEST(SplitShellWords, UnbalancedIsAnError) {
  for (const char* bad : {"vllm serve 'model", "vllm serve \"model", "a $(b", "a ${b", "a `b"}) {
    auto r = split_shell_words(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.error().what, HasSubstr("unbalanced")) << bad;
    EXPECT_TRUE(r.error().offset.has_value()) << bad;
  }
  auto r = split_shell_words("vllm serve 'model");
  EXPECT_EQ(r.error().what, "unbalanced single quote (opened at offset 11)");
  EXPECT_EQ(r.error().offset, 11u);
}

// ---- rewrite_command ---------------------------------------------------------------------------

// The common DeepSeek launch: TP 8 with the experts placed whole.
constexpr std::string_view kDeepSeekTp8Ep =
    "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --enable-expert-parallel "
    "--trust-remote-code";

TEST(Rewrite, VllmTp8EpToTpShardedExperts) {
  // The common DeepSeek launch, on a machine where the plan splits the experts instead.
  auto r = expect_rewrite(
      kDeepSeekTp8Ep, tp(8, ExpertMode::kTpSharded),
      vllm_argv("deepseek-ai/DeepSeek-V3", {"--tensor-parallel-size", "8", "--trust-remote-code"}),
      {removed("--enable-expert-parallel")});
  EXPECT_EQ(r.engine, Engine::kVllm);
  EXPECT_EQ(r.changes[0].why,
            "removed: the experts are split over the TP ranks in this plan, not placed whole");
  EXPECT_EQ(r.shell(),
            "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --trust-remote-code");
}

TEST(Rewrite, VllmTp8EpToDp8DeepEp) {
  auto r = expect_rewrite(
      kDeepSeekTp8Ep, dp_ep(8, AllToAll::kDeepEp),
      vllm_argv("deepseek-ai/DeepSeek-V3",
                {"--tensor-parallel-size", "1", "--enable-expert-parallel", "--trust-remote-code",
                 "--data-parallel-size", "8", "--all2all-backend", "deepep_low_latency"}),
      {changed("--tensor-parallel-size", "8", "1"), added("--data-parallel-size", "8"),
       added("--all2all-backend", "deepep_low_latency")});
  EXPECT_EQ(r.changes[0].why, "attention on 1 GPU in each of the 8 data-parallel ranks");
}

TEST(Rewrite, VllmEnvBackendBecomesTheFlag) {
  // vLLM >= 0.16 no longer reads VLLM_ALL2ALL_BACKEND: the prefix assignment goes and
  // --all2all-backend says the backend.
  auto r = expect_rewrite(
      "VLLM_ALL2ALL_BACKEND=deepep_low_latency vllm serve deepseek-ai/DeepSeek-R1-0528 -dp 8 "
      "--enable-expert-parallel --trust-remote-code --port 8000",
      dp_ep(4, AllToAll::kAllgatherReduceScatter),
      vllm_argv("deepseek-ai/DeepSeek-R1-0528",
                {"-dp", "4", "--enable-expert-parallel", "--trust-remote-code", "--port", "8000",
                 "--all2all-backend", "allgather_reducescatter"}),
      {changed("-dp", "8", "4"), removed("VLLM_ALL2ALL_BACKEND", "deepep_low_latency"),
       added("--all2all-backend", "allgather_reducescatter")});
  EXPECT_EQ(r.changes[1].why,
            "removed: vLLM 0.16 and later no longer read VLLM_ALL2ALL_BACKEND; --all2all-backend "
            "(vLLM 0.11.1 and later) says the backend instead");
  EXPECT_EQ(r.changes[2].why,
            "tokens reach their experts by all-gather and reduce-scatter (NCCL): runs on any "
            "link, PCIe included (the flag needs vLLM 0.11.1 or later)");
  EXPECT_EQ(r.shell(),
            "vllm serve deepseek-ai/DeepSeek-R1-0528 -dp 4 --enable-expert-parallel "
            "--trust-remote-code --port 8000 --all2all-backend allgather_reducescatter");
}

TEST(Rewrite, VllmEnvBackendKeepsTheUsersDeepEpMode) {
  // The plan's DeepEP in the user's mode (high-throughput): the flag takes the user's mode.
  auto r = expect_rewrite(
      "VLLM_ALL2ALL_BACKEND=deepep_high_throughput vllm serve m -dp 8 --enable-expert-parallel",
      dp_ep(8, AllToAll::kDeepEp),
      vllm_argv("m", {"-dp", "8", "--enable-expert-parallel", "--all2all-backend",
                      "deepep_high_throughput"}),
      {removed("VLLM_ALL2ALL_BACKEND", "deepep_high_throughput"),
       added("--all2all-backend", "deepep_high_throughput")});
  EXPECT_EQ(r.changes[1].why,
            "DeepEP dispatch/combine kernels, in the mode VLLM_ALL2ALL_BACKEND chose (need DeepEP "
            "and NVSHMEM over NVLink or InfiniBand; the flag needs vLLM 0.11.1 or later)");
}

TEST(Rewrite, VllmEnvBackendAndFlagBoth) {
  // The flag is already there: it is set, and the variable still goes.
  expect_rewrite(
      "VLLM_ALL2ALL_BACKEND=deepep_low_latency vllm serve m -dp 8 --enable-expert-parallel "
      "--all2all-backend=deepep_low_latency",
      dp_ep(8, AllToAll::kAllgatherReduceScatter),
      vllm_argv("m", {"-dp", "8", "--enable-expert-parallel",
                      "--all2all-backend=allgather_reducescatter"}),
      {removed("VLLM_ALL2ALL_BACKEND", "deepep_low_latency"),
       {Kind::kChanged, "--all2all-backend", "deepep_low_latency", "allgather_reducescatter"}});
}

TEST(Rewrite, VllmEnvBackendDroppedWithoutEp) {
  auto r = expect_rewrite(
      "VLLM_ALL2ALL_BACKEND=deepep_low_latency vllm serve deepseek-ai/DeepSeek-R1-0528 -dp 8 "
      "--enable-expert-parallel",
      tp(8, ExpertMode::kTpSharded),
      vllm_argv("deepseek-ai/DeepSeek-R1-0528", {"--tensor-parallel-size", "8"}),
      {added("--tensor-parallel-size", "8"), removed("-dp", "8"),
       removed("--enable-expert-parallel"), removed("VLLM_ALL2ALL_BACKEND", "deepep_low_latency")});
  EXPECT_EQ(r.changes[3].why,
            "removed: vLLM 0.16 and later no longer read VLLM_ALL2ALL_BACKEND, and no expert "
            "parallelism in this plan, so no all-to-all");
}

TEST(Rewrite, VllmEnvBackendDroppedForTpOnlyEp) {
  auto r = expect_rewrite(
      "VLLM_ALL2ALL_BACKEND=deepep_low_latency vllm serve m -tp 8 --enable-expert-parallel",
      tp_ep(8, AllToAll::kDeepEp), vllm_argv("m", {"-tp", "8", "--enable-expert-parallel"}),
      {removed("VLLM_ALL2ALL_BACKEND", "deepep_low_latency")});
  EXPECT_EQ(r.changes[0].why,
            "removed: vLLM 0.16 and later no longer read VLLM_ALL2ALL_BACKEND, and with one "
            "data-parallel rank (expert parallelism over the TP ranks) vLLM runs no all-to-all");
}

TEST(Rewrite, VllmExportedBackendIsKeptAndTheFlagAdded) {
  const char* cmd =
      "export VLLM_ALL2ALL_BACKEND=deepep_high_throughput\n"
      "vllm serve $MODEL --enable-expert-parallel --data-parallel-size 8";
  // An exported variable cannot be removed from this command: the flag overrides it (0.11.1 to
  // 0.15) and later releases ignore it. Either DeepEP mode is the plan's DeepEP: the user's stays.
  auto r = rewrite_ok(cmd, dp_ep(8, AllToAll::kDeepEp));
  EXPECT_EQ(changes_of(r),
            (std::vector<Change>{added("--all2all-backend", "deepep_high_throughput")}));
  EXPECT_EQ(r.changes[0].why,
            "DeepEP dispatch/combine kernels, in the mode VLLM_ALL2ALL_BACKEND chose (need DeepEP "
            "and NVSHMEM over NVLink or InfiniBand; the flag needs vLLM 0.11.1 or later); it "
            "overrides the VLLM_ALL2ALL_BACKEND set before this command in vLLM 0.11.1 to 0.15, "
            "and later releases ignore the variable");
  EXPECT_EQ(r.shell(),
            "export VLLM_ALL2ALL_BACKEND=deepep_high_throughput \n vllm serve $MODEL "
            "--enable-expert-parallel --data-parallel-size 8 --all2all-backend "
            "deepep_high_throughput");

  auto pcie = rewrite_ok(cmd, dp_ep(8, AllToAll::kAllgatherReduceScatter));
  EXPECT_EQ(changes_of(pcie),
            (std::vector<Change>{added("--all2all-backend", "allgather_reducescatter")}));
  EXPECT_THAT(pcie.changes[0].why, HasSubstr("runs on any link, PCIe included"));

  // One DP rank: no all-to-all, so the exported variable is left alone and no flag is added.
  expect_rewrite(cmd, tp_ep(8),
                 Argv{"export", "VLLM_ALL2ALL_BACKEND=deepep_high_throughput", "\n", "vllm",
                      "serve", "$MODEL", "--enable-expert-parallel", "--tensor-parallel-size", "8"},
                 {added("--tensor-parallel-size", "8"), removed("--data-parallel-size", "8")});
}

TEST(Rewrite, VllmTpOnlyEpRemovesTheAll2AllBackend) {
  auto r =
      rewrite_ok("vllm serve m -tp 8 --enable-expert-parallel --all2all-backend deepep_low_latency",
                 tp_ep(8, AllToAll::kDeepEp));
  EXPECT_EQ(r.argv, vllm_argv("m", {"-tp", "8", "--enable-expert-parallel"}));
  EXPECT_EQ(changes_of(r),
            (std::vector<Change>{removed("--all2all-backend", "deepep_low_latency")}));
  EXPECT_EQ(r.changes[0].why,
            "removed: with one data-parallel rank (expert parallelism over the TP ranks) vLLM "
            "runs no all-to-all");

  // With prefill context parallelism vLLM's EP does run an all-to-all: the backend stays.
  auto pcp = rewrite_ok(
      "vllm serve m -tp 4 -pcp 2 --enable-expert-parallel --all2all-backend deepep_low_latency",
      tp_ep(4));
  EXPECT_TRUE(pcp.changes.empty());
}

TEST(Rewrite, VllmEqualsAndUnderscoreForms) {
  expect_rewrite(
      "vllm serve Qwen/Qwen3-235B-A22B-FP8 --tensor-parallel-size=8 --enable_expert_parallel "
      "--all2all-backend=deepep_low_latency",
      dp_ep(2, AllToAll::kAllgatherReduceScatter, 4),
      vllm_argv("Qwen/Qwen3-235B-A22B-FP8",
                {"--tensor-parallel-size=4", "--enable_expert_parallel",
                 "--all2all-backend=allgather_reducescatter", "--data-parallel-size", "2"}),
      {changed("--tensor-parallel-size", "8", "4"),
       added("--data-parallel-size", "2"),
       {Kind::kChanged, "--all2all-backend", "deepep_low_latency", "allgather_reducescatter"}});

  auto u = expect_rewrite("vllm serve m --tensor_parallel_size 8 -pp 2", tp(4),
                          vllm_argv("m", {"--tensor_parallel_size", "4"}),
                          {changed("--tensor_parallel_size", "8", "4"), removed("-pp", "2")});
  EXPECT_EQ(u.changes[1].why, "removed: no pipeline stages in this plan");
}

TEST(Rewrite, VllmFollowersOfDpAndEp) {
  // --data-parallel-size-local follows the DP size; EPLB goes with EP (vLLM refuses it alone).
  const char* cmd =
      "vllm serve deepseek-ai/DeepSeek-V3 --data-parallel-size 8 --data-parallel-size-local 8 "
      "--enable-expert-parallel --enable-eplb --eplb-config '{\"window_size\": 1000}'";
  expect_rewrite(
      cmd, dp_ep(4, AllToAll::kAllgatherReduceScatter),
      vllm_argv("deepseek-ai/DeepSeek-V3",
                {"--data-parallel-size", "4", "--data-parallel-size-local", "4",
                 "--enable-expert-parallel", "--enable-eplb", "--eplb-config",
                 "{\"window_size\": 1000}", "--all2all-backend", "allgather_reducescatter"}),
      {changed("--data-parallel-size", "8", "4"),
       added("--all2all-backend", "allgather_reducescatter"),
       changed("--data-parallel-size-local", "8", "4")});

  auto to_tp8 =
      expect_rewrite(cmd, tp(8, ExpertMode::kTpSharded),
                     vllm_argv("deepseek-ai/DeepSeek-V3", {"--tensor-parallel-size", "8"}),
                     {added("--tensor-parallel-size", "8"),
                      removed("--data-parallel-size", "8"),
                      removed("--enable-expert-parallel"),
                      removed("--data-parallel-size-local", "8"),
                      removed("--enable-eplb"),
                      {Kind::kRemoved, "--eplb-config", "{\"window_size\": 1000}", ""}});
}

TEST(Rewrite, VllmNegatedSwitchAndApiServerModule) {
  auto r = expect_rewrite(
      "python3 -m vllm.entrypoints.openai.api_server --model m -tp 8 --no-enable-expert-parallel",
      tp_ep(8),
      Argv{"python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "m", "-tp", "8",
           "--enable-expert-parallel"},
      {removed("--no-enable-expert-parallel"), added("--enable-expert-parallel")});
  EXPECT_EQ(r.engine, Engine::kVllm);
}

TEST(Rewrite, SglangDpAttentionDeepEpToTp8EpOnPcie) {
  const char* cmd =
      "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dp 8 "
      "--enable-dp-attention --moe-a2a-backend deepep --port 30000";
  auto r = expect_rewrite(
      cmd, tp_ep(8),
      sglang_argv("deepseek-ai/DeepSeek-V3",
                  {"--tp", "8", "--moe-a2a-backend", "none", "--port", "30000", "--ep-size", "8"}),
      {removed("--dp", "8"), removed("--enable-dp-attention"), added("--ep-size", "8"),
       changed("--moe-a2a-backend", "deepep", "none")});
  EXPECT_EQ(r.engine, Engine::kSglang);
  EXPECT_EQ(r.changes[0].why, "removed: no data parallelism in this plan: one engine over 8 GPUs");
  EXPECT_EQ(r.changes[1].why, "removed: attention is tensor-parallel in this plan");

  // The same command for the plan it already says: nothing to change but the EP size.
  auto same = rewrite_ok(cmd, dp_ep(8, AllToAll::kDeepEp));
  EXPECT_EQ(changes_of(same), (std::vector<Change>{added("--ep-size", "8")}));

  // Experts split over TP: no EP, no all-to-all.
  expect_rewrite(cmd, tp(8, ExpertMode::kTpSharded),
                 sglang_argv("deepseek-ai/DeepSeek-V3", {"--tp", "8", "--port", "30000"}),
                 {removed("--dp", "8"), removed("--enable-dp-attention"),
                  removed("--moe-a2a-backend", "deepep")});
}

TEST(Rewrite, SglangTpSizeIsTheWholeGroup) {
  // --tp 8 --dp 8 with DP attention is 8 GPUs; a 4-rank DP-attention plan with attention TP 1
  // says --tp-size 4.
  expect_rewrite(
      "sglang serve --model-path deepseek-ai/DeepSeek-V2-Lite --tp-size=8 --dp-size=8 "
      "--enable-dp-attention --ep 8 --trust-remote-code",
      dp_ep(4, AllToAll::kAllgatherReduceScatter),
      Argv{"sglang", "serve", "--model-path", "deepseek-ai/DeepSeek-V2-Lite", "--tp-size=4",
           "--dp-size=4", "--enable-dp-attention", "--ep", "4", "--trust-remote-code"},
      {changed("--tp-size", "8", "4"), changed("--dp-size", "8", "4"), changed("--ep", "8", "4")});
}

TEST(Rewrite, SglangOldSpellings) {
  auto r = expect_rewrite(
      "python -m sglang.launch_server --model-path m --tp 8 --enable-ep-moe --enable-deepep-moe",
      tp_ep(8),
      Argv{"python", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "8", "--ep-size",
           "8"},
      {removed("--enable-ep-moe"), added("--ep-size", "8"), removed("--enable-deepep-moe")});
  EXPECT_THAT(r.changes[2].why, HasSubstr("DeepEP is not used in this plan"));
}

TEST(Rewrite, TrtllmEpToTpSharded) {
  auto r = expect_rewrite(
      "trtllm-serve deepseek-ai/DeepSeek-R1 --host localhost --port 8000 --tp_size 8 --ep_size 8 "
      "--trust_remote_code",
      tp(8, ExpertMode::kTpSharded),
      trtllm_argv("deepseek-ai/DeepSeek-R1", {"--host", "localhost", "--port", "8000", "--tp_size",
                                              "8", "--ep_size", "1", "--trust_remote_code"}),
      {changed("--ep_size", "8", "1")});
  EXPECT_EQ(r.engine, Engine::kTrtllm);
}

TEST(Rewrite, TrtllmAttentionDp) {
  auto r = expect_rewrite(
      "trtllm-serve deepseek-ai/DeepSeek-R1 --tp_size=8 --ep_size=8", dp_ep(8, AllToAll::kDeepEp),
      trtllm_argv(
          "deepseek-ai/DeepSeek-R1",
          {"--tp_size=8", "--ep_size=8", "--extra_llm_api_options", "extra-llm-api-options.yaml"}),
      {{Kind::kAdded, "--extra_llm_api_options", "", "extra-llm-api-options.yaml"}});
  EXPECT_THAT(r.changes[0].why, HasSubstr("enable_attention_dp: true"));

  // The options file is the user's: the rewrite says what it must hold.
  auto with_file = expect_rewrite(
      "trtllm-serve deepseek-ai/DeepSeek-R1 --tp_size 8 --ep_size 8 --pp_size 1 --config "
      "./config.yml --reasoning_parser deepseek-r1",
      tp(8, ExpertMode::kTpSharded),
      trtllm_argv("deepseek-ai/DeepSeek-R1", {"--tp_size", "8", "--ep_size", "1", "--config",
                                              "./config.yml", "--reasoning_parser", "deepseek-r1"}),
      {removed("--pp_size", "1"), changed("--ep_size", "8", "1"),
       changed("--config", "./config.yml", "./config.yml")});
  EXPECT_THAT(with_file.changes[2].why, HasSubstr("enable_attention_dp must be false or absent"));
}

TEST(Rewrite, VllmDpPlacementFlagsGoWithDp) {
  // A hybrid-LB launch (vLLM's data_parallel_deployment page) rewritten to one TP engine: every
  // flag that places DP ranks goes with the DP size.
  auto r = expect_rewrite(
      "vllm serve m --data-parallel-size 16 --data-parallel-size-local 8 "
      "--data-parallel-start-rank 8 --data-parallel-address 10.99.48.128 "
      "--data-parallel-rpc-port 13345 --data-parallel-hybrid-lb --enable-expert-parallel",
      tp(8, ExpertMode::kTpSharded), vllm_argv("m", {"--tensor-parallel-size", "8"}),
      {added("--tensor-parallel-size", "8"), removed("--data-parallel-size", "16"),
       removed("--enable-expert-parallel"), removed("--data-parallel-size-local", "8"),
       removed("--data-parallel-start-rank", "8"),
       removed("--data-parallel-address", "10.99.48.128"),
       removed("--data-parallel-rpc-port", "13345"), removed("--data-parallel-hybrid-lb")});
  EXPECT_EQ(r.changes[4].why, "removed: it places data-parallel ranks, and this command has none");

  // The short forms and the external-LB switches (an external-LB rank per process).
  expect_rewrite(
      "vllm serve m -dp 2 -dpn 1 -dpa 127.0.0.1 -dpp 13345 -dpe -dpm -dph -dpr 1 "
      "--data_parallel_rank=1",
      tp(2), vllm_argv("m", {"--tensor-parallel-size", "2"}),
      {added("--tensor-parallel-size", "2"), removed("-dp", "2"), removed("-dpn", "1"),
       removed("-dpa", "127.0.0.1"), removed("-dpp", "13345"), removed("-dpe"), removed("-dpm"),
       removed("-dph"), removed("-dpr", "1"), removed("--data_parallel_rank", "1")});
}

TEST(Rewrite, VllmDpLocalOnOneMachineFollowsTheDpSize) {
  // --nnodes 1 is one machine: -dpl is set to the DP size.
  auto r = expect_rewrite(
      "vllm serve m -dp 8 -dpl 8 --nnodes 1 --enable-expert-parallel",
      dp_ep(4, AllToAll::kAllgatherReduceScatter),
      vllm_argv("m", {"-dp", "4", "-dpl", "4", "--nnodes", "1", "--enable-expert-parallel",
                      "--all2all-backend", "allgather_reducescatter"}),
      {changed("-dp", "8", "4"), added("--all2all-backend", "allgather_reducescatter"),
       changed("-dpl", "8", "4")});
  EXPECT_EQ(r.changes[2].why, "all 4 data-parallel ranks on this machine");
}

TEST(Rewrite, VllmMultiNodeDpSplitIsLeftToTheUser) {
  // The head node of a 2-node DP launch: the per-node split is not this command's to decide.
  const char* head =
      "vllm serve m --data-parallel-size 16 --data-parallel-size-local 8 "
      "--data-parallel-address 10.99.48.128 --data-parallel-rpc-port 13345 "
      "--enable-expert-parallel --all2all-backend deepep_low_latency";
  auto r = expect_rewrite(
      head, dp_ep(8, AllToAll::kDeepEp),
      vllm_argv("m",
                {"--data-parallel-size", "8", "--data-parallel-size-local", "8",
                 "--data-parallel-address", "10.99.48.128", "--data-parallel-rpc-port", "13345",
                 "--enable-expert-parallel", "--all2all-backend", "deepep_low_latency"}),
      {changed("--data-parallel-size", "16", "8"),
       changed("--data-parallel-size-local", "8", "8")});
  EXPECT_EQ(r.changes[1].why,
            "check by hand: this command is one part of a launch over several nodes or processes "
            "(--data-parallel-address, --data-parallel-rpc-port), so its share of the "
            "data-parallel ranks is left as written; the plan has 8 data-parallel ranks of 1 GPU "
            "each, to be shared out with each node's --data-parallel-size-local and "
            "--data-parallel-start-rank");

  // The same layout: nothing to check.
  auto same = rewrite_ok(head, dp_ep(16, AllToAll::kDeepEp));
  EXPECT_TRUE(same.changes.empty());

  // A headless worker without -dpl: the note goes on the first multi-node flag.
  auto worker = expect_rewrite(
      "vllm serve m --headless -dp 16 -dpr 8 -dpa 10.99.48.128 --nnodes 2 -ep",
      dp_ep(8, AllToAll::kAllgatherReduceScatter),
      vllm_argv("m", {"--headless", "-dp", "8", "-dpr", "8", "-dpa", "10.99.48.128", "--nnodes",
                      "2", "-ep", "--all2all-backend", "allgather_reducescatter"}),
      {changed("-dp", "16", "8"), added("--all2all-backend", "allgather_reducescatter"),
       changed("--headless", "", "")});
  EXPECT_THAT(worker.changes[2].why,
              HasSubstr("(--headless, -dpr, -dpa, --nnodes), so its share of the data-parallel "
                        "ranks is left as written"));
}

TEST(Rewrite, VllmDecodeContextParallelMustDivideTp) {
  auto r = expect_rewrite("vllm serve m -tp 8 -dcp 8", tp(4), vllm_argv("m", {"-tp", "4"}),
                          {changed("-tp", "8", "4"), removed("-dcp", "8")});
  EXPECT_EQ(r.changes[1].why,
            "removed: vLLM refuses a TP size (4) that the decode-context-parallel size (8) does "
            "not divide, as DCP runs on the TP ranks; the plan costs no context parallelism");

  // Every spelling goes, so an earlier one does not take over.
  expect_rewrite(
      "vllm serve m -tp 8 --decode-context-parallel-size 2 -dcp=8",
      dp_ep(2, AllToAll::kAllgatherReduceScatter, 4),
      vllm_argv("m", {"-tp", "4", "--data-parallel-size", "2", "--enable-expert-parallel",
                      "--all2all-backend", "allgather_reducescatter"}),
      {changed("-tp", "8", "4"), added("--data-parallel-size", "2"),
       added("--enable-expert-parallel"), added("--all2all-backend", "allgather_reducescatter"),
       removed("--decode-context-parallel-size", "2"), removed("-dcp", "8")});

  // A divisor of the new TP size stays; so does one whose rule depends on PCP.
  EXPECT_TRUE(rewrite_ok("vllm serve m -tp 8 -dcp 2", tp(4)).changes.size() == 1u);
  EXPECT_EQ(rewrite_ok("vllm serve m -tp 8 -pcp 2 -dcp 8", tp(4)).argv,
            vllm_argv("m", {"-tp", "4", "-pcp", "2", "-dcp", "8"}));
}

TEST(Rewrite, SglangLmHeadSwitchesFollowDpAttention) {
  const char* cmd =
      "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dp 8 "
      "--enable-dp-attention --enable-dp-lm-head --enable-tp-lm-head-all-to-all "
      "--moe-a2a-backend deepep";
  auto r =
      expect_rewrite(cmd, tp_ep(8),
                     sglang_argv("deepseek-ai/DeepSeek-V3",
                                 {"--tp", "8", "--moe-a2a-backend", "none", "--ep-size", "8"}),
                     {removed("--dp", "8"), removed("--enable-dp-attention"),
                      added("--ep-size", "8"), changed("--moe-a2a-backend", "deepep", "none"),
                      removed("--enable-dp-lm-head"), removed("--enable-tp-lm-head-all-to-all")});
  // SGLang's words for each switch it refuses without DP attention.
  for (auto [i, setting] : {std::pair<size_t, const char*>{4, "enable_dp_lm_head"},
                            {5, "enable_tp_lm_head_all_to_all"}})
    EXPECT_EQ(r.changes[i].why,
              std::string("removed: SGLang refuses it without DP attention (\"Please enable dp "
                          "attention when setting ") +
                  setting + "\"), which this plan does not use");

  // The plan it already says: both stay.
  EXPECT_EQ(changes_of(rewrite_ok(cmd, dp_ep(8, AllToAll::kDeepEp))),
            (std::vector<Change>{added("--ep-size", "8")}));

  // DP attention with 2-GPU attention ranks: --tp-size 4 != --dp-size 2, which the TP LM-head
  // all-to-all refuses; the DP LM head stays.
  auto tp2 = rewrite_ok(cmd, dp_ep(2, AllToAll::kDeepEp, 2));
  EXPECT_EQ(tp2.argv,
            sglang_argv("deepseek-ai/DeepSeek-V3",
                        {"--tp", "4", "--dp", "2", "--enable-dp-attention", "--enable-dp-lm-head",
                         "--moe-a2a-backend", "deepep", "--ep-size", "4"}));
  ASSERT_EQ(tp2.changes.size(), 4u);
  EXPECT_EQ(changes_of(tp2).back(), removed("--enable-tp-lm-head-all-to-all"));
  EXPECT_EQ(tp2.changes.back().why,
            "removed: SGLang allows it only with --tp-size equal to --dp-size (one GPU per "
            "attention rank); this plan's attention ranks have 2 GPUs");

  // Replicas keep --dp-size but not DP attention: SGLang would assert on the DP LM head.
  PlanShape replicas = tp(1);
  replicas.dp = 8;
  expect_rewrite(
      "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --dp 8 --enable-dp-attention "
      "--enable-dp-lm-head",
      replicas,
      Argv{"python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--dp", "8"},
      {removed("--enable-dp-attention"), removed("--enable-dp-lm-head")});
}

TEST(Rewrite, TrtllmLongAliases) {
  expect_rewrite(
      "trtllm-serve deepseek-ai/DeepSeek-R1 --tensor_parallel_size 8 --pipeline_parallel_size 2 "
      "--moe_expert_parallel_size=8",
      tp(4, ExpertMode::kTpSharded),
      trtllm_argv("deepseek-ai/DeepSeek-R1",
                  {"--tensor_parallel_size", "4", "--moe_expert_parallel_size=1"}),
      {changed("--tensor_parallel_size", "8", "4"), removed("--pipeline_parallel_size", "2"),
       changed("--moe_expert_parallel_size", "8", "1")});

  // A long and a short spelling of one option: the last is the one click keeps.
  expect_rewrite(
      "python3 -m tensorrt_llm.commands.serve m --tp_size 2 --tensor_parallel_size 8", tp(4),
      Argv{"python3", "-m", "tensorrt_llm.commands.serve", "m", "--tensor_parallel_size", "4"},
      {removed("--tp_size", "2"), changed("--tensor_parallel_size", "8", "4")});
}

TEST(Rewrite, TrtllmOptionsFileOverridesTheFlags) {
  auto r = rewrite_ok(
      "trtllm-serve serve deepseek-ai/DeepSeek-R1 --tp_size 8 --ep_size 8 "
      "--extra_llm_api_options opts.yaml",
      dp_ep(8, AllToAll::kDeepEp));
  EXPECT_EQ(changes_of(r),
            (std::vector<Change>{changed("--extra_llm_api_options", "opts.yaml", "opts.yaml")}));
  EXPECT_EQ(r.changes[0].why,
            "edit this file: set enable_attention_dp: true (attention data-parallel; trtllm-serve "
            "reads it only from the YAML); the file overrides the command line, so check that it "
            "does not set tensor_parallel_size, pipeline_parallel_size, moe_expert_parallel_size, "
            "max_batch_size or max_seq_len to other values than the flags here");
}

TEST(Rewrite, TrtllmOtherSubcommandsAreRefused) {
  for (const char* cmd : {"trtllm-serve disaggregated -c disagg_config.yaml",
                          "trtllm-serve disaggregated_mpi_worker -c disagg_config.yaml",
                          "trtllm-serve grpc deepseek-ai/DeepSeek-R1 --tp_size 8",
                          "trtllm-serve mm_embedding_serve Qwen/Qwen2.5-VL-7B-Instruct",
                          "python3 -m tensorrt_llm.commands.serve grpc m --tp_size 8"}) {
    auto r = rewrite_command(cmd, tp(4), kWorkload);
    ASSERT_FALSE(r.ok()) << cmd;
    EXPECT_THAT(r.error().what, HasSubstr("subcommand is not rewritten")) << cmd;
    EXPECT_THAT(r.error().what, HasSubstr("recognised: `vllm serve`")) << cmd;
  }
  auto grpc = rewrite_command("trtllm-serve grpc m --tp_size 8", tp(4), kWorkload);
  ASSERT_FALSE(grpc.ok());
  EXPECT_THAT(grpc.error().what,
              ::testing::StartsWith(
                  "TensorRT-LLM's `grpc` subcommand is not rewritten: only `trtllm-serve [serve] "
                  "MODEL ...` is (disaggregated, disaggregated_mpi_worker, grpc and "
                  "mm_embedding_serve are other servers, configured otherwise); recognised: "));

  // `serve`, named or not, is rewritten.
  EXPECT_EQ(rewrite_ok("trtllm-serve serve m --tp_size 8", tp(4)).argv,
            trtllm_argv("serve", {"m", "--tp_size", "4"}));
  EXPECT_EQ(rewrite_ok("trtllm-serve m --tp_size 8", tp(4)).argv,
            trtllm_argv("m", {"--tp_size", "4"}));
}

TEST(Rewrite, PythonOptionsBeforeTheModule) {
  auto u = rewrite_ok("python -u -m vllm.entrypoints.openai.api_server --model m -tp 8", tp(4));
  EXPECT_EQ(u.engine, Engine::kVllm);
  EXPECT_EQ(u.argv, (Argv{"python", "-u", "-m", "vllm.entrypoints.openai.api_server", "--model",
                          "m", "-tp", "4"}));

  auto x = expect_rewrite(
      "python3 -X dev -W ignore -OO -m sglang.launch_server --model-path m --tp 8", tp(4),
      Argv{"python3", "-X", "dev", "-W", "ignore", "-OO", "-m", "sglang.launch_server",
           "--model-path", "m", "--tp", "4"},
      {changed("--tp", "8", "4")});

  EXPECT_EQ(x.engine, Engine::kSglang);

  // Combined short options and an attached module name.
  auto um = rewrite_ok("python3.12 -Xdev -um sglang.launch_server --model-path m --tp 8", tp(4));
  EXPECT_EQ(um.engine, Engine::kSglang);
  EXPECT_EQ(um.argv.back(), "4");
  auto attached = rewrite_ok("python3 -mtensorrt_llm.commands.serve m --tp_size 8", tp(4));
  EXPECT_EQ(attached.engine, Engine::kTrtllm);
  EXPECT_EQ(attached.argv,
            (Argv{"python3", "-mtensorrt_llm.commands.serve", "m", "--tp_size", "4"}));

  // A script or -c is not a module run: no engine.
  for (const char* cmd : {"python serve.py -m vllm.entrypoints.openai.api_server --model m",
                          "python -c 'import vllm' -m vllm.entrypoints.openai.api_server"}) {
    auto r = rewrite_command(cmd, tp(4), kWorkload);
    ASSERT_FALSE(r.ok()) << cmd;
    EXPECT_THAT(r.error().what, HasSubstr("no serving engine recognised")) << cmd;
  }
}

TEST(Rewrite, KeepsWordsAsWritten) {
  // Quotes, variables, redirections and pipes survive; added flags go before the redirection.
  auto r = rewrite_ok(
      "CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve \"$MODEL_DIR\"/ckpt --served-model-name 'my "
      "model' \\\n  --tensor-parallel-size 8 --override-generation-config '{\"temperature\": "
      "0.6}' 2>&1 | tee vllm.log",
      tp_ep(4));
  EXPECT_EQ(r.shell(),
            "CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve \"$MODEL_DIR\"/ckpt --served-model-name 'my "
            "model' --tensor-parallel-size 4 --override-generation-config '{\"temperature\": 0.6}' "
            "--enable-expert-parallel 2>& 1 | tee vllm.log");
  EXPECT_EQ(r.argv[3], "$MODEL_DIR/ckpt");
  EXPECT_EQ(r.argv[5], "my model");
  EXPECT_EQ(changes_of(r), (std::vector<Change>{changed("--tensor-parallel-size", "8", "4"),
                                                added("--enable-expert-parallel")}));
  // The rewritten text reads back as the rewritten argv.
  auto words = split_shell_words(r.shell());
  ASSERT_TRUE(words.ok());
  EXPECT_EQ(*words, r.argv);
}

TEST(Rewrite, TrailingBackslashStaysOneWord) {
  // Regression (found by a random-input loop): a backslash ending the text is a word of its own;
  // flags added after it must not be escaped into it.
  auto r = rewrite_ok("vllm serve m \\", tp(4));
  EXPECT_EQ(r.argv, vllm_argv("m", {"\\", "--tensor-parallel-size", "4"}));
  auto words = split_shell_words(r.shell());
  ASSERT_TRUE(words.ok());
  EXPECT_EQ(*words, r.argv);
}

TEST(Rewrite, DuplicateFlagsKeepTheLast) {
  expect_rewrite("vllm serve m -tp 2 --tensor-parallel-size 8", tp(4),
                 vllm_argv("m", {"--tensor-parallel-size", "4"}),
                 {removed("-tp", "2"), changed("--tensor-parallel-size", "8", "4")});
}

TEST(Rewrite, NothingToChange) {
  auto r = rewrite_ok("vllm serve m --tensor-parallel-size 4 --port 8001", tp(4));
  EXPECT_TRUE(r.changes.empty());
  EXPECT_EQ(r.shell(), "vllm serve m --tensor-parallel-size 4 --port 8001");
}

TEST(Rewrite, Errors) {
  auto quote = rewrite_command("vllm serve 'deepseek-ai/DeepSeek-V3 -tp 8", tp(8), kWorkload);
  ASSERT_FALSE(quote.ok());
  EXPECT_EQ(quote.error().what, "unbalanced single quote (opened at offset 11)");

  auto unknown = rewrite_command("llama-server -m model.gguf -ngl 99", tp(1), kWorkload);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.error().what, HasSubstr("no serving engine recognised"));
  EXPECT_THAT(unknown.error().what, HasSubstr("`vllm serve`"));
  EXPECT_THAT(unknown.error().what, HasSubstr("`python -m sglang.launch_server`"));
  EXPECT_THAT(unknown.error().what, HasSubstr("`trtllm-serve`"));

  for (const char* empty : {"", "   \n\t", "# only a comment\n"}) {
    auto r = rewrite_command(empty, tp(1), kWorkload);
    ASSERT_FALSE(r.ok()) << empty;
    EXPECT_THAT(r.error().what, HasSubstr("empty command"));
  }
}

// The rewrite of engine_command's own output for another shape says exactly that shape's flags.
TEST(Rewrite, OfAnEngineCommandGivesTheOtherPlansParallelism) {
  std::vector<PlanShape> shapes = {tp(4),
                                   tp(8, ExpertMode::kTpSharded),
                                   tp_ep(8),
                                   tp_ep(8, AllToAll::kDeepEp),
                                   dp_ep(8, AllToAll::kDeepEp),
                                   dp_ep(4, AllToAll::kAllgatherReduceScatter),
                                   pp_tp(2, 4)};
  for (Engine e : {Engine::kVllm, Engine::kSglang, Engine::kTrtllm})
    for (const auto& from : shapes)
      for (const auto& to : shapes) {
        auto original = engine_command(e, "m", from, kWorkload);
        auto target = engine_command(e, "m", to, kWorkload);
        auto r = rewrite_command(original.shell(), to, kWorkload);
        ASSERT_TRUE(r.ok());
        // Every flag of the target is in the rewrite with the target's value (sequence limits
        // stay the original's).
        for (const auto& f : target.flags) {
          if (f.name.find("max") != std::string::npos || f.name == "--context-length") continue;
          auto it = std::find(r->argv.begin(), r->argv.end(), f.name);
          ASSERT_NE(it, r->argv.end())
              << to_string(e) << " " << original.shell() << " -> " << f.name;
          if (!f.value.empty()) {
            ASSERT_NE(it + 1, r->argv.end());
            EXPECT_EQ(*(it + 1), f.value) << to_string(e) << " " << original.shell();
          }
        }
        // Rewriting to the shape it already says changes nothing (TensorRT-LLM's options file
        // only gets its reminder: the rewrite cannot read it).
        if (&from == &to) {
          for (const auto& c : r->changes)
            EXPECT_EQ(c.flag, "--extra_llm_api_options") << original.shell();
        }
      }
}

}  // namespace
}  // namespace smcompat::plan
