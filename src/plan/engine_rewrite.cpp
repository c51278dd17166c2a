// The rewrite of an existing engine command line (engine.hpp: rewrite_command): the flags the
// plan asks for (engine.cpp) set in place in the command read by engine_args.cpp, every other word
// kept as written, each change explained.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine_internal.hpp"
#include "smcompat/plan/engine.hpp"
#include "smcompat/util/result.hpp"
#include "smcompat/util/shell.hpp"

namespace smcompat::plan {

using detail::all_digits;
using detail::Desired;
using detail::desired_for;
using detail::EnvAssignment;
using detail::find_a2a_env;
using detail::find_engine;
using detail::join;
using detail::kRecognised;
using detail::kVllmA2aEnv;
using detail::Layout;
using detail::layout_of;
using detail::Occurrence;
using detail::Param;
using detail::parse_args;
using detail::Parsed;
using detail::plural;
using detail::Spelling;
using detail::Token;
using detail::tokenize;

namespace {

// ---------------------------------------------------------------------------------------------
// Editing the token list.

struct Editor {
  std::vector<Token> tokens;
  std::vector<bool> removed;
  std::vector<Token> added;  // inserted at `insert_at`
  size_t insert_at = 0;

  void set(size_t i, std::string value) {
    tokens[i].raw = shell_quote(value);
    tokens[i].value = std::move(value);
  }
  void remove(size_t i) { removed[i] = true; }
  void add(std::string value) {
    Token t;
    t.raw = shell_quote(value);
    t.value = std::move(value);
    added.push_back(std::move(t));
  }
  Rewrite result(Engine e) const {
    Rewrite r;
    r.engine = e;
    auto put = [&](const Token& t) {
      r.argv.push_back(t.value);
      r.shell_words.push_back(t.raw);
    };
    for (size_t i = 0; i <= tokens.size(); ++i) {
      if (i == insert_at)
        for (const Token& t : added) put(t);
      if (i < tokens.size() && !removed[i]) put(tokens[i]);
    }
    return r;
  }
};

FlagChange change(FlagChange::Kind kind, std::string flag, std::string old_value,
                  std::string new_value, std::string why) {
  return FlagChange{kind, std::move(flag), std::move(old_value), std::move(new_value),
                    std::move(why)};
}

// Removes one occurrence (flag word and its value word).
void remove_occurrence(Editor& ed, const Occurrence& o) {
  ed.remove(o.flag_index);
  if (o.value_index) ed.remove(*o.value_index);
}

// Sets an occurrence's value, in the spelling it was written in.
void set_occurrence(Editor& ed, const Occurrence& o, const std::string& value) {
  if (o.inline_value)
    ed.set(o.flag_index, o.written + "=" + value);
  else if (o.value_index)
    ed.set(*o.value_index, value);
}

bool same_backend(Param p, const std::string& have, const std::string& want) {
  if (have == want) return true;
  // Either DeepEP mode says the plan's DeepEP: keep the one the user chose.
  return p == Param::kA2a && have.starts_with("deepep") && want.starts_with("deepep");
}

void apply(Editor& ed, const Parsed& parsed, const Desired& want, std::vector<FlagChange>& out) {
  std::vector<const Occurrence*> normal;
  std::vector<const Occurrence*> other;  // negated or old spellings of the same setting
  for (const Occurrence& o : parsed.found) {
    if (o.spec->param != want.param) continue;
    (o.spec->spelling == Spelling::kNormal ? normal : other).push_back(&o);
  }
  for (const Occurrence* o : other) {
    std::string why;
    switch (o->spec->spelling) {
      case Spelling::kNoEp:
        if (!want.present) continue;  // already says what the plan wants
        why = "removed: expert parallelism is on in this plan (--enable-expert-parallel)";
        break;
      case Spelling::kLegacyEpMoe:
        why = want.present ? "removed: old SGLang spelling of --ep-size, which replaces it"
                           : want.why;
        break;
      case Spelling::kLegacyDeepEpMoe:
        why = want.present ? "removed: old SGLang spelling of --moe-a2a-backend deepep, which "
                             "replaces it"
                           : want.why;
        if (!want.present && !want.default_value.empty())
          why = "removed: DeepEP is not used in this plan: " + want.why;
        break;
      case Spelling::kNormal:
        break;
    }
    remove_occurrence(ed, *o);
    out.push_back(change(FlagChange::Kind::kRemoved, o->written, o->value, "", why));
  }
  if (!want.present) {
    for (const Occurrence* o : normal) {
      if (!want.default_value.empty()) {
        if (o->value == want.default_value) continue;
        set_occurrence(ed, *o, want.default_value);
        out.push_back(
            change(FlagChange::Kind::kChanged, o->written, o->value, want.default_value, want.why));
        continue;
      }
      remove_occurrence(ed, *o);
      out.push_back(change(FlagChange::Kind::kRemoved, o->written, o->value, "", want.why));
    }
    return;
  }
  if (normal.empty()) {
    // A size of 1 is every engine's default for TP, PP and DP: nothing to add.
    bool size = want.param == Param::kTp || want.param == Param::kPp || want.param == Param::kDp;
    if (size && want.value == "1") return;
    ed.add(want.name);
    if (!want.value.empty()) ed.add(want.value);
    out.push_back(change(FlagChange::Kind::kAdded, want.name, "", want.value, want.why));
    return;
  }
  // The last occurrence is the one the engine's parser keeps: set it, drop the earlier ones.
  for (size_t k = 0; k + 1 < normal.size(); ++k) {
    remove_occurrence(ed, *normal[k]);
    out.push_back(change(FlagChange::Kind::kRemoved, normal[k]->written, normal[k]->value, "",
                         "removed: given again later in the command"));
  }
  const Occurrence& last = *normal.back();
  if (want.value.empty() || same_backend(want.param, last.value, want.value)) return;
  if (!last.inline_value && !last.value_index) {  // a flag missing its value: write it anew
    ed.remove(last.flag_index);
    ed.add(want.name);
    ed.add(want.value);
    out.push_back(change(FlagChange::Kind::kAdded, want.name, "", want.value, want.why));
    return;
  }
  set_occurrence(ed, last, want.value);
  out.push_back(change(FlagChange::Kind::kChanged, last.written, last.value, want.value, want.why));
}

}  // namespace

std::string Rewrite::shell() const { return join(shell_words); }

Result<Rewrite> rewrite_command(std::string_view original, const PlanShape& shape,
                                const Workload& workload) {
  SMCOMPAT_TRY(std::vector<Token> tokens, tokenize(original));
  bool any_word = std::any_of(tokens.begin(), tokens.end(), [](const Token& t) { return !t.op; });
  if (!any_word) return make_error("empty command: nothing to rewrite");
  auto found = find_engine(tokens);
  if (!found)
    return make_error(
        fmt::format("no serving engine recognised in the command; recognised: {}", kRecognised));
  if (!found->other_subcommand.empty())
    return make_error(fmt::format(
        "TensorRT-LLM's `{}` subcommand is not rewritten: only `trtllm-serve [serve] MODEL ...` "
        "is (disaggregated, disaggregated_mpi_worker, grpc and mm_embedding_serve are other "
        "servers, configured otherwise); recognised: {}",
        found->other_subcommand, kRecognised));
  Engine engine = found->engine;
  Parsed parsed = parse_args(engine, tokens, found->args_begin);
  Layout l = layout_of(shape);

  Editor ed;
  ed.tokens = tokens;
  ed.removed.assign(tokens.size(), false);
  ed.insert_at = parsed.insert_at;
  std::vector<FlagChange> changes;

  auto last_of = [&](Param p) -> const Occurrence* {
    const Occurrence* last = nullptr;
    for (const Occurrence& o : parsed.found)
      if (o.spec->param == p) last = &o;
    return last;
  };

  // vLLM's older spelling of the all-to-all backend: an environment assignment before the command.
  std::optional<EnvAssignment> env;
  bool a2a_flag = false;
  bool pcp = false;  // vLLM prefill context parallelism (> 1) in the command
  if (engine == Engine::kVllm) {
    // The engine word is the one before `serve` / the module name: search the words before it.
    env = find_a2a_env(tokens, found->engine_word);
    a2a_flag = last_of(Param::kA2a) != nullptr;
    const Occurrence* p = last_of(Param::kPcp);
    pcp = p && !p->value.empty() && p->value != "1";
  }

  std::vector<Desired> wanted = desired_for(engine, l, workload);
  bool layout_changed = false;  // the TP, PP or DP size changed
  for (const Desired& want : wanted) {
    if (want.param == Param::kMaxLen || want.param == Param::kMaxSeqs) continue;
    if (want.param == Param::kA2a && engine == Engine::kVllm) {
      // Expert parallelism with prefill context parallelism runs an all-to-all without data
      // parallelism (ParallelConfig.use_all2all): a backend the user gave for it stays.
      if (!want.present && l.ep && pcp) continue;
      if (env) {
        std::string var(kVllmA2aEnv);
        if (env->prefix) {
          ed.remove(env->index);
          std::string why =
              "removed: vLLM 0.16 and later no longer read VLLM_ALL2ALL_BACKEND; "
              "--all2all-backend (vLLM 0.11.1 and later) says the backend instead";
          if (!want.present) {
            std::string_view reason = want.why;
            if (reason.starts_with("removed: ")) reason.remove_prefix(9);
            why = fmt::format(
                "removed: vLLM 0.16 and later no longer read VLLM_ALL2ALL_BACKEND, and {}", reason);
          }
          changes.push_back(change(FlagChange::Kind::kRemoved, var, env->value, "", why));
        }
        if (want.present && !a2a_flag) {
          // The flag says the backend; either DeepEP mode says the plan's DeepEP, so the user's
          // stays.
          bool keep = same_backend(Param::kA2a, env->value, want.value);
          std::string value = keep ? env->value : want.value;
          std::string why = want.why;
          if (keep && value != want.value)
            why =
                "DeepEP dispatch/combine kernels, in the mode VLLM_ALL2ALL_BACKEND chose (need "
                "DeepEP and NVSHMEM over NVLink or InfiniBand; the flag needs vLLM 0.11.1 or "
                "later)";
          if (!env->prefix)
            why +=
                "; it overrides the VLLM_ALL2ALL_BACKEND set before this command in vLLM 0.11.1 "
                "to 0.15, and later releases ignore the variable";
          ed.add(want.name);
          ed.add(value);
          changes.push_back(change(FlagChange::Kind::kAdded, want.name, "", value, why));
          continue;
        }
      }
    }
    if (want.param == Param::kOptionsFile) {
      // The file is the user's: it cannot be edited from here, so say what it must hold.
      auto it = std::find_if(parsed.found.begin(), parsed.found.end(), [](const Occurrence& o) {
        return o.spec->param == Param::kOptionsFile;
      });
      if (it != parsed.found.end()) {
        // The YAML overrides the command line (serve.py: update_llm_args_with_extra_dict).
        constexpr std::string_view kOverrides =
            "; the file overrides the command line, so check that it does not set "
            "tensor_parallel_size, pipeline_parallel_size, moe_expert_parallel_size, "
            "max_batch_size or max_seq_len to other values than the flags here";
        changes.push_back(change(
            FlagChange::Kind::kChanged, it->written, it->value, it->value,
            fmt::format("{}{}",
                        want.present ? "edit this file: set enable_attention_dp: true (attention "
                                       "data-parallel; trtllm-serve reads it only from the YAML)"
                                     : "check this file: enable_attention_dp must be false or "
                                       "absent (attention is tensor-parallel in this plan)",
                        kOverrides)));
        continue;
      }
      if (!want.present) continue;
      ed.add(want.name);
      ed.add(want.value);
      changes.push_back(change(FlagChange::Kind::kAdded, want.name, "", want.value,
                               want.why + " (write that file: one line, "
                                          "`enable_attention_dp: true`)"));
      continue;
    }
    size_t before = changes.size();
    apply(ed, parsed, want, changes);
    bool size = want.param == Param::kTp || want.param == Param::kPp || want.param == Param::kDp;
    if (size && changes.size() != before) layout_changed = true;
  }

  if (engine == Engine::kVllm) {
    // vLLM settings that follow the ones above.
    const Desired* dp = nullptr;
    bool ep = false;
    for (const Desired& want : wanted) {
      if (want.param == Param::kDp) dp = &want;
      if (want.param == Param::kEp) ep = want.present;
    }
    bool dp_present = dp && dp->present;
    // Flags that make this command one part of a launch over several nodes (or one process per
    // DP rank): the per-node split is the user's to set there.
    std::vector<std::string> markers;
    const Occurrence* first_marker = nullptr;
    for (const Occurrence& o : parsed.found) {
      bool marker = o.spec->param == Param::kDpPlacement ||
                    (o.spec->param == Param::kNodes && (!o.spec->takes_value || o.value != "1"));
      if (!marker) continue;
      if (!first_marker) first_marker = &o;
      if (std::find(markers.begin(), markers.end(), o.written) == markers.end())
        markers.push_back(o.written);
    }
    bool multi_node = !markers.empty();
    const Occurrence* local = nullptr;
    for (const Occurrence& o : parsed.found) {
      if (o.spec->param == Param::kDpLocal) {
        if (dp_present) {
          local = &o;
          if (multi_node) continue;  // the split over the nodes is said below
          // One machine: every data-parallel rank is local.
          if (o.value == dp->value || (!o.inline_value && !o.value_index)) continue;
          set_occurrence(ed, o, dp->value);
          changes.push_back(
              change(FlagChange::Kind::kChanged, o.written, o.value, dp->value,
                     fmt::format("all {} data-parallel ranks on this machine", dp->value)));
        } else {
          remove_occurrence(ed, o);
          changes.push_back(change(FlagChange::Kind::kRemoved, o.written, o.value, "",
                                   "removed: no data-parallel ranks in this plan"));
        }
      } else if (o.spec->param == Param::kDpPlacement && !dp_present) {
        remove_occurrence(ed, o);
        changes.push_back(change(FlagChange::Kind::kRemoved, o.written, o.value, "",
                                 "removed: it places data-parallel ranks, and this command has "
                                 "none"));
      } else if (o.spec->param == Param::kEplb && !ep) {
        remove_occurrence(ed, o);
        changes.push_back(change(FlagChange::Kind::kRemoved, o.written, o.value, "",
                                 "removed: vLLM's expert load balancing needs expert parallelism, "
                                 "which this plan does not use"));
      }
    }
    if (dp_present && multi_node && layout_changed) {
      const Occurrence& o = local ? *local : *first_marker;
      std::string joined;
      for (const auto& m : markers) joined += (joined.empty() ? "" : ", ") + m;
      changes.push_back(change(
          FlagChange::Kind::kChanged, o.written, o.value, o.value,
          fmt::format("check by hand: this command is one part of a launch over several nodes or "
                      "processes ({}), so its share of the data-parallel ranks is left as "
                      "written; the plan has {} data-parallel ranks of {} each, to be shared out "
                      "with each node's --data-parallel-size-local and --data-parallel-start-rank",
                      joined, dp->value, plural(l.tp, "GPU", "GPUs"))));
    }
    // Decode context parallelism reuses the TP ranks: vLLM refuses a TP size it does not divide.
    const Occurrence* dcp = last_of(Param::kDcp);
    if (dcp && !pcp && all_digits(dcp->value) && dcp->value.size() < 6) {
      int size = std::stoi(dcp->value);
      if (size > 1 && l.tp % size != 0)
        for (const Occurrence& o : parsed.found) {
          if (o.spec->param != Param::kDcp) continue;
          remove_occurrence(ed, o);
          changes.push_back(change(
              FlagChange::Kind::kRemoved, o.written, o.value, "",
              fmt::format("removed: vLLM refuses a TP size ({}) that the decode-context-parallel "
                          "size ({}) does not divide, as DCP runs on the TP ranks; the plan "
                          "costs no context parallelism",
                          l.tp, size)));
        }
    }
  }

  if (engine == Engine::kSglang) {
    // SGLang's LM-head switches that need DP attention (server_args.py asserts).
    for (const Occurrence& o : parsed.found) {
      std::string why;
      if (o.spec->param == Param::kDpLmHead && !l.attention_dp)
        why =
            "removed: SGLang refuses it without DP attention (\"Please enable dp attention when "
            "setting enable_dp_lm_head\"), which this plan does not use";
      else if (o.spec->param == Param::kTpLmHeadA2a && !l.attention_dp)
        why =
            "removed: SGLang refuses it without DP attention (\"Please enable dp attention when "
            "setting enable_tp_lm_head_all_to_all\"), which this plan does not use";
      else if (o.spec->param == Param::kTpLmHeadA2a && l.tp != 1)
        why = fmt::format(
            "removed: SGLang allows it only with --tp-size equal to --dp-size (one GPU per "
            "attention rank); this plan's attention ranks have {} GPUs",
            l.tp);
      if (why.empty()) continue;
      remove_occurrence(ed, o);
      changes.push_back(change(FlagChange::Kind::kRemoved, o.written, o.value, "", why));
    }
  }

  Rewrite r = ed.result(engine);
  r.changes = std::move(changes);
  return r;
}

}  // namespace smcompat::plan
