#include "model/dependency.h"

#include <gtest/gtest.h>

#include <map>

namespace muster {
namespace {

TEST(DependencyTest, ParsesSlurmsSyntax) {
  DependencySpec s = *ParseDependency("afterok:12:13,afterany:14");
  ASSERT_EQ(s.items.size(), 3u);
  EXPECT_FALSE(s.any);
  EXPECT_EQ(s.items[0], (DependencyItem{DependencyType::kAfterOk, 12}));
  EXPECT_EQ(s.items[1], (DependencyItem{DependencyType::kAfterOk, 13}));
  EXPECT_EQ(s.items[2], (DependencyItem{DependencyType::kAfterAny, 14}));
  s = *ParseDependency("after:1?afternotok:2?singleton");
  EXPECT_TRUE(s.any);
  ASSERT_EQ(s.items.size(), 3u);
  EXPECT_EQ(s.items[2].type, DependencyType::kSingleton);
  EXPECT_TRUE(ParseDependency("")->items.empty());
  EXPECT_EQ(ParseDependency("aftercorr:5")->items[0].type, DependencyType::kAfterCorr);
}

TEST(DependencyTest, ErrorsNameThePart) {
  EXPECT_EQ(ParseDependency("after:x").status().message(), "invalid dependency 'after:x': 'x' is not a job id");
  EXPECT_EQ(ParseDependency("before:1").status().message(), "invalid dependency 'before:1': unknown type 'before'");
  EXPECT_EQ(ParseDependency("afterok").status().message(), "invalid dependency 'afterok': 'afterok' names no job");
  EXPECT_EQ(ParseDependency("afterok:1,after:2?after:3").status().message(),
            "invalid dependency 'afterok:1,after:2?after:3': ',' and '?' cannot be mixed");
  EXPECT_FALSE(ParseDependency("afterok:1,").ok());
  EXPECT_FALSE(ParseDependency("afterok:").ok());
}

TEST(DependencyTest, EvaluatesAgainstTheJobsStates) {
  std::map<int64_t, JobRecord> jobs;
  auto add = [&](int64_t id, JobState st, int exit_code = 0, int64_t start = 0) {
    JobRecord j;
    j.id = id;
    j.state = st;
    j.exit_code = exit_code;
    j.start_time = start;
    jobs[id] = j;
  };
  add(1, JobState::kPending);
  add(2, JobState::kRunning, 0, 100);
  add(3, JobState::kCompleted, 0, 100);
  add(4, JobState::kFailed, 2, 100);
  add(5, JobState::kCancelled);
  auto find = [&](int64_t id) -> const JobRecord* {
    auto it = jobs.find(id);
    return it == jobs.end() ? nullptr : &it->second;
  };
  auto eval = [&](const char* text, bool singleton = false) { return EvaluateDependency(*ParseDependency(text), find, singleton); };
  using S = DependencyState;
  EXPECT_EQ(eval("after:1"), S::kWaiting);
  EXPECT_EQ(eval("after:2"), S::kSatisfied);
  EXPECT_EQ(eval("after:5"), S::kSatisfied);  // cancelled before it started
  EXPECT_EQ(eval("afterany:2"), S::kWaiting);
  EXPECT_EQ(eval("afterany:4"), S::kSatisfied);
  EXPECT_EQ(eval("afterok:3"), S::kSatisfied);
  EXPECT_EQ(eval("afterok:4"), S::kNever);
  EXPECT_EQ(eval("afterok:5"), S::kNever);
  EXPECT_EQ(eval("afternotok:4"), S::kSatisfied);
  EXPECT_EQ(eval("afternotok:3"), S::kNever);
  EXPECT_EQ(eval("afterok:99"), S::kSatisfied);  // unknown (purged): satisfied
  EXPECT_EQ(eval("afterok:3,afterany:2"), S::kWaiting);
  EXPECT_EQ(eval("afterok:4,afterany:2"), S::kNever);
  EXPECT_EQ(eval("afterok:4?afterany:2"), S::kWaiting);
  EXPECT_EQ(eval("afterok:4?afterok:5"), S::kNever);
  EXPECT_EQ(eval("afterok:4?afterok:3"), S::kSatisfied);
  EXPECT_EQ(eval("singleton", true), S::kWaiting);
  EXPECT_EQ(eval("singleton", false), S::kSatisfied);
  // What squeue %E shows: the items left, marked.
  DependencySpec spec = *ParseDependency("afterok:3,afterok:1,afterok:4");
  std::vector<DependencyState> states;
  for (const DependencyItem& i : spec.items) states.push_back(ItemState(i, find, false));
  EXPECT_EQ(FormatDependency(spec, states), "afterok:1(unfulfilled),afterok:4(failed)");
}

}  // namespace
}  // namespace muster
