#include "base/status.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

StatusOr<int> Half(int v) {
  if (v % 2 != 0) return InvalidArgument("value " + std::to_string(v) + " is odd");
  return v / 2;
}

StatusOr<int> Quarter(int v) {
  ASSIGN_OR_RETURN(int h, Half(v));
  ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(StatusTest, OkAndErrorValues) {
  EXPECT_TRUE(Status::Ok().ok());
  Status s = InvalidArgument("node 'gpu-017' is not registered");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.ToString(), "INVALID_ARGUMENT: node 'gpu-017' is not registered");
  EXPECT_EQ(s.WithPrefix("line 3").message(), "line 3: node 'gpu-017' is not registered");
}

TEST(StatusTest, AssignOrReturnPropagates) {
  EXPECT_EQ(*Quarter(8), 2);
  StatusOr<int> bad = Quarter(6);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "value 3 is odd");
}

TEST(StatusDeathTest, ValueOfErrorAborts) {
  StatusOr<int> bad = Half(1);
  EXPECT_DEATH((void)bad.value(), "value\\(\\) on error");
}

}  // namespace
}  // namespace muster
