#include "net/json_body.h"

#include <gtest/gtest.h>

#include <string>

#include <boost/json.hpp>

namespace muster {
namespace {

TEST(JsonBodyTest, CountsNestingOutsideStrings) {
  EXPECT_EQ(JsonNestingDepth("{}", 10), 1);
  EXPECT_EQ(JsonNestingDepth(R"({"a": [1, {"b": []}]})", 10), 4);
  EXPECT_EQ(JsonNestingDepth(R"({"a": "[[[[{{{{\"[["})", 10), 1);
  EXPECT_EQ(JsonNestingDepth(R"(["\\", [["x"]]])", 10), 3);
  EXPECT_EQ(JsonNestingDepth("42", 10), 0);
}

TEST(JsonBodyTest, RefusesDeepDocumentsBeforeParsing) {
  // The document of the finding: 10^5 nested arrays in a 200 KB body.
  const std::string deep = R"({"verb":"add","fields":)" + std::string(100000, '[') + std::string(100000, ']') + "}";
  StatusOr<boost::json::value> j = ParseJsonObject(deep);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(j.status().message(), "request body nests deeper than 32 levels");
  EXPECT_EQ(JsonNestingDepth(deep, 32), 33);
}

TEST(JsonBodyTest, ParsesWithinTheLimitAndNamesWhatIsWrong) {
  const std::string at_limit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  ASSERT_TRUE(ParseJson(at_limit).ok());
  EXPECT_FALSE(ParseJson("[" + at_limit + "]").ok());
  EXPECT_EQ(ParseJson("{", "answer").status().message(), "answer is not valid JSON");
  EXPECT_EQ(ParseJsonObject("[1]").status().message(), "request body is not a JSON object");
  StatusOr<boost::json::value> ok = ParseJsonObject(R"({"a": {"b": 1}})");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->at("a").at("b"), 1);
}

// The fuzzer's first find: a float where an integer was expected ("ntasks": 4.1e21) made the
// decoder's conversion undefined behaviour. Requests hold integers only, and are refused otherwise.
TEST(JsonBodyTest, RequestBodiesHoldIntegersOnly) {
  StatusOr<boost::json::value> j = ParseRequestBody(R"({"ntasks": 41111111111e11, "name": "x"})");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().message(), "request body holds a number that is not an integer: 4.1111111111e+21");
  EXPECT_FALSE(ParseRequestBody(R"({"a": [1, 2.5]})").ok());
  EXPECT_FALSE(ParseRequestBody("[1]").ok());
  ASSERT_TRUE(ParseRequestBody(R"({"a": [1, -2, 18446744073709551615], "b": {"c": "1.5"}})").ok());
  EXPECT_EQ(ParseRequestBody(std::string(40, '[') + std::string(40, ']')).status().message(),
            "request body nests deeper than 32 levels");
}

}  // namespace
}  // namespace muster
