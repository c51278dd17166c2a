// Wheel records: names and versions (PEP 503/440), a record made from the nvcc-built fixture
// wheel, the JSON round trip and its located errors, verdicts from records (runtime variants,
// arch-gated files, PTX-only with the driver it needs), and merging.
#include "smcompat/index/record.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "fixtures/support.hpp"
#include "support/shell.hpp"

namespace smcompat {
namespace {

using testing::fixture;

TEST(PackageNames, NormalisedAsPep503) {
  EXPECT_EQ(normalize_package_name("Flash_Attn"), "flash-attn");
  EXPECT_EQ(normalize_package_name("nvidia.cublas--cu12"), "nvidia-cublas-cu12");
  EXPECT_EQ(normalize_package_name("sgl_kernel"), "sgl-kernel");
  EXPECT_EQ(normalize_package_name("torch"), "torch");
}

TEST(IndexedImages, TextRoundTrip) {
  for (const char* text : {"sm_90a", "sm_120", "compute_90@8.4", "lto_89", "compute_120f@9.0"}) {
    auto image = IndexedImage::parse(text);
    ASSERT_TRUE(image) << text;
    EXPECT_EQ(image->to_string(), text);
  }
  EXPECT_FALSE(IndexedImage::parse("compute_90@x"));
  EXPECT_FALSE(IndexedImage::parse("gfx90a"));
  EXPECT_FALSE(IndexedImage::parse(""));
}

// The fixture wheel (tests/fixtures/build_fixtures.sh): libfixture.so (nvcc -gencode sm_80 and
// [sm_120,compute_120]) and kernels.fatbin (multi.fatbin: sm_75, [sm_80,compute_80]); six members.
TEST(IndexWheel, FixtureWheelRecord) {
  SMCOMPAT_REQUIRE_FIXTURES();
  std::string whl = fixture("fixture_pkg-0.1-py3-none-linux_x86_64.whl");
  auto record = index_wheel(whl);
  ASSERT_TRUE(record) << record.error().to_string();
  EXPECT_EQ(record->package, "fixture-pkg");
  EXPECT_EQ(record->version, "0.1");
  EXPECT_EQ(record->filename, "fixture_pkg-0.1-py3-none-linux_x86_64.whl");
  EXPECT_EQ(record->python_tag, "py3");
  EXPECT_EQ(record->abi_tag, "none");
  EXPECT_EQ(record->platform_tag, "linux_x86_64");
  EXPECT_EQ(record->machine, "x86_64");
  EXPECT_EQ(record->members, 6u);
  EXPECT_EQ(record->size, std::filesystem::file_size(whl));
  // sha256sum (coreutils) is the oracle for the digest.
  std::string digest = testshell::run("sha256sum '" + whl + "'").second.substr(0, 64);
  EXPECT_EQ(record->sha256, digest);
  // The PTX ISA nvcc wrote is in the PTX fixture built by the same nvcc (".version X.Y").
  std::string ptx = testing::read_text(fixture("kernels_c90.ptx"));
  auto at = ptx.find(".version ");
  ASSERT_NE(at, std::string::npos);
  std::string isa = ptx.substr(at + 9, ptx.find('\n', at) - at - 9);
  EXPECT_EQ(record->sass, (std::vector<std::string>{"sm_75", "sm_80", "sm_120"}));
  EXPECT_EQ(record->ptx, (std::vector<std::string>{"compute_80@" + isa, "compute_120@" + isa}));
  EXPECT_TRUE(record->lto.empty());
  ASSERT_EQ(record->files.size(), 2u);
  EXPECT_EQ(record->files[0].path, "fixture_pkg/kernels.fatbin");
  EXPECT_EQ(record->files[1].path, "fixture_pkg/libfixture.so");
  // The .so has two fatbin containers (`smcompat scan --json` counts them too): the kernels'
  // [sm_80, sm_120, compute_120] and a second, SASS-only one with [sm_80, sm_120] that holds no
  // kernel (the module nvcc links in): its images are counted, but it is no unit.
  const auto& so = record->files[1];
  ASSERT_EQ(so.units.size(), 1u);
  std::vector<std::string> first;
  for (const auto& i : so.units[0].images) first.push_back(i.to_string());
  EXPECT_EQ(first, (std::vector<std::string>{"sm_80", "sm_120", "compute_120@" + isa}));
  EXPECT_EQ(so.units[0].count, 1u);
  EXPECT_FALSE(so.units[0].prelink);
  EXPECT_EQ(so.images, 5u);
  EXPECT_TRUE(record->errors.empty());
  EXPECT_EQ(record->cuda, "");  // nothing in the wheel says which runtime
  // A rescan gives the identical record.
  auto again = index_wheel(whl);
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *record);
}

TEST(IndexWheel, TruncatedWheelIsARecordWithErrors) {
  SMCOMPAT_REQUIRE_FIXTURES();
  testing::ScratchDir dir("index_truncated");
  auto bytes = testing::read_bytes(fixture("fixture_pkg-0.1-py3-none-linux_x86_64.whl"));
  bytes.resize(bytes.size() / 2);
  std::string path = dir.path + "/fixture_pkg-0.1-py3-none-linux_x86_64.whl";
  testing::write_bytes(path, bytes);
  auto record = index_wheel(path);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->package, "fixture-pkg");
  ASSERT_FALSE(record->errors.empty());
  EXPECT_NE(record->errors[0].find("zip"), std::string::npos) << record->errors[0];
  EXPECT_EQ(record->sha256.size(), 64u);
}

