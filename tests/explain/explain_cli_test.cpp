// The explain command line: error text that looks like options (a pasted nvcc line), `--`, and
// standard input all reach the matcher, and real options before the text keep working.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "probe/run_child.hpp"

namespace {

const std::map<std::string, std::string> kEnv{{"PATH", "/usr/bin:/bin"}, {"NO_COLOR", "1"}};

nlohmann::json explain_json(std::vector<std::string> args) {
  std::vector<std::string> argv{SMCOMPAT_CLI, "explain", "--no-doctor", "--json"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = smcompat::test::run_child(argv, kEnv);
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
  return j;
}

TEST(ExplainCliArgs, TextAfterDoubleDashMayStartWithDash) {
  auto r = smcompat::test::run_child(
      {SMCOMPAT_CLI, "explain", "--no-doctor", "--", "-gencode", "arch=compute_120,code=sm_120",
       "nvcc", "fatal", ":", "Unsupported", "gpu", "architecture", "'compute_120'"},
      kEnv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nvcc cannot build the requested architecture"), std::string::npos) << r.out;
}

TEST(ExplainCliArgs, FirstWordStartingWithDashIsText) {
  // Not an explain option, so it and everything after it is the text, in order: "-o" here is
  // part of the pasted line, not explain's --output.
  auto r =
      smcompat::test::run_child({SMCOMPAT_CLI, "explain", "--no-doctor", "--prompt", "-gencode",
                                 "arch=compute_120,code=sm_120", "-o", "k.o", "k.cu"},
                                kEnv);
  EXPECT_EQ(r.exit_code, 1) << r.err;  // parsed fine; nothing in it is a known failure
  EXPECT_NE(r.out.find("-gencode arch=compute_120,code=sm_120 -o k.o k.cu"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.err.find("not expected"), std::string::npos) << r.err;
}

TEST(ExplainCliArgs, OptionsBeforeTextStillApply) {
  auto j = explain_json({"ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'"});
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["matches"][0]["id"], "ptxas-unknown-arch");
  EXPECT_EQ(j["argv"].back(),
            "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'");
  // Several words are one text; a tool-specific fix is chosen and named in the JSON.
  auto g = explain_json({"ggml_cuda_compute_forward:", "CUDA", "error:", "no", "kernel", "image",
                         "is", "available", "for", "execution", "on", "the", "device"});
  ASSERT_EQ(g["matches"].size(), 1u) << g.dump();
  EXPECT_EQ(g["matches"][0]["fix_for"], "llama.cpp / ggml (CMake)");
  EXPECT_NE(g["matches"][0]["fix"].get<std::string>().find("CMAKE_CUDA_ARCHITECTURES"),
            std::string::npos);
}

TEST(ExplainCliArgs, DashReadsStandardInput) {
  smcompat::test::TempDir tmp;
  std::string log = tmp.path() + "/err.log";
  {
    std::FILE* f = std::fopen(log.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "step 1\n-gencode arch=compute_120,code=sm_120\nnvcc fatal   : Unsupported gpu "
        "architecture 'compute_120'\n",
        f);
    std::fclose(f);
  }
  auto r = smcompat::test::run_child(
      {"/bin/sh", "-c",
       std::string("'") + SMCOMPAT_CLI + "' explain --no-doctor - < '" + log + "'"},
      kEnv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("matched line 3"), std::string::npos) << r.out;
  // After "--", a lone "-" is text too, not standard input.
  auto t = smcompat::test::run_child({SMCOMPAT_CLI, "explain", "--no-doctor", "--", "-"}, kEnv);
  EXPECT_EQ(t.exit_code, 1) << t.err;
}

}  // namespace

// ---- bounded, honest input ---------------------------------------------------------------------

namespace {

smcompat::test::ChildResult explain_file(const std::string& path) {
  return smcompat::test::run_child({SMCOMPAT_CLI, "explain", "--no-doctor", "--file", path}, kEnv);
}

}  // namespace

TEST(ExplainCliInput, DevZeroIsRefusedNotRead) {
  auto r = explain_file("/dev/zero");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/dev/zero: is a character device, not a log file"), std::string::npos)
      << r.err;
}

TEST(ExplainCliInput, DirectoryIsRefused) {
  smcompat::test::TempDir tmp;
  auto r = explain_file(tmp.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is a directory, not a log file"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

TEST(ExplainCliInput, FifoWithoutWriterIsRefusedAtOnce) {
  smcompat::test::TempDir tmp;
  std::string fifo = tmp.path() + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = explain_file(fifo);  // would block forever if opened for reading without O_NONBLOCK
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is a FIFO"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("smcompat explain - <"), std::string::npos) << r.err;
}

TEST(ExplainCliInput, MissingFileSaysWhy) {
  auto r = explain_file("/nonexistent/dir/log.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/dir/log.txt: cannot read: No such file or directory"),
            std::string::npos)
      << r.err;
}
