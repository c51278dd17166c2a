// Unit tests of the doctor's static fact readers and PyTorch knowledge: kernel module line,
// torch/version.py, dist names, arch lists, channel choice, toolkit version, pyenv discovery.
#include <gtest/gtest.h>

#include "doctor/fixture_env.hpp"
#include "smcompat/doctor/doctor.hpp"
#include "smcompat/util/strings.hpp"

namespace smcompat::doctor {
namespace {

using smcompat::testing::TempDir;
using smcompat::testing::write_file;

TEST(TorchVersionPy, AnnotatedAndPlainAssignments) {
  auto t = parse_torch_version_py(
      "from typing import Optional\n__version__ = '2.7.1+cu128'\ndebug = False\n"
      "cuda: Optional[str] = '12.8'\ngit_version = 'e2d141dbde55c2a4370fac5165b0561b6af4798b'\n"
      "hip: Optional[str] = None\n");
  EXPECT_EQ(t.version, "2.7.1+cu128");
  EXPECT_EQ(t.channel, "cu128");
  ASSERT_TRUE(t.cuda.has_value());
  EXPECT_EQ(t.cuda->to_string(), "12.8");
  EXPECT_EQ(t.git_version, "e2d141dbde55c2a4370fac5165b0561b6af4798b");
  auto old = parse_torch_version_py("__version__ = \"2.1.0\"\ncuda = \"11.8\"\n");
  EXPECT_EQ(old.channel, "");
  EXPECT_EQ(old.cuda->to_string(), "11.8");
  auto cpu = parse_torch_version_py("__version__ = '2.7.0+cpu'\ncuda: Optional[str] = None\n");
  EXPECT_EQ(cpu.channel, "cpu");
  EXPECT_FALSE(cpu.cuda.has_value());
  auto junk = parse_torch_version_py("__version__ = '\ncuda = \x01\x02\n= '1'\n");
  EXPECT_EQ(junk.version, "");
}

TEST(DistNames, Pep503Normalisation) {
  const std::pair<const char*, const char*> names[] = {{"Flash_Attn", "flash-attn"},
                                                       {"nvidia-cublas-cu12", "nvidia-cublas-cu12"},
                                                       {"torch", "torch"},
                                                       {"a.__b", "a-b"}};
  for (auto [name, normal] : names)
    EXPECT_EQ(smcompat::normalize_package_name(name), normal) << name;
  const std::pair<const char*, const char*> tags[] = {{"0.22.0+cu126", "cu126"}, {"0.22.0", ""}};
  for (auto [version, tag] : tags) EXPECT_EQ(local_version_suffix(version), tag) << version;
}

TEST(ArchList, CoversBySassOrPtx) {
  std::vector<std::string> cu126 = {"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"};
  EXPECT_FALSE(arch_list_covers(cu126, {12, 0}));
  EXPECT_TRUE(arch_list_covers(cu126, {9, 0}));
  EXPECT_TRUE(arch_list_covers(cu126, {8, 9}));  // sm_86 SASS runs on 8.9 (same major)
  EXPECT_FALSE(arch_list_covers(cu126, {10, 0}));
  std::vector<std::string> ptx = {"8.0", "9.0+PTX"};
  EXPECT_TRUE(arch_list_covers(ptx, {12, 0}));  // JIT from compute_90
  EXPECT_FALSE(arch_list_covers(ptx, {7, 5}));
  EXPECT_TRUE(arch_list_covers({"12.0"}, {12, 1}));   // GB10 runs sm_120 SASS
  EXPECT_FALSE(arch_list_covers({"9.0a"}, {10, 0}));  // a: exact only
  EXPECT_FALSE(arch_list_covers({"9.0a+PTX"}, {12, 0}));
  EXPECT_FALSE(arch_list_covers({"garbage", ""}, {12, 0}));
}

TEST(TorchChannels, PickTheLowestChannelCoveringEveryGpu) {
  const auto& k = PackageKnowledge::builtin();
  ASSERT_FALSE(k.channels.empty());
  EXPECT_EQ(k.pytorch_index, "https://download.pytorch.org/whl/");
  std::string rel;
  auto* c = pick_channel(k, "2.7.0+cu126", {{12, 0}}, &rel);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->channel, "cu128");
  EXPECT_EQ(rel, "2.7");
  c = pick_channel(k, "2.7.0+cu128", {{9, 0}}, &rel);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->channel, "cu126");
  c = pick_channel(k, "2.11.0+cu126", {{12, 0}, {8, 0}}, &rel);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->channel, "cu128");
  // An unknown release falls back to the newest one in the table.
  c = pick_channel(k, "2.3.1+cu121", {{12, 0}}, &rel);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(rel, k.latest_torch());
  EXPECT_EQ(k.latest_torch(), "2.12");
  EXPECT_EQ(c->channel, "cu130");
  EXPECT_EQ(torch_pip_command(k, *c, "/opt/env/bin/python"),
            "/opt/env/bin/python -m pip install --force-reinstall torch torchvision torchaudio "
            "--index-url https://download.pytorch.org/whl/cu130");
  // Nothing covers sm_110 (Thor) in the x86-64 table.
  EXPECT_EQ(pick_channel(k, "2.7.0", {{11, 0}}), nullptr);
  auto* comp = k.companion("2.7.1+cu128");
  ASSERT_NE(comp, nullptr);
  EXPECT_EQ(comp->torchvision, "0.22");
  EXPECT_EQ(comp->torchaudio, "2.7");
  ASSERT_NE(k.package("Flash_Attn"), nullptr);
  EXPECT_EQ(k.package("bitsandbytes")->min_version_blackwell, "0.45.3");
}

