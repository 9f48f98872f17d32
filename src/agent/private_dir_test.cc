#include "agent/private_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace muster {
namespace {

namespace fs = std::filesystem;

class PrivateDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("muster_private_dir_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "a" / "b");
    fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(PrivateDirTest, OwnDirectoriesBelowAStickyOneAreTrusted) {
  // /tmp above them is root's and sticky.
  EXPECT_TRUE(CheckPrivateDir((dir_ / "a" / "b").string()).ok());
  fs::permissions(dir_ / "a", fs::perms::all | fs::perms::sticky_bit);
  EXPECT_TRUE(CheckPrivateDir((dir_ / "a" / "b").string()).ok());
}

TEST_F(PrivateDirTest, AnOpenDirectoryAboveIsNamed) {
  fs::permissions(dir_ / "a", fs::perms::all);  // 0777, not sticky
  const Status st = CheckPrivateDir((dir_ / "a" / "b").string());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "'" + (dir_ / "a").string() +
                              "' is writable by others: the runs' directory and those above it may not be");
}

TEST_F(PrivateDirTest, ASymbolicLinkOrAMissingDirectoryIsRefused) {
  fs::create_directory_symlink(dir_ / "a", dir_ / "link");
  const Status link = CheckPrivateDir((dir_ / "link" / "b").string());
  ASSERT_FALSE(link.ok());
  EXPECT_EQ(link.message(), "'" + (dir_ / "link").string() + "' is not a directory (a symbolic link?)");
  EXPECT_FALSE(CheckPrivateDir((dir_ / "nope").string()).ok());
}

}  // namespace
}  // namespace muster