TEST(IndexWheel, NotAWheelName) {
  auto record = index_wheel("/nonexistent/libfoo.so");
  ASSERT_FALSE(record);
  EXPECT_NE(record.error().what.find("not a wheel's file name"), std::string::npos);
  auto missing = index_wheel("/nonexistent/pkg-1.0-py3-none-any.whl");
  ASSERT_TRUE(missing);  // named like a wheel: a record saying it cannot be read
  ASSERT_EQ(missing->errors.size(), 1u);
  EXPECT_NE(missing->errors[0].find("/nonexistent/pkg-1.0-py3-none-any.whl"), std::string::npos);
}

// ---- records made by hand for verdicts
// -----------------------------------------------------------

UnitSignature unit(std::initializer_list<const char*> images, size_t count = 1) {
  UnitSignature u;
  for (const char* text : images) u.images.push_back(*IndexedImage::parse(text));
  std::sort(u.images.begin(), u.images.end());
  u.count = count;
  return u;
}

IndexedFile file(const std::string& path, std::vector<UnitSignature> units) {
  IndexedFile f;
  f.path = path;
  f.size = 1000;
  for (auto& u : units) f.images += u.images.size() * u.count;
  f.units = std::move(units);
  return f;
}

WheelRecord record_of(std::vector<IndexedFile> files) {
  WheelRecord r;
  r.package = "demo";
  r.version = "1.0";
  r.filename = "demo-1.0-py3-none-manylinux_2_28_x86_64.whl";
  r.python_tag = "py3";
  r.abi_tag = "none";
  r.platform_tag = "manylinux_2_28_x86_64";
  r.machine = "x86_64";
  r.sha256 = std::string(64, 'a');
  r.files = std::move(files);
  return r;
}

Target target(const char* name) {
  auto t = resolve_target(name);
  EXPECT_TRUE(t) << name;
  return *t;
}

