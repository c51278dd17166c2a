// The doctor's rules: facts (facts.hpp) x target GPUs -> package verdicts and findings.
// Package verdicts come from verdict/ (judge_file: compatibility-rules.md sections 1-7); driver
// minimums section 9; environment variables section 8; PyTorch channels section 11
// (data/python_packages.json); Blackwell needs the open kernel modules (NVIDIA driver README "Open
// Linux Kernel Modules": GPUs from Blackwell on are supported only by the open flavour).
#include "smcompat/doctor/doctor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "smcompat/doctor/build_env.hpp"
#include "smcompat/util/strings.hpp"
#include "smcompat/verdict/verdict.hpp"

namespace smcompat::doctor {

namespace fs = std::filesystem;

const char* to_string(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "?";
}

std::optional<Severity> parse_severity(std::string_view s) {
  if (s == "info") return Severity::kInfo;
  if (s == "warning") return Severity::kWarning;
  if (s == "error") return Severity::kError;
  return std::nullopt;
}

size_t DoctorReport::count(Severity s) const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(),
                                           [&](const Finding& f) { return f.severity == s; }));
}

const Finding* DoctorReport::find(std::string_view id) const {
  for (auto& f : findings)
    if (f.id == id) return &f;
  return nullptr;
}

namespace {

// The verdict module judges each inventory (units = fatbin containers or bare images); a library
// gets the best of its inventories (one per file, more for archives).
LibraryVerdict judge_library(const LibraryCode& lib, const Target& target, const Catalog& cat) {
  LibraryVerdict v;
  v.path = lib.path;
  v.reason = "no image of this library can run on " + target.label;
  bool first = true;
  for (auto& inv : lib.inventories) {
    if (inv.images.empty()) continue;
    auto fv = judge_file(inv, target, cat);
    Fit f = fv.verdict;
    if (first || better(f, v.fit)) {
      first = false;
      v.fit = f;
      v.reason = fv.summary;
      v.best_image.clear();
      for (auto& u : fv.units) {
        if (u.verdict == fv.verdict && u.chosen && *u.chosen < inv.images.size()) {
          v.best_image = inv.images[*u.chosen].target.to_string();
          break;
        }
      }
    }
  }
  return v;
}

std::string targets_text(const std::vector<std::string>& t, size_t max = 12) {
  std::string s;
  for (size_t i = 0; i < t.size() && i < max; ++i) s += (i ? " " : "") + t[i];
  if (t.size() > max) s += fmt::format(" … (+{})", t.size() - max);
  return s;
}

std::string python_of(const PythonEnv& env) {
  if (env.kind == "site-packages") return "";
  for (const char* n : {"/bin/python", "/bin/python3"}) {
    std::error_code ec;
    if (fs::exists(env.prefix + n, ec)) return env.prefix + n;
  }
  return "";
}

bool is_blackwell(ComputeCapability cc) { return cc.major >= 10; }

struct Rules {
  DoctorReport& r;
  const Catalog& cat;
  const PackageKnowledge& k = PackageKnowledge::builtin();
  Environment env;  // rebuilt from report.env_vars plus what judge() needs

  void add(Finding f) { r.findings.push_back(std::move(f)); }

  std::vector<ComputeCapability> target_ccs() const {
    std::vector<ComputeCapability> v;
    for (auto& t : r.targets)
      if (std::find(v.begin(), v.end(), t.cc) == v.end()) v.push_back(t.cc);
    return v;
  }

  std::string gpu_names() const {
    std::string s;
    for (auto& t : r.targets) s += (s.empty() ? "" : ", ") + t.name;
    return s;
  }

  std::optional<Version> driver_cuda() const {
    if (r.driver.cuda) return r.driver.cuda;
    if (r.driver.version) return cat.max_cuda_for_driver(*r.driver.version);
    return std::nullopt;
  }

