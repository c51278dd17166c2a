// `smcompat index build` and `smcompat index merge` end to end, against the local PEP 503
// repository that tests/index/fixtures/make_index.py builds (pip runs with --index-url file://).
// Exit codes (tools/smcompat/index_build.cpp): 0 written, 1 written but something failed (named
// on stderr and recorded in the index), 2 usage or I/O error.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

std::string repo_dir() { return SMCOMPAT_INDEX_FIXTURE_DIR; }
std::string index_url() { return "file://" + repo_dir() + "/simple"; }

struct CliResult {
  int code;
  std::string out, err;
};

CliResult smcompat(const std::string& args, const fs::path& dir) {
  fs::path err_file = dir / "stderr.txt";
  std::string cmd = std::string(SMCOMPAT_CLI) + " " + args + " 2>" + err_file.string();
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int st = ::pclose(p);
  std::ifstream in(err_file);
  std::stringstream err;
  err << in.rdbuf();
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out, err.str()};
}

nlohmann::json read_json(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return nullptr;
  return nlohmann::json::parse(in, nullptr, false);
}

class IndexBuildCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(repo_dir() + "/stamp"))
      GTEST_SKIP() << "index test repository not built in " << repo_dir()
                   << " (needs nvcc and python3 when CMake runs; target smcompat_index_fixtures)";
    if (std::system("python3 -m pip --version >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "`python3 -m pip --version` failed: the index build needs pip";
    std::string t = (fs::temp_directory_path() / "smcompat-index-cli-XXXXXX").string();
    ASSERT_NE(::mkdtemp(t.data()), nullptr);
    dir_ = t;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  // `index build` on the local repository, quiet, with a cache of this test.
  CliResult build(const std::string& args) {
    return smcompat("index build " + args + " --index-url " + index_url() + " --cache " +
                        (dir_ / "cache").string() + " -q",
                    dir_);
  }
  std::string p(const char* name) { return (dir_ / name).string(); }
  fs::path dir_;
};

size_t wheels_under(const fs::path& dir) {
  size_t n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec))
    n += it->path().extension() == ".whl";
  return n;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST_F(IndexBuildCli, BuildWritesTheIndexAndNamesEachFailure) {
  CliResult r = build("smc-good smc-sdist-only nosuch-pkg -o " + p("out.json"));
  EXPECT_EQ(r.code, 1) << r.err;        // written, but two packages failed
  EXPECT_TRUE(r.out.empty()) << r.out;  // the index goes to -o, people's text to stderr
  // One line per failure, naming the package and why.
  EXPECT_TRUE(contains(r.err, "list [all] no binary wheel of smc-sdist-only for any platform"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "list [all] no release of nosuch-pkg for any platform")) << r.err;
  EXPECT_TRUE(contains(r.err, "No matching distribution found for nosuch-pkg")) << r.err;
  // The summary counts them too.
  EXPECT_TRUE(contains(r.err, "5 wheels indexed, 0 already indexed, 2 failures")) << r.err;
  EXPECT_TRUE(contains(r.err, "wrote " + p("out.json") + " (5 wheels)")) << r.err;

  nlohmann::json j = read_json(p("out.json"));
  ASSERT_TRUE(j.is_object()) << "not JSON: " << p("out.json");
  EXPECT_EQ(j["schema"], "smcompat.index/1");
  EXPECT_EQ(j["platforms"], (nlohmann::json{"linux_aarch64", "linux_x86_64"}));
  ASSERT_EQ(j["wheels"].size(), 5u);
  for (const auto& w : j["wheels"]) {
    EXPECT_EQ(w["package"], "smc-good");
    EXPECT_EQ(w["sha256"].get<std::string>().size(), 64u);
  }
  ASSERT_EQ(j["failures"].size(), 2u) << j["failures"].dump();
  EXPECT_EQ(j["failures"][0]["package"], "nosuch-pkg");
  EXPECT_EQ(j["failures"][1]["package"], "smc-sdist-only");
  for (const auto& f : j["failures"]) {
    EXPECT_EQ(f["stage"], "list");
    EXPECT_EQ(f["version"], "");
    EXPECT_EQ(f["platform"], "");
  }
  EXPECT_EQ(wheels_under(dir_ / "cache"), 0u) << "wheels are deleted after scanning (no --keep)";

  // CliResult again into the same file: it is resumed, nothing is fetched, the failures are old
  // news.
  CliResult again = build("smc-good smc-sdist-only nosuch-pkg -o " + p("out.json"));
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_TRUE(contains(again.err, "0 wheels indexed, 5 already indexed")) << again.err;
  EXPECT_EQ(read_json(p("out.json"))["wheels"], j["wheels"]);
}

