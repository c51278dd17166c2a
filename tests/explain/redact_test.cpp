// Redaction: secrets planted in the error text and in the environment (cloud keys, Hugging Face
// and GitHub tokens, passwords in URLs, generic *_TOKEN / *_SECRET / *_KEY / *PASSWORD*
// variables) never appear in the `--prompt` context bundle, in the library or through the CLI.
#include <gtest/gtest.h>

#include <ctime>

#include "doctor/fixture_env.hpp"
#include "probe/run_child.hpp"
#include "smcompat/explain/explain.hpp"
#include "smcompat/report/explain_report.hpp"
#include "support/cases.hpp"

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
  smcompat::testing::expect_mapped(
      redact, {
                  {"https://user:pw1234@host/x", "https://user:[REDACTED]@host/x"},
                  {"password=abc123", "password=[REDACTED]"},
                  {"{\"api_key\": \"abc\", \"model\": \"llama\"}",
                   "{\"api_key\": \"[REDACTED]\", \"model\": \"llama\"}"},
                  {"MY_TOKEN = xyz; next", "MY_TOKEN = [REDACTED]; next"},
                  // Not secrets: a port, a user without password, a plain assignment.
                  {"http://localhost:8080/v1 git@github.com:org/repo",
                   "http://localhost:8080/v1 git@github.com:org/repo"},
                  {"ssh://git@host/x batch_size=32", "ssh://git@host/x batch_size=32"},
              });
  // Ordinary error text, paths, versions and hashes survive.
  std::string normal =
      "/usr/local/cuda-12.8/lib64/libcudart.so.12: torch 2.7.0+cu128 git "
      "1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340";
  EXPECT_EQ(redact(normal), normal);
  std::string err =
      "RuntimeError: CUDA error: no kernel image is available for execution on the device";
  EXPECT_EQ(redact(err), err);
}

TEST(Redact, FlagsWithSpaceSeparatedValues) {
  smcompat::testing::expect_mapped(
      redact,
      {
          {"mysql -u root -p S3cr3t! mydb", "mysql -u root -p [REDACTED] mydb"},
          {"cli --password hunter2 --api-key 'k e y' --token \"t0k\" --verbose",
           "cli --password [REDACTED] --api-key '[REDACTED]' --token \"[REDACTED]\" --verbose"},
          {"huggingface-cli login --token=abc123", "huggingface-cli login --token=[REDACTED]"},
          {"argv: ['serve', '--api-key', 'abc123', '--port', '8000']",
           "argv: ['serve', '--api-key', '[REDACTED]', '--port', '8000']"},
      });
  // `-p` that is not a password: ports, port maps, paths, another flag; and -pthread.
  std::string kept =
      "ssh -p 2222 host; docker run -p 8080:80 img; mkdir -p /tmp/a ./b ~/c; nvcc -pthread x.cu; "
      "pip install -p --upgrade";
  EXPECT_EQ(redact(kept), kept);
  // A boolean-looking long flag followed by another flag keeps it.
  EXPECT_EQ(redact("--use-auth-token --push"), "--use-auth-token --push");
}

TEST(Redact, AuthorizationHeaders) {
  smcompat::testing::expect_mapped(
      redact, {
                  {"Authorization: Bearer abc.def-ghi", "Authorization: Bearer [REDACTED]"},
                  {"curl -H \"Authorization: token ghx\" -H 'Accept: */*' https://api.x",
                   "curl -H \"Authorization: token [REDACTED]\" -H 'Accept: */*' https://api.x"},
                  {"{'Authorization': 'Basic dXNlcjpwYXNz', 'User-Agent': 'pip/25'}",
                   "{'Authorization': 'Basic [REDACTED]', 'User-Agent': 'pip/25'}"},
                  {"Proxy-Authorization: Digest username=\"u\", response=\"6629fae4\"",
                   "Proxy-Authorization: Digest [REDACTED]"},
                  {"authorization=sekrit", "authorization=[REDACTED]"},
                  {"Authorization failed for user bob", "Authorization failed for user bob"},
              });
}

