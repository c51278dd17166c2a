// The explain printers on an explanation built by hand (report/explain_report.hpp): the exact
// text and JSON, and the context bundle for assistants.
#include "smcompat/report/explain_report.hpp"

#include <gtest/gtest.h>

#include "report/expect_json.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat {
namespace {

using namespace explain;

// One failure mode with a tool-specific fix, matched on line 2, and one doctor finding.
struct Sample {
  FailureMode mode;
  ContextFix context;
  Explanation e;
  doctor::DoctorReport doctor;
  Sample() {
    mode.id = "no-kernel-image";
    mode.title = "No kernel image for this GPU";
    mode.cause = "The binary has no SASS or PTX this GPU can run.";
    mode.confirm = {"smcompat scan FILE --gpu GPU"};
    mode.fix = "Install a build with code for the GPU.";
    mode.refs = {"pytorch/pytorch#1", "ggml-org/llama.cpp#2"};
    mode.reference = "field-reports.md 1";
    context = {"llama.cpp / ggml (CMake)",
               "llama.cpp",
               "ggml",
               "Rebuild with -DCMAKE_CUDA_ARCHITECTURES=120.",
               {"ggml-org/llama.cpp#2"}};
    KnowledgeBase::Match m;
    m.mode = &mode;
    m.line = 2;
    m.line_text = "CUDA error: no kernel image is available for execution on the device";
    m.matched = "no kernel image is available";
    m.context = &context;
    m.tool = "llama.cpp";
    m.confidence = "high";
    m.specifics = {"GeForce RTX 5090 (sm_120): CMAKE_CUDA_ARCHITECTURES=120."};
    mode.families = {"no-kernel-image"};
    e.matches.push_back(m);
    e.facts.lines = 2;
    e.facts.tools.push_back({"llama.cpp", 1, "ggml"});
    e.facts.versions.push_back({"cuda_toolkit", "12.8", 1, "release 12.8"});
    e.facts.gpus.push_back({"RTX 5090", ComputeCapability{12, 0}, "GeForce RTX 5090", 1});
    e.facts.libraries.push_back("libcublas.so.12");
    e.facts.symbols.push_back("cublasLtGetVersion");
    e.have_doctor = true;
    e.on_this_machine.push_back({{doctor::Severity::kError,
                                  "torch-no-image",
                                  "torch has no code for GeForce RTX 5090",
                                  {"device code found: sm_80"},
                                  "Install the cu128 build.",
                                  {"pip install torch"},
                                  "/opt/venv"}});
    doctor.driver.state = doctor::DriverFacts::State::kOk;
    doctor.driver.version = DriverVersion::parse("570.124.06");
    Target t;
    t.name = t.label = "GeForce RTX 5090";
    t.cc = {12, 0};
    t.observed = true;
    doctor.targets.push_back(t);
    doctor.findings = e.on_this_machine[0];
  }
};

TEST(ExplainReport, Text) {
  Sample s;
  EXPECT_EQ(render_explain_text(s.e, Style::plain()), R"g(read from the text:
  written by: llama.cpp (line 1)
  versions: cuda_toolkit 12.8
  missing symbols: cublasLtGetVersion
  libraries: libcublas.so.12
  GPUs: RTX 5090 (sm_120)

▶ No kernel image for this GPU
  matched line 2: CUDA error: no kernel image is available for execution on the device
  cause: The binary has no SASS or PTX this GPU can run.
  confirm: `smcompat scan FILE --gpu GPU`
  fix (llama.cpp / ggml (CMake)): Rebuild with -DCMAKE_CUDA_ARCHITECTURES=120.
  for this text: GeForce RTX 5090 (sm_120): CMAKE_CUDA_ARCHITECTURES=120.
  here: [error] torch has no code for GeForce RTX 5090
        device code found: sm_80
        fix: Install the cu128 build.
        $ pip install torch
  sources: ggml-org/llama.cpp#2, pytorch/pytorch#1; field-reports.md 1

)g");
  EXPECT_EQ(render_explain_text(Explanation{}, Style::plain()),
            R"g(No known failure mode matches this text.
Run `smcompat doctor` for a check of this machine, or `smcompat explain --prompt` for a redacted context bundle to ask an assistant.
)g");
}

TEST(ExplainReport, Json) {
  Sample s;
  testing::expect_json(explain_to_json(s.e, {"smcompat", "explain"}), "smcompat.explain/1", R"g({
  "argv": [
    "smcompat",
    "explain"
  ],
  "confidence": "high",
  "conflicts": [],
  "doctor_consulted": true,
  "facts": {
    "error_codes": [],
    "extensions": [],
    "gpus": [
      {
        "catalog_name": "GeForce RTX 5090",
        "cc": "12.0",
        "line": 1,
        "text": "RTX 5090"
      }
    ],
    "libraries": [
      "libcublas.so.12"
    ],
    "lines": 2,
    "symbols": [
      "cublasLtGetVersion"
    ],
    "tools": [
      {
        "evidence": "ggml",
        "line": 1,
        "tool": "llama.cpp"
      }
    ],
    "versions": [
      {
        "evidence": "release 12.8",
        "line": 1,
        "value": "12.8",
        "what": "cuda_toolkit"
      }
    ]
  },
  "family": "no-kernel-image",
  "matches": [
    {
      "cause": "The binary has no SASS or PTX this GPU can run.",
      "confidence": "high",
      "confirm": [
        "smcompat scan FILE --gpu GPU"
      ],
      "families": [
        "no-kernel-image"
      ],
      "fix": "Rebuild with -DCMAKE_CUDA_ARCHITECTURES=120.",
      "fix_for": "llama.cpp / ggml (CMake)",
      "fix_tool": "llama.cpp",
      "id": "no-kernel-image",
      "line": 2,
      "line_text": "CUDA error: no kernel image is available for execution on the device",
      "matched": "no kernel image is available",
      "on_this_machine": [
        {
          "evidence": [
            "device code found: sm_80"
          ],
          "fix": "Install the cu128 build.",
          "fix_commands": [
            "pip install torch"
          ],
          "id": "torch-no-image",
          "severity": "error",
          "title": "torch has no code for GeForce RTX 5090"
        }
      ],
      "reference": "field-reports.md 1",
      "refs": [
        "pytorch/pytorch#1",
        "ggml-org/llama.cpp#2"
      ],
      "specifics": [
        "GeForce RTX 5090 (sm_120): CMAKE_CUDA_ARCHITECTURES=120."
      ],
      "title": "No kernel image for this GPU",
      "tool": "llama.cpp"
    }
  ],
  "nearest": [],
  "schema": "smcompat.explain/1"
})g");
}

