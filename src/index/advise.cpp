// Answers from the wheel index (include/smcompat/index/advise.hpp): which release to install for a
// GPU (advise), the packages x versions x verdict table (query) and what a release added or
// dropped (diff). Every verdict comes from judge_wheel(); versions are ordered by
// compare_versions() (PEP 440). Requires-Dist lines are read as PEP 508 requirements
// (https://peps.python.org/pep-0508/): name, optional [extras], a specifier, optional "; marker".
#include "smcompat/index/advise.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "smcompat/util/strings.hpp"

namespace smcompat {

namespace {

constexpr std::string_view kTorch = "torch";

bool jit_only(Fit fit) { return fit == Fit::kPtxJit || fit == Fit::kUnsupportedPtx; }

// "2.9.0+cu128" -> "2.9.0"; the local label (PEP 440) names the build, not the release.
std::string_view local_label(std::string_view v) {
  auto plus = v.find('+');
  return plus == std::string_view::npos ? std::string_view() : v.substr(plus + 1);
}
// A pin as written after "==": "2.9.0", or a prefix match "2.9.*" (PEP 440 "Version matching").
bool pin_matches(std::string_view pin, std::string_view version) {
  if (ends_with(pin, ".*")) {
    std::string prefix(pin.substr(0, pin.size() - 1));  // "2.9."
    std::string v(without_local(version));
    return starts_with(v + ".", prefix);
  }
  return same_public_version(pin, version);
}

// One PEP 508 requirement, as far as pins need it.
struct Requirement {
  std::string name;    // normalised
  std::string spec;    // "==2.9.0", ">=2.0,<3" (spaces removed), "" for any version
  std::string marker;  // after ';', trimmed
};

Requirement parse_requirement(std::string_view line) {
  Requirement r;
  auto semi = line.find(';');
  std::string_view head = line.substr(0, semi);
  if (semi != std::string_view::npos) r.marker = std::string(trim(line.substr(semi + 1)));
  head = trim(head);
  size_t i = 0;
  while (i < head.size() && (std::isalnum(static_cast<unsigned char>(head[i])) || head[i] == '-' ||
                             head[i] == '_' || head[i] == '.'))
    ++i;
  r.name = normalize_package_name(head.substr(0, i));
  std::string_view rest = trim(head.substr(i));
  if (starts_with(rest, "[")) {  // extras: "torch[opt-einsum]==2.9.0"
    auto close = rest.find(']');
    rest = close == std::string_view::npos ? std::string_view() : trim(rest.substr(close + 1));
  }
  if (starts_with(rest, "(")) {  // the older "torch (==2.9.0)" spelling (METADATA 1.2 style)
    rest = rest.substr(1);
    rest = rest.substr(0, rest.rfind(')'));
  }
  for (char c : rest)
    if (!std::isspace(static_cast<unsigned char>(c))) r.spec += c;
  return r;
}

// Whether a requirement is a pin on `machine`: one behind an extra ("extra == 'cuda'") is
// optional, and platform_machine is read by the index's one marker rule (marker_applies: torch's
// "triton==3.5.0; platform_machine == 'x86_64'" is no pin on aarch64).
bool requirement_holds(std::string_view line, const Requirement& r, std::string_view machine) {
  if (r.marker.find("extra") != std::string::npos) return false;
  return machine.empty() || marker_applies(line, machine);
}

// The exact version `requires_dist` pins `name` to ("torch==2.9.0" -> "2.9.0"), or "". A range
// (">=2.7"), several clauses or the arbitrary-equality "===" is not a pin.
std::string pin_of(const std::vector<std::string>& requires_dist, std::string_view name,
                   std::string_view machine) {
  for (const auto& line : requires_dist) {
    Requirement r = parse_requirement(line);
    if (r.name != name || !requirement_holds(line, r, machine)) continue;
    if (!starts_with(r.spec, "==") || starts_with(r.spec, "===")) continue;
    std::string v = r.spec.substr(2);
    if (v.empty() || v.find(',') != std::string::npos) continue;
    return v;
  }
  return {};
}

// Shell-quotes a path for the pip command when it needs it.
std::string shell_word(const std::string& s) {
  bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("/._-+=:,@%").find(c) != std::string_view::npos;
  });
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string pip_command(const std::string& python,
                        const std::vector<std::pair<std::string, std::string>>& pins) {
  std::string cmd = python.empty() ? "pip install" : shell_word(python) + " -m pip install";
  for (const auto& [name, version] : pins) cmd += fmt::format(" \"{}=={}\"", name, version);
  return cmd;
}

bool newer(const std::string& a, const std::string& b) { return compare_versions(a, b) > 0; }

// The wheels of one release for a machine: the machine's own wheels, else pure ("any") ones.
struct Release {
  std::string version;
  std::vector<const WheelRecord*> wheels;
};

std::vector<Release> releases_of(const WheelIndex& index, std::string_view package,
                                 std::string_view machine) {
  std::vector<Release> out;
  auto add = [&](const WheelRecord& w) {
    for (auto& r : out) {
      if (compare_versions(r.version, w.version) == 0) {
        r.wheels.push_back(&w);
        return;
      }
    }
    out.push_back({w.version, {&w}});
  };
  for (const auto& w : index.wheels)
    if (w.package == package && (machine.empty() || w.machine == machine || w.machine == "any"))
      add(w);
  for (auto& r : out) {
    bool own = std::any_of(r.wheels.begin(), r.wheels.end(),
                           [](const WheelRecord* w) { return w->machine != "any"; });
    if (own) std::erase_if(r.wheels, [](const WheelRecord* w) { return w->machine == "any"; });
    std::sort(r.wheels.begin(), r.wheels.end(),
              [](const WheelRecord* a, const WheelRecord* b) { return a->filename < b->filename; });
  }
  std::sort(out.begin(), out.end(),
            [](const Release& a, const Release& b) { return newer(a.version, b.version); });
  return out;
}

// A release is judged by its wheels for the machine; when there are several (Python tags), the
// worst verdict among those with device code counts, so that "native" holds for every one of them.
ReleaseFit judge_release(const Release& release, const Target& target, std::string_view machine) {
  ReleaseFit best;
  bool first = true;
  for (const WheelRecord* w : release.wheels) {
    WheelVerdict v = judge_wheel(*w, target);
    bool replace =
        first || (v.has_device_code && !best.verdict.has_device_code) ||
        (v.has_device_code == best.verdict.has_device_code && rank(v.fit) > rank(best.verdict.fit));
    if (!replace) continue;
    first = false;
    best.version = w->version;
    best.filename = w->filename;
    best.cuda = w->cuda;
    best.torch_pin = pin_of(w->requires_dist, kTorch, machine);
    best.verdict = std::move(v);
  }
  return best;
}

const std::string* installed_version(const AdviseEnvironment& env, std::string_view package) {
  for (const auto& [name, version] : env.installed)
    if (normalize_package_name(name) == package) return &version;
  return nullptr;
}

std::string gpu_words(const Target& t) {
  return fmt::format("{} (sm_{})", t.name.empty() ? t.label : t.name, t.cc.arch());
}

// A note when the CUDA runtime a release needs is newer than the driver given supports.
void runtime_note(const PackageAdvice& a, const ReleaseFit& r, const std::optional<Version>& driver,
                  std::vector<std::string>& notes) {
  if (r.cuda.empty() || !driver) return;
  // "12.8", "13" (a major only), or "11.8;12.1;...;13.0": one library per CUDA runtime, of which
  // the package loads the one matching the runtime in use (WheelRecord::cuda, infer_cuda()).
  std::vector<Version> variants;
  for (auto part : split(r.cuda, ';'))
    if (auto v = Version::parse(trim(part))) variants.push_back(*v);
  if (variants.empty()) return;
  std::sort(variants.begin(), variants.end());
  if (variants.size() > 1) {
    if (variants.front().major <= driver->major) return;  // some variant runs on this driver
    notes.push_back(fmt::format(
        "{} {} ships one library per CUDA runtime ({} to {}) and none runs on a driver for CUDA "
        "{}: it needs {}",
        a.package, r.version, variants.front().to_string(), variants.back().to_string(),
        driver->to_string(), driver_words(variants.front())));
    return;
  }
  // A newer major is the verdict (judge_package: driver-too-old, with the driver to install),
  // except for a wheel without device code, which no verdict judges.
  const Version need = variants.front();
  if (need.major > driver->major && r.verdict.fit != Fit::kDriverTooOld) {
    notes.push_back(fmt::format(
        "{} {} needs the CUDA {} runtime, which a driver for CUDA {} cannot run: it needs {}",
        a.package, r.version, r.cuda, driver->to_string(), driver_words(need)));
  } else if (need.major == driver->major && need.minor > driver->minor) {
    notes.push_back(fmt::format(
        "{} {} is built with the CUDA {} runtime and the driver supports CUDA {}: it runs through "
        "CUDA minor version compatibility (not for PTX or features newer than the driver); {} "
        "supports it fully",
        a.package, r.version, r.cuda, driver->to_string(), driver_words(need)));
  }
}

// What the installed torch's own record pins `package` to ("triton==3.5.0"), if the index has it.
struct TorchPinned {
  std::string torch_version;
  std::string version;
};
std::optional<TorchPinned> pinned_by_installed_torch(const WheelIndex& index,
                                                     const std::string& torch_installed,
                                                     std::string_view package,
                                                     std::string_view machine) {
  for (const auto& w : index.wheels) {
    if (w.package != kTorch || !same_public_version(w.version, torch_installed)) continue;
    if (w.machine != machine && w.machine != "any") continue;
    std::string pin = pin_of(w.requires_dist, package, machine);
    if (!pin.empty()) return TorchPinned{w.version, pin};
  }
  return std::nullopt;
}

// The note that says how one (other) release fits, for pins that lead elsewhere.
std::string fit_words(const ReleaseFit& r) {
  if (!r.verdict.summary.empty()) return r.verdict.summary;
  return r.verdict.has_device_code ? to_string(r.verdict.fit) : "no device code";
}

// Notes for the releases of `package` the index build could not record on `machine` (gaps in the
// run of native releases); at most three, then a count.
void failure_notes(const WheelIndex& index, const std::string& package, const std::string& machine,
                   std::vector<std::string>& notes) {
  size_t shown = 0, more = 0;
  for (const auto& f : index.failures) {
    if (normalize_package_name(f.package) != package) continue;
    if (!f.platform.empty() && !machine.empty() && f.platform.find(machine) == std::string::npos)
      continue;
    if (shown == 3) {
      ++more;
      continue;
    }
    ++shown;
    notes.push_back(fmt::format("the index build failed at {} for {}{}{}: {}", f.stage, package,
                                f.version.empty() ? "" : " " + f.version,
                                f.platform.empty() ? "" : " (" + f.platform + ")", f.message));
  }
  if (more > 0)
    notes.push_back(fmt::format("… and {} more recorded failure{} for {}", more,
                                more == 1 ? "" : "s", package));
}

// A package name without its CUDA major: "nvidia-cublas-cu12" and NVIDIA's unsuffixed
// "nvidia-cublas" -> "nvidia-cublas", "cupy-cuda12x" -> "cupy", "jax-cuda13-plugin" ->
// "jax-plugin"; the same packages built for another CUDA share it. "" when the name has none and
// is not an unsuffixed NVIDIA wheel.
std::string without_cuda_major(const std::string& package) {
  static const std::regex kMajor(R"(-cu(da)?[0-9]{2,3}x?(?=-|$))");
  std::string key = std::regex_replace(package, kMajor, "");
  if (key != package) return key;
  RuntimeGuess own = infer_cuda_runtime({package, "any", {}, {}, {}});
  return own.cuda.empty() ? "" : package;  // nvidia-cublas: the CUDA 13 one of a family
}

PackageAdvice advise_one(const WheelIndex& index, const std::string& requested, const Target& asked,
                         const AdviseEnvironment& env, const std::string& machine,
                         bool look_for_siblings = true);

// Nothing of `a.package` runs natively: the same package built for another CUDA major that does
// (cupy-cuda13x for cupy-cuda12x), from the index; else say whom to ask, with the evidence.
void sibling_notes(const WheelIndex& index, PackageAdvice& a, const Target& target,
                   const AdviseEnvironment& env, const std::string& machine) {
  std::string key = without_cuda_major(a.package);
  std::set<std::string> siblings;
  if (!key.empty())
    for (const auto& w : index.wheels)
      if (w.package != a.package && (w.machine == machine || w.machine == "any") &&
          without_cuda_major(w.package) == key)
        siblings.insert(w.package);
  for (const auto& sibling : siblings) {
    PackageAdvice s = advise_one(index, sibling, target, env, machine, false);
    if (!s.newest_native) continue;
    a.notes.push_back(fmt::format(
        "{} {} (the same package for another CUDA) runs natively on {}: `pip install "
        "\"{}=={}\"` instead of {}, with a torch and driver for its CUDA",
        sibling, *s.newest_native, gpu_words(target), sibling, *s.newest_native, a.package));
    return;
  }
  a.notes.push_back(fmt::format(
      "no indexed release{} runs natively on {}: ask {}'s maintainers for a build with sm_{} ("
      "with the evidence of `smcompat scan --gpu \"{}\" WHEEL`)",
      siblings.empty()
          ? ""
          : " of " + a.package + " or of " + *siblings.begin() + (siblings.size() > 1 ? " …" : ""),
      gpu_words(target), a.package, target.cc.arch(), target.name));
}

PackageAdvice advise_one(const WheelIndex& index, const std::string& requested, const Target& asked,
                         const AdviseEnvironment& env, const std::string& machine,
                         bool look_for_siblings) {
  // The environment's driver overrides the target's: every verdict checks it (judge_package).
  Target target = asked;
  if (env.driver_cuda) target.driver_cuda = env.driver_cuda;
  PackageAdvice a;
  a.package = normalize_package_name(requested);
  a.machine = machine;
  if (const std::string* v = installed_version(env, a.package)) a.installed_version = *v;

  std::vector<Release> releases = releases_of(index, a.package, machine);
  if (releases.empty()) {
    std::set<std::string> elsewhere;
    for (const auto& w : index.wheels)
      if (w.package == a.package) elsewhere.insert(w.machine);
    if (!elsewhere.empty()) {
      std::string list;
      for (const auto& m : elsewhere) list += (list.empty() ? "" : ", ") + m;
      a.notes.push_back(fmt::format(
          "the index has {} wheels only for {}, none for {} (--platform chooses the machine)",
          a.package, list, machine));
    } else {
      // Index only what the answer needs: the newest release for this machine, into a file the
      // next command reads (a bare `index build` indexes every release for both machines).
      a.notes.push_back(fmt::format(
          "not in the index{}; index its newest release with `smcompat index build {} --last 1 "
          "--platform linux_{} -o {}-index.json`, then `smcompat advise {} --index {}-index.json`",
          index.built.empty() ? std::string() : fmt::format(" (built {})", index.built), a.package,
          machine.empty() ? "x86_64" : machine, a.package, a.package, a.package));
    }
    failure_notes(index, a.package, {}, a.notes);
    return a;
  }
  a.indexed = true;
  for (const auto& r : releases) a.releases.push_back(judge_release(r, target, machine));

  const auto& rs = a.releases;
  a.device_code = std::any_of(rs.begin(), rs.end(),
                              [](const ReleaseFit& r) { return r.verdict.has_device_code; });
  const bool device_code = a.device_code;
  // newest_native, and the contiguous run of native releases ending there (newest first).
  size_t newest = rs.size();
  for (size_t i = 0; i < rs.size(); ++i) {
    if (runs_natively(rs[i].verdict.fit)) {
      newest = i;
      break;
    }
  }
  if (newest < rs.size()) {
    a.newest_native = rs[newest].version;
    size_t oldest = newest;
    while (oldest + 1 < rs.size() && runs_natively(rs[oldest + 1].verdict.fit)) ++oldest;
    a.first_native = rs[oldest].version;
    a.first_native_is_oldest_indexed = oldest + 1 == rs.size();
  }
  for (const auto& r : rs)
    if (jit_only(r.verdict.fit)) a.jit_only.push_back(r.version);

  const std::optional<Version> driver = env.driver_cuda ? env.driver_cuda : target.driver_cuda;
  const std::string* torch_installed = installed_version(env, kTorch);
  const bool is_torch = a.package == kTorch;
  auto find_release = [&](const std::string& version) -> const ReleaseFit* {
    for (const auto& r : rs)
      if (same_public_version(r.version, version)) return &r;
    return nullptr;
  };
  std::vector<std::pair<std::string, std::string>> pins;  // for the pip command
  const ReleaseFit* chosen = nullptr;

  // 1. The installed torch pins this package (torch pins triton; torch's nvidia-* wheels).
  std::optional<TorchPinned> torch_pins;
  if (torch_installed && !is_torch)
    torch_pins = pinned_by_installed_torch(index, *torch_installed, a.package, machine);
  if (torch_pins) {
    chosen = find_release(torch_pins->version);
    a.notes.push_back(fmt::format("the installed torch {} pins {}=={}", *torch_installed, a.package,
                                  torch_pins->version));
    if (!chosen) {
      a.notes.push_back(
          fmt::format("{} {} is not in the index for {}", a.package, torch_pins->version, machine));
    } else if (chosen->verdict.has_device_code && !runs_natively(chosen->verdict.fit)) {
      a.notes.push_back(fmt::format(
          "{} {} does not run natively on {} ({}): a torch release whose {} does is needed",
          a.package, chosen->version, gpu_words(target), fit_words(*chosen), a.package));
    }
  } else if (!device_code) {
    // 2. Nothing to judge: no release carries GPU code.
    chosen = &rs.front();
    a.notes.push_back(fmt::format(
        "no indexed release of {} carries GPU code (it compiles at run time, or is CPU-only): "
        "nothing to judge, {} is the newest",
        a.package, chosen->version));
  } else if (a.newest_native) {
    // 3. The newest native release whose torch pin matches the installed torch.
    for (const auto& r : rs) {
      if (!runs_natively(r.verdict.fit)) continue;
      if (torch_installed && !is_torch && !r.torch_pin.empty() &&
          !pin_matches(r.torch_pin, *torch_installed))
        continue;
      chosen = &r;
      break;
    }
    const ReleaseFit* newest_fit = find_release(*a.newest_native);
    if (chosen && chosen != newest_fit) {
      a.notes.push_back(fmt::format(
          "{} {} is the newest that runs natively but needs torch=={}; {} is the newest that "
          "matches the installed torch {}",
          a.package, newest_fit->version, newest_fit->torch_pin, chosen->version,
          *torch_installed));
    } else if (!chosen) {
      chosen = newest_fit;
      a.notes.push_back(fmt::format(
          "every release of {} that runs natively pins a torch other than the installed {}: "
          "{} needs torch=={} (the command installs both)",
          a.package, *torch_installed, chosen->version, chosen->torch_pin));
      pins.emplace_back(std::string(kTorch), chosen->torch_pin);
    }
  } else {
    // 4. Nothing native: the newest release the driver can JIT, if any.
    for (const auto& r : rs) {
      if (r.verdict.fit == Fit::kPtxJit) {
        chosen = &r;
        break;
      }
    }
    a.notes.push_back(
        fmt::format("no indexed release of {} runs natively on {}", a.package, gpu_words(target)));
    if (look_for_siblings && a.device_code) sibling_notes(index, a, target, env, machine);
    if (chosen) {
      a.notes.push_back(fmt::format(
          "{} {} runs only through PTX JIT: the first load compiles its kernels (slow, then "
          "cached){}",
          a.package, chosen->version,
          chosen->verdict.driver_cuda_needed
              ? fmt::format(", and needs a driver for CUDA {} or newer",
                            chosen->verdict.driver_cuda_needed->to_string())
              : std::string()));
    }
  }
  // Releases that would run but for the driver: the newest says what to install.
  for (const auto& r : rs) {
    if (r.verdict.fit != Fit::kDriverTooOld) continue;
    if (chosen && chosen != &r && runs_natively(chosen->verdict.fit)) break;
    a.notes.push_back(fmt::format("{} {} is {} by its code, but {}", a.package, r.version,
                                  to_string(r.verdict.package.code_fit),
                                  r.verdict.package.driver_reason));
    break;
  }
  // Releases that only JIT because the driver given is too old for their PTX.
  for (const auto& r : rs) {
    if (r.verdict.fit != Fit::kUnsupportedPtx) continue;
    a.notes.push_back(fmt::format(
        "{} {} has PTX for {} that needs a driver for CUDA {}{}", a.package, r.version,
        gpu_words(target),
        r.verdict.driver_cuda_needed ? r.verdict.driver_cuda_needed->to_string() : "newer",
        driver ? fmt::format("; the driver given supports CUDA {}", driver->to_string()) : ""));
    break;  // the newest says it; older ones are older still
  }

  if (chosen) {
    a.recommended = chosen->version;
    // A pin on torch when torch is not installed: pip brings it; say whether it runs.
    if (!chosen->torch_pin.empty() && !is_torch && (!torch_installed || !pins.empty())) {
      if (!torch_installed)
        a.notes.push_back(fmt::format("{} {} pins torch=={} (pip installs it)", a.package,
                                      chosen->version, chosen->torch_pin));
      std::vector<Release> torch_releases = releases_of(index, kTorch, machine);
      for (const auto& tr : torch_releases) {
        if (!same_public_version(tr.version, chosen->torch_pin)) continue;
        ReleaseFit t = judge_release(tr, target, machine);
        if (t.verdict.has_device_code && !runs_natively(t.verdict.fit))
          a.notes.push_back(fmt::format("torch {} does not run natively on {}: {}", t.version,
                                        gpu_words(target), fit_words(t)));
        break;
      }
    }
    bool already = a.installed_version &&
                   same_public_version(*a.installed_version, chosen->version) &&
                   local_label(*a.installed_version) != "cpu" &&
                   !starts_with(local_label(*a.installed_version), "rocm");
    if (already && pins.empty()) {
      a.notes.push_back(
          fmt::format("the installed {} {} is the one to have", a.package, *a.installed_version));
    } else {
      pins.insert(pins.begin(), {a.package, chosen->version});
      a.install_command = pip_command(env.python, pins);
    }
    runtime_note(a, *chosen, driver, a.notes);
  }

  // The installed release, when it is not the recommended one.
  if (a.installed_version &&
      (!chosen || !same_public_version(*a.installed_version, chosen->version))) {
    if (const ReleaseFit* inst = find_release(*a.installed_version)) {
      a.notes.push_back(
          fmt::format("installed {} {}: {}", a.package, *a.installed_version, fit_words(*inst)));
    } else {
      a.notes.push_back(fmt::format("installed {} {} is not in the index for {}", a.package,
                                    *a.installed_version, machine));
    }
  }

  // Changing torch: installed packages that pin the old torch have to move with it.
  if (is_torch && chosen && !a.install_command.empty()) {
    for (const auto& [name, version] : env.installed) {
      std::string n = normalize_package_name(name);
      if (n == kTorch) continue;
      for (const auto& w : index.wheels) {
        if (w.package != n || !same_public_version(w.version, version)) continue;
        if (w.machine != machine && w.machine != "any") continue;
        std::string pin = pin_of(w.requires_dist, kTorch, machine);
        if (!pin.empty() && !pin_matches(pin, chosen->version))
          a.notes.push_back(fmt::format(
              "the installed {} {} pins torch=={}: with torch {} it needs a release built for it "
              "(smcompat advise {})",
              n, version, pin, chosen->version, n));
        break;
      }
    }
  }
  failure_notes(index, a.package, machine, a.notes);
  return a;
}

// (package, machine) -> the record of the newest version (the first by file name among its
// wheels).
std::map<std::pair<std::string, std::string>, const WheelRecord*> newest_by_key(
    const std::vector<WheelRecord>& side) {
  std::map<std::pair<std::string, std::string>, const WheelRecord*> out;
  for (const auto& w : side) {
    auto& slot = out[{w.package, w.machine}];
    if (!slot) {
      slot = &w;
      continue;
    }
    int c = compare_versions(w.version, slot->version);
    if (c > 0 || (c == 0 && w.filename < slot->filename)) slot = &w;
  }
  return out;
}

// Entries of `a` not in `b`, in `a`'s order.
std::vector<std::string> minus(const std::vector<std::string>& a,
                               const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const auto& x : a)
    if (std::find(b.begin(), b.end(), x) == b.end()) out.push_back(x);
  return out;
}