TEST(Redact, HexKeysAndDigests) {
  // 32+ hex digits without a digest word before them: a key.
  EXPECT_EQ(redact("api 0123456789abcdef0123456789abcdef ok"), "api [REDACTED] ok");
  EXPECT_EQ(redact("X: 9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08AA"),
            "X: [REDACTED]");
  // A digest-length run that a commit/sha/hash/git/revision word names: kept.
  for (std::string kept :
       {"git 1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340",
        "commit 1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340 (HEAD -> main)",
        "torch.version.git_version = '1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340'",
        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "Build ID: 5f0c9c2d9d7f1e3a4b5c6d7e8f90a1b2c3d4e5f6",
        "models--meta-llama--Llama-3.1-8B/snapshots/0e9e39f249a16976918f6564b8830bc894c89659/",
        "https://github.com/pytorch/pytorch/commit/1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340",
        "md5 d41d8cd98f00b204e9800998ecf8427e"}) {
    EXPECT_EQ(redact(kept), kept);
  }
  // A digest word further away, a non-digest length, or a word that only starts like one: masked.
  smcompat::testing::expect_mapped(
      redact, {
                  {"commit abc, key 1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340",
                   "commit abc, key [REDACTED]"},
                  {"git 1eba9b3aa3c43f86f4a2c807ac8e12c4a77673401", "git [REDACTED]"},
                  {"shared 1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340", "shared [REDACTED]"},
              });
}

TEST(Redact, UrlsPathsAndQueries) {
  smcompat::testing::expect_mapped(
      redact, {
                  {"https://hooks.slack.com/services/T00000000/B00000000/Xk2pQ9vL0aZ3mN7bR1cT5yW8",
                   "https://hooks.slack.com/services/T00000000/B00000000/[REDACTED]"},
                  {"POST https://discord.com/api/webhooks/123456789012345678/"
                   "aB3dE-fG6hI_jK9lM0nO2pQ4rS6tU8vW",
                   "POST https://discord.com/api/webhooks/123456789012345678/[REDACTED]"},
                  {"https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/o/r.git",
                   "https://[REDACTED]@github.com/o/r.git"},
                  {"https://s3.example.com/b/k.bin?X-Amz-Credential=AKIA%2F2025&X-Amz-Signature="
                   "abc&x-id=GetObject",
                   "https://s3.example.com/b/k.bin?X-Amz-Credential=[REDACTED]&X-Amz-Signature="
                   "[REDACTED]&x-id=GetObject"},
                  {"wss://relay.example.net/ws?access_token=short1",
                   "wss://relay.example.net/ws?access_token=[REDACTED]"},
              });
  // Useful URLs survive: wheels, model ids, versions, ports.
  for (std::string kept :
       {"https://download.pytorch.org/whl/cu128/"
        "torch-2.7.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl",
        "https://huggingface.co/meta-llama/Meta-Llama-3-8B-Instruct/resolve/main/config.json",
        "https://huggingface.co/Qwen/Qwen2.5-VL-7B-Instruct",
        "https://developer.nvidia.com/cuda-12-8-0-download-archive?target_os=Linux",
        "http://localhost:8000/v1/chat/completions",
        "https://github.com/vllm-project/vllm/issues/16901"}) {
    EXPECT_EQ(redact(kept), kept);
  }
}

TEST(Redact, UsefulTextSurvives) {
  for (std::string kept :
       {"CUDA driver version: 12.8 (570.86.10), CUDA runtime 12.6, compute capability 12.0",
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible",
        "Segmentation fault at 0x7f3a4c2b1000 (pc 0x00007f3a4c2b1e5c) in libcuda.so.1",
        "/usr/local/cuda-12.8/targets/x86_64-linux/lib/libcudart.so.12.8.57",
        "/home/alice/.cache/torch_extensions/py311_cu128/fused_adam/fused_adam.so",
        "ptxas /tmp/tmpxft_00004a1b_00000000-6_fp8_gemm.ptx, line 1187; error   : Instruction "
        "'tcgen05.mma' not supported on .target 'sm_120'",
        "  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], "
        "[%rd2, {%r3, %r4}], [%r5];",
        "KeyError: 'model.layers.0.self_attn.q_proj.weight'",
        "TORCH_CUDA_ARCH_LIST=8.0;8.6;9.0;12.0+PTX MAX_JOBS=4",
        "torch 2.7.0+cu128, triton 3.3.0, nvidia-cublas-cu12 12.8.3.14",
        "Meta-Llama-3-8B-Instruct LlamaForCausalLM cudaErrorNoKernelImageForDevice",
        "vllm/_C.abi3.so: undefined symbol: _ZN3c104cuda9SetDeviceEab",
        "docker pull nvcr.io/nvidia/pytorch@sha256:"
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}) {
    EXPECT_EQ(redact(kept), kept);
  }
}

