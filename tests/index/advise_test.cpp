// advise() over hand-built wheel records (index_fixtures.hpp): which release to install, the run
// of native releases, JIT-only releases, torch lockstep pins, CUDA runtime notes and unknown
// packages. Every expectation follows from the fixture's targets and the compatibility rules.
#include "smcompat/index/advise.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "index/index_fixtures.hpp"

namespace smcompat {
namespace {

using test_index::sample_index;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Target gpu(const char* name, const char* driver = "") {
  auto t = resolve_target(name, driver);
  EXPECT_TRUE(t.ok()) << name;
  return t.ok() ? *t : Target{};
}

std::vector<std::string> versions(const PackageAdvice& a) {
  std::vector<std::string> out;
  for (const auto& r : a.releases) out.push_back(r.version);
  return out;
}

std::string all_notes(const PackageAdvice& a) {
  std::string out;
  for (const auto& n : a.notes) out += n + "\n";
  return out;
}

// Whether a note contains `text`; either way the message lists all the notes.
::testing::AssertionResult any_note(const PackageAdvice& a, const std::string& text) {
  for (const auto& n : a.notes)
    if (n.find(text) != std::string::npos) return ::testing::AssertionSuccess() << all_notes(a);
  return ::testing::AssertionFailure() << all_notes(a);
}

TEST(DefaultMachine, ArmSocsAndGraceByArchOrName) {
  EXPECT_EQ(default_machine_for(gpu("RTX 5090")), "x86_64");
  EXPECT_EQ(default_machine_for(gpu("H100")), "x86_64");
  EXPECT_EQ(default_machine_for(gpu("B200")), "x86_64");
  EXPECT_EQ(default_machine_for(gpu("GB10")), "aarch64");
  EXPECT_EQ(default_machine_for(gpu("sm_121")), "aarch64");
  EXPECT_EQ(default_machine_for(gpu("GB200")), "aarch64");
  EXPECT_EQ(default_machine_for(gpu("Thor")), "aarch64");
  EXPECT_EQ(default_machine_for(gpu("8.7")), "aarch64");  // Orin
  // The catalog's GB300 is an alias of the B300 row, sold on x86 too: the name decides nothing.
  EXPECT_EQ(default_machine_for(gpu("GB300")), "x86_64");
  // A GH200 as this machine's driver reports it (not in the catalog): by name.
  Target observed;
  observed.cc = {9, 0};
  observed.name = "NVIDIA GH200 480GB";
  observed.observed = true;
  EXPECT_EQ(default_machine_for(observed), "aarch64");
}

TEST(Advise, BitsandbytesOnRtx5090NeedsTheReleaseWithCuda128) {
  auto out = advise(sample_index(), {"bitsandbytes"}, gpu("RTX 5090"), {});
  ASSERT_EQ(out.size(), 1u);
  const auto& a = out[0];
  EXPECT_TRUE(a.indexed);
  EXPECT_TRUE(a.device_code);
  EXPECT_EQ(a.machine, "x86_64");
  EXPECT_THAT(versions(a), ElementsAre("0.45.3", "0.45.2", "0.45.1"));
  EXPECT_EQ(a.releases[0].verdict.fit, Fit::kNative);
  EXPECT_EQ(a.releases[1].verdict.fit, Fit::kPtxJit);  // compute_90 JIT-compiles onto sm_120
  EXPECT_EQ(a.newest_native, "0.45.3");
  EXPECT_EQ(a.first_native, "0.45.3");
  EXPECT_FALSE(a.first_native_is_oldest_indexed);
  EXPECT_THAT(a.jit_only, ElementsAre("0.45.2", "0.45.1"));
  EXPECT_EQ(a.recommended, "0.45.3");
  EXPECT_EQ(a.install_command, "pip install \"bitsandbytes==0.45.3\"");
  EXPECT_FALSE(a.installed_version.has_value());
}

TEST(Advise, EveryReleaseNativeOnH100StartsAtTheOldestIndexed) {
  auto a = advise(sample_index(), {"bitsandbytes"}, gpu("H100"), {}).at(0);
  EXPECT_EQ(a.newest_native, "0.45.3");
  EXPECT_EQ(a.first_native, "0.45.1");
  EXPECT_TRUE(a.first_native_is_oldest_indexed);
  EXPECT_TRUE(a.jit_only.empty());
  EXPECT_EQ(a.recommended, "0.45.3");
}

TEST(Advise, PythonAndInstalledVersion) {
  AdviseEnvironment env;
  env.python = "/opt/venv/bin/python";
  env.installed = {{"bitsandbytes", "0.45.2"}};
  auto a = advise(sample_index(), {"bitsandbytes"}, gpu("RTX 5090"), env).at(0);
  EXPECT_EQ(a.installed_version, "0.45.2");
  EXPECT_EQ(a.install_command, "/opt/venv/bin/python -m pip install \"bitsandbytes==0.45.3\"");
  EXPECT_TRUE(any_note(a, "installed bitsandbytes 0.45.2: "));

  env.installed = {{"bitsandbytes", "0.45.3"}};
  a = advise(sample_index(), {"bitsandbytes"}, gpu("RTX 5090"), env).at(0);
  EXPECT_EQ(a.recommended, "0.45.3");
  EXPECT_EQ(a.install_command, "");  // already there
  EXPECT_TRUE(any_note(a, "the installed bitsandbytes 0.45.3 is the one to have"));

  env.python = "/home/me/my env/bin/python";  // quoted for the shell
  env.installed.clear();
  a = advise(sample_index(), {"bitsandbytes"}, gpu("RTX 5090"), env).at(0);
  EXPECT_EQ(a.install_command,
            "'/home/me/my env/bin/python' -m pip install \"bitsandbytes==0.45.3\"");
}

TEST(Advise, NamesAreNormalisedAndAskedOnce) {
  auto out = advise(sample_index(), {"BitsAndBytes", "bitsandbytes", "FlashInfer_Python"},
                    gpu("RTX 5090"), {});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].package, "bitsandbytes");
  EXPECT_EQ(out[1].package, "flashinfer-python");
  EXPECT_EQ(out[1].recommended, "0.2.0");
}

