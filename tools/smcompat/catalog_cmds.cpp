// `smcompat gpus` and `smcompat arch [SM]`: the catalog for people and programs.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "smcompat/catalog/catalog.hpp"
#include "smcompat/verdict/fit.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::cli {

namespace {

std::string opt_num(const std::optional<double>& v) {
  return v ? fmt::format("{:g}", *v) : std::string("–");
}
std::string peak(const GpuSpec& g, const char* key) {
  auto it = g.peak_tflops.find(key);
  return it == g.peak_tflops.end() ? std::string("–") : fmt::format("{:g}", it->second);
}
std::string kib(const std::optional<uint32_t>& bytes) {
  return bytes ? fmt::format("{} KiB", *bytes / 1024) : std::string("?");
}
std::string version_range(const ArchInfo& a) {
  if (!a.first_cuda) return "not in any released CUDA";
  return a.last_cuda
             ? fmt::format("CUDA {}–{}", a.first_cuda->to_string(), a.last_cuda->to_string())
             : fmt::format("CUDA {}+", a.first_cuda->to_string());
}

nlohmann::json gpu_json(const GpuSpec& g) {
  nlohmann::json j{{"name", g.name}, {"aliases", g.aliases}, {"cc", g.cc.to_string()},
                   {"sms", g.sms},   {"memory", g.memory},   {"peak_tflops", g.peak_tflops},
                   {"tags", g.tags}, {"source", g.source}};
  auto put = [&](const char* k, const auto& v) {
    if (v)
      j[k] = *v;
    else
      j[k] = nullptr;
  };
  put("boost_mhz", g.boost_mhz);
  put("tensor_mhz", g.tensor_mhz);
  put("memory_gib", g.memory_gib);
  put("bus_width_bits", g.bus_width_bits);
  put("bandwidth_gbs", g.bandwidth_gbs);
  put("l2_mb", g.l2_mb);
  put("nvlink_gbs", g.nvlink_gbs);
  return j;
}

nlohmann::json arch_json(const ArchInfo& a) {
  auto opt = [](const auto& v) -> nlohmann::json {
    if (v) return *v;
    return nullptr;
  };
  auto ver = [](const std::optional<Version>& v) -> nlohmann::json {
    if (v) return v->to_string();
    return nullptr;
  };
  nlohmann::json variants = nlohmann::json::array();
  if (a.has_a) variants.push_back("a");
  if (a.has_f) variants.push_back("f");
  return {{"sm", a.sm},
          {"cc", a.cc().to_string()},
          {"name", a.name},
          {"variants", variants},
          {"smem_per_sm", opt(a.smem_per_sm)},
          {"smem_per_block_optin", opt(a.smem_per_block_optin)},
          {"reserved_smem_per_block", a.reserved_smem_per_block},
          {"threads_per_sm", opt(a.threads_per_sm)},
          {"blocks_per_sm", opt(a.blocks_per_sm)},
          {"regs_per_sm", a.regs_per_sm},
          {"max_regs_per_thread", a.max_regs_per_thread},
          {"features", a.features},
          {"a_features", a.a_features},
          {"f_features", a.f_features},
          {"first_cuda", ver(a.first_cuda)},
          {"last_cuda", ver(a.last_cuda)},
          {"min_ptx_isa", ver(a.min_ptx_isa)},
          {"tags", a.tags},
          {"notes", a.notes},
          {"source", a.source}};
}

void print_arch_detail(const Catalog& cat, const ArchInfo& a, const Style& st) {
  fmt::print("{} (compute capability {}): {}\n", st.bold(fmt::format("sm_{}", a.sm)),
             a.cc().to_string(), a.name);
  std::string variants = "sm_" + std::to_string(a.sm);
  if (a.has_a) variants += fmt::format(", sm_{}a", a.sm);
  if (a.has_f) variants += fmt::format(", sm_{}f", a.sm);
  fmt::print("  targets          {}\n", variants);
  fmt::print("  built by         {}{}\n", version_range(a),
             a.min_ptx_isa ? fmt::format(" (PTX ISA {}+)", a.min_ptx_isa->to_string()) : "");
  fmt::print("  shared memory    {} per SM, {} per block (opt-in{})\n", kib(a.smem_per_sm),
             kib(a.smem_per_block_optin),
             a.smem_per_block_optin ? fmt::format(" = {} bytes", *a.smem_per_block_optin) : "");
  if (a.reserved_smem_per_block)
    fmt::print("                   {} bytes per block reserved for the system\n",
               a.reserved_smem_per_block);
  fmt::print("  threads / SM     {}   blocks / SM {}   registers / SM {}   max regs / thread {}\n",
             a.threads_per_sm ? std::to_string(*a.threads_per_sm) : "?",
             a.blocks_per_sm ? std::to_string(*a.blocks_per_sm) : "?", a.regs_per_sm,
             a.max_regs_per_thread);
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? std::string("–") : s;
  };
  fmt::print("  features         {}\n", join(a.features));
  if (!a.f_features.empty()) fmt::print("  with sm_{}f      {}\n", a.sm, join(a.f_features));
  if (!a.a_features.empty()) fmt::print("  with sm_{}a      {}\n", a.sm, join(a.a_features));
  // Which images run on this device (the rules, applied to every catalogued target).
  std::vector<std::string> sass, ptx;
  for (const auto& other : cat.archs()) {
    for (ArchVariant v : {ArchVariant::kBase, ArchVariant::kArchSpecific, ArchVariant::kFamily}) {
      if (v == ArchVariant::kArchSpecific && !other.has_a) continue;
      if (v == ArchVariant::kFamily && !other.has_f) continue;
      SmTarget s{ImageKind::kSass, other.sm, v};
      auto f = fit_image(s, a.cc(), std::nullopt, std::nullopt, cat);
      if (f.fit == Fit::kNative || f.fit == Fit::kCompatibleSass)
        sass.push_back(s.to_string());
      SmTarget p{ImageKind::kPtx, other.sm, v};
      if (fit_image(p, a.cc(), std::nullopt, std::nullopt, cat).fit == Fit::kPtxJit) ptx.push_back(p.to_string());
    }
  }
  fmt::print("  runs SASS        {}\n", join(sass));
  fmt::print("  JITs PTX         {}\n", join(ptx));
  if (!a.notes.empty()) fmt::print("  note             {}\n", a.notes);
  std::vector<std::string> gpus;
  for (const auto& g : cat.gpus())
    if (g.cc == a.cc()) gpus.push_back(g.name);
  if (!gpus.empty()) fmt::print("  GPUs             {}\n", join(gpus));
  fmt::print("  source           {}{}\n", a.source, a.tags.empty() ? "" : " [" + a.tags + "]");
}

}  // namespace

