#include "base/pretty_json.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <utility>

#include <boost/json.hpp>

namespace muster {
namespace {

// Captured from nlohmann 3.11's dump before the project dropped it: strings (valid, invalid and
// truncated UTF-8, control bytes, random bytes) and doubles (whole, tiny, huge, random).
#include "base/pretty_json_golden.inc"

TEST(PrettyJsonTest, StringsAreEscapedAsNlohmannDid) {
  for (const auto& [in, expected] : kStrings) EXPECT_EQ(PrettyJson(boost::json::value(in)), expected);
}

TEST(PrettyJsonTest, DoublesArePrintedAsNlohmannDid) {
  for (const auto& [x, expected] : kDoubles) EXPECT_EQ(JsonDoubleText(x), expected) << x;
  EXPECT_EQ(JsonDoubleText(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(JsonDoubleText(std::numeric_limits<double>::infinity()), "null");
}

TEST(PrettyJsonTest, SortsKeysAndIndents) {
  const boost::json::value v = boost::json::parse(
      R"({"b":[1,{"x":[]},{}],"a":{"z":true,"y":null,"w":-3,"v":1.5,"u":18446744073709551615},"c":"s"})");
  EXPECT_EQ(PrettyJson(v), R"({
  "a": {
    "u": 18446744073709551615,
    "v": 1.5,
    "w": -3,
    "y": null,
    "z": true
  },
  "b": [
    1,
    {
      "x": []
    },
    {}
  ],
  "c": "s"
})");
  EXPECT_EQ(PrettyJson(v, -1), R"({"a":{"u":18446744073709551615,"v":1.5,"w":-3,"y":null,"z":true},"b":[1,{"x":[]},{}],"c":"s"})");
  EXPECT_EQ(PrettyJson(boost::json::object{}), "{}");
  EXPECT_EQ(PrettyJson(boost::json::array{}), "[]");
}

}  // namespace
}  // namespace muster