// bitsandbytes-like: one library per CUDA runtime; only the cuda128 one has sm_120.
TEST(JudgeWheel, BestRuntimeVariantDecides) {
  auto r = record_of(
      {file("bnb/libbitsandbytes_cuda118.so", {unit({"sm_80", "sm_90"}, 12)}),
       file("bnb/libbitsandbytes_cuda128.so", {unit({"sm_80", "sm_90", "sm_100", "sm_120"}, 12)}),
       file("bnb/libbitsandbytes_cpu.so", {})});
  auto v = judge_wheel(r, target("RTX 5090"));
  EXPECT_EQ(v.fit, Fit::kNative);
  EXPECT_EQ(v.variant, "bnb/libbitsandbytes_cuda128.so");
  EXPECT_EQ(v.files.size(), 2u);
  // On an H100 both run; the newest variant is named.
  auto h = judge_wheel(r, target("H100 SXM"));
  EXPECT_EQ(h.fit, Fit::kNative);
  EXPECT_EQ(h.variant, "bnb/libbitsandbytes_cuda128.so");
  // Without the cuda128 library nothing runs on the RTX 5090.
  r.files.erase(r.files.begin() + 1);
  EXPECT_EQ(judge_wheel(r, target("RTX 5090")).fit, Fit::kNoImage);
}

// vLLM-like: an FA3 library with only sm_90a code does not decide the verdict on other GPUs.
TEST(JudgeWheel, ArchGatedFilesDoNotDecideElsewhere) {
  auto r = record_of({file("pkg/_C.so", {unit({"sm_80", "sm_90", "sm_120"}, 40)}),
                      file("pkg/_fa3_C.so", {unit({"sm_90a"}, 30)})});
  auto blackwell = judge_wheel(r, target("RTX 5090"));
  EXPECT_EQ(blackwell.fit, Fit::kNative);
  ASSERT_EQ(blackwell.files.size(), 2u);
  EXPECT_TRUE(blackwell.files[1].specialized_elsewhere);
  auto hopper = judge_wheel(r, target("H100 SXM"));
  EXPECT_EQ(hopper.fit, Fit::kNative);
  EXPECT_FALSE(hopper.files[1].specialized_elsewhere);
  // An Ampere GPU: the general library runs, FA3 is Hopper's.
  EXPECT_EQ(judge_wheel(r, target("A100")).fit, Fit::kNative);
  // A wheel of nothing but other GPUs' a-code runs nowhere else.
  auto only_gated = record_of({file("pkg/_fa3_C.so", {unit({"sm_90a"}, 30)})});
  EXPECT_EQ(judge_wheel(only_gated, target("RTX 5090")).fit, Fit::kNoImage);
}

TEST(JudgeWheel, PtxOnlyNamesTheDriverItNeeds) {
  auto r = record_of({file("pkg/lib.so", {unit({"sm_80", "sm_90", "compute_90@8.4"}, 5)})});
  auto v = judge_wheel(r, target("RTX 5090"));
  EXPECT_EQ(v.fit, Fit::kPtxJit);
  ASSERT_TRUE(v.driver_cuda_needed);
  // compatibility-rules: PTX ISA 8.4 came with CUDA 12.4.
  EXPECT_EQ(*v.driver_cuda_needed, (Version{12, 4}));
  EXPECT_NE(v.summary.find("12.4"), std::string::npos) << v.summary;
  // A driver for CUDA 12.2 predates the RTX 5090 (sm_120 needs 12.8): the driver decides.
  auto old = resolve_target("RTX 5090", "12.2");
  ASSERT_TRUE(old);
  auto too_old = judge_wheel(r, *old);
  EXPECT_EQ(too_old.fit, Fit::kDriverTooOld);
  EXPECT_EQ(too_old.package.code_fit, Fit::kUnsupportedPtx);  // ISA 8.4 is newer than 12.2 too
  EXPECT_NE(too_old.summary.find("sm_120 needs a driver for CUDA 12.8 or newer (570.26 or newer)"),
            std::string::npos)
      << too_old.summary;
  // On an H100 with that driver, only compute_80 PTX of ISA 8.4 (CUDA 12.4) cannot be compiled.
  auto ampere_ptx = record_of({file("pkg/lib.so", {unit({"sm_80", "compute_80@8.4"}, 5)})});
  auto h100 = resolve_target("H100", "12.2");
  ASSERT_TRUE(h100);
  EXPECT_EQ(judge_wheel(ampere_ptx, *h100).fit, Fit::kUnsupportedPtx);
}

