// Redaction for the AI context bundle (`smcompat explain --prompt`): the bundle may be pasted
// into any assistant, so only allow-listed environment variables appear, and anything shaped
// like a credential is masked. Token formats: AWS access key ids (AKIA/ASIA + 16, AWS IAM docs),
// Hugging Face user access tokens (hf_), GitHub tokens (ghp_/gho_/ghu_/ghs_/ghr_, github_pat_;
// GitHub docs "About authentication"), GitLab (glpat-), Slack (xox?-), OpenAI (sk-), Stripe
// (sk_live_/rk_live_), Google API keys (AIza), NVIDIA API keys (nvapi-), PyPI (pypi-), npm
// (npm_), JWTs.
//
// Every rule is a hand-written scanner that moves forward only (no std::regex: libstdc++'s
// matcher recurses per character, and the regex version crashed with a stack overflow on `hf_`
// followed by 1 MiB of letters and digits). The passes run in a fixed order; each replaces whole
// spans by [REDACTED] and never crosses a line break, so the line structure of the text survives.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "smcompat/explain/explain.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::explain {

namespace {

constexpr std::string_view kMask = "[REDACTED]";

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_word(char c) { return is_alnum(c) || c == '_'; }
bool is_blank(char c) { return c == ' ' || c == '\t'; }
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_quote(char c) { return c == '"' || c == '\'' || c == '`'; }
char ascii_lower(char c) { return is_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

bool contains_any(std::string_view s, std::initializer_list<std::string_view> words) {
  for (auto w : words)
    if (s.find(w) != std::string_view::npos) return true;
  return false;
}

// Copies the input, replacing the spans given (in increasing order) by the mask. A span that
// starts inside the previous mask extends it instead of adding a second mask.
class Masker {
 public:
  explicit Masker(std::string_view in) : in_(in) { out_.reserve(in.size()); }
  void mask(size_t b, size_t e) {
    e = std::min(e, in_.size());
    if (b < copied_) {
      copied_ = std::max(copied_, e);
      return;
    }
    if (e <= b) return;
    out_.append(in_.substr(copied_, b - copied_));
    out_ += kMask;
    copied_ = e;
  }
  std::string finish() {
    out_.append(in_.substr(std::min(copied_, in_.size())));
    return std::move(out_);
  }

 private:
  std::string_view in_;
  std::string out_;
  size_t copied_ = 0;
};

// Calls `f(begin, end)` for each maximal run of characters that `in_run` accepts; `f` returns
// where the scan goes on (at least `end`).
template <class Pred, class F>
void for_each_run(std::string_view t, Pred in_run, F f) {
  size_t i = 0;
  while (i < t.size()) {
    if (!in_run(t[i])) {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < t.size() && in_run(t[e])) ++e;
    i = f(i, e);
  }
}

// End of a value that opened with quote `q` at `b`: the matching quote or the end of the line.
size_t quoted_end(std::string_view t, size_t b, char q) {
  size_t e = b;
  while (e < t.size() && t[e] != q && t[e] != '\n') ++e;
  return e;
}

// ---- 1. `Authorization:` / `Proxy-Authorization:` headers (also `authorization=` and the
// quoted key of a JSON or Python dict). A known scheme word stays; the rest of the value goes:
// to the closing quote when the header or its value is quoted, else to the end of the line
// (Digest and AWS4 credentials carry several comma-separated parts).
bool is_auth_scheme(std::string_view w) {
  std::string s = to_lower(w);
  for (std::string_view k :
       {"bearer", "basic", "digest", "token", "negotiate", "ntlm", "apikey", "api-key", "key",
        "oauth", "hawk", "aws4-hmac-sha256", "sharedkey", "sso-key", "mac", "dpop", "gitlab-token"})
    if (s == k) return true;
  return false;
}

std::string mask_authorization(std::string_view t) {
  static constexpr std::string_view kWord = "authorization";
  Masker m(t);
  size_t i = 0;
  while (i + kWord.size() <= t.size()) {
    bool hit = true;
    for (size_t k = 0; k < kWord.size() && hit; ++k) hit = ascii_lower(t[i + k]) == kWord[k];
    if (!hit) {
      ++i;
      continue;
    }
    char outer_quote = i > 0 && is_quote(t[i - 1]) ? t[i - 1] : 0;
    size_t j = i + kWord.size();
    i = j;
    if (j < t.size() && is_quote(t[j])) ++j;  // the closing quote of a quoted key
    while (j < t.size() && is_blank(t[j])) ++j;
    if (j >= t.size() || (t[j] != ':' && t[j] != '=')) continue;
    ++j;
    while (j < t.size() && is_blank(t[j])) ++j;
    char q = 0;
    if (j < t.size() && is_quote(t[j])) q = t[j++];
    size_t vb = j;
    // Keep the scheme: a word followed by a blank.
    size_t we = vb;
    while (we < t.size() && (is_alnum(t[we]) || t[we] == '-')) ++we;
    if (we > vb && we < t.size() && is_blank(t[we]) && is_auth_scheme(t.substr(vb, we - vb))) {
      vb = we;
      while (vb < t.size() && is_blank(t[vb])) ++vb;
    }
    char stop = q ? q : outer_quote;
    size_t ve = vb;
    while (ve < t.size() && t[ve] != '\n' && t[ve] != '\r' && (!stop || t[ve] != stop)) ++ve;
    while (ve > vb && is_blank(t[ve - 1])) --ve;
    if (ve > vb) m.mask(vb, ve);
    i = std::max(i, ve);
  }
  return m.finish();
}

// ---- 2. URLs: credentials in the userinfo, secret-named query parameters, and long random
// tokens anywhere in the path, query or fragment (webhooks: Slack, Discord, Telegram).
bool is_url_char(char c) {
  return c > ' ' && c != '"' && c != '\'' && c != '`' && c != '<' && c != '>' && c != '{' &&
         c != '}' && c != '|' && c != '\\' && c != '^' && c != 0x7f;
}

bool secret_param_name(std::string_view name) {
  std::string n = to_lower(name);
  if (n == "sig" || n == "code" || n == "pw" || n == "pass") return true;
  return contains_any(n, {"token", "secret", "password", "passwd", "pwd", "key", "signature",
                          "credential", "auth", "session"});
}

double entropy_bits_per_char(std::string_view s) {
  std::array<int, 256> counts{};
  for (unsigned char c : s) counts[c]++;
  double h = 0;
  for (int c : counts) {
    if (!c) continue;
    double p = static_cast<double>(c) / static_cast<double>(s.size());
    h -= p * std::log2(p);
  }
  return h;
}

// Switches between upper case, lower case and digits at adjacent letters/digits: random base62
// switches at about 6 of 10 positions, names (Meta-Llama-3-8B-Instruct, CamelCase) far less.
size_t class_switches(std::string_view s) {
  auto cls = [](char c) { return is_upper(c) ? 1 : is_lower(c) ? 2 : is_digit(c) ? 3 : 0; };
  size_t n = 0;
  for (size_t k = 1; k < s.size(); ++k)
    if (cls(s[k]) && cls(s[k - 1]) && cls(s[k]) != cls(s[k - 1])) ++n;
  return n;
}

// The documented high-entropy rule: 24+ characters mixing upper case, lower case and digits with
// more than 4 bits of entropy per character. A short random string often stays under 4 bits (24
// characters hold at most log2(24) = 4.58 bits, and 1 in 20 random base62 strings of that length
// stays under 4), so it also counts when within 1 bit of that maximum and switching character
// class at least once every 4 characters.
bool high_entropy(std::string_view tok) {
  if (tok.size() < 24) return false;
  bool up = false, lo = false, di = false;
  for (char c : tok) {
    up |= is_upper(c);
    lo |= is_lower(c);
    di |= is_digit(c);
  }
  if (!(up && lo && di)) return false;
  double h = entropy_bits_per_char(tok);
  if (h > 4.0) return true;
  return h > std::log2(static_cast<double>(tok.size())) - 1.0 &&
         class_switches(tok) * 4 >= tok.size();
}

// A random-looking part of a URL (parts are split at '/', '?', '&', '=', ':', '.', %XX ...): the
// high-entropy rule; or 20+ characters with letters and one more class that switch class at
// least once every four characters; or upper and lower case letters within 1 bit of the maximum
// entropy switching case once every five; or an unbroken run of 20+ letters and digits mixing both.
// Pure hex is left to the hex rule (which knows about commit hashes).
bool random_url_part(std::string_view p) {
  if (p.size() < 20) return false;
  if (std::all_of(p.begin(), p.end(), is_hex)) return false;
  if (high_entropy(p)) return true;
  bool up = false, lo = false, di = false;
  size_t run = 0, longest_mixed_run = 0;
  bool run_alpha = false, run_digit = false;
  for (char c : p) {
    up |= is_upper(c);
    lo |= is_lower(c);
    di |= is_digit(c);
    if (is_alnum(c)) {
      ++run;
      run_alpha |= is_alpha(c);
      run_digit |= is_digit(c);
      if (run_alpha && run_digit) longest_mixed_run = std::max(longest_mixed_run, run);
    } else {
      run = 0;
      run_alpha = run_digit = false;
    }
  }
  if (longest_mixed_run >= 20) return true;
  int classes = int(up) + int(lo) + int(di);
  if (classes >= 2 && (up || lo) && class_switches(p) * 4 >= p.size()) return true;
  return up && lo && class_switches(p) * 5 >= p.size() &&
         entropy_bits_per_char(p) > std::log2(static_cast<double>(p.size())) - 1.0;
}

std::string mask_urls(std::string_view t) {
  Masker m(t);
  size_t i = 0;
  while (true) {
    size_t sep = t.find("://", i);
    if (sep == std::string_view::npos) break;
    size_t s = sep;
    while (s > i && sep - s < 32 &&
           (is_alnum(t[s - 1]) || t[s - 1] == '+' || t[s - 1] == '.' || t[s - 1] == '-'))
      --s;
    size_t hb = sep + 3;
    size_t e = hb;
    while (e < t.size() && is_url_char(t[e])) ++e;
    if (s == sep || !is_alpha(t[s])) {  // no scheme: not a URL
      i = hb;
      continue;
    }
    size_t a = hb;
    while (a < e && t[a] != '/' && t[a] != '?' && t[a] != '#') ++a;
    size_t at = std::string_view::npos;
    for (size_t k = hb; k < a; ++k)
      if (t[k] == '@') at = k;
    if (at != std::string_view::npos) {
      size_t colon = t.substr(hb, at - hb).find(':');
      if (colon != std::string_view::npos)
        m.mask(hb + colon + 1, at);  // user:password@ keeps the user
      else if (at - hb >= 16)
        m.mask(hb, at);  // a token as the user name (https://ghp_...@github.com)
    }
    // Path, query and fragment, part by part.
    bool in_query = false;
    size_t k = a;
    while (k < e) {
      char c = t[k];
      if (c == '?' || c == '#') in_query = true;
      if (!is_alnum(c) && c != '-' && c != '_' && c != '~' && c != '%' && c != '+') {
        ++k;
        continue;
      }
      size_t pe = k;
      while (pe < e && (is_alnum(t[pe]) || t[pe] == '-' || t[pe] == '_' || t[pe] == '~' ||
                        t[pe] == '%' || t[pe] == '+' || t[pe] == '.'))
        ++pe;
      if (in_query && pe < e && t[pe] == '=' && secret_param_name(t.substr(k, pe - k))) {
        size_t vb = pe + 1, ve = vb;
        while (ve < e && t[ve] != '&' && t[ve] != '#' && t[ve] != ';') ++ve;
        m.mask(vb, ve);
        k = ve;
        continue;
      }
      // Dots (file names) and percent escapes (%2B) separate the pieces judged.
      bool secret = false;
      for (size_t d = k; !secret && d < pe;) {
        size_t dn = d;
        while (dn < pe && t[dn] != '.' && t[dn] != '%') ++dn;
        secret = random_url_part(t.substr(d, dn - d));
        d = dn < pe && t[dn] == '%' ? std::min(pe, dn + 3) : dn + 1;
      }
      if (secret) m.mask(k, pe);
      k = pe;
    }
    i = std::max(e, hb);
  }
  return m.finish();
}

// ---- 3. key=value, key: value, "key": "value" where the key names a secret (token, secret,
// password, pwd, key, credential, auth). A quoted value runs to its closing quote (passphrases
// have spaces). Keys naming an error (KeyError: 'x') are not secrets; Authorization was pass 1.
bool is_key_char(char c) { return is_alnum(c) || c == '_' || c == '.' || c == '-'; }
// An unquoted value ends at a blank or quote, or at ',', ';', '&' that a blank (or the end)
// follows: `token=x; next` ends at ';', a password `a;b,c` keeps its punctuation.
bool is_value_end(std::string_view t, size_t k) {
  char c = t[k];
  if (is_space(c) || c == '"' || c == '\'') return true;
  if (c != ',' && c != ';' && c != '&') return false;
  return k + 1 >= t.size() || is_space(t[k + 1]) || is_quote(t[k + 1]);
}

std::string mask_secret_assignments(std::string_view t) {
  Masker m(t);
  size_t done = 0;  // nothing before this is looked at again
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c != '=' && c != ':') continue;
    if (c == ':' && i + 2 < t.size() && t[i + 1] == '/' && t[i + 2] == '/') continue;  // URL
    size_t e = i;
    while (e > done && is_blank(t[e - 1])) --e;
    if (e > done && is_quote(t[e - 1])) --e;
    size_t b = e;
    while (b > done && is_key_char(t[b - 1]) && e - b < 128) --b;
    if (b == e) continue;
    std::string key = to_lower(t.substr(b, e - b));
    if (!contains_any(
            key, {"token", "secret", "passwd", "password", "pwd", "key", "credential", "auth"}) ||
        contains_any(key, {"error", "exception", "authorization"}))
      continue;
    size_t v = i + 1;
    while (v < t.size() && is_blank(t[v])) ++v;
    size_t ve;
    if (v < t.size() && is_quote(t[v])) {
      ++v;
      ve = quoted_end(t, v, t[v - 1]);
    } else {
      // `token: Bearer x`: the scheme stays, the credential goes.
      size_t we = v;
      while (we < t.size() && is_alnum(t[we])) ++we;
      if (we > v && we < t.size() && is_blank(t[we]) && is_auth_scheme(t.substr(v, we - v))) {
        v = we;
        while (v < t.size() && is_blank(t[v])) ++v;
      }
      ve = v;
      while (ve < t.size() && !is_value_end(t, ve)) ++ve;
    }
    if (ve == v) continue;
    if (t.substr(v, kMask.size()) == kMask) {  // masked by an earlier pass (a URL's query)
      i = v + kMask.size() - 1;
      continue;
    }
    m.mask(v, ve);
    done = ve;
    i = ve > 0 ? ve - 1 : ve;
  }
  return m.finish();
}

