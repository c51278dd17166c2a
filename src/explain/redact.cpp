// Redaction for the AI context bundle (`smcompat explain --prompt`): the bundle may be pasted
// into any assistant, so only allow-listed environment variables appear, and anything shaped
// like a credential is masked. Token formats: AWS access key ids (AKIA/ASIA + 16, AWS IAM docs),
// Hugging Face user access tokens (hf_), GitHub tokens (ghp_/gho_/ghu_/ghs_/ghr_, github_pat_;
// GitHub docs "About authentication"), Slack (xox?-), OpenAI (sk-), Google API keys (AIza), JWTs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "smcompat/explain/explain.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::explain {

namespace {

constexpr const char* kMask = "[REDACTED]";

struct Rule {
  std::regex rx;
  std::string replacement;
};

const std::vector<Rule>& rules() {
  static const std::vector<Rule> r = [] {
    auto flags = std::regex::ECMAScript | std::regex::optimize;
    std::vector<Rule> v;
    auto add = [&](const char* pattern, const char* repl, bool icase = false) {
      v.push_back({std::regex(pattern, icase ? flags | std::regex::icase : flags), repl});
    };
    // Tokens with recognisable prefixes.
    add(R"(\b(AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}\b)", kMask);
    add(R"(\bhf_[A-Za-z0-9]{20,}\b)", kMask);
    add(R"(\bgithub_pat_[A-Za-z0-9_]{20,}\b)", kMask);
    add(R"(\bgh[pousr]_[A-Za-z0-9]{20,}\b)", kMask);
    add(R"(\bglpat-[A-Za-z0-9_-]{20,}\b)", kMask);
    add(R"(\bxox[abposr]-[A-Za-z0-9-]{10,}\b)", kMask);
    add(R"(\bsk-(proj-|ant-)?[A-Za-z0-9_-]{20,}\b)", kMask);
    add(R"(\bAIza[0-9A-Za-z_-]{35}\b)", kMask);
    add(R"(\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b)", kMask);
    add(R"(\b(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{16,})", "$1 [REDACTED]", true);
    return v;
  }();
  return r;
}

bool is_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}
bool is_value_end(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '\'' || c == ',' ||
         c == ';' || c == '&';
}

// Passwords in URLs: scheme://user:password@host -> scheme://user:[REDACTED]@host. Linear scan
// (a regex with a leading greedy class is quadratic on long tokens).
std::string mask_url_passwords(const std::string& text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t at = text.find("://", i);
    if (at == std::string::npos) break;
    size_t start = at + 3;
    size_t k = start;
    size_t colon = std::string::npos;
    while (k < text.size() && text[k] != '@' && text[k] != '/' &&
           !std::isspace(static_cast<unsigned char>(text[k]))) {
      if (text[k] == ':' && colon == std::string::npos) colon = k;
      ++k;
    }
    if (k < text.size() && text[k] == '@' && colon != std::string::npos && colon > start) {
      out.append(text, i, colon + 1 - i);
      out += kMask;
      out += '@';
      i = k + 1;
    } else {
      out.append(text, i, start - i);
      i = start;
    }
  }
  out.append(text, std::min(i, text.size()), std::string::npos);
  return out;
}

// key=value, key: value, "key": "value" where the key names a secret (token, secret, password,
// pwd, key, credential, auth). Linear scan over separators.
std::string mask_secret_assignments(const std::string& text) {
  static const char* kWords[] = {"token", "secret", "passwd",     "password",
                                 "pwd",   "key",    "credential", "auth"};
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '=' && c != ':') continue;
    if (c == ':' && i + 2 < text.size() && text[i + 1] == '/' && text[i + 2] == '/')
      continue;  // URL
    // The key: identifier characters before the separator (skipping spaces and one quote).
    size_t e = i;
    while (e > copied && (text[e - 1] == ' ' || text[e - 1] == '\t')) --e;
    if (e > copied && (text[e - 1] == '"' || text[e - 1] == '\'')) --e;
    size_t b = e;
    while (b > copied && is_key_char(text[b - 1]) && e - b < 128) --b;
    if (b == e) continue;
    std::string key = to_lower(std::string_view(text).substr(b, e - b));
    bool secret = false;
    for (auto* w : kWords) secret |= key.find(w) != std::string::npos;
    if (!secret) continue;
    // The value: after spaces and an opening quote, up to a delimiter.
    size_t v = i + 1;
    while (v < text.size() && (text[v] == ' ' || text[v] == '\t')) ++v;
    if (v < text.size() && (text[v] == '"' || text[v] == '\'')) ++v;
    size_t ve = v;
    while (ve < text.size() && !is_value_end(text[ve])) ++ve;
    if (ve == v) continue;
    out.append(text, copied, v - copied);
    out += kMask;
    copied = ve;
    i = ve > 0 ? ve - 1 : ve;
  }
  out.append(text, copied, std::string::npos);
  return out;
}

