// Tests for ParseTimeSpec, FormatTimeSpec and ParseMemoryMb (model/units.cc).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "model/job_request.h"
#include "model/limits.h"

namespace muster {
namespace {

TEST(ParseTimeSpecTest, SlurmFormats) {
  struct Case {
    std::string in;
    int64_t seconds;
  };
  const std::vector<Case> cases = {
      {"0", 0},                       // ParseJobRequest turns --time=0 into UNLIMITED
      {"60", 3600},                   // minutes
      {"1:30", 90},                   // minutes:seconds
      {"0:90", 90},                   // fields are not bounded (Slurm neither)
      {"2:00:00", 7200},              // hours:minutes:seconds
      {"1:99:99", 3600 + 99 * 60 + 99},
      {"2-12", 2 * 86400 + 12 * 3600},                       // days-hours
      {"1-02:03", 86400 + 2 * 3600 + 3 * 60},                // days-hours:minutes
      {"1-02:03:04", 86400 + 2 * 3600 + 3 * 60 + 4},         // days-hours:minutes:seconds
      {"5-", 5 * 86400},              // Slurm accepts an empty hours field after the dash
      {"007", 7 * 60},
      {"UNLIMITED", kUnlimited},
      {"unlimited", kUnlimited},
      {"Infinite", kUnlimited},
      {"INFINITE", kUnlimited},
      {"-1", kUnlimited},             // Slurm's time_str2secs also takes -1
      {"24855-03:14:07", 2147483647}, // the largest value
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.in);
    StatusOr<int64_t> got = ParseTimeSpec(c.in);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, c.seconds);
  }
}

TEST(ParseTimeSpecTest, RejectsBadInput) {
  const std::string expected = "(expected minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS)";
  const std::vector<std::string> bad = {
      "", "abc", "-5",  // Slurm reads -5 as minus five days and accepts it; we do not
      "-01", "-0", "1:2:3:4", "1-2:3:4:5", "1--2", "1-2-3", "-", ":", "::", "1:", ":1", "1::2", "1-:5",
      "1-2:", "5-:", "1:2-3", " 5", "5 ", "+5", "1.5", "1h", "1-2:3:x", "UNLIMITEDX", "unlimite", "∞",
  };
  for (const std::string& in : bad) {
    SCOPED_TRACE(in);
    StatusOr<int64_t> got = ParseTimeSpec(in);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().message(), "invalid time specification '" + in + "' " + expected);
  }
  for (const char* in : {"24855-03:14:08", "99999999999", "9999999999999999999999", "1-99999999999:00"}) {
    SCOPED_TRACE(in);
    StatusOr<int64_t> got = ParseTimeSpec(in);
    ASSERT_FALSE(got.ok());
    EXPECT_NE(got.status().message().find("is too large (at most 24855-03:14:07)"), std::string::npos)
        << got.status().message();
  }
}

TEST(FormatTimeSpecTest, PrintsLikeSlurm) {
  struct Case {
    int64_t seconds;
    std::string out;
  };
  const std::vector<Case> cases = {
      {kUnlimited, "UNLIMITED"},
      {-2, "INVALID"},
      {0, "00:00:00"},
      {59, "00:00:59"},
      {30 * 60, "00:30:00"},  // as scontrol prints MaxTime=00:30:00
      {3600 + 2 * 60 + 3, "01:02:03"},
      {86399, "23:59:59"},
      {86400, "1-00:00:00"},
      {86400 + 2 * 3600 + 3 * 60 + 4, "1-02:03:04"},
      {100 * 86400 + 5, "100-00:00:05"},
  };
  for (const Case& c : cases) EXPECT_EQ(FormatTimeSpec(c.seconds), c.out) << c.seconds;
}

TEST(FormatTimeSpecTest, RoundTripsThroughParse) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> secs(0, 2147483647);
  for (int i = 0; i < 3000; ++i) {
    const int64_t s = i < 200 ? i * 37 : secs(rng);
    StatusOr<int64_t> back = ParseTimeSpec(FormatTimeSpec(s));
    ASSERT_TRUE(back.ok()) << FormatTimeSpec(s);
    EXPECT_EQ(*back, s) << FormatTimeSpec(s);
  }
  StatusOr<int64_t> unlimited = ParseTimeSpec(FormatTimeSpec(kUnlimited));
  ASSERT_TRUE(unlimited.ok());
  EXPECT_EQ(*unlimited, kUnlimited);
}

TEST(ParseMemoryMbTest, SizesAndSuffixes) {
  struct Case {
    std::string in;
    int64_t mb;
  };
  const std::vector<Case> cases = {
      {"0", 0},          {"500", 500},         {"500M", 500},    {"500m", 500},     {"16G", 16384},
      {"16g", 16384},    {"16GB", 16384},      {"16gb", 16384},  {"1T", 1048576},   {"1t", 1048576},
      {"1024K", 1},      {"1025K", 2},         {"1k", 1},        {"0K", 0},         {"2048KB", 2},
      {"1MB", 1},        {"0007", 7},
      {"9223372036854775807", 9223372036854775807LL},
      {"8796093022207T", 8796093022207LL * 1024 * 1024},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.in);
    StatusOr<int64_t> got = ParseMemoryMb(c.in);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, c.mb);
  }
}

TEST(ParseMemoryMbTest, RejectsBadInput) {
  struct Case {
    std::string in;
    std::string substring;
  };
  const std::vector<Case> cases = {
      {"", "empty memory size (expected a number of MiB with an optional K, M, G or T suffix)"},
      {"-5", "negative memory size '-5'"},
      {"-5G", "negative memory size '-5G'"},
      {"abc", "invalid memory size 'abc'"},
      {"G", "invalid memory size 'G'"},
      {"16B", "invalid memory size '16B'"},
      {"16P", "invalid memory size '16P'"},
      {"16GiB", "invalid memory size '16GiB'"},
      {"16 G", "invalid memory size '16 G'"},
      {" 16", "invalid memory size ' 16'"},
      {"+16", "invalid memory size '+16'"},
      {"1.5G", "invalid memory size '1.5G'"},
      {"16GG", "invalid memory size '16GG'"},
      {"9223372036854775808", "memory size '9223372036854775808' is too large"},
      {"99999999999999999999999", "is too large"},
      {"9007199254740992G", "memory size '9007199254740992G' is too large"},
      {"8796093022208T", "is too large"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.in);
    StatusOr<int64_t> got = ParseMemoryMb(c.in);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(got.status().message().find(c.substring), std::string::npos) << got.status().message();
  }
}

// Random strings over the characters the grammars use: the parsers return, never crash.
TEST(UnitsTest, RandomStringsNeverCrash) {
  const std::string alphabet = "0123456789-:KkMmGgTtBb.+ UNLIMITEDinf\xff";
  std::mt19937 rng(99);
  for (int i = 0; i < 5000; ++i) {
    std::string s(std::uniform_int_distribution<int>(0, 16)(rng), ' ');
    for (char& c : s) c = alphabet[std::uniform_int_distribution<size_t>(0, alphabet.size() - 1)(rng)];
    StatusOr<int64_t> t = ParseTimeSpec(s);
    if (t.ok()) {
      EXPECT_TRUE(*t >= 0 || *t == kUnlimited) << s;
    } else {
      EXPECT_FALSE(t.status().message().empty());
    }
    StatusOr<int64_t> m = ParseMemoryMb(s);
    if (m.ok()) {
      EXPECT_GE(*m, 0) << s;
    } else {
      EXPECT_FALSE(m.status().message().empty());
    }
  }
}

}  // namespace
}  // namespace muster