// ---- 4. Command-line flags whose next word is the secret: `-p X`, `--password X`,
// `--api-key X`, `--token X` (and any long flag naming a password, token, secret, credential or
// API key). The value is the next word, or a quoted string. `-p` is also mkdir's "parents" and
// ssh's/docker's port, so after `-p` a number or port map (22, 8080:80) and a path (/x, ./x,
// ../x, ~/x) are kept. The attached form `-pX` is not masked (`-pthread` is everywhere).
bool is_secret_long_flag(std::string_view core) {
  size_t dashes = 0;
  while (dashes < core.size() && core[dashes] == '-') ++dashes;
  if (dashes == 0 || dashes > 2 || core.size() - dashes < 2) return false;
  std::string name;
  for (char c : core.substr(dashes)) {
    if (!is_alnum(c) && c != '-' && c != '_') return false;
    name += c == '_' ? '-' : ascii_lower(c);
  }
  if (name == "pass" || name == "pw" || name == "pwd" || name == "key" || name == "auth")
    return true;
  return contains_any(name, {"password", "passwd", "passphrase", "token", "secret", "api-key",
                             "apikey", "credential", "access-key", "private-key"});
}

bool keep_after_dash_p(std::string_view v) {
  if (v.empty() || v[0] == '-') return true;
  if (std::all_of(v.begin(), v.end(),
                  [](char c) { return is_digit(c) || c == ':' || c == ',' || c == '-'; }))
    return true;
  return v[0] == '/' || v.substr(0, 2) == "./" || v.substr(0, 3) == "../" || v.substr(0, 2) == "~/";
}