void register_gpus(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("gpus", "List the GPUs in the catalog (or look one up)");
  static std::string query;
  static bool json = false;
  cmd->add_option("name", query, "A GPU name to look up, e.g. \"RTX 5090\", 5090, B200, GB10");
  cmd->add_flag("--json", json, "Machine-readable output");
  cmd->callback([&ctx] {
    const Catalog& cat = Catalog::builtin();
    std::vector<const GpuSpec*> gpus;
    if (!query.empty()) {
      if (const GpuSpec* g = cat.find_gpu(query))
        gpus.push_back(g);
      else
        gpus = cat.suggest_gpus(query);
      if (gpus.empty()) {
        fmt::print(stderr,
                   "smcompat: no GPU in the catalog matches \"{}\"; `smcompat gpus` lists "
                   "them all\n",
                   query);
        ctx.exit_code = kExitError;
        return;
      }
    } else {
      for (const auto& g : cat.gpus()) gpus.push_back(&g);
    }
    if (json) {
      nlohmann::json out{{"schema", "smcompat.gpus/1"}, {"gpus", nlohmann::json::array()}};
      for (const auto* g : gpus) out["gpus"].push_back(gpu_json(*g));
      fmt::print("{}\n", out.dump(2));
      return;
    }
    Style st = ctx.out_style();
    using A = Table::Align;
    Table t({"GPU", "CC", "SMs", "memory", "GB/s", "FP16/BF16", "TF32", "FP8", "FP4", "FP32",
             "FP64", "tags"},
            {A::kLeft, A::kLeft, A::kRight, A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight,
             A::kRight, A::kRight, A::kRight, A::kLeft});
    for (const auto* g : gpus) {
      t.add_row({g->name, g->cc.to_string(), std::to_string(g->sms), g->memory,
                 opt_num(g->bandwidth_gbs), peak(*g, "fp16_bf16"), peak(*g, "tf32"),
                 peak(*g, "fp8"), peak(*g, "fp4"), peak(*g, "fp32"), peak(*g, "fp64"),
                 st.dim(g->tags)});
    }
    fmt::print("{}", t.render(st));
    fmt::print("{}\n",
               st.dim("Dense peak TFLOPS (no sparsity); FP16/BF16 with FP32 accumulate. Tags: "
                      "D derived, 3P third party, ? unverified. Sources: data/catalog.json."));
  });
}

void register_arch(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("arch", "Show GPU architectures: resources, features, rules");
  static std::string which;
  static bool json = false;
  cmd->add_option("sm", which, "An architecture: sm_120, 12.0, 120, sm_90a, or a GPU name");
  cmd->add_flag("--json", json, "Machine-readable output");
  cmd->callback([&ctx] {
    const Catalog& cat = Catalog::builtin();
    Style st = ctx.out_style();
    if (!which.empty()) {
      auto cc = ComputeCapability::parse(which);
      if (!cc) {
        if (const GpuSpec* g = cat.find_gpu(which)) cc = g->cc;
      }
      const ArchInfo* a = cc ? cat.arch(cc->arch()) : nullptr;
      if (!a) {
        fmt::print(stderr,
                   "smcompat: unknown architecture \"{}\" (try sm_120, 9.0 or a GPU name)\n",
                   which);
        ctx.exit_code = kExitError;
        return;
      }
      if (json)
        fmt::print("{}\n",
                   nlohmann::json{{"schema", "smcompat.arch/1"}, {"arch", arch_json(*a)}}.dump(2));
      else
        print_arch_detail(cat, *a, st);
      return;
    }
    if (json) {
      nlohmann::json out{{"schema", "smcompat.arch/1"}, {"archs", nlohmann::json::array()}};
      for (const auto& a : cat.archs()) out["archs"].push_back(arch_json(a));
      fmt::print("{}\n", out.dump(2));
      return;
    }
    using A = Table::Align;
    Table t({"target", "CC", "name", "variants", "smem/block", "smem/SM", "threads/SM", "CUDA"},
            {A::kLeft, A::kLeft, A::kLeft, A::kLeft, A::kRight, A::kRight, A::kRight, A::kLeft});
    for (const auto& a : cat.archs()) {
      std::string v = std::string(a.has_a ? "a" : "") + (a.has_f ? (a.has_a ? " f" : "f") : "");
      t.add_row({fmt::format("sm_{}", a.sm), a.cc().to_string(), a.name, v.empty() ? "–" : v,
                 kib(a.smem_per_block_optin), kib(a.smem_per_sm),
                 a.threads_per_sm ? std::to_string(*a.threads_per_sm) : "?", version_range(a)});
    }
    fmt::print("{}", t.render(st));
    fmt::print("{}\n", st.dim("`smcompat arch sm_120` shows one architecture in full."));
  });
}

}  // namespace smcompat::cli