std::vector<std::string> device_files(const WheelRecord* w) {
  std::vector<std::string> out;
  if (!w) return out;
  for (const auto& f : w->files)
    if (!f.units.empty()) out.push_back(f.path);
  return out;
}

WheelDiff diff_pair(const WheelRecord* old_w, const WheelRecord* new_w) {
  static const WheelRecord kNone;
  const WheelRecord& o = old_w ? *old_w : kNone;
  const WheelRecord& n = new_w ? *new_w : kNone;
  WheelDiff d;
  d.package = new_w ? n.package : o.package;
  d.machine = new_w ? n.machine : o.machine;
  d.old_version = o.version;
  d.new_version = n.version;
  d.old_filename = o.filename;
  d.new_filename = n.filename;
  d.added_sass = minus(n.sass, o.sass);
  d.dropped_sass = minus(o.sass, n.sass);
  d.added_ptx = minus(n.ptx, o.ptx);
  d.dropped_ptx = minus(o.ptx, n.ptx);
  d.added_files = minus(device_files(new_w), device_files(old_w));
  d.dropped_files = minus(device_files(old_w), device_files(new_w));
  d.old_cuda = o.cuda;
  d.new_cuda = n.cuda;
  return d;
}

}  // namespace

std::string default_machine_for(const Target& target) {
  // By architecture: the integrated parts are Arm SoCs (Jetson TX2 sm_62, Xavier sm_72, Orin
  // sm_87, Thor sm_101 renamed sm_110 in CUDA 13.0) and GB10 (sm_121) exists only in DGX Spark.
  switch (target.cc.arch()) {
    case 53:
    case 62:
    case 72:
    case 87:
    case 101:
    case 110:
    case 121:
      return "aarch64";
    default:
      break;
  }
  // By name: nothing in GpuSpec says which CPU a GPU sits beside, and GH200/GB200 share their
  // architecture with x86 boards (H100, B200). Aliases are not used: the catalog lists "GB300" as
  // an alias of B300, which is also sold on x86 (HGX B300).
  std::string names = to_lower(target.name + " " + (target.gpu ? target.gpu->name : ""));
  for (const char* word : {"gh200", "gb200", "gb300", "grace", "jetson", "thor", "orin", "gb10"})
    if (names.find(word) != std::string::npos) return "aarch64";
  return "x86_64";
}