// Issue 28, item 7: forms that survived the first round, each with look-alikes that must stay.
TEST(Redact, CurlUserPassword) {
  smcompat::testing::expect_mapped(
      redact, {
                  {"curl -fsSL -u alice:s3cr3t-P4ss https://nexus.example.com/repo/x.whl",
                   "curl -fsSL -u alice:[REDACTED] https://nexus.example.com/repo/x.whl"},
                  {"curl --user 'ci-bot@example.com:tok en' https://api.example.com",
                   "curl --user 'ci-bot@example.com:[REDACTED]' https://api.example.com"},
                  {"curl --user=alice:pw1 -O https://x.example.com/f",
                   "curl --user=alice:[REDACTED] -O https://x.example.com/f"},
                  {"curl -ualice:pw1 https://x", "curl -ualice:[REDACTED] https://x"},
                  {"curl -su alice:pw1 https://x", "curl -su alice:[REDACTED] https://x"},
                  {"curl --proxy-user bob:pw2 -x http://proxy:3128 https://x",
                   "curl --proxy-user bob:[REDACTED] -x http://proxy:3128 https://x"},
                  {"argv: ['curl', '-u', 'bob:pw:with:colons', 'https://x']",
                   "argv: ['curl', '-u', 'bob:[REDACTED]', 'https://x']"},
              });
  // No colon: curl asks for the password. uid:gid pairs, paths after the colon, date formats and
  // shell expansions are not passwords.
  for (std::string kept :
       {"curl -u alice https://x.example.com", "docker run --gpus all -u 1000:1000 img",
        "docker run -u $(id -u):$(id -g) img", "docker run --user \"$(id -u):$(id -g)\" img",
        "pip install -U git+https://github.com/org/repo", "pip install --user torch",
        "rsync -avu host:/data/ ./data", "date -u +%Y-%m-%dT%H:%M:%SZ",
        "git push -u origin main:main", "python -u train.py --config cfg.yaml"}) {
    EXPECT_EQ(redact(kept), kept);
  }
}

TEST(Redact, NetrcPassword) {
  smcompat::testing::expect_mapped(
      redact, {
                  {"machine api.example.com login alice password s3cr3t",
                   "machine api.example.com login alice password [REDACTED]"},
                  {"machine huggingface.co\n  login alice\n  password hf-pw-123\n",
                   "machine huggingface.co\n  login alice\n  password [REDACTED]\n"},
                  {"machine h password pw1 login u", "machine h password [REDACTED] login u"},
                  {"default login anonymous password guest@example.org",
                   "default login anonymous password [REDACTED]"},
                  {"echo \"machine h login u password pw1\" >> ~/.netrc",
                   "echo \"machine h login u password [REDACTED]\" >> ~/.netrc"},
              });
  for (std::string kept : {"FATAL: password authentication failed for user \"postgres\"",
                           "Enter password for alice:", "machine h login u password",
                           "login failed, password ok", "Login failed: password expired"}) {
    EXPECT_EQ(redact(kept), kept);
  }
}

TEST(Redact, LdapPassword) {
  smcompat::testing::expect_mapped(
      redact,
      {
          {"ldapsearch -x -H ldaps://ldap.example.org -D cn=admin,dc=example,dc=org "
           "-w S3cret -b dc=example,dc=org",
           "ldapsearch -x -H ldaps://ldap.example.org -D cn=admin,dc=example,dc=org "
           "-w [REDACTED] -b dc=example,dc=org"},
          {"ldapmodify -x -D cn=admin -wS3cret -f x.ldif",
           "ldapmodify -x -D cn=admin -w[REDACTED] -f x.ldif"},
          {"/usr/bin/ldapwhoami -x -w 'a b'", "/usr/bin/ldapwhoami -x -w '[REDACTED]'"},
          // `-w` of another command: grep's words, gcc's warnings, wget's wait; after a pipe too.
          {"ldapsearch -x -w S3cret | grep -w dn", "ldapsearch -x -w [REDACTED] | grep -w dn"},
      });
  for (std::string kept : {"ldapsearch -x -W -y /etc/ldap.secret -b dc=example,dc=org",
                           "grep -w sm_120 build.log", "gcc -w -c x.c", "wget -w 5 https://x"}) {
    EXPECT_EQ(redact(kept), kept);
  }
}

