#include "model/hostlist.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace muster {
namespace {

using Hosts = std::vector<std::string>;

Hosts Expand(const std::string& expr) {
  StatusOr<Hosts> hosts = ExpandHostlist(expr);
  EXPECT_TRUE(hosts.ok()) << expr << ": " << hosts.status().ToString();
  return hosts.ok() ? *hosts : Hosts{};
}

Hosts Numbered(const std::string& prefix, int lo, int hi, int width) {
  Hosts out;
  for (int i = lo; i <= hi; ++i) {
    std::string n = std::to_string(i);
    out.push_back(prefix + std::string(width > static_cast<int>(n.size()) ? width - n.size() : 0, '0') + n);
  }
  return out;
}

// ---- Expansion -------------------------------------------------------------------------------

TEST(HostlistExpandTest, ZeroPaddedRangeAndSingle) {
  Hosts want = Numbered("gpu", 1, 16, 3);
  want.push_back("gpu020");
  EXPECT_EQ(Expand("gpu[001-016,020]"), want);
}

TEST(HostlistExpandTest, PlainNamesAndSeveralGroups) {
  EXPECT_EQ(Expand("n1,n2,n3"), (Hosts{"n1", "n2", "n3"}));
  EXPECT_EQ(Expand("a[1-2],b[3,5-6],login"), (Hosts{"a1", "a2", "b3", "b5", "b6", "login"}));
  EXPECT_EQ(Expand("login"), (Hosts{"login"}));
  EXPECT_EQ(Expand("n[5]"), (Hosts{"n5"}));
}

TEST(HostlistExpandTest, WidthComesFromTheLowBound) {
  EXPECT_EQ(Expand("n[8-10]"), (Hosts{"n8", "n9", "n10"}));
  EXPECT_EQ(Expand("n[08-10]"), (Hosts{"n08", "n09", "n10"}));
  EXPECT_EQ(Expand("n[008-10]"), (Hosts{"n008", "n009", "n010"}));
  EXPECT_EQ(Expand("n[9-010]"), (Hosts{"n9", "n10"}));
  EXPECT_EQ(Expand("n[098-101]"), (Hosts{"n098", "n099", "n100", "n101"}));
  EXPECT_EQ(Expand("n[0-2]"), (Hosts{"n0", "n1", "n2"}));
  EXPECT_EQ(Expand("n[00-01]"), (Hosts{"n00", "n01"}));
}

TEST(HostlistExpandTest, DigitsInTheMiddleAndNoDigits) {
  EXPECT_EQ(Expand("rack1-n[1-2],x9y,gpu-a"), (Hosts{"rack1-n1", "rack1-n2", "x9y", "gpu-a"}));
  EXPECT_EQ(Expand("[1-3]"), (Hosts{"1", "2", "3"}));
  EXPECT_EQ(Expand("node.example.com"), (Hosts{"node.example.com"}));
}

TEST(HostlistExpandTest, SeveralBracketGroupsInOneNameFormAProduct) {
  EXPECT_EQ(Expand("rack[1-2]n[01-02]"), (Hosts{"rack1n01", "rack1n02", "rack2n01", "rack2n02"}));
  EXPECT_EQ(Expand("[1-2][3,5]"), (Hosts{"13", "15", "23", "25"}));
  EXPECT_EQ(Expand("r[1-2]_b[1]"), (Hosts{"r1_b1", "r2_b1"}));
}

TEST(HostlistExpandTest, DuplicatesAndOrderAreKept) {
  EXPECT_EQ(Expand("n1,n[1-2],n1"), (Hosts{"n1", "n1", "n2", "n1"}));
  EXPECT_EQ(Expand("n[3,1-2]"), (Hosts{"n3", "n1", "n2"}));
}

TEST(HostlistExpandTest, BlanksSeparateLikeSlurm) {
  EXPECT_EQ(Expand("n1 n2\tn3"), (Hosts{"n1", "n2", "n3"}));
  EXPECT_EQ(Expand("  n1, n2 ,n3  "), (Hosts{"n1", "n2", "n3"}));
}

TEST(HostlistExpandTest, EmptyOrBlankExpressionIsAnEmptyList) {
  EXPECT_EQ(Expand(""), Hosts{});
  EXPECT_EQ(Expand(" \t "), Hosts{});
}

TEST(HostlistExpandTest, SlurmsMaxRangeIsTheLimit) {
  Hosts hosts = Expand("n[1-65536]");
  ASSERT_EQ(hosts.size(), 65536u);
  EXPECT_EQ(hosts.front(), "n1");
  EXPECT_EQ(hosts.back(), "n65536");
}

struct BadExpr {
  std::string expr;
  std::string message_part;  // the error must contain this (usually the offending piece)
};

class HostlistBadExprTest : public testing::TestWithParam<BadExpr> {};

TEST_P(HostlistBadExprTest, IsInvalidArgumentNamingThePiece) {
  StatusOr<Hosts> hosts = ExpandHostlist(GetParam().expr);
  ASSERT_FALSE(hosts.ok()) << GetParam().expr;
  EXPECT_EQ(hosts.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(hosts.status().message().find(GetParam().message_part), std::string::npos)
      << hosts.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, HostlistBadExprTest,
    testing::Values(BadExpr{"gpu[1-3", "unterminated '[' in 'gpu[1-3'"},
                    BadExpr{"a[1]b[2", "unterminated '[' in 'a[1]b[2'"},
                    BadExpr{"ok1,n[1-3,x", "unterminated '[' in 'n[1-3,x'"},
                    BadExpr{"n[5-3]", "reversed range '5-3' in 'n[5-3]'"},
                    BadExpr{"n[]", "empty item in range list '[]' of 'n[]'"},
                    BadExpr{"n[1,,3]", "empty item in range list '[1,,3]'"},
                    BadExpr{"n[1,]", "empty item"},
                    BadExpr{"n[,1]", "empty item"},
                    BadExpr{"n[a]", "non-digit 'a' in range 'a' of 'n[a]'"},
                    BadExpr{"n[1-b]", "non-digit 'b' in range '1-b'"},
                    BadExpr{"n[1-2-3]", "non-digit '-' in range '1-2-3'"},
                    BadExpr{"n[ 1]", "non-digit ' '"},
                    BadExpr{"n[+1]", "non-digit '+'"},
                    BadExpr{"n[1-]", "missing number in range '1-' of 'n[1-]'"},
                    BadExpr{"n[-1]", "missing number in range '-1'"},
                    BadExpr{"n[0-65536]", "'n[0-65536]' names more than 65536 hosts"},
                    BadExpr{"node[1-999999]", "'node[1-999999]' names more than 65536 hosts"},
                    BadExpr{"n[1-99999999999999999]", "names more than 65536 hosts"},
                    BadExpr{"a[1-256]b[1-257]", "'a[1-256]b[1-257]' names more than 65536"},
                    BadExpr{"n[1-40000],m[1-40000]", "names more than 65536 hosts"},
                    BadExpr{"n[1234567890123456789]", "has more than 18 digits"},
                    BadExpr{"n1,,n2", "empty host name before ','"},
                    BadExpr{"n1, ,n2", "empty host name before ','"},
                    BadExpr{",n1", "empty host name before ','"},
                    BadExpr{"n1,", "empty host name after the last ','"},
                    BadExpr{",", "empty host name"},
                    BadExpr{"n]", "unmatched ']' in 'n]'"},
                    BadExpr{"n[1]]", "unmatched ']' in 'n[1]]'"},
                    BadExpr{"n[[1]]", "nested '[' in 'n[[1]]'"},
                    BadExpr{"n[1-2]x", "text 'x' after ']' in 'n[1-2]x'"},
                    BadExpr{"n[1-2]-ib", "text '-ib' after ']'"}));

TEST(HostlistExpandTest, LongBadInputIsQuotedShortened) {
  std::string expr = std::string(500, 'a') + "[1-";
  StatusOr<Hosts> hosts = ExpandHostlist(expr);
  ASSERT_FALSE(hosts.ok());
  EXPECT_LT(hosts.status().message().size(), 200u);
  EXPECT_NE(hosts.status().message().find("...'"), std::string::npos);
}

TEST(HostlistExpandTest, HugeExpansionTextIsRefused) {
  // 1000 hosts, each about 100 KB long, would be 100 MB of names.
  StatusOr<Hosts> hosts = ExpandHostlist(std::string(100000, 'a') + "[1-1000]");
  ASSERT_FALSE(hosts.ok());
  EXPECT_NE(hosts.status().message().find("characters"), std::string::npos);
}

TEST(HostlistExpandTest, LongListInsideBracketsIsFine) {
  // A fragmented allocation: 20000 odd-numbered hosts in one bracket (about 120 KB of text).
  std::string expr = "n[";
  Hosts want;
  for (int i = 1; i < 40000; i += 2) {
    expr += (i > 1 ? "," : "") + std::to_string(i);
    want.push_back("n" + std::to_string(i));
  }
  expr += "]";
  EXPECT_EQ(Expand(expr), want);
  EXPECT_EQ(CompressHostlist(want), expr);
}

// Random junk over the syntax's alphabet must give a value or an error, never a crash, and every
// host it gives must be a plain non-empty name.
TEST(HostlistExpandTest, RandomJunkNeverCrashes) {
  std::mt19937 rng(20240611);
  const std::string alphabet = "n0123456789[]-, \t";
  for (int iter = 0; iter < 20000; ++iter) {
    std::string expr;
    int len = std::uniform_int_distribution<int>(0, 16)(rng);
    for (int i = 0; i < len; ++i) expr += alphabet[rng() % alphabet.size()];
    StatusOr<Hosts> hosts = ExpandHostlist(expr);
    if (!hosts.ok()) {
      EXPECT_EQ(hosts.status().code(), StatusCode::kInvalidArgument);
      continue;
    }
    for (const std::string& h : *hosts) {
      EXPECT_FALSE(h.empty()) << expr;
      EXPECT_EQ(h.find_first_of(",[] \t"), std::string::npos) << expr << " -> " << h;
    }
  }
}

// ---- Compression -----------------------------------------------------------------------------

TEST(HostlistCompressTest, Basics) {
  EXPECT_EQ(CompressHostlist({}), "");
  EXPECT_EQ(CompressHostlist({"n5"}), "n5");
  EXPECT_EQ(CompressHostlist({"login"}), "login");
  EXPECT_EQ(CompressHostlist({"n1", "n2", "n3"}), "n[1-3]");
  EXPECT_EQ(CompressHostlist({"tux1", "tux2", "tux3", "tux5"}), "tux[1-3,5]");
  EXPECT_EQ(CompressHostlist({"n1", "n3"}), "n[1,3]");
}

TEST(HostlistCompressTest, SortsNumericallyAndDropsDuplicates) {
  EXPECT_EQ(CompressHostlist({"n3", "n1", "n2", "n1"}), "n[1-3]");
  EXPECT_EQ(CompressHostlist({"n10", "n2", "n1"}), "n[1-2,10]");
  EXPECT_EQ(CompressHostlist({"n5", "n5"}), "n5");
}

TEST(HostlistCompressTest, KeepsZeroPadding) {
  Hosts hosts = Numbered("gpu", 1, 16, 3);
  hosts.push_back("gpu020");
  EXPECT_EQ(CompressHostlist(hosts), "gpu[001-016,020]");
  EXPECT_EQ(CompressHostlist({"n00", "n01"}), "n[00-01]");
  EXPECT_EQ(CompressHostlist({"n0", "n1"}), "n[0-1]");
}

TEST(HostlistCompressTest, WidthsCombineAsSlurmDoes) {
  // Plain numbers of different lengths join (Slurm's width_equiv): n9,n10 -> n[9-10].
  EXPECT_EQ(CompressHostlist({"n8", "n9", "n10"}), "n[8-10]");
  EXPECT_EQ(CompressHostlist({"n9", "n10", "n100"}), "n[9-10,100]");
  // A padded run continues into plain numbers of at least its width.
  EXPECT_EQ(CompressHostlist({"n08", "n09", "n10", "n11"}), "n[08-11]");
  EXPECT_EQ(CompressHostlist({"n098", "n099", "n100", "n101"}), "n[098-101]");
  // Same number, different padding: different hosts, one bracket, narrower first.
  EXPECT_EQ(CompressHostlist({"n01", "n1"}), "n[1,01]");
  EXPECT_EQ(CompressHostlist({"n001", "n01", "n1"}), "n[1,01,001]");
  // Incompatible widths sort by width; compatible ones by value.
  EXPECT_EQ(CompressHostlist({"n08", "n9", "n10"}), "n[9-10,08]");
  EXPECT_EQ(CompressHostlist({"n100", "n005"}), "n[005,100]");
  EXPECT_EQ(CompressHostlist({"n50", "n005"}), "n[50,005]");
  // Deliberately not Slurm: it prints "n[8-10,08-10]" here, naming n10 twice.
  EXPECT_EQ(CompressHostlist(Expand("n[08-10],n[8-10]")), "n[8-9,08-10]");
}

TEST(HostlistCompressTest, SeveralPrefixesInNaturalOrder) {
  EXPECT_EQ(CompressHostlist({"b3", "a1", "login", "a2", "b5", "b6"}), "a[1-2],b[3,5-6],login");
  EXPECT_EQ(CompressHostlist({"rack10n1", "rack2n1", "rack2n2"}), "rack2n[1-2],rack10n1");
  EXPECT_EQ(CompressHostlist({"x10y", "x9y"}), "x9y,x10y");
  EXPECT_EQ(CompressHostlist({"gpu-a", "gpu1", "gpu2"}), "gpu[1-2],gpu-a");
}

TEST(HostlistCompressTest, NameWithoutNumberComesBeforeItsNumberedSiblings) {
  EXPECT_EQ(CompressHostlist({"n2", "n", "n1"}), "n,n[1-2]");
}

TEST(HostlistCompressTest, OddNames) {
  EXPECT_EQ(CompressHostlist({"1", "2", "3"}), "[1-3]");
  EXPECT_EQ(CompressHostlist({"7"}), "7");
  EXPECT_EQ(CompressHostlist({"n1", "", "n2"}), "n[1-2]");  // empty names are skipped
  // More trailing digits than fit a number: the name stands alone, unchanged.
  EXPECT_EQ(CompressHostlist({"n1234567890123456789012", "n1"}), "n1,n1234567890123456789012");
}

TEST(HostlistCompressTest, DoesNotDependOnInputOrder) {
  Hosts hosts = Expand("gpu[001-016,020],login[1-2],n[8-12,099-101],x");
  std::string want = CompressHostlist(hosts);
  EXPECT_EQ(want, "gpu[001-016,020],login[1-2],n[8-12,099-101],x");
  std::mt19937 rng(7);
  for (int i = 0; i < 50; ++i) {
    std::shuffle(hosts.begin(), hosts.end(), rng);
    EXPECT_EQ(CompressHostlist(hosts), want);
  }
}

// ---- Round trip --------------------------------------------------------------------------------

std::string RandomHost(std::mt19937& rng) {
  static const std::vector<std::string> kPrefixes = {"n", "gpu", "rack1n", "a-b.", "", "x9y-", "login"};
  const std::string& prefix = kPrefixes[rng() % kPrefixes.size()];
  switch (rng() % 8) {
    case 0:  // no digits at all
      return prefix.empty() ? "solo" : prefix + "z";
    case 1: {  // a large number
      return prefix + std::to_string(std::uniform_int_distribution<uint64_t>(0, 999999999999ull)(rng));
    }
    default: {  // a small number, maybe zero-padded, so that widths mix and touch
      int num = std::uniform_int_distribution<int>(0, 130)(rng);
      int width = std::uniform_int_distribution<int>(1, 4)(rng);
      std::string digits = std::to_string(num);
      if (static_cast<int>(digits.size()) < width) digits.insert(0, width - digits.size(), '0');
      return prefix + digits;
    }
  }
}

TEST(HostlistRoundTripTest, ExpandOfCompressIsTheSetOfHosts) {
  std::mt19937 rng(12345);
  for (int iter = 0; iter < 4000; ++iter) {
    Hosts hosts;
    int count = std::uniform_int_distribution<int>(0, 40)(rng);
    for (int i = 0; i < count; ++i) hosts.push_back(RandomHost(rng));
    std::string compressed = CompressHostlist(hosts);
    StatusOr<Hosts> expanded = ExpandHostlist(compressed);
    ASSERT_TRUE(expanded.ok()) << compressed << ": " << expanded.status().ToString();

    std::set<std::string> want(hosts.begin(), hosts.end());
    Hosts got = *expanded;
    std::sort(got.begin(), got.end());
    ASSERT_TRUE(std::adjacent_find(got.begin(), got.end()) == got.end()) << "duplicates from " << compressed;
    ASSERT_EQ(got, Hosts(want.begin(), want.end())) << compressed;
    // Compressing again gives the same text: the expansion order is the canonical order.
    ASSERT_EQ(CompressHostlist(*expanded), compressed);
  }
}

}  // namespace
}  // namespace muster
