// Installed Python distributions as scan/ reads them (scan.hpp: read_installed_distribution,
// dist_info_dirs): core metadata with the directory-name fallback, RECORD paths (PEP 376 CSV)
// made absolute once each, and the warnings for what is missing.
#include <gtest/gtest.h>

#include "doctor/fixture_env.hpp"
#include "smcompat/scan/scan.hpp"

namespace smcompat {
namespace {

using smcompat::testing::TempDir;
using smcompat::testing::write_file;

TEST(InstalledDistribution, MetadataAndRecord) {
  TempDir tmp;
  const std::string site = tmp.path() + "/site-packages";
  const std::string di = site + "/flash_attn-2.8.0.dist-info";
  write_file(di + "/METADATA",
             "Metadata-Version: 2.1\nName: flash_attn\nVersion: 2.8.3\n\nName: x\n");
  write_file(di + "/RECORD",
             "flash_attn/a.so,sha256=x,1\n"
             "\"flash_attn/b,c.so\",,\n"
             "flash_attn/../flash_attn/a.so,,\n"
             "/opt/abs/lib.so,,\n"
             "\n");
  auto d = read_installed_distribution(di);
  EXPECT_EQ(d.name, "flash_attn");
  EXPECT_EQ(d.version, "2.8.3");  // METADATA wins over the directory name
  EXPECT_EQ(d.dist_info, di);
  EXPECT_TRUE(d.has_record);
  EXPECT_TRUE(d.warnings.empty());
  EXPECT_EQ(d.files, (std::vector<std::string>{site + "/flash_attn/a.so",
                                               site + "/flash_attn/b,c.so", "/opt/abs/lib.so"}));
}

TEST(InstalledDistribution, FallsBackToTheDirectoryNameAndWarns) {
  TempDir tmp;
  const std::string di = tmp.path() + "/torch-2.7.0+cu128.dist-info";
  std::filesystem::create_directories(di);
  auto d = read_installed_distribution(di);
  EXPECT_EQ(d.name, "torch");
  EXPECT_EQ(d.version, "2.7.0+cu128");
  EXPECT_FALSE(d.has_record);
  EXPECT_TRUE(d.files.empty());
  ASSERT_EQ(d.warnings.size(), 2u);
  EXPECT_EQ(d.warnings[0], di + ": METADATA missing or unreadable");
  EXPECT_EQ(d.warnings[1], di + ": RECORD missing; its files were not inspected");
}

TEST(InstalledDistribution, DistInfoDirsSortedDirectoriesOnly) {
  TempDir tmp;
  for (const char* d : {"b-1.dist-info", "a-1.dist-info", "a"})
    std::filesystem::create_directories(tmp.path() + "/" + d);
  write_file(tmp.path() + "/c-1.dist-info", "a file, not a directory");
  std::error_code ec;
  EXPECT_EQ(
      dist_info_dirs(tmp.path(), &ec),
      (std::vector<std::string>{tmp.path() + "/a-1.dist-info", tmp.path() + "/b-1.dist-info"}));
  EXPECT_FALSE(ec);
  EXPECT_TRUE(dist_info_dirs(tmp.path() + "/missing", &ec).empty());
  EXPECT_TRUE(ec);
}

}  // namespace
}  // namespace smcompat
