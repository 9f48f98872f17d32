#include "base/stop_with.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(StopWith, ReadsAPidAndNamesABadValue) {
  EXPECT_FALSE(ReadStopWithPid(nullptr).pid);
  EXPECT_EQ(ReadStopWithPid(nullptr).error, "");
  EXPECT_FALSE(ReadStopWithPid("").pid);
  EXPECT_EQ(ReadStopWithPid("4242").pid, std::optional<pid_t>(4242));
  for (const char* bad : {"12x", "-3", "1", "0", "99999999999999"}) {
    StopWith w = ReadStopWithPid(bad);
    EXPECT_FALSE(w.pid) << bad;
    EXPECT_EQ(w.error, std::string("MUSTER_STOP_WITH_PID: expected a process id, got '") + bad + "'");
  }
}

}  // namespace
}  // namespace muster
