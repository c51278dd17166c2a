// Failure-mode matching over error text (data/failure_modes.json); rendering is in
// report/explain_report.cpp. Matching is
// line by line so that huge logs cost linear time and every match names its line.
#include "smcompat/explain/explain.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "smcompat/util/embedded.hpp"
#include "smcompat/util/json_fields.hpp"
#include "smcompat/util/strings.hpp"

SMCOMPAT_EMBEDDED(failure_modes_json)

namespace smcompat::explain {

namespace {

// The fields of a failure mode, by their key in data/failure_modes.json.
constexpr std::pair<std::string FailureMode::*, const char*> kModeText[] = {
    {&FailureMode::id, "id"},
    {&FailureMode::title, "title"},
    {&FailureMode::cause, "cause"},
    {&FailureMode::fix, "fix"},
    {&FailureMode::reference, "reference"}};
constexpr std::pair<std::vector<std::string> FailureMode::*, const char*> kModeLists[] = {
    {&FailureMode::patterns, "patterns"},
    {&FailureMode::confirm, "confirm"},
    {&FailureMode::related_findings, "related_findings"},
    {&FailureMode::refs, "refs"},
    {&FailureMode::families, "families"}};

}  // namespace

Result<KnowledgeBase> KnowledgeBase::from_json(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("modes") || !j["modes"].is_array())
    return make_error("failure modes: not a JSON object with a 'modes' array");
  KnowledgeBase kb;
  size_t index = 0;
  for (auto& m : j["modes"]) {
    FailureMode f;
    for (auto [field, key] : kModeText) f.*field = json_string(m, key);
    for (auto [field, key] : kModeLists) f.*field = json_string_list(m, key);
    if (f.id.empty()) return make_error(fmt::format("failure modes: entry {} has no id", index));
    if (m.contains("fixes") && m["fixes"].is_array()) {
      for (auto& c : m["fixes"]) {
        ContextFix cf;
        cf.label = json_string(c, "label");
        cf.when = json_string(c, "when");
        cf.fix = json_string(c, "fix");
        cf.refs = json_string_list(c, "refs");
        if (cf.when.empty() || cf.fix.empty())
          return make_error(
              fmt::format("failure mode {}: a context fix needs 'when' and 'fix'", f.id));
        f.fixes.push_back(std::move(cf));
      }
    }
    std::vector<std::regex> rx, when;
    auto compile = [&](const std::string& p, std::vector<std::regex>& into) -> Result<void> {
      try {
        into.emplace_back(p, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
      } catch (const std::regex_error& e) {
        return make_error(fmt::format("failure mode {}: bad pattern '{}': {}", f.id, p, e.what()));
      }
      return {};
    };
    for (auto& p : f.patterns) SMCOMPAT_CHECK(compile(p, rx));
    for (auto& c : f.fixes) SMCOMPAT_CHECK(compile(c.when, when));
    kb.modes_.push_back(std::move(f));
    kb.regexes_.push_back(std::move(rx));
    kb.when_.push_back(std::move(when));
    ++index;
  }
  return kb;
}

const KnowledgeBase& KnowledgeBase::builtin() {
  static const KnowledgeBase kb = [] {
    std::string_view text =
        embedded_text(embedded::failure_modes_json, embedded::failure_modes_json_size);
    auto r = from_json(text);
    return r ? std::move(*r) : KnowledgeBase();  // the tests assert the built-in parses
  }();
  return kb;
}

const FailureMode* KnowledgeBase::find(std::string_view id) const {
  for (auto& m : modes_)
    if (m.id == id) return &m;
  return nullptr;
}

std::vector<KnowledgeBase::Match> KnowledgeBase::match(std::string_view text) const {
  std::vector<Match> out;
  std::vector<size_t> mode_of;  // index into modes_ of each match
  std::vector<bool> seen(modes_.size(), false);
  std::vector<std::string> lines;
  size_t line_no = 0;
  for (auto raw : split(text, '\n')) {
    ++line_no;
    // Long lines (minified JSON, progress bars) are cut: patterns are short phrases.
    std::string line(raw.substr(0, std::min<size_t>(raw.size(), 4096)));
    if (trim(line).empty()) continue;
    for (size_t i = 0; i < modes_.size(); ++i) {
      if (seen[i]) continue;
      for (auto& rx : regexes_[i]) {
        std::smatch m;
        if (std::regex_search(line, m, rx)) {
          seen[i] = true;
          std::string shown(trim(line));
          if (shown.size() > 300) shown = shown.substr(0, 297) + "...";
          out.push_back({&modes_[i], line_no, shown, m.str(0)});
          mode_of.push_back(i);
          break;
        }
      }
    }
    lines.push_back(std::move(line));
  }
  // The tool the text came from decides the fix: the first context whose `when` matches any line.
  for (size_t k = 0; k < out.size(); ++k) {
    auto& whens = when_[mode_of[k]];
    for (size_t c = 0; c < whens.size() && !out[k].context; ++c) {
      for (auto& line : lines) {
        if (std::regex_search(line, whens[c])) {
          out[k].context = &out[k].mode->fixes[c];
          break;
        }
      }
    }
  }
  return out;
}

Explanation explain_text(std::string_view text, const KnowledgeBase& kb,
                         const doctor::DoctorReport* doctor) {
  Explanation e;
  e.matches = kb.match(text);
  e.have_doctor = doctor != nullptr;
  for (auto& m : e.matches) {
    std::vector<doctor::Finding> related;
    if (doctor) {
      for (auto& f : doctor->findings) {
        if (std::find(m.mode->related_findings.begin(), m.mode->related_findings.end(), f.id) !=
            m.mode->related_findings.end())
          related.push_back(f);
      }
    }
    e.on_this_machine.push_back(std::move(related));
  }
  return e;
}

}  // namespace smcompat::explain