std::string mask_flags(std::string_view t) {
  Masker m(t);
  size_t i = 0;
  while (i < t.size()) {
    if (is_space(t[i])) {
      ++i;
      continue;
    }
    size_t we = i;
    while (we < t.size() && !is_space(t[we])) ++we;
    // The flag itself, without the quoting and punctuation of an argv dump or of prose.
    size_t cb = i, ce = we;
    while (cb < ce && !is_alnum(t[cb]) && t[cb] != '-') ++cb;
    while (ce > cb && !is_alnum(t[ce - 1])) --ce;
    // `--token=VALUE` (here rather than in the key=value pass: the value runs to the blank).
    size_t eq = t.substr(cb, ce - cb).find('=');
    bool attached = eq != std::string_view::npos;
    std::string_view core = t.substr(cb, attached ? eq : ce - cb);
    bool dash_p = !attached && core == "-p";
    if (!dash_p && !is_secret_long_flag(core)) {
      i = we;
      continue;
    }
    size_t v = attached ? cb + eq + 1 : we;
    while (!attached && v < t.size() && is_blank(t[v])) ++v;
    if (v >= t.size() || is_space(t[v])) {
      i = std::max(v, we);
      continue;
    }
    size_t vb = v, ve;
    if (is_quote(t[v])) {
      vb = v + 1;
      ve = quoted_end(t, vb, t[v]);
    } else {
      ve = v;
      while (ve < t.size() && !is_space(t[ve])) ++ve;
      while (ve > vb && (is_quote(t[ve - 1]) || t[ve - 1] == ',' || t[ve - 1] == ']' ||
                         t[ve - 1] == ')' || t[ve - 1] == '>' || t[ve - 1] == ';'))
        --ve;
    }
    std::string_view value = t.substr(vb, ve - vb);
    bool keep = dash_p ? keep_after_dash_p(value) : value.substr(0, 2) == "--";
    keep |= t.substr(vb, kMask.size()) == kMask;  // `--token=x`, masked as key=value
    if (keep || value.empty()) {
      i = std::max(v, we);
      continue;
    }
    m.mask(vb, ve);
    // The value word may itself be a flag (`-p =--token x`): look at it again.
    i = std::max(v, we);
  }
  return m.finish();
}

