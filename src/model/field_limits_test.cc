#include "model/field_limits.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(FieldLimitsTest, ALongValueIsNamedWithItsLengthAndLimit) {
  EXPECT_TRUE(CheckLength("job name (-J, --job-name)", std::string(1024, 'x'), kMaxJobNameBytes).ok());
  Status st = CheckLength("job name (-J, --job-name)", std::string(10 << 20, 'x'), kMaxJobNameBytes);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "Pathname of a file, directory or other parameter too long: job name (-J, --job-name) is 10485760 bytes, "
            "at most 1024");
}

TEST(FieldLimitsTest, ListsAreBoundEachAndInAll) {
  const std::vector<std::string> fine = {"A=1", "B=" + std::string(kMaxArgBytes - 2, 'x')};
  EXPECT_TRUE(CheckList("environment variable", "the environment", true, fine, kMaxArgBytes, kMaxEnvironmentBytes).ok());
  // One variable too long: named by its name.
  Status st = CheckList("environment variable", "the environment", true,
                        {"A=1", "HUGE=" + std::string(kMaxArgBytes, 'x')}, kMaxArgBytes, kMaxEnvironmentBytes);
  EXPECT_EQ(st.message(),
            "Pathname of a file, directory or other parameter too long: environment variable HUGE is 131077 bytes, at "
            "most 131072");
  // A name longer than the message shows is shortened; an argument is named by its place.
  st = CheckList("environment variable", "the environment", true, {std::string(kMaxArgBytes + 1, 'N')}, kMaxArgBytes,
                 kMaxEnvironmentBytes);
  EXPECT_NE(st.message().find("environment variable 1 is 131073 bytes"), std::string::npos) << st.message();
  st = CheckList("environment variable", "the environment", true, {std::string(100, 'N') + "=" + std::string(kMaxArgBytes, 'v')},
                 kMaxArgBytes, kMaxEnvironmentBytes);
  EXPECT_NE(st.message().find("environment variable " + std::string(64, 'N') + "... is 131173 bytes"), std::string::npos)
      << st.message().substr(0, 200);
  st = CheckList("script argument", "the script's arguments", false, {"a", std::string(kMaxArgBytes + 1, 'x')},
                 kMaxArgBytes, kMaxArgumentsBytes);
  EXPECT_NE(st.message().find("script argument 2 is 131073 bytes, at most 131072"), std::string::npos) << st.message();
  // Many, each short enough, too many in all.
  const std::vector<std::string> many(9, std::string(kMaxArgBytes, 'x'));
  st = CheckList("environment variable", "the environment", true, many, kMaxArgBytes, kMaxEnvironmentBytes);
  EXPECT_EQ(st.message(),
            "Pathname of a file, directory or other parameter too long: the environment in all is 1179648 bytes, at "
            "most 1048576");
}

}  // namespace
}  // namespace muster