// Nothing of a package runs natively: the same package for another CUDA major that does (as
// cupy-cuda12x and cupy-cuda13x, nvidia-cudnn-cu12 and the unsuffixed CUDA 13 wheels), else whom
// to ask.
TEST(Advise, NoReleaseRunsNamesTheSamePackageForAnotherCudaOrWhomToAsk) {
  using test_index::device_file;
  using test_index::wheel;
  WheelIndex index;
  index.built = "2026-11-27";
  index.wheels = {
      wheel("cupy-cuda11x", "13.0.0", "x86_64", {device_file("cupy/_core.so", {"sm_80"})}),
      wheel("cupy-cuda12x", "13.0.0", "x86_64", {device_file("cupy/_core.so", {"sm_80"})}),
      wheel("cupy-cuda13x", "14.0.0", "x86_64",
            {device_file("cupy/_core.so", {"sm_80", "sm_120"})}),
      wheel("nvidia-cufft-cu12", "11.2.1.3", "x86_64",
            {device_file("nvidia/cufft/lib/libcufft.so.11", {"sm_80"})}),
      wheel("nvidia-cufft", "12.0.0.15", "x86_64",
            {device_file("nvidia/cu13/lib/libcufft.so.12", {"sm_80", "sm_120"})}),
      wheel("nvidia-cudss-cu12", "0.7.1", "x86_64",
            {device_file("nvidia/cu12/lib/libcudss.so.0", {"sm_80"})})};
  auto out = advise(index, {"cupy-cuda12x", "nvidia-cufft-cu12", "nvidia-cudss-cu12"},
                    gpu("RTX 5090"), {});
  ASSERT_EQ(out.size(), 3u);
  auto has = [](const PackageAdvice& a, const std::string& text) {
    for (const auto& n : a.notes)
      if (n == text) return true;
    ADD_FAILURE() << a.package << " lacks the note: " << text;
    return false;
  };
  has(out[0],
      "cupy-cuda13x 14.0.0 (the same package for another CUDA) runs natively on GeForce RTX 5090 "
      "(sm_120): `pip install \"cupy-cuda13x==14.0.0\"` instead of cupy-cuda12x, with a torch "
      "and driver for its CUDA");
  has(out[1],
      "nvidia-cufft 12.0.0.15 (the same package for another CUDA) runs natively on GeForce RTX "
      "5090 (sm_120): `pip install \"nvidia-cufft==12.0.0.15\"` instead of nvidia-cufft-cu12, "
      "with a torch and driver for its CUDA");
  has(out[2],
      "no indexed release runs natively on GeForce RTX 5090 (sm_120): ask nvidia-cudss-cu12's "
      "maintainers for a build with sm_120 (with the evidence of `smcompat scan --gpu \"GeForce "
      "RTX 5090\" WHEEL`)");
  EXPECT_FALSE(out[0].recommended);  // nothing of cupy-cuda12x itself runs
}

