// `smcompat explain [options] TEXT... | --file LOG | -`: what does this error mean here? Matches
// the text against the failure-mode knowledge base and adds what the doctor finds on this machine.
// `--prompt` prints a redacted Markdown context bundle for an AI assistant instead.
// Options come first; from the first word that is not an explain option (or after `--`) every
// argument is error text, so pasted nvcc lines like `-gencode arch=...` are text, not options.
// Library: explain/explain.hpp.
#include "smcompat/explain/explain.hpp"

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "smcompat/explain/input.hpp"
#include "smcompat/report/explain_report.hpp"
#include "smcompat/util/files.hpp"
#include "smcompat/util/json_text.hpp"

namespace smcompat::cli {

namespace {

struct ExplainCliOptions {
  std::vector<std::string> text;
  bool text_after_marker = false;  ///< the text followed "--": a lone "-" is then text, not stdin
  std::string file;
  bool json = false;
  bool prompt = false;
  std::string output;
  bool no_doctor = false;
  bool no_active = false;
  std::vector<std::string> gpus;
  std::vector<std::string> pythons;
};

int run(Context& ctx, const ExplainCliOptions& o) {
  const bool from_stdin = !o.text_after_marker && o.text.size() == 1 && o.text[0] == "-";
  if (o.file.empty() && !from_stdin && o.text.empty())
    return ctx.fail("explain", "give the error text, --file LOG, or - for stdin");
  std::optional<doctor::DoctorReport> report;
  auto env = doctor::current_environment();
  if (!o.no_doctor) {
    doctor::DoctorOptions opt;
    opt.gpus = o.gpus;
    opt.pythons = o.pythons;
    opt.env = env;
    opt.discover_active = !o.no_active;
    report = doctor::run_doctor(opt);
    for (auto& err : report->errors) fmt::print(stderr, "smcompat explain: {}\n", err);
  }
  // The text is read line by line into the scan, never held whole.
  explain::TextScan scan(explain::KnowledgeBase::builtin());
  if (!o.file.empty() || from_stdin) {
    if (auto read = explain::scan_input(o.file.empty() ? "-" : o.file, scan); !read)
      return ctx.fail("explain", read.error().to_string());
  } else {
    std::string text;
    for (auto& t : o.text) text += (text.empty() ? "" : " ") + t;
    explain::scan_text(text, scan);
  }
  auto e = scan.finish(report ? &*report : nullptr);
  if (e.facts.lines == 0) return ctx.fail("explain", "the text is empty");
  std::string out;
  if (o.prompt) {
    out = prompt_bundle(e, report ? &*report : nullptr, env);
  } else if (o.json) {
    out = json_text(explain_to_json(e, ctx.argv)) + "\n";
  } else {
    out = render_explain_text(e, o.output.empty() ? ctx.out_style() : Style::plain());
  }
  if (!o.output.empty()) {
    if (auto e = write_file_atomically(o.output, out)) return ctx.fail("explain", e->to_string());
    fmt::print(stderr, "smcompat explain: wrote {}\n", o.output);
  } else {
    fmt::print("{}", out);
  }
  return e.matches.empty() ? kExitFindings : kExitOk;
}

}  // namespace

void register_explain(CLI::App& app, Context& ctx) {
  auto* cmd =
      app.add_subcommand("explain", "What does this GPU error mean here, and how to fix it");
  auto o = std::make_shared<ExplainCliOptions>();
  // The error text is every argument CLI11 leaves over, in order: prefix_command() ends option
  // parsing at the first word that is not an option, allow_extras() keeps unknown '-x' words.
  // "text" is declared for --help and so that CLI11 accepts "--", but it takes no word (its
  // validator refuses all), so each word, '-' included, lands in remaining() in order.
  cmd->add_option("text", o->text,
                  "The error text (words are joined with spaces), or - to read standard input; "
                  "put -- before text that starts with '-'")
      ->check(CLI::Validator([](std::string&) { return std::string("text"); }, ""));
  cmd->validate_positionals();
  cmd->prefix_command();
  cmd->allow_extras();
  cmd->fallthrough(false);  // left-over words are the error text, not the parent's options
  cmd->add_option("--file", o->file, "Read the error text from a log file");
  auto* json = add_format_flags(cmd, o->json, nullptr, "smcompat.explain/1");
  cmd->add_flag("--prompt", o->prompt,
                "Print a redacted Markdown context bundle for an AI assistant")
      ->excludes(json);
  cmd->add_option("-o,--output", o->output, "Write the output to this file");
  cmd->add_flag("--no-doctor", o->no_doctor, "Do not check this machine (knowledge base only)");
  cmd->add_flag("--no-active", o->no_active,
                "Doctor: do not look at $VIRTUAL_ENV, $CONDA_PREFIX or python3 on PATH");
  add_repeatable(cmd, "--gpu", o->gpus,
                 "Judge for this GPU too (passed to the doctor, repeatable)");
  add_repeatable(cmd, "--python", o->pythons, "Python environment for the doctor (repeatable)");
  cmd->callback([&ctx, o, cmd] {
    o->text.clear();
    o->text_after_marker = false;
    for (auto& word : cmd->remaining()) {
      if (word == "--" && !o->text_after_marker) {
        o->text_after_marker = true;  // the first "--" ends the options; later ones are text
        continue;
      }
      o->text.push_back(word);
    }
    ctx.exit_code = run(ctx, *o);
  });
}

}  // namespace smcompat::cli
