// Redaction: secrets planted in the error text and in the environment (cloud keys, Hugging Face
// and GitHub tokens, passwords in URLs, generic *_TOKEN / *_SECRET / *_KEY / *PASSWORD*
// variables) never appear in the `--prompt` context bundle, in the library or through the CLI.
#include <gtest/gtest.h>

#include "doctor/fixture_env.hpp"
#include "probe/run_child.hpp"
#include "smcompat/explain/explain.hpp"

namespace smcompat::explain {
namespace {

// Secret values (all fake, in the documented formats).
const char* kAwsKeyId = "AKIAIOSFODNN7EXAMPLE";
const char* kAwsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const char* kHfToken = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";
const char* kGhToken = "ghp_16C7e42F292c6912E7710c838347Ae178B4a";
const char* kGhPat =
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV";
const char* kUrlPassword = "hunter2sEcReT";
const char* kGenericToken = "tok-5f9c2a7e-1d3b-4c8e-9a6f";
const char* kGenericSecret = "s3cr3t-value-do-not-share";
const char* kDbPassword = "correct horse battery staple";
const char* kApiKey = "key_live_9fA8bC7dE6fG5hI4";
const char* kOpenAi = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD";

std::vector<std::string> secrets() {
  return {kAwsKeyId,     kAwsSecret,     kHfToken,        kGhToken, kGhPat, kUrlPassword,
          kGenericToken, kGenericSecret, "correct horse", kApiKey,  kOpenAi};
}

std::string planted_log() {
  return std::string("Downloading https://admin:") + kUrlPassword +
         "@internal.example.com/models/llama.bin\n"
         "export AWS_ACCESS_KEY_ID=" +
         kAwsKeyId + "\naws_secret_access_key = " + kAwsSecret + "\nHF_TOKEN=" + kHfToken +
         "\ngit clone https://" + kGhToken +
         "@github.com/org/repo\n"
         "Authorization: Bearer " +
         kGhPat + "\n{\"api_key\": \"" + kApiKey +
         "\"}\n"
         "OPENAI_API_KEY=" +
         kOpenAi +
         "\n"
         "RuntimeError: CUDA error: no kernel image is available for execution on the device\n";
}

doctor::Environment planted_env() {
  return {
      {"HF_TOKEN", kHfToken},
      {"GITHUB_TOKEN", kGhToken},
      {"AWS_ACCESS_KEY_ID", kAwsKeyId},
      {"AWS_SECRET_ACCESS_KEY", kAwsSecret},
      {"MY_SERVICE_TOKEN", kGenericToken},
      {"APP_SECRET", kGenericSecret},
      {"DB_PASSWORD", kDbPassword},
      {"STRIPE_KEY", kApiKey},
      {"CUDA_VISIBLE_DEVICES", "0"},
      {"TORCH_CUDA_ARCH_LIST", "8.0;9.0"},
      // An allow-listed variable whose value carries a credential: masked, not dropped.
      {"CONDA_PREFIX", std::string("https://bob:") + kUrlPassword + "@mirror.example.com/env"},
      {"PIP_INDEX_URL", std::string("https://user:") + kUrlPassword + "@pypi.example.com/simple"},
      {"HOME", "/home/alice"}};
}

TEST(Redact, MasksEachKindOfSecret) {
  for (auto& s : secrets()) {
    SCOPED_TRACE(s);
    auto out = redact(planted_log());
    EXPECT_EQ(out.find(s), std::string::npos) << out;
  }
  EXPECT_EQ(redact("https://user:pw1234@host/x"), "https://user:[REDACTED]@host/x");
  EXPECT_EQ(redact("password=abc123"), "password=[REDACTED]");
  EXPECT_EQ(redact("{\"api_key\": \"abc\", \"model\": \"llama\"}"),
            "{\"api_key\": \"[REDACTED]\", \"model\": \"llama\"}");
  EXPECT_EQ(redact("MY_TOKEN = xyz; next"), "MY_TOKEN = [REDACTED]; next");
  // Not secrets: a port, a user without password, a plain assignment.
  EXPECT_EQ(redact("http://localhost:8080/v1 git@github.com:org/repo"),
            "http://localhost:8080/v1 git@github.com:org/repo");
  EXPECT_EQ(redact("ssh://git@host/x batch_size=32"), "ssh://git@host/x batch_size=32");
  // Ordinary error text, paths, versions and hashes survive.
  std::string normal =
      "/usr/local/cuda-12.8/lib64/libcudart.so.12: torch 2.7.0+cu128 git "
      "1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340";
  EXPECT_EQ(redact(normal), normal);
  std::string err =
      "RuntimeError: CUDA error: no kernel image is available for execution on the device";
  EXPECT_EQ(redact(err), err);
}

TEST(Redact, AllowListOfVariables) {
  EXPECT_TRUE(env_var_allowed("CUDA_VISIBLE_DEVICES"));
  EXPECT_TRUE(env_var_allowed("TORCH_CUDA_ARCH_LIST"));
  EXPECT_FALSE(env_var_allowed("HF_TOKEN"));
  EXPECT_FALSE(env_var_allowed("AWS_SECRET_ACCESS_KEY"));
  EXPECT_FALSE(env_var_allowed("DB_PASSWORD"));
  EXPECT_FALSE(env_var_allowed("HOME"));
  EXPECT_FALSE(env_var_allowed("PIP_INDEX_URL"));
}

TEST(Redact, PromptBundleCarriesNoSecret) {
  auto log = planted_log();
  auto e = explain_text(log, KnowledgeBase::builtin(), nullptr);
  auto env = planted_env();
  auto md = prompt_bundle(log, e, nullptr, env);
  for (auto& s : secrets()) EXPECT_EQ(md.find(s), std::string::npos) << s << "\n" << md;
  EXPECT_EQ(md.find("`HF_TOKEN"), std::string::npos);            // not among the variables
  EXPECT_NE(md.find("HF_TOKEN=[REDACTED]"), std::string::npos);  // masked in the error text
  EXPECT_EQ(md.find("/home/alice"), std::string::npos);
  EXPECT_NE(md.find("`CUDA_VISIBLE_DEVICES=0`"), std::string::npos);
  EXPECT_NE(md.find("`TORCH_CUDA_ARCH_LIST=8.0;9.0`"), std::string::npos);
  EXPECT_NE(md.find("`CONDA_PREFIX=https://bob:[REDACTED]@mirror.example.com/env`"),
            std::string::npos);
  EXPECT_NE(md.find("no kernel image is available for execution on the device"), std::string::npos);
  EXPECT_NE(md.find("## Known failure modes that match"), std::string::npos);
  EXPECT_NE(md.find("[REDACTED]"), std::string::npos);
}

TEST(Redact, CliPromptCarriesNoSecret) {
  smcompat::testing::TempDir tmp;
  std::string log_path = tmp.path() + "/error.log";
  smcompat::testing::write_file(log_path, planted_log());
  std::map<std::string, std::string> env{{"PATH", "/usr/bin:/bin"},
                                         {"LD_LIBRARY_PATH", tmp.path()}};
  for (auto& [k, v] : planted_env()) env[k] = v;
  auto res = smcompat::test::run_child(
      {SMCOMPAT_CLI, "explain", "--prompt", "--file", log_path, "--gpu", "RTX 5090"}, env);
  EXPECT_EQ(res.exit_code, 0) << res.err;
  for (auto& s : secrets()) {
    EXPECT_EQ(res.out.find(s), std::string::npos) << s;
    EXPECT_EQ(res.err.find(s), std::string::npos) << s;
  }
  EXPECT_NE(res.out.find("# GPU problem: context for an assistant"), std::string::npos);
  EXPECT_NE(res.out.find(
                "GPU: GeForce RTX 5090 (compute capability 12.0, asked with --gpu, not present)"),
            std::string::npos);
  // Also when the secrets come as command-line text and the output goes to a file.
  std::string out_path = tmp.path() + "/bundle.md";
  auto res2 = smcompat::test::run_child(
      {SMCOMPAT_CLI, "explain", "--prompt", "--no-doctor", "-o", out_path, planted_log()}, env);
  EXPECT_EQ(res2.exit_code, 0) << res2.err;
  std::ifstream in(out_path);
  std::string md((std::istreambuf_iterator<char>(in)), {});
  EXPECT_FALSE(md.empty());
  for (auto& s : secrets()) EXPECT_EQ(md.find(s), std::string::npos) << s;
}

TEST(ExplainCli, TextJsonStdinAndExitCodes) {
  std::map<std::string, std::string> env{{"PATH", "/usr/bin:/bin"}, {"NO_COLOR", "1"}};
  auto res =
      smcompat::test::run_child({SMCOMPAT_CLI, "explain", "--no-doctor",
                                 "No compiled cutlass_scaled_mm for CUDA device capability: 120"},
                                env);
  EXPECT_EQ(res.exit_code, 0);
  EXPECT_NE(res.out.find("vLLM dispatcher has no kernel for this capability"), std::string::npos);
  EXPECT_NE(res.out.find("vllm-project/vllm#32109"), std::string::npos);
  auto json = smcompat::test::run_child(
      {SMCOMPAT_CLI, "explain", "--no-doctor", "--json",
       "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'"},
      env);
  auto j = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << json.out;
  EXPECT_EQ(j["schema"], "smcompat.explain/1");
  EXPECT_EQ(j["matches"][0]["id"], "ptxas-unknown-arch");
  EXPECT_EQ(j["doctor_consulted"], false);
  // A repeatable option before the text takes one value each time (the text stays the text).
  auto after_gpu = smcompat::test::run_child(
      {SMCOMPAT_CLI, "explain", "--no-doctor", "--gpu", "RTX 5090", "--gpu", "H100",
       "RuntimeError: CUDA error: no kernel image is available for execution on the device"},
      env);
  EXPECT_EQ(after_gpu.exit_code, 0) << after_gpu.err;
  EXPECT_NE(after_gpu.out.find("No kernel image for this GPU"), std::string::npos);
  auto none = smcompat::test::run_child({SMCOMPAT_CLI, "explain", "--no-doctor", "all good"}, env);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.out.find("No known failure mode matches"), std::string::npos);
  auto empty = smcompat::test::run_child({SMCOMPAT_CLI, "explain", "--no-doctor"}, env);
  EXPECT_EQ(empty.exit_code, 2);
  auto missing =
      smcompat::test::run_child({SMCOMPAT_CLI, "explain", "--file", "/nonexistent/log"}, env);
  EXPECT_EQ(missing.exit_code, 2);
  // Standard input, through the shell.
  auto [rc, out] = smcompat::testing::run_command(
      std::string(
          "printf 'step 1\\nCUDA driver version is insufficient for CUDA runtime version\\n' | ") +
      "NO_COLOR=1 '" + SMCOMPAT_CLI + "' explain --no-doctor -");
  EXPECT_EQ(rc, 0);
  EXPECT_NE(out.find("matched line 2"), std::string::npos);
}

}  // namespace
}  // namespace smcompat::explain
