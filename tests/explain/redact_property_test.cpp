// Redaction property test: random secrets of every supported form, planted with random quoting
// and punctuation at random word boundaries of real log lines (the error texts users posted in
// the issues behind data/failure_modes.json, CUDA/PyTorch/pip/ptxas output, docs/explain.md),
// must not survive redact(), not even as an 8-character piece. Fixed seed, so a failure
// reproduces; the counts per form are printed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "smcompat/explain/explain.hpp"

namespace smcompat::explain {
namespace {

// Real log lines. None has a word that redact() reads as "this hex is a digest" (commit, sha,
// hash, rev, git, checksum, digest, md5, blake, tree, blob, build, snapshots, resolve), so a hex
// key planted anywhere in them must go; the digest rule has its own tests in redact_test.cpp.
const std::vector<std::string>& log_lines() {
  static const std::vector<std::string> lines = {
      "RuntimeError: CUDA error: no kernel image is available for execution on the device",
      "CUDA kernel errors might be asynchronously reported at some other API call, so the "
      "stacktrace below might be incorrect.",
      "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
      "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
      "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
      "PyTorch installation.",
      "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 "
      "sm_90.",
      "If you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check the "
      "instructions at https://pytorch.org/get-started/locally/",
      "(VllmWorker rank=0 pid=4242) ERROR RuntimeError: CUDA error: no kernel image is available",
      "WARNING:bitsandbytes.cextension:Could not find the bitsandbytes CUDA binary at "
      "PosixPath('/venv/lib/python3.11/site-packages/bitsandbytes/libbitsandbytes_cuda128.so')",
      "ptxas /tmp/tmpxft_00004a1b_00000000-6_fp8_gemm.ptx, line 1187; error   : Instruction "
      "'cvt with .e2m1x2' not supported on .target 'sm_120'",
      "ptxas fatal   : Ptx assembly aborted due to errors",
      "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
      "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, "
      "Hardware limit: 101376. Reducing block sizes or `num_stages` may help.",
      "RuntimeError: No compiled cutlass_scaled_mm for CUDA device capability: 120",
      "RuntimeError: The NVIDIA driver on your system is too old (found version 12020).",
      "CUDA driver version is insufficient for CUDA runtime version",
      "cudaGetDeviceCount returned 34 (CUDA driver is a stub library)",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
      "capacity of 31.36 GiB of which 1.12 GiB is free.",
      "Segmentation fault at address 0x7f3a4c2b1000 in libcuda.so.1 (pc 0x00007f3a4c2b1e5c)",
      "  File \"/home/alice/venv/lib/python3.12/site-packages/torch/cuda/__init__.py\", line 372, "
      "in _lazy_init",
      "    torch._C._cuda_init()",
      "Successfully installed torch-2.7.0+cu128 torchvision-0.22.0+cu128 "
      "nvidia-cublas-cu12-12.8.3.14",
      "Looking in indexes: https://download.pytorch.org/whl/cu128",
      "Downloading https://download.pytorch.org/whl/cu128/"
      "torch-2.7.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl (1087.6 MB)",
      "Collecting nvidia-cudnn-cu12==9.7.1.26 (from torch==2.7.0+cu128)",
      "NVIDIA-SMI 570.86.10   Driver Version: 570.86.10   CUDA Version: 12.8",
      "|   0  NVIDIA GeForce RTX 5090        Off |   00000000:01:00.0  On |                  N/A |",
      "nvcc fatal   : Unsupported gpu architecture 'compute_120'",
      "/usr/local/cuda-12.8/bin/nvcc -gencode arch=compute_120,code=sm_120 -O3 -pthread -c "
      "kernel.cu -o kernel.o",
      "ld.so: /usr/local/cuda-12.8/lib64/libcudart.so.12: version `libcudart.so.12' not found",
      "mkdir -p /tmp/torch_extensions/py311_cu128 && ssh -p 2222 gpu-node-7",
      "docker run --gpus all -p 8080:80 -v /data/models:/models vllm/vllm-openai:v0.9.1",
      "KeyError: 'model.layers.0.self_attn.q_proj.weight'",
      "INFO 06-12 10:31:44 [loader.py:458] Loading weights took 12.84 seconds",
      "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
      "huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url "
      "https://huggingface.co/meta-llama/Meta-Llama-3-8B-Instruct/main/config.json.",
      "  ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd7];",
      ".target sm_120a",
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f5, %f6, %f7, %f8}, {%r1, %r2}, "
      "{%r3}, {%f1, %f2, %f3, %f4};",
      "[rank0]: torch.distributed.DistBackendError: NCCL error in: "
      "../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled cuda error",
      "Error 804: forward compatibility was attempted on non supported HW",
      "Exit codes: 0 at least one known failure mode matched, 1 nothing matched, 2 usage or I/O "
      "error",
  };
  return lines;
}

using Rng = std::mt19937_64;

size_t pick(Rng& rng, size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }
size_t between(Rng& rng, size_t lo, size_t hi) {
  return std::uniform_int_distribution<size_t>(lo, hi)(rng);
}
std::string random_of(Rng& rng, std::string_view alphabet, size_t n) {
  std::string s;
  for (size_t k = 0; k < n; ++k) s += alphabet[pick(rng, alphabet.size())];
  return s;
}

constexpr std::string_view kUpper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
constexpr std::string_view kDigits = "0123456789";
constexpr std::string_view kBase62 =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
constexpr std::string_view kBase64Url =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
// A password typed on a command line: no blanks, quotes or backslashes.
constexpr std::string_view kPasswordChars =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%^&*_+=-.,:;?@~";

std::string password(Rng& rng, size_t lo = 8, size_t hi = 24) {
  std::string p = random_of(rng, kPasswordChars, between(rng, lo, hi));
  // Documented: after `-p` a leading '-', '/', '.', '~' or an all-digit value is not a password.
  if (std::string_view("-/.~").find(p[0]) != std::string_view::npos || isdigit(p[0])) p[0] = 'x';
  return p;
}

// A planted secret: the text to insert and the secret that must not survive.
struct Plant {
  std::string text;
  std::string secret;
};

using Form = std::function<Plant(Rng&)>;

std::vector<std::pair<std::string, Form>> forms() {
  std::vector<std::pair<std::string, Form>> f;
  // Command-line flags, space-separated and with '='.
  f.push_back({"flag", [](Rng& r) {
                 static const char* flags[] = {
                     "-p",       "--password", "--api-key",       "--token",
                     "--passwd", "--hf-token", "--client-secret", "--access-token"};
                 std::string s = password(r);
                 std::string flag = flags[pick(r, std::size(flags))];
                 const std::string spellings[] = {flag + " " + s, flag + "  \"" + s + "\"",
                                                  flag + " '" + s + "'",
                                                  flag == "-p" ? "-p " + s : flag + "=" + s};
                 return Plant{spellings[pick(r, std::size(spellings))], s};
               }});
  // Token families with documented prefixes.
  f.push_back(
      {"token", [](Rng& r) {
         std::string s;
         switch (pick(r, 12)) {
           case 0:
             s = std::string(pick(r, 2) ? "AKIA" : "ASIA") +
                 random_of(r, std::string(kUpper) + std::string(kDigits), 16);
             break;
           case 1:
             s = "hf_" + random_of(r, kBase62, 34);
             break;
           case 2:
             s = std::string("gh") + "pousr"[pick(r, 5)] + "_" + random_of(r, kBase62, 36);
             break;
           case 3:
             s = "github_pat_" + random_of(r, kBase62, 22) + "_" + random_of(r, kBase62, 59);
             break;
           case 4:
             s = "glpat-" + random_of(r, kBase64Url, 20);
             break;
           case 5:
             s = std::string("xox") + "bpars"[pick(r, 5)] + "-" + random_of(r, kDigits, 12) + "-" +
                 random_of(r, kDigits, 13) + "-" + random_of(r, kBase62, 24);
             break;
           case 6:
             s = std::string(pick(r, 2) ? "sk-proj-" : "sk-") +
                 random_of(r, kBase64Url, between(r, 32, 120));
             break;
           case 7:
             s = "AIza" + random_of(r, kBase64Url, 35);
             break;
           case 8:
             s = "nvapi-" + random_of(r, kBase64Url, 64);
             break;
           case 9:
             s = "eyJ" + random_of(r, kBase64Url, between(r, 20, 60)) + ".eyJ" +
                 random_of(r, kBase64Url, between(r, 20, 200)) + "." + random_of(r, kBase64Url, 43);
             break;
           case 10:
             s = "pypi-AgEIcHlwaS5vcmc" + random_of(r, kBase64Url, 60);
             break;
           default:
             s = "sk_live_" + random_of(r, kBase62, 24);
             break;
         }
         return Plant{s, s};
       }});
  f.push_back({"hex", [](Rng& r) {
                 std::string s = random_of(r, pick(r, 4) ? "0123456789abcdef" : "0123456789ABCDEF",
                                           between(r, 32, 96));
                 return Plant{s, s};
               }});
  f.push_back({"url-userinfo", [](Rng& r) {
                 static const char* schemes[] = {"https", "http", "git+https", "postgresql",
                                                 "redis", "amqp", "ftp",       "s3"};
                 std::string scheme = schemes[pick(r, std::size(schemes))];
                 std::string host = pick(r, 2) ? "mirror.example.com" : "10.0.0.5:5432";
                 if (pick(r, 3) == 0) {
                   std::string tok = pick(r, 2) ? "ghp_" + random_of(r, kBase62, 36)
                                                : random_of(r, kBase62, between(r, 20, 40));
                   return Plant{scheme + "://" + tok + "@github.com/org/repo.git", tok};
                 }
                 // A password in a URL has its delimiters percent-encoded.
                 std::string pw =
                     random_of(r, std::string(kBase62) + "-._~!$&*+,;=%", between(r, 8, 32));
                 return Plant{scheme + "://deploy:" + pw + "@" + host + "/db/simple", pw};
               }});
  f.push_back({"url-path", [](Rng& r) {
                 std::string s;
                 switch (pick(r, 4)) {
                   case 0:
                     s = random_of(r, kBase62, 24);
                     return Plant{
                         "https://hooks.slack.com/services/T" +
                             random_of(r, std::string(kUpper) + std::string(kDigits), 8) + "/B" +
                             random_of(r, std::string(kUpper) + std::string(kDigits), 10) + "/" + s,
                         s};
                   case 1:
                     s = random_of(r, kBase64Url, 68);
                     return Plant{
                         "https://discord.com/api/webhooks/" + random_of(r, kDigits, 18) + "/" + s,
                         s};
                   case 2:
                     s = random_of(r, kBase64Url, 35);
                     return Plant{"https://api.telegram.org/bot" + random_of(r, kDigits, 10) + ":" +
                                      s + "/sendMessage?chat_id=42",
                                  s};
                   default:
                     s = random_of(r, pick(r, 2) ? kBase62 : kBase64Url, between(r, 20, 64));
                     return Plant{"https://ci.example.org/hooks/v2/" + s + "/trigger.json", s};
                 }
               }});
  f.push_back({"url-query", [](Rng& r) {
                 static const char* names[] = {
                     "token",           "access_token", "api_key", "sig",
                     "X-Amz-Signature", "key",          "secret",  "auth"};
                 std::string s = pick(r, 2) ? random_of(r, kBase64Url, between(r, 8, 48))
                                            : random_of(r, "0123456789abcdef", 64);
                 std::string name = names[pick(r, std::size(names))];
                 if (pick(r, 4) == 0) {  // a random value under a harmless name
                   s = random_of(r, kBase62, between(r, 24, 64));
                   name = "id";
                 }
                 return Plant{"https://storage.example.com/v1/models/llama.bin?x-id=GetObject&" +
                                  name + "=" + s + "&expires=3600",
                              s};
               }});
  f.push_back({"authorization", [](Rng& r) {
                 static const char* schemes[] = {"Bearer", "Basic",  "Token",  "token",
                                                 "ApiKey", "Digest", "bearer", ""};
                 std::string scheme = schemes[pick(r, std::size(schemes))];
                 std::string s = random_of(r, std::string(kBase64Url) + "./+=", between(r, 8, 64));
                 std::string value = scheme.empty() ? s : scheme + " " + s;
                 switch (pick(r, 5)) {
                   case 0:
                     return Plant{"Authorization: " + value, s};
                   case 1:
                     return Plant{"-H \"Authorization: " + value + "\"", s};
                   case 2:
                     return Plant{"{'Authorization': '" + value + "', 'Accept': '*/*'}", s};
                   case 3:
                     return Plant{"\"authorization\":\"" + value + "\"", s};
                   default:
                     return Plant{"Proxy-Authorization: " + value, s};
                 }
               }});
  f.push_back({"high-entropy", [](Rng& r) {
                 // Random base62 with upper, lower and digit (the rule's precondition).
                 std::string s;
                 do s = random_of(r, kBase62, between(r, 24, 64));
                 while (s.find_first_of(kUpper) == std::string::npos ||
                        s.find_first_of(kDigits) == std::string::npos ||
                        s.find_first_of("abcdefghijklmnopqrstuvwxyz") == std::string::npos);
                 if (pick(r, 2)) return Plant{"https://cdn.example.net/" + s + "/x", s};
                 return Plant{s, s};
               }});
  f.push_back({"assignment", [](Rng& r) {
                 static const char* keys[] = {
                     "API_KEY",     "HF_TOKEN", "db_password",          "client_secret",
                     "\"api_key\"", "'secret'", "AWS_SECRET_ACCESS_KEY"};
                 std::string s = password(r);
                 std::string k = keys[pick(r, std::size(keys))];
                 switch (pick(r, 3)) {
                   case 0:
                     return Plant{k + "=" + s, s};
                   case 1:
                     return Plant{k + ": \"" + s + "\"", s};
                   default:
                     return Plant{k + " = '" + s + " " + password(r) + "'", s};
                 }
               }});
  // Issue 28, item 7: forms that survived the first round.
  f.push_back({"curl-user", [](Rng& r) {
                 static const char* users[] = {"alice", "deploy", "me@example.com", "svc_ci-42"};
                 std::string user = users[pick(r, std::size(users))];
                 std::string s = password(r);
                 const std::string spellings[] = {
                     "curl -fsSL -u " + user + ":" + s + " https://nexus.example.com/r/x.whl",
                     "curl --user " + user + ":" + s + " -O https://example.com/f",
                     "curl --user=" + user + ":" + s,
                     "curl -u '" + user + ":" + s + "' https://example.com",
                     "curl -su " + user + ":" + s,
                     "['curl', '-u', '" + user + ":" + s + "', 'https://x']",
                     "curl --proxy-user " + user + ":" + s + " https://example.com"};
                 return Plant{spellings[pick(r, std::size(spellings))], s};
               }});
  f.push_back({"netrc", [](Rng& r) {
                 static const char* hosts[] = {"api.example.com", "huggingface.co", "10.0.0.5"};
                 std::string host = hosts[pick(r, std::size(hosts))];
                 std::string s = password(r);
                 const std::string spellings[] = {
                     "machine " + host + " login alice password " + s,
                     "machine " + host + "\n  login alice\n  password " + s,
                     "machine " + host + " password " + s + " login alice",
                     "default login anonymous password " + s,
                     "echo \"machine " + host + " login bob password " + s + "\" >> ~/.netrc"};
                 return Plant{spellings[pick(r, std::size(spellings))], s};
               }});
  f.push_back({"ldap", [](Rng& r) {
                 static const char* tools[] = {"ldapsearch", "ldapmodify", "/usr/bin/ldapwhoami",
                                               "ldapadd"};
                 std::string tool = tools[pick(r, std::size(tools))];
                 std::string s = password(r);
                 std::string common =
                     tool + " -x -H ldap://ldap.example.org -D cn=admin,dc=example";
                 const std::string spellings[] = {common + " -w " + s + " -b dc=example",
                                                  common + " -w" + s, common + " -w '" + s + "'",
                                                  tool + " -w " + s};
                 return Plant{spellings[pick(r, std::size(spellings))], s};
               }});
  f.push_back({"openssl-pass", [](Rng& r) {
                 static const char* flags[] = {"-passin", "-passout", "-pass", "-password"};
                 std::string flag = flags[pick(r, std::size(flags))];
                 std::string s = password(r);
                 const std::string spellings[] = {
                     "openssl rsa -in key.pem " + flag + " pass:" + s + " -out plain.pem",
                     "openssl pkcs12 -export -in c.pem " + flag + " 'pass:" + s + "'",
                     "openssl enc -aes-256-cbc " + flag + " \"pass:" + s + "\"",
                     flag + " pass:" + s};
                 return Plant{spellings[pick(r, std::size(spellings))], s};
               }});
  f.push_back({"smbclient", [](Rng& r) {
                 std::string s = password(r);
                 const std::string spellings[] = {"smbclient //fs01/models -U alice%" + s,
                                                  "smbclient -U 'CORP\\alice%" + s + "' -L fs01",
                                                  "smbclient //fs01/x --user=alice%" + s,
                                                  "smbclient -Ualice%" + s + " //fs01/x"};
                 return Plant{spellings[pick(r, std::size(spellings))], s};
               }});
  f.push_back({"mysql-attached", [](Rng& r) {
                 static const char* tools[] = {"mysql", "mysqldump", "mariadb", "/usr/bin/mysql",
                                               "sshpass"};
                 std::string tool = tools[pick(r, std::size(tools))];
                 std::string s = password(r);
                 const std::string spellings[] = {tool + " -h db -u root -p" + s + " mlflow",
                                                  tool + " -uroot -p" + s,
                                                  tool + " -u root -p'" + s + "' mlflow",
                                                  "docker exec db " + tool + " -p\"" + s + "\""};
                 return Plant{spellings[pick(r, std::size(spellings))], s};
               }});
  // PEM private keys: base64 lines that '/' splits into runs too short for the other rules.
  f.push_back({"pem-key", [](Rng& r) {
                 static const char* labels[] = {"RSA PRIVATE KEY",       "PRIVATE KEY",
                                                "ENCRYPTED PRIVATE KEY", "EC PRIVATE KEY",
                                                "OPENSSH PRIVATE KEY",   "DSA PRIVATE KEY"};
                 constexpr std::string_view kBase64 =
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
                 std::string label = labels[pick(r, std::size(labels))];
                 bool one_line = pick(r, 8) == 0;  // a JSON string: "\n" escapes
                 std::string nl = one_line ? "\\n" : pick(r, 4) ? "\n" : "\r\n";
                 std::string indent = !one_line && pick(r, 4) == 0 ? "    " : "";
                 size_t width = label == "OPENSSH PRIVATE KEY" ? 70 : 64;
                 std::string head = "-----BEGIN " + label + "-----" + nl;
                 if (label == "RSA PRIVATE KEY" && pick(r, 3) == 0)
                   head += indent + "Proc-Type: 4,ENCRYPTED" + nl + indent +
                           "DEK-Info: AES-128-CBC," + random_of(r, "0123456789ABCDEF", 32) + nl +
                           nl;
                 std::string body, text = head;
                 size_t lines = between(r, 1, 26);
                 for (size_t k = 0; k < lines; ++k) {
                   std::string line =
                       random_of(r, kBase64, k + 1 < lines ? width : between(r, 4, width));
                   if (k + 1 == lines && pick(r, 2)) line += pick(r, 2) ? "=" : "==";
                   body += (k ? "\n" : "") + line;
                   text += indent + line + nl;
                 }
                 // 1 in 8 truncated: no END line (masked to the end of the text).
                 if (pick(r, 8)) text += indent + "-----END " + label + "-----";
                 return Plant{text, body};
               }});
  return f;
}

// Wraps the planted text in random quoting and punctuation; `*closer` is the closing quote,
// backtick or bracket added, or 0.
std::string surround(Rng& rng, const std::string& text, char* closer) {
  static const std::pair<const char*, const char*> wraps[] = {
      {"", ""},   {"'", "'"}, {"\"", "\""}, {"(", ")"}, {"[", "]"}, {"<", ">"},
      {"`", "`"}, {"", ","},  {"", "."},    {"", ";"},  {"=", ""},  {": ", ""}};
  auto& w = wraps[pick(rng, std::size(wraps))];
  *closer =
      std::string_view(")]>`\"'").find(w.second[0]) != std::string_view::npos ? w.second[0] : 0;
  return w.first + text + w.second;
}

// Word boundaries of a line: its start, its end and every blank.
std::string plant_at_random_boundary(Rng& rng, const std::string& line, const std::string& text) {
  std::vector<size_t> at{0, line.size()};
  for (size_t k = 0; k < line.size(); ++k)
    if (line[k] == ' ') at.push_back(k + 1);
  size_t pos = at[pick(rng, at.size())];
  std::string before = line.substr(0, pos), after = line.substr(pos);
  if (!before.empty() && before.back() != ' ') before += ' ';
  return before + text + (after.empty() || after[0] == ' ' ? "" : " ") + after;
}

// The first 8-character piece of `secret` found in `out` and not in `line`, or "".
std::string leaked_piece(const std::string& out, const std::string& line,
                         const std::string& secret) {
  constexpr size_t kPiece = 8;
  if (secret.size() < kPiece) return out.find(secret) != std::string::npos ? secret : "";
  for (size_t k = 0; k + kPiece <= secret.size(); ++k) {
    std::string piece = secret.substr(k, kPiece);
    if (out.find(piece) != std::string::npos && line.find(piece) == std::string::npos) return piece;
  }
  return "";
}

// How often `c` occurs in `s` outside the "[REDACTED]" masks.
size_t count_outside_masks(const std::string& s, char c) {
  size_t n = std::count(s.begin(), s.end(), c);
  if (c != ']') return n;
  for (size_t at = s.find("[REDACTED]"); at != std::string::npos; at = s.find("[REDACTED]", at + 1))
    --n;
  return n;
}

TEST(RedactProperty, RealLinesSurviveUntouched) {
  for (auto& line : log_lines()) EXPECT_EQ(redact(line), line);
}

TEST(RedactProperty, NoPlantedSecretSurvives) {
  // SMCOMPAT_REDACT_SEED explores other seeds; the suite runs the fixed one.
  const char* seed_env = std::getenv("SMCOMPAT_REDACT_SEED");
  uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : 20260811;
  Rng rng(seed);
  auto all = forms();
  constexpr int kCasesPerForm = 2000;
  size_t total = 0, leaks = 0, closers_checked = 0;
  for (auto& [name, make] : all) {
    size_t form_leaks = 0;
    for (int c = 0; c < kCasesPerForm; ++c) {
      const std::string& line = log_lines()[pick(rng, log_lines().size())];
      Plant p = make(rng);
      char closer = 0;
      std::string text = plant_at_random_boundary(rng, line, surround(rng, p.text, &closer));
      // Sometimes two lines, the secret on either: redaction must not depend on line position.
      if (pick(rng, 4) == 0) text = pick(rng, 2) ? line + "\n" + text : text + "\n" + line;
      std::string out = redact(text);
      std::string piece = leaked_piece(out, line, p.secret);
      ++total;
      if (!piece.empty()) {
        ++form_leaks;
        if (form_leaks <= 5)
          ADD_FAILURE() << name << ": \"" << piece << "\" of " << p.secret << " survives in\n  "
                        << text << "\n->" << out;
      }
      // The line count never changes (no mask crosses a line break).
      EXPECT_EQ(std::count(out.begin(), out.end(), '\n'),
                std::count(text.begin(), text.end(), '\n'));
      // A mask stops before the quote, backtick or bracket that closes the planted text (no
      // secret holds one). Not checked where a mask runs to the end of the line or text by rule:
      // an unquoted Authorization header, a PEM key without its END line.
      bool to_the_end = name == "authorization" ||
                        (name == "pem-key" && p.text.find("-----END") == std::string::npos);
      if (closer && !to_the_end) {
        ++closers_checked;
        EXPECT_EQ(count_outside_masks(out, closer), count_outside_masks(text, closer))
            << name << ": the closing " << closer << " is lost in\n  " << text << "\n->" << out;
      }
    }
    leaks += form_leaks;
    std::printf("[ redact   ] %-14s %d cases, %zu leaks\n", name.c_str(), kCasesPerForm,
                form_leaks);
  }
  std::printf(
      "[ redact   ] seed %llu: total %zu cases, %zu leaks, %zu closing quotes/brackets kept\n",
      static_cast<unsigned long long>(seed), total, leaks, closers_checked);
  EXPECT_EQ(leaks, 0u);
}

}  // namespace
}  // namespace smcompat::explain