TEST(Advise, UnknownPackageSaysHowToIndexIt) {
  auto a = advise(sample_index(), {"flash_attn"}, gpu("RTX 5090"), {}).at(0);
  EXPECT_EQ(a.package, "flash-attn");
  EXPECT_FALSE(a.indexed);
  EXPECT_TRUE(a.releases.empty());
  EXPECT_FALSE(a.recommended.has_value());
  EXPECT_EQ(a.install_command, "");
  ASSERT_EQ(a.notes.size(), 2u);
  EXPECT_EQ(a.notes[0],
            "not in the index (built 2026-11-25); index its newest release with `smcompat index "
            "build flash-attn --last 1 --platform linux_x86_64 -o flash-attn-index.json`, then "
            "`smcompat advise flash-attn --index flash-attn-index.json`");
  EXPECT_EQ(a.notes[1],
            "the index build failed at resolve for flash-attn: no binary wheels (sdist only)");
}

TEST(Advise, RecordedFailuresOfAnIndexedPackageAreNoted) {
  WheelIndex index = sample_index();
  auto fail = [&](const char* version, const char* platform) {
    IndexFailure f;
    f.package = "bitsandbytes";
    f.version = version;
    f.platform = platform;
    f.stage = "download";
    f.message = "HTTP 503";
    index.failures.push_back(f);
  };
  fail("0.45.0", "linux_x86_64");
  fail("0.45.0", "linux_aarch64");  // another machine: not said
  for (const char* v : {"0.44.0", "0.43.0", "0.42.0", "0.41.0"}) fail(v, "linux_x86_64");
  auto a = advise(index, {"bitsandbytes"}, gpu("H100"), {}).at(0);
  ASSERT_GE(a.notes.size(), 4u);
  std::vector<std::string> last(a.notes.end() - 4, a.notes.end());
  EXPECT_THAT(last, ElementsAre("the index build failed at download for bitsandbytes 0.45.0 "
                                "(linux_x86_64): HTTP 503",
                                "the index build failed at download for bitsandbytes 0.44.0 "
                                "(linux_x86_64): HTTP 503",
                                "the index build failed at download for bitsandbytes 0.43.0 "
                                "(linux_x86_64): HTTP 503",
                                "… and 2 more recorded failures for bitsandbytes"));
}

TEST(Advise, PackageIndexedOnlyForAnotherMachine) {
  auto a = advise(sample_index(), {"flashinfer-python"}, gpu("GB10"), {}).at(0);
  EXPECT_EQ(a.machine, "aarch64");
  EXPECT_FALSE(a.indexed);
  ASSERT_FALSE(a.notes.empty());
  EXPECT_EQ(a.notes[0],
            "the index has flashinfer-python wheels only for x86_64, none for aarch64 "
            "(--platform chooses the machine)");
  // The caller's machine wins over the default.
  a = advise(sample_index(), {"flashinfer-python"}, gpu("GB10"), {}, "x86_64").at(0);
  EXPECT_TRUE(a.indexed);
  EXPECT_EQ(a.machine, "x86_64");
}

