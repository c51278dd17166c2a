// PEP 440 versions, the one comparator (doctor, index, advise, check and the wheel index use it).
#include "smcompat/scan/pep440.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <string>
#include <vector>

#include "smcompat/util/strings.hpp"

namespace smcompat {

namespace {

// PEP 440, as far as PyPI's GPU packages use it: [N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local].
struct Pep440 {
  long epoch = 0;
  std::vector<long> release;
  int pre_kind = 3;  // 0 a, 1 b, 2 rc, 3 none (a final release sorts after its pre-releases)
  long pre = 0;
  long post = -1;  // -1: none
  long dev = -1;   // -1: none (a dev release sorts before everything else of its release)
  std::string local;
};

long take_number(std::string_view& s) {
  long v = 0;
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    v = v * 10 + (s[i] - '0');
    if (v > 1'000'000'000) v = 1'000'000'000;
    ++i;
  }
  s.remove_prefix(i);
  return v;
}

void skip_separator(std::string_view& s) {
  if (!s.empty() && (s[0] == '.' || s[0] == '-' || s[0] == '_')) s.remove_prefix(1);
}

bool take_word(std::string_view& s, std::string_view word) {
  if (s.size() >= word.size() && to_lower(s.substr(0, word.size())) == word) {
    s.remove_prefix(word.size());
    return true;
  }
  return false;
}

Pep440 parse_pep440(std::string_view text) {
  Pep440 v;
  std::string lowered = to_lower(trim(text));
  std::string_view s = lowered;
  if (!s.empty() && s[0] == 'v') s.remove_prefix(1);
  if (auto plus = s.find('+'); plus != std::string_view::npos) {
    v.local = std::string(s.substr(plus + 1));
    std::replace(v.local.begin(), v.local.end(), '-', '.');  // PEP 440: -, _ and . are one
    std::replace(v.local.begin(), v.local.end(), '_', '.');
    s = s.substr(0, plus);
  }
  if (auto bang = s.find('!'); bang != std::string_view::npos) {
    std::string_view e = s.substr(0, bang);
    v.epoch = take_number(e);
    s.remove_prefix(bang + 1);
  }
  while (!s.empty() && std::isdigit(static_cast<unsigned char>(s[0]))) {
    v.release.push_back(take_number(s));
    if (s.size() >= 2 && s[0] == '.' && std::isdigit(static_cast<unsigned char>(s[1])))
      s.remove_prefix(1);
    else
      break;
  }
  while (!v.release.empty() && v.release.back() == 0 && v.release.size() > 1)
    v.release.pop_back();  // 2.9.0 == 2.9
  skip_separator(s);
  if (take_word(s, "rc") || take_word(s, "c") || take_word(s, "pre") || take_word(s, "preview")) {
    v.pre_kind = 2;
  } else if (take_word(s, "alpha") || take_word(s, "a")) {
    v.pre_kind = 0;
  } else if (take_word(s, "beta") || take_word(s, "b")) {
    v.pre_kind = 1;
  }
  if (v.pre_kind != 3) {
    skip_separator(s);
    v.pre = take_number(s);
  }
  skip_separator(s);
  if (take_word(s, "post") || take_word(s, "rev") || take_word(s, "r")) {
    skip_separator(s);
    v.post = take_number(s);
  }
  skip_separator(s);
  if (take_word(s, "dev")) {
    skip_separator(s);
    v.dev = take_number(s);
  }
  return v;
}

template <class T>
int cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// Local labels segment by segment (PEP 440 "Local version identifiers"): numbers compare as
// numbers and sort after words, words compare as text, and a label that runs out first is lower.
int compare_local(std::string_view a, std::string_view b) {
  auto sa = split(a, '.'), sb = split(b, '.');
  if (a.empty()) sa.clear();
  if (b.empty()) sb.clear();
  for (size_t i = 0; i < std::min(sa.size(), sb.size()); ++i) {
    bool na = all_digits(sa[i]), nb = all_digits(sb[i]);
    if (na != nb) return na ? 1 : -1;
    if (na) {
      std::string_view x = sa[i], y = sb[i];
      while (x.size() > 1 && x[0] == '0') x.remove_prefix(1);
      while (y.size() > 1 && y[0] == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
      if (int c = x.compare(y)) return c < 0 ? -1 : 1;
    } else if (int c = sa[i].compare(sb[i])) {
      return c < 0 ? -1 : 1;
    }
  }
  return cmp(sa.size(), sb.size());
}

}  // namespace

int compare_versions(std::string_view a, std::string_view b) {
  Pep440 x = parse_pep440(a), y = parse_pep440(b);
  if (int c = cmp(x.epoch, y.epoch)) return c;
  size_t n = std::max(x.release.size(), y.release.size());
  for (size_t i = 0; i < n; ++i) {
    long p = i < x.release.size() ? x.release[i] : 0, q = i < y.release.size() ? y.release[i] : 0;
    if (int c = cmp(p, q)) return c;
  }
  // A dev release without pre/post sorts before the release's pre-releases.
  auto pre_key = [](const Pep440& v) {
    if (v.pre_kind == 3 && v.post < 0 && v.dev >= 0) return std::pair<int, long>(-1, 0);
    return std::pair<int, long>(v.pre_kind, v.pre);
  };
  if (int c = cmp(pre_key(x), pre_key(y))) return c;
  if (int c = cmp(x.post, y.post)) return c;
  auto dev_key = [](const Pep440& v) { return v.dev < 0 ? LONG_MAX : v.dev; };
  if (int c = cmp(dev_key(x), dev_key(y))) return c;
  return compare_local(x.local, y.local);
}

std::string_view without_local(std::string_view version) {
  return version.substr(0, version.find('+'));
}

bool same_public_version(std::string_view a, std::string_view b) {
  return compare_versions(without_local(a), without_local(b)) == 0;
}

}  // namespace smcompat
