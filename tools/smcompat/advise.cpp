// `smcompat advise PKG... --gpu NAME`: which release of each package to install for a GPU, from
// the wheel index (index/advise.hpp), keeping lockstep packages (torch pins) in step with what an
// environment has installed. Library: advise(); printers: report/index_report.hpp.
//
// Exit codes: 0 every package has a release that runs natively (or carries no GPU code);
// 1 some package asked for has no indexed release that runs natively, or is not in the index;
// 2 usage or I/O error (unknown GPU, unreadable --index or --python).
#include "smcompat/index/advise.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <set>

#include "commands.hpp"
#include "options.hpp"
#include "smcompat/doctor/facts.hpp"
#include "smcompat/report/index_report.hpp"
#include "smcompat/scan/scan.hpp"
#include "smcompat/util/json_text.hpp"

namespace smcompat::cli {

namespace {

struct AdviseArgs {
  std::vector<std::string> packages;
  std::string gpu, driver, python, platform, index;
  bool json = false, markdown = false, verbose = false;
};

int run_advise(Context& ctx, const AdviseArgs& a) {
  auto target = resolve_target(a.gpu, a.driver, Catalog::builtin(), "--gpu");
  if (!target) return ctx.fail("advise", target.error().what);
  auto loaded = load_wheel_index(a.index);  // "" -> the built-in index
  if (!loaded) return ctx.fail("advise", loaded.error().to_string());
  const WheelIndex& index = **loaded;

  AdviseEnvironment env;
  env.driver_cuda = target->driver_cuda;
  IndexAnswerContext context = index_answer_context(index, a.index.empty() ? "built-in" : a.index);
  std::vector<std::string> packages = a.packages;
  if (!a.python.empty()) {
    auto installed = doctor::read_installed_packages(a.python);
    if (!installed) return ctx.fail("advise", installed.error().what);
    env.installed = installed->installed;
    env.python = installed->pip_python;
    context.python = a.python;
    context.site_packages = installed->site_packages;
    if (packages.empty()) {
      std::set<std::string> known;
      for (const auto& w : index.wheels) known.insert(w.package);
      for (const auto& [name, version] : env.installed)
        if (known.count(name)) packages.push_back(name);
    }
  } else if (packages.empty()) {
    return ctx.fail("advise",
                    "name the packages to advise on, or give --python to advise on an environment");
  }

  auto advice = advise(index, packages, *target, env, a.platform);
  context.target = *target;
  context.machine = a.platform.empty() ? default_machine_for(*target) : a.platform;
  context.argv = ctx.argv;
  context.verbose = a.verbose;
  if (a.json)
    fmt::print("{}\n", json_text(advise_to_json(advice, context)));
  else if (a.markdown)
    fmt::print("{}", render_advise_markdown(advice, context));
  else
    fmt::print("{}", render_advise_text(advice, context, ctx.out_style()));
  for (const auto& p : advice)
    if (!p.indexed || (p.device_code && !p.newest_native)) return kExitFindings;
  return kExitOk;
}

}  // namespace

void register_advise(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<AdviseArgs>();
  auto* cmd = app.add_subcommand(
      "advise",
      "Which release of a package to install for a GPU, from the wheel index (exit 1 when a "
      "package has no release that runs natively)");
  cmd->add_option("packages", a->packages,
                  "PyPI packages (torch, bitsandbytes, flash-attn, ...); with --python and none "
                  "given, every installed package the index knows");
  add_target_options(cmd, a->gpu, a->driver, "checks PTX and the CUDA runtime the wheels need");
  cmd->add_option("--python", a->python,
                  "The environment to advise for (interpreter, prefix or site-packages): its "
                  "installed torch pins lockstep packages, and pip commands use it");
  add_platform_option(cmd, a->platform,
                      "Wheels for this machine (default: aarch64 for GB10, GH200, GB200, Jetson; "
                      "else x86_64)");
  add_index_option(cmd, a->index);
  add_format_flags(cmd, a->json, &a->markdown, "smcompat.advise/1");
  cmd->add_flag("-v,--verbose", a->verbose, "Every indexed release and its file verdicts");
  cmd->callback([a, &ctx] { ctx.exit_code = run_advise(ctx, *a); });
}

}  // namespace smcompat::cli
