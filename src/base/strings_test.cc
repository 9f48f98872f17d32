#include "base/strings.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(StringsTest, LowerAndSplit) {
  EXPECT_EQ(Lower("GraceTime=30 GRES/GPU"), "gracetime=30 gres/gpu");
  EXPECT_EQ(Split("a,,b,", ','), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Split("", ','), std::vector<std::string>{});
  EXPECT_EQ(Split("one", ','), std::vector<std::string>{"one"});
}

}  // namespace
}  // namespace muster
