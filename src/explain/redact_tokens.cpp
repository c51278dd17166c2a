// Redaction passes 5-8 (src/explain/redact.cpp runs them; rules in docs/explain.md): command-line
// flags whose next word is a secret, tokens with a documented prefix, key-like hex runs, and the
// high-entropy rule for free text.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "redact_passes.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::explain::redaction {

// ---- 5. Command-line flags whose next word is the secret: `-p X`, `--password X`,
// `--api-key X`, `--token X` (and any long flag naming a password, token, secret, credential or
// API key). The value is the next word, or a quoted string. `-p` is also mkdir's "parents" and
// ssh's/docker's port, so after `-p` a number or port map (22, 8080:80) and a path (/x, ./x,
// ../x, ~/x) are kept. The attached form `-pX` is masked only after a tool whose `-p` takes the
// password attached (`mysql -pX`, `sshpass -pX`; `-pthread` is everywhere else), and `-w X`/`-wX`
// only after an OpenLDAP tool (ldapsearch; `-w` is grep's "words", gcc's "no warnings").
// Flags whose value holds a secret in a known place:
//  - `user:password` after curl's `-u`/`--user`/`-U`/`--proxy-user` (also `-uuser:pw`, `-su`):
//    the password goes, the user stays; no colon means no password (curl asks for it). Kept: a
//    uid:gid pair (`docker run -u 1000:1000`), a path after the colon (`rsync -u host:/data`,
//    `pip install -U git+https://...`), a `date -u +%H:%M` format, a `$(...)`/`${...}` expansion.
//    Samba's `user%password` (smbclient `-U`, `--user`) likewise.
//  - OpenSSL's pass-phrase arguments (`-passin`, `-passout`, `-pass`, `-password`): `pass:PW`
//    loses PW; `env:VAR`, `file:PATH`, `fd:N` and `stdin` name no secret and stay.
//  - .netrc's `password PW` after `machine HOST`, `login USER`, `account X` or `default` (on the
//    same line or the lines before; lower-case keywords, values without punctuation after them).
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

// The command a word names, when its short options take a password in a form that other
// commands use for something else.
enum class Tool {
  kNone,
  kAttachedP,  ///< `-pPASSWORD`: MySQL/MariaDB clients, sshpass
  kLdap,       ///< `-w PASSWORD`, `-wPASSWORD`: OpenLDAP clients
};

Tool tool_named(std::string_view core) {
  size_t slash = core.rfind('/');
  std::string_view base = core;
  if (slash != std::string_view::npos) {
    // A path counts only as a program (/usr/bin/mysql), not as a directory (-I/usr/include/mysql).
    std::string_view dir = core.substr(0, slash);
    if (dir.size() < 3 || dir.substr(dir.size() - 3) != "bin") return Tool::kNone;
    base = core.substr(slash + 1);
  }
  static constexpr std::string_view kAttachedP[] = {
      "mysql",        "mysqldump",    "mysqladmin",     "mysqlimport",    "mysqlcheck",
      "mysqlshow",    "mysqlslap",    "mysqlpump",      "mysqlbinlog",    "mysqlsh",
      "mariadb",      "mariadb-dump", "mariadb-admin",  "mariadb-import", "mariadb-check",
      "mariadb-show", "mariadb-slap", "mariadb-binlog", "sshpass"};
  static constexpr std::string_view kLdap[] = {"ldapsearch",  "ldapmodify", "ldapadd",
                                               "ldapdelete",  "ldapwhoami", "ldappasswd",
                                               "ldapcompare", "ldapmodrdn", "ldapexop"};
  if (std::find(std::begin(kAttachedP), std::end(kAttachedP), base) != std::end(kAttachedP))
    return Tool::kAttachedP;
  if (std::find(std::begin(kLdap), std::end(kLdap), base) != std::end(kLdap)) return Tool::kLdap;
  return Tool::kNone;
}

// Commands that sshpass runs: their `-p` is a port again (`sshpass -pX ssh -p2222 host`).
bool ends_tool(std::string_view core) {
  return core == "ssh" || core == "scp" || core == "sftp" || core == "rsync";
}

// Shell words that end a command: never a flag's value (`mysql -p && next`).
bool is_shell_separator(std::string_view w) {
  return w == "|" || w == "||" || w == "&&" || w == "&" || w == ";" || w == ">" || w == ">>" ||
         w == "<" || w == "2>" || w == "2>&1" || w == "|&";
}

