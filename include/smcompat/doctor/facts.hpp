// Facts the doctor collects about this machine, read statically wherever possible (the driver
// itself is observed by the probe, probe/probe.hpp): CUDA toolkits (cuda.h, bin/nvcc), the
// libraries a process would load (LD_LIBRARY_PATH, ld.so.cache), Python environments (dist-info
// METADATA and RECORD, torch/version.py; no user code is imported), environment variables and host
// resources. References: compatibility-rules.md sections 8-11.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smcompat/binary/inventory.hpp"
#include "smcompat/catalog/sm_target.hpp"
#include "smcompat/scan/scan.hpp"
#include "smcompat/util/result.hpp"

namespace smcompat::doctor {

/// The process environment as name -> value (passed in; tests inject their own).
using Environment = std::map<std::string, std::string>;
/// A copy of this process's environment.
Environment current_environment();

/// One GPU the driver reports (observed) or the user asks about (what-if).
struct GpuFact {
  std::string name;  ///< "NVIDIA GeForce RTX 5090"
  ComputeCapability cc;
  std::string pci_bus_id;
};

/// What is known about the NVIDIA driver.
struct DriverFacts {
  enum class State {
    kNotChecked,  ///< nothing looked at the driver
    kNoDriver,    ///< no kernel module and no libcuda.so.1
    kStub,        ///< a toolkit stub libcuda answered CUDA_ERROR_STUB_LIBRARY
    kNoDevice,    ///< driver loaded, no GPU visible
    kOk,          ///< driver loaded, devices listed
    kError,       ///< the driver answered with an error (detail says which)
  };
  State state = State::kNotChecked;
  std::string detail;                    ///< one line: how the state was established
  bool observed = false;                 ///< true if a driver library answered (probe)
  std::optional<DriverVersion> version;  ///< 580.95.05
  std::optional<Version> cuda;           ///< cuDriverGetVersion as a version (13.0)
  /// "open" (NVIDIA Open Kernel Module), "proprietary", or "" if no module is loaded.
  std::string kernel_module_flavour;
  std::string kernel_module_line;  ///< the first line of /proc/driver/nvidia/version
  std::vector<GpuFact> gpus;
  /// Pairs of GPU indices (i < j) without peer-to-peer access, from the probe's topology.
  std::vector<std::pair<int, int>> pairs_without_p2p;
  /// NVLink links between any two GPUs (0 = none seen).
  int nvlink_links = 0;
};
const char* to_string(DriverFacts::State state);

/// A CUDA toolkit found on disk.
struct ToolkitFacts {
  std::string root;                   ///< /usr/local/cuda-13.0
  std::optional<Version> version;     ///< 13.0
  std::string version_source;         ///< "include/cuda.h CUDA_VERSION 13000"
  std::string nvcc;                   ///< path of bin/nvcc if present
  std::vector<std::string> found_by;  ///< "CUDA_HOME", "PATH", "/usr/local/cuda", ...
};

/// Finds toolkits from CUDA_HOME, CUDA_PATH, nvcc on PATH and /usr/local/cuda*; the first entry
/// is the one a build would use (CUDA_HOME, then nvcc on PATH, then /usr/local/cuda).
std::vector<ToolkitFacts> find_toolkits(const Environment& env,
                                        const std::string& usr_local = "/usr/local");
/// The CUDA version of a toolkit root (version.json, then include/cuda.h).
std::optional<Version> toolkit_version(const std::string& root, std::string* source = nullptr);

/// Which file the dynamic loader would pick for a library soname, by the loader's search order
/// for a program without RPATH: LD_LIBRARY_PATH, then the directories of /etc/ld.so.conf (what
/// the ld.so cache is built from), then the multiarch and default directories.
struct LibraryResolution {
  std::string soname;  ///< libcudart.so.13
  std::string path;    ///< resolved file ("" if not found)
  std::string via;     ///< "LD_LIBRARY_PATH", "ld.so.conf", "default path"
};
LibraryResolution resolve_library(const std::string& soname, const Environment& env,
                                  const std::vector<std::string>& ld_cache_dirs);
/// Directories named in /etc/ld.so.conf (and its includes), in order.
std::vector<std::string> ld_conf_dirs(const std::string& conf = "/etc/ld.so.conf");

/// One installed distribution (a *.dist-info directory).
struct Distribution {
  std::string name;                           ///< as in METADATA ("torch")
  std::string version;                        ///< "2.7.0+cu128"
  std::string dist_info;                      ///< path of the .dist-info directory
  std::vector<std::string> shared_libraries;  ///< absolute paths of .so files from RECORD
  std::vector<std::string> requires_dist;     ///< METADATA Requires-Dist lines
  std::vector<std::string> warnings;          ///< unreadable RECORD etc.
  /// `__version__` from the package's own <module>/version.py ("0.29.2+cu132"); PyPI wheels of
  /// torchvision carry the CUDA tag only there, METADATA says "0.29.2". "" if not read.
  std::string own_version;
  std::string own_version_source;  ///< the version.py read
  /// A CUDA runtime the wheel bundles (auditwheel-renamed "libcudart.3eda8113.so.13"): its path
  /// and the CUDA major from the soname; 0 if none.
  std::string bundled_cudart;
  int bundled_cudart_major = 0;

