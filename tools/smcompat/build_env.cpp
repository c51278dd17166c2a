// `smcompat build-env --gpu NAME... [--for pytorch|extension]`: the environment block for
// building PyTorch or a CUDA extension from source for the given GPUs on this machine, each line
// with its reason. Library: doctor/build_env.hpp.
#include "smcompat/doctor/build_env.hpp"

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "smcompat/catalog/catalog.hpp"
#include "smcompat/report/build_env_report.hpp"
#include "smcompat/util/json_text.hpp"
#include "smcompat/verdict/targets.hpp"

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
    auto target = resolve_target(q, {}, cat, "--gpu");
    if (!target) return ctx.fail("build-env", target.error().what);
    req.gpus.push_back(target->cc);
  }
  req.what = o.what == "pytorch" ? doctor::BuildFor::kPytorch : doctor::BuildFor::kExtension;
  auto env = doctor::current_environment();
  req.toolkits = doctor::find_toolkits(env);
  req.host = doctor::read_host(env);
  auto be = doctor::compute_build_env(req, cat);
  if (o.json)
    fmt::print("{}\n", json_text(build_env_to_json(be, req, ctx.argv)));
  else if (o.shell)
    fmt::print("{}", build_env_shell(be, false));
  else
    fmt::print("{}", render_build_env_text(be, req, o.gpus, ctx.out_style()));
  return be.problems.empty() ? kExitOk : kExitFindings;
}

}  // namespace

void register_build_env(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "build-env", "Environment for building PyTorch or CUDA extensions for chosen GPUs");
  auto o = std::make_shared<BuildEnvCliOptions>();
  add_repeatable(cmd, "--gpu", o->gpus, "Target GPU (repeatable): \"RTX 5090\", H100, 12.0, sm_90")
      ->required();
  cmd->add_option("--for", o->what, "What to build: extension (default) or pytorch")
      ->check(CLI::IsMember({"extension", "pytorch"}));
  add_format_flags(cmd, o->json, nullptr, "smcompat.build-env/1");
  cmd->add_flag("--shell", o->shell, "Only the export lines, for eval");
  cmd->callback([&ctx, o] { ctx.exit_code = run(ctx, *o); });
}

}  // namespace smcompat::cli
