// scontrol update JobId=: the free-text fields keep the bounds a submission has (model/field_limits.h),
// and a refused update changes nothing.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ctld/controller_test_fixture.h"

namespace muster {
namespace {

using namespace ctld_test;  // NOLINT(build/namespaces)

TEST_F(ControllerTest, UpdatedTextFieldsAreBoundAsAtSubmission) {
  const int64_t id = Submit({"-J", "first"});
  struct Case {
    std::string key;
    size_t limit;
  };
  for (const Case& c : {Case{"JobName", 1024}, Case{"Comment", 1024}, Case{"Dependency", 128 * 1024}}) {
    SCOPED_TRACE(c.key);
    Status st = ctld_->UpdateJob(id, {{c.key, std::string(c.limit + 1, 'x')}}, kAlice);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(st.message(), "Pathname of a file, directory or other parameter too long: " + c.key + " is " +
                                std::to_string(c.limit + 1) + " bytes, at most " + std::to_string(c.limit));
  }
  EXPECT_EQ(Job(id).name, "first");
  EXPECT_EQ(Job(id).options.comment, "");
  ASSERT_TRUE(ctld_->UpdateJob(id, {{"JobName", std::string(1024, 'n')}, {"Comment", std::string(1024, 'c')}}, kAlice).ok());
  EXPECT_EQ(Job(id).name, std::string(1024, 'n'));
  EXPECT_EQ(Job(id).options.comment, std::string(1024, 'c'));
}

}  // namespace
}  // namespace muster