  void driver_rules() {
    auto& d = r.driver;
    bool any_present =
        std::any_of(r.targets.begin(), r.targets.end(), [](auto& t) { return t.observed; });
    switch (d.state) {
      case DriverFacts::State::kNoDriver:
        add({Severity::kWarning,
             "no-driver",
             "No NVIDIA driver found on this machine",
             {d.detail},
             "If this machine has an NVIDIA GPU, install the NVIDIA driver (570 or newer for "
             "Blackwell, with the open kernel modules). To judge this environment for a GPU that "
             "is "
             "not here, ask for it: smcompat doctor --gpu \"RTX 5090\"",
             {},
             "driver"});
        break;
      case DriverFacts::State::kStub:
        add({Severity::kError,
             "stub-libcuda",
             "The libcuda.so.1 that loads is the CUDA toolkit's stub, not the driver",
             {d.detail},
             "Remove the toolkit's lib64/stubs directory from LD_LIBRARY_PATH (the stub answers "
             "every call with CUDA_ERROR_STUB_LIBRARY = 34), and install the NVIDIA driver if it "
             "is "
             "missing.",
             {},
             "driver"});
        break;
      case DriverFacts::State::kNoDevice:
        add({Severity::kWarning,
             "no-gpu-visible",
             "The driver is loaded but reports no GPU",
             {d.detail},
             "Check CUDA_VISIBLE_DEVICES, the container's GPU access (--gpus), and permissions on "
             "/dev/nvidia*.",
             {},
             "driver"});
        break;
      case DriverFacts::State::kError:
        add({Severity::kError,
             "driver-error",
             "The NVIDIA driver answered with an error",
             {d.detail},
             "See the error above; `smcompat probe` shows the driver's answers.",
             {},
             "driver"});
        break;
      default:
        break;
    }
    // Kernel module flavour: Blackwell runs only with the open kernel modules.
    for (auto& t : r.targets) {
      if (!is_blackwell(t.cc)) continue;
      if (d.kernel_module_flavour == "proprietary") {
        add({t.observed ? Severity::kError : Severity::kWarning,
             "blackwell-needs-open-modules",
             fmt::format(
                 "{} needs the NVIDIA open kernel modules; the proprietary flavour is loaded",
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
               fmt::format(
                   "Driver {} is older than {} needs ({} for CUDA {}, the first with sm_{})",
                   d.version->to_string(), t.name, rel->min_driver_linux->to_string(),
                   a->first_cuda->to_string(), t.cc.arch()),
               {fmt::format("driver {} ({})", d.version->to_string(),
                            d.kernel_module_line.empty() ? d.detail : d.kernel_module_line)},
               fmt::format("Install NVIDIA driver {} or newer.",
                           rel->min_driver_linux->to_string()),
               {},
               "driver"});
          break;
        }
      }
    }
    (void)any_present;
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

  void toolkit_rules() {
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
                           tk.version->to_string(), t.name, t.cc.arch(),
                           a->first_cuda->to_string()),
               {fmt::format("{}: CUDA {} ({})", tk.root, tk.version->to_string(),
                            tk.version_source)},
               fmt::format("Install CUDA {} or newer to build extensions for this GPU.",
                           a->first_cuda->to_string()),
               {},
               "toolkit"});
          break;
        }
      }
    }
  }

  PackageVerdict verdict(const PythonEnv& e, const PackageCode& p, const Target& t) {
    PackageVerdict v;
    v.env = e.prefix;
    v.package = p.dist.name;
    v.version = p.dist.version;
    v.gpu = t.name;
    v.cc = t.cc;
    // A package that loads one of several libraries at run time is judged by that one alone.
    const LibraryCode* only = nullptr;
    bool select = false;
    if (const RuntimeVariantRule* rule = k.variant_rule(p.dist.name, p.dist.version);
        rule && (e.torch || env.count(rule->override_env))) {
      v.variant = choose_variant(*rule, p.dist, e.torch ? e.torch->cuda : std::nullopt, env);
      select = true;
      for (auto& lib : p.libraries)
        if (lib.path == v.variant->chosen) only = &lib;
    }
    std::set<SmTarget> found;
    for (auto& lib : p.libraries)
      if (!select || &lib == only) found.insert(lib.targets.begin(), lib.targets.end());
    for (auto& s : found) v.targets.push_back(s.to_string());
    v.fit = Fit::kNative;
    if (select && !only) v.fit = Fit::kNoImage;  // nothing with device code loads
    Target target = t;
    target.gpu = cat.find_gpu(t.name);
    target.driver_cuda = driver_cuda();
    target.driver = r.driver.version;
    target.label = t.name;
    for (auto& lib : p.libraries) {
      if (lib.no_kernels) continue;  // nothing to launch: cannot fail to load a kernel
      if (select && &lib != only) continue;
      auto lv = judge_library(lib, target, cat);
      v.fit = worse(v.fit, lv.fit);
      v.libraries.push_back(std::move(lv));
    }
    return v;
  }

  std::vector<LibraryVerdict> worst_libs(const PackageVerdict& v) {
    std::vector<LibraryVerdict> out;
    for (auto& l : v.libraries)
      if (l.fit == v.fit) out.push_back(l);
    return out;
  }

  std::vector<std::string> lib_evidence(const PackageVerdict& v, size_t max = 3) {
    std::vector<std::string> ev;
    auto libs = worst_libs(v);
    for (size_t i = 0; i < libs.size() && i < max; ++i) {
      auto& l = libs[i];
      std::string targets;
      for (auto& lib_all : v.libraries)
        if (lib_all.path == l.path) targets = l.best_image;
      ev.push_back(fmt::format("{}: {}{}", l.path, to_string(l.fit),
                               l.best_image.empty() ? "" : " (best image " + l.best_image + ")"));
    }
    if (libs.size() > max) ev.push_back(fmt::format("… and {} more libraries", libs.size() - max));
    ev.push_back("device code found: " + targets_text(v.targets));
    return ev;
  }

  void torch_rules(const PythonEnv& e) {
    if (!e.torch) return;
    const auto& t = *e.torch;
    std::string py = python_of(e);
    auto ccs = target_ccs();
    std::string release;
    const TorchChannel* pick = ccs.empty() ? nullptr : pick_channel(k, t.version, ccs, &release);
    std::string fix_cmd = pick ? torch_pip_command(k, *pick, py) : std::string();
    const PackageCode* torch = e.find("torch");
    if (t.channel == "cpu") {
      add({ccs.empty() ? Severity::kInfo : Severity::kError,
           "torch-cpu-only",
           fmt::format("torch {} is a CPU-only build", t.version),
           {fmt::format("{}: torch {}", e.site_packages, t.version)},
           pick ? fmt::format("Install a CUDA build of torch ({} covers {}).", pick->channel,
                              gpu_names())
                : "Install a CUDA build of torch.",
           pick ? std::vector<std::string>{fix_cmd} : std::vector<std::string>{},
           e.prefix});
      return;
    }
    bool change_channel = false;  // torch itself must come from another channel (pick)
    for (auto& target : r.targets) {
      Fit fit = Fit::kNoImage;
      std::vector<std::string> evidence;
      bool from_files = torch && torch->has_device_code();
      if (from_files) {
        auto v = verdict(e, *torch, target);
        fit = v.fit;
        evidence = lib_evidence(v);
      } else {
        // Predicted from the published arch list of the channel.
        for (auto* c : k.channels_of(t.version)) {
          if (c->channel != t.channel) continue;
          fit = arch_list_covers(c->archs, target.cc) ? Fit::kNative : Fit::kNoImage;
          std::string list;
          for (auto& a : c->archs) list += (list.empty() ? "" : ";") + a;
          evidence.push_back(fmt::format(
              "torch {} {} wheels are built for {} (published arch list, source {}; the libraries "
              "were not read)",
              release.empty() ? t.version : t.version, c->channel, list, c->source));
        }
        if (evidence.empty()) continue;  // nothing known
      }
      evidence.insert(
          evidence.begin(),
          fmt::format("{}: torch {} (channel {}, CUDA {})", e.site_packages, t.version,
                      t.channel.empty() ? "none" : t.channel, t.cuda ? t.cuda->to_string() : "?"));
      if ((fit == Fit::kNoImage || fit == Fit::kPtxJit) && pick) change_channel = true;
      if (fit == Fit::kNoImage) {
        add({Severity::kError, "torch-no-image",
             fmt::format("torch {} has no code for {} (sm_{}): \"no kernel image is available\"",
                         t.version, target.name, target.cc.arch()),
             evidence,
             pick ? fmt::format("Install torch from the {} channel, whose wheels include {} (torch "
                                "{} arch list).",
                                pick->channel, target.cc.to_string(), release)
                  : "No published torch channel covers this GPU; build torch from source (smcompat "
                    "build-env --for pytorch).",
             pick ? std::vector<std::string>{fix_cmd} : std::vector<std::string>{}, e.prefix});
      } else if (fit == Fit::kPtxJit) {
        add({Severity::kWarning, "torch-ptx-jit",
             fmt::format(
                 "torch {} runs on {} only by PTX JIT (slow first start, no native kernels)",
                 t.version, target.name),
             evidence,
             pick ? fmt::format("Install torch from the {} channel, which has native code for it.",
                                pick->channel)
                  : "",
             pick ? std::vector<std::string>{fix_cmd} : std::vector<std::string>{}, e.prefix});
      } else if (fit == Fit::kUnsupportedPtx) {
        add({Severity::kError,
             "torch-ptx-too-new",
             fmt::format("torch {} has only PTX for {} and the driver is too old to JIT it",
                         t.version, target.name),
             evidence,
             "Update the NVIDIA driver.",
             {},
             e.prefix});
      }
    }
    // Driver vs torch's CUDA runtime.
    if (t.cuda && r.driver.version) {
      const CudaRelease* rel = cat.cuda_release(*t.cuda);
      if (rel && rel->min_driver_linux && *r.driver.version < *rel->min_driver_linux) {
        bool minor_compat = (t.cuda->major == 12 && r.driver.version->major >= 525) ||
                            (t.cuda->major == 13 && r.driver.version->major >= 580) ||
                            (t.cuda->major == 11 && r.driver.version->major >= 450);
        add({minor_compat ? Severity::kWarning : Severity::kError,
             "driver-too-old-for-torch",
             fmt::format("Driver {} is older than CUDA {} (torch {}) needs ({})",
                         r.driver.version->to_string(), t.cuda->to_string(), t.version,
                         rel->min_driver_linux->to_string()),
             {fmt::format("torch/version.py: cuda = '{}'", t.cuda->to_string()),
              fmt::format("driver {}", r.driver.version->to_string()),
              minor_compat
                  ? "CUDA minor-version compatibility lets SASS run, but PTX from this "
                    "runtime cannot be JIT-compiled (compatibility-rules.md section 9)"
                  : "below the minimum of this CUDA major: cudaErrorInsufficientDriver (35)"},
             fmt::format("Install NVIDIA driver {} or newer, or a torch channel built for an older "
                         "CUDA that still covers your GPU.",
                         rel->min_driver_linux->to_string()),
             {},
             e.prefix});
      }
    }
    // torchvision / torchaudio lockstep.
    const auto* comp = k.companion(t.version);
    for (const char* name : {"torchvision", "torchaudio"}) {
      const PackageCode* p = e.find(name);
      if (!p) continue;
      // The channel as the package itself says it: version.py's local tag, else the CUDA major
      // of the runtime it bundles; METADATA of PyPI wheels carries no tag.
      const std::string& own = p->dist.effective_version();
      std::string ch = local_version_suffix(own);
      std::string said_by =
          p->dist.own_version.empty()
              ? fmt::format("{} METADATA", name)
              : fmt::format("{} (METADATA: {})", p->dist.own_version_source, p->dist.version);
      std::string want_ver =
          comp ? (std::string(name) == "torchvision" ? comp->torchvision : comp->torchaudio) : "";
      std::string have_rel;
      {
        auto v = p->dist.version.substr(0, p->dist.version.find('+'));
        auto parts = split(v, '.');
        if (parts.size() >= 2) have_rel = fmt::format("{}.{}", parts[0], parts[1]);
      }
      // Reinstall the three together: from the channel torch must move to if it has no code
      // for the GPUs (the same command as that finding), else pinned to torch's own channel.
      std::string lock_channel =
          change_channel ? pick->channel : (t.channel.empty() ? "cu128" : t.channel);
      std::string torch_fix = change_channel ? fix_cmd
                                             : fmt::format(
                                                   "{} install --force-reinstall torch=={} "
                                                   "torchvision torchaudio --index-url {}{}",
                                                   py.empty() ? "pip" : py + " -m pip",
                                                   t.version.substr(0, t.version.find('+')),
                                                   k.pytorch_index, lock_channel);
      bool cudart_differs = ch.empty() && p->dist.bundled_cudart_major && t.cuda &&
                            p->dist.bundled_cudart_major != t.cuda->major;
      bool tag_differs = !ch.empty() && ch != t.channel;
      if (ch.empty() && !cudart_differs && !t.channel.empty() && !p->dist.bundled_cudart_major) {
        add({Severity::kInfo,
             std::string(name) + "-channel-unknown",
             fmt::format("{} {} does not say which CUDA channel it is from", name, own),
             {fmt::format("{}: no local version tag", said_by),
              fmt::format("{} bundles no libcudart", name)},
             "",
             {},
             e.prefix});
      } else if (tag_differs || cudart_differs) {
        std::vector<std::string> evidence{fmt::format(
            "{}: torch {} (channel {}, CUDA {})", t.version_py.empty() ? "torch" : t.version_py,
            t.version, t.channel.empty() ? "none" : t.channel, t.cuda ? t.cuda->to_string() : "?")};
        if (tag_differs)
          evidence.push_back(fmt::format("{}: {} {} (channel {})", said_by, name, own, ch));
        if (p->dist.bundled_cudart_major)
          evidence.push_back(fmt::format("{} bundles {} (CUDA {})", name, p->dist.bundled_cudart,
                                         p->dist.bundled_cudart_major));
        evidence.push_back(
            "their compiled operators link against torch's CUDA runtime: mixed channels fail to "
            "load or crash");
        add({Severity::kError,
             std::string(name) + "-channel-mismatch",
             fmt::format("{} {} is from another CUDA channel than torch {}", name, own, t.version),
             evidence,
             fmt::format(
                 "Reinstall torch, torchvision and torchaudio together from one index ({}).",
                 lock_channel),
             {torch_fix},
             e.prefix});
      } else if (comp && !want_ver.empty() && have_rel != want_ver) {
        add({Severity::kError,
             std::string(name) + "-version-mismatch",
             fmt::format("{} {} does not match torch {} (expects {} {}.x)", name, p->dist.version,
                         t.version, name, want_ver),
             {fmt::format("torch {} pairs with torchvision {} and torchaudio {}", comp->torch,
                          comp->torchvision, comp->torchaudio)},
             "Reinstall the three together so pip picks matching versions.",
             {torch_fix},
             e.prefix});
      }
    }
  }

  // A package whose run-time choice finds no library for this environment (bitsandbytes 0.45.2
  // under a CUDA 13.2 torch): the fix is the first release known to ship one, or a torch built
  // for a CUDA the installed release has.
  void variant_missing(const PythonEnv& e, const PackageCode& p, const PackageVerdict& v,
                       const std::string& pip) {
    const auto& c = *v.variant;
    Finding f;
    f.severity = Severity::kError;
    f.id = "runtime-variant-missing";
    f.subject = e.prefix;
    f.title = c.wanted
                  ? fmt::format("{} {} has no library for CUDA {}", p.dist.name, p.dist.version,
                                c.wanted->to_string())
                  : fmt::format("{} {} loads no CUDA library here", p.dist.name, p.dist.version);
    f.evidence.push_back(fmt::format("{}: {} {}", e.site_packages, p.dist.name, p.dist.version));
    f.evidence.push_back(c.problem);
    f.evidence.push_back(fmt::format("rule: {} [{}]", c.rule->chosen_by, c.rule->source));
    std::string alts;
    for (auto& a : c.alternatives) alts += (alts.empty() ? "" : ", ") + a;
    f.evidence.push_back("shipped: " + (alts.empty() ? std::string("nothing else") : alts));
    std::string newer;
    if (c.wanted) {
      for (auto& rel : k.variant_releases) {
        if (normalize_dist_name(rel.package) != normalize_dist_name(p.dist.name) ||
            compare_versions(rel.version, p.dist.version) <= 0)
          continue;
        const RuntimeVariantRule* rule = k.variant_rule(rel.package, rel.version);
        bool has = std::any_of(rel.cuda.begin(), rel.cuda.end(), [&](const Version& x) {
          return x == *c.wanted || (rule && rule->same_major_nearest && x.major == c.wanted->major);
        });
        if (has && (newer.empty() || compare_versions(rel.version, newer) < 0)) newer = rel.version;
      }
    }
    if (!newer.empty() && !env.count(c.rule->override_env)) {
      f.fix = fmt::format(
          "Install {} {} or newer, which ships a library for CUDA {} (checked in its wheel)",
          p.dist.name, newer, c.wanted->to_string());
      f.fix_commands.push_back(fmt::format("{} install -U '{}>={}'", pip, p.dist.name, newer));
    } else if (env.count(c.rule->override_env)) {
      f.fix =
          fmt::format("Unset {} (or name a CUDA version the release ships)", c.rule->override_env);
      f.fix_commands.push_back("unset " + c.rule->override_env);
    }
    // Or keep the release and bring a torch for a CUDA it has: the newest such channel.
    const TorchChannel* alt = nullptr;
    if (!env.count(c.rule->override_env)) {
      for (auto& ch : k.channels) {
        bool has = std::any_of(c.alternatives.begin(), c.alternatives.end(), [&](auto& a) {
          return a.find(fmt::format("(CUDA {})", ch.cuda.to_string())) != std::string::npos;
        });
        if (has && (!alt || compare_versions(ch.torch, alt->torch) > 0 ||
                    (ch.torch == alt->torch && alt->cuda < ch.cuda)))
          alt = &ch;
      }
    }
    bool covers = alt != nullptr;
    for (auto& t : r.targets) covers = covers && arch_list_covers(alt->archs, t.cc);
    if (covers) {  // only worth saying if that torch runs on the GPUs judged
      f.fix += fmt::format("{}or keep {} {} and install torch {} from the {} channel (CUDA {}).",
                           f.fix.empty() ? "" : "; ", p.dist.name, p.dist.version, alt->torch,
                           alt->channel, alt->cuda.to_string());
    } else if (!f.fix.empty()) {
      f.fix += ".";
    }
    add(std::move(f));
  }

  void package_rules(const PythonEnv& e) {
    std::string py = python_of(e);
    std::string pip = py.empty() ? "pip" : py + " -m pip";
    std::string torch_channel = e.torch ? e.torch->channel : "";
    for (auto& p : e.packages) {
      if (!p.has_device_code()) continue;
      auto n = normalize_dist_name(p.dist.name);
      bool is_torch = n == "torch";
      for (auto& t : r.targets) {
        auto v = verdict(e, p, t);
        r.verdicts.push_back(v);
        if (is_torch || n == "torchvision" || n == "torchaudio") continue;  // torch_rules
        if (v.variant && v.variant->chosen.empty()) {
          variant_missing(e, p, v, pip);
          break;  // the same for every GPU
        }
        if (v.fit == Fit::kNative || v.fit == Fit::kCompatibleSass) continue;
        const GpuPackageInfo* info = k.package(p.dist.name);
        Finding f;
        f.subject = e.prefix;
        f.evidence = lib_evidence(v);
        if (v.variant) {
          auto& c = *v.variant;
          f.evidence.insert(f.evidence.begin(),
                            fmt::format("loads {} only ({}: {}; rule: {} [{}])",
                                        fs::path(c.chosen).filename().string(), c.wanted_by, c.how,
                                        c.rule->chosen_by, c.rule->source));
        }
        f.evidence.insert(f.evidence.begin(),
                          fmt::format("{}: {} {}", e.site_packages, p.dist.name, p.dist.version));
        if (info && !info->note.empty())
          f.evidence.push_back(info->note + " [" + info->source + "]");
        if (v.fit == Fit::kNoImage) {
          f.severity = Severity::kError;
          f.id = "package-no-image";
          f.title = fmt::format("{} {} has no code for {} (sm_{})", p.dist.name, p.dist.version,
                                t.name, t.cc.arch());
        } else if (v.fit == Fit::kUnsupportedPtx) {
          f.severity = Severity::kError;
          f.id = "package-ptx-too-new";
          f.title = fmt::format("{} {} has only PTX for {}, newer than the driver can JIT",
                                p.dist.name, p.dist.version, t.name);
          f.fix = "Update the NVIDIA driver (compatibility-rules.md section 5).";
          add(std::move(f));
          continue;
        } else {
          f.severity = Severity::kWarning;
          f.id = "package-ptx-jit";
          f.title =
              fmt::format("{} {} runs on {} only by PTX JIT", p.dist.name, p.dist.version, t.name);
        }
        // The fix: by how the package is installed.
        if (info && info->install == "channel" && !torch_channel.empty()) {
          auto ccs = target_ccs();
          std::string rel;
          const TorchChannel* ch = e.torch ? pick_channel(k, e.torch->version, ccs, &rel) : nullptr;
          std::string channel = ch ? ch->channel : torch_channel;
          f.fix = fmt::format("Install the {} build from the PyTorch {} index (matching torch).",
                              info->pip, channel);
          f.fix_commands.push_back(
              fmt::format("{} install --force-reinstall --no-deps {} --index-url {}{}", pip,
                          info->pip, k.pytorch_index, channel));
        } else if (starts_with(n, "nvidia-")) {
          // NVIDIA's CUDA library wheels: the CUDA release decides which archs they carry.
          const ArchInfo* a = cat.arch(t.cc.arch());
          // CUDA 13 wheels install under nvidia/cu13/: already a CUDA that knows this GPU.
          int wheel_cuda = 0;
          for (auto& l : v.libraries)
            if (auto pos = l.path.find("/nvidia/cu"); pos != std::string::npos)
              wheel_cuda = static_cast<int>(
                  parse_uint(std::string_view(l.path).substr(pos + 10, 2)).value_or(0));
          if (a && a->first_cuda && !a->last_cuda && wheel_cuda >= a->first_cuda->major + 1) {
            f.fix = fmt::format(
                "None to install: these are CUDA {} wheels, and NVIDIA builds this library "
                "without sm_{} SASS; its kernels JIT from PTX at first use.",
                wheel_cuda, t.cc.arch());
          } else if (a && a->last_cuda) {
            f.fix = fmt::format(
                "CUDA {} was the last release with sm_{}: use the CUDA {} library wheels "
                "(nvidia-*-cu{}), which come with a torch built for that CUDA.",
                a->last_cuda->to_string(), t.cc.arch(), a->last_cuda->major, a->last_cuda->major);
          } else {
            f.fix = fmt::format(
                "Upgrade the CUDA library wheels to a CUDA release with sm_{} (first: CUDA {}).",
                t.cc.arch(), a && a->first_cuda ? a->first_cuda->to_string() : "?");
            f.fix_commands.push_back(fmt::format("{} install -U {}", pip, p.dist.name));
          }
        } else if (info && info->install == "pypi") {
          f.fix =
              fmt::format("Upgrade {}{}.", info->pip,
                          info->min_version_blackwell.empty()
                              ? ""
                              : " (Blackwell support from " + info->min_version_blackwell + ")");
          f.fix_commands.push_back(fmt::format("{} install -U {}", pip, info->pip));
        } else {
          // Built from source: rebuild with the build settings, keeping the archs it had.
          BuildEnvRequest req;
          req.gpus = target_ccs();
          for (auto& s : p.all_targets())
            if (s.kind == ImageKind::kSass && s.variant == ArchVariant::kBase)
              req.keep.push_back(s.cc());
          req.toolkits = r.toolkits;
          req.host = r.host;
          auto be = compute_build_env(req, cat);
          f.fix =
              fmt::format("Rebuild {} from source with TORCH_CUDA_ARCH_LIST=\"{}\" (nvcc >= {}){}.",
                          p.dist.name, be.arch_list, be.min_nvcc ? be.min_nvcc->to_string() : "?",
                          be.problems.empty() ? "" : "; first: " + be.problems.front());
          for (auto& l : be.lines)
            f.fix_commands.push_back(fmt::format("export {}=\"{}\"", l.name, l.value));
          f.fix_commands.push_back(fmt::format(
              "{} install --no-build-isolation --force-reinstall --no-deps {}  # or `.` in its "
              "source directory",
              pip, info ? info->pip : p.dist.name));
        }
        add(std::move(f));
      }
    }
  }

  void ld_library_path_rules() {
    auto it = env.find("LD_LIBRARY_PATH");
    if (it == env.end() || it->second.empty()) return;
    std::error_code ec;
    for (auto dir : split(it->second, ':')) {
      if (dir.empty()) continue;
      std::string d(dir);
      if (fs::exists(d + "/libcuda.so.1", ec) || fs::exists(d + "/libcuda.so", ec)) {
        if (d.find("stubs") != std::string::npos) {
          add({Severity::kError,
               "ld-library-path-stub",
               "LD_LIBRARY_PATH puts the toolkit's stub libcuda before the driver",
               {"LD_LIBRARY_PATH entry " + d + " holds libcuda (the link-time stub)"},
               "Remove the stubs directory from LD_LIBRARY_PATH; it is for linking only.",
               {},
               "env"});
        }
      }
    }
    // Shadowing: a library that a Python environment's nvidia-* wheel provides, found earlier in
    // LD_LIBRARY_PATH (LD_LIBRARY_PATH wins over RUNPATH, ld.so(8)).
    for (auto& e : r.envs) {
      for (auto& p : e.packages) {
        auto n = normalize_dist_name(p.dist.name);
        if (!starts_with(n, "nvidia-")) continue;
        for (auto& so : p.dist.shared_libraries) {
          auto soname = fs::path(so).filename().string();
          for (auto dir : split(it->second, ':')) {
            if (dir.empty()) continue;
            std::string cand = std::string(dir) + "/" + soname;
            if (fs::exists(cand, ec) &&
                fs::weakly_canonical(cand, ec) != fs::weakly_canonical(so, ec)) {
              add({Severity::kWarning,
                   "ld-library-path-shadows",
                   fmt::format("LD_LIBRARY_PATH shadows {} of {}", soname, p.dist.name),
                   {fmt::format("{} would load {} (from LD_LIBRARY_PATH)", soname, cand),
                    fmt::format("instead of {} ({} {} in {})", so, p.dist.name, p.dist.version,
                                e.prefix)},
                   fmt::format(
                       "Remove {} from LD_LIBRARY_PATH when using this environment (or unset "
                       "LD_LIBRARY_PATH).",
                       std::string(dir)),
                   {"unset LD_LIBRARY_PATH"},
                   e.prefix});
              break;
            }
          }
        }
      }
    }
  }

  void env_var_rules() {
    auto get = [&](const char* n) -> std::optional<std::string> {
      auto it = env.find(n);
      if (it == env.end()) return std::nullopt;
      return it->second;
    };
    auto ccs = target_ccs();
    if (auto v = get("TORCH_CUDA_ARCH_LIST")) {
      std::vector<std::string> entries;
      for (auto e : split(*v, ';'))
        for (auto e2 : split(e, ' '))
          if (!trim(e2).empty()) entries.emplace_back(trim(e2));
      std::vector<std::string> missing;
      for (auto& t : r.targets)
        if (!arch_list_covers(entries, t.cc))
          missing.push_back(t.name + " (" + t.cc.to_string() + ")");
      if (!missing.empty()) {
        BuildEnvRequest req;
        req.gpus = ccs;
        for (auto& e : entries)
          if (auto c = ComputeCapability::parse(e.substr(0, e.find('+')))) req.keep.push_back(*c);
        req.toolkits = r.toolkits;
        req.host = r.host;
        auto be = compute_build_env(req, cat);
        std::string list;
        for (auto& m : missing) list += (list.empty() ? "" : ", ") + m;
        add({Severity::kWarning,
             "arch-list-missing-gpu",
             "TORCH_CUDA_ARCH_LIST leaves out " + list,
             {"TORCH_CUDA_ARCH_LIST=" + *v,
              "extensions built now get no code for these GPUs (no kernel image at run time)"},
             fmt::format("Set TORCH_CUDA_ARCH_LIST=\"{}\" before building (nvcc >= {}).",
                         be.arch_list, be.min_nvcc ? be.min_nvcc->to_string() : "?"),
             {fmt::format("export TORCH_CUDA_ARCH_LIST=\"{}\"", be.arch_list)},
             "env"});
      }
    }
    if (auto v = get("CUDA_VISIBLE_DEVICES")) {
      std::string s(trim(*v));
      bool hides = s.empty() || s == "-1" || to_lower(s) == "none" || to_lower(s) == "void";
      add({hides ? Severity::kWarning : Severity::kInfo,
           hides ? "cuda-visible-devices-hides" : "cuda-visible-devices",
           hides ? "CUDA_VISIBLE_DEVICES hides every GPU"
                 : "CUDA_VISIBLE_DEVICES selects GPUs: " + s,
           {"CUDA_VISIBLE_DEVICES=" + *v},
           hides ? "Unset it (or list the GPUs to use) unless hiding the GPUs is intended." : "",
           hides ? std::vector<std::string>{"unset CUDA_VISIBLE_DEVICES"}
                 : std::vector<std::string>{},
           "env"});
    }
    for (const char* n : {"CUDA_FORCE_PTX_JIT", "CUDA_FORCE_JIT"}) {
      if (auto v = get(n); v && *v == "1") {
        add({Severity::kWarning,
             "force-ptx-jit",
             std::string(n) + "=1: every kernel is JIT-compiled from PTX, embedded SASS is ignored",
             {std::string(n) + "=" + *v,
              "kernels without embedded PTX fail to load; first start is slow "
              "(compatibility-rules.md section 8)"},
             "Unset it unless you are testing whether usable PTX is present.",
             {std::string("unset ") + n},
             "env"});
        break;
      }
    }
    for (const char* n : {"CUDA_DISABLE_PTX_JIT", "CUDA_DISABLE_JIT"}) {
      if (auto v = get(n); v && *v == "1") {
        bool needs_jit =
            std::any_of(r.verdicts.begin(), r.verdicts.end(),
                        [](const PackageVerdict& pv) { return pv.fit == Fit::kPtxJit; });
        add({needs_jit ? Severity::kError : Severity::kWarning,
             "disable-ptx-jit",
             std::string(n) + "=1: kernels without matching SASS fail to load",
             {std::string(n) + "=" + *v,
              needs_jit ? "some packages here run only by PTX JIT (see their verdicts)"
                        : "code that relies on PTX JIT fails with "
                          "CUDA_ERROR_JIT_COMPILATION_DISABLED (223)"},
             "Unset it unless you are testing whether code runs natively.",
             {std::string("unset ") + n},
             "env"});
        break;
      }
    }
    auto loading = get("CUDA_MODULE_LOADING");
    if (loading && to_lower(*loading) == "eager") {
      add({Severity::kInfo,
           "module-loading-eager",
           "CUDA_MODULE_LOADING=EAGER: every module (and its PTX JIT) loads at start",
           {"CUDA_MODULE_LOADING=" + *loading},
           "Lazy loading (the default on Linux since CUDA 12.2) starts faster and uses less "
           "memory; "
           "unset the variable unless you need eager loading.",
           {"unset CUDA_MODULE_LOADING"},
           "env"});
    } else {
      add({Severity::kInfo,
           "module-loading-lazy",
           "CUDA lazy loading is in effect (default since CUDA 12.2)",
           {loading ? "CUDA_MODULE_LOADING=" + *loading : "CUDA_MODULE_LOADING unset"},
           "Kernels load (and JIT) at first use; set CUDA_MODULE_LOADING=EAGER only to move that "
           "cost to start-up, e.g. for timing.",
           {},
           "env"});
    }
    bool have_torch =
        std::any_of(r.envs.begin(), r.envs.end(), [](auto& e) { return e.torch.has_value(); });
    if (have_torch) {
      if (auto v = get("PYTORCH_CUDA_ALLOC_CONF")) {
        add({Severity::kInfo,
             "alloc-conf",
             "PYTORCH_CUDA_ALLOC_CONF is set",
             {"PYTORCH_CUDA_ALLOC_CONF=" + *v},
             "",
             {},
             "env"});
      } else {
        add({Severity::kInfo,
             "alloc-conf-expandable",
             "PyTorch's caching allocator can use expandable segments",
             {"PYTORCH_CUDA_ALLOC_CONF unset"},
             "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True reduces fragmentation (fewer "
             "out-of-memory errors with varying tensor sizes); a performance setting, not a fix.",
             {},
             "env"});
      }
      bool tf32 =
          std::any_of(r.targets.begin(), r.targets.end(), [](auto& t) { return t.cc.major >= 8; });
      if (tf32) {
        add({Severity::kInfo,
             "tf32",
             "TF32 tensor-core matmuls are available on these GPUs but off by default for matmul",
             {"GPUs: " + gpu_names()},
             "torch.set_float32_matmul_precision(\"high\") (or "
             "torch.backends.cuda.matmul.allow_tf32 = "
             "True) trades ~3 decimal digits of float32 precision for several times the matmul "
             "speed.",
             {},
             "env"});
      }
    }
  }

  void no_target_hint() {
    if (!r.targets.empty()) return;
    add({Severity::kInfo,
         "no-target-gpu",
         "No GPU to judge the environments for",
         {"the driver reports no GPU and no --gpu was given"},
         "Ask what-if questions: smcompat doctor --gpu \"RTX 5090\" (repeat --gpu for several; "
         "`smcompat gpus` lists the names).",
         {},
         "env"});
  }

  void run() {
    r.findings.clear();
    r.verdicts.clear();
    driver_rules();
    toolkit_rules();
    for (auto& e : r.envs) torch_rules(e);    // torch first: its fix comes first in the script
    for (auto& e : r.envs) package_rules(e);  // fills verdicts (used by the env-var rules)
    ld_library_path_rules();
    env_var_rules();
    no_target_hint();
    std::stable_sort(r.findings.begin(), r.findings.end(), [](const Finding& a, const Finding& b) {
      return static_cast<int>(a.severity) > static_cast<int>(b.severity);
    });
  }
};

