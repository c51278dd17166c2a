// The doctor's rules about Python environments (rules.hpp): torch's code for each GPU and its
// channel (compatibility-rules.md section 11, data/python_packages.json), torchvision/torchaudio
// lockstep, packages that choose a library at run time, and packages with GPU code.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "rules.hpp"
#include "smcompat/doctor/build_env.hpp"
#include "smcompat/index/advise.hpp"
#include "smcompat/util/host.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::doctor {

namespace fs = std::filesystem;

void Rules::torch_rules(const PythonEnv& e) {
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
           fmt::format("torch {} runs on {} only by PTX JIT (slow first start, no native kernels)",
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
           fmt::format("Reinstall torch, torchvision and torchaudio together from one index ({}).",
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

namespace {

// The oldest indexed release of `package` for `machine` newer than `installed` one of whose
// runtime variants `accepts` ("" when the index has none).
std::string first_release_with_runtime(const std::string& package, const std::string& installed,
                                       const std::string& machine,
                                       const std::function<bool(const Version&)>& accepts) {
  std::string first;
  for (const auto& w : builtin_wheel_index().wheels) {
    if (w.package != package || (w.machine != machine && w.machine != "any") ||
        smcompat::compare_versions(w.version, installed) <= 0)
      continue;
    bool has = false;
    for (auto part : split(w.cuda, ';'))
      if (auto v = Version::parse(part); v && accepts(*v)) has = true;
    if (has && (first.empty() || smcompat::compare_versions(w.version, first) < 0))
      first = w.version;
  }
  return first;
}

}  // namespace

// A package whose run-time choice finds no library for this environment (bitsandbytes 0.45.2
// under a CUDA 13.2 torch): the fix is the first release known to ship one, or a torch built
// for a CUDA the installed release has.
void Rules::variant_missing(const PythonEnv& e, const PackageCode& p, const PackageVerdict& v,
                            const std::string& pip) {
  const auto& c = *v.variant;
  Finding f;
  f.severity = Severity::kError;
  f.id = "runtime-variant-missing";
  f.subject = e.prefix;
  f.title = c.wanted ? fmt::format("{} {} has no library for CUDA {}", p.dist.name, p.dist.version,
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
      if (normalize_package_name(rel.package) != normalize_package_name(p.dist.name) ||
          compare_versions(rel.version, p.dist.version) <= 0)
        continue;
      const RuntimeVariantRule* rule = k.variant_rule(rel.package, rel.version);
      bool has = std::any_of(rel.cuda.begin(), rel.cuda.end(), [&](const Version& x) {
        return x == *c.wanted || (rule && rule->same_major_nearest && x.major == c.wanted->major);
      });
      if (has && (newer.empty() || compare_versions(rel.version, newer) < 0)) newer = rel.version;
    }
    // The wheel index knows every indexed release's libraries: its answer wins over the rows.
    const RuntimeVariantRule* rule = c.rule;
    std::string measured = first_release_with_runtime(
        normalize_package_name(p.dist.name), p.dist.version, host_machine(), [&](const Version& x) {
          return x == *c.wanted || (rule && rule->same_major_nearest && x.major == c.wanted->major);
        });
    if (!measured.empty()) {
      newer = measured;
      f.evidence.push_back(fmt::format(
          "wheel index (built {}): {} {} is the first release after {} with a library for CUDA {}",
          builtin_wheel_index().built, p.dist.name, measured, p.dist.version,
          c.wanted->to_string()));
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

namespace {

// The wheel index's answer (data/wheel_index.json, measured from the released wheels): the
// release to install, and the first one that ran natively. false when the index does not know
// the package or no indexed release runs natively on `t`.
bool index_fix(const PythonEnv& e, const PackageCode& p, const Target& t, Finding& f) {
  const WheelIndex& index = builtin_wheel_index();
  AdviseEnvironment environment;
  for (const auto& q : e.packages)
    environment.installed.push_back({normalize_package_name(q.dist.name), q.dist.version});
  environment.python = python_of(e);
  environment.driver_cuda = t.driver_cuda;
  auto advice = advise(index, {p.dist.name}, t, environment);
  if (advice.empty() || !advice[0].indexed || !advice[0].recommended ||
      advice[0].install_command.empty())
    return false;
  const PackageAdvice& a = advice[0];
  std::string since;
  if (a.first_native)
    since = a.first_native_is_oldest_indexed
                ? fmt::format("; every indexed release from {} on runs", *a.first_native)
                : fmt::format("; the first release that does is {}", *a.first_native);
  f.fix = fmt::format(
      "Install {} {}, the newest release whose PyPI wheel ({}) carries code that "
      "runs natively on {}{} (wheel index built {}).",
      p.dist.name, *a.recommended, a.machine, t.name, since, index.built);
  for (const auto& note : a.notes) f.evidence.push_back("wheel index: " + note);
  f.fix_commands.push_back(a.install_command);
  return true;
}

}  // namespace

void Rules::package_rules(const PythonEnv& e) {
  std::string py = python_of(e);
  std::string pip = py.empty() ? "pip" : py + " -m pip";
  std::string torch_channel = e.torch ? e.torch->channel : "";
  for (auto& p : e.packages) {
    if (!p.has_device_code()) continue;
    auto n = normalize_package_name(p.dist.name);
    bool is_torch = n == "torch";
    for (auto& t : r.targets) {
      auto v = verdict(e, p, t);
      r.verdicts.push_back(v);
      if (is_torch || n == "torchvision" || n == "torchaudio") continue;  // torch_rules
      if (v.variant && v.variant->chosen.empty()) {
        variant_missing(e, p, v, pip);
        break;  // the same for every GPU
      }
      if (runs_natively(v.fit)) continue;
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
      if (info && !info->note.empty()) f.evidence.push_back(info->note + " [" + info->source + "]");
      if (v.fit == Fit::kNoImage) {
        f.severity = Severity::kError;
        f.id = "package-no-image";
        f.title = fmt::format("{} {} has no code for {} (sm_{})", p.dist.name, p.dist.version,
                              t.name, t.cc.arch());
      } else if (v.fit == Fit::kDriverTooOld) {
        f.severity = Severity::kError;
        f.id = "package-driver-too-old";
        f.title = fmt::format("{} {} cannot run on {} with this driver", p.dist.name,
                              p.dist.version, t.name);
        f.evidence.insert(f.evidence.begin() + 1, v.rollup.driver_reason);
        f.fix = "Update the NVIDIA driver: " + v.rollup.driver_reason + ".";
        add(std::move(f));
        continue;
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
      } else if (index_fix(e, p, t, f)) {
        // The measured answer; the hand-written one below is the fallback.
      } else if (info && info->install == "pypi") {
        f.fix = fmt::format("Upgrade {}{}.", info->pip,
                            info->min_version_blackwell.empty()
                                ? ""
                                : " (Blackwell support from " + info->min_version_blackwell + ")");
        f.fix_commands.push_back(fmt::format("{} install -U {}", pip, info->pip));
      } else {
        // Built from source: rebuild with the build settings, keeping the archs it had.
        BuildEnvRequest req;
        req.gpus = target_ccs();
        for (auto& s : p.all_targets()) {
          if (s.kind != ImageKind::kSass) continue;
          if (s.variant == ArchVariant::kBase)
            req.keep.push_back(s.cc());
          else  // the package's own a/f kernels (sm_90a): "9.0a" keeps them
            req.keep_specific.push_back(s.cc().to_string() +
                                        (s.variant == ArchVariant::kArchSpecific ? "a" : "f"));
        }
        req.toolkits = r.toolkits;
        req.host = r.host;
        auto be = compute_build_env(req, cat);
        f.fix =
            fmt::format("Rebuild {} from source with TORCH_CUDA_ARCH_LIST=\"{}\" (nvcc >= {}){}.",
                        p.dist.name, be.arch_list, be.min_nvcc ? be.min_nvcc->to_string() : "?",
                        be.problems.empty() ? "" : "; first: " + be.problems.front());
        // A rebuild needs the source: PyPI may have none (then pip would reinstall the same
        // wheel), so the commands fetch the sdist first and stop without one. CMake projects
        // read CUDAARCHS (CMake >= 3.20), torch extensions TORCH_CUDA_ARCH_LIST.
        std::string pkg = info ? info->pip : p.dist.name;
        f.fix += fmt::format(
            " Only with its source: PyPI has no sdist of many GPU packages (then ask upstream for "
            "a build with sm_{}).",
            t.cc.arch());
        for (auto& l : be.lines)
          f.fix_commands.push_back(fmt::format("export {}=\"{}\"", l.name, l.value));
        std::string cudaarchs;
        for (auto e : split(be.arch_list, ';')) {
          std::string entry(e.substr(0, e.find('+')));
          entry.erase(std::remove(entry.begin(), entry.end(), '.'), entry.end());
          cudaarchs += (cudaarchs.empty() ? "" : ";") + entry;
        }
        if (!cudaarchs.empty())
          f.fix_commands.push_back(
              fmt::format("export CUDAARCHS=\"{}\"  # CMake-based builds", cudaarchs));
        f.fix_commands.push_back(fmt::format(
            "{} download --no-deps --no-binary :all: \"{}=={}\" -d sdist || {{ echo \"no sdist of "
            "{} on PyPI\"; exit 1; }}",
            pip, pkg, p.dist.version, pkg));
        f.fix_commands.push_back(fmt::format(
            "{} install --no-build-isolation --force-reinstall --no-deps sdist/*  # or `.` in its "
            "source directory",
            pip));
      }
      add(std::move(f));
    }
  }
}

}  // namespace smcompat::doctor
