// Fixes computed from the facts of a text (src/explain/fixes.hpp). Every figure comes from the
// catalog row of the GPU the text names (or of this machine's GPU), from the catalog's CUDA
// release table, or from the wheel index built into smcompat; nothing from a default GPU.
#include "fixes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "smcompat/index/advise.hpp"
#include "smcompat/scan/pep440.hpp"
#include "smcompat/util/strings.hpp"
#include "smcompat/verdict/fit.hpp"
#include "smcompat/verdict/targets.hpp"

namespace smcompat::explain {

namespace {

// The GPU a fix is for: the text's, else this machine's first observed GPU.
struct FixGpu {
  std::string name;
  ComputeCapability cc;
  bool from_text = true;
};

std::optional<FixGpu> fix_gpu(const TextFacts& facts, const doctor::DoctorReport* doctor) {
  if (const GpuSeen* g = facts.gpu())
    return FixGpu{g->catalog_name.empty() ? g->text : g->catalog_name, *g->cc, true};
  if (doctor)
    for (const auto& t : doctor->targets)
      if (t.observed) return FixGpu{t.name, t.cc, false};
  return std::nullopt;
}

std::string gpu_label(const FixGpu& g) {
  return fmt::format("{} (sm_{}{})", g.name, g.cc.arch(), g.from_text ? "" : ", this machine");
}

// The last CUDA that builds `sm` when current CUDA no longer does (the catalog's last_cuda, or the
// knowledge base's retired architectures); nullopt while it is still built.
std::optional<std::string> last_cuda_for(int sm, const Catalog& catalog, const KnowledgeBase& kb) {
  if (const ArchInfo* a = catalog.arch(sm); a && a->last_cuda) return a->last_cuda->to_string();
  for (const auto& r : kb.retired_archs())
    if (r.sm == sm) return r.last_cuda;
  return std::nullopt;
}

// PyTorch's wheel channel for a CUDA release: 12.8 -> "cu128".
std::string channel_of(Version cuda) { return fmt::format("cu{}{}", cuda.major, cuda.minor); }

// pip's option for the channel of a wheel index row's CUDA ("" when the row names none).
std::string index_url_option(std::string_view cuda) {
  auto v = Version::parse(cuda);
  return v ? " --index-url https://download.pytorch.org/whl/" + channel_of(*v) : std::string();
}

// The oldest torch release in the built-in wheel index whose x86_64 wheel runs natively on `cc`,
// and the oldest torch release the index holds at all (it starts long after old GPUs' first
// CUDA, so "the oldest with code for sm_86" is only a bound when older releases are there too).
struct FirstTorch {
  QueryRow row;
  std::string index_oldest;
};

// The x86_64 torch wheels of the built-in wheel index, judged for `cc` (empty without an index).
std::vector<QueryRow> torch_rows_for(ComputeCapability cc) {
  auto index = load_wheel_index("");
  if (!index) return {};
  auto target = resolve_target(fmt::format("sm_{}", cc.arch()));
  if (!target) return {};
  return query_index(**index, *target, "x86_64", {"torch"});
}

std::optional<FirstTorch> first_torch_for(ComputeCapability cc) {
  std::optional<QueryRow> oldest;
  std::string index_oldest;
  for (auto& row : torch_rows_for(cc)) {
    if (index_oldest.empty() || compare_versions(row.version, index_oldest) < 0)
      index_oldest = row.version;
    if (runs_natively(row.verdict.fit) &&
        (!oldest || compare_versions(row.version, oldest->version) < 0))
      oldest = row;
  }
  if (!oldest) return std::nullopt;
  return FirstTorch{*oldest, index_oldest};
}

// The newest torch release in the built-in wheel index whose x86_64 wheel still runs natively on
// `cc` (for a GPU that newer wheels dropped), or nullopt.
std::optional<QueryRow> last_torch_for(ComputeCapability cc) {
  std::optional<QueryRow> newest;
  for (auto& row : torch_rows_for(cc))
    if (runs_natively(row.verdict.fit) &&
        (!newest || compare_versions(row.version, newest->version) > 0))
      newest = row;
  return newest;
}

// A torch release and one of its wheel channels (torch_releases in failure_modes.json).
struct TorchWheel {
  std::string torch;
  Version cuda;
};

std::string torch_install(const TorchWheel& w) {
  std::string channel = channel_of(w.cuda);
  // Releases before 1.11 were published through torch_stable.html, not a per-channel index.
  if (compare_versions(w.torch, "1.11") < 0)
    return fmt::format(
        "pip install torch=={}+{} -f https://download.pytorch.org/whl/torch_stable.html", w.torch,
        channel);
  return fmt::format(
      "pip install torch=={}+{} --extra-index-url https://download.pytorch.org/whl/{}", w.torch,
      channel, channel);
}

// The newest release whose channel `fits`, with its newest such channel (releases and channels
// are listed oldest first).
template <class Fits>
std::optional<TorchWheel> newest_torch(const KnowledgeBase& kb, Fits fits) {
  std::optional<TorchWheel> best;
  for (const auto& r : kb.torch_releases())
    for (const auto& c : r.cuda)
      if (auto v = Version::parse(c); v && fits(*v)) best = TorchWheel{r.torch, *v};
  return best;
}

// The oldest release with a channel for CUDA `min` or newer, with its oldest such channel.
std::optional<TorchWheel> oldest_torch_from(const KnowledgeBase& kb, Version min) {
  for (const auto& r : kb.torch_releases())
    for (const auto& c : r.cuda)
      if (auto v = Version::parse(c); v && *v >= min) return TorchWheel{r.torch, *v};
  return std::nullopt;
}

// The torch a driver that runs CUDA `max` and older can use: builds for that CUDA or older, and,
// within CUDA 11 and 12, newer minor releases of the same major (minor-version compatibility).
std::vector<std::string> torch_for_driver(const KnowledgeBase& kb, Version max) {
  std::vector<std::string> out;
  auto exact = newest_torch(kb, [&](Version v) { return v <= max; });
  if (exact)
    out.push_back(fmt::format(
        "For torch: the newest release with a wheel for CUDA {} or older is torch {} (CUDA {}): "
        "{}.",
        max.to_string(), exact->torch, exact->cuda.to_string(), torch_install(*exact)));
  if (max.major >= 11)
    if (auto minor = newest_torch(kb, [&](Version v) { return v.major == max.major; });
        minor && (!exact || minor->torch != exact->torch || minor->cuda != exact->cuda))
      out.push_back(fmt::format(
          "CUDA {} minor-version compatibility also runs CUDA {}.x builds on this driver (up to "
          "torch {}, CUDA {}: {}) unless they JIT-compile PTX newer than the driver.",
          max.major, max.major, minor->torch, minor->cuda.to_string(), torch_install(*minor)));
  return out;
}

std::vector<std::string> driver_for_cuda(const TextFacts& f, const KnowledgeBase& kb,
                                         const Catalog& catalog,
                                         const doctor::DoctorReport* doctor) {
  std::vector<std::string> out;
  const VersionSeen* need = f.version("cuda_required");
  if (!need) need = f.version("cuda_runtime");
  if (!need) need = f.version("torch_cuda");
  std::optional<DriverVersion> driver;
  if (const VersionSeen* d = f.version("driver")) driver = DriverVersion::parse(d->value);
  if (!driver && doctor && doctor->driver.version) driver = *doctor->driver.version;
  if (need) {
    auto v = Version::parse(need->value);
    const CudaRelease* rel = v ? catalog.cuda_release(*v) : nullptr;
    if (rel && rel->min_driver_linux)
      out.push_back(fmt::format(
          "CUDA {} needs NVIDIA driver {} or newer on Linux{} (catalog: CUDA release notes).",
          need->value, rel->min_driver_linux->to_string(),
          rel->min_driver_windows
              ? fmt::format(" ({} on Windows)", rel->min_driver_windows->to_string())
              : ""));
  }
  if (const VersionSeen* req = f.version("driver_required"))
    out.push_back(
        fmt::format("The image needs NVIDIA driver {} or newer{}: upgrade the host's "
                    "driver, or use an image tag built for an older CUDA.",
                    req->value, driver ? "; the host has " + driver->to_string() : ""));
  std::optional<Version> driver_max;
  if (driver) {
    driver_max = catalog.max_cuda_for_driver(*driver);
    if (driver_max)
      out.push_back(
          fmt::format("Driver {} runs CUDA {} and older: an image or build for CUDA {} or "
                      "older runs without a driver upgrade.",
                      driver->to_string(), driver_max->to_string(), driver_max->to_string()));
  } else if (const VersionSeen* dc = f.version("cuda_driver")) {
    driver_max = Version::parse(dc->value);
    out.push_back(
        fmt::format("The driver in the text supports CUDA {}: an image or build for "
                    "CUDA {} or older runs without a driver upgrade.",
                    dc->value, dc->value));
  }
  if (driver_max && f.has_tool("pytorch"))
    for (auto& line : torch_for_driver(kb, *driver_max)) out.push_back(std::move(line));
  return out;
}

std::vector<std::string> torch_for_gpu(const TextFacts& f, const KnowledgeBase& kb,
                                       const Catalog& catalog, const doctor::DoctorReport* doctor) {
  std::vector<std::string> out;
  auto g = fix_gpu(f, doctor);
  if (!g) return out;
  const int sm = g->cc.arch();
  const ArchInfo* arch = catalog.arch(sm);
  const VersionSeen* torch = f.version("torch");
  const VersionSeen* torch_cuda = f.version("torch_cuda");
  if (auto last = last_cuda_for(sm, catalog, kb)) {
    // An architecture current CUDA no longer builds: newer torch cannot help.
    out.push_back(fmt::format(
        "{}: CUDA {} is the last that builds sm_{}; current torch wheels carry no code for it. "
        "Use a torch (or other) build made with CUDA {} or older whose architecture list has "
        "sm_{}, or build from source with TORCH_CUDA_ARCH_LIST={}.",
        gpu_label(*g), *last, sm, *last, sm, g->cc.to_string()));
    if (auto newest = last_torch_for(g->cc))
      out.push_back(fmt::format(
          "torch {} is the newest release in smcompat's wheel index with native code for "
          "sm_{}{}: pip install torch=={}{} (the index holds each release's default wheel; an "
          "older-CUDA channel of a later release may carry it too).",
          newest->version, sm, newest->cuda.empty() ? "" : " (CUDA " + newest->cuda + " wheel)",
          newest->version, index_url_option(newest->cuda)));
    return out;
  }
  if (arch && arch->first_cuda) {
    auto tc = torch_cuda ? Version::parse(torch_cuda->value) : std::nullopt;
    if (tc && *tc < *arch->first_cuda)
      out.push_back(
          fmt::format("{}: torch {} was built with CUDA {}, older than CUDA {} (the "
                      "first to build sm_{}), so it has no code for this GPU.",
                      gpu_label(*g), torch ? torch->value : "", torch_cuda->value,
                      arch->first_cuda->to_string(), sm));
    // The rule first, then the oldest release the shipped index can vouch for (the index starts
    // long after old GPUs' first CUDA). SASS of the same major and a lower minor runs too, so the
    // earliest CUDA that builds any of those is the bound (sm_80 code runs on an sm_86 GPU).
    int base = sm;
    Version first_cuda = *arch->first_cuda;
    for (int minor = 0; minor < sm % 10; ++minor)
      if (const ArchInfo* a = catalog.arch(sm - sm % 10 + minor);
          a && a->first_cuda && *a->first_cuda < first_cuda) {
        first_cuda = *a->first_cuda;
        base = sm - sm % 10 + minor;
        break;
      }
    out.push_back(fmt::format(
        "{}: a torch built with CUDA {} or newer (the download.pytorch.org channel cu{}{} or "
        "newer) has code it runs (sm_{}); builds with an older CUDA cannot.",
        gpu_label(*g), first_cuda.to_string(), first_cuda.major, first_cuda.minor, base));
    if (auto first = oldest_torch_from(kb, first_cuda))
      out.push_back(fmt::format(
          "The first torch release with such a wheel is torch {} (CUDA {}); any later release "
          "works too: {}.",
          first->torch, first->cuda.to_string(), torch_install(*first)));
    if (auto ft = first_torch_for(g->cc)) {
      const QueryRow* first = &ft->row;
      std::string install =
          fmt::format("pip install \"torch>={}\"{}", first->version, index_url_option(first->cuda));
      if (first->version == ft->index_oldest)
        out.push_back(
            fmt::format("Every torch release in smcompat's wheel index (torch {} and newer) has "
                        "native code for "
                        "sm_{}, and so does an older torch built with CUDA {} or newer: {}.",
                        ft->index_oldest, sm, first_cuda.to_string(), install));
      else
        out.push_back(fmt::format(
            "torch {} is the oldest release in smcompat's wheel index with native code for "
            "sm_{}{}: {}.",
            first->version, sm, first->cuda.empty() ? "" : " (CUDA " + first->cuda + " wheel)",
            install));
    }
  }
  return out;
}

std::vector<std::string> smem_for_gpu(const TextFacts& f, const Catalog& catalog,
                                      const doctor::DoctorReport* doctor) {
  auto g = fix_gpu(f, doctor);
  if (!g) return {};
  const ArchInfo* arch = catalog.arch(g->cc.arch());
  if (!arch || !arch->smem_per_block_optin) return {};
  return {fmt::format(
      "{}: a thread block may use at most {} bytes of shared memory (opt-in{}); size tiles and "
      "pipeline stages for that.",
      gpu_label(*g), *arch->smem_per_block_optin,
      arch->smem_per_sm ? fmt::format(", {} bytes per SM", *arch->smem_per_sm) : "")};
}

std::vector<std::string> arch_list_for_gpu(const TextFacts& f, const KnowledgeBase& kb,
                                           const Catalog& catalog,
                                           const doctor::DoctorReport* doctor) {
  auto g = fix_gpu(f, doctor);
  if (!g) return {};
  const int sm = g->cc.arch();
  std::vector<std::string> out;
  if (auto last = last_cuda_for(sm, catalog, kb)) {
    out.push_back(
        fmt::format("{}: no CUDA toolkit after {} builds sm_{}: build with CUDA {} or "
                    "older (TORCH_CUDA_ARCH_LIST={}, CMAKE_CUDA_ARCHITECTURES={}).",
                    gpu_label(*g), *last, sm, *last, g->cc.to_string(), sm));
    return out;
  }
  out.push_back(
      fmt::format("{}: TORCH_CUDA_ARCH_LIST={}, CMAKE_CUDA_ARCHITECTURES={}, nvcc "
                  "-gencode arch=compute_{},code=sm_{}.",
                  gpu_label(*g), g->cc.to_string(), sm, sm, sm));
  const ArchInfo* arch = catalog.arch(sm);
  const VersionSeen* tk = f.version("cuda_toolkit");
  if (arch && arch->first_cuda && tk) {
    auto v = Version::parse(tk->value);
    if (v && *v < *arch->first_cuda)
      out.push_back(
          fmt::format("The toolkit in the text (CUDA {}) predates sm_{}: it needs CUDA "
                      "{} or newer.",
                      tk->value, sm, arch->first_cuda->to_string()));
  }
  return out;
}

// The architecture the toolchain refused: which CUDA builds it (catalog first/last CUDA), where
// the lists that name it live, and the text's GPU's own architecture to put there instead.
std::vector<std::string> refused_arch(const TextFacts& f, const KnowledgeBase& kb,
                                      const Catalog& catalog) {
  const VersionSeen* refused = f.version("arch_refused");
  auto sm = refused ? parse_uint(refused->value) : std::nullopt;
  if (!sm) return {};
  const int arch = int(*sm);
  std::string instead;
  if (const GpuSeen* g = f.gpu(); g && g->cc && g->cc->arch() != arch)
    instead = fmt::format("; for the GPU in the text use compute_{0}/sm_{0} ({0})", g->cc->arch());
  const ArchInfo* a = catalog.arch(arch);
  const std::optional<Version> first = a ? a->first_cuda : std::nullopt;
  const auto last = last_cuda_for(arch, catalog, kb);
  const VersionSeen* tk = f.version("cuda_toolkit");
  const auto tk_version = tk ? Version::parse(tk->value) : std::nullopt;
  const std::string lists =
      "TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES, CUDA_NVCC_FLAGS (FindCUDA projects), or the "
      "-gencode/-arch flags in the project's CMakeLists.txt or Makefile";
  auto removed = [&] {
    return fmt::format(
        "sm_{} is not built by any CUDA after {}: drop it from the architecture list — {}{} — or "
        "build with CUDA {}.",
        arch, *last, lists, instead, *last);
  };
  auto too_new = [&](std::string_view toolkit) {
    return fmt::format(
        "compute_{} needs CUDA {} or newer{}: install that toolkit and put it first (its bin/ on "
        "PATH, CUDA_HOME for PyTorch extensions, or the ptxas in use), or drop compute_{} from the "
        "architecture list ({}){}.",
        arch, first->to_string(), toolkit, arch, lists, instead);
  };
  // The text's toolkit says which side of the architecture's CUDA range it is on; without it,
  // an architecture with both a first and a last CUDA is refused by toolkits on either side.
  const auto last_version = last ? Version::parse(*last) : std::nullopt;
  if (last && (!first || (tk_version && last_version && *last_version < *tk_version)))
    return {removed()};
  if (!first) return {};
  if (!last || (tk_version && *tk_version < *first))
    return {too_new(tk ? " (the text's is " + tk->value + ")" : "")};
  return {fmt::format(
      "compute_{0} is built by CUDA {1} through {2}: an nvcc older than {1} does not know it yet "
      "(install CUDA {1} or newer and put its bin/ first on PATH, or CUDA_HOME), one newer than "
      "{2} no longer builds it (drop it from the architecture list — {3}{4} — or build with CUDA "
      "{2}); `nvcc --version` says which.",
      arch, first->to_string(), *last, lists, instead)};
}

// nvcc's host-compiler check names the newest gcc it accepts ("later than 8") or the oldest it
// refuses ("4.9 and up"); the installation guides' table says which CUDA releases stop there and
// which CUDA takes the next gcc.
std::vector<std::string> host_compiler(const TextFacts& f, const KnowledgeBase& kb) {
  const auto& table = kb.host_compilers();
  std::string max;
  if (const VersionSeen* m = f.version("gcc_max")) max = m->value;
  if (const VersionSeen* refused = f.version("gcc_refused"); max.empty() && refused)
    for (const auto& row : table)  // the newest gcc in the table below the refused one
      if (compare_versions(row.gcc_max, refused->value) < 0 &&
          (max.empty() || compare_versions(row.gcc_max, max) > 0))
        max = row.gcc_max;
  if (max.empty()) return {};
  std::vector<std::string> out{fmt::format(
      "This nvcc accepts gcc {0} at most: install gcc-{0} and g++-{0} (or older) and make nvcc "
      "use them (sudo update-alternatives, -ccbin /usr/bin/g++-{0}, or CUDAHOSTCXX for CMake), "
      "or install a newer CUDA toolkit whose nvcc supports your gcc.",
      max)};
  std::string first, last;
  const HostCompilerLimit* next = nullptr;
  for (const auto& row : table) {
    int c = compare_versions(row.gcc_max, max);
    if (c == 0) {
      if (first.empty()) first = row.cuda;
      last = row.cuda;
    } else if (c > 0 && !next) {
      next = &row;
    }
  }
  if (!first.empty() && next)
    out.push_back(fmt::format(
        "gcc {} is the newest that CUDA {} accept{}; gcc {} needs CUDA {} or newer (CUDA "
        "installation guides, host compiler tables).",
        max, first == last ? first : first + " to " + last, first == last ? "s" : "", next->gcc_max,
        next->cuda));
  return out;
}

// The compute capability a library or feature says it requires, against the text's GPU.
std::vector<std::string> required_capability(const TextFacts& f) {
  const VersionSeen* need = f.version("cc_required");
  if (!need) return {};
  auto cc = ComputeCapability::parse(need->value);
  if (!cc) return {};
  const GpuSeen* gpu = f.gpu();
  if (gpu && gpu->cc && !(*gpu->cc < *cc)) return {};  // the GPU meets it: nothing to compute
  std::string below = gpu && gpu->cc ? fmt::format("; {} is compute capability {}, below it",
                                                   gpu->text, gpu->cc->to_string())
                                     : "";
  return {fmt::format(
      "This needs a GPU of compute capability {} or newer{}: a hardware limit that no reinstall "
      "changes; use the program's path for older GPUs (a setting or an older release that still "
      "supports them) or a GPU of compute capability {} or newer.",
      cc->to_string(), below, cc->to_string())};
}

// PTX of a newer ISA than the ptxas (or driver) that reads it: the CUDA each ISA came with.
std::vector<std::string> ptx_isa_versions(const TextFacts& f, const Catalog& catalog) {
  const VersionSeen* need = f.version("ptx_isa_required");
  auto isa = need ? Version::parse(need->value) : std::nullopt;
  auto cuda = isa ? catalog.min_cuda_for_ptx(*isa) : std::nullopt;
  if (!cuda) return {};
  std::string known;
  if (const VersionSeen* k = f.version("ptx_isa_known"))
    if (auto kv = Version::parse(k->value))
      if (auto kc = catalog.min_cuda_for_ptx(*kv))
        known = fmt::format("; the one that read it knows PTX ISA {} (CUDA {})", k->value,
                            kc->to_string());
  return {fmt::format(
      "PTX ISA {} came with CUDA {}{}: use the ptxas of CUDA {} or newer (upgrade the CUDA "
      "toolkit, or point the tool at a newer ptxas), or, for the driver's JIT, a driver for CUDA "
      "{} or newer; otherwise generate the PTX with an older toolkit.",
      need->value, cuda->to_string(), known, cuda->to_string(), cuda->to_string())};
}

// The std::string ABI a missing C++ symbol was mangled for: the new (C++11) ABI writes
// std::__cxx11::basic_string ("NSt7__cxx1112basic_string"), the old one "Ss". A symbol of one ABI
// missing from torch means the extension and torch were built with different
// _GLIBCXX_USE_CXX11_ABI settings, when their versions match.
std::vector<std::string> string_abi_of_symbol(const TextFacts& f) {
  if (f.symbols.empty()) return {};
  const std::string& s = f.symbols.front();
  const std::string check =
      "compare with torch's: python -c 'import torch; print(torch._C._GLIBCXX_USE_CXX11_ABI)'";
  if (s.find("__cxx11") != std::string::npos)
    return {fmt::format(
        "The missing symbol takes the C++11 ABI's std::string (std::__cxx11): the extension was "
        "built with _GLIBCXX_USE_CXX11_ABI=1; if torch is the version it was built for, this "
        "torch uses the old ABI (0): install the extension's cxx11abiFALSE wheel or rebuild it "
        "against this torch ({}).",
        check)};
  // "Ss" is the old ABI's std::string: after a const qualifier (RKSs, KSs) or right after the
  // nested name that ends the function's name (ESs).
  static const char* kOldString[] = {"KSs", "ESs"};
  for (const char* m : kOldString)
    if (s.find(m) != std::string::npos)
      return {fmt::format(
          "The missing symbol takes the old ABI's std::string (Ss): the extension was built "
          "with _GLIBCXX_USE_CXX11_ABI=0; if torch is the version it was built for, this torch "
          "uses the C++11 ABI (1): install the extension's cxx11abiTRUE wheel or rebuild it with "
          "torch's _GLIBCXX_USE_CXX11_ABI ({}).",
          check)};
  return {};
}

// A toolkit that differs from the CUDA torch was built with (torch.utils.cpp_extension).
std::vector<std::string> toolkit_for_torch(const TextFacts& f, const KnowledgeBase& kb) {
  const VersionSeen* tk = f.version("cuda_toolkit");
  const VersionSeen* tc = f.version("torch_cuda");
  if (!tk || !tc || tk->value == tc->value) return {};
  auto v = Version::parse(tk->value);
  // torch's extension build refuses another CUDA major and only warns about another minor: the
  // newest torch with a channel of the toolkit's major not newer than the toolkit fits it.
  std::optional<TorchWheel> wheel;
  if (v) wheel = newest_torch(kb, [&](Version c) { return c.major == v->major && c <= *v; });
  std::string build =
      wheel ? fmt::format(
                  "the newest torch channel of CUDA {} not newer than the toolkit is {} "
                  "(up to torch {}: {}); a toolkit of the same CUDA major is enough for "
                  "torch's extension build",
                  v->major, channel_of(wheel->cuda), wheel->torch, torch_install(*wheel))
            : fmt::format("CUDA {}", tk->value);
  return {fmt::format(
      "torch was built with CUDA {} and the toolkit found is CUDA {}: install CUDA {} and point "
      "CUDA_HOME at it, or install a torch built for the toolkit's CUDA ({}).",
      tc->value, tk->value, tc->value, build)};
}

// A package built on torch (torchvision, torchaudio, PyG's torch_sparse/torch_scatter) for
// another CUDA than torch's: its build for torch's CUDA, from the index that serves it.
std::vector<std::string> package_for_torch(const TextFacts& f) {
  const VersionSeen* tc = f.version("torch_cuda");
  const VersionSeen* pc = f.version("package_cuda");
  if (!tc || !pc || tc->value == pc->value) return {};
  auto v = Version::parse(tc->value);
  if (!v) return {};
  const std::string channel = channel_of(*v);
  const VersionSeen* torch = f.version("torch");
  const std::string torch_version =
      torch ? std::string(split(torch->value, '+').front()) : "<torch version>";
  return {fmt::format(
      "torch here is built with CUDA {0} and the other package with CUDA {1}: install that "
      "package's build for CUDA {0} ({2}) — torchvision/torchaudio: the release paired with this "
      "torch from the same index (pip install torchvision --index-url "
      "https://download.pytorch.org/whl/{2}); PyG's torch_sparse, torch_scatter, torch_cluster: "
      "pip install <package> -f https://data.pyg.org/whl/torch-{3}+{2}.html — or reinstall torch "
      "for CUDA {1} so both match.",
      tc->value, pc->value, channel, torch_version)};
}

// The nvcc a failed extension build ran, from the failing line: a distribution's /usr/bin/nvcc, or
// a versioned toolkit against torch's CUDA.
std::vector<std::string> toolkit_path(const KnowledgeBase::Match& match, const TextFacts& f,
                                      const KnowledgeBase& kb) {
  std::vector<std::string> out;
  if (match.line_text.find("/usr/bin/nvcc") != std::string::npos)
    out.push_back(
        "This nvcc is /usr/bin/nvcc, a distribution's CUDA toolkit (Debian/Ubuntu "
        "nvidia-cuda-toolkit), often another CUDA than torch's: put the NVIDIA toolkit first "
        "(export PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda) or remove the "
        "distribution's package.");
  for (auto& line : toolkit_for_torch(f, kb)) out.push_back(line);
  return out;
}

// "8.7.0" → "8.7"; "8" stays.
std::string major_minor(const std::string& v) {
  auto parts = split(v, '.');
  if (parts.size() < 2) return v;
  return fmt::format("{}.{}", parts[0], parts[1]);
}

// The cuDNN versions the text states: the one the framework was built against, the one it
// loaded, and (JAX) the oldest it accepts. Frameworks since TensorFlow 1.x's successors, XLA and
// PyTorch accept the built major with an equal or newer minor (XLA's message says so); a newer
// major never works.
std::vector<std::string> cudnn_versions(const TextFacts& f, const KnowledgeBase& kb,
                                        const std::string& tool) {
  const VersionSeen* built = f.version("cudnn_built");
  const VersionSeen* found = f.version("cudnn_found");
  const VersionSeen* min = f.version("cudnn_min");
  const ToolSignature* t = kb.tool(tool);
  std::string who = t ? t->label : "The framework";
  std::vector<std::string> out;
  if (min && found) {
    out.push_back(fmt::format(
        "{} needs cuDNN {} or newer and found cuDNN {}: install cuDNN {} or a newer {}.x (conda "
        "install \"cudnn>={}\", or the nvidia-cudnn wheel of that version) and make it the one "
        "the loader finds, or install a {} release built against cuDNN {}.",
        who, min->value, found->value, major_minor(min->value), split(min->value, '.')[0],
        major_minor(min->value), t ? t->label : "framework", major_minor(found->value)));
    return out;
  }
  if (!built || !found) return out;
  auto b = split(built->value, '.'), l = split(found->value, '.');
  const uint64_t bm = b.empty() ? 0 : parse_uint(b[0]).value_or(0);
  const uint64_t lm = l.empty() ? 0 : parse_uint(l[0]).value_or(0);
  auto bv = Version::parse(major_minor(built->value));
  auto lv = Version::parse(major_minor(found->value));
  std::string direction = "a different";
  if (bm && lm && lm != bm)
    direction = lm < bm ? "an older major" : "a newer major";
  else if (bv && lv && *lv < *bv)
    direction = "an older";
  else if (bv && lv && *bv < *lv)
    direction = "a newer";
  std::string remedy = fmt::format(
      "install cuDNN {0} (conda install cudnn={1}, the cuDNN {1} archive, or the nvidia-cudnn "
      "wheel of that version) and remove other cuDNN copies from the library path",
      major_minor(built->value), built->value);
  if (direction == "a newer major")
    remedy += fmt::format(", or install a {} build made for cuDNN {}", t ? t->label : "framework",
                          std::string(l[0]));
  out.push_back(fmt::format("{} was built against cuDNN {} but loaded {} one, cuDNN {}: {}.", who,
                            built->value, direction, found->value, remedy));
  return out;
}

// The CUDA libraries JAX found older than it accepts: the minimum (or the version it was built
// against), the one found, and the wheel that ships that library's soname (library_sonames).
std::vector<std::string> library_versions(const TextFacts& f, const KnowledgeBase& kb) {
  std::vector<std::string> out;
  constexpr std::pair<const char*, const char*> kLibraries[] = {{"cublas", "cuBLAS"},
                                                                {"cusparse", "cuSPARSE"},
                                                                {"cufft", "cuFFT"},
                                                                {"cusolver", "cuSOLVER"},
                                                                {"nccl", "NCCL"}};
  for (auto [lib, label] : kLibraries) {
    const std::string key = lib;
    const VersionSeen* need = f.version(key + "_min");
    if (!need) need = f.version(key + "_built");
    const VersionSeen* found = f.version(key + "_found");
    if (!need || !found) continue;
    const std::string major = std::string(split(need->value, '.')[0]);
    std::string wheel;
    for (const auto& r : kb.library_sonames())
      if (r.library == key && r.soname == major) wheel = r.wheel;
    if (key == "nccl") wheel = "nvidia-nccl-cu12";
    out.push_back(fmt::format(
        "JAX needs {} {} or newer and loaded {} {}: {}and make it the copy the loader finds "
        "(older ones off LD_LIBRARY_PATH).",
        label, need->value, label, found->value,
        wheel.empty()
            ? fmt::format("install {} {} or newer ", label, major_minor(need->value))
            : fmt::format("pip install -U \"{}>={}\" ", wheel, major_minor(need->value))));
  }
  return out;
}

// A torch release the text names without its CUDA ("torch 2.0.1"), older than the first release
// in the wheel index whose wheels carry the GPU's architecture, when the index holds older
// releases without it (so the bound is the index's, not its starting point). A new architecture
// is never dropped again, so an older release lacks it too.
std::vector<std::string> torch_release_older_than_gpu(const TextFacts& f, const Catalog& catalog,
                                                      const FixGpu& g) {
  const VersionSeen* torch = f.version("torch");
  const ArchInfo* arch = catalog.arch(g.cc.arch());
  if (!torch || !arch || arch->last_cuda) return {};
  auto ft = first_torch_for(g.cc);
  if (!ft || ft->row.version == ft->index_oldest) return {};
  // Only a release older than the whole index: a release inside it may have had another
  // channel with the architecture (torch 2.7.0's cu128 wheels, not its default cu126 ones).
  std::string version = torch->value.substr(0, torch->value.find('+'));
  if (compare_versions(version, ft->index_oldest) >= 0 || !arch->first_cuda) return {};
  const Version& need = *arch->first_cuda;
  return {fmt::format(
      "{}: torch {} predates every release in smcompat's wheel index, whose default wheels carry "
      "sm_{} only from torch {}: it has no code for this GPU. Install a torch built with CUDA {} "
      "or newer (the cu{}{} channel or newer): pip install \"torch>={}\" --index-url "
      "https://download.pytorch.org/whl/cu{}{}.",
      gpu_label(g), torch->value, g.cc.arch(), ft->row.version, need.to_string(), need.major,
      need.minor, ft->index_oldest, need.major, need.minor)};
}

// Whatever the mode: a torch the text names, built with a CUDA older than the first that builds
// the text's GPU, cannot run on it (a DDP/NCCL error on an RTX 5090 with torch 2.0+cu118).
std::vector<std::string> torch_older_than_gpu(const TextFacts& f, const Catalog& catalog,
                                              const doctor::DoctorReport* doctor) {
  const VersionSeen* tc = f.version("torch_cuda");
  auto g = fix_gpu(f, doctor);
  if (!g) return {};
  if (!tc) return torch_release_older_than_gpu(f, catalog, *g);
  const ArchInfo* arch = catalog.arch(g->cc.arch());
  auto v = Version::parse(tc->value);
  if (!arch || !arch->first_cuda || !v || !(*v < *arch->first_cuda)) return {};
  const VersionSeen* torch = f.version("torch");
  return {
      fmt::format("{}: torch {}was built with CUDA {}, older than CUDA {} (the first to build "
                  "sm_{}): it has no code for this GPU; install a torch built with CUDA {} or "
                  "newer (the cu{}{} channel or newer).",
                  gpu_label(*g), torch ? torch->value + " " : "", tc->value,
                  arch->first_cuda->to_string(), g->cc.arch(), arch->first_cuda->to_string(),
                  arch->first_cuda->major, arch->first_cuda->minor)};
}

// "libcudnn_ops.so.9" → {"cudnn", "9"}; "libcudart.so.7.5" → {"cudart", "7.5"};
// "cublas64_11.dll" → {"cublas", "11"}; "cudart64_101.dll" → {"cudart", "10.1"} (Windows names
// CUDA 10.x and older, and 11.0's runtime, by version without the dot).
std::pair<std::string, std::string> library_and_soname(const std::string& file) {
  std::string name = file, soname;
  if (name.starts_with("lib")) name = name.substr(3);
  auto so = name.find(".so");
  auto dll = name.find("64_");
  bool windows = false;
  if (so != std::string::npos) {
    std::string rest = name.substr(so + 3);  // ".9.1.0"
    if (rest.size() > 1) {
      const std::string numbers = rest.substr(1);  // split() views into it: keep it alive
      auto parts = split(numbers, '.');
      soname = std::string(parts[0]);
      // Before CUDA 10.1 (and the runtime until 11.x) the soname was the CUDA version.
      if (parts.size() >= 2 && !parts[1].empty() && parts[0] != "1")
        soname += "." + std::string(parts[1]);
    }
    name = name.substr(0, so);
  } else if (dll != std::string::npos) {
    soname = name.substr(dll + 3, name.find('.', dll) - dll - 3);
    name = name.substr(0, dll);
    windows = true;
  }
  std::string family = name;
  for (const char* f : {"cudnn", "cublas", "cudart", "cufft", "curand", "cusparse", "cusolver",
                        "nccl", "nvrtc", "nvJitLink", "nvinfer"})
    if (name.starts_with(f)) family = f;
  if (windows && family != "cudnn" && soname.size() == 3)  // "101" → "10.1", "110" → "11.0"
    soname = soname.substr(0, 2) + "." + soname.substr(2);
  return {family, soname};
}

// The CUDA a CUDA library's soname belongs to: the release-notes table, else the soname itself
// (a version "7.5", or the CUDA major "12" of libraries whose soname follows it).
struct LibraryCuda {
  std::string cuda;   ///< "CUDA 10.1 to 11.0", "CUDA 7.5", "CUDA 12"
  std::string wheel;  ///< the pip wheel that ships it, or ""
  std::string pin;    ///< a CUDA release that ships it ("11.0")
};

LibraryCuda cuda_of_library(const KnowledgeBase& kb, const std::string& lib,
                            const std::string& soname) {
  for (const auto& r : kb.library_sonames())
    if (r.library == lib && (r.soname == soname || split(r.soname, '.')[0] == soname))
      return {fmt::format("CUDA {} to {}", r.first_cuda, r.last_cuda), r.wheel, r.last_cuda};
  auto major = parse_uint(split(soname, '.')[0]);
  std::string wheel;
  if (major && (*major == 11 || *major == 12) && soname.find('.') == std::string::npos) {
    std::string base = lib == "cudart"  ? "nvidia-cuda-runtime"
                       : lib == "nvrtc" ? "nvidia-cuda-nvrtc"
                                        : "nvidia-" + to_lower(lib);
    wheel = fmt::format("{}-cu{}", base, *major);
  }
  return {soname.empty() ? "?" : "CUDA " + soname, wheel, soname};
}

// What installs each missing library the text names, per family and soname.
std::vector<std::string> missing_libraries(const TextFacts& f, const KnowledgeBase& kb) {
  std::vector<std::string> out;
  std::set<std::string> said;
  for (const auto& file : f.libraries) {
    if (file == "zlibwapi.dll") {
      if (said.insert("zlib").second)
        out.push_back(
            "zlibwapi.dll is the zlib that cuDNN 8 needs on Windows: put it (from "
            "NVIDIA's cuDNN 8 install guide or a zlib build) on PATH beside cuDNN.");
      continue;
    }
    auto [lib, soname] = library_and_soname(file);
    const std::string major =
        split(soname, '.').empty() ? soname : std::string(split(soname, '.')[0]);
    if (!said.insert(lib + soname).second) continue;
    if (lib == "cudnn") {
      out.push_back(fmt::format(
          "{} is cuDNN {}: install cuDNN {} for your CUDA (pip install 'nvidia-cudnn-cu12=={}.*' "
          "and add its lib directory, site-packages/nvidia/cudnn/lib, to LD_LIBRARY_PATH; or "
          "NVIDIA's package libcudnn{}-cuda-12 / the cuDNN {} archive) and run ldconfig.",
          file, major.empty() ? "?" : major, major, major, major, major));
    } else if (lib == "cudart" || lib == "cublas" || lib == "cufft" || lib == "curand" ||
               lib == "cusparse" || lib == "cusolver" || lib == "nvrtc" || lib == "nvJitLink") {
      LibraryCuda c = cuda_of_library(kb, lib, soname);
      out.push_back(fmt::format(
          "{} ships with {}: the program was built for that CUDA; install a CUDA that has it "
          "({}the CUDA {} toolkit) and put its library directory on LD_LIBRARY_PATH (PATH on "
          "Windows), or install a build of the program for the CUDA you have (rebuild it from "
          "source if you built it).",
          file, c.cuda, c.wheel.empty() ? "" : "pip install " + c.wheel + ", or ", c.pin));
    } else if (lib == "nvinfer") {
      out.push_back(fmt::format(
          "{} is TensorRT {}'s: install TensorRT {} (pip install 'tensorrt=={}.*', or NVIDIA's "
          "tar or deb packages) and put its lib directory on LD_LIBRARY_PATH (PATH on Windows), "
          "or use the TensorRT major the program was built for.",
          file, major, major, major));
    } else if (lib == "nccl") {
      out.push_back(
          fmt::format("{} is NCCL {}: pip install nvidia-nccl-cu12 (or the libnccl2 "
                      "package) matching the framework's CUDA.",
                      file, major));
    }
  }
  return out;
}

// "1.17 to 1.18.0 (CUDA 12 feed, CUDA 12 with cuDNN 8)".
std::string build_row(const OnnxruntimeBuild& b) {
  std::string range = b.last.empty()      ? b.first + " and newer"
                      : b.first == b.last ? b.first
                                          : b.first + " to " + b.last;
  return fmt::format("{} ({}, CUDA {} with cuDNN {})", range, b.channel, b.cuda, b.cudnn);
}

// The onnxruntime-gpu releases built for the CUDA or cuDNN major of a library onnxruntime could
// not load (or that its provider says it requires), and the releases built for the other major
// (the requirements table).
std::vector<std::string> onnxruntime_for_libraries(const TextFacts& f, const KnowledgeBase& kb) {
  auto releases = [&](bool cudnn, const std::string& major, bool same) {
    std::vector<std::string> out;
    for (const auto& b : kb.onnxruntime_builds()) {
      const std::string& m = cudnn ? b.cudnn : b.cuda;
      if ((m == major) != same) continue;
      out.push_back(build_row(b));
    }
    return fmt::format("{}", fmt::join(out, "; "));
  };
  std::vector<std::string> out;
  std::set<std::string> said;
  // One line per (library, major): `named` is how the text asked for it.
  auto say = [&](bool cudnn, const std::string& major, const std::string& named) {
    if (major.empty() || !said.insert((cudnn ? "cudnn" : "cuda") + major).second) return;
    const char* kind = cudnn ? "cuDNN" : "CUDA";
    const std::string same = releases(cudnn, major, true), other = releases(cudnn, major, false);
    if (same.empty()) return;
    out.push_back(fmt::format(
        "{} is {} {}'s, and onnxruntime-gpu {} {} built for it: install {} {}'s libraries, or the "
        "onnxruntime-gpu built for the {} you have: {}.",
        named, kind, major, same, same.find(';') == std::string::npos ? "is" : "are", kind, major,
        kind, other.empty() ? "none listed" : other));
  };
  for (const auto& file : f.libraries) {
    auto [lib, soname] = library_and_soname(file);
    if (lib == "nvinfer" || lib == "nccl" || soname.empty()) continue;
    const bool cudnn = lib == "cudnn";
    say(cudnn, std::string(split(cudnn ? soname : cuda_of_library(kb, lib, soname).pin, '.')[0]),
        file);
  }
  // "Require cuDNN 8.* and CUDA 12.*": the provider's own words name both majors of its build.
  const VersionSeen* cudnn = f.version("cudnn_required");
  const VersionSeen* cuda = f.version("cuda_major_required");
  if (cudnn && cuda) {
    std::vector<std::string> built, others;
    for (const auto& b : kb.onnxruntime_builds()) {
      (b.cuda == cuda->value && b.cudnn == cudnn->value ? built : others).push_back(build_row(b));
    }
    if (!built.empty())
      out.push_back(fmt::format(
          "This onnxruntime-gpu was built for CUDA {} with cuDNN {} (as were the requirements "
          "table's {}; Jetson and source builds follow their own): install both, or an "
          "onnxruntime-gpu built for the CUDA and cuDNN you have: {}.",
          cuda->value, cudnn->value, fmt::join(built, "; "), fmt::join(others, "; ")));
  } else if (cudnn) {
    say(true, cudnn->value, "The cuDNN it requires (" + cudnn->value + ".*)");
  } else if (cuda) {
    say(false, cuda->value, "The CUDA it requires (" + cuda->value + ".*)");
  }
  return out;
}

// The compiled extensions the text shows failing against the installed torch.
std::vector<std::string> rebuild_extensions(const TextFacts& f) {
  std::vector<std::string> out;
  const VersionSeen* torch = f.version("torch");
  for (const auto& pkg : f.extensions) {
    if (pkg == "torch" || pkg == "nvidia") continue;
    std::string dist = pkg;
    std::replace(dist.begin(), dist.end(), '_', '-');
    if (pkg == "mmcv") dist = "mmcv-full";  // mmcv 1.x ships its CUDA ops as mmcv-full
    if (pkg == "apex") {  // torch 2 has apex's fused kernels (LayerNorm, fused optimisers) itself
      out.push_back(
          "The extension is apex, built for another torch: rebuild it against the installed "
          "torch (its README's pip install with --no-build-isolation), or uninstall apex where the "
          "code only uses what torch 2 has built in (fused LayerNorm, fused Adam).");
      continue;
    }
    out.push_back(fmt::format(
        "The extension is {} ({}): reinstall the {} build made for the installed torch{} "
        "(its wheel for that torch and CUDA, e.g. pip install --force-reinstall --no-cache-dir "
        "{}), "
        "or build it from source against this torch.",
        pkg, dist, dist, torch ? " " + torch->value : "", dist));
    if (out.size() == 2) break;
  }
  return out;
}

}  // namespace

bool runs_on_torch(const std::string& tool) {
  for (const char* t : {"", "pytorch", "vllm", "sglang", "comfyui", "xformers", "flash-attn",
                        "deepspeed", "bitsandbytes", "triton", "nccl"})
    if (tool == t) return true;
  return false;
}

std::vector<std::string> computed_fix(const FailureMode& mode, const KnowledgeBase::Match& match,
                                      const TextFacts& facts, const KnowledgeBase& kb,
                                      const Catalog& catalog, const doctor::DoctorReport* doctor) {
  std::vector<std::string> out;
  if (mode.compute == "driver-for-cuda") out = driver_for_cuda(facts, kb, catalog, doctor);
  if (mode.compute == "torch-for-gpu") {
    if (runs_on_torch(match.tool)) out = torch_for_gpu(facts, kb, catalog, doctor);
    // Source-built code (extensions, other libraries) needs the GPU in its architecture list.
    for (auto& line : arch_list_for_gpu(facts, kb, catalog, doctor))
      if (std::find(out.begin(), out.end(), line) == out.end()) out.push_back(line);
  }
  if (mode.compute == "smem-for-gpu") out = smem_for_gpu(facts, catalog, doctor);
  if (mode.compute == "arch-list-for-gpu") out = arch_list_for_gpu(facts, kb, catalog, doctor);
  if (mode.compute == "cudnn-versions") out = cudnn_versions(facts, kb, match.tool);
  if (mode.compute == "missing-library") {
    out = missing_libraries(facts, kb);
    if (match.tool == "onnxruntime")
      for (auto& line : onnxruntime_for_libraries(facts, kb)) out.push_back(line);
    // A compiled extension that fails to load its CUDA library was built for another CUDA.
    for (auto& line : rebuild_extensions(facts)) out.push_back(line);
  }
  if (mode.compute == "toolkit-for-torch") out = toolkit_for_torch(facts, kb);
  if (mode.compute == "package-for-torch") out = package_for_torch(facts);
  if (mode.compute == "toolkit-path") out = toolkit_path(match, facts, kb);
  if (mode.compute == "library-versions") out = library_versions(facts, kb);
  if (mode.compute == "host-compiler") out = host_compiler(facts, kb);
  for (auto& line : ptx_isa_versions(facts, catalog)) out.push_back(line);
  for (auto& line : required_capability(facts)) out.push_back(line);
  // Whatever the mode: an architecture a toolchain refused is explained by the catalog.
  for (auto& line : refused_arch(facts, kb, catalog))
    if (std::find(out.begin(), out.end(), line) == out.end()) out.push_back(line);
  if (mode.compute == "rebuild-extension") {
    out = rebuild_extensions(facts);
    for (auto& line : string_abi_of_symbol(facts)) out.push_back(line);
  }
  if (mode.compute != "torch-for-gpu" && runs_on_torch(match.tool))
    for (auto& line : torch_older_than_gpu(facts, catalog, doctor)) out.insert(out.begin(), line);
  return out;
}

std::vector<std::string> fact_conflicts(const TextFacts& facts) {
  std::vector<std::string> out;
  std::set<std::string> kinds;
  for (const auto& v : facts.versions) kinds.insert(v.what);
  for (const auto& kind : kinds) {
    if (kind == "python" || kind == "cudnn_found" || kind == "cudnn_built") continue;
    auto values = facts.values(kind);
    if (values.size() > 1)
      out.push_back(
          fmt::format("the text states more than one {}: {}", kind, fmt::join(values, ", ")));
  }
  std::set<std::string> ccs;
  for (const auto& g : facts.gpus)
    if (g.cc) ccs.insert(g.cc->to_string());
  if (ccs.size() > 1)
    out.push_back(
        fmt::format("the text names GPUs of {} architectures ({}): the fix is for the "
                    "first",
                    ccs.size(), fmt::join(ccs, ", ")));
  return out;
}

namespace {

// The words of a pattern that must appear literally: runs of 4+ letters outside escapes/classes.
std::set<std::string> pattern_words(const std::string& p) {
  std::set<std::string> out;
  std::string word;
  bool in_class = false, escaped = false;
  auto flush = [&] {
    if (word.size() >= 4) out.insert(to_lower(word));
    word.clear();
  };
  for (char ch : p) {
    if (escaped) {
      escaped = false;
      flush();
      continue;
    }
    if (ch == '\\') {
      escaped = true;
      continue;
    }
    if (ch == '[') in_class = true;
    if (ch == ']') in_class = false;
    if (!in_class && std::isalpha(static_cast<unsigned char>(ch)))
      word += ch;
    else
      flush();
  }
  flush();
  return out;
}

}  // namespace

std::vector<NearMiss> nearest_modes(const KnowledgeBase& kb, const TextFacts& facts,
                                    const std::vector<std::pair<size_t, std::string>>& head,
                                    const std::deque<std::pair<size_t, std::string>>& tail) {
  std::string text;
  for (const auto& [n, line] : head) text += to_lower(line) + "\n";
  for (const auto& [n, line] : tail) text += to_lower(line) + "\n";
  struct Scored {
    const FailureMode* mode;
    double score;
    std::vector<std::string> shared, missing;
  };
  std::vector<Scored> scored;
  for (const auto& m : kb.modes()) {
    std::set<std::string> words;
    for (const auto& p : m.patterns)
      for (auto& w : pattern_words(p)) words.insert(w);
    if (words.empty()) continue;
    Scored s{&m, 0, {}, {}};
    for (const auto& w : words)
      (text.find(w) != std::string::npos ? s.shared : s.missing).push_back(w);
    s.score = double(s.shared.size()) / double(words.size());
    // A mode about the tool that wrote the text is nearer than one about another tool.
    for (const auto& t : m.tools)
      if (facts.has_tool(t)) s.score += 0.25;
    if (!m.tools.empty() && !facts.tools.empty() &&
        std::none_of(m.tools.begin(), m.tools.end(), [&](auto& t) { return facts.has_tool(t); }))
      s.score -= 0.5;
    if (!s.shared.empty()) scored.push_back(std::move(s));
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const Scored& a, const Scored& b) { return a.score > b.score; });
  std::vector<NearMiss> out;
  for (size_t i = 0; i < scored.size() && out.size() < 2; ++i) {
    auto& s = scored[i];
    if (s.shared.size() > 6) s.shared.resize(6);
    if (s.missing.size() > 6) s.missing.resize(6);
    out.push_back({s.mode, fmt::format("the text shares '{}' with its patterns but not '{}'",
                                       fmt::join(s.shared, "', '"), fmt::join(s.missing, "', '"))});
  }
  return out;
}

}  // namespace smcompat::explain