TEST(Redact, OpensslPassphraseArguments) {
  smcompat::testing::expect_mapped(
      redact, {
                  {"openssl rsa -in key.pem -passin pass:S3cret -out plain.pem",
                   "openssl rsa -in key.pem -passin pass:[REDACTED] -out plain.pem"},
                  {"openssl pkcs12 -export -in c.pem -passout 'pass:S3 cret'",
                   "openssl pkcs12 -export -in c.pem -passout 'pass:[REDACTED]'"},
                  {"openssl enc -aes-256-cbc -pass pass:S3cret -in x",
                   "openssl enc -aes-256-cbc -pass pass:[REDACTED] -in x"},
                  {"openssl pkcs12 -in x.p12 -password pass:S3cret",
                   "openssl pkcs12 -in x.p12 -password pass:[REDACTED]"},
              });
  // env:, file:, fd: and stdin name where the pass phrase is, not the pass phrase.
  for (std::string kept : {"openssl rsa -in key.pem -passin env:KEY_PASS",
                           "openssl pkcs12 -passin file:/run/secrets/pw -passout fd:3",
                           "openssl enc -d -pass stdin -in x.enc", "openssl enc -pass env:PW"}) {
    EXPECT_EQ(redact(kept), kept);
  }
}

TEST(Redact, SmbclientUserPercentPassword) {
  smcompat::testing::expect_mapped(redact, {
                                               {"smbclient //fs01/models -U alice%S3cret",
                                                "smbclient //fs01/models -U alice%[REDACTED]"},
                                               {"smbclient -U 'CORP\\alice%S3 cret' -L fs01",
                                                "smbclient -U 'CORP\\alice%[REDACTED]' -L fs01"},
                                               {"smbclient //fs01/x --user=alice%S3cret",
                                                "smbclient //fs01/x --user=alice%[REDACTED]"},
                                           });
  for (std::string kept : {"smbclient //fs01/models -U alice", "smbclient -N -L fs01",
                           "pip install -U torch", "cmake -U CMAKE_CUDA_ARCHITECTURES -B build"}) {
    EXPECT_EQ(redact(kept), kept);
  }
}

TEST(Redact, MysqlAttachedPassword) {
  smcompat::testing::expect_mapped(
      redact,
      {
          {"mysql -h db -u root -pS3cret mlflow", "mysql -h db -u root -p[REDACTED] mlflow"},
          {"mysqldump -uroot -p'S3 cret' db > dump.sql",
           "mysqldump -uroot -p'[REDACTED]' db > dump.sql"},
          {"docker exec db /usr/bin/mariadb -p\"S3cret\"",
           "docker exec db /usr/bin/mariadb -p\"[REDACTED]\""},
          {"mysql -uroot -p&%-&@.; ls", "mysql -uroot -p[REDACTED]; ls"},
          // sshpass too; the port of the ssh it runs stays.
          {"sshpass -pS3cret ssh -p2222 gpu-node-7", "sshpass -p[REDACTED] ssh -p2222 gpu-node-7"},
      });
  // `mysql -p` alone asks for the password; `-pthread` elsewhere is a compiler flag.
  for (std::string kept :
       {"mysql -u root -p", "mysql -u root -p -h db mlflow", "mysql -u root -p && echo ok",
        "mysql -u root -p; ls", "gcc -pthread -I/usr/include/mysql -pthread x.c",
        "nvcc -pthread -c kernel.cu"}) {
    EXPECT_EQ(redact(kept), kept);
  }
}

