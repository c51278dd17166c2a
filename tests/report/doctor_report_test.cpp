// The doctor's printers on a report built by hand (report/doctor_report.hpp): the exact text,
// Markdown, fix script and JSON, so that moving or sharing rendering code cannot change them.
#include "smcompat/report/doctor_report.hpp"

#include <gtest/gtest.h>

#include "report/expect_json.hpp"
#include "smcompat/report/build_env_report.hpp"

namespace smcompat {
namespace {

using namespace doctor;

// One observed GPU, one what-if GPU, a toolkit, an environment with torch and one package
// verdict, a variable, and an error and an info finding.
DoctorReport sample() {
  DoctorReport r;
  r.driver.state = DriverFacts::State::kOk;
  r.driver.observed = true;
  r.driver.version = DriverVersion::parse("570.124.06");
  r.driver.cuda = Version{12, 8};
  r.driver.kernel_module_flavour = "open";
  r.driver.gpus.push_back({"GeForce RTX 5090", {12, 0}, "0000:01:00.0"});
  Target rtx;
  rtx.name = rtx.label = "GeForce RTX 5090";
  rtx.cc = {12, 0};
  rtx.observed = true;
  Target h100;
  h100.name = h100.label = "H100 SXM";
  h100.cc = {9, 0};
  r.targets = {rtx, h100};
  r.toolkits.push_back({"/usr/local/cuda-12.8",
                        Version{12, 8},
                        "version.json",
                        "/usr/local/cuda-12.8/bin/nvcc",
                        {"CUDA_HOME", "/usr/local/cuda"}});
  r.libraries.push_back({"libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "ld.so.conf"});
  r.envs.push_back({.prefix = "/opt/venv",
                    .site_packages = "/opt/venv/lib/python3.12/site-packages",
                    .python_version = "3.12",
                    .kind = "venv",
                    .found_by = "--python",
                    .torch = TorchFacts{"2.6.0+cu124", "cu124", Version{12, 4}, "", ""}});
  PackageVerdict v;
  v.env = "/opt/venv";
  v.package = "torch";
  v.version = "2.6.0+cu124";
  v.gpu = "GeForce RTX 5090";
  v.cc = {12, 0};
  v.fit = Fit::kNoImage;
  v.targets = {"sm_80", "sm_90"};
  v.libraries.push_back({"/opt/venv/lib/libtorch_cuda.so", Fit::kNoImage, "", "no sm_120"});
  r.verdicts.push_back(v);
  r.env_vars.emplace_back("CUDA_HOME", "/usr/local/cuda-12.8");
  r.findings.push_back({Severity::kError,
                        "torch-no-image",
                        "torch 2.6.0+cu124 has no code for GeForce RTX 5090 (sm_120)",
                        {"device code found: sm_80 sm_90"},
                        "Install torch from the cu128 channel.",
                        {"pip install torch --index-url https://download.pytorch.org/whl/cu128"},
                        "/opt/venv"});
  r.findings.push_back({Severity::kInfo,
                        "module-loading-lazy",
                        "CUDA lazy loading is in effect",
                        {"CUDA_MODULE_LOADING unset"},
                        "",
                        {},
                        "env"});
  return r;
}

TEST(DoctorReport, Text) {
  EXPECT_EQ(
      render_doctor_text(sample(), Style::plain()),
      R"g(smcompat doctor (verdicts are predicted from files; 'observed' marks what the driver reported)

Driver
  ok, driver 570.124.06, CUDA 12.8, open kernel module (observed)
  GPU 0: GeForce RTX 5090 (compute capability 12.0, 0000:01:00.0)

GPUs judged
  GeForce RTX 5090 (compute capability 12.0, present, observed)
  H100 SXM (compute capability 9.0, what-if, not present)

CUDA toolkits
  * /usr/local/cuda-12.8  CUDA 12.8  nvcc yes  (found by CUDA_HOME, /usr/local/cuda)  ← builds use this

Libraries a process would load (without RPATH)
  soname        file                                    via
  libcuda.so.1  /usr/lib/x86_64-linux-gnu/libcuda.so.1  ld.so.conf

Python environments
  /opt/venv (Python 3.12, venv, found by --python): 0 packages, 0 with GPU code
    torch 2.6.0+cu124  channel cu124  CUDA 12.4

Packages with GPU code (predicted)
  package  version      GPU               verdict   device code
  torch    2.6.0+cu124  GeForce RTX 5090  no-image  sm_80 sm_90

Environment variables
  CUDA_HOME=/usr/local/cuda-12.8

Findings (1 errors, 0 warnings, 1 info)
  error   torch 2.6.0+cu124 has no code for GeForce RTX 5090 (sm_120) [torch-no-image]
            device code found: sm_80 sm_90
            fix: Install torch from the cu128 channel.
              $ pip install torch --index-url https://download.pytorch.org/whl/cu128
  info    CUDA lazy loading is in effect [module-loading-lazy]
            CUDA_MODULE_LOADING unset
)g");
}

TEST(DoctorReport, Markdown) {
  EXPECT_EQ(render_doctor_markdown(sample()), R"g(# smcompat doctor

Verdicts are predicted from the files on disk; the driver line says what was observed.

## Machine

- Driver: ok, driver 570.124.06, CUDA 12.8, open kernel module (observed)
- GPU: GeForce RTX 5090 (CC 12.0, present)
- GPU: H100 SXM (CC 9.0, what-if)
- CUDA toolkit: `/usr/local/cuda-12.8` (CUDA 12.8)
- Python 3.12 (venv): `/opt/venv` — torch 2.6.0+cu124

## Packages with GPU code (predicted)

| package | version | GPU | verdict | device code |
|---|---|---|---|---|
| torch | 2.6.0+cu124 | GeForce RTX 5090 | no-image | sm_80 sm_90 |

## Findings (1 errors, 0 warnings, 1 info)

### error: torch 2.6.0+cu124 has no code for GeForce RTX 5090 (sm_120)

- device code found: sm_80 sm_90

**Fix:** Install torch from the cu128 channel.

```sh
pip install torch --index-url https://download.pytorch.org/whl/cu128
```

### info: CUDA lazy loading is in effect

- CUDA_MODULE_LOADING unset

)g");
}

// Names read from the environment cannot break the table or inject markup (a dist-info name, a
// prefix with a backtick).
TEST(DoctorReport, MarkdownCellsAreEscaped) {
  auto r = sample();
  r.verdicts[0].package = "evil|pkg<script>";
  r.envs[0].prefix = "/opt/odd`venv";
  std::string md = render_doctor_markdown(r);
  EXPECT_NE(md.find("| evil\\|pkg\\<script\\> | 2.6.0+cu124 |"), std::string::npos) << md;
  EXPECT_NE(md.find("(venv): /opt/odd\\`venv — torch"), std::string::npos) << md;
  EXPECT_EQ(md.find("<script>"), std::string::npos);
}

TEST(DoctorReport, FixScript) {
  EXPECT_EQ(render_fix_script(sample()), R"g(#!/bin/sh
# Written by `smcompat doctor --fix-script`. smcompat never runs it: review every line,
# delete what you do not want, then run it yourself.
# export/unset lines only affect this script's own shell: put them in your shell profile
# or the environment's activation script to keep them.
set -eu

# [error] torch 2.6.0+cu124 has no code for GeForce RTX 5090 (sm_120)
#   device code found: sm_80 sm_90
#   fix: Install torch from the cu128 channel.
pip install torch --index-url https://download.pytorch.org/whl/cu128
)g");
  EXPECT_NE(render_fix_script(DoctorReport{}).find("# Nothing to fix."), std::string::npos);
}

TEST(DoctorReport, Json) {
  testing::expect_json(doctor_to_json(sample(), {"smcompat", "doctor"}), "smcompat.doctor/1", R"g({
  "argv": [
    "smcompat",
    "doctor"
  ],
  "driver": {
    "cuda": "12.8",
    "detail": "",
    "gpus": [
      {
        "cc": "12.0",
        "name": "GeForce RTX 5090",
        "pci_bus_id": "0000:01:00.0"
      }
    ],
    "kernel_module": "open",
    "kernel_module_line": "",
    "observed": true,
    "state": "ok",
    "version": "570.124.06"
  },
  "env_vars": {
    "CUDA_HOME": "/usr/local/cuda-12.8"
  },
  "findings": [
    {
      "evidence": [
        "device code found: sm_80 sm_90"
      ],
      "fix": "Install torch from the cu128 channel.",
      "fix_commands": [
        "pip install torch --index-url https://download.pytorch.org/whl/cu128"
      ],
      "id": "torch-no-image",
      "severity": "error",
      "subject": "/opt/venv",
      "title": "torch 2.6.0+cu124 has no code for GeForce RTX 5090 (sm_120)"
    },
    {
      "evidence": [
        "CUDA_MODULE_LOADING unset"
      ],
      "fix": "",
      "fix_commands": [],
      "id": "module-loading-lazy",
      "severity": "info",
      "subject": "env",
      "title": "CUDA lazy loading is in effect"
    }
  ],
  "host": {
    "cores": 1,
    "cxx": null,
    "cxx_version": "",
    "mem_available_gib": 0.0,
    "mem_total_gib": 0.0
  },
  "libraries": [
    {
      "path": "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
      "soname": "libcuda.so.1",
      "via": "ld.so.conf"
    }
  ],
  "python_envs": [
    {
      "found_by": "--python",
      "gpu_packages": [],
      "kind": "venv",
      "package_count": 0,
      "prefix": "/opt/venv",
      "python_version": "3.12",
      "site_packages": "/opt/venv/lib/python3.12/site-packages",
      "torch": {
        "channel": "cu124",
        "cuda": "12.4",
        "version": "2.6.0+cu124",
        "version_py": ""
      },
      "warnings": []
    }
  ],
  "schema": "smcompat.doctor/1",
  "summary": {
    "errors": 1,
    "info": 1,
    "warnings": 0
  },
  "targets": [
    {
      "cc": "12.0",
      "name": "GeForce RTX 5090",
      "present": true
    },
    {
      "cc": "9.0",
      "name": "H100 SXM",
      "present": false
    }
  ],
  "toolkits": [
    {
      "found_by": [
        "CUDA_HOME",
        "/usr/local/cuda"
      ],
      "nvcc": "/usr/local/cuda-12.8/bin/nvcc",
      "root": "/usr/local/cuda-12.8",
      "version": "12.8",
      "version_source": "version.json"
    }
  ],
  "usage_errors": [],
  "verdicts": [
    {
      "cc": "12.0",
      "env": "/opt/venv",
      "fit": "no-image",
      "gpu": "GeForce RTX 5090",
      "libraries": [
        {
          "best_image": "",
          "fit": "no-image",
          "path": "/opt/venv/lib/libtorch_cuda.so",
          "reason": "no sm_120"
        }
      ],
      "package": "torch",
      "predicted": true,
      "targets": [
        "sm_80",
        "sm_90"
      ],
      "version": "2.6.0+cu124"
    }
  ]
})g");
}

TEST(DoctorReport, DriverLine) {
  DriverFacts d;
  EXPECT_EQ(driver_line(d), "kernel module loaded (driver library not queried)");
  d.state = DriverFacts::State::kStub;
  d.observed = true;
  EXPECT_EQ(driver_line(d), "stub libcuda (toolkit stub, not a driver) (observed)");
}

TEST(BuildEnvReport, ShellTextJson) {
  BuildEnv be;
  be.lines = {{"TORCH_CUDA_ARCH_LIST", "9.0;12.0+PTX", "H100, RTX 5090"}, {"MAX_JOBS", "4", ""}};
  be.arch_list = "9.0;12.0+PTX";
  be.min_nvcc = Version{12, 8};
  be.problems = {"nvcc 12.6 cannot build sm_120 (needs 12.8)"};
  BuildEnvRequest req;
  req.gpus = {{9, 0}, {12, 0}};
  req.what = BuildFor::kPytorch;
  req.host.cxx = "/usr/bin/g++";
  EXPECT_EQ(build_env_shell(be, false),
            "export TORCH_CUDA_ARCH_LIST=\"9.0;12.0+PTX\"\nexport MAX_JOBS=\"4\"\n");
  EXPECT_EQ(render_build_env_text(be, req, {"H100", "RTX 5090"}, Style::plain()),
            R"g(# Build settings for PyTorch from source (H100, RTX 5090)
export TORCH_CUDA_ARCH_LIST="9.0;12.0+PTX"  # H100, RTX 5090
export MAX_JOBS="4"
# host compiler: /usr/bin/g++
# problem: nvcc 12.6 cannot build sm_120 (needs 12.8)
# then, in the PyTorch checkout: python setup.py develop (or pip install -e . -v --no-build-isolation)
)g");
  testing::expect_json(build_env_to_json(be, req, {"smcompat", "build-env"}),
                       "smcompat.build-env/1",
                       R"g({
  "argv": [
    "smcompat",
    "build-env"
  ],
  "for": "pytorch",
  "gpus": [
    "9.0",
    "12.0"
  ],
  "host_compiler": "/usr/bin/g++",
  "lines": [
    {
      "name": "TORCH_CUDA_ARCH_LIST",
      "reason": "H100, RTX 5090",
      "value": "9.0;12.0+PTX"
    },
    {
      "name": "MAX_JOBS",
      "reason": "",
      "value": "4"
    }
  ],
  "min_nvcc": "12.8",
  "problems": [
    "nvcc 12.6 cannot build sm_120 (needs 12.8)"
  ],
  "schema": "smcompat.build-env/1",
  "toolkit": null,
  "torch_cuda_arch_list": "9.0;12.0+PTX"
})g");
}

}  // namespace
}  // namespace smcompat
