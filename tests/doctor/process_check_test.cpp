// Checking a live process (doctor/process_check.hpp): /proc/PID/maps text, real and hostile, with
// exact expectations; check_process() over a fake /proc/PID/maps naming the nvcc-built fixture
// libraries (tests/doctor/CMakeLists.txt) with driver facts given (no driver needed): the loaded
// libraries, their owners and the doctor's findings, and torch's run-time cross-checks.
#include "smcompat/doctor/process_check.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "doctor/fixture_env.hpp"

namespace smcompat::doctor {
namespace {

namespace fs = std::filesystem;
using smcompat::testing::FakeEnv;
using smcompat::testing::TempDir;
using smcompat::testing::write_file;

// Lines as a 6.x kernel prints them (a Python process: libc, a venv library, the heap, vdso).
const std::string kMaps =
    "55d0c0a00000-55d0c0a2a000 r--p 00000000 08:01 2359302                    /usr/bin/python3.11\n"
    "55d0c0a2a000-55d0c0c9b000 r-xp 0002a000 08:01 2359302                    /usr/bin/python3.11\n"
    "55d0c1f4e000-55d0c2035000 rw-p 00000000 00:00 0                          [heap]\n"
    "7f1c28000000-7f1c28021000 rw-p 00000000 00:00 0 \n"
    "7f1c2a000000-7f1c2a028000 r--p 00000000 08:01 2360123                    "
    "/usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7f1c2a028000-7f1c2a1bd000 r-xp 00028000 08:01 2360123                    "
    "/usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7f1c2b000000-7f1c2b400000 r-xp 00000000 fd:02 917530                     "
    "/opt/my env/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so (deleted)\n"
    "7f1c2c000000-7f1c2c001000 rw-s 00000000 00:01 1049                       /memfd:pool "
    "(deleted)\n"
    "7f1c2d000000-7f1c2d001000 rw-s 00000000 00:05 1050                       /dev/nvidiactl\n"
    "7ffd8e5f0000-7ffd8e611000 rw-p 00000000 00:00 0                          [stack]\n"
    "7ffd8e7b4000-7ffd8e7b8000 r--p 00000000 00:00 0                          [vvar]\n"
    "7ffd8e7b8000-7ffd8e7ba000 r-xp 00000000 00:00 0                          [vdso]\n"
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

TEST(ParseProcMaps, RealTextGivesUniqueFilesInOrder) {
  std::vector<Error> warnings;
  auto files = parse_proc_maps(kMaps, "/proc/42/maps", &warnings);
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(files->size(), 3u);
  EXPECT_EQ((*files)[0].path, "/usr/bin/python3.11");
  EXPECT_FALSE((*files)[0].deleted);
  EXPECT_EQ((*files)[0].address_range, "55d0c0a00000-55d0c0a2a000");
  EXPECT_EQ((*files)[0].line_offset, 0u);
  EXPECT_EQ((*files)[1].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ((*files)[1].line_offset, kMaps.find("7f1c2a000000"));
  EXPECT_EQ((*files)[2].path,
            "/opt/my env/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so");
  EXPECT_TRUE((*files)[2].deleted);
  EXPECT_EQ((*files)[2].address_range, "7f1c2b000000-7f1c2b400000");
}

TEST(ParseProcMaps, EmptyTextIsNoFiles) {
  auto files = parse_proc_maps("", "/proc/1/maps");
  ASSERT_TRUE(files.ok());
  EXPECT_TRUE(files->empty());
  files = parse_proc_maps("\n\n  \n", "/proc/1/maps");
  ASSERT_TRUE(files.ok());
  EXPECT_TRUE(files->empty());
}

TEST(ParseProcMaps, MalformedLinesAreLocatedWarningsAndTheRestIsKept) {
  const std::string good1 = "7f00-7f10 r-xp 00000000 08:01 11 /lib/a.so\n";
  const std::string bad_range = "zz00-7f10 r-xp 00000000 08:01 11 /lib/x.so\n";
  const std::string bad_perms = "7f00-7f10 rwxq 00000000 08:01 11 /lib/y.so\n";
  const std::string truncated = "7f00-7f10 r-xp 0000";
  const std::string good2 = "\n7f20-7f30 r--p 00000000 08:01 12 /lib/b.so";  // no final newline
  std::string text = good1 + bad_range + bad_perms + truncated + good2;
  std::vector<Error> warnings;
  auto files = parse_proc_maps(text, "maps.txt", &warnings);
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].path, "/lib/a.so");
  EXPECT_EQ((*files)[1].path, "/lib/b.so");
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[0].file, "maps.txt");
  EXPECT_EQ(warnings[0].offset, good1.size());
  EXPECT_EQ(warnings[0].what,
            "malformed maps line: address range \"zz00-7f10\" is not START-END in hex");
  EXPECT_EQ(warnings[1].offset, good1.size() + bad_range.size());
  EXPECT_EQ(warnings[1].what, "malformed maps line: permissions \"rwxq\" are not four of rwxp/s");
  EXPECT_EQ(warnings[2].offset, good1.size() + bad_range.size() + bad_perms.size());
  EXPECT_EQ(warnings[2].what, "malformed maps line: device \"\" is not MAJOR:MINOR in hex");
}

