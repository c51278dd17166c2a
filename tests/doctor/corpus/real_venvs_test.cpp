// The doctor on real venvs built by pip from pinned PyPI wheels (scripts/fetch-corpus.sh):
// torch 2.15.0+cu132 with torchvision 0.29.2, the same with bitsandbytes 0.45.2 / 0.50.2, and
// cupy-cuda12x 14.2.0. Planted variants are built in a temp dir with `cp -al` and files replaced
// by unlink + write (the cached venvs share inodes and are never modified).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "smcompat/doctor/doctor.hpp"

namespace fs = std::filesystem;
using namespace smcompat;
using namespace smcompat::doctor;

namespace {

std::string corpus_dir() {
  if (const char* c = std::getenv("SMCOMPAT_CORPUS"); c && *c) return c;
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "") + "/.cache/smcompat-corpus";
}

std::string venv(const std::string& name) { return corpus_dir() + "/venvs/" + name; }

#define REQUIRE_VENV(name)                                                             \
  do {                                                                                 \
    if (!fs::exists(venv(name) + "/bin/python"))                                       \
      GTEST_SKIP() << "corpus venv " << venv(name)                                     \
                   << " missing (run scripts/fetch-corpus.sh or set SMCOMPAT_CORPUS)"; \
  } while (0)

const std::string kSite = "/lib/python3.11/site-packages";

DoctorReport doctor_on(const std::string& prefix, std::vector<std::string> gpus,
                       Environment extra = {}) {
  DoctorOptions o;
  o.pythons = {prefix + "/bin/python"};
  o.gpus = std::move(gpus);
  o.discover_active = false;
  o.env = {{"PATH", "/nonexistent"}};
  for (auto& [k, v] : extra) o.env[k] = v;
  o.usr_local = "/nonexistent";
  o.ld_so_conf = "/nonexistent";
  o.driver = DriverFacts{};  // not checked: judged only for the GPUs asked about
  return run_doctor(o);
}

std::vector<const Finding*> errors(const DoctorReport& r) {
  std::vector<const Finding*> out;
  for (auto& f : r.findings)
    if (f.severity == Severity::kError) out.push_back(&f);
  return out;
}

const PackageVerdict* verdict(const DoctorReport& r, const std::string& pkg,
                              const std::string& gpu) {
  for (auto& v : r.verdicts)
    if (v.package == pkg && v.gpu == gpu) return &v;
  return nullptr;
}

/// bitsandbytes judged for the RTX 5090, with its run-time variant (else nullptr).
const PackageVerdict* bnb_on_5090(const DoctorReport& r) {
  const PackageVerdict* v = verdict(r, "bitsandbytes", "GeForce RTX 5090");
  return v && v->variant ? v : nullptr;
}
/// The file name of the library a variant loads ("" if none).
std::string loads(const PackageVerdict& v) {
  return fs::path(v.variant->chosen).filename().string();
}

/// A hard-linked copy of a venv; `replace` unlinks a file and writes new content.
struct VenvCopy {
  std::string root;
  std::string prefix;
  explicit VenvCopy(const std::string& from) {
    std::string tmpl = (fs::temp_directory_path() / "smcompat-venv-XXXXXX").string();
    root = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
    prefix = root + "/v";
    std::string cmd = "cp -al '" + from + "' '" + prefix + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  ~VenvCopy() {
    std::error_code ec;
    if (!root.empty()) fs::remove_all(root, ec);
  }
  void replace(const std::string& rel, const std::string& content) {
    auto p = prefix + kSite + "/" + rel;
    fs::remove(p);  // never write through the shared inode
    std::ofstream(p) << content;
  }
};

int count_packages(const DoctorReport& r, const std::string& name) {
  int n = 0;
  for (auto& e : r.envs)
    for (auto& p : e.packages) n += p.dist.name == name;
  return n;
}

}  // namespace