// ---- 5. Tokens with a documented prefix, and `Bearer`/`Basic`/`token` followed by a credential.
struct PrefixRule {
  std::string_view prefix;
  size_t min_body;  ///< characters of the body class after the prefix
  bool (*body)(char);
};
bool upper_digit(char c) { return is_upper(c) || is_digit(c); }
bool word_char(char c) { return is_word(c); }
bool word_dash(char c) { return is_word(c) || c == '-'; }
bool alnum_dash(char c) { return is_alnum(c) || c == '-'; }
bool jwt_char(char c) { return is_word(c) || c == '-' || c == '.'; }
bool cred_char(char c) {
  return is_alnum(c) || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '=' ||
         c == '-';
}

const PrefixRule kPrefixRules[] = {
    {"AKIA", 16, upper_digit},  {"ASIA", 16, upper_digit},  {"AGPA", 16, upper_digit},
    {"AIDA", 16, upper_digit},  {"AROA", 16, upper_digit},  {"ANPA", 16, upper_digit},
    {"AIPA", 16, upper_digit},  {"hf_", 20, is_alnum},      {"github_pat_", 20, word_char},
    {"ghp_", 20, is_alnum},     {"gho_", 20, is_alnum},     {"ghu_", 20, is_alnum},
    {"ghs_", 20, is_alnum},     {"ghr_", 20, is_alnum},     {"glpat-", 20, word_dash},
    {"xoxa-", 10, alnum_dash},  {"xoxb-", 10, alnum_dash},  {"xoxp-", 10, alnum_dash},
    {"xoxo-", 10, alnum_dash},  {"xoxs-", 10, alnum_dash},  {"xoxr-", 10, alnum_dash},
    {"sk-", 20, word_dash},     {"sk_live_", 16, is_alnum}, {"sk_test_", 16, is_alnum},
    {"rk_live_", 16, is_alnum}, {"AIza", 35, word_dash},    {"nvapi-", 32, word_dash},
    {"pypi-", 50, word_dash},   {"npm_", 30, is_alnum},     {"eyJ", 30, jwt_char},
};