TEST(ParseProcMaps, TextThatIsNotMapsFails) {
  auto r = parse_proc_maps("hello world\nthis is not maps\n", "notes.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().file, "notes.txt");
  EXPECT_EQ(r.error().offset, 0u);
  EXPECT_EQ(r.error().what,
            "no line is a maps line (2 malformed); the first: malformed maps line: address range "
            "\"hello\" is not START-END in hex");
  auto nul = parse_proc_maps(std::string("7f00-7f10 r-xp 0 08:01 1 /a\0b\n", 30), "bin");
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.error().offset, 27u);
  EXPECT_EQ(nul.error().what, "a NUL byte: not the text of a maps file");
}

TEST(ParseProcMaps, OverlongFieldsAndOddPaths) {
  std::vector<Error> warnings;
  auto files = parse_proc_maps(
      std::string(40, 'f') +
          "-1 r-xp 0 08:01 1 /a\n"                    // address wider than 64 bits
          "7f00-7f10 r-xp 0 08:01 1x /b\n"            // inode not decimal
          "7f00-7f10 r-xp 0 0801 1 /c\n"              // device without ':'
          "7f00-7f10 r-xp 0 08:01 1 relative/path\n"  // not a file path: skipped, not malformed
          "7f00-7f10 r-xp 0 08:01 1 [anon:scudo]\n"
          "7f00-7f10 r-xp 0 08:01 1 /with  two  spaces.so\n",
      "m", &warnings);
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].path, "/with  two  spaces.so");
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[1].what, "malformed maps line: inode \"1x\" is not a decimal number");
  EXPECT_EQ(warnings[2].what, "malformed maps line: device \"0801\" is not MAJOR:MINOR in hex");
}

// A mapped file whose name holds a newline: the kernel writes it as "\012" in maps (the real
// /proc/self/maps of this test after mapping such a file). It used to be dropped (the path read
// "\012" literally, which names no file); it is decoded, and a name that really holds the four
// characters "\012" stays as it is.
TEST(ParseProcMaps, NewlineInAMappedFileNameIsDecoded) {
  TempDir d;
  for (std::string name : {std::string("lib\nnewline.so"), std::string("lib\\012literal.so")}) {
    std::string path = d.path() + "/" + name;
    { std::ofstream(path, std::ios::binary) << std::string(4096, 'x'); }
    int fd = ::open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0) << path;
    void* map = ::mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    ASSERT_NE(map, MAP_FAILED);
    std::ifstream in("/proc/self/maps");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ::munmap(map, 4096);
    auto files = parse_proc_maps(text, "/proc/self/maps");
    ASSERT_TRUE(files.ok()) << files.error().to_string();
    bool found = std::any_of(files->begin(), files->end(),
                             [&](const MappedFile& f) { return f.path == path; });
    EXPECT_TRUE(found) << "not listed: " << path;
  }
}