std::vector<PackageAdvice> advise(const WheelIndex& index, const std::vector<std::string>& packages,
                                  const Target& target, const AdviseEnvironment& environment,
                                  const std::string& machine) {
  Target t = target;
  if (environment.driver_cuda) t.driver_cuda = environment.driver_cuda;
  const std::string m = machine.empty() ? default_machine_for(t) : machine;
  std::vector<PackageAdvice> out;
  std::set<std::string> seen;
  for (const auto& p : packages) {
    if (!seen.insert(normalize_package_name(p)).second) continue;
    out.push_back(advise_one(index, p, t, environment, m));
  }
  return out;
}

std::vector<QueryRow> query_index(const WheelIndex& index, const Target& target,
                                  const std::string& machine,
                                  const std::vector<std::string>& packages) {
  // NAME or NAME==VERSION (the release, local label ignored: "torch==2.9.0" is 2.9.0+cu128 too).
  std::map<std::string, std::set<std::string>> wanted;  // name -> versions ("" for all)
  for (const auto& p : packages) {
    auto eq = p.find("==");
    std::string version = eq == std::string::npos ? "" : std::string(trim(p.substr(eq + 2)));
    wanted[normalize_package_name(p.substr(0, eq))].insert(version);
  }
  std::vector<QueryRow> rows;
  for (const auto& w : index.wheels) {
    if (!wanted.empty()) {
      auto it = wanted.find(w.package);
      if (it == wanted.end()) continue;
      bool any = it->second.count("") > 0;
      for (const auto& v : it->second)
        any = any || (!v.empty() && same_public_version(w.version, v));
      if (!any) continue;
    }
    if (!machine.empty() && w.machine != machine && w.machine != "any") continue;
    rows.push_back({w.package, w.version, w.machine, w.filename, w.cuda, judge_wheel(w, target)});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const QueryRow& a, const QueryRow& b) {
    if (a.package != b.package) return a.package < b.package;
    if (int c = compare_versions(a.version, b.version); c != 0) return c > 0;
    if (a.machine != b.machine) return a.machine < b.machine;
    return a.filename < b.filename;
  });
  return rows;
}

std::vector<WheelDiff> diff_records(const std::vector<WheelRecord>& old_side,
                                    const std::vector<WheelRecord>& new_side) {
  if (old_side.size() == 1 && new_side.size() == 1) return {diff_pair(&old_side[0], &new_side[0])};
  auto olds = newest_by_key(old_side);
  auto news = newest_by_key(new_side);
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto& [k, w] : olds) keys.insert(k);
  for (const auto& [k, w] : news) keys.insert(k);
  std::vector<WheelDiff> out;
  for (const auto& k : keys) {
    auto o = olds.find(k);
    auto n = news.find(k);
    out.push_back(
        diff_pair(o == olds.end() ? nullptr : o->second, n == news.end() ? nullptr : n->second));
  }
  return out;
}

}  // namespace smcompat
