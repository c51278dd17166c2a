// `smcompat scan PATH...`: inventory of device code with a verdict for a target GPU.
#include "smcompat/scan/scan.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "commands.hpp"
#include "options.hpp"
#include "smcompat/api/api.hpp"
#include "smcompat/report/scan_report.hpp"
#include "smcompat/util/json_stream.hpp"

namespace smcompat::cli {

namespace {

struct ScanArgs {
  api::ScanRequest request;  // what the library call needs, parsed into directly
  std::string fail_on;
  bool json = false, quiet = false;
};

// Exit code for --fail-on: 1 when something at or above the threshold was found.
bool fails(const ScanReport& r, const std::string& fail_on) {
  if (fail_on.empty()) return false;
  for (const auto& f : r.files) {
    if (fail_on == "error" && !f.inventory.errors.empty()) return true;
    if (!f.verdict || !f.verdict->has_device_code) continue;
    const FileVerdict& v = *f.verdict;
    if (fail_on == "warning" && (!v.resource_warnings.empty() || !better(v.verdict, Fit::kPtxJit) ||
                                 v.partial || !f.inventory.errors.empty()))
      return true;
    if (auto threshold = parse_fit(fail_on); threshold && !better(v.verdict, *threshold))
      return true;
  }
  return fail_on == "error" && !r.errors.empty();
}

}  // namespace

void register_scan(CLI::App& app, Context& ctx) {
  static ScanArgs a;
  auto* cmd = app.add_subcommand("scan",
                                 "Inventory the GPU code in files, directories, archives "
                                 "and wheels, with a verdict for a GPU");
  cmd->add_option("paths", a.request.paths,
                  "Files or directories (.so, executables, .o, .a, .cubin, "
                  ".fatbin, .ptx, .whl, site-packages, ...)")
      ->required();
  cmd->add_option("--gpu", a.request.gpu,
                  "Judge for this GPU, e.g. \"RTX 5090\", B200, GB10, \"H100 SXM\"");
  cmd->add_option("--target", a.request.target,
                  "Judge for this architecture: 12.0, sm_120, sm_90a");
  add_driver_option(cmd, a.request.driver, "checks PTX");
  cmd->add_flag("--deep", a.request.deep,
                "Decode every image: kernels, registers, shared memory, stack");
  cmd->add_flag("--json", a.json, "JSON output (schema smcompat.scan/2, docs/json-schema.md)");
  cmd->add_flag("-v,--verbose", a.request.verbose, "List every unit and full target lists");
  cmd->add_flag("-q,--quiet", a.quiet, "No progress on stderr");
  cmd->add_flag("!--no-probe", a.request.probe,
                "Without --gpu/--target, do not judge for this machine's GPU");
  cmd->add_option("-j,--jobs", a.request.jobs, "Threads (default: all cores)");
  cmd->add_option("--fail-on", a.fail_on,
                  "Exit 1 if any file is at or worse than this: no-image, "
                  "unsupported-ptx, ptx-jit, warning (also partial "
                  "coverage, resource warnings, read errors) or error")
      ->check(CLI::IsMember({"no-image", "unsupported-ptx", "ptx-jit", "warning", "error"}));
  cmd->callback([&ctx] {
    const api::ScanRequest& request = a.request;
    if (request.gpu.empty() && request.target.empty() && !a.fail_on.empty() &&
        a.fail_on != "error") {
      ctx.fail("scan", fmt::format("--fail-on {} needs a target (--gpu or --target)", a.fail_on));
      return;
    }
    auto resolved = api::scan_options(request);
    if (!resolved) {
      ctx.fail("scan", resolved.error().what);
      return;
    }
    ScanOptions opt = std::move(*resolved);
    bool show_progress = !a.quiet && isatty(fileno(stderr));
    if (show_progress) {
      opt.progress = [](const ScanProgress& p) {
        if (p.files_total < 2) return;
        fmt::print(stderr, "\r\x1b[K[{}/{}] {}", p.files_done, p.files_total, p.current);
        if (p.files_done == p.files_total) fmt::print(stderr, "\r\x1b[K");
        std::fflush(stderr);
      };
    }
    ScanReport report = scan_paths(request.paths, opt);
    ScanRenderOptions render{request.deep, request.verbose, ctx.argv};
    if (a.json) {
      StdioSink out(stdout);
      write_json_document(out, 2,
                          [&](JsonWriter& json) { write_scan_json(json, report, opt, render); });
    } else {
      fmt::print("{}", render_scan_text(report, opt, render, ctx.out_style()));
    }
    // 2: a path named on the command line could not be read at all.
    for (const auto& e : report.errors) {
      for (const auto& p : request.paths)
        if (e.file == p) ctx.exit_code = kExitError;
    }
    if (ctx.exit_code == kExitOk && fails(report, a.fail_on)) ctx.exit_code = kExitFindings;
  });
}

}  // namespace smcompat::cli