// Every prefix, and random byte damage, parses to files or an error: never a crash.
TEST(ParseProcMaps, TruncationAndGarbageSweep) {
  for (size_t n = 0; n <= kMaps.size(); ++n) {
    std::string prefix = kMaps.substr(0, n);  // exactly sized: ASan sees overreads
    std::vector<Error> warnings;
    auto r = parse_proc_maps(prefix, "p", &warnings);
    if (r.ok()) {
      EXPECT_LE(r->size(), 13u);  // at most one file per line
      for (auto& f : *r) EXPECT_EQ(f.path[0], '/');
    }
  }
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string t = kMaps;
    int flips = 1 + static_cast<int>(rng() % 16);
    for (int i = 0; i < flips; ++i) t[rng() % t.size()] = static_cast<char>(rng() % 256);
    t.resize(rng() % (t.size() + 1));
    std::vector<Error> warnings;
    auto r = parse_proc_maps(t, "g", &warnings);
    if (!r.ok()) EXPECT_TRUE(r.error().offset.has_value());
    for (auto& w : warnings) EXPECT_LE(*w.offset, t.size());
  }
}

TEST(ParseEnviron, NulSeparatedEntries) {
  auto env = parse_environ(std::string("A=1\0B=x=y\0=bad\0noequals\0C=\0", 27));
  EXPECT_EQ(env, (Environment{{"A", "1"}, {"B", "x=y"}, {"C", ""}}));
}

DriverFacts rtx5090_driver() {
  DriverFacts d;
  d.state = DriverFacts::State::kOk;
  d.observed = true;
  d.version = DriverVersion::parse("580.95.05");
  d.cuda = Version{13, 0};
  d.kernel_module_flavour = "open";
  d.gpus.push_back({"GeForce RTX 5090", {12, 0}, "0000:01:00.0"});
  return d;
}

std::string maps_line(int i, const std::string& path) {
  return fmt::format("7f{:02x}00000000-7f{:02x}00100000 r-xp 00000000 08:01 {} {}\n", i, i,
                     1000 + i, path);
}

std::vector<std::string> ids(const DoctorReport& r) {
  std::vector<std::string> v;
  for (auto& f : r.findings) v.push_back(std::string(to_string(f.severity)) + " " + f.id);
  return v;
}

class CheckProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    SMCOMPAT_SKIP_WITHOUT_DOCTOR_FIXTURES();
    env_ = std::make_unique<FakeEnv>(tmp_.path(), "venv");
    // A distribution whose library is loaded, one whose library is not (must not appear).
    env_->add("gpu-pkg", "1.2.0",
              {{"gpu_pkg/k_90_120.so", "so:k_90_120"}, {"gpu_pkg/__init__.py", "#\n"}});
    env_->add("ptx-pkg", "0.3", {{"ptx_pkg/k_ptx80.so", "so:k_ptx80"}});
    env_->add("not-loaded", "9.9", {{"not_loaded/k_80_90.so", "so:k_80_90"}});
    lone_ = tmp_.path() + "/lib/k_80_90.so";
    fs::create_directories(tmp_.path() + "/lib");
    fs::copy_file(smcompat::testing::fixture_so("k_80_90"), lone_);
    write_file(tmp_.path() + "/lib/libnot_elf.so", "not an ELF file\n");
  }
  // A fake /proc/4242/maps listing `paths` (with libc, which has no device code).
  ProcessCheckOptions options(const std::vector<std::string>& paths) {
    std::string text = maps_line(0, "/usr/lib/x86_64-linux-gnu/libc.so.6");
    for (size_t i = 0; i < paths.size(); ++i) {
      text += maps_line(static_cast<int>(i + 1), paths[i]);
      text += maps_line(static_cast<int>(i + 1), paths[i]);  // a second mapping of the same file
    }
    text += "7fff00000000-7fff00100000 rw-p 00000000 00:00 0 [heap]\n";
    write_file(tmp_.path() + "/proc/4242/maps", text);
    ProcessCheckOptions o;
    o.pid = 4242;
    o.proc_root = tmp_.path() + "/proc";
    o.driver = rtx5090_driver();
    o.env = {{"PATH", "/usr/bin:/bin"}};
    o.jobs = 2;
    return o;
  }
  std::string site(const std::string& rel) const { return env_->site() + "/" + rel; }

  TempDir tmp_;
  std::unique_ptr<FakeEnv> env_;
  std::string lone_;
};