TEST(Advise, Gb10TakesTheAarch64TorchWithCompatibleSass) {
  auto a = advise(sample_index(), {"torch"}, gpu("GB10"), {}).at(0);
  EXPECT_EQ(a.machine, "aarch64");
  EXPECT_THAT(versions(a), ElementsAre("2.9.0"));
  EXPECT_EQ(a.releases[0].verdict.fit, Fit::kCompatibleSass);  // sm_120 SASS on sm_121
  EXPECT_EQ(a.newest_native, "2.9.0");
  EXPECT_TRUE(a.first_native_is_oldest_indexed);
  EXPECT_EQ(a.recommended, "2.9.0");
}

TEST(Advise, LockstepPinHonoursTheInstalledTorch) {
  AdviseEnvironment env;
  env.installed = {{"torch", "2.8.0+cu128"}};
  auto a = advise(sample_index(), {"xformers"}, gpu("RTX 5090"), env).at(0);
  EXPECT_THAT(versions(a), ElementsAre("0.0.33", "0.0.32.post2", "0.0.31"));
  EXPECT_EQ(a.releases[0].torch_pin, "2.9.0");
  EXPECT_EQ(a.releases[1].torch_pin, "2.8.0");
  EXPECT_EQ(a.newest_native, "0.0.33");
  EXPECT_EQ(a.first_native, "0.0.32.post2");
  EXPECT_THAT(a.jit_only, ElementsAre("0.0.31"));
  EXPECT_EQ(a.recommended, "0.0.32.post2");  // local label "+cu128" ignored
  EXPECT_EQ(a.install_command, "pip install \"xformers==0.0.32.post2\"");
  EXPECT_TRUE(any_note(a,
                       "xformers 0.0.33 is the newest that runs natively but needs "
                       "torch==2.9.0; 0.0.32.post2 is the newest that matches the installed "
                       "torch 2.8.0+cu128"));
}

TEST(Advise, NoNativeReleaseForTheInstalledTorchInstallsBoth) {
  AdviseEnvironment env;
  env.installed = {{"torch", "2.6.0"}};
  auto a = advise(sample_index(), {"xformers"}, gpu("RTX 5090"), env).at(0);
  EXPECT_EQ(a.recommended, "0.0.33");
  EXPECT_EQ(a.install_command, "pip install \"xformers==0.0.33\" \"torch==2.9.0\"");
  EXPECT_TRUE(any_note(a,
                       "every release of xformers that runs natively pins a torch other than "
                       "the installed 2.6.0: 0.0.33 needs torch==2.9.0"));
}

TEST(Advise, PinWithoutTorchInstalledIsNoted) {
  auto a = advise(sample_index(), {"xformers"}, gpu("RTX 5090"), {}).at(0);
  EXPECT_EQ(a.recommended, "0.0.33");
  EXPECT_EQ(a.install_command, "pip install \"xformers==0.0.33\"");
  EXPECT_TRUE(any_note(a, "xformers 0.0.33 pins torch==2.9.0 (pip installs it)"));
  EXPECT_FALSE(any_note(a, "does not run natively"));  // torch 2.9.0 runs
}

TEST(Advise, PinnedTorchThatDoesNotRunIsNoted) {
  WheelIndex index = sample_index();
  // An xformers built against torch 2.6.0 that carries sm_120 itself: torch 2.6.0 is JIT only.
  index.wheels.push_back(test_index::wheel(
      "xformers", "0.0.34", "x86_64",
      {test_index::device_file("xformers/_C.so", {"sm_90", "sm_120"})}, {"torch==2.6.0"}));
  auto a = advise(index, {"xformers"}, gpu("RTX 5090"), {}).at(0);
  EXPECT_EQ(a.recommended, "0.0.34");
  EXPECT_TRUE(any_note(a, "torch 2.6.0 does not run natively on GeForce RTX 5090 (sm_120)"));
}