// The plain `pip install torch torchvision` venv: no error, the venv (lib64 -> lib) once, each
// finding once; torchvision's channel is read from torchvision/version.py ('0.29.2+cu132').
TEST(DoctorRealVenv, TorchAndTorchvisionCleanOnRtx5090AndV100LacksCode) {
  REQUIRE_VENV("torch");
  ASSERT_TRUE(fs::is_symlink(venv("torch") + "/lib64")) << "the venv should have lib64 -> lib";
  auto r = doctor_on(venv("torch"), {"RTX 5090", "V100"});
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_EQ(r.envs.size(), 1u);
  EXPECT_EQ(r.envs[0].site_packages, venv("torch") + kSite);
  EXPECT_EQ(count_packages(r, "torch"), 1);
  EXPECT_EQ(count_packages(r, "torchvision"), 1);
  ASSERT_TRUE(r.envs[0].torch);
  EXPECT_EQ(r.envs[0].torch->version, "2.15.0+cu132");
  EXPECT_EQ(r.envs[0].torch->cuda->to_string(), "13.2");
  auto* tv = r.envs[0].find("torchvision");
  ASSERT_NE(tv, nullptr);
  EXPECT_EQ(tv->dist.version, "0.29.2");
  EXPECT_EQ(tv->dist.own_version, "0.29.2+cu132");
  EXPECT_EQ(tv->dist.bundled_cudart_major, 13);
  EXPECT_EQ(fs::path(tv->dist.bundled_cudart).filename(), "libcudart.3eda8113.so.13");
  // Each finding once.
  for (size_t i = 0; i < r.findings.size(); ++i)
    for (size_t j = i + 1; j < r.findings.size(); ++j)
      EXPECT_FALSE(r.findings[i].id == r.findings[j].id &&
                   r.findings[i].title == r.findings[j].title)
          << "twice: " << r.findings[i].title;
  EXPECT_EQ(r.find("torchvision-channel-mismatch"), nullptr);
  EXPECT_EQ(r.find("torchvision-channel-unknown"), nullptr);
  // RTX 5090: every package with GPU code fits; libcufftw.so.12's only cubin (sm_75) has no
  // kernel, libcufile.so.0 has SASS up to sm_90 plus compute_90 PTX (a true JIT warning).
  for (auto& v : r.verdicts) {
    if (v.gpu != "GeForce RTX 5090") continue;
    if (v.package == "nvidia-cufile")
      EXPECT_EQ(v.fit, Fit::kPtxJit);
    else
      EXPECT_TRUE(v.fit == Fit::kNative) << v.package << " " << to_string(v.fit);
  }
  // V100 (sm_70): the real torch has SASS from sm_75 and PTX only for compute_120: no code.
  auto* t70 = verdict(r, "torch", "Tesla V100 SXM2");
  ASSERT_NE(t70, nullptr);
  EXPECT_EQ(t70->fit, Fit::kNoImage);
  auto errs = errors(r);
  ASSERT_FALSE(errs.empty());
  const Finding* torch_err = r.find("torch-no-image");
  ASSERT_NE(torch_err, nullptr);
  EXPECT_EQ(torch_err->title,
            "torch 2.15.0+cu132 has no code for Tesla V100 SXM2 (sm_70): \"no kernel image is "
            "available\"");
  for (auto* e : errs)
    EXPECT_NE(e->title.find("V100"), std::string::npos)
        << "an error for the RTX 5090: " << e->title;
}

TEST(DoctorRealVenv, TorchvisionFromAnotherChannelIsCaught) {
  REQUIRE_VENV("torch");
  VenvCopy copy(venv("torch"));
  copy.replace("torchvision/version.py",
               "__version__ = '0.29.2+cu126'\ngit_version = 'planted'\ncuda = '12.6'\n");
  auto r = doctor_on(copy.prefix, {"RTX 5090"});
  const Finding* f = r.find("torchvision-channel-mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->title,
            "torchvision 0.29.2+cu126 is from another CUDA channel than torch 2.15.0+cu132");
  EXPECT_EQ(errors(r).size(), 1u);
}

TEST(DoctorRealVenv, Bitsandbytes0452HasNoLibraryForCuda132) {
  REQUIRE_VENV("torch-bnb-0.45.2");
  auto r = doctor_on(venv("torch-bnb-0.45.2"), {"RTX 5090"});
  auto errs = errors(r);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0]->id, "runtime-variant-missing");
  EXPECT_EQ(errs[0]->title, "bitsandbytes 0.45.2 has no library for CUDA 13.2");
  ASSERT_EQ(errs[0]->fix_commands.size(), 1u);
  // The shipped wheel index, not the hand-written rows (which know 0.50.2 only): 0.50.0 is the
  // first release whose wheel ships libbitsandbytes_cuda132.so.
  EXPECT_EQ(errs[0]->fix_commands[0],
            venv("torch-bnb-0.45.2") + "/bin/python -m pip install -U 'bitsandbytes>=0.50.0'");
  bool index_evidence = false;
  for (const auto& line : errs[0]->evidence)
    index_evidence |= line.find(
                          "bitsandbytes 0.50.0 is the first release after 0.45.2 with a "
                          "library for CUDA 13.2") != std::string::npos;
  EXPECT_TRUE(index_evidence);
  auto* v = bnb_on_5090(r);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->variant->wanted_name, "libbitsandbytes_cuda132.so");
  EXPECT_TRUE(v->variant->chosen.empty());
  EXPECT_TRUE(v->libraries.empty());
  EXPECT_EQ(v->variant->alternatives.size(), 10u);  // cuda117..cuda126 (9) and cpu
}

