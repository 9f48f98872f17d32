#include "model/job_option_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/field_limits.h"

namespace muster {
namespace {

using Arg = OptionArg;
using Use = OptionUse;

std::vector<std::string> Names(const std::vector<OptionSpec>& table) {
  std::vector<std::string> names;
  for (const OptionSpec& o : table) names.push_back(o.name);
  return names;
}

TEST(JobOptionsTest, TheRowsAreJobRowsSortedByName) {
  std::string last;
  for (const OptionSpec& o : JobOptionTable()) {
    EXPECT_EQ(o.use, Use::kJob) << o.name;
    EXPECT_LT(last, o.name);
    last = o.name;
  }
}

TEST(JobOptionsTest, SortedIntoASortedTable) {
  constexpr OptionSpec own[] = {
      {"account", 'A', Arg::kRequired, Use::kOwn},
      {"constraint", 'C', Arg::kRequired, Use::kResource},
      {"zzz", 0, Arg::kNone, Use::kOwn},
  };
  const std::vector<OptionSpec> table = WithJobOptions(own);
  ASSERT_EQ(table.size(), 3 + JobOptionTable().size());
  EXPECT_EQ(Names(table)[0], "account");
  EXPECT_EQ(Names(table)[1], "comment");
  EXPECT_EQ(Names(table)[2], "constraint");
  EXPECT_EQ(table[1].note, nullptr);
  for (size_t i = 1; i < table.size(); ++i) EXPECT_LT(std::string(table[i - 1].name), table[i].name);
}

TEST(JobOptionsTest, PastANamedRowWithANote) {
  constexpr OptionSpec own[] = {
      {"zeta", 0, Arg::kNone, Use::kOwn},
      {"alpha", 0, Arg::kNone, Use::kOwn},
      {"beta", 0, Arg::kNone, Use::kOwn},
      {"delta", 0, Arg::kNone, Use::kOwn},
  };
  const std::vector<OptionSpec> table = WithJobOptions(own, "alpha", "a note");
  const std::vector<std::string> names = Names(table);
  ASSERT_EQ(names.size(), 4 + JobOptionTable().size());
  // Not before "zeta", which comes before "alpha"; none sorts after "wckey": it goes last.
  EXPECT_EQ(names, std::vector<std::string>({"zeta", "alpha", "beta", "comment", "delta", "wckey"}));
  EXPECT_STREQ(table[3].note, "a note");
}

TEST(JobOptionsTest, ApplySetsTheField) {
  JobOptions options;
  OptionOccurrence o;
  o.spec = &JobOptionTable()[0];
  o.value = "why";
  ASSERT_TRUE(ApplyJobOption(options, o).ok());
  EXPECT_EQ(options.comment, "why");
  o.spec = &JobOptionTable()[1];
  o.value = "proj";
  ASSERT_TRUE(ApplyJobOption(options, o).ok());
  EXPECT_EQ(options.wckey, "proj");
}

TEST(JobOptionsTest, RestKeysNameTheRowsAsSbatchDoes) {
  const OptionSpec* wckey = JobOptionByRestKey("wckey");
  ASSERT_NE(wckey, nullptr);
  EXPECT_STREQ(wckey->name, "wckey");
  ASSERT_NE(JobOptionByRestKey("comment"), nullptr);
  EXPECT_EQ(JobOptionByRestKey("wckeys"), nullptr);
  EXPECT_EQ(JobOptionByRestKey("wcke"), nullptr);
  EXPECT_EQ(JobOptionByRestKey(""), nullptr);
  EXPECT_EQ(JobOptionByRestKey("nice"), nullptr);  // not a job-carried option (its own case there)
}

TEST(JobOptionsTest, ValidateKeepsSlurmsBounds) {
  JobOptions options;
  options.comment.assign(kMaxCommentBytes, 'c');
  EXPECT_TRUE(ValidateJobOptions(options).ok());
  options.comment += 'c';
  const Status s = ValidateJobOptions(options);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("comment (--comment) is 1025 bytes, at most 1024"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace muster
