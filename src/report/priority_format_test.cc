#include "report/priority_format.h"

#include <gtest/gtest.h>

#include <limits>

namespace muster {
namespace {

std::vector<SprioRow> Rows() {
  SprioRow a{12, "gpu", "alice", 10500, 0.5, 1.0, 0.25, 0.0, 0.0};
  SprioRow b{3, "debug", "bob", 2750, 0.25, 0.25, 0.0, 1.0, 0.0};
  return {a, b};
}

TEST(SprioFormatTest, ShowsTheFactorsWithAWeight) {
  SprioWeights w{1000, 10000, 0, 1000, 0};
  EXPECT_EQ(FormatSprio(Rows(), w, {}),
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE  PARTITION\n"
            "              3 debug           2750          0        250       2500       1000\n"
            "             12 gpu            10500          0        500      10000          0\n");
}

TEST(SprioFormatTest, UsersNormalizedLongAndWeights) {
  SprioWeights w{1000, 10000, 0, 1000, 0};
  SprioOptions o;
  o.show_user = true;
  o.no_header = true;
  EXPECT_EQ(FormatSprio({Rows()[0]}, w, o),
            "             12 gpu          alice      10500          0        500      10000          0\n");
  o = {};
  o.normalized = true;
  o.no_header = true;
  EXPECT_EQ(FormatSprio({Rows()[1]}, w, o),
            "              3 debug      0.0000006          0  0.2500000  0.2500000  1.0000000\n");
  o = {};
  o.long_list = true;
  EXPECT_EQ(FormatSprio({Rows()[1]}, w, o),
            "          JOBID PARTITION     USER   PRIORITY       SITE        AGE      ASSOC  FAIRSHARE    JOBSIZE  PARTITION        QOS        NICE                 TRES\n"
            "              3 debug          bob       2750          0        250          0       2500          0       1000          0           0\n");
  o = {};
  o.weights = true;
  EXPECT_EQ(FormatSprio(Rows(), w, o),
            "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE  PARTITION\n"
            "        Weights                               1       1000      10000       1000\n");
}

TEST(SprioFormatTest, FormatFieldsAsSlurmsPrintC) {
  SprioWeights w{1000, 10000, 0, 1000, 0};
  SprioOptions o;
  o.format = "%.15i %9r %.8u %.10Y %A|%.6a|%b %B%N%S";
  EXPECT_EQ(FormatSprio({Rows()[1]}, w, o),
            "          JOBID PARTITION     USER   PRIORITY AGE|   AGE|ASSOC ASSOCNICESITE\n"
            "              3 debug          bob       2750 250|0.2500|0.0000000 000\n");
  o.format = ">%i %y<";
  o.no_header = true;
  EXPECT_EQ(FormatSprio({Rows()[0]}, w, o), ">12 0.00000244472176<\n");
  o.no_header = false;
  o.weights = true;
  o.format = "%.15i %.10F %5S";
  EXPECT_EQ(FormatSprio(Rows(), w, o),
            "          JOBID  FAIRSHARE SITE \n"
            "        Weights      10000 1    \n");
  EXPECT_EQ(InvalidSprioField("%.15i %z"), "z");
  EXPECT_EQ(InvalidSprioField("%.15i %Y %T"), "");
}

TEST(SshareFormatTest, RootThenTheTreeIndented) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<SshareRow> rows = {
      {"science", "", 0, 3, 0.75, 300, 0.75, 0, 1.0},
      {"science", "alice", 1, 1, 0.75, 300, 0.75, 0.5, 1.0},
      {"ops", "", 0, 1, 0.25, 100, 0.25, 0, 1.0},
      {"", "root", 0, 1, 0.0, 0, 0, 1.0, inf},
  };
  EXPECT_EQ(FormatSshare(rows, {}),
            "Account                    User  RawShares  NormShares    RawUsage  EffectvUsage  FairShare \n"
            "-------------------- ---------- ---------- ----------- ----------- ------------- ---------- \n"
            "root                                          0.000000         400      1.000000            \n"
            " science                                 3    0.750000         300      0.750000            \n"
            "  science                 alice          1    0.750000         300      0.750000   0.500000 \n"
            " ops                                     1    0.250000         100      0.250000            \n"
            " root                      root          1    0.000000           0      0.000000   1.000000 \n");
  SshareOptions o;
  o.parsable = true;
  o.long_list = true;
  EXPECT_EQ(FormatSshare({rows[3]}, o),
            "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS\n"
            "root|||0.000000|0|0.000000|0.000000||\n"
            " root|root|1|0.000000|0|0.000000|0.000000|1.000000|inf\n");
}

}  // namespace
}  // namespace muster