TEST(Advise, TorchPinsAsRequiresDistWritesThem) {
  WheelIndex index;
  auto add = [&](const char* version, std::vector<std::string> requires_dist) {
    index.wheels.push_back(test_index::wheel(
        "torchvision", version, "x86_64",
        {test_index::device_file("torchvision/_C.so", {"sm_120"})}, std::move(requires_dist)));
  };
  add("0.24.0", {"torch (==2.9.0)"});                              // the older METADATA spelling
  add("0.23.0", {"Torch[opt-einsum] == 2.8.0"});                   // extras, spaces, case
  add("0.22.0", {"torch>=2.7"});                                   // a range is no pin
  add("0.21.0", {"torch==2.6.0; extra == \"cuda\""});              // optional: no pin
  add("0.20.0", {"torch==2.5.*"});                                 // prefix match
  add("0.19.0", {"torch==2.4.0; platform_machine == 'aarch64'"});  // other machine: no pin
  auto a = advise(index, {"torchvision"}, gpu("RTX 5090"), {}).at(0);
  std::vector<std::string> pins;
  for (const auto& r : a.releases) pins.push_back(r.torch_pin);
  EXPECT_THAT(pins, ElementsAre("2.9.0", "2.8.0", "", "", "2.5.*", ""));
  AdviseEnvironment env;
  env.installed = {{"torch", "2.5.1+cu124"}};
  EXPECT_EQ(advise(index, {"torchvision"}, gpu("RTX 5090"), env).at(0).recommended, "0.22.0");
  std::erase_if(index.wheels, [](const WheelRecord& w) { return w.version == "0.22.0"; });
  EXPECT_EQ(advise(index, {"torchvision"}, gpu("RTX 5090"), env).at(0).recommended, "0.21.0");
  std::erase_if(index.wheels, [](const WheelRecord& w) {
    return w.version == "0.21.0" || w.version == "0.19.0";
  });
  EXPECT_EQ(advise(index, {"torchvision"}, gpu("RTX 5090"), env).at(0).recommended, "0.20.0");
}

TEST(Advise, InstalledTorchPinsTriton) {
  AdviseEnvironment env;
  env.installed = {{"torch", "2.8.0+cu128"}, {"triton", "3.5.0"}};
  auto a = advise(sample_index(), {"triton"}, gpu("RTX 5090"), env).at(0);
  EXPECT_TRUE(a.indexed);
  EXPECT_FALSE(a.device_code);
  EXPECT_EQ(a.recommended, "3.4.0");
  EXPECT_EQ(a.install_command, "pip install \"triton==3.4.0\"");
  EXPECT_TRUE(any_note(a, "the installed torch 2.8.0+cu128 pins triton==3.4.0"));
  EXPECT_TRUE(any_note(a, "installed triton 3.5.0: no device code"));
}

TEST(Advise, NoDeviceCodeMeansNothingToJudge) {
  auto a = advise(sample_index(), {"triton"}, gpu("RTX 5090"), {}).at(0);
  EXPECT_TRUE(a.indexed);
  EXPECT_FALSE(a.device_code);
  EXPECT_FALSE(a.newest_native.has_value());
  EXPECT_EQ(a.recommended, "3.5.0");
  EXPECT_TRUE(any_note(a, "no indexed release of triton carries GPU code"));
}

TEST(Advise, TritonPinIsX86Only) {
  // torch's "triton==...; platform_machine == 'x86_64'" does not hold on aarch64.
  AdviseEnvironment env;
  env.installed = {{"torch", "2.9.0"}};
  auto a = advise(sample_index(), {"triton"}, gpu("GB10"), env).at(0);
  EXPECT_FALSE(a.indexed);
  EXPECT_FALSE(any_note(a, "pins triton"));
}