TEST(JudgeWheel, NoDeviceCode) {
  auto v = judge_wheel(record_of({}), target("RTX 5090"));
  EXPECT_FALSE(v.has_device_code);
  EXPECT_EQ(v.fit, Fit::kNoImage);
  EXPECT_EQ(v.summary, "no device code");
}

TEST(JudgeWheel, RebuiltInventoryKeepsUnitsAndPrelink) {
  UnitSignature pre = unit({"sm_80", "compute_80@8.0"}, 2);
  pre.prelink = true;
  UnitSignature bare = unit({"sm_90"});
  bare.bare = true;
  auto inv = rebuild_inventory(file("x.so", {unit({"sm_75"}, 3), pre, bare}));
  EXPECT_EQ(inv.containers.size(), 5u);  // 3 + 2 containers; the bare image has none
  EXPECT_EQ(inv.images.size(), 3u + 4u + 1u);
  EXPECT_TRUE(inv.containers[3].relocatable);
  EXPECT_FALSE(inv.images.back().in_container);
}

// ---- JSON
// ----------------------------------------------------------------------------------------

TEST(IndexJson, RoundTrip) {
  WheelIndex index;
  index.built = "2026-11-25";
  index.tool_version = "0.0.0";
  index.rebuild = "scripts/refresh-wheel-index.sh";
  index.platforms = {"linux_x86_64"};
  UnitSignature pre = unit({"sm_80", "compute_80@8.0"}, 2);
  pre.prelink = true;
  auto r = record_of({file("a.so", {unit({"sm_75"}, 3), pre})});
  r.requires_dist = {"torch==2.9.0",
                     "nvidia-cuda-runtime-cu12==12.8.90; platform_system == \"Linux\""};
  r.cuda = "12.8";
  r.cuda_evidence = "requires nvidia-cuda-runtime-cu12==12.8.90";
  r.sass = {"sm_75", "sm_80"};
  r.ptx = {"compute_80@8.0"};
  r.errors = {"zip: odd"};
  index.wheels.push_back(r);
  index.failures.push_back({"flash-attn", "", "", "list", "no binary wheels"});
  auto j = to_json(index);
  EXPECT_EQ(j["schema"], "smcompat.index/1");
  auto back = wheel_index_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back->wheels, index.wheels);
  EXPECT_EQ(back->failures, index.failures);
  EXPECT_EQ(back->built, index.built);
  EXPECT_EQ(back->platforms, index.platforms);
}

TEST(IndexJson, ErrorsNameTheRow) {
  auto j = to_json(WheelIndex{});
  j["wheels"] = nlohmann::json::array({to_json(record_of({}))});
  j["wheels"][0].erase("sha256");
  auto bad = wheel_index_from_json(j, "idx.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().file, "idx.json");
  EXPECT_NE(bad.error().what.find("wheels[0]"), std::string::npos) << bad.error().what;
  EXPECT_NE(bad.error().what.find("demo-1.0-py3-none-manylinux_2_28_x86_64.whl"),
            std::string::npos);
  EXPECT_NE(bad.error().what.find("missing \"sha256\""), std::string::npos);

  j = to_json(WheelIndex{});
  j["wheels"] = nlohmann::json::array({to_json(record_of({file("a.so", {unit({"sm_75"})})}))});
  j["wheels"][0]["files"][0]["units"][0]["images"] = {"gfx90a"};
  bad = wheel_index_from_json(j, "idx.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().what.find("'gfx90a' is not a target"), std::string::npos);

  j = to_json(WheelIndex{});
  j["schema"] = "smcompat.scan/2";
  bad = wheel_index_from_json(j, "idx.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().what.find("expected \"smcompat.index/1\""), std::string::npos);

  auto missing = read_wheel_index("/nonexistent/index.json");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().file, "/nonexistent/index.json");
}

