#include "model/dependency.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

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

TEST(DependencyTest, TextIsWhatTheJobKeepsAndReadsBackTheSame) {
  EXPECT_EQ(DependencyText(*ParseDependency("afterok:12:13,afterany:14")), "afterok:12:13,afterany:14");
  EXPECT_EQ(DependencyText(*ParseDependency("afterok:12,afterok:013")), "afterok:12:13");
  EXPECT_EQ(DependencyText(*ParseDependency("singleton?after:3:4?singleton")), "singleton?after:3?after:4?singleton");
  EXPECT_EQ(DependencyText(*ParseDependency("singleton,singleton")), "singleton,singleton");
  EXPECT_EQ(DependencyText(DependencySpec{}), "");
}

RC_GTEST_PROP(DependencyTest, TextRoundTrips, ()) {
  DependencySpec spec;
  spec.any = *rc::gen::arbitrary<bool>();
  const int n = *rc::gen::inRange(0, 6);
  for (int i = 0; i < n; ++i) {
    const auto type = static_cast<DependencyType>(*rc::gen::inRange(0, 6));
    const int64_t id = type == DependencyType::kSingleton ? 0 : *rc::gen::inRange<int64_t>(0, 999999999999999);
    spec.items.push_back({type, id});
  }
  const std::string text = DependencyText(spec);
  StatusOr<DependencySpec> back = ParseDependency(text);
  RC_ASSERT(back.ok());
  if (spec.items.size() < 2) spec.any = back->any;  // one item or none: no separator says which
  RC_ASSERT(*back == spec);
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
