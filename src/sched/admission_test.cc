#include "sched/admission.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

std::string Why(const AdmissionFacts& f) {
  const std::optional<PendingReason> r = AdmissionReason(f);
  return r ? PendingReasonName(*r) : "offered";
}

TEST(AdmissionTest, EachCheckGivesSlurmsReason) {
  EXPECT_EQ(Why({.now = 100}), "offered");
  EXPECT_EQ(Why({.now = 100, .begin_time = 101}), "BeginTime");
  EXPECT_EQ(Why({.now = 100, .begin_time = 100}), "offered");  // its time has come
  EXPECT_EQ(Why({.now = 100, .dependency = DependencyState::kWaiting}), "Dependency");
  EXPECT_EQ(Why({.now = 100, .dependency = DependencyState::kNever}), "DependencyNeverSatisfied");
  EXPECT_EQ(Why({.now = 100, .dependency = DependencyState::kSatisfied}), "offered");
  EXPECT_EQ(Why({.now = 100, .array_max_running = 2, .array_running = 2}), "JobArrayTaskLimit");
  EXPECT_EQ(Why({.now = 100, .array_max_running = 2, .array_running = 1}), "offered");
  EXPECT_EQ(Why({.now = 100, .preemptor_waits = true}), "Priority");
}

TEST(AdmissionTest, TheFirstCheckThatHoldsTheJobNamesIt) {
  const AdmissionFacts all{.now = 100, .begin_time = 200, .dependency = DependencyState::kNever,
                           .array_max_running = 1, .array_running = 1, .preemptor_waits = true};
  EXPECT_EQ(Why(all), "BeginTime");
  AdmissionFacts f = all;
  f.begin_time = 0;
  EXPECT_EQ(Why(f), "DependencyNeverSatisfied");
  f.dependency.reset();
  EXPECT_EQ(Why(f), "JobArrayTaskLimit");
  EXPECT_FALSE(PassesArrayLimit(f));
  f.array_running = 0;
  EXPECT_TRUE(PassesArrayLimit(f));
  EXPECT_EQ(Why(f), "Priority");
}

}  // namespace
}  // namespace muster