TEST(DoctorRealVenv, Bitsandbytes0452WithOverrideLoadsTheNamedLibrary) {
  REQUIRE_VENV("torch-bnb-0.45.2");
  auto r = doctor_on(venv("torch-bnb-0.45.2"), {"RTX 5090"}, {{"BNB_CUDA_VERSION", "126"}});
  auto* v = bnb_on_5090(r);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(loads(*v), "libbitsandbytes_cuda126.so");
  EXPECT_EQ(v->variant->wanted_by, "BNB_CUDA_VERSION=126");
  ASSERT_EQ(v->libraries.size(), 1u);
  EXPECT_EQ(r.find("runtime-variant-missing"), nullptr);
}

TEST(DoctorRealVenv, Bitsandbytes0502JudgedByLibbitsandbytesCuda132Alone) {
  REQUIRE_VENV("torch-bnb-0.50.2");
  auto r = doctor_on(venv("torch-bnb-0.50.2"), {"RTX 5090"});
  EXPECT_TRUE(errors(r).empty());
  auto* v = bnb_on_5090(r);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(loads(*v), "libbitsandbytes_cuda132.so");
  EXPECT_EQ(v->variant->how, "exact match");
  ASSERT_EQ(v->libraries.size(), 1u);
  EXPECT_EQ(v->libraries[0].path, v->variant->chosen);
  EXPECT_EQ(v->fit, Fit::kNative);
  EXPECT_EQ(v->libraries[0].best_image, "sm_120");
  // cuda118/121/124/126/128/130, cpu, rocm64/70/71/714/715/72, xpu2025/2026.
  EXPECT_EQ(v->variant->alternatives.size(), 15u);
  // BNB_CUDA_VERSION names another one; one not shipped is an error.
  auto r130 = doctor_on(venv("torch-bnb-0.50.2"), {"RTX 5090"}, {{"BNB_CUDA_VERSION", "130"}});
  auto* v130 = bnb_on_5090(r130);
  ASSERT_NE(v130, nullptr);
  EXPECT_EQ(loads(*v130), "libbitsandbytes_cuda130.so");
  auto r125 = doctor_on(venv("torch-bnb-0.50.2"), {"RTX 5090"}, {{"BNB_CUDA_VERSION", "125"}});
  const Finding* f = r125.find("runtime-variant-missing");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title, "bitsandbytes 0.50.2 has no library for CUDA 12.5");
  EXPECT_EQ(f->fix_commands, std::vector<std::string>{"unset BNB_CUDA_VERSION"});
}

// cupy-cuda12x 14.2.0: three extension modules carry device code (cuobjdump --list-elf: sm_50 ..
// sm_90, sm_100 and sm_120 cubins in each), all native on the RTX 5090.
TEST(DoctorRealVenv, CupyNativeOnRtx5090) {
  REQUIRE_VENV("cupy");
  auto r = doctor_on(venv("cupy"), {"RTX 5090"});
  EXPECT_TRUE(errors(r).empty());
  ASSERT_EQ(r.verdicts.size(), 1u);
  auto& v = r.verdicts[0];
  EXPECT_EQ(v.package, "cupy-cuda12x");
  EXPECT_EQ(v.version, "14.2.0");
  EXPECT_EQ(v.fit, Fit::kNative);
  ASSERT_EQ(v.libraries.size(), 3u);
  for (auto& l : v.libraries) {
    EXPECT_EQ(l.fit, Fit::kNative) << l.path;
    EXPECT_EQ(l.best_image, "sm_120f") << l.path;
  }
  std::vector<std::string> ids;
  for (auto& f : r.findings) ids.push_back(f.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"no-toolkit", "module-loading-lazy"}));
}
