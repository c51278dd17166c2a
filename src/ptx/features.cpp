// Loads data/ptx_features.json (compiled in) and matches instructions against its rows. Matching
// is by dotted parts, so ".shared::cluster" never matches ".shared" and "cp.async" never matches
// "cp.async.bulk" unless a row says so. Rows are indexed by opcode for speed.
#include "smcompat/ptx/features.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <nlohmann/json.hpp>

#include "smcompat/util/embedded.hpp"

SMCOMPAT_EMBEDDED(ptx_features_json)

namespace smcompat {
namespace ptx {
namespace {

std::vector<std::string> split_dots(std::string_view s) {
  std::vector<std::string> parts;
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find('.', b);
    if (e == std::string_view::npos) e = s.size();
    parts.emplace_back(s.substr(b, e - b));
    b = e + 1;
  }
  return parts;
}

// Splits an instruction name into parts without allocating (up to 24 parts).
struct Parts {
  std::string_view p[24];
  size_t n = 0;
  explicit Parts(std::string_view name) {
    size_t b = 0;
    while (n < 24) {
      size_t e = name.find('.', b);
      if (e == std::string_view::npos) {
        p[n++] = name.substr(b);
        break;
      }
      p[n++] = name.substr(b, e - b);
      b = e + 1;
    }
  }
  bool has_modifier(std::string_view dotted) const {
    std::string_view m = dotted.substr(1);
    for (size_t i = 1; i < n; ++i)
      if (p[i] == m) return true;
    return false;
  }
  bool starts_with(const std::vector<std::string>& prefix) const {
    if (prefix.size() > n) return false;
    for (size_t i = 0; i < prefix.size(); ++i)
      if (p[i] != prefix[i]) return false;
    return true;
  }
};

bool contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool matches(const FeatureMatch& m, const Parts& parts, const std::string_view* operands,
             uint32_t operand_count) {
  if (!m.directive_any.empty()) return false;
  if (!m.prefix.empty() && !parts.starts_with(m.prefix)) return false;
  if (!m.opcodes.empty() &&
      std::find(m.opcodes.begin(), m.opcodes.end(), parts.p[0]) == m.opcodes.end())
    return false;
  for (const auto& np : m.not_prefix)
    if (parts.starts_with(np)) return false;
  for (const auto& a : m.all)
    if (!parts.has_modifier(a)) return false;
  if (!m.any.empty()) {
    bool found = false;
    for (const auto& a : m.any)
      if (parts.has_modifier(a)) {
        found = true;
        break;
      }
    if (!found) return false;
  }
  for (const auto& a : m.none)
    if (parts.has_modifier(a)) return false;
  if (!m.operand_any.empty()) {
    bool found = false;
    for (uint32_t i = 0; i < operand_count && !found; ++i) {
      std::string_view op = operands[i];
      if (op.find('%') == std::string_view::npos) continue;
      for (const auto& t : m.operand_any) {
        size_t pos = op.find(t);
        // a whole special-register name: not followed by an identifier character
        while (pos != std::string_view::npos) {
          size_t after = pos + t.size();
          char c = after < op.size() ? op[after] : ' ';
          if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$')) {
            found = true;
            break;
          }
          pos = op.find(t, pos + 1);
        }
        if (found) break;
      }
    }
    if (!found) return false;
  }
  return true;
}

template <class T>
std::vector<T> list(const nlohmann::json& j, const char* key) {
  std::vector<T> out;
  if (j.contains(key) && j[key].is_array())
    for (const auto& e : j[key]) out.push_back(e.get<T>());
  return out;
}

}  // namespace

const FeatureTable& FeatureTable::builtin() {
  static const FeatureTable table = [] {
    std::string_view text =
        embedded_text(embedded::ptx_features_json, embedded::ptx_features_json_size);
    auto t = from_json(text);
    // The embedded file is checked by the test suite; a broken build gets an empty table rather
    // than a crash.
    return t.ok() ? std::move(*t) : FeatureTable{};
  }();
  return table;
}

