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
// spans by [REDACTED] and never crosses a line break, so the line structure of the text survives
// (the output has as many lines as the input, line k of the output is line k of the input masked).
// A PEM private key is the one secret that spans lines: its body goes whole, but as one mask per
// body line, so the rule holds for it too. A mask stops before a closing quote, backtick or
// bracket that closes something opened before the secret: "`TOKEN=x`" keeps its last "`".
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "redact_passes.hpp"
#include "smcompat/explain/explain.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::explain {

namespace redaction {

// ---- 1. PEM private keys (RFC 7468 armour; PKCS#1 "RSA PRIVATE KEY", SEC 1 "EC PRIVATE KEY",
// PKCS#8 "PRIVATE KEY" and "ENCRYPTED PRIVATE KEY", "DSA PRIVATE KEY", "OPENSSH PRIVATE KEY",
// "PGP PRIVATE KEY BLOCK", and the "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----" form). The body
// goes whole, from the BEGIN marker to the first END marker after it, or to the end of the text
// when none follows (a truncated key): the base64 lines hold '/' and '+', which split them into
// runs too short for the other rules. It goes as one mask per line (blanks at either end of a line
// stay), so the line count survives; the BEGIN and END markers stay, saying that a key was there
// and of which kind. Certificates, public keys and requests are public and stay.
struct Armour {
  bool begin;        ///< BEGIN, else END
  bool private_key;  ///< the label names a private key
  size_t close;      ///< where its closing dashes start
  size_t end;        ///< after its closing dashes
};

// The armour marker whose opening run of 4+ dashes ends at `k`: an optional blank, BEGIN or END, a
// label of capitals, digits and blanks (at most 80), 4+ dashes. Reads at most ~100 characters.
std::optional<Armour> armour_after_dashes(std::string_view t, size_t k) {
  if (k < t.size() && t[k] == ' ') ++k;
  Armour a{};
  if (t.substr(k, 6) == "BEGIN ") {
    a.begin = true;
    k += 6;
  } else if (t.substr(k, 4) == "END ") {
    k += 4;
  } else {
    return std::nullopt;
  }
  size_t lb = k;
  while (k < t.size() && k - lb < 80 && (is_upper(t[k]) || is_digit(t[k]) || t[k] == ' ')) ++k;
  size_t le = k;
  while (le > lb && t[le - 1] == ' ') --le;
  if (le == lb || !is_upper(t[lb])) return std::nullopt;
  size_t d = k;
  while (d < t.size() && t[d] == '-' && d - k < 5) ++d;
  if (d - k < 4) return std::nullopt;
  a.private_key = t.substr(lb, le - lb).find("PRIVATE KEY") != std::string_view::npos;
  a.close = k;
  a.end = d;
  return a;
}

// Masks [b, e) line by line: each line's text between its leading and trailing blanks.
void mask_lines(Masker& m, std::string_view t, size_t b, size_t e) {
  while (b < e) {
    size_t le = b;
    while (le < e && t[le] != '\n') ++le;
    size_t sb = b, se = le;
    while (sb < se && is_blank(t[sb])) ++sb;
    while (se > sb && (is_blank(t[se - 1]) || t[se - 1] == '\r')) --se;
    if (se > sb) m.mask(sb, se);
    b = le + 1;
  }
}

std::string mask_pem_private_keys(std::string_view t) {
  Masker m(t);
  bool in_key = false;
  size_t body = 0;
  size_t i = 0;
  while (i < t.size()) {
    if (t[i] != '-') {
      ++i;
      continue;
    }
    size_t run = i;
    while (run < t.size() && t[run] == '-') ++run;
    auto a = run - i >= 4 ? armour_after_dashes(t, run) : std::nullopt;
    if (!a) {
      i = run;
      continue;
    }
    if (!in_key && a->begin && a->private_key) {
      in_key = true;
      body = a->end;
    } else if (in_key && !a->begin) {
      mask_lines(m, t, body, i);
      in_key = false;
    }
    // Its closing dashes may also open the next marker (`-----END X----------BEGIN Y-----` from
    // a key whose line breaks were lost): look at them again.
    i = a->close;
  }
  if (in_key) mask_lines(m, t, body, t.size());
  return m.finish();
}

// ---- 2. `Authorization:` / `Proxy-Authorization:` headers (also `authorization=` and the
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
    if (!stop) ve = trim_closers(t, vb, ve);  // `(Authorization: Bearer x)` keeps its ")"
    if (ve > vb) m.mask(vb, ve);
    i = std::max(i, ve);
  }
  return m.finish();
}

// ---- 3. URLs: credentials in the userinfo, secret-named query parameters, and long random
// tokens anywhere in the path, query or fragment (webhooks: Slack, Discord, Telegram).
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
        m.mask(vb, trim_closers(t, vb, ve));  // `[docs](https://x/?token=y)` keeps its ")"
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

// ---- 4. key=value, key: value, "key": "value" where the key names a secret (token, secret,
// password, pwd, key, credential, auth). A quoted value runs to its closing quote (passphrases
// have spaces). Keys naming an error (KeyError: 'x') are not secrets; Authorization was pass 2.
bool is_key_char(char c) { return is_alnum(c) || c == '_' || c == '.' || c == '-'; }
// An unquoted value ends at a blank, quote or backtick, or at ',', ';', '&' that a blank (or the
// end) follows: `token=x; next` ends at ';', a password `a;b,c` keeps its punctuation. Closing
// brackets at its end that it did not open stay outside the mask (trim_closers).
bool is_value_end(std::string_view t, size_t k) {
  char c = t[k];
  if (is_space(c) || is_quote(c)) return true;
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
      // A quote that nothing on its line matches and a blank, quote or closing punctuation
      // follows closes what came before (`x,pwd=` in "`pass:x,pwd=` and"): no value. (Scans to
      // the line's end at most once per quote character and line: a later one would match.)
      bool closing_next = v >= t.size() || is_space(t[v]) || is_quote(t[v]) ||
                          std::string_view(",;)]}>").find(t[v]) != std::string_view::npos;
      if ((ve >= t.size() || t[ve] != t[v - 1]) && closing_next) continue;
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
      ve = trim_closers(t, v, ve);
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

}  // namespace redaction

using namespace redaction;  // NOLINT(build/namespaces): the passes of this file's redact()

std::string redact(std::string_view text) {
  // First, so that the other passes see a key's body as masked lines.
  std::string s = mask_pem_private_keys(text);
  s = mask_authorization(s);
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
