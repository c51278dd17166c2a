// The doctor's rules about the machine (rules.hpp): driver state, the kernel module flavour
// (Blackwell needs the open kernel modules: NVIDIA driver README "Open Linux Kernel Modules"),
// driver minimums (compatibility-rules.md section 9), peer access, and CUDA toolkits.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "rules.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::doctor {

namespace fs = std::filesystem;

namespace {

// What the doctor says for each driver state that is a problem.
struct DriverStateFinding {
  DriverFacts::State state;
  Severity severity;
  const char* id;
  const char* title;
  const char* fix;
};
constexpr DriverStateFinding kDriverStateFindings[] = {
    {DriverFacts::State::kNoDriver, Severity::kWarning, "no-driver",
     "No NVIDIA driver found on this machine",
     "If this machine has an NVIDIA GPU, install the NVIDIA driver (570 or newer for Blackwell, "
     "with the open kernel modules). To judge this environment for a GPU that is not here, ask "
     "for it: smcompat doctor --gpu \"RTX 5090\""},
    {DriverFacts::State::kStub, Severity::kError, "stub-libcuda",
     "The libcuda.so.1 that loads is the CUDA toolkit's stub, not the driver",
     "Remove the toolkit's lib64/stubs directory from LD_LIBRARY_PATH (the stub answers every "
     "call with CUDA_ERROR_STUB_LIBRARY = 34), and install the NVIDIA driver if it is missing."},
    {DriverFacts::State::kNoDevice, Severity::kWarning, "no-gpu-visible",
     "The driver is loaded but reports no GPU",
     "Check CUDA_VISIBLE_DEVICES, the container's GPU access (--gpus), and permissions on "
     "/dev/nvidia*."},
    {DriverFacts::State::kError, Severity::kError, "driver-error",
     "The NVIDIA driver answered with an error",
     "See the error above; `smcompat probe` shows the driver's answers."},
};

}  // namespace

void Rules::driver_rules() {
  auto& d = r.driver;
  for (auto& f : kDriverStateFindings)
    if (f.state == d.state) add({f.severity, f.id, f.title, {d.detail}, f.fix, {}, "driver"});
  // Kernel module flavour: Blackwell runs only with the open kernel modules.
  for (auto& t : r.targets) {
    if (!is_blackwell(t.cc)) continue;
    if (d.kernel_module_flavour == "proprietary") {
      add({t.observed ? Severity::kError : Severity::kWarning,
           "blackwell-needs-open-modules",
           fmt::format("{} needs the NVIDIA open kernel modules; the proprietary flavour is loaded",
                       t.name),
           {d.kernel_module_line},
           "Install the open flavour of the same driver (e.g. the nvidia-open / "
           "nvidia-driver-<ver>-open package, or the .run installer with -m=kernel-open), "
           "570 or newer.",
           {},
           "driver"});
      break;
    }
  }
  // Driver version vs what the targets need.
  if (d.version) {
    for (auto& t : r.targets) {
      const ArchInfo* a = cat.arch(t.cc.arch());
      if (!a || !a->first_cuda) continue;
      const CudaRelease* rel = cat.cuda_release(*a->first_cuda);
      if (!rel || !rel->min_driver_linux) continue;
      if (*d.version < *rel->min_driver_linux) {
        add({t.observed ? Severity::kError : Severity::kWarning,
             "driver-too-old-for-gpu",
             fmt::format("Driver {} is older than {} needs ({} for CUDA {}, the first with sm_{})",
                         d.version->to_string(), t.name, rel->min_driver_linux->to_string(),
                         a->first_cuda->to_string(), t.cc.arch()),
             {fmt::format("driver {} ({})", d.version->to_string(),
                          d.kernel_module_line.empty() ? d.detail : d.kernel_module_line)},
             fmt::format("Install NVIDIA driver {} or newer.", rel->min_driver_linux->to_string()),
             {},
             "driver"});
        break;
      }
    }
  }
  // Several GPUs without peer access: traffic between them goes through host memory.
  if (!d.pairs_without_p2p.empty()) {
    std::string pairs;
    for (auto& [a, b] : d.pairs_without_p2p)
      pairs += fmt::format("{}{}-{}", pairs.empty() ? "" : ", ", a, b);
    add({Severity::kInfo,
         "multi-gpu-no-p2p",
         fmt::format("{} GPUs, {} pair(s) without peer-to-peer access", d.gpus.size(),
                     d.pairs_without_p2p.size()),
         {"cuDeviceCanAccessPeer = 0 for GPU pairs " + pairs + " (observed)",
          d.nvlink_links ? fmt::format("{} NVLink links", d.nvlink_links) : "no NVLink"},
         "Traffic between these GPUs is staged through host memory (NCCL falls back to its "
         "host/SHM path): prefer tensor or pipeline parallelism with few, large transfers over "
         "expert parallelism or all-to-all; expect PCIe-bound multi-GPU speed.",
         {},
         "driver"});
  }
}