TEST(IndexJson, ShippedIndexParses) {
  std::ifstream in(std::string(SMCOMPAT_SOURCE_DIR) + "/data/wheel_index.json");
  auto j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  auto parsed = wheel_index_from_json(j, "data/wheel_index.json");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(parsed->wheels.size(), builtin_wheel_index().wheels.size());
}

// ---- merging
// -------------------------------------------------------------------------------------

TEST(MergeIndexes, SortsDeduplicatesAndDropsSettledFailures) {
  auto make = [](const char* version, char hash) {
    auto r = record_of({});
    r.version = version;
    r.filename = std::string("demo-") + version + "-py3-none-manylinux_2_28_x86_64.whl";
    r.sha256 = std::string(64, hash);
    return r;
  };
  WheelIndex a, b;
  a.built = "2026-11-24";
  b.built = "2026-11-25";
  a.platforms = {"linux_x86_64"};
  b.platforms = {"linux_x86_64", "linux_aarch64"};
  a.wheels = {make("1.10", 'c'), make("1.9", 'b')};
  b.wheels = {make("1.9", 'b'), make("1.2", 'a')};
  a.failures = {{"demo", "1.2", "linux_x86_64", "download", "timed out"},
                {"demo", "1.3", "linux_x86_64", "resolve", "no wheel"}};
  auto merged = merge_indexes({a, b});
  ASSERT_EQ(merged.wheels.size(), 3u);
  EXPECT_EQ(merged.wheels[0].version, "1.2");
  EXPECT_EQ(merged.wheels[1].version, "1.9");
  EXPECT_EQ(merged.wheels[2].version, "1.10");
  ASSERT_EQ(merged.failures.size(), 1u);  // 1.2 is indexed now
  EXPECT_EQ(merged.failures[0].version, "1.3");
  EXPECT_EQ(merged.built, "2026-11-25");
  EXPECT_EQ(merged.platforms, (std::vector<std::string>{"linux_aarch64", "linux_x86_64"}));
}

}  // namespace
}  // namespace smcompat