TEST(Toolkits, VersionFromCudaHeaderAndDiscoveryOrder) {
  TempDir t;
  write_file(t.path() + "/cuda-12.8/include/cuda.h", "#pragma once\n#define CUDA_VERSION 12080\n");
  write_file(t.path() + "/cuda-13.0/version.json",
             R"({"cuda": {"name": "CUDA SDK", "version": "13.0.2"}})");
  std::string source;
  auto v = toolkit_version(t.path() + "/cuda-12.8", &source);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->to_string(), "12.8");
  EXPECT_EQ(source, "include/cuda.h CUDA_VERSION 12080");
  auto v13 = toolkit_version(t.path() + "/cuda-13.0", &source);
  ASSERT_TRUE(v13.has_value());
  EXPECT_EQ(v13->to_string(), "13.0");
  EXPECT_EQ(source, "version.json");
  EXPECT_FALSE(toolkit_version(t.path() + "/nothing").has_value());
  auto found =
      find_toolkits({{"CUDA_HOME", t.path() + "/cuda-13.0"}, {"PATH", "/nonexistent"}}, t.path());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].root, t.path() + "/cuda-13.0");
  EXPECT_EQ(found[0].found_by.front(), "CUDA_HOME");
  EXPECT_EQ(found[1].root, t.path() + "/cuda-12.8");
}

TEST(PythonDiscovery, PyenvShimVenvAndSitePackages) {
  TempDir t;
  // A pyenv layout: shims/python3 plus versions/3.11.7 and the global version file.
  write_file(t.path() + "/pyenv/shims/python3", "#!/usr/bin/env bash\n");
  std::filesystem::permissions(t.path() + "/pyenv/shims/python3",
                               std::filesystem::perms::owner_all);
  write_file(t.path() + "/pyenv/version", "3.11.7\n");
  std::filesystem::create_directories(t.path() +
                                      "/pyenv/versions/3.11.7/lib/python3.11/site-packages");
  auto locs = discover_active_pythons(
      {{"PATH", t.path() + "/pyenv/shims"}, {"PYENV_ROOT", t.path() + "/pyenv"}});
  ASSERT_EQ(locs.size(), 1u);
  EXPECT_EQ(locs[0].site_packages,
            t.path() + "/pyenv/versions/3.11.7/lib/python3.11/site-packages");
  EXPECT_EQ(locs[0].kind, "pyenv");
  // A venv given by $VIRTUAL_ENV comes first.
  std::filesystem::create_directories(t.path() + "/venv/lib/python3.12/site-packages");
  locs = discover_active_pythons({{"VIRTUAL_ENV", t.path() + "/venv"},
                                  {"PATH", t.path() + "/pyenv/shims"},
                                  {"PYENV_ROOT", t.path() + "/pyenv"},
                                  {"PYENV_VERSION", "3.11.7"}});
  ASSERT_EQ(locs.size(), 2u);
  EXPECT_EQ(locs[0].found_by, "VIRTUAL_ENV");
  EXPECT_EQ(locs[0].kind, "venv");
  // Outside a venv, the user site of the same Python version is read too (PEP 370).
  std::filesystem::create_directories(t.path() + "/home/.local/lib/python3.11/site-packages");
  locs = discover_active_pythons({{"PATH", t.path() + "/pyenv/shims"},
                                  {"PYENV_ROOT", t.path() + "/pyenv"},
                                  {"HOME", t.path() + "/home"}});
  ASSERT_EQ(locs.size(), 2u);
  EXPECT_EQ(locs[1].site_packages, t.path() + "/home/.local/lib/python3.11/site-packages");
  EXPECT_EQ(locs[1].kind, "user");
  // --python with a site-packages directory, and with nonsense.
  auto sp = locate_python(t.path() + "/venv/lib/python3.12/site-packages", "--python");
  ASSERT_TRUE(sp.ok());
  ASSERT_EQ(sp->size(), 1u);
  EXPECT_EQ((*sp)[0].site_packages, t.path() + "/venv/lib/python3.12/site-packages");
  auto bad = locate_python(t.path() + "/missing", "--python");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().what.find("no such file"), std::string::npos);
}

TEST(PythonEnvReader, BrokenDistInfoDegradesToWarnings) {
  TempDir t;
  std::string site = t.path() + "/env/lib/python3.11/site-packages";
  std::filesystem::create_directories(site + "/broken-1.0.dist-info");  // no METADATA, no RECORD
  write_file(site + "/quoted-2.0.dist-info/METADATA", "Name: quoted\nVersion: 2.0\n");
  write_file(site + "/quoted-2.0.dist-info/RECORD",
             "\"quoted/odd, name.so\",sha256=x,1\nquoted/__init__.py,,\n\"unterminated\n");
  auto env = read_python_env({t.path() + "/env", site, "venv", "test"}, true, 1);
  ASSERT_EQ(env.packages.size(), 2u);
  EXPECT_EQ(env.packages[0].dist.name, "broken");
  EXPECT_EQ(env.packages[0].dist.version, "1.0");
  EXPECT_EQ(env.packages[1].dist.shared_libraries,
            (std::vector<std::string>{site + "/quoted/odd, name.so"}));
  EXPECT_EQ(env.warnings.size(), 2u);  // METADATA and RECORD of "broken"
  EXPECT_FALSE(env.torch.has_value());
}

}  // namespace
}  // namespace smcompat::doctor
