// Failure-mode matching over error text (data/failure_modes.json); rendering is in
// report/explain_report.cpp. The text is read once, line by line (TextScan): the facts first
// (explain/facts.hpp), every mode's patterns as one RE2 set, the tool that wrote each matched
// line, and at the end the fix for that tool, computed from the facts (fixes.cpp).
#include "smcompat/explain/explain.hpp"

#include <fmt/format.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <deque>
#include <map>

#include "fixes.hpp"
#include "smcompat/explain/input.hpp"
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
    {&FailureMode::reference, "reference"},
    {&FailureMode::compute, "compute"}};
constexpr std::pair<std::vector<std::string> FailureMode::*, const char*> kModeLists[] = {
    {&FailureMode::patterns, "patterns"}, {&FailureMode::tools, "tools"},
    {&FailureMode::confirm, "confirm"},   {&FailureMode::related_findings, "related_findings"},
    {&FailureMode::refs, "refs"},         {&FailureMode::families, "families"}};

constexpr size_t kShownLine = 300;     // characters of a matched line shown
constexpr size_t kExcerptLine = 1000;  // characters of a line kept for the context bundle
constexpr size_t kHeadLines = 60, kTailLines = 20, kAround = 5;
constexpr size_t kAttributeWithin = 50;  // lines between a tool's own line and a match
constexpr size_t kJoinWindow = 200;      // characters of each side of a wrapped line

RE2::Options pattern_options() {
  RE2::Options o;
  o.set_case_sensitive(false);
  o.set_log_errors(false);
  o.set_max_mem(64 << 20);
  return o;
}

// A line as the excerpt keeps it: at most kExcerptLine characters.
std::string excerpt_line(std::string_view raw) {
  return std::string(raw.substr(0, std::min(raw.size(), kExcerptLine)));
}

}  // namespace

struct KnowledgeBase::Compiled {
  std::unique_ptr<RE2::Set> patterns;              // every mode's patterns
  std::vector<std::unique_ptr<RE2>> pattern_rx;    // the same, one by one
  std::vector<size_t> pattern_mode;                // mode index of each
  std::unique_ptr<RE2::Set> whens;                 // every context fix's `when`
  std::vector<std::pair<size_t, size_t>> when_of;  // (mode, fix) of each
};

KnowledgeBase::KnowledgeBase() : c_(std::make_unique<Compiled>()) {}
KnowledgeBase::~KnowledgeBase() = default;
KnowledgeBase::KnowledgeBase(KnowledgeBase&&) noexcept = default;
KnowledgeBase& KnowledgeBase::operator=(KnowledgeBase&&) noexcept = default;