Result<FeatureTable> FeatureTable::from_json(std::string_view json_text) {
  FeatureTable t;
  try {
    auto doc = nlohmann::json::parse(json_text);
    for (const auto& r : doc.at("features")) {
      FeatureRow row;
      row.id = r.at("id").get<std::string>();
      row.title = r.value("title", "");
      const auto& m = r.at("match");
      if (m.contains("prefix")) row.match.prefix = split_dots(m["prefix"].get<std::string>());
      for (const auto& np : list<std::string>(m, "not_prefix"))
        row.match.not_prefix.push_back(split_dots(np));
      row.match.opcodes = list<std::string>(m, "opcodes");
      row.match.all = list<std::string>(m, "all");
      row.match.any = list<std::string>(m, "any");
      row.match.none = list<std::string>(m, "none");
      row.match.operand_any = list<std::string>(m, "operand_any");
      row.match.directive_any = list<std::string>(m, "directive_any");
      for (const auto* v : {&row.match.all, &row.match.any, &row.match.none})
        for (const auto& s : *v)
          if (s.empty() || s[0] != '.')
            return make_error(
                fmt::format("ptx feature '{}': modifier '{}' must start with '.'", row.id, s));
      if (r.contains("min_sm") && !r["min_sm"].is_null()) row.min_sm = r["min_sm"].get<int>();
      row.arch_specific = list<int>(r, "arch_specific");
      row.family_specific = list<int>(r, "family_specific");
      auto isa = Version::parse(r.value("ptx_isa", "1.0"));
      if (!isa) return make_error(fmt::format("ptx feature '{}': bad ptx_isa", row.id));
      row.ptx_isa = *isa;
      row.rewrite = r.value("rewrite", "");
      row.dsmem = r.value("dsmem", false);
      row.strategy = r.value("strategy", "");
      row.source = r.value("source", "");
      row.ptxas_note = r.value("ptxas_note", "");
      if (row.source.empty())
        return make_error(fmt::format("ptx feature '{}' cites no source", row.id));
      if (!row.min_sm && row.arch_specific.empty() && row.family_specific.empty())
        return make_error(fmt::format("ptx feature '{}' is available nowhere", row.id));
      t.rows_.push_back(std::move(row));
    }
  } catch (const std::exception& e) {
    return make_error(fmt::format("ptx feature table: {}", e.what()));
  }
  return t;
}

const FeatureRow* FeatureTable::find(std::string_view id) const {
  for (const auto& r : rows_)
    if (r.id == id) return &r;
  return nullptr;
}

void FeatureTable::match_instruction(const Statement& inst, const std::string_view* operands,
                                     std::vector<uint16_t>& out) const {
  Parts parts(inst.name);
  for (size_t i = 0; i < rows_.size(); ++i) {
    const FeatureMatch& m = rows_[i].match;
    // cheap opcode pre-filter
    if (!m.prefix.empty() && m.prefix[0] != parts.p[0]) continue;
    if (!m.opcodes.empty() &&
        std::find(m.opcodes.begin(), m.opcodes.end(), parts.p[0]) == m.opcodes.end())
      continue;
    if (matches(m, parts, operands, inst.operand_count)) out.push_back(static_cast<uint16_t>(i));
  }
}

void FeatureTable::match_directive(std::string_view directive, std::vector<uint16_t>& out) const {
  for (size_t i = 0; i < rows_.size(); ++i)
    for (const auto& d : rows_[i].match.directive_any)
      if (d == directive) {
        out.push_back(static_cast<uint16_t>(i));
        break;
      }
}

Availability FeatureTable::availability(const FeatureRow& row, const SmTarget& target) {
  const int arch = target.arch;
  if (row.min_sm && arch >= *row.min_sm) return Availability::kAvailable;
  const bool fam = contains(row.family_specific, arch);
  const bool spec = contains(row.arch_specific, arch);
  if (target.variant != ArchVariant::kBase && fam) return Availability::kAvailable;
  if (target.variant == ArchVariant::kArchSpecific && spec) return Availability::kAvailable;
  if (fam) return Availability::kNeedsFamily;
  if (spec) return Availability::kNeedsArchSpecific;
  return Availability::kUnavailable;
}

}  // namespace ptx
}  // namespace smcompat