// How a flag's value is judged.
enum class Value {
  kNone,      ///< not a flag with a secret value
  kSecret,    ///< the whole value, unless it is another long flag (`--use-auth-token --push`)
  kDashP,     ///< the whole value, unless keep_after_dash_p
  kUserPass,  ///< the part after the first ':' (or '%' too, for Samba)
  kOpenssl,   ///< `pass:X` loses X; env:, file:, fd:, stdin stay
};

struct FlagValue {
  Value kind = Value::kNone;
  size_t attached = 0;   ///< offset of an attached value in the word's core; 0: the next word
  bool percent = false;  ///< kUserPass: '%' separates too
};

// `core` is the word without quoting and trailing punctuation, `tail` the word from the same start
// to its end (`-p&%x.`, whose core is `-p`).
FlagValue classify_flag(std::string_view core, std::string_view tail, Tool tool,
                        std::string_view prev1, std::string_view prev2) {
  // A value attached to a short option: more than the quotes and punctuation of an argv dump.
  bool attached_value =
      core.size() > 2 ||
      (tail.size() > 2 && tail.find_first_not_of("'\"`,;)]}>", 2) != std::string_view::npos);
  if (core.size() >= 2 && core[0] == '-' && core[1] != '-' && attached_value) {
    if (core[1] == 'p' && tool == Tool::kAttachedP) return {Value::kSecret, 2};
    if (core[1] == 'w' && tool == Tool::kLdap) return {Value::kSecret, 2};
  }
  // `--token=VALUE` (here rather than in the key=value pass: the value runs to the blank).
  size_t eq = core.find('=');
  std::string_view flag = core.substr(0, eq);
  size_t at = eq == std::string_view::npos ? 0 : eq + 1;
  if (flag == "-passin" || flag == "-passout" || flag == "-pass" || flag == "-password")
    return {Value::kOpenssl, at};
  if (is_secret_long_flag(flag)) return {Value::kSecret, at};
  if (core == "-p") return {Value::kDashP};
  if (flag == "-u" || flag == "--user" || flag == "-U" || flag == "--proxy-user")
    return {Value::kUserPass, at, flag != "-u"};
  if (core == "-w") return {tool == Tool::kLdap ? Value::kSecret : Value::kNone};
  if (core.size() > 2 && core[0] == '-' && core[1] != '-') {
    char o = core[1];
    // `-uuser:pw`, `-Uuser%pw`: a user name follows at once (not the `-u):$(id` of an
    // unquoted `$(id -u):$(id -g)`).
    if ((o == 'u' || o == 'U') && (is_word(core[2]) || is_quote(core[2])))
      return {Value::kUserPass, 2, o == 'U'};
    // A cluster of short options ending in `u` (`curl -su user:pw`).
    if (core.size() <= 7 && core.back() == 'u' &&
        std::all_of(core.begin() + 1, core.end(), is_alpha))
      return {Value::kUserPass};
  }
  if (core == "password" &&
      (prev1 == "default" ||
       (!prev1.empty() && (prev2 == "machine" || prev2 == "login" || prev2 == "account"))))
    return {Value::kSecret};
  return {};
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}

// The part of a kUserPass flag's value to mask, as [b, e) within the value; b == e when nothing
// goes.
std::pair<size_t, size_t> user_pass_secret(std::string_view value, bool percent) {
  std::pair<size_t, size_t> none{0, 0};
  if (value.empty() || value[0] == '-' || value[0] == '+') return none;
  size_t s = value.find_first_of(percent ? ":%" : ":");
  if (s == std::string_view::npos || s == 0 || s + 1 >= value.size()) return none;
  std::string_view user = value.substr(0, s), secret = value.substr(s + 1);
  if (value[s] == ':' && (secret[0] == '/' || (all_digits(user) && all_digits(secret)) ||
                          user.find('%') != std::string_view::npos))
    return none;
  if (secret.substr(0, 2) == "$(" || secret.substr(0, 2) == "${") return none;
  return {s + 1, value.size()};
}