TEST(ExplainReport, PromptBundle) {
  Sample s;
  std::string log =
      "step 1\nCUDA error: no kernel image is available for execution on the device\n";
  doctor::Environment env{{"CUDA_VISIBLE_DEVICES", "0"},
                          {"HF_TOKEN", "hf_abcdefghijklmnopqrstuvwxyz"}};
  // The scan keeps the lines around each match for the bundle (TextScan's excerpt).
  for (size_t n = 1; auto line : split(log, '\n'))
    if (!line.empty()) s.e.excerpt.emplace_back(n++, std::string(line));
  EXPECT_EQ(prompt_bundle(s.e, &s.doctor, env), R"g(# GPU problem: context for an assistant

Generated by smcompat explain --prompt (offline). Secrets were masked and only allow-listed environment variables are included. Verdicts are predicted from files unless marked observed.

## The error

```text
step 1
CUDA error: no kernel image is available for execution on the device
```

## Known failure modes that match

- **No kernel image for this GPU** (line 2): The binary has no SASS or PTX this GPU can run.
  - Fix: Install a build with code for the GPU.

## This machine (smcompat doctor)

- Driver: ok 570.124.06
- GPU: GeForce RTX 5090 (compute capability 12.0, observed)

### Findings

- [error] torch has no code for GeForce RTX 5090
  - device code found: sm_80

## Environment variables (allow-listed)

- `CUDA_VISIBLE_DEVICES=0`

## Question

What causes this error on this machine, and what is the smallest fix?
)g");
}

}  // namespace
}  // namespace smcompat
