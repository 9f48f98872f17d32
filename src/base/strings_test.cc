#include "base/strings.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace muster {
namespace {

TEST(StringsTest, LowerAndSplit) {
  EXPECT_EQ(Lower("GraceTime=30 GRES/GPU"), "gracetime=30 gres/gpu");
  EXPECT_EQ(Split("a,,b,", ','), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Split("", ','), std::vector<std::string>{});
  EXPECT_EQ(Split("one", ','), std::vector<std::string>{"one"});
}

TEST(StringsTest, PercentEncodeKeepsTheUnreservedAndWhatTheCallerAdds) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  const std::string unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
  // Each byte alone: as is when kept, else %XX in upper-case hex.
  for (const std::string_view kept : {"", ",", "/"}) {
    for (int c = 0; c < 256; ++c) {
      const char ch = static_cast<char>(c);
      const bool as_is = unreserved.find(ch) != std::string::npos || kept.find(ch) != std::string_view::npos;
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      EXPECT_EQ(PercentEncode(std::string(1, ch), kept), as_is ? std::string(1, ch) : std::string(hex))
          << "byte " << c << " keeping '" << kept << "'";
    }
    EXPECT_EQ(PercentDecode(PercentEncode(all, kept)), all);
  }
  // squeue's lists keep their commas; a PostgreSQL passfile URL keeps its path's slashes.
  EXPECT_EQ(PercentEncode("a,b c/d"), "a%2Cb%20c%2Fd");
  EXPECT_EQ(PercentEncode("a,b c/d", ","), "a,b%20c%2Fd");
  EXPECT_EQ(PercentEncode("a,b c/d", "/"), "a%2Cb%20c/d");
}

TEST(StringsTest, PercentDecodeKeepsMalformedEscapes) {
  EXPECT_EQ(PercentDecode("a%20b%2fc%2F"), "a b/c/");
  EXPECT_EQ(PercentDecode("a+b"), "a+b");
  EXPECT_EQ(PercentDecode("a+b", true), "a b");
  EXPECT_EQ(PercentDecode("%zz%4"), "%zz%4");
  EXPECT_EQ(PercentDecode("%"), "%");
  EXPECT_EQ(PercentDecode("x%41"), "xA");
}

}  // namespace
}  // namespace muster