TEST_F(CheckProcess, LoadedLibrariesOnRtx5090) {
  auto o = options({site("gpu_pkg/k_90_120.so"), lone_, tmp_.path() + "/lib/libnot_elf.so",
                    site("ptx_pkg/k_ptx80.so")});
  auto c = check_process(o);
  EXPECT_TRUE(c.maps_read);
  EXPECT_EQ(c.pid, 4242);
  EXPECT_EQ(c.maps, tmp_.path() + "/proc/4242/maps");
  EXPECT_EQ(c.mapped_files, 5u);
  EXPECT_TRUE(c.errors.empty()) << c.errors.front();
  ASSERT_EQ(c.gpu, std::optional<size_t>(0));
  EXPECT_EQ(c.report.targets[0].name, "GeForce RTX 5090");
  EXPECT_TRUE(c.report.targets[0].observed);
  ASSERT_EQ(c.libraries.size(), 3u);
  struct Want {
    std::string path, package, version, fit, best;
  };
  std::vector<Want> want{{site("gpu_pkg/k_90_120.so"), "gpu-pkg", "1.2.0", "native", "sm_120"},
                         {lone_, "", "", "no-image", ""},
                         {site("ptx_pkg/k_ptx80.so"), "ptx-pkg", "0.3", "ptx-jit", "compute_80"}};
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(want[i].path);
    EXPECT_EQ(c.libraries[i].path, want[i].path);
    EXPECT_EQ(c.libraries[i].package, want[i].package);
    EXPECT_EQ(c.libraries[i].version, want[i].version);
    ASSERT_TRUE(c.libraries[i].verdict.has_value());
    EXPECT_EQ(to_string(c.libraries[i].verdict->fit), want[i].fit);
    EXPECT_EQ(c.libraries[i].verdict->best_image, want[i].best);
  }
  // Packages: the two distributions and the lone file, each with only its loaded library.
  std::vector<std::string> packages;
  for (auto& e : c.report.envs)
    for (auto& p : e.packages) {
      packages.push_back(p.dist.name);
      for (auto& l : p.libraries) EXPECT_EQ(l.path.find("not_loaded"), std::string::npos);
    }
  EXPECT_EQ(packages, (std::vector<std::string>{"gpu-pkg", "ptx-pkg", "k_80_90.so"}));
  // The doctor's variable rules speak too (CUDA_MODULE_LOADING is unset here).
  EXPECT_EQ(ids(c.report),
            (std::vector<std::string>{"error package-no-image", "warning package-ptx-jit",
                                      "info module-loading-lazy"}));
  auto* no_image = c.report.find("package-no-image");
  ASSERT_NE(no_image, nullptr);
  EXPECT_EQ(no_image->title, "k_80_90.so has no code for GeForce RTX 5090 (sm_120)");
  EXPECT_EQ(no_image->evidence.at(1), lone_ + ": no-image");
  for (auto& cmd : no_image->fix_commands)  // no pip line for a file outside distributions
    EXPECT_EQ(cmd.find(" install "), std::string::npos) << cmd;
  EXPECT_TRUE(no_image->fix.ends_with(
      "The file belongs to no Python distribution: rebuild it where it comes from."));
  auto* jit = c.report.find("package-ptx-jit");
  ASSERT_NE(jit, nullptr);
  EXPECT_EQ(jit->title, "ptx-pkg 0.3 runs on GeForce RTX 5090 only by PTX JIT");
}

TEST_F(CheckProcess, WhatIfGpuIsJudgedBesideTheProcessGpu) {
  auto o = options({site("gpu_pkg/k_90_120.so")});
  o.gpus = {"H100"};
  auto c = check_process(o);
  ASSERT_EQ(c.report.targets.size(), 2u);
  EXPECT_EQ(c.gpu, std::optional<size_t>(0));
  EXPECT_EQ(c.report.targets[1].name, "H100 SXM");
  EXPECT_FALSE(c.report.targets[1].observed);
  EXPECT_EQ(ids(c.report), (std::vector<std::string>{"info module-loading-lazy"}));
  ASSERT_EQ(c.libraries.size(), 1u);
  EXPECT_EQ(c.libraries[0].verdict->best_image, "sm_120");  // judged on the process's GPU
}