TEST(Advise, ChangingTorchWarnsAboutInstalledPins) {
  AdviseEnvironment env;
  env.installed = {{"torch", "2.8.0"}, {"xformers", "0.0.32.post2"}};
  auto a = advise(sample_index(), {"torch"}, gpu("RTX 5090"), env).at(0);
  EXPECT_THAT(versions(a), ElementsAre("2.9.0", "2.8.0", "2.6.0"));
  EXPECT_EQ(a.recommended, "2.9.0");
  EXPECT_EQ(a.first_native, "2.8.0");
  EXPECT_THAT(a.jit_only, ElementsAre("2.6.0"));
  EXPECT_TRUE(any_note(a, "the installed xformers 0.0.32.post2 pins torch==2.8.0"));
}

TEST(Advise, OnlyJitRecommendsTheNewestJitRelease) {
  WheelIndex index = sample_index();
  std::erase_if(index.wheels, [](const WheelRecord& w) { return w.version == "0.45.3"; });
  auto a = advise(index, {"bitsandbytes"}, gpu("RTX 5090"), {}).at(0);
  EXPECT_FALSE(a.newest_native.has_value());
  EXPECT_FALSE(a.first_native.has_value());
  EXPECT_THAT(a.jit_only, ElementsAre("0.45.2", "0.45.1"));
  EXPECT_EQ(a.recommended, "0.45.2");
  EXPECT_EQ(a.install_command, "pip install \"bitsandbytes==0.45.2\"");
  EXPECT_TRUE(any_note(a,
                       "no indexed release of bitsandbytes runs natively on GeForce RTX 5090 "
                       "(sm_120)"));
  EXPECT_TRUE(any_note(a, "bitsandbytes 0.45.2 runs only through PTX JIT"));
}

TEST(Advise, NothingRunsOnV100) {
  auto a = advise(sample_index(), {"xformers"}, gpu("V100"), {}).at(0);
  EXPECT_TRUE(a.indexed);
  EXPECT_FALSE(a.newest_native.has_value());
  EXPECT_TRUE(a.jit_only.empty());  // compute_90 PTX cannot JIT onto sm_70
  EXPECT_FALSE(a.recommended.has_value());
  EXPECT_EQ(a.install_command, "");
  EXPECT_TRUE(any_note(a, "no indexed release of xformers runs natively on Tesla V100 SXM2"));
}

TEST(Advise, DriverTooOldForTheGpu) {
  // No driver for CUDA 12.2 runs an RTX 5090 (sm_120 needs 12.8): every release waits for the
  // driver, nothing is recommended, and the note says which driver.
  auto a = advise(sample_index(), {"torch"}, gpu("RTX 5090", "12.2"), {}).at(0);
  EXPECT_EQ(a.releases[0].version, "2.9.0");
  for (const auto& r : a.releases) EXPECT_EQ(r.verdict.fit, Fit::kDriverTooOld) << r.version;
  EXPECT_EQ(a.releases[0].verdict.package.code_fit, Fit::kNative);
  EXPECT_FALSE(a.recommended.has_value());
  EXPECT_EQ(a.install_command, "");
  EXPECT_TRUE(any_note(a,
                       "torch 2.9.0 is native by its code, but the driver supports CUDA 12.2, and "
                       "sm_120 needs a driver for CUDA 12.8 or newer (570.26 or newer)"));
  // With the driver's CUDA at 12.8 the GPU is known, and 2.9.0 runs natively.
  a = advise(sample_index(), {"torch"}, gpu("RTX 5090", "12.8"), {}).at(0);
  EXPECT_EQ(a.recommended, "2.9.0");
}

TEST(Advise, RuntimeOfANewerMajorCannotRun) {
  AdviseEnvironment env;
  env.driver_cuda = Version{11, 8};  // the environment's driver overrides the target's
  auto a = advise(sample_index(), {"torch"}, gpu("H100"), env).at(0);
  EXPECT_EQ(a.releases[0].verdict.fit, Fit::kDriverTooOld);
  EXPECT_FALSE(a.recommended.has_value());
  EXPECT_TRUE(any_note(a,
                       "torch 2.9.0 is native by its code, but it needs the CUDA 12.8 runtime "
                       "(fixture), and the driver supports "
                       "CUDA 11.8: install a driver for CUDA 12.0 or newer (525.60.13 or newer)"));
}

