#include "cli/sacct_command.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace muster {
namespace {

class SacctArgsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
  static constexpr int64_t kNow = 1796008379;       // 2026-11-30T03:12:59Z
  static constexpr int64_t kMidnight = 1795996800;  // 2026-11-30T00:00:00Z
  StatusOr<SacctRequest> Parse(std::vector<std::string> args, uint32_t uid = 1000, const std::string& env = "") {
    return ParseSacctArgs(args, uid, kNow, env);
  }
};

TEST_F(SacctArgsTest, DefaultsAreTheCallersJobsSinceMidnight) {
  SacctRequest r = *Parse({});
  EXPECT_EQ(r.query, "users=1000&start=" + std::to_string(kMidnight));
  EXPECT_EQ(r.options.fields, SacctDefaultFields());
  EXPECT_TRUE(r.options.steps);
  // root sees everyone's; -a too; -j any job, whenever it ran.
  EXPECT_EQ(Parse({}, 0)->query, "start=" + std::to_string(kMidnight));
  EXPECT_EQ(Parse({"-a"})->query, "start=" + std::to_string(kMidnight));
  EXPECT_EQ(Parse({"-j", "12,13.batch,14_2"})->query, "ids=12,13,14");
}

TEST_F(SacctArgsTest, SelectionAndLayoutOptions) {
  SacctRequest r = *Parse({"-u", "alice,bob", "-A", "ml", "-r", "gpu", "-s", "CD,F", "-S", "2026-11-29", "-E", "now",
                           "-X", "-P", "-n", "-o", "JobID,State%20"});
  EXPECT_EQ(r.query, "users=alice,bob&accounts=ml&partitions=gpu&states=CD,F&start=" +
                         std::to_string(kMidnight - 86400) + "&end=" + std::to_string(kNow));
  EXPECT_FALSE(r.options.steps);
  EXPECT_FALSE(r.options.header);
  EXPECT_EQ(r.options.layout, SacctLayout::kParsable2);
  ASSERT_EQ(r.options.fields.size(), 2u);
  EXPECT_EQ(r.options.fields[1], (SacctField{"State", 20, true}));
  EXPECT_EQ(Parse({"-b"})->options.fields, SacctBriefFields());
  EXPECT_EQ(Parse({"-l"})->options.fields, SacctLongFields());
  EXPECT_EQ(Parse({"-p"})->options.layout, SacctLayout::kParsable);
  EXPECT_TRUE(Parse({"--json"})->json);
  // $SACCT_FORMAT is the default -o; -o overrides it.
  EXPECT_EQ(Parse({}, 1000, "JobID,Elapsed")->options.fields.size(), 2u);
  EXPECT_EQ(Parse({"-o", "JobID"}, 1000, "JobID,Elapsed")->options.fields.size(), 1u);
}

TEST_F(SacctArgsTest, ErrorsNameWhatIsWrong) {
  EXPECT_EQ(Parse({"-o", "NoSuchField"}).status().message(), "Invalid field requested: \"NoSuchField\"");
  EXPECT_EQ(Parse({"-j", "abc"}).status().message(), "Invalid job id: abc");
  EXPECT_EQ(Parse({"-S", "yesterday"}).status().message(), "Invalid time specification (pos=0): yesterday");
  EXPECT_EQ(Parse({"--bogus"}).status().message(), "unrecognized option '--bogus'");
  EXPECT_EQ(Parse({"stray"}).status().message(), "Unknown arguments: stray");
}

TEST_F(SacctArgsTest, ShortClustersPrefixesAndPermutedOrder) {
  SacctRequest r = *Parse({"-XPn", "--allu", "--form=JobID"});
  EXPECT_FALSE(r.options.steps);
  EXPECT_EQ(r.options.layout, SacctLayout::kParsable2);
  EXPECT_FALSE(r.options.header);
  EXPECT_EQ(r.options.fields.size(), 1u);
  EXPECT_EQ(r.query, "start=" + std::to_string(kMidnight));  // --allusers
  EXPECT_EQ(Parse({"-j12", "-t"})->query, "ids=12");         // -t: Slurm's old -X
  EXPECT_FALSE(Parse({"-j12", "-t"})->options.steps);
  EXPECT_EQ(Parse({"--uid=alice"})->query, "users=alice&start=" + std::to_string(kMidnight));
  EXPECT_TRUE(Parse({"-e"})->helpformat);
  EXPECT_TRUE(Parse({"-U"})->usage);
  EXPECT_TRUE(Parse({"-h", "--bogus"})->help);  // Slurm answers the first of them and exits
  EXPECT_TRUE(Parse({"-D", "-L", "-M", "other", "-v", "--local"}).ok());  // accepted, no effect
}

TEST_F(SacctArgsTest, GetoptErrorsAndRefusedOptions) {
  EXPECT_EQ(Parse({"-Xz"}).status().message(), "invalid option -- 'z'");
  EXPECT_EQ(Parse({"--all"}).status().message(),
            "option '--all' is ambiguous; possibilities: '--allusers' '--allocations' '--allclusters'");
  EXPECT_EQ(Parse({"-o"}).status().message(), "option requires an argument -- 'o'");
  EXPECT_EQ(Parse({"--name=x"}).status().message(), "--name is not supported by Muster");
  EXPECT_EQ(Parse({"stray", "-X", "more"}).status().message(), "Unknown arguments: stray more");
}

}  // namespace
}  // namespace muster