double entropy_bits_per_char(std::string_view s) {
  int counts[256] = {0};
  for (unsigned char c : s) counts[c]++;
  double h = 0;
  for (int c : counts) {
    if (!c) continue;
    double p = static_cast<double>(c) / static_cast<double>(s.size());
    h -= p * std::log2(p);
  }
  return h;
}

// Long random-looking strings (40-char AWS secret keys, generic API keys): at least 24
// characters of [A-Za-z0-9+/=_-], mixing letters and digits, high entropy, and not a path,
// a hex build id next to a version, or a word.
std::string mask_high_entropy(const std::string& text) {
  std::string out;
  size_t i = 0;
  auto is_tok = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '=' ||
           c == '_' || c == '-';
  };
  while (i < text.size()) {
    if (!is_tok(text[i])) {
      out += text[i++];
      continue;
    }
    size_t j = i;
    while (j < text.size() && is_tok(text[j])) ++j;
    std::string_view tok(text.data() + i, j - i);
    bool has_upper = false, has_lower = false, has_digit = false;
    for (char c : tok) {
      has_upper |= std::isupper(static_cast<unsigned char>(c)) != 0;
      has_lower |= std::islower(static_cast<unsigned char>(c)) != 0;
      has_digit |= std::isdigit(static_cast<unsigned char>(c)) != 0;
    }
    bool pathlike =
        tok.find('/') != std::string_view::npos && std::count(tok.begin(), tok.end(), '/') > 1;
    bool secret = tok.size() >= 24 && has_digit && has_upper && has_lower && !pathlike &&
                  entropy_bits_per_char(tok) > 4.0;
    out += secret ? std::string(kMask) : std::string(tok);
    i = j;
  }
  return out;
}

}  // namespace

std::string redact(std::string_view text) {
  std::string s = mask_url_passwords(std::string(text));
  s = mask_secret_assignments(s);
  for (auto& r : rules()) s = std::regex_replace(s, r.rx, r.replacement);
  return mask_high_entropy(s);
}

bool env_var_allowed(std::string_view name) {
  std::string n = to_lower(name);
  // Never, whatever the prefix: names that sound like credentials.
  for (const char* bad : {"token", "secret", "password", "passwd", "key", "credential", "auth",
                          "cookie", "session", "private"}) {
    if (n.find(bad) != std::string::npos) return false;
  }
  static const char* exact[] = {"TORCH_CUDA_ARCH_LIST",
                                "PYTORCH_CUDA_ALLOC_CONF",
                                "CUDA_HOME",
                                "CUDA_PATH",
                                "CUDA_VISIBLE_DEVICES",
                                "CUDA_MODULE_LOADING",
                                "CUDA_FORCE_PTX_JIT",
                                "CUDA_DISABLE_PTX_JIT",
                                "CUDA_FORCE_JIT",
                                "CUDA_DISABLE_JIT",
                                "CUDA_CACHE_DISABLE",
                                "CUDA_CACHE_MAXSIZE",
                                "CUDA_LAUNCH_BLOCKING",
                                "LD_LIBRARY_PATH",
                                "VIRTUAL_ENV",
                                "CONDA_PREFIX",
                                "CONDA_DEFAULT_ENV",
                                "MAX_JOBS",
                                "TRITON_PTXAS_PATH",
                                "NVCC_APPEND_FLAGS",
                                "NVCC_PREPEND_FLAGS",
                                "NVIDIA_VISIBLE_DEVICES",
                                "NVIDIA_DRIVER_CAPABILITIES",
                                "TORCH_USE_CUDA_DSA",
                                "BNB_CUDA_VERSION",
                                "VLLM_USE_DEEP_GEMM",
                                "NCCL_P2P_DISABLE",
                                "NCCL_IB_DISABLE",
                                "NCCL_DEBUG",
                                "CC",
                                "CXX",
                                "PYENV_VERSION"};
  for (auto* e : exact)
    if (name == e) return true;
  return false;
}