TEST_F(CheckProcess, TorchRuntimeCrossChecks) {
  env_->add_torch("2.7.0+cu126", "12.6", "k_80_90");
  auto o = options({site("torch/lib/libtorch_cuda.so"), site("gpu_pkg/k_90_120.so")});
  TorchRuntime t;
  t.version = "2.7.0+cu126";
  t.cuda = "12.6";
  t.arch_list = {"sm_80", "sm_86", "sm_90"};
  t.capability = ComputeCapability{9, 0};  // a masquerade: CUDA says 9.0, the driver 12.0
  t.device_name = "NVIDIA GeForce RTX 5090";
  o.torch = t;
  auto c = check_process(o);
  ASSERT_EQ(c.libraries.size(), 2u);
  EXPECT_EQ(c.libraries[0].package, "torch");
  EXPECT_EQ(ids(c.report),
            (std::vector<std::string>{"error torch-no-image", "error torch-arch-list-excludes-gpu",
                                      "warning torch-capability-differs",
                                      "warning torch-arch-list-differs", "info module-loading-lazy",
                                      "info alloc-conf-expandable", "info tf32"}));
  auto* excl = c.report.find("torch-arch-list-excludes-gpu");
  ASSERT_NE(excl, nullptr);
  ASSERT_EQ(excl->fix_commands.size(), 1u);
  EXPECT_EQ(excl->fix_commands, c.report.find("torch-no-image")->fix_commands);
  auto* differs = c.report.find("torch-arch-list-differs");
  ASSERT_NE(differs, nullptr);
  EXPECT_EQ(differs->evidence.at(1), "torch.cuda.get_arch_list(): sm_80 sm_86 sm_90");
  EXPECT_EQ(differs->evidence.at(2), site("torch/lib/libtorch_cuda.so") + ": sm_80 sm_90");
  EXPECT_EQ(differs->evidence.at(3), "listed but not in the library: sm_86");
  auto* cap = c.report.find("torch-capability-differs");
  ASSERT_NE(cap, nullptr);
  EXPECT_EQ(cap->title,
            "torch reports compute capability 9.0 for device 0, the driver says 12.0 (GeForce RTX "
            "5090)");

  // The findings once torch lists `arch_list` (the rest of `t` as it stands).
  auto ids_with_arch_list = [&](std::vector<std::string> arch_list) {
    t.arch_list = std::move(arch_list);
    o.torch = t;
    return ids(check_process(o).report);
  };
  // The list matches the library, the capability the driver: only the GPU's absence remains.
  t.capability = ComputeCapability{12, 0};
  const std::vector<std::string> no_image_and_excluded = {
      "error torch-no-image", "error torch-arch-list-excludes-gpu", "info module-loading-lazy",
      "info alloc-conf-expandable", "info tf32"};
  EXPECT_EQ(ids_with_arch_list({"sm_90", "sm_80"}), no_image_and_excluded);
  // The library carries more than the list names (official wheels do: kernels built for one
  // architecture): no contradiction.
  EXPECT_EQ(ids_with_arch_list({"sm_80"}), no_image_and_excluded);
  // PTX in the list reaches the GPU by JIT: not "excluded" (the library still says no image).
  EXPECT_EQ(ids_with_arch_list({"sm_80", "sm_90", "compute_90"}),
            (std::vector<std::string>{"error torch-no-image", "warning torch-arch-list-differs",
                                      "info module-loading-lazy", "info alloc-conf-expandable",
                                      "info tf32"}));
}

TEST_F(CheckProcess, TorchDeviceOutOfRangeIsAnError) {
  auto o = options({site("gpu_pkg/k_90_120.so")});
  TorchRuntime t;
  t.version = "2.7.0+cu128";
  t.device = 3;
  o.torch = t;
  auto c = check_process(o);
  EXPECT_FALSE(c.gpu.has_value());
  EXPECT_EQ(c.errors,
            (std::vector<std::string>{"device 3 is not among the 1 GPUs the driver shows"}));
  EXPECT_FALSE(c.libraries.at(0).verdict.has_value());
}