  /// The version the package itself reports: own_version if read, else METADATA's.
  const std::string& effective_version() const {
    return own_version.empty() ? version : own_version;
  }
};

/// "libfoo.so" or "libfoo.so.1.2".
bool is_shared_library_name(std::string_view name);
/// A distribution as scan/ read its .dist-info: the shared libraries of its RECORD and the CUDA
/// runtime it bundles (libcudart.so.13 or auditwheel's libcudart.<hash>.so.13).
Distribution distribution_of(InstalledDistribution installed);

/// The device code found in one shared library.
struct LibraryCode {
  std::string path;
  std::vector<SmTarget> targets;           ///< distinct targets, sorted
  std::map<SmTarget, Version> ptx_isa;     ///< highest PTX ISA version seen per PTX target
  std::vector<std::string> errors;         ///< inventory errors (file still partly read)
  std::vector<FileInventory> inventories;  ///< what binary/ found (judged by verdict/)
  /// Every image is a small cubin without a single kernel (libcufftw.so.12 of CUDA 13 carries
  /// one such sm_75 cubin): nothing in it is ever launched, so it cannot fail on any GPU.
  bool no_kernels = false;
};

/// A distribution with its device code (only libraries that carry device code are listed).
struct PackageCode {
  Distribution dist;
  std::vector<LibraryCode> libraries;
  bool has_device_code() const { return !libraries.empty(); }
  /// Union of all targets of all libraries.
  std::vector<SmTarget> all_targets() const;
};

/// torch as installed: version, CUDA channel, what torch/version.py says.
struct TorchFacts {
  std::string version;  ///< "2.7.0+cu128"
  std::string channel;  ///< "cu128" ("cpu", "rocm6.2", or "" for a local build without suffix)
  std::optional<Version> cuda;  ///< torch/version.py `cuda = '12.8'`
  std::string git_version;
  std::string version_py;  ///< path read
};

/// Parses torch/version.py text (assignments `__version__`, `cuda`, `git_version`, with or
/// without type annotations). Unknown lines are ignored.
TorchFacts parse_torch_version_py(std::string_view text);
/// "2.7.0+cu128" -> "cu128"; "2.7.0" -> "".
std::string local_version_suffix(std::string_view version);

/// A Python environment read from disk.
struct PythonEnv {
  std::string prefix;                 ///< /opt/venv
  std::string site_packages;          ///< /opt/venv/lib/python3.11/site-packages
  std::string python_version;         ///< "3.11" (from the lib/pythonX.Y directory name)
  std::string kind;                   ///< "venv", "conda", "pyenv", "system", "site-packages"
  std::string found_by;               ///< "VIRTUAL_ENV", "--python", "python3 on PATH", ...
  std::vector<PackageCode> packages;  ///< every distribution; device code filled for .so files
  std::optional<TorchFacts> torch;
  std::vector<std::string> warnings;

  const PackageCode* find(std::string_view normalized_name) const;
};

/// Where Python environments are: an interpreter path, an environment prefix or a site-packages
/// directory (as given to --python), resolved without running Python.
struct EnvLocation {
  std::string prefix;
  std::string site_packages;
  std::string kind;
  std::string found_by;
};
/// Resolves one --python argument. Errors say what was looked for.
Result<std::vector<EnvLocation>> locate_python(const std::string& path,
                                               const std::string& found_by);
/// Each real directory once: locations whose site-packages resolve to the same directory
/// (lib64 -> lib symlinks, a user site that is a venv's, a .pth line naming a site dir) are merged
/// into the first, whose found_by gains the others'.
std::vector<EnvLocation> unique_locations(std::vector<EnvLocation> locations);

/// The distributions installed in the environment that `python` names (an interpreter, a prefix
/// or a site-packages directory), found as locate_python() finds them, without running Python:
/// (normalised name, version) pairs, the site-packages read, and the interpreter for `-m pip`
/// ("" when none is known). `advise --python` asks this.
struct InstalledPackages {
  std::vector<std::pair<std::string, std::string>> installed;
  std::vector<std::string> site_packages;
  std::string pip_python;
};
Result<InstalledPackages> read_installed_packages(const std::string& python);
/// Directories that the .pth files of a site-packages add to sys.path (site module docs: one
/// path per line, relative to the site dir; lines starting with "import" and "#" are not paths),
/// kept only if they hold *.dist-info (an installed distribution).
std::vector<EnvLocation> pth_locations(const EnvLocation& site);

/// The active environments: $VIRTUAL_ENV, $CONDA_PREFIX, then `python3` on PATH (pyenv shims are
/// resolved through PYENV_VERSION / $PYENV_ROOT/version). Duplicates are removed.
std::vector<EnvLocation> discover_active_pythons(const Environment& env);

/// torchvision/torchaudio's own `__version__` from <site>/<name>/version.py into
/// Distribution::own_version: their PyPI wheels tag the CUDA channel only there.
void read_companion_versions(const std::string& site_packages, std::vector<PackageCode>& packages);

/// Reads an environment: its dist-info directories, torch/version.py, and (if `scan_code`) the
/// device code of every shared library listed in RECORD.
PythonEnv read_python_env(const EnvLocation& where, bool scan_code, unsigned jobs = 0);

/// Device code of one shared library from its inventories (scan_paths: targets and PTX
/// versions); small SASS-only code is decoded to learn whether it has kernels at all.
LibraryCode library_code(const std::string& path, std::vector<FileInventory> inventories);

/// Host resources for build settings.
struct HostFacts {
  unsigned cores = 1;
  double mem_total_gib = 0;
  double mem_available_gib = 0;
  std::string cxx;          ///< host compiler found on PATH (g++, c++, clang++), "" if none
  std::string cxx_version;  ///< first line of `<cxx> --version`, if it could be read
};
HostFacts read_host(const Environment& env);

/// Finds an executable named `name` on the PATH of `env`.
std::string find_on_path(const std::string& name, const Environment& env);

}  // namespace smcompat::doctor
