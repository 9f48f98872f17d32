#include "model/job_array.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(JobArrayTest, ParsesRangesStepsListsAndThrottles) {
  EXPECT_EQ(ParseArraySpec("1-3")->tasks, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(ParseArraySpec("7")->tasks, (std::vector<int>{7}));
  ArraySpec s = *ParseArraySpec("0-6:2%2");
  EXPECT_EQ(s.tasks, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(s.max_running, 2);
  EXPECT_EQ(ParseArraySpec("5,1-3,3")->tasks, (std::vector<int>{1, 2, 3, 5}));
  EXPECT_EQ(ParseArraySpec("0-1000")->tasks.size(), 1001u);
}

TEST(JobArrayTest, ErrorsSayWhatIsWrong) {
  EXPECT_EQ(ParseArraySpec("5-1").status().message(), "invalid job array '5-1': the range 5-1 is empty");
  EXPECT_EQ(ParseArraySpec("0-1001").status().message(),
            "invalid job array '0-1001': task id 1001 is over the limit (MaxArraySize 1001: ids 0-1000)");
  EXPECT_EQ(ParseArraySpec("1-3%0").status().message(),
            "invalid job array '1-3%0': the limit after '%' must be a positive number");
  EXPECT_EQ(ParseArraySpec("a").status().message(), "invalid job array 'a': 'a' is not a task id");
  EXPECT_EQ(ParseArraySpec("1-x").status().message(), "invalid job array '1-x': '1-x' is not a range of task ids");
  EXPECT_FALSE(ParseArraySpec("").ok());
  EXPECT_FALSE(ParseArraySpec("1,,2").ok());
  EXPECT_FALSE(ParseArraySpec("1-5:0").ok());
  EXPECT_FALSE(ParseArraySpec("-1").ok());
}

TEST(JobArrayTest, FormatsAsSqueueShowsWaitingTasks) {
  EXPECT_EQ(FormatArrayTasks({1, 2, 3}), "1-3");
  EXPECT_EQ(FormatArrayTasks({0, 2, 4, 6}, 2), "0,2,4,6%2");
  EXPECT_EQ(FormatArrayTasks({1, 3, 5, 6, 7}), "1,3,5-7");
  EXPECT_EQ(ArrayTaskStep({0, 2, 4, 6}), 2);
  EXPECT_EQ(ArrayTaskStep({1, 2, 4}), 1);
  EXPECT_EQ(ArrayTaskStep({5}), 1);
}

}  // namespace
}  // namespace muster