TEST(Advise, RuntimeVariantsNeedOneThatTheDriverRuns) {
  // bitsandbytes-style: one library per CUDA runtime, WheelRecord::cuda lists them.
  WheelIndex index;
  auto w = test_index::wheel(
      "bitsandbytes", "0.49.0", "x86_64",
      {test_index::device_file("bitsandbytes/libbitsandbytes_cuda128.so", {"sm_90"}),
       test_index::device_file("bitsandbytes/libbitsandbytes_cuda130.so", {"sm_90"})},
      {}, "12.8;13.0");
  index.wheels.push_back(w);
  AdviseEnvironment env;
  env.driver_cuda = Version{12, 2};  // the 12.8 library runs through minor version compatibility
  auto a = advise(index, {"bitsandbytes"}, gpu("H100"), env).at(0);
  EXPECT_FALSE(any_note(a, "runtime"));
  env.driver_cuda = Version{11, 8};
  a = advise(index, {"bitsandbytes"}, gpu("H100"), env).at(0);
  EXPECT_TRUE(any_note(a,
                       "bitsandbytes 0.49.0 ships one library per CUDA runtime (12.8 to 13.0) "
                       "and none runs on a driver for CUDA 11.8: it needs a driver for CUDA "
                       "12.8"));
}

TEST(Advise, SeveralWheelsOfOneReleaseCountTheWorst) {
  WheelIndex index = sample_index();
  // A cp39 wheel of 0.45.3 without the CUDA 12.8 library: the release is not native everywhere.
  auto cp39 = test_index::bitsandbytes("0.45.3", false);
  cp39.filename = "bitsandbytes-0.45.3-cp39-cp39-manylinux_2_28_x86_64.whl";
  cp39.python_tag = cp39.abi_tag = "cp39";
  cp39.sha256 = std::string(64, 'a');
  index.wheels.push_back(cp39);
  auto a = advise(index, {"bitsandbytes"}, gpu("RTX 5090"), {}).at(0);
  EXPECT_EQ(a.releases[0].filename, cp39.filename);
  EXPECT_EQ(a.releases[0].verdict.fit, Fit::kPtxJit);
  EXPECT_FALSE(a.newest_native.has_value());
}

TEST(Advise, MachineWheelsHidePureWheelsOfTheSameRelease) {
  WheelIndex index = sample_index();
  index.wheels.push_back(test_index::wheel("bitsandbytes", "0.45.3", "any", {}));
  index.wheels.push_back(test_index::wheel("bitsandbytes", "0.46.0", "any", {}));
  auto a = advise(index, {"bitsandbytes"}, gpu("RTX 5090"), {}).at(0);
  EXPECT_THAT(versions(a), ElementsAre("0.46.0", "0.45.3", "0.45.2", "0.45.1"));
  EXPECT_EQ(a.releases[1].verdict.fit, Fit::kNative);  // the x86_64 wheel, not the pure one
  EXPECT_FALSE(a.releases[0].verdict.has_device_code);
  // The newest release has no GPU code, so the native run ends at 0.45.3.
  EXPECT_EQ(a.newest_native, "0.45.3");
  EXPECT_EQ(a.recommended, "0.45.3");
}

TEST(Advise, NativeRunEndsWhereANewerReleaseDroppedTheGpu) {
  WheelIndex index = sample_index();
  index.wheels.push_back(test_index::wheel(
      "bitsandbytes", "0.46.0", "x86_64",
      {test_index::device_file("bitsandbytes/libbitsandbytes_cuda130.so", {"sm_75", "sm_80"})}));
  auto a = advise(index, {"bitsandbytes"}, gpu("V100"), {}).at(0);
  EXPECT_EQ(a.releases[0].verdict.fit, Fit::kNoImage);
  EXPECT_EQ(a.newest_native, "0.45.3");
  EXPECT_EQ(a.first_native, "0.45.1");
  EXPECT_TRUE(a.first_native_is_oldest_indexed);
  EXPECT_EQ(a.recommended, "0.45.3");
}

}  // namespace
}  // namespace smcompat
