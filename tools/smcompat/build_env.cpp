// `smcompat build-env --gpu NAME... [--for pytorch|extension]`: the environment block for
// building PyTorch or a CUDA extension from source for the given GPUs on this machine, each line
// with its reason. Library: doctor/build_env.hpp.
#include "smcompat/doctor/build_env.hpp"

#include <fmt/format.h>

#include "commands.hpp"
#include "smcompat/catalog/catalog.hpp"

namespace smcompat::cli {

namespace {

struct BuildEnvCliOptions {
  std::vector<std::string> gpus;
  std::string what = "extension";
  bool json = false;
  bool shell = false;
};

int run(Context& ctx, const BuildEnvCliOptions& o) {
  const Catalog& cat = Catalog::builtin();
  doctor::BuildEnvRequest req;
  for (auto& q : o.gpus) {
    if (const GpuSpec* g = cat.find_gpu(q)) {
      req.gpus.push_back(g->cc);
    } else if (auto cc = ComputeCapability::parse(q); cc && cat.arch(cc->arch())) {
      req.gpus.push_back(*cc);
    } else {
      std::string hint;
      for (auto* s : cat.suggest_gpus(q)) hint += (hint.empty() ? "" : ", ") + s->name;
      fmt::print(stderr, "smcompat build-env: --gpu {}: no such GPU in the catalog{}\n", q,
                 hint.empty() ? " (see `smcompat gpus`)" : "; did you mean " + hint + "?");
      return kExitError;
    }
  }
  req.what = o.what == "pytorch" ? doctor::BuildFor::kPytorch : doctor::BuildFor::kExtension;
  auto env = doctor::current_environment();
  req.toolkits = doctor::find_toolkits(env);
  req.host = doctor::read_host(env);
  auto be = doctor::compute_build_env(req, cat);
  if (o.json) {
    fmt::print("{}\n", doctor::build_env_json(be, req, ctx.argv).dump(2));
  } else if (o.shell) {
    fmt::print("{}", be.to_shell(false));
  } else {
    auto st = ctx.out_style();
    fmt::print("{}\n", st.bold(fmt::format(
                           "# Build settings for {} ({})",
                           o.what == "pytorch" ? "PyTorch from source" : "CUDA extensions", [&] {
                             std::string s;
                             for (auto& g : o.gpus) s += (s.empty() ? "" : ", ") + g;
                             return s;
                           }())));
    fmt::print("{}", be.to_shell(true));
    if (req.host.cxx.empty())
      fmt::print("# host compiler: none found on PATH\n");
    else
      fmt::print("# host compiler: {}{}\n", req.host.cxx,
                 req.host.cxx_version.empty() ? "" : " (" + req.host.cxx_version + ")");
    for (auto& p : be.problems) fmt::print("{} {}\n", st.yellow("# problem:"), p);
    if (o.what == "extension")
      fmt::print(
          "# then, in the extension's source directory: pip install --no-build-isolation .\n");
    else
      fmt::print(
          "# then, in the PyTorch checkout: python setup.py develop (or pip install -e . -v "
          "--no-build-isolation)\n");
  }
  return be.problems.empty() ? kExitOk : kExitFindings;
}

}  // namespace

void register_build_env(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "build-env", "Environment for building PyTorch or CUDA extensions for chosen GPUs");
  auto o = std::make_shared<BuildEnvCliOptions>();
  cmd->add_option("--gpu", o->gpus, "Target GPU (repeatable): \"RTX 5090\", H100, 12.0, sm_90")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false)
      ->required();
  cmd->add_option("--for", o->what, "What to build: extension (default) or pytorch")
      ->check(CLI::IsMember({"extension", "pytorch"}));
  cmd->add_flag("--json", o->json, "JSON output (schema smcompat.build-env/1)");
  cmd->add_flag("--shell", o->shell, "Only the export lines, for eval");
  cmd->callback([&ctx, o] { ctx.exit_code = run(ctx, *o); });
}

}  // namespace smcompat::cli