namespace smcompat {
namespace {

// A record of `package` for `machine` with the given requirements, bundled runtimes and files,
// after infer_cuda().
WheelRecord inferred(std::string package, std::string machine,
                     std::vector<std::string> requires_dist,
                     std::vector<std::string> runtime_libraries = {},
                     const std::vector<std::string>& files = {}) {
  WheelRecord r;
  r.package = std::move(package);
  r.machine = std::move(machine);
  r.requires_dist = std::move(requires_dist);
  r.runtime_libraries = std::move(runtime_libraries);
  for (const auto& path : files) {
    IndexedFile f;
    f.path = path;
    r.files.push_back(f);
  }
  infer_cuda(r);
  return r;
}

// What infer_cuda() found: the CUDA runtime and its evidence.
using Found = std::pair<std::string, std::string>;
Found found(const WheelRecord& r) { return {r.cuda, r.cuda_evidence}; }

// The CUDA runtime a wheel needs, from what real wheels say (torch 2.8.0 and 2.11.0 on PyPI,
// bitsandbytes 0.50.2, nvidia-cublas-cu12, cupy-cuda12x: data/wheel_index.json).
TEST(InferCuda, FromRequirementsWhoseMarkersHold) {
  WheelRecord r = inferred(
      "torch", "x86_64",
      {"nvidia-cuda-nvrtc-cu12==12.8.93; platform_system == \"Linux\" and platform_machine == "
       "\"x86_64\"",
       "nvidia-cuda-runtime-cu12==12.8.90; platform_system == \"Linux\" and platform_machine == "
       "\"x86_64\""});
  EXPECT_EQ(found(r), Found("12.8", "requires nvidia-cuda-runtime-cu12==12.8.90"));
  // The same requirements on the aarch64 wheel (CPU-only on PyPI before 2.11): they do not apply.
  r.machine = "aarch64";
  infer_cuda(r);
  EXPECT_EQ(found(r), Found("", ""));

  WheelRecord t = inferred(
      "torch", "aarch64",
      {"cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,"
       "nvtx]==13.0.2; platform_system == \"Linux\"",
       "nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\""});
  EXPECT_EQ(found(t), Found("13.0", "requires cuda-toolkit==13.0.2"));

  WheelRecord bundled = inferred("onnxruntime-gpu", "x86_64", {}, {"libcudart.so.12"});
  EXPECT_EQ(found(bundled), Found("12", "bundles libcudart.so.12"));

  WheelRecord named = inferred("cupy-cuda12x", "x86_64", {});
  EXPECT_EQ(found(named), Found("12", "-cuda12 in the package name"));
  named.package = "nvidia-cublas-cu12";
  infer_cuda(named);
  EXPECT_EQ(found(named), Found("12", "-cu12 in the package name"));

  WheelRecord variants = inferred(
      "bitsandbytes", "x86_64", {}, {},
      {"bitsandbytes/libbitsandbytes_cuda118.so", "bitsandbytes/libbitsandbytes_cuda130.so",
       "bitsandbytes/libbitsandbytes_cuda124.so", "bitsandbytes/libbitsandbytes_cpu.so"});
  EXPECT_EQ(variants.cuda, "11.8;12.4;13.0");
}

// Requirement lines as the shipped index records them (data/wheel_index.json): an "==" in the
// marker is no pin (jax-cuda12-plugin's and onnxruntime-gpu's runtime used to read `"linux"` and
// `"cuda"`); NVIDIA's unsuffixed wheels are the CUDA 13 generation; auditwheel renames bundled
// runtimes.
TEST(InferCuda, MarkersUnsuffixedWheelsAndRenamedRuntimes) {
  auto guess = [](std::string package, std::vector<std::string> requires_dist,
                  std::vector<std::string> runtimes = {}) {
    return infer_cuda_runtime({package, "x86_64", requires_dist, runtimes, {}});
  };
  auto jax12 = guess("jax-cuda12-plugin",
                     {"nvidia-cuda-runtime-cu12>=12.1.105; sys_platform == \"linux\" and extra == "
                      "\"with-cuda\""});
  EXPECT_EQ(jax12.cuda, "12");
  EXPECT_EQ(jax12.evidence, "requires nvidia-cuda-runtime-cu12>=12.1.105");
  auto ort = guess("onnxruntime-gpu", {"nvidia-cuda-runtime-cu12~=12.0; extra == \"cuda\""});
  EXPECT_EQ(ort.cuda, "12");
  auto jax13 = guess("jax-cuda13-plugin",
                     {"nvidia-cuda-runtime>=13.0.48; sys_platform == \"linux\" and extra == "
                      "\"with-cuda\""});
  EXPECT_EQ(jax13.cuda, "13");
  EXPECT_EQ(jax13.evidence,
            "requires nvidia-cuda-runtime, an unsuffixed NVIDIA wheel: CUDA 13 or later");
  auto pinned = guess("x", {"nvidia-cuda-runtime==13.0.96; platform_system == \"Linux\""});
  EXPECT_EQ(pinned.cuda, "13.0");
  EXPECT_EQ(guess("nvidia-cublas", {"nvidia-cuda-nvrtc"}).cuda, "13");
  EXPECT_EQ(guess("nvidia_cufft", {}).cuda, "13");  // 12.2.0.57 is CUDA 13's cuFFT
  EXPECT_EQ(guess("nvidia-ml-py", {}).cuda, "");    // not a CUDA component
  auto renamed = guess("torchvision", {"torch (==2.10.0)"}, {"libcudart.3eda8113.so.13"});
  EXPECT_EQ(renamed.cuda, "13");
  EXPECT_EQ(renamed.evidence, "bundles libcudart.3eda8113.so.13");
  EXPECT_EQ(bundled_cuda_runtimes({"torchvision.libs/libcudart.3eda8113.so.13", "a/libcudart.so",
                                   "b/libcudart.so.12.8.90", "c/libcudart_static.a"}),
            (std::vector<std::string>{"libcudart.3eda8113.so.13", "libcudart.so.12.8.90"}));
  // A list of per-runtime libraries is no single need; one version is.
  EXPECT_FALSE(runtime_need({"11.8;12.4", "one library per CUDA runtime"}));
  ASSERT_TRUE(runtime_need(renamed));
  EXPECT_EQ(runtime_need(renamed)->cuda.major, 13);
}

TEST(InferCuda, MarkerReading) {
  struct Case {
    const char* requirement;
    const char* machine;
    bool applies;
  };
  for (const Case& c :
       std::initializer_list<Case>{{"x==1", "aarch64", true},
                                   {"x==1; platform_machine == 'aarch64'", "aarch64", true},
                                   {"x==1; platform_machine == 'aarch64'", "x86_64", false},
                                   {"x==1; platform_machine != \"x86_64\"", "x86_64", false},
                                   {"x==1; platform_machine != \"x86_64\"", "aarch64", true},
                                   {"x==1; platform_machine == \"x86_64\"", "any", true},
                                   {"x==1; python_version < \"3.15\"", "x86_64", true}}) {
    SCOPED_TRACE(std::string(c.requirement) + " on " + c.machine);
    EXPECT_EQ(marker_applies(c.requirement, c.machine), c.applies);
  }
}

}  // namespace
}  // namespace smcompat