Result<KnowledgeBase> KnowledgeBase::from_json(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("modes") || !j["modes"].is_array())
    return make_error("failure modes: not a JSON object with a 'modes' array");
  KnowledgeBase kb;
  auto& c = *kb.c_;
  c.patterns = std::make_unique<RE2::Set>(pattern_options(), RE2::UNANCHORED);
  c.whens = std::make_unique<RE2::Set>(pattern_options(), RE2::UNANCHORED);
  auto check = [](const std::string& p, const std::string& where) -> Result<void> {
    RE2 rx(p, pattern_options());
    if (!rx.ok()) return make_error(fmt::format("{}: bad pattern '{}': {}", where, p, rx.error()));
    return {};
  };
  for (auto& m : j["modes"]) {
    FailureMode f;
    for (auto [field, key] : kModeText) f.*field = json_string(m, key);
    for (auto [field, key] : kModeLists) f.*field = json_string_list(m, key);
    f.harmless = m.value("harmless", false);
    f.umbrella = m.value("umbrella", false);
    if (f.id.empty())
      return make_error(fmt::format("failure modes: entry {} has no id", kb.modes_.size()));
    if (m.contains("fixes") && m["fixes"].is_array()) {
      for (auto& cj : m["fixes"]) {
        ContextFix cf;
        cf.label = json_string(cj, "label");
        cf.tool = json_string(cj, "tool");
        cf.when = json_string(cj, "when");
        cf.fix = json_string(cj, "fix");
        cf.refs = json_string_list(cj, "refs");
        if (auto cc = json_string(cj, "gpu_max_cc"); !cc.empty())
          cf.gpu_max_cc = ComputeCapability::parse(cc);
        if (cf.when.empty() || cf.fix.empty())
          return make_error(
              fmt::format("failure mode {}: a context fix needs 'when' and 'fix'", f.id));
        f.fixes.push_back(std::move(cf));
      }
    }
    const size_t index = kb.modes_.size();
    for (auto& p : f.patterns) {
      SMCOMPAT_CHECK(check(p, "failure mode " + f.id));
      c.patterns->Add(p, nullptr);
      c.pattern_rx.push_back(std::make_unique<RE2>(p, pattern_options()));
      c.pattern_mode.push_back(index);
    }
    for (size_t k = 0; k < f.fixes.size(); ++k) {
      SMCOMPAT_CHECK(check(f.fixes[k].when, "failure mode " + f.id));
      c.whens->Add(f.fixes[k].when, nullptr);
      c.when_of.emplace_back(index, k);
    }
    kb.modes_.push_back(std::move(f));
  }
  for (auto& t : j.value("tools", nlohmann::json::array())) {
    ToolSignature sig{json_string(t, "id"), json_string(t, "label"),
                      json_string_list(t, "patterns")};
    for (auto& p : sig.patterns) SMCOMPAT_CHECK(check(p, "tool " + sig.id));
    kb.tools_.push_back(std::move(sig));
  }
  for (auto& g : j.value("gpu_names", nlohmann::json::array())) {
    auto cc = ComputeCapability::parse(json_string(g, "cc"));
    std::string p = json_string(g, "match");
    SMCOMPAT_CHECK(check(p, "gpu name"));
    if (!cc) return make_error(fmt::format("gpu name '{}': bad cc", p));
    kb.gpu_names_.push_back({p, *cc});
  }
  for (auto& r : j.value("retired_archs", nlohmann::json::array()))
    kb.retired_.push_back(
        {r.value("sm", 0), json_string(r, "last_cuda"), json_string(r, "source")});
  for (auto& r : j.value("library_sonames", nlohmann::json::array()))
    kb.sonames_.push_back({json_string(r, "library"), json_string(r, "soname"),
                           json_string(r, "first_cuda"), json_string(r, "last_cuda"),
                           json_string(r, "wheel"), json_string(r, "source")});
  for (auto& r : j.value("torch_releases", nlohmann::json::array()))
    kb.torch_releases_.push_back(
        {json_string(r, "torch"), json_string_list(r, "cuda"), json_string(r, "source")});
  for (auto& r : j.value("host_compilers", nlohmann::json::array()))
    kb.host_compilers_.push_back(
        {json_string(r, "cuda"), json_string(r, "gcc_max"), json_string(r, "source")});
  for (auto& r : j.value("onnxruntime_builds", nlohmann::json::array()))
    kb.onnxruntime_builds_.push_back({json_string(r, "first"), json_string(r, "last"),
                                      json_string(r, "cuda"), json_string(r, "cudnn"),
                                      json_string(r, "channel"), json_string(r, "source")});
  if (!c.patterns->Compile() || !c.whens->Compile())
    return make_error("failure modes: the patterns do not compile together (RE2 memory limit)");
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

const ToolSignature* KnowledgeBase::tool(std::string_view id) const {
  for (auto& t : tools_)
    if (t.id == id) return &t;
  return nullptr;
}

std::string KnowledgeBase::Match::full_fix() const {
  std::string out = fix();
  for (const auto& s : specifics) out += " " + s;
  return out;
}

// ---- the scan ---------------------------------------------------------------------------------

struct TextScan::State {
  const KnowledgeBase* kb;
  const Catalog* catalog;
  FactReader facts;
  size_t line_no = 0;
  std::vector<bool> matched;   // per mode
  std::vector<bool> when_hit;  // per context fix (KnowledgeBase::Compiled::when_of)
  struct Pending {
    KnowledgeBase::Match match;
    std::vector<std::string> tools_on_line;
    std::string tool_before;  // the last tool seen before the line, within kAttributeWithin
    std::string tool_after;   // the first tool seen after it, within kAttributeWithin
  };
  std::vector<Pending> pending;
  std::string last_tool;
  size_t last_tool_line = 0;
  std::string previous;  // the previous normalised line (for wrapped lines)
  // The excerpt: the head, kAround lines before and after each match, the tail.
  std::vector<std::pair<size_t, std::string>> kept;   // around matches
  std::vector<std::pair<size_t, std::string>> head;   // the first kHeadLines
  std::deque<std::pair<size_t, std::string>> recent;  // the last kAround (+ tail) lines
  size_t keep_after_until = 0;

