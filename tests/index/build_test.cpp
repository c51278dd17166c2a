// build_wheel_index() end to end against a local PEP 503 repository of real wheels
// (tests/index/fixtures/make_index.py, built at build time): pip lists, resolves and downloads
// from `--index-url file://.../simple` exactly as it would from PyPI. What the records must say
// comes from the fixture's nvcc flags and its file facts (expected.json), the wheel hashes from
// Python's hashlib, never from smcompat. Every bad input of the repository must become exactly
// one recorded failure (or, for a library that cannot be read, a record with a file error) while
// the good package is still indexed; packages with x86-64 wheels only have, besides, their one
// `list` failure for aarch64. Also: --last, specifiers, platform sets, resume, shards and merge,
// keep, checkpoints, and the stats and progress a build reports.
#include "smcompat/index/build.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "smcompat/index/record.hpp"
#include "support/shell.hpp"

namespace smcompat {
namespace {

namespace fs = std::filesystem;

std::string repo_dir() { return SMCOMPAT_INDEX_FIXTURE_DIR; }

using testshell::quote;
using testshell::run;

// The hex SHA-256 of a file, by Python's hashlib (independent of the library's libcrypto use).
std::string sha256_of(const fs::path& file) {
  auto [rc, out] =
      run("python3 -c 'import hashlib,sys; "
          "print(hashlib.sha256(open(sys.argv[1],\"rb\").read()).hexdigest())' " +
          quote(file.string()));
  EXPECT_EQ(rc, 0) << out;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// Empty when the tests can run; otherwise why not (for GTEST_SKIP). Only a missing pip is a skip;
// a repository that was not built while nvcc and python3 exist is a build failure, not a skip.
std::string cannot_run_reason() {
  if (!fs::exists(repo_dir() + "/stamp"))
    return "index test repository not built in " + repo_dir() +
           " (needs nvcc and python3 when CMake runs; target smcompat_index_fixtures)";
  static const std::pair<int, std::string> pip = run("python3 -m pip --version");
  if (pip.first != 0)
    return "`python3 -m pip --version` failed (exit " + std::to_string(pip.first) +
           "): the index build needs pip: " + pip.second;
  return {};
}
#define REQUIRE_PIP_AND_REPO()               \
  do {                                       \
    std::string why_ = cannot_run_reason();  \
    if (!why_.empty()) GTEST_SKIP() << why_; \
  } while (0)

const nlohmann::json& expected() {
  static const nlohmann::json j = [] {
    std::ifstream in(repo_dir() + "/expected.json");
    return in ? nlohmann::json::parse(in) : nlohmann::json::object();
  }();
  return j;
}

// A fresh directory under the system's temporary directory, removed with the object.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    std::string t = (fs::temp_directory_path() / ("smcompat-index-" + tag + "-XXXXXX")).string();
    path = ::mkdtemp(t.data()) ? fs::path(t) : fs::path();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

std::vector<fs::path> wheels_under(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".whl") out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

IndexBuildOptions options_for(const std::vector<std::string>& requests, const fs::path& cache) {
  IndexBuildOptions o;
  for (const auto& r : requests) {
    auto req = PackageRequest::parse(r);
    EXPECT_TRUE(req.ok()) << r << ": " << (req.ok() ? "" : req.error().to_string());
    if (req.ok()) o.packages.push_back(*req);
  }
  o.python = "python3";
  o.pip_args = {"--index-url", "file://" + repo_dir() + "/simple"};
  o.cache_dir = cache.string();
  o.jobs = 2;
  return o;
}

IndexBuildResult build_or_fail(const IndexBuildOptions& o) {
  auto r = build_wheel_index(o);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? std::move(*r) : IndexBuildResult{};
}

std::string describe(const std::vector<IndexFailure>& failures) {
  std::string s;
  for (const auto& f : failures)
    s += "\n  {" + f.package + ", " + f.version + ", " + f.platform + ", " + f.stage + ": " +
         f.message + "}";
  return s.empty() ? " (none)" : s;
}

// Failures without their messages: pip's messages can name its temporary directories
// ("Wheel ... located at /tmp/pip-unpack-XXXX/... is invalid"), which differ from run to run.
std::vector<std::string> keys(const std::vector<IndexFailure>& failures) {
  std::vector<std::string> out;
  for (const auto& f : failures)
    out.push_back(f.package + " " + f.version + " " + f.platform + " " + f.stage);
  return out;
}

std::string describe(const std::vector<WheelRecord>& wheels) {
  std::string s;
  for (const auto& w : wheels) s += "\n  " + w.filename + (w.errors.empty() ? "" : " (errors)");
  return s.empty() ? " (none)" : s;
}

std::vector<std::string> strings(const nlohmann::json& a) {
  std::vector<std::string> v;
  for (const auto& x : a) v.push_back(x.get<std::string>());
  return v;
}

const WheelRecord* find_wheel(const WheelIndex& index, const std::string& filename) {
  for (const auto& w : index.wheels)
    if (w.filename == filename) return &w;
  return nullptr;
}

std::vector<std::string> versions_of(const WheelIndex& index, const std::string& package,
                                     const std::string& machine = {}) {
  std::set<std::string> v;
  for (const auto& w : index.wheels)
    if (w.package == package && (machine.empty() || w.machine == machine)) v.insert(w.version);
  return {v.begin(), v.end()};
}

// A build that failed nowhere: `package` in exactly `versions` (ascending), `wheels` wheels in all.
void expect_clean_build(const WheelIndex& index, const std::string& package,
                        const std::vector<std::string>& versions, size_t wheels) {
  EXPECT_EQ(versions_of(index, package), versions);
  EXPECT_EQ(index.wheels.size(), wheels);
  EXPECT_TRUE(index.failures.empty()) << describe(index.failures);
}

}  // namespace
void PrintTo(const UnitSignature& u, std::ostream* os) {
  *os << "{";
  for (const auto& i : u.images) *os << i.to_string() << " ";
  *os << "x" << u.count << (u.prelink ? " prelink" : "") << (u.bare ? " bare" : "") << "}";
}
namespace {

// The signature of a unit, images sorted as the index keeps them.
UnitSignature unit(const std::vector<std::string>& images, size_t count = 1) {
  UnitSignature u;
  for (const auto& i : images) {
    auto parsed = IndexedImage::parse(i);
    EXPECT_TRUE(parsed.has_value()) << i;
    if (parsed) u.images.push_back(*parsed);
  }
  std::sort(u.images.begin(), u.images.end());
  u.count = count;
  return u;
}

// Every package of the repository (but smc-newest-sdist, which has its own test) and one it does
// not have; both platform sets (the default).
const std::vector<std::string> kAll = {"smc-good",      "smc-sdist-only", "smc-missing-file",
                                       "smc-truncated", "smc-broken-so",  "smc-pure",
                                       "nosuch-pkg"};

// The checks on one build of every package (pip is slow: one build serves them all). Each is a
// function over that build; FullBuildOfTheRepository below runs them in turn.
struct FullBuild {
  IndexBuildResult result;
  fs::path cache;
  std::vector<IndexBuildProgress> progress;
};

void GoodWheelsAreRecordedExactly(const FullBuild& b) {
  const nlohmann::json& ex = expected();
  const std::string isa = ex["ptx_isa"];
  size_t good = 0;
  for (const auto& [filename, w] : ex["wheels"].items()) {
    if (w["package"] != "smc-good") continue;
    ++good;
    SCOPED_TRACE(filename);
    const WheelRecord* r = find_wheel(b.result.index, filename);
    ASSERT_NE(r, nullptr) << "not indexed; wheels:" << describe(b.result.index.wheels)
                          << "\nfailures:" << describe(b.result.index.failures);
    fs::path file = fs::path(repo_dir()) / "files" / filename;
    const bool arm = filename.find("aarch64") != std::string::npos;
    const std::string tag = arm ? "manylinux_2_28_aarch64" : "manylinux_2_28_x86_64";
    const nlohmann::json& lib = ex["libs"][w["lib"].get<std::string>()];
    EXPECT_EQ(r->package, "smc-good");
    EXPECT_EQ(r->version, w["version"]);
    EXPECT_EQ(r->python_tag, "py3");
    EXPECT_EQ(r->abi_tag, "none");
    EXPECT_EQ(r->platform_tag, tag);
    EXPECT_EQ(r->machine, arm ? "aarch64" : "x86_64");
    EXPECT_EQ(r->size, fs::file_size(file));
    EXPECT_EQ(r->sha256, sha256_of(file));
    EXPECT_EQ(r->members, w["members"].get<size_t>());
    // Only the lines that pin torch or name NVIDIA/CUDA wheels; numpy is left out.
    std::vector<std::string> pins;
    for (const auto& req : strings(w["requires"]))
      if (!req.starts_with("numpy")) pins.push_back(req);
    EXPECT_EQ(r->requires_dist, pins);
    std::string runtime_pin = pins.at(1);  // nvidia-cuda-runtime-cu12==12.X.Y
    std::string runtime = runtime_pin.substr(runtime_pin.find("==") + 2);
    EXPECT_EQ(r->cuda, runtime.substr(0, runtime.rfind('.')));
    EXPECT_EQ(r->cuda_evidence, "requires " + runtime_pin);

    std::vector<std::string> sass = strings(lib["sass"]), ptx;
    for (const auto& p : strings(lib["ptx"])) ptx.push_back(p + "@" + isa);
    EXPECT_EQ(r->sass, sass);
    EXPECT_EQ(r->ptx, ptx);
    EXPECT_TRUE(r->lto.empty());
    EXPECT_TRUE(r->errors.empty()) << r->errors.front();
    // One library: nvcc's container with every -gencode target, and the kernel-less module nvcc
    // links in with one SASS image per target (docs/testing.md, fixture `app`). The kernel-less
    // images are counted in `images` but are no unit: nothing in them can be launched.
    ASSERT_EQ(r->files.size(), 1u);
    const IndexedFile& f = r->files[0];
    EXPECT_EQ(f.path, w["member"]);
    EXPECT_EQ(f.size, lib["size"].get<uint64_t>());
    EXPECT_EQ(f.images, 2 * sass.size() + ptx.size());
    std::vector<std::string> all = sass;
    all.insert(all.end(), ptx.begin(), ptx.end());
    EXPECT_EQ(f.units, std::vector<UnitSignature>{unit(all)});
    EXPECT_TRUE(f.errors.empty());
  }
  EXPECT_EQ(good, 5u);
  EXPECT_EQ(versions_of(b.result.index, "smc-good", "x86_64"),
            (std::vector<std::string>{"0.10.0", "0.9.0", "1.0.0"}));
  EXPECT_EQ(versions_of(b.result.index, "smc-good", "aarch64"),
            (std::vector<std::string>{"0.10.0", "1.0.0"}));
}

void TargetsAddedAndDroppedBetweenVersionsAreVisible(const FullBuild& b) {
  auto sass_of = [&](const std::string& version) {
    for (const auto& w : b.result.index.wheels)
      if (w.package == "smc-good" && w.version == version && w.machine == "x86_64") return w.sass;
    return std::vector<std::string>{};
  };
  EXPECT_EQ(sass_of("0.9.0"), (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_EQ(sass_of("0.10.0"), (std::vector<std::string>{"sm_80", "sm_90", "sm_120"}));  // added
  EXPECT_EQ(sass_of("1.0.0"), (std::vector<std::string>{"sm_90", "sm_120"}));  // sm_80 dropped
}

void WheelsAreInCanonicalOrder(const FullBuild& b) {
  // By package, then PEP 440 version (0.9.0 < 0.10.0 < 1.0.0), then file name.
  std::vector<std::string> names;
  for (const auto& w : b.result.index.wheels) names.push_back(w.filename);
  EXPECT_EQ(names, (std::vector<std::string>{
                       expected()["broken_so_file"].get<std::string>(),
                       "smc_good-0.9.0-py3-none-manylinux_2_28_x86_64.whl",
                       "smc_good-0.10.0-py3-none-manylinux_2_28_aarch64.whl",
                       "smc_good-0.10.0-py3-none-manylinux_2_28_x86_64.whl",
                       "smc_good-1.0.0-py3-none-manylinux_2_28_aarch64.whl",
                       "smc_good-1.0.0-py3-none-manylinux_2_28_x86_64.whl",
                       "smc_pure-1.0.0-py3-none-any.whl",
                   }));
  EXPECT_EQ(b.result.index.platforms, (std::vector<std::string>{"linux_aarch64", "linux_x86_64"}));
  EXPECT_EQ(b.result.index.tool_version.empty(), false);
  EXPECT_EQ(b.result.index.built.size(), 10u) << b.result.index.built;  // YYYY-MM-DD
}

void PureWheelIsOneRecordWithoutDeviceCode(const FullBuild& b) {
  const std::string filename = "smc_pure-1.0.0-py3-none-any.whl";
  const WheelRecord* r = find_wheel(b.result.index, filename);
  ASSERT_NE(r, nullptr) << describe(b.result.index.wheels);
  fs::path file = fs::path(repo_dir()) / "files" / filename;
  EXPECT_EQ(r->package, "smc-pure");
  EXPECT_EQ(r->platform_tag, "any");
  EXPECT_EQ(r->machine, "any");
  EXPECT_EQ(r->sha256, sha256_of(file));
  EXPECT_EQ(r->size, fs::file_size(file));
  EXPECT_EQ(r->members, 4u);
  EXPECT_TRUE(r->requires_dist.empty());  // numpy only
  EXPECT_EQ(r->cuda, "");
  EXPECT_TRUE(r->sass.empty() && r->ptx.empty() && r->lto.empty() && r->files.empty());
  EXPECT_TRUE(r->errors.empty());
  // The same file serves both platform sets: indexed once.
  EXPECT_EQ(std::count_if(b.result.index.wheels.begin(), b.result.index.wheels.end(),
                          [](const WheelRecord& w) { return w.package == "smc-pure"; }),
            1);
}

void UnreadableLibraryIsARecordWithAFileError(const FullBuild& b) {
  const std::string filename = expected()["broken_so_file"];
  const WheelRecord* r = find_wheel(b.result.index, filename);
  ASSERT_NE(r, nullptr) << describe(b.result.index.wheels) << describe(b.result.index.failures);
  EXPECT_TRUE(r->errors.empty()) << "the wheel itself is a valid zip";
  EXPECT_EQ(r->sha256, sha256_of(fs::path(repo_dir()) / "files" / filename));
  ASSERT_EQ(r->files.size(), 1u);
  EXPECT_EQ(r->files[0].path, expected()["broken_so_member"]);
  EXPECT_EQ(r->files[0].size, expected()["broken_so_size"].get<uint64_t>());
  ASSERT_EQ(r->files[0].errors.size(), 1u);
  // The library was cut at half its size: its section header table is past the end. The error
  // is the inventory's own, without the path (record.hpp).
  EXPECT_NE(r->files[0].errors[0].find("lies past the end of the"), std::string::npos)
      << r->files[0].errors[0];
  EXPECT_EQ(r->files[0].errors[0].find(filename), std::string::npos) << r->files[0].errors[0];
}

void EachBadInputIsExactlyOneRecordedFailure(const FullBuild& b) {
  const auto& failures = b.result.index.failures;
  SCOPED_TRACE("failures:" + describe(failures));
  // The one failure of `package` for `platform` ("" = the whole package) goes to `check`; none
  // or several is a test failure.
  auto one = [&](const std::string& package, const std::string& platform, auto check) {
    std::vector<IndexFailure> v;
    for (const auto& f : failures)
      if (f.package == package && f.platform == platform) v.push_back(f);
    EXPECT_EQ(v.size(), 1u) << package << " [" << platform << "]";
    if (v.size() == 1) check(v[0]);
  };
  auto none = [&](const std::string& package) {
    for (const auto& f : failures) EXPECT_NE(f.package, package) << f.message;
  };
  auto contains = [](const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
  };

  // A name the repository does not have: the whole package (no platform), at the list stage.
  one("nosuch-pkg", "", [&](const IndexFailure& f) {
    EXPECT_EQ(f.version, "");
    EXPECT_EQ(f.stage, "list");
    EXPECT_TRUE(contains(f.message, "nosuch-pkg")) << f.message;
    EXPECT_TRUE(contains(f.message, "No matching distribution")) << f.message;
  });

  // Only an sdist: no binary wheel for any platform; the whole package, once (record.hpp:
  // version "" when the whole package failed: unknown, no binary wheels).
  one("smc-sdist-only", "", [&](const IndexFailure& f) {
    EXPECT_EQ(f.version, "");
    EXPECT_EQ(f.stage, "list");
    EXPECT_TRUE(contains(f.message, "smc-sdist-only")) << f.message;
  });

  // A link whose file is missing: one failure for the x86-64 release, with pip's error naming
  // the file. pip 23 reads the wheel itself in its dry run when the link is a file:// URL (stage
  // resolve); a pip that resolves from the PEP 658 metadata alone fails at the download.
  one("smc-missing-file", "linux_x86_64", [&](const IndexFailure& f) {
    EXPECT_EQ(f.version, "1.0.0");
    EXPECT_TRUE(f.stage == "resolve" || f.stage == "download") << f.stage;
    EXPECT_TRUE(contains(f.message, expected()["missing_file"].get<std::string>())) << f.message;
  });

  // A wheel cut in half is not a zip: pip refuses it once it has it ("... is invalid"), in the
  // dry run (file:// links, as above) or at the download.
  one("smc-truncated", "linux_x86_64", [&](const IndexFailure& f) {
    EXPECT_EQ(f.version, "1.0.0");
    EXPECT_TRUE(f.stage == "resolve" || f.stage == "download") << f.stage;
    EXPECT_TRUE(contains(f.message, "is invalid")) << f.message;
    EXPECT_TRUE(contains(f.message, "smc-truncated")) << f.message;
  });

  // These three have x86-64 wheels only: for aarch64, pip lists nothing, a list failure each.
  for (const char* x86_only : {"smc-missing-file", "smc-truncated", "smc-broken-so"}) {
    one(x86_only, "linux_aarch64", [&](const IndexFailure& f) {
      EXPECT_EQ(f.version, "");
      EXPECT_EQ(f.stage, "list");
      EXPECT_TRUE(contains(f.message, x86_only)) << f.message;
      EXPECT_TRUE(contains(f.message, "linux_aarch64")) << f.message;
    });
  }

  // Nothing else failed: the good package, the pure wheel and the broken library are indexed
  // (smc-good has no aarch64 wheel of 0.9.0, and pip does not list it there: no failure).
  none("smc-good");
  none("smc-pure");
  EXPECT_EQ(failures.size(), 7u);
}

void StatsAndProgressCountTheWork(const FullBuild& b) {
  const IndexBuildStats& s = b.result.stats;
  // 8 work items, the releases that resolved to a wheel: smc-good 0.9.0, 0.10.0, 1.0.0 and
  // smc-broken-so 1.0.0 on x86-64; smc-good 0.10.0, 1.0.0 and smc-pure on aarch64; smc-pure on
  // x86-64. (smc-missing-file and smc-truncated fail while resolving: recorded failures, not
  // items.)
  EXPECT_EQ(s.items, 8u);
  EXPECT_EQ(s.wheels_indexed, b.result.index.wheels.size());
  // build.hpp: "already in `resume`, skipped by hash"; this build has no resume. (The pure wheel
  // serves both platform sets and is scanned once; that is not a wheel taken from `resume`.)
  EXPECT_EQ(s.wheels_reused, 0u);
  // Every failure of the index is one the build met (the CLI prints this count beside them).
  EXPECT_EQ(s.failures, b.result.index.failures.size());
  EXPECT_GT(s.bytes_downloaded, 0u);
  EXPECT_GE(s.seconds_total, s.seconds_scan);
  ASSERT_FALSE(b.progress.empty());
  EXPECT_EQ(b.progress.back().items_done, b.progress.back().items_total);
  EXPECT_EQ(b.progress.back().items_total, s.items);
}

void WithoutKeepNoWheelIsLeftInTheCache(const FullBuild& b) {
  EXPECT_TRUE(fs::exists(b.cache));
  EXPECT_TRUE(wheels_under(b.cache).empty()) << wheels_under(b.cache).front().string();
}

void ResumeReusesEveryWheelByHashAndDownloadsNothing(const FullBuild& b) {
  TempDir cache("resume");
  IndexBuildOptions o = options_for(kAll, cache.path);
  o.resume = &b.result.index;
  o.keep = true;  // anything downloaded would stay in the cache
  IndexBuildResult again = build_or_fail(o);
  // Every item whose wheel is in the index: the 7 wheels, and the pure wheel again for the
  // second platform set. The truncated wheel was never indexed: pip tries it again and fails.
  EXPECT_EQ(again.stats.wheels_reused, b.result.index.wheels.size() + 1);
  EXPECT_EQ(again.stats.wheels_indexed, 0u);
  EXPECT_EQ(again.stats.bytes_downloaded, 0u);
  EXPECT_TRUE(wheels_under(cache.path).empty()) << wheels_under(cache.path).front().string();
  EXPECT_EQ(again.index.wheels, b.result.index.wheels);
  EXPECT_EQ(keys(again.index.failures), keys(b.result.index.failures))
      << "again:" << describe(again.index.failures)
      << "\nfull:" << describe(b.result.index.failures);
  EXPECT_EQ(again.index.platforms, b.result.index.platforms);
  // pip's list errors are deterministic, so a resumed build says exactly the same about them
  // ("no release of nosuch-pkg for any platform (linux_x86_64, linux_aarch64): ...", each
  // platform named once although the resumed index brings its own platform list).
  auto list_failures = [](const WheelIndex& index) {
    std::vector<IndexFailure> v;
    for (const auto& f : index.failures)
      if (f.stage == "list") v.push_back(f);
    return v;
  };
  EXPECT_EQ(list_failures(again.index), list_failures(b.result.index))
      << "again:" << describe(list_failures(again.index))
      << "\nfull:" << describe(list_failures(b.result.index));
}

void ShardsPartitionTheWorkAndMergeToTheFullBuild(const FullBuild& b) {
  std::vector<WheelIndex> parts;
  std::set<std::string> seen;
  size_t items = 0;
  for (size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE("shard " + std::to_string(k + 1) + "/3");
    TempDir cache("shard");
    IndexBuildOptions o = options_for(kAll, cache.path);
    o.shard_index = k;
    o.shard_count = 3;
    IndexBuildResult r = build_or_fail(o);
    items += r.stats.items;
    EXPECT_GT(r.stats.items, 0u);
    // Items partition; a wheel can still be met by two shards when it serves both platform
    // sets (py3-none-any: one item per platform set, which may fall into different shards).
    for (const auto& w : r.index.wheels)
      EXPECT_TRUE(seen.insert(w.sha256).second || w.machine == "any")
          << w.filename << " indexed by two shards";
    parts.push_back(std::move(r.index));
  }
  EXPECT_EQ(items, b.result.stats.items);
  WheelIndex merged = merge_indexes(parts);
  EXPECT_EQ(merged.wheels, b.result.index.wheels)
      << "merged:" << describe(merged.wheels) << "\nfull:" << describe(b.result.index.wheels);
  EXPECT_EQ(keys(merged.failures), keys(b.result.index.failures))
      << "merged:" << describe(merged.failures) << "\nfull:" << describe(b.result.index.failures);
  EXPECT_EQ(merged.platforms, b.result.index.platforms);
  // The order of the parts does not matter, and merging again changes nothing.
  WheelIndex reversed = merge_indexes({parts[2], parts[1], parts[0]});
  EXPECT_EQ(reversed.wheels, merged.wheels);
  EXPECT_EQ(keys(reversed.failures), keys(merged.failures));
  WheelIndex twice = merge_indexes({merged, merged});
  EXPECT_EQ(twice.wheels, merged.wheels);
  EXPECT_EQ(twice.failures, merged.failures);
}

// The index survives its JSON form exactly (schema smcompat.index/1), real records included.
void JsonRoundTripIsExact(const FullBuild& b) {
  nlohmann::json j = to_json(b.result.index);
  EXPECT_EQ(j["schema"], kWheelIndexSchema);
  auto back = wheel_index_from_json(j, "full build");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->wheels, b.result.index.wheels);
  EXPECT_EQ(back->failures, b.result.index.failures);
  EXPECT_EQ(back->platforms, b.result.index.platforms);
  EXPECT_EQ(back->built, b.result.index.built);
  EXPECT_EQ(back->tool_version, b.result.index.tool_version);
  EXPECT_EQ(back->rebuild, b.result.index.rebuild);
}

TEST(IndexBuild, FullBuildOfTheRepository) {
  REQUIRE_PIP_AND_REPO();
  TempDir cache("full");
  FullBuild b;
  b.cache = cache.path;
  IndexBuildOptions o = options_for(kAll, cache.path);
  o.progress = [&](const IndexBuildProgress& p) { b.progress.push_back(p); };
  b.result = build_or_fail(o);
  using Check = void (*)(const FullBuild&);
  const std::pair<const char*, Check> checks[] = {
      {"GoodWheelsAreRecordedExactly", GoodWheelsAreRecordedExactly},
      {"JsonRoundTripIsExact", JsonRoundTripIsExact},
      {"TargetsAddedAndDroppedBetweenVersionsAreVisible",
       TargetsAddedAndDroppedBetweenVersionsAreVisible},
      {"WheelsAreInCanonicalOrder", WheelsAreInCanonicalOrder},
      {"PureWheelIsOneRecordWithoutDeviceCode", PureWheelIsOneRecordWithoutDeviceCode},
      {"UnreadableLibraryIsARecordWithAFileError", UnreadableLibraryIsARecordWithAFileError},
      {"EachBadInputIsExactlyOneRecordedFailure", EachBadInputIsExactlyOneRecordedFailure},
      {"StatsAndProgressCountTheWork", StatsAndProgressCountTheWork},
      {"WithoutKeepNoWheelIsLeftInTheCache", WithoutKeepNoWheelIsLeftInTheCache},
      {"ResumeReusesEveryWheelByHashAndDownloadsNothing",
       ResumeReusesEveryWheelByHashAndDownloadsNothing},
      {"ShardsPartitionTheWorkAndMergeToTheFullBuild",
       ShardsPartitionTheWorkAndMergeToTheFullBuild},
  };
  for (const auto& [name, check] : checks) {
    SCOPED_TRACE(std::string("check ") + name);
    check(b);
  }
}

// Builds of their own (small ones).

TEST(IndexBuild, KeepLeavesTheDownloadedWheelsInTheCache) {
  REQUIRE_PIP_AND_REPO();
  TempDir cache("keep");
  IndexBuildOptions o = options_for({"smc-good==1.0.0"}, cache.path);
  o.keep = true;
  IndexBuildResult r = build_or_fail(o);
  ASSERT_EQ(r.index.wheels.size(), 2u) << describe(r.index.failures);
  std::vector<fs::path> kept = wheels_under(cache.path);
  ASSERT_EQ(kept.size(), 2u);
  std::set<std::string> kept_hashes, record_hashes;
  for (const auto& k : kept) kept_hashes.insert(sha256_of(k));
  for (const auto& w : r.index.wheels) record_hashes.insert(w.sha256);
  EXPECT_EQ(kept_hashes, record_hashes);
}

TEST(IndexBuild, LastPicksTheNewestVersionsInPep440Order) {
  REQUIRE_PIP_AND_REPO();
  TempDir cache("last");
  IndexBuildOptions o = options_for({"smc-good"}, cache.path);
  o.last = 2;
  IndexBuildResult r = build_or_fail(o);
  // String order would pick 0.9.0 over 0.10.0.
  expect_clean_build(r.index, "smc-good", {"0.10.0", "1.0.0"}, 4u);

  TempDir cache1("last1");
  IndexBuildOptions o1 = options_for({"smc-good"}, cache1.path);
  o1.last = 1;
  IndexBuildResult r1 = build_or_fail(o1);
  EXPECT_EQ(versions_of(r1.index, "smc-good"), (std::vector<std::string>{"1.0.0"}));
}

TEST(IndexBuild, LastCountsOnlyReleasesWithBinaryWheels) {
  REQUIRE_PIP_AND_REPO();
  // smc-newest-sdist: 2.0.0 is an sdist only, 1.0.0 a wheel. build.hpp: `last` is the "newest N
  // versions with binary wheels per package", so --last 1 is 1.0.0, and nothing failed.
  TempDir cache("newest-sdist");
  IndexBuildOptions o = options_for({"smc-newest-sdist"}, cache.path);
  o.platforms = {*find_index_platform("linux_x86_64")};
  o.last = 1;
  IndexBuildResult r = build_or_fail(o);
  EXPECT_EQ(versions_of(r.index, "smc-newest-sdist"), (std::vector<std::string>{"1.0.0"}))
      << describe(r.index.failures);
  EXPECT_TRUE(r.index.failures.empty()) << describe(r.index.failures);
}

// A list failure of the resumed index that no longer holds (pip lists the package now) must not
// come back when the shards of the new build are merged: every shard carries the resumed
// index's failures, and a list failure has no wheel that would settle it in the merge.
TEST(IndexBuild, ShardsOfAResumedBuildDropAListFailureThatIsGone) {
  REQUIRE_PIP_AND_REPO();
  WheelIndex old;
  old.platforms = {"linux_aarch64", "linux_x86_64"};
  old.failures.push_back({"smc-pure", "", "linux_aarch64", "list",
                          "no release of smc-pure for linux_aarch64: pip: (an old outage)"});
  // One build: the failure is gone.
  {
    TempDir cache("gone");
    IndexBuildOptions o = options_for({"smc-pure"}, cache.path);
    o.resume = &old;
    IndexBuildResult r = build_or_fail(o);
    EXPECT_EQ(r.index.wheels.size(), 1u);
    EXPECT_TRUE(r.index.failures.empty()) << describe(r.index.failures);
  }
  // Two shards, merged: gone too.
  std::vector<WheelIndex> parts;
  for (size_t k = 0; k < 2; ++k) {
    TempDir cache("gone-shard");
    IndexBuildOptions o = options_for({"smc-pure"}, cache.path);
    o.resume = &old;
    o.shard_index = k;
    o.shard_count = 2;
    parts.push_back(build_or_fail(o).index);
  }
  WheelIndex merged = merge_indexes(parts);
  EXPECT_EQ(merged.wheels.size(), 1u);
  EXPECT_TRUE(merged.failures.empty()) << describe(merged.failures);
}

// build.hpp: the checkpoint gets "the index so far (resume's wheels plus those done)", so an
// interrupted build resumes from it. With checkpoint_seconds 0, after every wheel.
TEST(IndexBuild, CheckpointsHoldTheResumedWheelsAndThoseDone) {
  REQUIRE_PIP_AND_REPO();
  TempDir cache("checkpoint");
  IndexBuildResult first = build_or_fail(options_for({"smc-pure"}, cache.path));
  ASSERT_EQ(first.index.wheels.size(), 1u) << describe(first.index.failures);

  IndexBuildOptions o = options_for({"smc-good"}, cache.path);
  o.platforms = {*find_index_platform("linux_x86_64")};
  o.resume = &first.index;
  o.checkpoint_seconds = 0;
  std::vector<WheelIndex> checkpoints;
  o.checkpoint = [&](const WheelIndex& partial) { checkpoints.push_back(partial); };
  IndexBuildResult r = build_or_fail(o);
  ASSERT_EQ(r.index.wheels.size(), 4u) << describe(r.index.failures);
  ASSERT_EQ(checkpoints.size(), 3u);  // one per smc-good wheel scanned
  for (size_t k = 0; k < checkpoints.size(); ++k) {
    SCOPED_TRACE("checkpoint " + std::to_string(k + 1));
    EXPECT_EQ(checkpoints[k].wheels.size(), k + 2) << describe(checkpoints[k].wheels);
    EXPECT_NE(find_wheel(checkpoints[k], "smc_pure-1.0.0-py3-none-any.whl"), nullptr);
    for (const auto& w : checkpoints[k].wheels)
      EXPECT_NE(find_wheel(r.index, w.filename), nullptr) << w.filename;
  }
  EXPECT_EQ(checkpoints.back().wheels, r.index.wheels);
}

TEST(IndexBuild, SpecifierSelectsVersions) {
  REQUIRE_PIP_AND_REPO();
  TempDir cache("spec");
  IndexBuildOptions o = options_for({"smc-good>=0.9,<1.0"}, cache.path);
  o.platforms = {*find_index_platform("linux_x86_64")};
  IndexBuildResult r = build_or_fail(o);
  expect_clean_build(r.index, "smc-good", {"0.10.0", "0.9.0"}, 2u);

  TempDir cache2("pin");
  IndexBuildOptions pin = options_for({"smc-good==0.10.0"}, cache2.path);
  IndexBuildResult p = build_or_fail(pin);
  EXPECT_EQ(versions_of(p.index, "smc-good"), (std::vector<std::string>{"0.10.0"}));
  EXPECT_EQ(p.index.wheels.size(), 2u);  // x86_64 and aarch64

  // A specifier nothing matches: a list failure per platform set, naming the specifier.
  TempDir cache3("none");
  IndexBuildResult none = build_or_fail(options_for({"smc-good==3.0"}, cache3.path));
  EXPECT_TRUE(none.index.wheels.empty());
  ASSERT_EQ(none.index.failures.size(), 2u) << describe(none.index.failures);
  for (const auto& f : none.index.failures) {
    EXPECT_EQ(f.stage, "list");
    EXPECT_EQ(f.version, "");
    EXPECT_NE(f.message.find("==3.0"), std::string::npos) << f.message;
  }
}

TEST(IndexBuild, OnePlatformSetOnly) {
  REQUIRE_PIP_AND_REPO();
  auto arm = find_index_platform("linux_aarch64");
  ASSERT_TRUE(arm.ok());
  EXPECT_EQ(arm->machine, "aarch64");
  TempDir cache("arm");
  IndexBuildOptions o = options_for({"smc-good", "smc-pure"}, cache.path);
  o.platforms = {*arm};
  IndexBuildResult r = build_or_fail(o);
  EXPECT_EQ(r.index.platforms, (std::vector<std::string>{"linux_aarch64"}));
  std::vector<std::string> names;
  for (const auto& w : r.index.wheels) names.push_back(w.filename);
  EXPECT_EQ(names, (std::vector<std::string>{"smc_good-0.10.0-py3-none-manylinux_2_28_aarch64.whl",
                                             "smc_good-1.0.0-py3-none-manylinux_2_28_aarch64.whl",
                                             "smc_pure-1.0.0-py3-none-any.whl"}));
  EXPECT_TRUE(r.index.failures.empty()) << describe(r.index.failures);
}

TEST(IndexBuild, UnusableOptionsAreErrors) {
  REQUIRE_PIP_AND_REPO();
  TempDir cache("bad");
  IndexBuildOptions no_python = options_for({"smc-good"}, cache.path);
  no_python.python = "/nonexistent/python3";
  auto r = build_wheel_index(no_python);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("/nonexistent/python3"), std::string::npos) << r.error().what;

  IndexBuildOptions bad_shard = options_for({"smc-good"}, cache.path);
  bad_shard.shard_index = 3;
  bad_shard.shard_count = 3;
  EXPECT_FALSE(build_wheel_index(bad_shard).ok());
}

TEST(IndexBuildOptionsParse, ShardsAndRequests) {
  auto s = parse_shard("2/3");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (std::pair<size_t, size_t>{2, 3}));
  for (const char* bad : {"0/3", "4/3", "3", "/3", "a/b", "1/0", "-1/3", ""})
    EXPECT_FALSE(parse_shard(bad).ok()) << bad;

  auto plain = PackageRequest::parse("torch");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->name, "torch");
  EXPECT_EQ(plain->specifier, "");
  auto pinned = PackageRequest::parse("Flash_Attn==2.8.3");
  ASSERT_TRUE(pinned.ok());
  EXPECT_EQ(pinned->name, "Flash_Attn");
  EXPECT_EQ(pinned->specifier, "==2.8.3");
  auto range = PackageRequest::parse("torch>=2.7,<2.10");
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(range->name, "torch");
  EXPECT_EQ(range->specifier, ">=2.7,<2.10");
  EXPECT_FALSE(PackageRequest::parse("").ok());
  EXPECT_FALSE(PackageRequest::parse("==2.9").ok());

  EXPECT_EQ(default_index_platforms().size(), 2u);
  EXPECT_FALSE(find_index_platform("windows_amd64").ok());
}

}  // namespace
}  // namespace smcompat