TEST(Redact, PemPrivateKeyBlocks) {
  // The body goes line by line (the line count stays), the BEGIN and END lines stay. Base64 lines
  // that '/' splits into runs shorter than the high-entropy rule's 24 characters went through.
  EXPECT_EQ(redact("Loaded key from ~/.ssh/id_rsa:\n"
                   "-----BEGIN RSA PRIVATE KEY-----\n"
                   "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
                   "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
                   "Lxo/S2tFczG/PLPgizs/emMghRn/aoLcyeh/3qqGElv/VDL5AaW/0nLVkjR/\n"
                   "-----END RSA PRIVATE KEY-----\n"
                   "ssh: connect to host gpu-node-7 port 22: Connection refused"),
            "Loaded key from ~/.ssh/id_rsa:\n"
            "-----BEGIN RSA PRIVATE KEY-----\n"
            "[REDACTED]\n"
            "[REDACTED]\n"
            "[REDACTED]\n"
            "-----END RSA PRIVATE KEY-----\n"
            "ssh: connect to host gpu-node-7 port 22: Connection refused");
  // Encrypted PKCS#1 with its headers; indented (YAML) with CRLF line ends.
  EXPECT_EQ(redact("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
                   "DEK-Info: AES-128-CBC,7F0E0B3D8AD1B0A0C6C5CE2F2BE6A1E3\n\n"
                   "Ab3d/Ef5h/Ij7l+Mn9p/\n-----END RSA PRIVATE KEY-----"),
            "-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n[REDACTED]\n\n[REDACTED]\n"
            "-----END RSA PRIVATE KEY-----");
  EXPECT_EQ(
      redact("tls:\n  server.pem: |\r\n    -----BEGIN ENCRYPTED PRIVATE KEY-----\r\n"
             "    MIIFHDBOBgkqhkiG9w0BBQ0w/QTAp\r\n    -----END ENCRYPTED PRIVATE KEY-----\r\n"),
      "tls:\n  server.pem: |\r\n    -----BEGIN ENCRYPTED PRIVATE KEY-----\r\n"
      "    [REDACTED]\r\n    -----END ENCRYPTED PRIVATE KEY-----\r\n");
  // No END line (a truncated key): masked to the end of the text.
  smcompat::testing::expect_mapped(
      redact, {
                  {"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5v/AAAA\n"
                   "Permission denied (publickey).",
                   "-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED]\n[REDACTED]"},
                  // On one line: JSON "\n" escapes, or line breaks lost.
                  {"print: -----BEGIN PRIVATE KEY-----\\nMIIEvQ/AB\\n-----END PRIVATE KEY-----\\n",
                   "print: -----BEGIN PRIVATE KEY-----[REDACTED]-----END PRIVATE KEY-----\\n"},
                  {"-----BEGIN EC PRIVATE KEY----- MHcC/AQEE/IBB -----END EC PRIVATE KEY-----",
                   "-----BEGIN EC PRIVATE KEY----- [REDACTED] -----END EC PRIVATE KEY-----"},
                  {"-----END CERTIFICATE----------BEGIN DSA PRIVATE KEY-----MIIB/x-----END DSA "
                   "PRIVATE KEY-----",
                   "-----END CERTIFICATE----------BEGIN DSA PRIVATE KEY-----[REDACTED]-----END DSA "
                   "PRIVATE KEY-----"},
                  {"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF/abc\n=ab12\n"
                   "-----END PGP PRIVATE KEY BLOCK-----",
                   "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n[REDACTED]\n[REDACTED]\n"
                   "-----END PGP PRIVATE KEY BLOCK-----"},
                  {"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"k\"\nP2/56wAA/Ai4A\n"
                   "---- END SSH2 ENCRYPTED PRIVATE KEY ----",
                   "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n[REDACTED]\n[REDACTED]\n"
                   "---- END SSH2 ENCRYPTED PRIVATE KEY ----"},
              });
  // Certificates, public keys and requests are public: they stay, and a key after them goes.
  std::string cert =
      "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE/AgIB\n-----END CERTIFICATE-----\n";
  std::string pub = "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZI/zj0CAQYI\n-----END PUBLIC KEY-----\n";
  EXPECT_EQ(redact(cert), cert);
  EXPECT_EQ(redact(pub), pub);
  EXPECT_EQ(
      redact(cert + "-----BEGIN PRIVATE KEY-----\nMIIEvQ/IBADA\n-----END PRIVATE KEY-----\n" + pub),
      cert + "-----BEGIN PRIVATE KEY-----\n[REDACTED]\n-----END PRIVATE KEY-----\n" + pub);
  // Not markers: a dashed rule, lower-case text, BEGIN without dashes.
  for (std::string kept : {"---------- BEGIN TRAINING ----------", "-----begin private key-----",
                           "BEGIN PRIVATE KEY then END"}) {
    EXPECT_EQ(redact(kept), kept);
  }
}