std::string mask_prefixed_tokens(std::string_view t) {
  Masker m(t);
  size_t i = 0;
  while (i < t.size()) {
    if (i > 0 && is_word(t[i - 1])) {
      ++i;
      continue;
    }
    size_t end = 0;
    for (auto& r : kPrefixRules) {
      if (t.substr(i, r.prefix.size()) != r.prefix) continue;
      size_t e = i + r.prefix.size();
      while (e < t.size() && r.body(t[e])) ++e;
      if (e - i - r.prefix.size() < r.min_body) continue;
      if (r.prefix == "eyJ" && std::count(t.begin() + i, t.begin() + e, '.') < 2) continue;
      end = e;
      break;
    }
    if (end) {
      m.mask(i, end);
      i = end;
      continue;
    }
    // Bearer / Basic / token followed by a credential of 16+ characters.
    size_t we = i;
    while (we < t.size() && is_alpha(t[we]) && we - i < 7) ++we;
    std::string w = to_lower(t.substr(i, we - i));
    if ((w == "bearer" || w == "basic" || w == "token") && we < t.size() && is_blank(t[we])) {
      size_t cb = we;
      while (cb < t.size() && is_blank(t[cb])) ++cb;
      size_t ce = cb;
      while (ce < t.size() && cred_char(t[ce])) ++ce;
      if (ce - cb >= 16) {
        m.mask(cb, ce);
        i = ce;
        continue;
      }
    }
    i = std::max(i + 1, we);
  }
  return m.finish();
}

