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
  EXPECT_EQ(names, std::vector<std::string>(
                       {"zeta", "alpha", "beta", "comment", "delta", "mail-type", "mail-user", "wckey"}));
  EXPECT_STREQ(table[3].note, "a note");
  // A row with a note of its own keeps it, before the command's.
  EXPECT_STREQ(table[5].note, "kept and shown (scontrol); Muster sends no mail; a note");
}

Status Apply(JobOptions& options, std::string_view name, const std::string& value) {
  for (const OptionSpec& row : JobOptionTable()) {
    if (row.name == name) return ApplyJobOption(options, OptionOccurrence{&row, value});
  }
  ADD_FAILURE() << "no row " << name;
  return Status::Ok();
}

TEST(JobOptionsTest, ApplySetsTheField) {
  JobOptions options;
  ASSERT_TRUE(Apply(options, "comment", "why").ok());
  EXPECT_EQ(options.comment, "why");
  ASSERT_TRUE(Apply(options, "wckey", "proj").ok());
  EXPECT_EQ(options.wckey, "proj");
  ASSERT_TRUE(Apply(options, "mail-user", "a@b.c").ok());
  EXPECT_EQ(options.mail_user, "a@b.c");
}

TEST(JobOptionsTest, MailTypesAddUpAsSbatchAddsThem) {
  JobOptions options;
  ASSERT_TRUE(Apply(options, "mail-type", "begin").ok());
  ASSERT_TRUE(Apply(options, "mail-type", "END,TIME_LIMIT_80").ok());
  EXPECT_EQ(options.mail_type, kMailBegin | kMailEnd | kMailTimeLimit80);
  EXPECT_EQ(MailTypeText(options.mail_type), "BEGIN,END,TIME_LIMIT_80");
  const Status bad = Apply(options, "mail-type", "ENDD");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "--mail-type=ENDD invalid");
  EXPECT_EQ(options.mail_type, kMailBegin | kMailEnd | kMailTimeLimit80);  // left as it was
}

TEST(JobOptionsTest, MailTypeReadAndShownAsSlurmDoes) {
  EXPECT_EQ(*ParseMailType("NONE"), 0);
  EXPECT_EQ(*ParseMailType("none,BEGIN"), 0);            // NONE ends the list
  EXPECT_EQ(*ParseMailType("BEGIN,bogus"), kMailBegin);  // a name it does not know is passed over
  EXPECT_FALSE(ParseMailType("bogus").ok());
  EXPECT_FALSE(ParseMailType("").ok());
  EXPECT_FALSE(ParseMailType(",").ok());
  EXPECT_EQ(MailTypeText(*ParseMailType("ALL")), "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT");
  EXPECT_EQ(MailTypeText(*ParseMailType("time_limit,array_tasks,time_limit_90,time_limit_50")),
            "ARRAY_TASKS,TIME_LIMIT_50,TIME_LIMIT_90,TIME_LIMIT");
  EXPECT_EQ(MailTypeText(0), "NONE");
}

TEST(JobOptionsTest, ValidateRefusesUnknownMailBits) {
  JobOptions options;
  options.mail_type = kMailAll | kMailArrayTasks | kMailTimeLimit;
  EXPECT_TRUE(ValidateJobOptions(options).ok());
  options.mail_type = 0x0800;
  EXPECT_FALSE(ValidateJobOptions(options).ok());
  options.mail_type = -1;
  EXPECT_FALSE(ValidateJobOptions(options).ok());
}

TEST(JobOptionsTest, RestKeysNameTheRowsAsSbatchDoes) {
  const OptionSpec* wckey = JobOptionByRestKey("wckey");
  ASSERT_NE(wckey, nullptr);
  EXPECT_STREQ(wckey->name, "wckey");
  ASSERT_NE(JobOptionByRestKey("comment"), nullptr);
  ASSERT_NE(JobOptionByRestKey("mail_type"), nullptr);
  EXPECT_STREQ(JobOptionByRestKey("mail_user")->name, "mail-user");
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
