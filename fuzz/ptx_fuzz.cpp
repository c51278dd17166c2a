// libFuzzer target for the PTX lexer, parser, printer, analysis and retarget: any input must give
// a module or a located error, never a crash or a hang; a parsed module must print to text that
// parses again with the same number of statements.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "smcompat/ptx/analysis.hpp"
#include "smcompat/ptx/module.hpp"
#include "smcompat/ptx/retarget.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto m = smcompat::ptx::parse_module(text);
  if (!m.ok()) {
    if (!m.error().offset || *m.error().offset > size) std::abort();  // errors must be located
    return 0;
  }
  std::string printed = smcompat::ptx::print_module(*m);
  auto again = smcompat::ptx::parse_module(printed);
  if (!again.ok() || again->statements.size() != m->statements.size()) std::abort();
  auto target = smcompat::SmTarget::parse("sm_89");
  (void)smcompat::ptx::analyze(*m, *target);
  auto r = smcompat::ptx::retarget(text, *target);
  if (r.ok() && r->ok) {
    auto out = smcompat::ptx::parse_module(r->text);
    if (!out.ok()) std::abort();
  }
  return 0;
}