// ---- 6. Key-like hex: any run of 32+ hex digits. Kept only when it has the length of a digest
// (32 MD5, 40 SHA-1/git, 64 SHA-256, 128 SHA-512) and one of the two words just before it says
// what it is (commit, sha, sha256, hash, rev, revision, git, checksum, digest, md5, tree, blob,
// build id, HEAD, and snapshots/resolve in Hugging Face cache paths and URLs).
bool digest_context(std::string_view t, size_t run_begin) {
  size_t lb = run_begin;
  while (lb > 0 && t[lb - 1] != '\n' && run_begin - lb < 48) --lb;
  std::string_view before = t.substr(lb, run_begin - lb);
  // The last two alphanumeric words (split at '_' and '-' too).
  int seen = 0;
  size_t k = before.size();
  while (k > 0 && seen < 2) {
    while (k > 0 && !is_alnum(before[k - 1])) --k;
    size_t we = k;
    while (k > 0 && is_alnum(before[k - 1])) --k;
    if (we == k) break;
    std::string w = to_lower(before.substr(k, we - k));
    ++seen;
    // Whole words only ("shared", "review", "github" say nothing); sha1, sha256, ... count.
    if (w.size() > 3 && w.compare(0, 3, "sha") == 0 &&
        std::all_of(w.begin() + 3, w.end(), is_digit))
      return true;
    for (std::string_view p :
         {"commit", "commits",  "commitid", "sha",      "hash",      "githash", "gitsha",
          "rev",    "revision", "git",      "checksum", "digest",    "md5",     "blake2b",
          "tree",   "blob",     "build",    "buildid",  "snapshots", "resolve", "head"})
      if (w == p) return true;
  }
  return false;
}

std::string mask_hex_keys(std::string_view t) {
  Masker m(t);
  for_each_run(t, is_hex, [&](size_t i, size_t e) {
    size_t n = e - i;
    if (n >= 32) {
      bool digest_len = n == 32 || n == 40 || n == 64 || n == 128;
      if (!(digest_len && digest_context(t, i))) m.mask(i, e);
    }
    return e;
  });
  return m.finish();
}