std::string mask_flags(std::string_view t) {
  Masker m(t);
  Tool tool = Tool::kNone;  // the command of this line (up to `|`, `&&`, `;`)
  // The last two words, for .netrc's `login USER password PW`: netrc's lower-case keywords and
  // plain values, so a word with punctuation after it (`Login failed: password expired`) or longer
  // than 64 characters counts as none.
  std::string prev1, prev2;
  size_t i = 0;
  while (i < t.size()) {
    if (is_space(t[i])) {
      if (t[i] == '\n') tool = Tool::kNone;
      ++i;
      continue;
    }
    size_t we = i;
    while (we < t.size() && !is_space(t[we])) ++we;
    // The flag itself, without the quoting and punctuation of an argv dump or of prose.
    size_t cb = i, ce = we;
    while (cb < ce && !is_alnum(t[cb]) && t[cb] != '-') ++cb;
    while (ce > cb && !is_alnum(t[ce - 1])) --ce;
    std::string_view core = t.substr(cb, ce - cb);
    std::string_view raw = t.substr(i, we - i);
    if (Tool named = tool_named(core); named != Tool::kNone) tool = named;
    if (ends_tool(core)) tool = Tool::kNone;
    FlagValue f = classify_flag(core, t.substr(cb, we - cb), tool, prev1, prev2);
    prev2 = std::move(prev1);
    prev1 = ce == we && core.size() <= 64 ? std::string(core) : std::string();
    bool ends_command = is_shell_separator(raw) || raw.back() == ';';
    if (ends_command) tool = Tool::kNone;
    i = we;
    // `mysql -p;`: the command ends with the flag, which has no value.
    if (f.kind == Value::kNone || (!f.attached && ends_command)) continue;
    size_t v = f.attached ? cb + f.attached : we;
    while (!f.attached && v < t.size() && is_blank(t[v])) ++v;
    // The value word may itself be a flag (`-p =--token x`): look at it again.
    i = std::max(v, we);
    if (v >= t.size() || is_space(t[v])) continue;
    size_t vb = v, ve;
    if (is_quote(t[v])) {
      vb = v + 1;
      ve = quoted_end(t, vb, t[v]);
    } else {
      ve = v;
      while (ve < t.size() && !is_space(t[ve])) ++ve;
      // Without trailing quotes and punctuation, but never into a mask of an earlier pass
      // (`--passwd :x]` is `--passwd :[REDACTED]]` by now: one "]" is the mask's).
      while (ve > vb &&
             (is_quote(t[ve - 1]) || t[ve - 1] == ',' || t[ve - 1] == ']' || t[ve - 1] == ')' ||
              t[ve - 1] == '}' || t[ve - 1] == '>' || t[ve - 1] == ';') &&
             !(ve - vb >= kMask.size() && t.substr(ve - kMask.size(), kMask.size()) == kMask))
        --ve;
    }
    std::string_view value = t.substr(vb, ve - vb);
    // Masked by an earlier pass (`--token=x` as key=value); the value without its trailing
    // punctuation has lost the mask's "]".
    if (value.empty() || t.substr(vb, kMask.size()) == kMask) continue;
    if (!f.attached && vb == v && is_shell_separator(t.substr(v, ve - v))) continue;
    size_t mb = vb, me = ve;
    switch (f.kind) {
      case Value::kSecret:
        if (value.substr(0, 2) == "--") continue;
        break;
      case Value::kDashP:
        if (keep_after_dash_p(value)) continue;
        break;
      case Value::kUserPass: {
        auto [b, e] = user_pass_secret(value, f.percent);
        if (b == e || t.substr(vb + b, kMask.size()) == kMask) continue;
        mb = vb + b;
        break;
      }
      case Value::kOpenssl:
        if (value.substr(0, 5) == "pass:") {
          mb = vb + 5;
          if (mb < me && is_quote(t[mb])) {  // pass:"a b"
            ++mb;
            me = quoted_end(t, mb, t[mb - 1]);
          }
          if (mb >= me) continue;
        } else if (value.substr(0, 4) == "env:" || value.substr(0, 5) == "file:" ||
                   value.substr(0, 3) == "fd:" || value == "stdin" || value[0] == '-') {
          continue;
        }
        break;
      case Value::kNone:
        break;
    }
    m.mask(mb, me);
  }
  return m.finish();
}

// ---- 6. Tokens with a documented prefix, and `Bearer`/`Basic`/`token` followed by a credential.
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

// ---- 7. Key-like hex: any run of 32+ hex digits. Kept only when it has the length of a digest
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

// ---- 8. The documented high-entropy rule for free text: a token of [A-Za-z0-9+/=_-] of 24+
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

}  // namespace smcompat::explain::redaction
