// One wheel, one verdict (issue 26): `smcompat scan` of a corpus wheel, its index record
// (index_wheel -> judge_wheel, what `advise` and `index query` answer from), the shipped index's
// record of the same file (same sha256), and the doctor's verdict for the package installed in a
// corpus venv all come to the same package verdict, GPU by GPU. All go through judge_package()
// (verdict/package.hpp); this test keeps the callers from drifting apart again. Each wheel is
// inflated once for its record (judged for eight GPUs) and scanned for two architectures
// (sm_120, sm_90): a scan inflates it again per GPU, and the corpus is 4 GB.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fixtures/support.hpp"
#include "smcompat/doctor/doctor.hpp"
#include "smcompat/index/record.hpp"
#include "smcompat/scan/scan.hpp"

namespace smcompat {
namespace {

namespace fs = std::filesystem;

using testing::corpus_dir;

const std::vector<std::string> kGpus = {"RTX 5090", "RTX PRO 6000", "B200", "GB10",
                                        "H100",     "A100",         "L4",   "T4"};
// The same H100 behind a driver for CUDA 12.8: the CUDA 13 wheels of the corpus (cuBLAS, cuDNN,
// NCCL, vLLM, torchvision: their METADATA, bundled libcudart or name) need a newer one.
const std::string kOldDriver = "H100, driver 12.8";

Target target_of(const std::string& gpu) {
  if (gpu != kOldDriver) return *resolve_target(gpu);
  Target t = *resolve_target("H100");
  t.driver_cuda = Version{12, 8};
  return t;
}

// "no device code" or the fit's name: the words all three callers print.
std::string word(bool has_device_code, Fit fit) {
  return has_device_code ? to_string(fit) : "no device code";
}

std::vector<fs::path> corpus_wheels() {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(corpus_dir() / "wheels", ec))
    if (e.path().extension() == ".whl") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

struct WheelAnswers {
  std::string package;  // normalised
  std::string version;
  std::map<std::string, std::string> scan, index;  // by GPU
};

// Every corpus wheel judged by scan and by its fresh index record.
const std::vector<WheelAnswers>& answers() {
  static const std::vector<WheelAnswers> all = [] {
    std::vector<WheelAnswers> out;
    for (const auto& whl : corpus_wheels()) {
      auto record = index_wheel(whl.string());
      if (!record) continue;
      WheelAnswers a;
      a.package = record->package;
      a.version = record->version;
      std::vector<std::string> gpus = kGpus;
      gpus.push_back(kOldDriver);
      for (const auto& gpu : gpus) {
        Target t = target_of(gpu);
        auto v = judge_wheel(*record, t);
        a.index[gpu] = word(v.has_device_code, v.fit);
        if (gpu != "RTX 5090" && gpu != "H100" && gpu != kOldDriver) continue;
        ScanOptions o;
        o.target = t;
        auto report = scan_paths({whl.string()}, o);
        std::string s = "no device code";
        for (const auto& p : report.packages)
          if (p.verdict) s = to_string(*p.verdict);
        a.scan[gpu] = s;
      }
      out.push_back(std::move(a));
    }
    return out;
  }();
  return all;
}

TEST(OneVerdict, ShippedIndexEqualsAFreshScan) {
  if (corpus_wheels().empty()) GTEST_SKIP() << "no corpus wheels in " << corpus_dir() / "wheels";
  const WheelIndex& shipped = builtin_wheel_index();
  size_t compared = 0;
  for (const auto& whl : corpus_wheels()) {
    const WheelRecord* old = nullptr;
    for (const auto& w : shipped.wheels)
      if (w.filename == whl.filename().string()) old = &w;
    if (!old) continue;
    auto fresh = index_wheel(whl.string());
    ASSERT_TRUE(fresh);
    if (fresh->sha256 != old->sha256) continue;  // a different build of the same name
    for (const auto& gpu : kGpus) {
      Target t = *resolve_target(gpu);
      auto a = judge_wheel(*old, t), b = judge_wheel(*fresh, t);
      EXPECT_EQ(word(a.has_device_code, a.fit), word(b.has_device_code, b.fit))
          << whl.filename() << " on " << gpu << ": the shipped record is stale";
    }
    ++compared;
  }
  EXPECT_GE(compared, 5u) << "too few corpus wheels in the shipped index";
}

// The doctor reads installed packages, not wheels: each package of the corpus venvs is compared
// with its wheel's record (equal to the scan, above), for eight GPUs. bitsandbytes is left out: the
// doctor knows which of its per-CUDA libraries torch's CUDA makes it load, a wheel does not
// (PackageRoll.PerArchitectureBuilds...). One test, so that the wheels are read once (answers() per
// test process).
TEST(OneVerdict, ScanIndexAndDoctorAgree) {
  if (corpus_wheels().empty())
    GTEST_SKIP() << "no corpus wheels in " << corpus_dir() / "wheels"
                 << " (run scripts/fetch-corpus.sh or set SMCOMPAT_CORPUS)";
  size_t judged = 0, driver_too_old = 0;
  for (const auto& a : answers()) {
    for (const auto& [gpu, verdict] : a.scan) {
      EXPECT_EQ(verdict, a.index.at(gpu)) << a.package << " " << a.version << " on " << gpu;
      ++judged;
      driver_too_old += verdict == "driver-too-old";
    }
  }
  EXPECT_GE(judged, 3u * 30);  // every corpus wheel, two architectures and an old driver
  // The CUDA 13 wheels say so: nvidia-cublas, -cufft, -cusolver, -cusparse (unsuffixed),
  // -cudnn-cu13, -nccl-cu13, -cusparselt-cu13, -nvshmem-cu13 (names), vllm, torchvision, ...
  EXPECT_GE(driver_too_old, 8u);

  std::vector<std::string> venvs;
  for (const char* v : {"torch", "torch-vllm", "cupy"})
    if (fs::exists(corpus_dir() / "venvs" / v / "bin/python"))
      venvs.push_back((corpus_dir() / "venvs" / v / "bin/python").string());
  ASSERT_FALSE(venvs.empty()) << "no corpus venvs in " << corpus_dir() / "venvs";
  doctor::DoctorOptions o;
  o.pythons = venvs;
  o.gpus = kGpus;
  o.discover_active = false;
  o.env = {{"PATH", "/nonexistent"}};
  o.usr_local = "/nonexistent";
  o.ld_so_conf = "/nonexistent";
  o.driver = doctor::DriverFacts{};
  auto report = doctor::run_doctor(o);
  // Again behind a driver for CUDA 12.8, on the H100 only.
  o.gpus = {"H100"};
  o.driver->state = doctor::DriverFacts::State::kOk;
  o.driver->cuda = Version{12, 8};
  auto old_driver = doctor::run_doctor(o);
  std::map<std::pair<std::string, std::string>, const WheelAnswers*> wheels;
  for (const auto& a : answers()) wheels[{a.package, a.version}] = &a;
  size_t compared = 0;
  std::set<std::string> missing;
  auto compare = [&](const doctor::PackageVerdict& v, bool behind_old_driver) {
    std::string name = normalize_package_name(v.package);
    if (name == "bitsandbytes") return;
    auto it = wheels.find({name, v.version});
    if (it == wheels.end()) {
      missing.insert(name + " " + v.version);
      return;
    }
    // The doctor says native for a package without device code (nothing can fail to load).
    std::string doctor = word(v.rollup.has_device_code, v.fit);
    std::string gpu = behind_old_driver ? kOldDriver : "";
    for (const auto& g : kGpus)
      if (gpu.empty() && resolve_target(g)->name == v.gpu) gpu = g;
    ASSERT_FALSE(gpu.empty()) << v.gpu;
    EXPECT_EQ(doctor, it->second->index.at(gpu)) << name << " " << v.version << " on " << gpu;
    ++compared;
  };
  for (const auto& v : report.verdicts) compare(v, false);
  for (const auto& v : old_driver.verdicts) compare(v, true);
  EXPECT_GE(compared, 9u * 10) << "packages of the venvs without a corpus wheel: " << [&] {
    std::string s;
    for (const auto& m : missing) s += m + "; ";
    return s;
  }();
}

}  // namespace
}  // namespace smcompat