void Rules::toolkit_rules() {
  auto home = env.count("CUDA_HOME") ? env.at("CUDA_HOME") : std::string();
  if (!home.empty()) {
    std::error_code ec;
    if (!fs::is_directory(home, ec)) {
      add({Severity::kError,
           "cuda-home-missing",
           "CUDA_HOME points to a directory that does not exist",
           {"CUDA_HOME=" + home},
           r.toolkits.empty() ? "Install a CUDA toolkit and point CUDA_HOME at it."
                              : "Point CUDA_HOME at an installed toolkit.",
           r.toolkits.empty()
               ? std::vector<std::string>{}
               : std::vector<std::string>{"export CUDA_HOME=" + r.toolkits.front().root},
           "toolkit"});
    }
  }
  if (r.toolkits.empty()) {
    add({Severity::kInfo,
         "no-toolkit",
         "No CUDA toolkit found",
         {"looked at CUDA_HOME, CUDA_PATH, nvcc on PATH and /usr/local/cuda*"},
         "Only needed to build CUDA extensions from source; prebuilt wheels bring their own CUDA "
         "libraries.",
         {},
         "toolkit"});
    return;
  }
  const auto& tk = r.toolkits.front();
  if (home.empty()) {
    add({Severity::kInfo,
         "cuda-home-unset",
         fmt::format("CUDA_HOME is not set; builds will look for {}", tk.root),
         {fmt::format("toolkit {} (CUDA {}), found by {}", tk.root,
                      tk.version ? tk.version->to_string() : "?", tk.found_by.front())},
         "Set CUDA_HOME so that extension builds (torch.utils.cpp_extension) use this toolkit.",
         {"export CUDA_HOME=" + tk.root},
         "toolkit"});
  }
  // nvcc on PATH vs CUDA_HOME disagreeing.
  const ToolkitFacts* on_path = nullptr;
  for (auto& t : r.toolkits)
    if (std::find(t.found_by.begin(), t.found_by.end(), "nvcc on PATH") != t.found_by.end())
      on_path = &t;
  if (!home.empty() && on_path && on_path != &tk &&
      std::find(tk.found_by.begin(), tk.found_by.end(), "CUDA_HOME") != tk.found_by.end()) {
    add({Severity::kWarning,
         "toolkit-mismatch",
         "nvcc on PATH is not the toolkit CUDA_HOME names",
         {"CUDA_HOME=" + tk.root + " (CUDA " + (tk.version ? tk.version->to_string() : "?") + ")",
          "nvcc on PATH: " + on_path->nvcc + " (CUDA " +
              (on_path->version ? on_path->version->to_string() : "?") + ")"},
         "Put $CUDA_HOME/bin first on PATH so that every build step uses one toolkit.",
         {"export PATH=\"$CUDA_HOME/bin:$PATH\""},
         "toolkit"});
  }
  if (tk.version) {
    for (auto& t : r.targets) {
      const ArchInfo* a = cat.arch(t.cc.arch());
      if (a && a->first_cuda && *tk.version < *a->first_cuda) {
        add({Severity::kWarning,
             "toolkit-too-old-for-gpu",
             fmt::format("CUDA {} cannot build code for {} (sm_{} needs CUDA {})",
                         tk.version->to_string(), t.name, t.cc.arch(), a->first_cuda->to_string()),
             {fmt::format("{}: CUDA {} ({})", tk.root, tk.version->to_string(), tk.version_source)},
             fmt::format("Install CUDA {} or newer to build extensions for this GPU.",
                         a->first_cuda->to_string()),
             {},
             "toolkit"});
        break;
      }
    }
  }
}

}  // namespace smcompat::doctor