namespace smcompat {
namespace {

FileInventory bare_cubin(const std::string& member, const char* target, uint64_t size) {
  FileInventory inv;
  inv.path = "pkg-1.0-py3-none-any.whl";
  inv.member = member;
  inv.format = FileFormat::kCubin;
  inv.size = size;
  DeviceImage image;
  image.target = *SmTarget::parse(target);
  image.in_container = false;
  inv.images.push_back(image);
  return inv;
}

// flashinfer-cubin ships ~12,000 standalone cubins per wheel: those of one directory with the
// same units become one entry with a count; other files keep their own rows.
TEST(CompactFiles, StandaloneImagesOfOneDirectoryAreGrouped) {
  WheelRecord r;
  FileInventory wheel;
  wheel.path = "pkg-1.0-py3-none-any.whl";
  std::vector<FileInventory> inventories = {wheel,
                                            bare_cubin("pkg/cubins/a/k1.cubin", "sm_100a", 10),
                                            bare_cubin("pkg/cubins/a/k2.cubin", "sm_100a", 20),
                                            bare_cubin("pkg/cubins/a/k3.cubin", "sm_100a", 30),
                                            bare_cubin("pkg/cubins/a/k4.cubin", "sm_120", 40),
                                            bare_cubin("pkg/cubins/b/k1.cubin", "sm_100a", 50)};
  add_inventories(r, inventories);
  ASSERT_EQ(r.files.size(), 3u);
  EXPECT_EQ(r.files[0].path, "pkg/cubins/a/*.cubin");
  EXPECT_EQ(r.files[0].count, 3u);
  EXPECT_EQ(r.files[0].size, 60u);
  EXPECT_EQ(r.files[0].images, 3u);
  EXPECT_EQ(r.files[1].path, "pkg/cubins/a/k4.cubin");  // alone with its units: its own name
  EXPECT_EQ(r.files[1].count, 1u);
  EXPECT_EQ(r.files[2].path, "pkg/cubins/b/k1.cubin");
  EXPECT_EQ(r.sass, (std::vector<std::string>{"sm_100a", "sm_120"}));
  // The count survives JSON, and the verdict is the same as for the files one by one.
  auto back = wheel_record_from_json(nlohmann::json::parse(to_json(r).dump()));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->files, r.files);
  auto t = resolve_target("B200");
  ASSERT_TRUE(t);
  EXPECT_EQ(judge_wheel(r, *t).fit, Fit::kNative);
}

}  // namespace
}  // namespace smcompat
