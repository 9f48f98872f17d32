// ReadWholeFile: every failure is a status, never an exception (a removed cgroup's files answer
// ENODEV to read(2), which libstdc++'s stream reader turns into a throw).
#include "base/read_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace muster {
namespace {

TEST(ReadFileTest, ReadsTheWholeFileAndSaysWhyNot) {
  const std::string path = std::filesystem::temp_directory_path() / ("read_file_test_" + std::to_string(getpid()));
  const std::string big(10000, 'x');  // more than one read
  std::ofstream(path) << big << "end";
  StatusOr<std::string> text = ReadWholeFile(path);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, big + "end");
  std::filesystem::remove(path);
  EXPECT_EQ(ReadWholeFile(path).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ReadFileOrEmpty(path), "");
}

TEST(ReadFileTest, AFileThatFailsToReadIsAnErrorNotAnException) {
  // A directory opens with open(2), then read(2) fails (EISDIR), as a removed cgroup's
  // cgroup.procs does (ENODEV).
  StatusOr<std::string> dir = ReadWholeFile("/");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), StatusCode::kInternal);
  EXPECT_EQ(dir.status().message(), "cannot read '/': Is a directory");
  EXPECT_EQ(ReadFileOrEmpty("/"), "");
}

}  // namespace
}  // namespace muster