// A library replaced on disk after loading: read through PROC/PID/map_files/<range> when that is
// readable, else reported as not judged.
TEST_F(CheckProcess, DeletedLibraryIsReadThroughMapFiles) {
  std::string gone = tmp_.path() + "/lib/k_gone.so";
  auto o = options({});
  std::string text = maps_line(1, gone + " (deleted)") + maps_line(2, lone_ + " (deleted)");
  write_file(tmp_.path() + "/proc/4242/maps", text);
  // Only the second mapping is readable through map_files (as a copy of the fixture).
  fs::create_directories(tmp_.path() + "/proc/4242/map_files");
  fs::copy_file(lone_, tmp_.path() + "/proc/4242/map_files/7f0200000000-7f0200100000");
  auto c = check_process(o);
  EXPECT_EQ(c.mapped_files, 2u);
  ASSERT_EQ(c.libraries.size(), 1u);
  EXPECT_EQ(c.libraries[0].path, lone_);
  EXPECT_TRUE(c.libraries[0].deleted);
  EXPECT_EQ(to_string(c.libraries[0].verdict->fit), std::string("no-image"));
  EXPECT_EQ(c.errors,
            (std::vector<std::string>{
                gone + ": removed on disk after the process loaded it, and " + tmp_.path() +
                "/proc/4242/map_files/7f0100000000-7f0100100000 is not readable; its "
                "device code is not judged"}));
}

// torch imported but its CUDA library not loaded: the doctor predicts from the channel's
// published arch list, and the run-time list is checked against the device.
TEST_F(CheckProcess, TorchRuntimeWithoutLoadedLibtorchCuda) {
  auto o = options({site("gpu_pkg/k_90_120.so")});
  TorchRuntime t;
  t.version = "2.7.0+cu126";
  t.cuda = "12.6";
  t.arch_list = {"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"};
  t.capability = ComputeCapability{12, 0};
  o.torch = t;
  auto c = check_process(o);
  EXPECT_EQ(ids(c.report),
            (std::vector<std::string>{"error torch-no-image", "error torch-arch-list-excludes-gpu",
                                      "info module-loading-lazy", "info alloc-conf-expandable",
                                      "info tf32"}));
  ASSERT_EQ(c.libraries.size(), 1u);
  EXPECT_EQ(c.libraries[0].package, "gpu-pkg");
  EXPECT_EQ(c.report.find("torch-no-image")->evidence.at(0),
            "outside any Python distribution: torch 2.7.0+cu126 (channel cu126, CUDA 12.6)");
  // torch installed beside the loaded library: its site-packages speaks for it.
  env_->add_torch("2.7.0+cu126", "12.6", "k_80_90");
  c = check_process(o);
  EXPECT_EQ(c.report.find("torch-no-image")->evidence.at(0),
            env_->site() + ": torch 2.7.0+cu126 (channel cu126, CUDA 12.6)");
  EXPECT_EQ(c.report.find("torch-no-image")->subject, env_->prefix());
}

TEST(CheckProcessPid, MissingProcessIsNotRead) {
  TempDir tmp;
  ProcessCheckOptions o;
  o.pid = 999999999;
  o.proc_root = tmp.path();
  o.driver = rtx5090_driver();
  auto c = check_process(o);
  EXPECT_FALSE(c.maps_read);
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0], "process 999999999: cannot read " + tmp.path() +
                             "/999999999/maps: No such file or directory");
  EXPECT_TRUE(c.libraries.empty());
}

TEST(CheckProcessPid, ThisProcess) {
  ProcessCheckOptions o;  // pid 0: this test binary, which holds no device code
  o.driver = rtx5090_driver();
  o.env = {{"PATH", "/usr/bin"}};
  auto c = check_process(o);
  EXPECT_TRUE(c.maps_read);
  EXPECT_EQ(c.pid, static_cast<int>(::getpid()));
  EXPECT_GT(c.mapped_files, 1u);
  EXPECT_TRUE(c.libraries.empty());
  EXPECT_EQ(c.report.count(Severity::kError) + c.report.count(Severity::kWarning), 0u);
}

}  // namespace
}  // namespace smcompat::doctor