// The CUDA-related variables the report lists (values as set).
bool interesting_var(const std::string& n) {
  static const char* exact[] = {"TORCH_CUDA_ARCH_LIST",
                                "CUDA_HOME",
                                "CUDA_PATH",
                                "CUDA_VISIBLE_DEVICES",
                                "CUDA_FORCE_PTX_JIT",
                                "CUDA_FORCE_JIT",
                                "CUDA_DISABLE_PTX_JIT",
                                "CUDA_DISABLE_JIT",
                                "CUDA_MODULE_LOADING",
                                "PYTORCH_CUDA_ALLOC_CONF",
                                "LD_LIBRARY_PATH",
                                "VIRTUAL_ENV",
                                "CONDA_PREFIX",
                                "CUDA_CACHE_DISABLE",
                                "CUDA_CACHE_PATH",
                                "CUDA_CACHE_MAXSIZE",
                                "TRITON_PTXAS_PATH",
                                "MAX_JOBS"};
  for (auto* e : exact)
    if (n == e) return true;
  for (auto& rule : PackageKnowledge::builtin().variant_rules)
    if (n == rule.override_env) return true;
  return false;
}

}  // namespace

void judge(DoctorReport& report, const Catalog& catalog) {
  Rules rules{report, catalog, PackageKnowledge::builtin(), {}};
  for (auto& [n, v] : report.env_vars) rules.env[n] = v;
  rules.run();
}

