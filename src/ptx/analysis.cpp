// Per-kernel analysis (include/smcompat/ptx/analysis.hpp). Features are collected per function
// and merged along `call` edges, so a kernel is charged for what its callees use. Shared memory
// is counted from declarations: the kernel's own `.shared` variables plus module-scope ones that
// the kernel or its callees name in an operand.
#include "smcompat/ptx/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "smcompat/catalog/catalog.hpp"
#include "smcompat/util/enum_names.hpp"

namespace smcompat::ptx {

const char* to_string(KernelCheck check) {
  static constexpr std::array<const char*, 4> kNames{"runs", "needs-specific-target",
                                                     "exceeds-resources", "unavailable"};
  return enum_name(check, kNames);
}

namespace {

struct Use {
  SourceLoc first;
  std::string_view function;
  std::string_view instruction;
  uint32_t count = 0;
};

struct FunctionFacts {
  std::map<uint16_t, Use> uses;                // row -> first use, count
  std::vector<uint32_t> callees;               // indices into module.functions
  std::unordered_set<uint32_t> module_shared;  // indices into module.variables
  std::vector<uint32_t> local_shared;
};

bool is_ident_start(char c) {
  return isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
bool is_ident_char(char c) {
  return isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

template <class F>
void for_each_identifier(std::string_view op, F&& f) {
  size_t i = 0;
  while (i < op.size()) {
    char c = op[i];
    if (c == '%') {  // registers and special registers are never variables
      ++i;
      while (i < op.size() && (is_ident_char(op[i]) || op[i] == '.')) ++i;
    } else if (is_ident_start(c)) {
      size_t b = i;
      while (i < op.size() && is_ident_char(op[i])) ++i;
      f(op.substr(b, i - b));
    } else if (isdigit(static_cast<unsigned char>(c))) {
      while (i < op.size() && is_ident_char(op[i])) ++i;
    } else {
      ++i;
    }
  }
}

KernelCheck check_of(Availability a) {
  switch (a) {
    case Availability::kAvailable:
      return KernelCheck::kRuns;
    case Availability::kNeedsFamily:
    case Availability::kNeedsArchSpecific:
      return KernelCheck::kNeedsSpecificTarget;
    case Availability::kUnavailable:
      return KernelCheck::kUnavailable;
  }
  return KernelCheck::kUnavailable;
}

std::string where_available(const FeatureRow& row) {
  std::vector<std::pair<int, std::string>> parts;  // sorted by arch
  if (row.min_sm) parts.emplace_back(*row.min_sm, fmt::format("sm_{}+", *row.min_sm));
  for (int a : row.family_specific) parts.emplace_back(a, fmt::format("sm_{}f", a));
  for (int a : row.arch_specific)
    if (std::find(row.family_specific.begin(), row.family_specific.end(), a) ==
        row.family_specific.end())
      parts.emplace_back(a, fmt::format("sm_{}a", a));
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i].second;
  return s;
}

}  // namespace

ModuleReport analyze(const Module& module, const SmTarget& target_in, const AnalyzeOptions& options,
                     const FeatureTable& table) {
  ModuleReport rep;
  SmTarget target = target_in;
  target.kind = ImageKind::kSass;
  rep.target = target;
  rep.ptx_version = module.version;
  rep.ptx_target = std::string(module.target_text);
  const Catalog& cat = Catalog::builtin();
  const ArchInfo* arch = cat.arch(target.arch);
  if (!arch)
    rep.notes.push_back(
        fmt::format("sm_{} is not in the catalog: resource limits are not checked", target.arch));

  if (module.target && module.target->variant == ArchVariant::kArchSpecific &&
      module.target->arch != target.arch)
    rep.notes.push_back(fmt::format(
        "the PTX targets {} (arch-specific): the driver never JIT-compiles it for another "
        "architecture, so it must be rebuilt or retargeted for {}",
        module.target_text, target.to_string()));
  if (module.target && module.target->arch > target.arch)
    rep.notes.push_back(
        fmt::format("the PTX targets {}, newer than {}: the driver will not load "
                    "it there without retargeting",
                    module.target_text, target.to_string()));
  if (arch && arch->min_ptx_isa && module.version < *arch->min_ptx_isa)
    rep.notes.push_back(fmt::format(
        ".version {} is older than PTX ISA {}, the first that knows "
        "{} (retarget raises it)",
        module.version.to_string(), arch->min_ptx_isa->to_string(), target.to_string()));

  // Module-scope shared variables by name.
  std::unordered_map<std::string_view, uint32_t> shared_by_name;
  for (const auto& d : module.variable_decls)
    for (uint32_t i = 0; i < d.variable_count; ++i) {
      const Variable& v = module.variables[d.first_variable + i];
      if (v.space == ".shared") shared_by_name.emplace(v.name, d.first_variable + i);
    }
  std::unordered_map<std::string_view, uint32_t> function_by_name;
  for (uint32_t i = 0; i < module.functions.size(); ++i)
    if (module.functions[i].has_body || !function_by_name.count(module.functions[i].name))
      function_by_name[module.functions[i].name] = i;

  // Facts per function.
  std::vector<FunctionFacts> facts(module.functions.size());
  std::vector<uint16_t> matched;
  for (uint32_t fi = 0; fi < module.functions.size(); ++fi) {
    const Function& fn = module.functions[fi];
    FunctionFacts& ff = facts[fi];
    auto add_use = [&](uint16_t row, SourceLoc loc, std::string_view inst) {
      Use& u = ff.uses[row];
      if (u.count++ == 0) {
        u.first = loc;
        u.function = fn.name;
        u.instruction = inst;
      }
    };
    for (const auto& item : fn.perf.items) {
      matched.clear();
      table.match_directive(item.directive, matched);
      for (uint16_t r : matched) add_use(r, item.loc, item.directive);
    }
    for (uint32_t si = 0; si < fn.statement_count; ++si) {
      const Statement& st = module.statements[fn.first_statement + si];
      if (st.kind == StatementKind::kDeclaration) {
        for (uint32_t k = 0; k < st.variable_count; ++k)
          if (module.variables[st.first_variable + k].space == ".shared")
            ff.local_shared.push_back(st.first_variable + k);
        continue;
      }
      if (st.kind != StatementKind::kInstruction) continue;
      const std::string_view* ops = module.operands_of(st);
      matched.clear();
      table.match_instruction(st, ops, matched);
      for (uint16_t r : matched) add_use(r, st.loc, st.name);
      const bool is_call = st.opcode() == "call";
      if (!is_call && shared_by_name.empty()) continue;
      for (uint32_t k = 0; k < st.operand_count; ++k)
        for_each_identifier(ops[k], [&](std::string_view id) {
          if (is_call) {
            auto it = function_by_name.find(id);
            if (it != function_by_name.end()) ff.callees.push_back(it->second);
          }
          auto it = shared_by_name.find(id);
          if (it != shared_by_name.end()) ff.module_shared.insert(it->second);
        });
    }
  }

  for (uint32_t ki = 0; ki < module.functions.size(); ++ki) {
    const Function& fn = module.functions[ki];
    if (!fn.is_entry || !fn.has_body) continue;
    KernelReport k;
    k.name = std::string(fn.name);
    k.loc = fn.loc;
    k.perf = fn.perf;
    k.cluster_dims = fn.perf.reqnctapercluster;
    // Reachable functions (the kernel first).
    std::vector<uint32_t> reach{ki};
    std::vector<bool> seen(module.functions.size(), false);
    seen[ki] = true;
    for (size_t i = 0; i < reach.size(); ++i)
      for (uint32_t c : facts[reach[i]].callees)
        if (!seen[c]) {
          seen[c] = true;
          reach.push_back(c);
        }
    std::map<uint16_t, Use> uses;
    std::unordered_set<uint32_t> module_shared;
    for (uint32_t f : reach) {
      for (const auto& [row, u] : facts[f].uses) {
        auto [it, inserted] = uses.emplace(row, u);
        if (!inserted) it->second.count += u.count;
      }
      module_shared.insert(facts[f].module_shared.begin(), facts[f].module_shared.end());
      for (uint32_t v : facts[f].local_shared) {
        const Variable& var = module.variables[v];
        k.shared.push_back({std::string(var.name), var.size_bytes(), var.align, false, var.loc});
      }
    }
    std::vector<uint32_t> ms(module_shared.begin(), module_shared.end());
    std::sort(ms.begin(), ms.end());
    for (uint32_t v : ms) {
      const Variable& var = module.variables[v];
      k.shared.push_back({std::string(var.name), var.size_bytes(), var.align, true, var.loc});
    }

    // Features.
    for (const auto& [row_index, u] : uses) {
      const FeatureRow& row = table.rows()[row_index];
      FeatureUse fu;
      fu.row = &row;
      fu.first = u.first;
      fu.first_function = std::string(u.function);
      fu.first_instruction = std::string(u.instruction);
      fu.count = u.count;
      Availability a = FeatureTable::availability(row, target);
      fu.outcome = check_of(a);
      if (a == Availability::kNeedsFamily || a == Availability::kNeedsArchSpecific) {
        SmTarget t = target;
        t.variant =
            a == Availability::kNeedsFamily ? ArchVariant::kFamily : ArchVariant::kArchSpecific;
        fu.specific_target = t;
        fu.reason = fmt::format("{} needs {} (available on {})", row.title, t.to_string(),
                                where_available(row));
      } else if (a == Availability::kUnavailable) {
        fu.reason = fmt::format("{} does not exist on {} (available on {})", row.title,
                                target.to_string(), where_available(row));
      }
      k.features.push_back(std::move(fu));
    }
    std::sort(k.features.begin(), k.features.end(), [](const FeatureUse& a, const FeatureUse& b) {
      return a.first.offset < b.first.offset;
    });

    // Shared memory.
    for (const auto& s : k.shared) {
      if (s.bytes)  // saturating: declared sizes near 2^64 must not wrap to a small total
        k.static_smem =
            *s.bytes > UINT64_MAX - k.static_smem ? UINT64_MAX : k.static_smem + *s.bytes;
      else
        k.dynamic_smem = true;
    }
    if (k.static_smem > kMaxStaticSharedBytes)
      k.resources.push_back({"shared memory", KernelCheck::kExceedsResources,
                             fmt::format("{} bytes of static shared memory; at most {} bytes can "
                                         "be declared statically (larger buffers must be dynamic "
                                         "shared memory with an opt-in)",
                                         k.static_smem, kMaxStaticSharedBytes)});
    if (arch && arch->smem_per_block_optin) {
      uint64_t limit = *arch->smem_per_block_optin;
      k.smem_optin_limit = limit;
      if (k.static_smem > limit) {
        k.resources.push_back({"shared memory", KernelCheck::kExceedsResources,
                               fmt::format("{} bytes of static shared memory; {} allows {} bytes "
                                           "per block",
                                           k.static_smem, target.to_string(), limit)});
      } else {
        k.dynamic_smem_room = limit - k.static_smem;
        if (options.dynamic_smem && *options.dynamic_smem > *k.dynamic_smem_room)
          k.resources.push_back(
              {"shared memory", KernelCheck::kExceedsResources,
               fmt::format("static {} + dynamic {} = {} bytes; {} allows {} bytes per block "
                           "(opt-in maximum)",
                           k.static_smem, *options.dynamic_smem,
                           k.static_smem + *options.dynamic_smem, target.to_string(), limit)});
        else if (k.dynamic_smem)
          k.resources.push_back(
              {"shared memory", KernelCheck::kRuns,
               fmt::format("uses dynamic shared memory: at most {} bytes can be requested on {} "
                           "(opt-in limit {} minus {} static)",
                           *k.dynamic_smem_room, target.to_string(), limit, k.static_smem)});
      }
    }
    // Threads and registers.
    for (const auto* dims : {&fn.perf.maxntid, &fn.perf.reqntid}) {
      if (!*dims) continue;
      uint64_t threads = uint64_t{(**dims)[0]} * (**dims)[1] * (**dims)[2];
      if (threads > kMaxThreadsPerBlock)
        k.resources.push_back({"threads", KernelCheck::kExceedsResources,
                               fmt::format("{} threads per block requested; the limit is {}",
                                           threads, kMaxThreadsPerBlock)});
    }
    if (arch && fn.perf.maxnreg && *fn.perf.maxnreg > arch->max_regs_per_thread)
      k.resources.push_back(
          {"registers", KernelCheck::kExceedsResources,
           fmt::format(".maxnreg {} is above {}'s {} registers per thread", *fn.perf.maxnreg,
                       target.to_string(), arch->max_regs_per_thread)});
    if (k.cluster_dims) {
      uint64_t n = uint64_t{(*k.cluster_dims)[0]} * (*k.cluster_dims)[1] * (*k.cluster_dims)[2];
      if (n > kMaxClusterSize)
        k.resources.push_back(
            {"cluster", KernelCheck::kExceedsResources,
             fmt::format("cluster of {} blocks; no GPU allows more than {}", n, kMaxClusterSize)});
      else if (n > kPortableClusterSize)
        k.resources.push_back(
            {"cluster", KernelCheck::kRuns,
             fmt::format("cluster of {} blocks is above the portable size {}: the launch needs "
                         "cudaFuncAttributeNonPortableClusterSizeAllowed and a GPU that allows it",
                         n, kPortableClusterSize)});
    }

    // Kernel outcome: the worst of features and resources.
    bool need_arch_specific = false;
    for (const auto& f : k.features) {
      k.outcome = std::max(k.outcome, f.outcome);
      if (f.outcome == KernelCheck::kNeedsSpecificTarget && f.specific_target &&
          f.specific_target->variant == ArchVariant::kArchSpecific)
        need_arch_specific = true;
    }
    for (const auto& r : k.resources) k.outcome = std::max(k.outcome, r.outcome);
    bool any_needs = std::any_of(k.features.begin(), k.features.end(), [](const FeatureUse& f) {
      return f.outcome == KernelCheck::kNeedsSpecificTarget;
    });
    if (any_needs) {
      SmTarget t = target;
      t.variant = need_arch_specific ? ArchVariant::kArchSpecific : ArchVariant::kFamily;
      k.specific_target = t;
    }
    rep.outcome = std::max(rep.outcome, k.outcome);
    rep.kernels.push_back(std::move(k));
  }
  return rep;
}

}  // namespace smcompat::ptx
