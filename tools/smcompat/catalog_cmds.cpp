// `smcompat gpus` and `smcompat arch [SM]`: the catalog for people and programs. The printers are
// report/catalog_report.hpp.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "smcompat/api/api.hpp"
#include "smcompat/catalog/catalog.hpp"
#include "smcompat/report/catalog_report.hpp"
#include "smcompat/util/json_text.hpp"

namespace smcompat::cli {

namespace {

// A catalog command: one optional positional argument and --json.
struct CatalogArgs {
  std::string query;
  bool json = false;
};

CLI::App* add_catalog_command(CLI::App& app, const char* name, const char* about,
                              const char* query_name, const char* query_help, CatalogArgs& args) {
  auto* cmd = app.add_subcommand(name, about);
  cmd->add_option(query_name, args.query, query_help);
  cmd->add_flag("--json", args.json, "Machine-readable output");
  return cmd;
}

void print_json(const nlohmann::json& j) { fmt::print("{}\n", json_text(j)); }

void run_gpus(const CatalogArgs& args, Context& ctx) {
  auto gpus = api::select_gpus(args.query);
  if (!gpus) {
    fmt::print(stderr, "smcompat: {}\n", gpus.error().what);
    ctx.exit_code = kExitError;
    return;
  }
  if (args.json)
    print_json(gpus_json(*gpus));
  else
    fmt::print("{}", render_gpus_text(*gpus, ctx.out_style()));
}

void run_arch(const CatalogArgs& args, Context& ctx) {
  const Catalog& cat = Catalog::builtin();
  if (args.query.empty()) {
    if (args.json)
      print_json(archs_json(cat));
    else
      fmt::print("{}", render_archs_text(cat, ctx.out_style()));
    return;
  }
  auto cc = ComputeCapability::parse(args.query);
  if (!cc) {
    if (const GpuSpec* g = cat.find_gpu(args.query)) cc = g->cc;
  }
  const ArchInfo* a = cc ? cat.arch(cc->arch()) : nullptr;
  if (!a) {
    fmt::print(stderr, "smcompat: unknown architecture \"{}\" (try sm_120, 9.0 or a GPU name)\n",
               args.query);
    ctx.exit_code = kExitError;
    return;
  }
  if (args.json)
    print_json(arch_detail_json(*a));
  else
    fmt::print("{}", render_arch_text(cat, *a, ctx.out_style()));
}

}  // namespace

void register_gpus(CLI::App& app, Context& ctx) {
  static CatalogArgs args;
  add_catalog_command(app, "gpus", "List the GPUs in the catalog (or look one up)", "name",
                      "A GPU name to look up, e.g. \"RTX 5090\", 5090, B200, GB10", args)
      ->callback([&ctx] { run_gpus(args, ctx); });
}

void register_arch(CLI::App& app, Context& ctx) {
  static CatalogArgs args;
  add_catalog_command(app, "arch", "Show GPU architectures: resources, features, rules", "sm",
                      "An architecture: sm_120, 12.0, 120, sm_90a, or a GPU name", args)
      ->callback([&ctx] { run_arch(args, ctx); });
}

}  // namespace smcompat::cli
