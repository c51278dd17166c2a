// Explain: an offline knowledge base of GPU failure modes (data/failure_modes.json, compiled in)
// matched against error text, made specific to this machine with the doctor's findings, and a
// redacted Markdown context bundle for AI assistants. Failure modes come from
// ../shared/reference/field-reports.md sections 1-2 and compatibility-rules.md section 7.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "smcompat/doctor/doctor.hpp"
#include "smcompat/explain/facts.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::explain {

/// A fix that fits one tool (llama.cpp, TensorFlow, flash-attn, ...): it replaces the mode's
/// default fix when its `when` pattern matches any line of the text and, when it names a `tool`,
/// that tool wrote the matched line (a fix is never another tool's remedy).
struct ContextFix {
  std::string label;  ///< the tool it is for, e.g. "llama.cpp / ggml (CMake)"
  std::string tool;   ///< the tool id it is for ("" for a fix about a package, not a writer)
  std::string when;   ///< RE2 pattern, case-insensitive, tried on every line
  std::string fix;
  std::vector<std::string> refs;  ///< public issues where this fix was found
  /// Only for a text whose GPU (when it names one) is at most this capability (older GPUs).
  std::optional<ComputeCapability> gpu_max_cc;
};

/// One failure mode of the knowledge base.
struct FailureMode {
  std::string id;
  std::string title;
  std::vector<std::string> patterns;  ///< RE2 patterns, case-insensitive
  /// The tools whose errors this mode explains (empty: any). A match on a line another tool
  /// wrote is not this mode's.
  std::vector<std::string> tools;
  /// The fix computed from the text's facts and the catalog (explain/fixes.cpp): "driver-for-cuda",
  /// "torch-for-gpu", "smem-for-gpu", "arch-list-for-gpu", "cudnn-versions", "library-versions"
  /// (JAX's checks of cuBLAS, cuSPARSE, ...), "missing-library", ..., or "".
  std::string compute;
  std::string cause;
  std::vector<std::string> confirm;           ///< smcompat commands that confirm it
  std::string fix;                            ///< the default fix
  std::vector<ContextFix> fixes;              ///< tool-specific fixes, first matching one wins
  std::vector<std::string> related_findings;  ///< doctor finding ids
  std::vector<std::string> refs;              ///< public issue references
  std::string reference;                      ///< section of ../shared/reference
  std::vector<std::string> families;          ///< failure families (tests/explain/corpus tags)
  /// A warning that needs no fix by itself: listed after the text's other matches, whose line may
  /// come later (TensorFlow prints its optional-library warnings before the real error).
  bool harmless = false;
  /// A wrapper message whose own words do not say what failed (JAX's "CUDA backend failed to
  /// initialize: ..."): a more specific mode matched in the same text is listed before it.
  bool umbrella = false;
};

/// The CUDA releases that ship a library's soname major (failure_modes.json "library_sonames",
/// from the CUDA release notes' component versions): libcusolver.so.10 is CUDA 10.1 to 11.0's.
struct LibrarySoname {
  std::string library;  ///< "cusolver", "cudart"
  std::string soname;   ///< "10", "11.0" (libcudart.so.11.0)
  std::string first_cuda, last_cuda;
  std::string wheel;  ///< the pip wheel that ships it ("nvidia-cusolver-cu12"), or ""
  std::string source;
};

/// An architecture no current CUDA builds, and the last CUDA that did (failure_modes.json).
struct RetiredArch {
  int sm = 0;
  std::string last_cuda;
  std::string source;
};

/// The CUDA versions of a torch release's wheel channels (failure_modes.json "torch_releases",
/// from PyTorch's "previous versions" page): torch 1.12.1 has cu102, cu113 and cu116 wheels.
struct TorchRelease {
  std::string torch;              ///< "1.12.1" (the last patch of its minor release)
  std::vector<std::string> cuda;  ///< "10.2", "11.3", "11.6" (ascending)
  std::string source;
};

/// The newest gcc a CUDA release's nvcc accepts (failure_modes.json "host_compilers", from each
/// release's installation guide): CUDA 10.1 and 10.2 take gcc 8 at most.
struct HostCompilerLimit {
  std::string cuda;     ///< "10.1", "11.4.1"
  std::string gcc_max;  ///< "8", "4.8"
  std::string source;
};

/// The CUDA and cuDNN majors a range of onnxruntime-gpu releases is built for
/// (failure_modes.json "onnxruntime_builds", from the CUDA execution provider's requirements
/// table): the PyPI builds of 1.19 and newer load CUDA 12 and cuDNN 9.
struct OnnxruntimeBuild {
  std::string first, last;  ///< "1.19", "" (still current)
  std::string cuda, cudnn;  ///< majors: "12", "9"
  std::string channel;      ///< "PyPI" or "CUDA 12 feed"
  std::string source;
};

class KnowledgeBase {
 public:
  KnowledgeBase();
  ~KnowledgeBase();
  KnowledgeBase(KnowledgeBase&&) noexcept;
  KnowledgeBase& operator=(KnowledgeBase&&) noexcept;

  /// The knowledge base compiled into the library.
  static const KnowledgeBase& builtin();
  /// Parses the JSON of data/failure_modes.json; errors name the mode and the bad pattern.
  static Result<KnowledgeBase> from_json(std::string_view text);

