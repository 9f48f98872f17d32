#include "sched/job_order.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sched/priority_policy.h"

namespace muster {
namespace {

TEST(JobOrderRegistryTest, ListsEveryOrderByTheNameItGoesBy) {
  std::vector<std::string> names;
  for (std::string_view name : JobOrderRegistry::Names()) {
    names.emplace_back(name);
    std::unique_ptr<const JobOrderPolicy> order = JobOrderRegistry::Create(name);
    ASSERT_NE(order, nullptr) << name;
    EXPECT_EQ(order->name(), name);
  }
  // In this order muster.yaml's error message lists them.
  EXPECT_EQ(names, (std::vector<std::string>{"multifactor", "least-attained", "shortest-remaining"}));
}

TEST(JobOrderRegistryTest, AnUnknownNameIsNoOrder) {
  EXPECT_EQ(JobOrderRegistry::Create("newest-first"), nullptr);
  EXPECT_EQ(JobOrderRegistry::Create(""), nullptr);
  EXPECT_EQ(JobOrderRegistry::Create("Multifactor"), nullptr) << "the configuration spells it as listed";
}

TEST(JobOrderRegistryTest, MultifactorIsTheDefault) {
  EXPECT_EQ(JobOrderRegistry::kDefault, "multifactor");
  const PrioritySettings s;
  ASSERT_NE(s.order, nullptr);
  EXPECT_EQ(s.order->name(), "multifactor");
}

}  // namespace
}  // namespace muster
