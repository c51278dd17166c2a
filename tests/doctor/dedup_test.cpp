// Each real site-packages directory once: lib64 -> lib symlinks, a .pth naming a site dir that
// is already listed, a user site that is a venv's directory.
#include <gtest/gtest.h>

#include <filesystem>

#include "fixture_env.hpp"
#include "smcompat/doctor/doctor.hpp"

namespace fs = std::filesystem;
using namespace smcompat::doctor;
using smcompat::testing::FakeEnv;
using smcompat::testing::TempDir;
using smcompat::testing::write_file;

namespace {

DoctorReport doctor_with(std::vector<std::string> pythons, Environment env, bool discover) {
  DoctorOptions o;
  o.pythons = std::move(pythons);
  o.discover_active = discover;
  o.env = std::move(env);
  o.usr_local = "/nonexistent";
  o.ld_so_conf = "/nonexistent";
  o.driver = DriverFacts{};
  o.scan_code = false;
  return run_doctor(o);
}

}  // namespace

TEST(DoctorDedup, Lib64SymlinkToLibIsOneEnvironment) {
  TempDir tmp;
  FakeEnv v(tmp.path(), "venv");
  v.add("numpy", "2.4.6");
  write_file(v.prefix() + "/pyvenv.cfg", "home = /usr/bin\n");
  fs::create_directory_symlink("lib", v.prefix() + "/lib64");
  write_file(v.prefix() + "/bin/python", "");
  auto locs = locate_python(v.prefix() + "/bin/python", "--python");
  ASSERT_TRUE(locs);
  ASSERT_EQ(locs->size(), 1u);
  EXPECT_EQ((*locs)[0].site_packages, v.site());
  auto r = doctor_with({v.prefix() + "/bin/python"}, {{"PATH", "/nonexistent"}}, false);
  ASSERT_EQ(r.envs.size(), 1u);
  EXPECT_EQ(r.envs[0].packages.size(), 1u);
}

TEST(DoctorDedup, PthNamingAnotherDirAddsItAndTheSameDirOnce) {
  TempDir tmp;
  FakeEnv v(tmp.path(), "venv");
  v.add("numpy", "2.4.6");
  FakeEnv extra(tmp.path(), "extra");
  extra.add("torch", "2.15.0+cu132");
  // One .pth names the other environment's site dir twice (absolute, relative), one names the
  // venv's own site dir, one is an import line: extra once, the venv once.
  write_file(v.site() + "/a.pth",
             extra.site() + "\n../../../../extra/lib/python3.11/site-packages\n");
  write_file(v.site() + "/b.pth", "# comment\nimport os\n.\n");
  auto pth = pth_locations({v.prefix(), v.site(), "venv", "--python"});
  ASSERT_EQ(pth.size(), 3u);
  EXPECT_EQ(fs::weakly_canonical(pth[0].site_packages), fs::weakly_canonical(extra.site()));
  EXPECT_EQ(pth[0].found_by, "--python (via a.pth)");
  auto r = doctor_with({v.site()}, {{"PATH", "/nonexistent"}}, false);
  ASSERT_EQ(r.envs.size(), 2u);
  EXPECT_EQ(r.envs[0].site_packages, v.site());
  EXPECT_EQ(fs::weakly_canonical(r.envs[1].site_packages), fs::weakly_canonical(extra.site()));
  EXPECT_EQ(r.envs[1].found_by, "--python (via a.pth)");
}

TEST(DoctorDedup, UserSiteThatIsTheVenvDirIsListedOnce) {
  TempDir tmp;
  FakeEnv v(tmp.path(), "venv");
  v.add("numpy", "2.4.6");
  write_file(v.prefix() + "/bin/python3", "#!/bin/sh\n");
  fs::permissions(v.prefix() + "/bin/python3", fs::perms::owner_all);
  // HOME/.local/lib/python3.11/site-packages is a symlink to the venv's site-packages.
  fs::create_directories(tmp.path() + "/home/.local/lib/python3.11");
  fs::create_directory_symlink(v.site(), tmp.path() + "/home/.local/lib/python3.11/site-packages");
  auto r = doctor_with({}, {{"PATH", v.prefix() + "/bin"}, {"HOME", tmp.path() + "/home"}}, true);
  ASSERT_EQ(r.envs.size(), 1u);
  EXPECT_EQ(r.envs[0].site_packages, v.site());
  EXPECT_EQ(r.envs[0].found_by, "python3 on PATH, user site (PEP 370)");
}

TEST(DoctorDedup, UniqueLocationsMergesFoundBy) {
  TempDir tmp;
  FakeEnv v(tmp.path(), "venv");
  fs::create_directory_symlink("lib", v.prefix() + "/lib64");
  auto out = unique_locations(
      {{v.prefix(), v.site(), "venv", "--python"},
       {v.prefix(), v.prefix() + "/lib64/python3.11/site-packages", "venv", "VIRTUAL_ENV"},
       {v.prefix(), v.site(), "venv", "--python"}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].found_by, "--python, VIRTUAL_ENV");
}