  State(const KnowledgeBase& k, const Catalog& c)
      : kb(&k), catalog(&c), facts(k.tools(), k.gpu_names(), c) {
    matched.assign(k.modes().size(), false);
    when_hit.assign(k.c_->when_of.size(), false);
  }

  void keep(size_t n, std::string_view raw) {
    if (!kept.empty() && kept.back().first >= n) return;
    kept.emplace_back(n, excerpt_line(raw));
  }
};

TextScan::TextScan(const KnowledgeBase& kb, const Catalog& catalog)
    : s_(std::make_unique<State>(kb, catalog)) {}
TextScan::~TextScan() = default;

void TextScan::add_line(std::string_view raw) {
  State& s = *s_;
  const size_t n = ++s.line_no;
  const auto& c = *s.kb->c_;
  std::string line = normalise_log_line(raw);
  // A line wrapped by a terminal or a forum ("undefined symbol:" / "_ZN..."): the end of the
  // previous line and the start of this one are matched together too.
  std::string joined;
  if (!s.previous.empty() && !line.empty())
    joined = s.previous.substr(s.previous.size() - std::min(s.previous.size(), kJoinWindow)) + " " +
             line.substr(0, std::min(line.size(), kJoinWindow));
  // Facts come from each line alone; the joined text only serves the patterns.
  std::vector<std::string> tools_here;
  if (!line.empty()) tools_here = s.facts.add_line(line, n);

  bool matched_here = false;
  for (const std::string* text : {&line, &joined}) {
    if (text->empty()) continue;
    std::vector<int> h;
    if (c.patterns) c.patterns->Match(*text, &h);  // null only for an empty knowledge base
    std::sort(h.begin(), h.end());                 // a mode's first pattern first
    for (int i : h) {
      size_t mode = c.pattern_mode[i];
      if (s.matched[mode]) continue;
      re2::StringPiece m;
      if (!c.pattern_rx[i]->Match(*text, 0, text->size(), RE2::UNANCHORED, &m, 1)) continue;
      s.matched[mode] = true;
      std::string shown(trim(*text));
      if (shown.size() > kShownLine) shown = shown.substr(0, kShownLine - 3) + "...";
      State::Pending p;
      p.match.mode = &s.kb->modes()[mode];
      p.match.line = n;
      p.match.line_text = shown;
      p.match.matched = std::string(m);
      p.tools_on_line = tools_here;
      if (!s.last_tool.empty() && n - s.last_tool_line <= kAttributeWithin)
        p.tool_before = s.last_tool;
      s.pending.push_back(std::move(p));
      matched_here = true;
    }
    std::vector<int> w;
    if (c.whens) c.whens->Match(*text, &w);
    for (int i : w) s.when_hit[i] = true;
  }
  if (!tools_here.empty()) {
    s.last_tool = tools_here.front();
    s.last_tool_line = n;
    for (auto& p : s.pending)
      if (p.tool_after.empty() && n > p.match.line && n - p.match.line <= kAttributeWithin)
        p.tool_after = tools_here.front();
  }
  // The excerpt for the context bundle.
  if (matched_here) {
    // The kAround lines before the match (recent holds the tail, which is longer).
    size_t skip = s.recent.size() > kAround ? s.recent.size() - kAround : 0;
    for (size_t k = skip; k < s.recent.size(); ++k) s.keep(s.recent[k].first, s.recent[k].second);
    s.keep_after_until = n + kAround;
  }
  if (n <= s.keep_after_until) s.keep(n, raw);
  if (n <= kHeadLines) s.head.emplace_back(n, excerpt_line(raw));
  s.recent.emplace_back(n, excerpt_line(raw));
  if (s.recent.size() > kTailLines) s.recent.pop_front();
  s.previous = line;
}