std::string prompt_bundle(std::string_view error_text, const Explanation& e,
                          const doctor::DoctorReport* doc, const doctor::Environment& env) {
  std::string md;
  md += "# GPU problem: context for an assistant\n\n";
  md +=
      "Generated by smcompat explain --prompt (offline). Secrets were masked and only "
      "allow-listed environment variables are included. Verdicts are predicted from files "
      "unless marked observed.\n\n";
  // The error: matching lines with context, or the head and tail of the text.
  md += "## The error\n\n```text\n";
  auto lines = split(error_text, '\n');
  std::vector<bool> keep(lines.size(), false);
  for (auto& m : e.matches) {
    size_t at = m.line ? m.line - 1 : 0;
    for (size_t k = at >= 5 ? at - 5 : 0; k < std::min(lines.size(), at + 6); ++k) keep[k] = true;
  }
  if (e.matches.empty()) {
    for (size_t k = 0; k < lines.size() && k < 60; ++k) keep[k] = true;
    for (size_t k = lines.size() > 20 ? lines.size() - 20 : 0; k < lines.size(); ++k)
      keep[k] = true;
  }
  size_t shown = 0;
  bool gap = false;
  for (size_t k = 0; k < lines.size() && shown < 400; ++k) {
    if (!keep[k]) {
      gap = true;
      continue;
    }
    if (gap && shown) md += "[...]\n";
    gap = false;
    std::string line(lines[k].substr(0, std::min<size_t>(lines[k].size(), 1000)));
    md += redact(line) + "\n";
    ++shown;
  }
  md += "```\n\n";
  md += "## Known failure modes that match\n\n";
  if (e.matches.empty()) md += "None of smcompat's known failure modes matched.\n\n";
  for (auto& m : e.matches) {
    md += fmt::format("- **{}** (line {}): {}\n  - Fix: {}\n", m.mode->title, m.line, m.mode->cause,
                      m.mode->fix);
  }
  md += "\n";
  if (doc) {
    md += "## This machine (smcompat doctor)\n\n";
    auto& d = doc->driver;
    md += fmt::format(
        "- Driver: {}{}{}\n", doctor::to_string(d.state),
        d.version ? " " + d.version->to_string() : "",
        d.kernel_module_flavour.empty() ? "" : ", " + d.kernel_module_flavour + " kernel module");
    for (auto& t : doc->targets)
      md += fmt::format("- GPU: {} (compute capability {}, {})\n", t.name, t.cc.to_string(),
                        t.present ? "observed" : "asked with --gpu, not present");
    for (auto& tk : doc->toolkits)
      md += fmt::format("- CUDA toolkit: {} (CUDA {})\n", tk.root,
                        tk.version ? tk.version->to_string() : "?");
    for (auto& pe : doc->envs) {
      md +=
          fmt::format("- Python {} environment ({}): {}\n", pe.python_version, pe.kind, pe.prefix);
      if (pe.torch)
        md += fmt::format("  - torch {} (CUDA {})\n", pe.torch->version,
                          pe.torch->cuda ? pe.torch->cuda->to_string() : "?");
    }
    if (!doc->verdicts.empty()) {
      md += "\n| package | version | GPU | verdict (predicted) |\n|---|---|---|---|\n";
      for (auto& v : doc->verdicts)
        md += fmt::format("| {} | {} | {} | {} |\n", v.package, v.version, v.gpu,
                          doctor::to_string(v.fit));
    }
    if (!doc->findings.empty()) {
      md += "\n### Findings\n\n";
      for (auto& f : doc->findings) {
        if (f.severity == doctor::Severity::kInfo) continue;
        md += fmt::format("- [{}] {}\n", doctor::to_string(f.severity), f.title);
        for (auto& ev : f.evidence) md += "  - " + ev + "\n";
      }
    }
    md += "\n";
  }
  md += "## Environment variables (allow-listed)\n\n";
  bool any = false;
  for (auto& [n, v] : env) {
    if (!env_var_allowed(n)) continue;
    md += fmt::format("- `{}={}`\n", n, v);
    any = true;
  }
  if (!any) md += "None of the allow-listed variables is set.\n";
  md += "\n## Question\n\nWhat causes this error on this machine, and what is the smallest fix?\n";
  // The whole bundle passes through redaction once more (doctor evidence can hold URLs).
  return redact(md);
}

}  // namespace smcompat::explain
