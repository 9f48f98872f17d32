// ReadWholeFile: every failure is a status, never an exception (a removed cgroup's files answer
// ENODEV to read(2), which libstdc++'s stream reader turns into a throw).
#include "base/read_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>

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

TEST(ReadFileTest, ReadAllReadsToTheEndNotByTheSize) {
  // A pipe has no size to go by (as /proc and /sys files say 0): what was written, all of it.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::string sent = std::string(20000, 'y') + "end";  // more than one read, less than the pipe holds
  ASSERT_EQ(write(fds[1], sent.data(), sent.size()), static_cast<ssize_t>(sent.size()));
  close(fds[1]);
  std::string got = "kept:";
  EXPECT_EQ(ReadAll(fds[0], &got), 0);
  close(fds[0]);
  EXPECT_EQ(got, "kept:" + sent);
  // A read that fails: its errno, for the caller's own words.
  const int dir = open("/", O_RDONLY | O_DIRECTORY);
  ASSERT_GE(dir, 0);
  std::string none;
  EXPECT_EQ(ReadAll(dir, &none), EISDIR);
  close(dir);
  EXPECT_EQ(none, "");
}

}  // namespace
}  // namespace muster