TEST(Redact, MaskStopsBeforeClosingQuotesAndBrackets) {
  smcompat::testing::expect_mapped(
      redact,
      {
          {"Run `TOKEN=abc123def` then retry", "Run `TOKEN=[REDACTED]` then retry"},
          {"(HF_TOKEN=abc123) and [API_KEY=xyz]", "(HF_TOKEN=[REDACTED]) and [API_KEY=[REDACTED]]"},
          {"{api_key: abc}", "{api_key: [REDACTED]}"},
          {"see [docs](https://x.example.com/?token=abc123)",
           "see [docs](https://x.example.com/?token=[REDACTED])"},
          {"(Authorization: Bearer abc.def)", "(Authorization: Bearer [REDACTED])"},
          {"`curl -u bob:pw1`, `mysql -pS3cret`", "`curl -u bob:[REDACTED]`, `mysql -p[REDACTED]`"},
          // Brackets and quotes that the secret opened itself belong to it.
          {"password=ab(cd) next", "password=[REDACTED] next"},
          {"password=a`b`c next", "password=[REDACTED]`b`c next"},
          // A quote right after `=` that closes what came before: no value, nothing masked.
          {"Run `export API_KEY=` first", "Run `export API_KEY=` first"},
      });
}

// Linear time on hostile input: 1 MiB lines of hex, '=' signs, URL characters, flags, key=value
// repeats and prefixed tokens redact in well under a second of CPU each, and a quarter of each line
// takes about a quarter of the time (linear: 4x for 4x the input; quadratic would be 16x). The CPU
// time of each is printed. Sanitizer builds (-O0, instrumented) are 30-40x slower: there only the
// ratio is asserted, since their absolute speed is not the subject.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitizedBuild = true;
#else
constexpr bool kSanitizedBuild = false;
#endif
#else
constexpr bool kSanitizedBuild = false;
#endif

TEST(Redact, HostileMegabyteLinesAreLinear) {
  constexpr size_t kSize = 1 << 20;
  auto repeat = [&](std::string_view unit) {
    std::string s;
    while (s.size() < kSize) s += unit;
    return s;
  };
  auto cpu_ms = [](const std::string& text, std::string* out) {
    std::clock_t c0 = std::clock();
    *out = redact(text);
    return 1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  };
  const std::pair<const char*, std::string> inputs[] = {
      {"hex", repeat("0123456789abcdef")},
      {"equals", repeat("=")},
      {"url-chars", "https://" + repeat("a/b?c=d&e%2F:f@")},
      {"scheme-repeats", repeat("a://")},
      {"key=key=", repeat("key=")},
      {"-p -p", repeat("-p ")},
      {"authorization", repeat("Authorization:")},
      {"base62", repeat("aZ3kQ9xB7mW2")},
      {"quotes", "password=\"" + repeat("x'")},
      // The std::regex redactor overflowed the stack (SIGSEGV) on these three.
      {"hf_+base62", "hf_" + repeat("aZ3kQ9xB7mW2")},
      {"eyJ+base62", "eyJ" + repeat("aZ3kQ9xB7mW2")},
      {"Bearer+base62", "Bearer " + repeat("aZ3kQ9xB7mW2")},
      // Issue 28, item 7: PEM markers, user:password flags, netrc, tool contexts, closers.
      {"pem-begin", repeat("-----BEGIN CERTIFICATE-----")},
      {"pem-pairs", repeat("-----BEGIN EC PRIVATE KEY-----x-----END EC PRIVATE KEY-----")},
      {"pem-unterminated", "-----BEGIN PRIVATE KEY-----" + repeat("ab/c\n")},
      {"dashes", repeat("-")},
      {"-u a:b", repeat("-u a:b ")},
      {"netrc", repeat("login u password ")},
      {"mysql -px", "mysql " + repeat("-px ")},
      {"pass:", repeat("-passin pass:x ")},
      {"closers", "token=" + repeat(")]`")},
      {"pwd=`", repeat("pwd=` ")},
  };
  for (auto& [name, text] : inputs) {
    std::string out, quarter_out;
    double ms = cpu_ms(text, &out);
    double quarter_ms = cpu_ms(text.substr(0, text.size() / 4), &quarter_out);
    std::printf("[ redact   ] 1 MiB of %-14s %7.1f ms CPU -> %zu bytes (a quarter: %.1f ms)\n",
                name, ms, out.size(), quarter_ms);
    if (!kSanitizedBuild) EXPECT_LT(ms, 5000.0) << name;  // typically tens of ms
    // Below 50 ms the clock's granularity and noise decide the ratio; nothing quadratic is that
    // fast on 1 MiB.
    if (ms > 50.0) EXPECT_LT(ms, 8.0 * quarter_ms) << name;
  }
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
  auto md = prompt_bundle(e, nullptr, env);
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