DriverFacts collect_driver(const DoctorOptions& options);  // driver.cpp

DoctorReport run_doctor(const DoctorOptions& options, const Catalog& catalog) {
  DoctorReport r;
  r.driver = options.driver ? *options.driver : collect_driver(options);
  // This machine's GPUs first (several of one model are judged once; the driver section lists
  // each of them), then the what-if GPUs asked with --gpu.
  TargetQuery query;
  query.names = options.gpus;
  for (size_t i = 0; i < r.driver.gpus.size(); ++i)
    query.machine.push_back({r.driver.gpus[i].name, r.driver.gpus[i].cc, static_cast<int>(i)});
  auto resolved = resolve_targets(query, catalog);
  r.targets = std::move(resolved.targets);
  for (auto& e : resolved.errors) r.errors.push_back(e.what);
  r.toolkits = find_toolkits(options.env, options.usr_local);
  r.host = read_host(options.env);
  auto cache_dirs = ld_conf_dirs(options.ld_so_conf);
  for (const char* so : {"libcuda.so.1", "libnvidia-ml.so.1", "libcudart.so.13", "libcudart.so.12",
                         "libcublas.so.13", "libcublas.so.12", "libcudnn.so.9"}) {
    auto res = resolve_library(so, options.env, cache_dirs);
    if (!res.path.empty() || std::string(so) == "libcuda.so.1") r.libraries.push_back(res);
  }
  std::vector<EnvLocation> where;
  for (auto& p : options.pythons) {
    auto locs = locate_python(p, "--python");
    if (!locs) {
      r.errors.push_back(locs.error().to_string());
      continue;
    }
    for (auto& l : *locs) where.push_back(l);
  }
  if (options.discover_active) {
    for (auto& l : discover_active_pythons(options.env)) where.push_back(l);
  }
  // Directories added by .pth files are importable too; then each real directory once.
  for (size_t i = 0, n = where.size(); i < n; ++i)
    for (auto& l : pth_locations(where[i])) where.push_back(l);
  where = unique_locations(std::move(where));
  for (auto& w : where) r.envs.push_back(read_python_env(w, options.scan_code, options.jobs));
  for (auto& [n, v] : options.env)
    if (interesting_var(n)) r.env_vars.emplace_back(n, v);
  judge(r, catalog);
  return r;
}

}  // namespace smcompat::doctor