namespace {

// The tool that wrote a matched line: one named on the line itself, else the last one seen just
// before it, else the first seen just after it, else the only tool of the whole text.
std::string writer_of(const std::vector<std::string>& on_line, const std::string& before,
                      const std::string& after, const TextFacts& facts) {
  if (!on_line.empty()) return on_line.front();
  if (!before.empty()) return before;
  if (!after.empty()) return after;
  if (facts.tools.size() == 1) return facts.tools.front().tool;
  return "";
}

// nvcc, ptxas and CMake: their lines are about the project they build.
bool builds_code(const std::string& tool) { return tool == "cuda-toolkit" || tool == "cmake"; }

// Whether the text names a framework other than `tool` (build tools, the driver and the container
// toolkit are not frameworks; torch under a library that runs on it is that library's).
bool names_another_framework(const TextFacts& facts, const std::string& tool) {
  for (const auto& t : facts.tools) {
    if (t.tool == tool) continue;
    if (builds_code(t.tool) || t.tool == "nvidia-driver" || t.tool == "container-toolkit") continue;
    if ((t.tool == "pytorch" || t.tool == "comfyui") && runs_on_torch(tool)) continue;
    return true;
  }
  return false;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

Explanation TextScan::finish(const doctor::DoctorReport* doctor) {
  State& s = *s_;
  Explanation e;
  e.have_doctor = doctor != nullptr;
  e.facts = s.facts.take();
  const auto& c = *s.kb->c_;
  for (auto& p : s.pending) {
    KnowledgeBase::Match m = std::move(p.match);
    m.tool = writer_of(p.tools_on_line, p.tool_before, p.tool_after, e.facts);
    const FailureMode& mode = *m.mode;
    // A fix for tool `t` fits a line `t` wrote; a build tool's line (nvcc, CMake) is about the
    // project it builds, so a fix for a project the text names fits it too.
    auto fits = [&](const std::string& t) {
      if (t.empty() || m.tool.empty() || t == m.tool) return true;
      if (t == "pytorch" && m.tool == "comfyui") return true;  // ComfyUI's errors are torch's
      return builds_code(m.tool) && e.facts.has_tool(t);
    };
    // A mode about some tools' errors does not explain a line another tool wrote.
    if (!mode.tools.empty() && std::none_of(mode.tools.begin(), mode.tools.end(), fits)) continue;
    for (size_t k = 0; k < c.when_of.size() && !m.context; ++k) {
      auto [mi, fi] = c.when_of[k];
      if (&s.kb->modes()[mi] != &mode) continue;
      const ContextFix& cf = mode.fixes[fi];
      // Its words in the text, or its tool as the line's writer, choose a context fix.
      if (!s.when_hit[k] && (cf.tool.empty() || cf.tool != m.tool)) continue;
      if (!fits(cf.tool)) continue;
      // A line no tool signs, in a text that names another framework too: whose remedy it needs
      // is not known, so the mode's general fix stands rather than one tool's.
      if (m.tool.empty() && !cf.tool.empty() && names_another_framework(e.facts, cf.tool)) continue;
      if (cf.gpu_max_cc && e.facts.gpu() && *e.facts.gpu()->cc > *cf.gpu_max_cc) continue;
      m.context = &cf;
    }
    m.specifics = computed_fix(mode, m, e.facts, *s.kb, *s.catalog, doctor);
    m.confidence = m.tool.empty() ? "medium" : "high";
    e.matches.push_back(std::move(m));
  }
  // Real errors first, then the wrappers around them, then the harmless warnings.
  auto rank = [](const KnowledgeBase::Match& m) {
    return m.mode->harmless ? 2 : (m.mode->umbrella ? 1 : 0);
  };
  std::stable_sort(e.matches.begin(), e.matches.end(),
                   [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  for (auto& m : e.matches) {
    std::vector<doctor::Finding> related;
    if (doctor)
      for (auto& f : doctor->findings)
        if (contains(m.mode->related_findings, f.id)) related.push_back(f);
    e.on_this_machine.push_back(std::move(related));
  }
  e.conflicts = fact_conflicts(e.facts);
  if (e.matches.empty()) e.nearest = nearest_modes(*s.kb, e.facts, s.head, s.recent);
  // The excerpt: around the matches, else the head and the tail.
  if (!e.matches.empty()) {
    e.excerpt = std::move(s.kept);
  } else {
    e.excerpt = std::move(s.head);
    for (auto& [k, text] : s.recent)
      if (e.excerpt.empty() || e.excerpt.back().first < k) e.excerpt.emplace_back(k, text);
  }
  return e;
}

std::vector<KnowledgeBase::Match> KnowledgeBase::match(std::string_view text) const {
  return explain_text(text, *this, nullptr).matches;
}

Explanation explain_text(std::string_view text, const KnowledgeBase& kb,
                         const doctor::DoctorReport* doctor) {
  TextScan scan(kb);
  scan_text(text, scan);  // the same line splitting as --file and standard input
  return scan.finish(doctor);
}

}  // namespace smcompat::explain