// ---- 7. The documented high-entropy rule for free text: a token of [A-Za-z0-9+/=_-] of 24+
// characters mixing upper case, lower case and digits with more than 4 bits per character (AWS
// secret keys, generic API keys). A path (leading '/', '.', '~', or several '/') is judged
// segment by segment; C++ mangled names stay.
// A C++ symbol (`_ZN3c104cuda9SetDeviceEab` in "undefined symbol: ..."): what makes an
// extension's load error useful, and high in entropy.
bool itanium_mangled(std::string_view tok) {
  return tok.size() > 3 && tok.substr(0, 2) == "_Z" &&
         (tok[2] == 'N' || tok[2] == 'L' || tok[2] == 'T' || tok[2] == 'S' || is_digit(tok[2]));
}

std::string mask_high_entropy(std::string_view t) {
  Masker m(t);
  auto is_tok = [](char c) {
    return is_alnum(c) || c == '+' || c == '/' || c == '=' || c == '_' || c == '-';
  };
  for_each_run(t, is_tok, [&](size_t i, size_t j) {
    if (t.substr(j, 3) == "://") {  // a URL: pass 2 judged it part by part
      j += 3;
      while (j < t.size() && is_url_char(t[j])) ++j;
      return j;
    }
    std::string_view tok = t.substr(i, j - i);
    bool pathlike = tok[0] == '/' || (i > 0 && (t[i - 1] == '.' || t[i - 1] == '~')) ||
                    std::count(tok.begin(), tok.end(), '/') > 1;
    if (!pathlike && high_entropy(tok) && !itanium_mangled(tok)) {
      m.mask(i, j);
    } else if (pathlike) {
      for (size_t s = 0; s < tok.size();) {
        size_t se = tok.find('/', s);
        if (se == std::string_view::npos) se = tok.size();
        std::string_view seg = tok.substr(s, se - s);
        if (high_entropy(seg) && !itanium_mangled(seg)) m.mask(i + s, i + se);
        s = se + 1;
      }
    }
    return j;
  });
  return m.finish();
}

}  // namespace

std::string redact(std::string_view text) {
  std::string s = mask_authorization(text);
  s = mask_urls(s);
  s = mask_secret_assignments(s);
  // After key=value: `-p` would otherwise take a following `API_KEY=...` as its value.
  s = mask_flags(s);
  s = mask_prefixed_tokens(s);
  s = mask_hex_keys(s);
  return mask_high_entropy(s);
}

bool env_var_allowed(std::string_view name) {
  std::string n = to_lower(name);
  // Never, whatever the prefix: names that sound like credentials.
  for (const char* bad : {"token", "secret", "password", "passwd", "key", "credential", "auth",
                          "cookie", "session", "private"}) {
    if (n.find(bad) != std::string::npos) return false;
  }
  // The doctor's CUDA variables (a cache path says nothing about an error), and more that
  // shape how CUDA code builds and runs.
  if (name != "CUDA_CACHE_PATH" && doctor::is_cuda_variable(name)) return true;
  static constexpr std::string_view kMore[] = {"CUDA_LAUNCH_BLOCKING",
                                               "CONDA_DEFAULT_ENV",
                                               "NVCC_APPEND_FLAGS",
                                               "NVCC_PREPEND_FLAGS",
                                               "NVIDIA_VISIBLE_DEVICES",
                                               "NVIDIA_DRIVER_CAPABILITIES",
                                               "TORCH_USE_CUDA_DSA",
                                               "VLLM_USE_DEEP_GEMM",
                                               "NCCL_P2P_DISABLE",
                                               "NCCL_IB_DISABLE",
                                               "NCCL_DEBUG",
                                               "CC",
                                               "CXX",
                                               "PYENV_VERSION"};
  if (std::find(std::begin(kMore), std::end(kMore), name) != std::end(kMore)) return true;
  return false;
}

}  // namespace smcompat::explain
