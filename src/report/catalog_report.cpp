// Rendering of the catalog (include/smcompat/report/catalog_report.hpp). Schemas:
// docs/json-schema.md ("smcompat.gpus/1", "smcompat.arch/1").
#include "smcompat/report/catalog_report.hpp"

#include <fmt/format.h>

#include <iterator>
#include <utility>

#include "smcompat/util/strings.hpp"
#include "smcompat/verdict/fit.hpp"

namespace smcompat {

namespace {

using json = nlohmann::json;

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

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
std::string count_or_unknown(const std::optional<uint32_t>& n) {
  return n ? std::to_string(*n) : "?";
}
std::string version_range(const ArchInfo& a) {
  if (!a.first_cuda) return "not in any released CUDA";
  return a.last_cuda
             ? fmt::format("CUDA {}–{}", a.first_cuda->to_string(), a.last_cuda->to_string())
             : fmt::format("CUDA {}+", a.first_cuda->to_string());
}

// Which catalogued images run on `a`: SASS natively or compatibly, and PTX by JIT.
void images_that_run(const Catalog& cat, const ArchInfo& a, std::vector<std::string>& sass,
                     std::vector<std::string>& ptx) {
  for (const auto& other : cat.archs()) {
    for (ArchVariant v : {ArchVariant::kBase, ArchVariant::kArchSpecific, ArchVariant::kFamily}) {
      if (v == ArchVariant::kArchSpecific && !other.has_a) continue;
      if (v == ArchVariant::kFamily && !other.has_f) continue;
      SmTarget s{ImageKind::kSass, other.sm, v};
      Fit f = fit_image(s, a.cc(), std::nullopt, std::nullopt, cat).fit;
      if (runs_natively(f)) sass.push_back(s.to_string());
      SmTarget p{ImageKind::kPtx, other.sm, v};
      if (fit_image(p, a.cc(), std::nullopt, std::nullopt, cat).fit == Fit::kPtxJit)
        ptx.push_back(p.to_string());
    }
  }
}

}  // namespace

json gpu_json(const GpuSpec& g) {
  json j{{"name", g.name}, {"aliases", g.aliases}, {"cc", g.cc.to_string()},
         {"sms", g.sms},   {"memory", g.memory},   {"peak_tflops", g.peak_tflops},
         {"tags", g.tags}, {"source", g.source}};
  // Optional figures are null when the catalog does not know them.
  for (auto [key, field] : {std::pair{"boost_mhz", &GpuSpec::boost_mhz},
                            {"tensor_mhz", &GpuSpec::tensor_mhz},
                            {"bus_width_bits", &GpuSpec::bus_width_bits},
                            {"pcie_gen", &GpuSpec::pcie_gen}})
    j[key] = or_null(g.*field);
  for (auto [key, field] : {std::pair{"memory_gib", &GpuSpec::memory_gib},
                            {"bandwidth_gbs", &GpuSpec::bandwidth_gbs},
                            {"l2_mb", &GpuSpec::l2_mb},
                            {"nvlink_gbs", &GpuSpec::nvlink_gbs}})
    j[key] = or_null(g.*field);
  return j;
}

json arch_json(const ArchInfo& a) {
  json variants = json::array();
  if (a.has_a) variants.push_back("a");
  if (a.has_f) variants.push_back("f");
  json j{{"sm", a.sm},     {"name", a.name},   {"cc", a.cc().to_string()}, {"variants", variants},
         {"tags", a.tags}, {"notes", a.notes}, {"source", a.source}};
  // Per-thread and per-SM limits; the catalog always knows the register ones.
  for (auto [key, value] : {std::pair{"reserved_smem_per_block", a.reserved_smem_per_block},
                            {"regs_per_sm", a.regs_per_sm},
                            {"max_regs_per_thread", a.max_regs_per_thread}})
    j[key] = value;
  // Features by the targets that may use them (base, `a`, `f`).
  for (auto [key, field] : {std::pair{"features", &ArchInfo::features},
                            {"a_features", &ArchInfo::a_features},
                            {"f_features", &ArchInfo::f_features}})
    j[key] = a.*field;
  for (auto [key, field] : {std::pair{"smem_per_sm", &ArchInfo::smem_per_sm},
                            {"smem_per_block_optin", &ArchInfo::smem_per_block_optin},
                            {"threads_per_sm", &ArchInfo::threads_per_sm},
                            {"blocks_per_sm", &ArchInfo::blocks_per_sm}})
    j[key] = or_null(a.*field);
  for (auto [key, field] : {std::pair{"first_cuda", &ArchInfo::first_cuda},
                            {"last_cuda", &ArchInfo::last_cuda},
                            {"min_ptx_isa", &ArchInfo::min_ptx_isa}})
    j[key] = a.*field ? json((a.*field)->to_string()) : json(nullptr);
  return j;
}

json gpus_json(const std::vector<const GpuSpec*>& gpus) {
  json out{{"schema", kGpusSchema}, {"gpus", json::array()}};
  for (const auto* g : gpus) out["gpus"].push_back(gpu_json(*g));
  return out;
}

json archs_json(const Catalog& catalog) {
  json out{{"schema", kArchSchema}, {"archs", json::array()}};
  for (const auto& a : catalog.archs()) out["archs"].push_back(arch_json(a));
  return out;
}

json arch_detail_json(const ArchInfo& arch) {
  return {{"schema", kArchSchema}, {"arch", arch_json(arch)}};
}

std::string render_gpus_text(const std::vector<const GpuSpec*>& gpus, const Style& st) {
  using A = Table::Align;
  Table t({"GPU", "CC", "SMs", "memory", "GB/s", "FP16/BF16", "TF32", "FP8", "FP4", "FP32", "FP64",
           "tags"},
          {A::kLeft, A::kLeft, A::kRight, A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight,
           A::kRight, A::kRight, A::kRight, A::kLeft});
  for (const auto* g : gpus) {
    t.add_row({g->name, g->cc.to_string(), std::to_string(g->sms), g->memory,
               opt_num(g->bandwidth_gbs), peak(*g, "fp16_bf16"), peak(*g, "tf32"), peak(*g, "fp8"),
               peak(*g, "fp4"), peak(*g, "fp32"), peak(*g, "fp64"), st.dim(g->tags)});
  }
  return t.render(st) +
         st.dim(
             "Dense peak TFLOPS (no sparsity); FP16/BF16 with FP32 accumulate. Tags: "
             "D derived, 3P third party, ? unverified. Sources: data/catalog.json.") +
         "\n";
}

std::string render_archs_text(const Catalog& catalog, const Style& st) {
  using A = Table::Align;
  Table t({"target", "CC", "name", "variants", "smem/block", "smem/SM", "threads/SM", "CUDA"},
          {A::kLeft, A::kLeft, A::kLeft, A::kLeft, A::kRight, A::kRight, A::kRight, A::kLeft});
  for (const auto& a : catalog.archs()) {
    std::string v = std::string(a.has_a ? "a" : "") + (a.has_f ? (a.has_a ? " f" : "f") : "");
    t.add_row({fmt::format("sm_{}", a.sm), a.cc().to_string(), a.name, v.empty() ? "–" : v,
               kib(a.smem_per_block_optin), kib(a.smem_per_sm), count_or_unknown(a.threads_per_sm),
               version_range(a)});
  }
  return t.render(st) + st.dim("`smcompat arch sm_120` shows one architecture in full.") + "\n";
}

std::string render_arch_text(const Catalog& cat, const ArchInfo& a, const Style& st) {
  std::string out;
  auto put = std::back_inserter(out);
  fmt::format_to(put, "{} (compute capability {}): {}\n", st.bold(fmt::format("sm_{}", a.sm)),
                 a.cc().to_string(), a.name);
  std::string variants = "sm_" + std::to_string(a.sm);
  if (a.has_a) variants += fmt::format(", sm_{}a", a.sm);
  if (a.has_f) variants += fmt::format(", sm_{}f", a.sm);
  fmt::format_to(put, "  targets          {}\n", variants);
  fmt::format_to(put, "  built by         {}{}\n", version_range(a),
                 a.min_ptx_isa ? fmt::format(" (PTX ISA {}+)", a.min_ptx_isa->to_string()) : "");
  fmt::format_to(put, "  shared memory    {} per SM, {} per block (opt-in{})\n", kib(a.smem_per_sm),
                 kib(a.smem_per_block_optin),
                 a.smem_per_block_optin ? fmt::format(" = {} bytes", *a.smem_per_block_optin) : "");
  if (a.reserved_smem_per_block)
    fmt::format_to(put, "                   {} bytes per block reserved for the system\n",
                   a.reserved_smem_per_block);
  fmt::format_to(put,
                 "  threads / SM     {}   blocks / SM {}   registers / SM {}   max regs / thread "
                 "{}\n",
                 count_or_unknown(a.threads_per_sm), count_or_unknown(a.blocks_per_sm),
                 a.regs_per_sm, a.max_regs_per_thread);
  fmt::format_to(put, "  features         {}\n", join(a.features, ", ", "–"));
  if (!a.f_features.empty())
    fmt::format_to(put, "  with sm_{}f      {}\n", a.sm, join(a.f_features, ", ", "–"));
  if (!a.a_features.empty())
    fmt::format_to(put, "  with sm_{}a      {}\n", a.sm, join(a.a_features, ", ", "–"));
  std::vector<std::string> sass, ptx;
  images_that_run(cat, a, sass, ptx);
  fmt::format_to(put, "  runs SASS        {}\n", join(sass, ", ", "–"));
  fmt::format_to(put, "  JITs PTX         {}\n", join(ptx, ", ", "–"));
  if (!a.notes.empty()) fmt::format_to(put, "  note             {}\n", a.notes);
  std::vector<std::string> gpus;
  for (const auto& g : cat.gpus())
    if (g.cc == a.cc()) gpus.push_back(g.name);
  if (!gpus.empty()) fmt::format_to(put, "  GPUs             {}\n", join(gpus, ", ", "–"));
  fmt::format_to(put, "  source           {}{}\n", a.source,
                 a.tags.empty() ? "" : " [" + a.tags + "]");
  return out;
}

}  // namespace smcompat
