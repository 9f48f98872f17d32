// The tests' own helpers: a TempDir is fresh and goes with everything in it; WaitFor answers
// whether the condition came within its limit.
#include "base/test_util.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "base/read_file.h"

namespace muster {
namespace {

TEST(TestUtilTest, TempDirIsFreshAndGoesWithItsContents) {
  std::string path;
  {
    TempDir a("muster-test-util-"), b("muster-test-util-");
    path = a.path();
    EXPECT_NE(a.path(), b.path());
    EXPECT_EQ(std::filesystem::path(a.path()).filename().string().rfind("muster-test-util-", 0), 0u) << a.path();
    EXPECT_TRUE(std::filesystem::is_empty(a.path()));
    EXPECT_EQ(a.Path("x"), a.path() + "/x");
    ASSERT_EQ(a.Write("x", "one"), a.Path("x"));
    EXPECT_EQ(a.Write("x", "2"), a.Path("x"));  // replaced, not appended
    EXPECT_EQ(ReadFileOrEmpty(a.Path("x")), "2");
    std::filesystem::create_directories(a.Path("d/e"));
    a.Write("d/e/f", "deep");
  }
  EXPECT_FALSE(std::filesystem::exists(path)) << path;
}

TEST(TestUtilTest, WaitForSaysWhetherTheConditionCameInTime) {
  std::atomic<bool> set{false};
  std::thread setter([&] { set = true; });
  EXPECT_TRUE(WaitFor([&] { return set.load(); }, std::chrono::seconds(10), std::chrono::milliseconds(1)));
  setter.join();
  int looks = 0;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(WaitFor([&] { return ++looks < 0; }, std::chrono::milliseconds(30), std::chrono::milliseconds(5)));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(30));
  EXPECT_GE(looks, 2);  // the first look, and the last one at the end
}

}  // namespace
}  // namespace muster