TEST_F(IndexBuildCli, MergeJoinsPlatformBuildsIntoTheFullBuild) {
  ASSERT_EQ(build("smc-good --platform linux_x86_64 -o " + p("x86.json")).code, 0);
  ASSERT_EQ(build("smc-good --platform linux_aarch64 -o " + p("arm.json")).code, 0);
  ASSERT_EQ(build("smc-good -o " + p("both.json")).code, 0);
  EXPECT_EQ(read_json(p("x86.json"))["wheels"].size(), 3u);
  EXPECT_EQ(read_json(p("arm.json"))["platforms"], (nlohmann::json{"linux_aarch64"}));

  CliResult m = smcompat(
      "index merge " + p("x86.json") + " " + p("arm.json") + " -o " + p("merged.json"), dir_);
  EXPECT_EQ(m.code, 0) << m.err;
  EXPECT_TRUE(contains(m.err, "wrote " + p("merged.json") + " (5 wheels, 0 failures) from 2 files"))
      << m.err;
  nlohmann::json merged = read_json(p("merged.json"));
  nlohmann::json both = read_json(p("both.json"));
  EXPECT_EQ(merged["schema"], "smcompat.index/1");
  EXPECT_EQ(merged["wheels"], both["wheels"]);
  EXPECT_EQ(merged["platforms"], both["platforms"]);

  // Without -o the merged index goes to stdout.
  CliResult to_stdout = smcompat("index merge " + p("arm.json") + " " + p("x86.json"), dir_);
  EXPECT_EQ(to_stdout.code, 0) << to_stdout.err;
  auto j = nlohmann::json::parse(to_stdout.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << to_stdout.out.substr(0, 500);
  EXPECT_EQ(j["wheels"], both["wheels"]);  // the order of the inputs does not matter
}

TEST_F(IndexBuildCli, ShardsMergeToTheFullBuild) {
  ASSERT_EQ(build("smc-good smc-pure -o " + p("full.json")).code, 0);
  ASSERT_EQ(build("smc-good smc-pure --shard 1/2 -o " + p("s1.json")).code, 0);
  ASSERT_EQ(build("smc-good smc-pure --shard 2/2 -o " + p("s2.json")).code, 0);
  // Every wheel is in one shard or the other; smc-pure's py3-none-any wheel serves both platform
  // sets (two work items), so it can be in both.
  const nlohmann::json j1 = read_json(p("s1.json")), j2 = read_json(p("s2.json"));
  std::set<std::string> s1, s2, all;
  for (const auto& w : j1["wheels"]) s1.insert(w["filename"]);
  for (const auto& w : j2["wheels"]) s2.insert(w["filename"]);
  EXPECT_FALSE(s1.empty());
  EXPECT_FALSE(s2.empty());
  for (const auto& f : s1)
    EXPECT_TRUE(!s2.count(f) || f == "smc_pure-1.0.0-py3-none-any.whl") << f << " in both shards";
  all.insert(s1.begin(), s1.end());
  all.insert(s2.begin(), s2.end());
  EXPECT_EQ(all.size(), 6u);  // smc-good's five wheels and smc-pure's one
  ASSERT_EQ(
      smcompat("index merge " + p("s1.json") + " " + p("s2.json") + " -o " + p("m.json"), dir_)
          .code,
      0);
  EXPECT_EQ(read_json(p("m.json"))["wheels"], read_json(p("full.json"))["wheels"]);
}

TEST_F(IndexBuildCli, UsageAndIoErrorsExitTwoWithAReason) {
  struct Case {
    std::string args, says;
  };
  const Case cases[] = {
      {"smc-good --shard 0/3", "--shard '0/3'"},
      {"smc-good --shard 4/3", "--shard '4/3'"},
      {"smc-good --platform windows_amd64", "unknown platform 'windows_amd64'"},
      {"smc-good --resume " + p("missing.json"), "cannot resume"},
      {"smc-good --python /nonexistent/python3", "/nonexistent/python3"},
      {"'==1.0'", "is not a package name"},
  };
  for (const auto& c : cases) {
    CliResult r = build(c.args + " -o " + p("never.json"));
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, c.says)) << c.args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(p("never.json"))) << c.args;
  }
  CliResult none = smcompat("index build", dir_);
  EXPECT_EQ(none.code, 2) << none.err;
  CliResult merge_missing =
      smcompat("index merge " + p("missing.json") + " -o " + p("never.json"), dir_);
  EXPECT_EQ(merge_missing.code, 2);
  EXPECT_TRUE(contains(merge_missing.err, p("missing.json"))) << merge_missing.err;
  EXPECT_FALSE(fs::exists(p("never.json")));
}

}  // namespace

namespace {

// `index add`: local wheel files into an index without pip; the truncated wheel is recorded with
// its error and exits 1, an existing -o is kept and merged.
TEST_F(IndexBuildCli, AddRecordsLocalWheels) {
  fs::path files = fs::path(repo_dir()) / "files";
  std::string good, truncated;
  for (const auto& entry : fs::directory_iterator(files)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("smc_good-1.0.0-", 0) == 0 && name.find("x86_64") != std::string::npos)
      good = entry.path().string();
    if (name.rfind("smc_truncated-", 0) == 0) truncated = entry.path().string();
  }
  ASSERT_FALSE(good.empty());
  ASSERT_FALSE(truncated.empty());
  CliResult first = smcompat("index add " + good + " -o " + p("added.json"), dir_);
  EXPECT_EQ(first.code, 0) << first.err;
  EXPECT_NE(first.err.find("on one core"), std::string::npos) << first.err;
  auto j = read_json(p("added.json"));
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["schema"], "smcompat.index/1");
  ASSERT_EQ(j["wheels"].size(), 1u);
  EXPECT_EQ(j["wheels"][0]["package"], "smc-good");
  EXPECT_EQ(j["wheels"][0]["version"], "1.0.0");

  CliResult second = smcompat("index add " + truncated + " -o " + p("added.json"), dir_);
  EXPECT_EQ(second.code, 1) << second.err;
  EXPECT_NE(second.err.find(truncated), std::string::npos) << second.err;
  j = read_json(p("added.json"));
  ASSERT_EQ(j["wheels"].size(), 2u);  // the first record kept
  bool truncated_has_error = false;
  for (const auto& w : j["wheels"])
    if (w["package"] == "smc-truncated") truncated_has_error = w.contains("errors");
  EXPECT_TRUE(truncated_has_error);

  CliResult not_a_wheel = smcompat("index add " + p("added.json"), dir_);
  EXPECT_EQ(not_a_wheel.code, 1);
  EXPECT_NE(not_a_wheel.err.find("not a wheel's file name"), std::string::npos);
}

}  // namespace