  /// A match of one mode in the text: which line (1-based), the matched text, the tool that wrote
  /// the line, the fix that fits (a ContextFix for that tool, else the mode's default fix), and the
  /// fix computed from the text's facts (`specifics`: versions, drivers, limits of the GPU named).
  struct Match {
    const FailureMode* mode = nullptr;
    size_t line = 0;
    std::string line_text;  ///< the whole line (trimmed, at most 300 characters)
    std::string matched;
    const ContextFix* context = nullptr;  ///< the tool-specific fix chosen, or null
    std::string tool;                     ///< the tool that wrote the line ("" unknown)
    std::vector<std::string> specifics;   ///< computed from the facts, most specific first
    std::string confidence;               ///< "high" (writer known), "medium"
    const std::string& fix() const { return context ? context->fix : mode->fix; }
    /// The fix and the computed specifics, as one text.
    std::string full_fix() const;
  };
  /// Every mode that matches, each once (at its first matching line), in order of first line.
  std::vector<Match> match(std::string_view text) const;

  /// Every mode, in the order of data/failure_modes.json.
  const std::vector<FailureMode>& modes() const { return modes_; }
  /// The mode with this id, or nullptr.
  const FailureMode* find(std::string_view id) const;
  const std::vector<ToolSignature>& tools() const { return tools_; }
  const ToolSignature* tool(std::string_view id) const;
  const std::vector<GpuNamePattern>& gpu_names() const { return gpu_names_; }
  const std::vector<RetiredArch>& retired_archs() const { return retired_; }
  const std::vector<LibrarySoname>& library_sonames() const { return sonames_; }
  /// Oldest first.
  const std::vector<TorchRelease>& torch_releases() const { return torch_releases_; }
  /// Oldest CUDA first.
  const std::vector<HostCompilerLimit>& host_compilers() const { return host_compilers_; }
  /// Oldest first.
  const std::vector<OnnxruntimeBuild>& onnxruntime_builds() const { return onnxruntime_builds_; }

 private:
  friend class TextScan;
  struct Compiled;
  std::vector<FailureMode> modes_;
  std::vector<ToolSignature> tools_;
  std::vector<GpuNamePattern> gpu_names_;
  std::vector<RetiredArch> retired_;
  std::vector<LibrarySoname> sonames_;
  std::vector<TorchRelease> torch_releases_;
  std::vector<HostCompilerLimit> host_compilers_;
  std::vector<OnnxruntimeBuild> onnxruntime_builds_;
  std::unique_ptr<Compiled> c_;  // the patterns as RE2 sets, compiled once
};

/// A mode that did not match, with why it is the nearest (when no mode matched).
struct NearMiss {
  const FailureMode* mode = nullptr;
  std::string why;
};

/// An explanation: the facts read, the matches, and what the doctor says for each.
struct Explanation {
  TextFacts facts;
  std::vector<std::string> conflicts;  ///< facts the text states twice, differently
  std::vector<KnowledgeBase::Match> matches;
  /// For each match (same index): doctor findings related to it.
  std::vector<std::vector<doctor::Finding>> on_this_machine;
  bool have_doctor = false;
  std::vector<NearMiss> nearest;  ///< when nothing matched: the two nearest modes
  /// Lines kept for the context bundle (1-based number, raw text): around each match, else the
  /// first 60 and the last 20; the text itself is not kept.
  std::vector<std::pair<size_t, std::string>> excerpt;
};

/// Reads a text line by line in bounded memory and explains it: facts, matches, fixes.
class TextScan {
 public:
  explicit TextScan(const KnowledgeBase& kb, const Catalog& catalog = Catalog::builtin());
  ~TextScan();
  /// One line, without its line break (any length; see docs/explain.md for the limits).
  void add_line(std::string_view raw);
  /// The explanation; `doctor` (may be null) adds this machine's findings and GPU.
  Explanation finish(const doctor::DoctorReport* doctor);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

Explanation explain_text(std::string_view text, const KnowledgeBase& kb,
                         const doctor::DoctorReport* doctor);

// Renderers (text, JSON schema smcompat.explain/1, the context bundle for assistants):
// report/explain_report.hpp.

// ---- redaction and the AI context bundle ----

/// Masks secrets in free text, each becoming "[REDACTED]": PEM private-key blocks (every body
/// line, to the END line or the end of the text; the BEGIN/END lines stay), Authorization
/// headers (the scheme word stays), URL credentials, secret-named query parameters and
/// random-looking URL path/query parts (webhook tokens), values after key=/key: for
/// secret-sounding keys, the value after `-p`, `--password`, `--api-key`, `--token` and similar
/// flags, the password of curl's `-u`/`--user user:PW` and smbclient's `-U user%PW`, OpenSSL's
/// `pass:PW`, .netrc's `password PW`, `mysql -pPW` and `ldapsearch -w PW`, prefixed tokens (AWS
/// AKIA/ASIA, hf_, GitHub, GitLab, Slack, sk-, AIza, nvapi-, pypi-, npm_, JWTs), runs of 32+ hex
/// digits (a digest-length run named by a preceding commit/sha/hash/git/revision word stays), and
/// high-entropy strings. A mask stops before a closing quote, backtick or bracket that the secret
/// did not open. Linear time; a mask never crosses a line break (a private key's body is masked
/// one line at a time), so line k of the result is line k of the input, masked.
/// Rules: docs/explain.md.
std::string redact(std::string_view text);

/// Whether an environment variable may appear (with its value redacted) in a context bundle:
/// an allow-list of CUDA/PyTorch/toolchain variables; never names that sound secret.
bool env_var_allowed(std::string_view name);

}  // namespace smcompat::explain
