#include "cli/sdiag_command.h"

#include <gtest/gtest.h>

#include <stdlib.h>
#include <time.h>

#include <cctype>
#include <sstream>

namespace muster {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The line's label: up to its first digit (the figures differ, Slurm's words do not).
std::string Label(const std::string& line) { return line.substr(0, line.find_first_of("0123456789")); }

TEST(SdiagTest, PrintsSlurms2205Layout) {
  setenv("TZ", "UTC", 1);  // the peer's zone when it was captured
  tzset();
  DiagAnswer d;
  d.now = 1796008419;
  d.since = 1796007581;
  d.server_threads = 4;
  d.jobs_submitted = 4160;
  d.cycles = 342;
  d.cycle_total_us = 342 * 100;
  d.cycle_depth_total = 342 * 2;
  d.bf_cycles = 22;
  d.bf_last_when = 1796008407;
  d.bf_total_us = 22 * 50;
  d.bf_depth_total = 22;
  d.rpcs = {DiagRpc{"GET", "/v1/jobs", 3, 300}, DiagRpc{"POST", "/v1/jobs", 5, 50}};
  d.rpc_users = {DiagRpcUser{"root", 0, 2, 400}, DiagRpcUser{"alice", 1001, 6, 60}};
  const std::vector<std::string> ours = Lines(FormatSdiag(d));
  // The first 40 lines of Slurm 22.05.8's sdiag (the peer's capture, its figures aside).
  const std::vector<std::string> slurm = {
      "*******************************************************",
      "sdiag output at Mon Nov 30 03:13:39 2026 (1796008419)",
      "Data since      Mon Nov 30 02:59:41 2026 (1796007581)",
      "*******************************************************",
      "Server thread count:  3", "Agent queue size:     0", "Agent count:          0",
      "Agent thread count:   0", "DBD Agent queue size: 0", "",
      "Jobs submitted: 4160", "Jobs started:   4085", "Jobs completed: 4079", "Jobs canceled:  78",
      "Jobs failed:    0", "",
      "Job states ts:  Mon Nov 30 03:13:29 2026 (1796008409)", "Jobs pending:   1", "Jobs running:   2", "",
      "Main schedule statistics (microseconds):", "\tLast cycle:   264", "\tMax cycle:    825438",
      "\tTotal cycles: 342", "\tMean cycle:   93686", "\tMean depth cycle:  53", "\tCycles per minute: 26",
      "\tLast queue length: 0", "",
      "Backfilling stats", "\tTotal backfilled jobs (since last slurm start): 138",
      "\tTotal backfilled jobs (since last stats cycle start): 138",
      "\tTotal backfilled heterogeneous job components: 0", "\tTotal cycles: 22",
      "\tLast cycle when: Mon Nov 30 03:13:27 2026 (1796008407)", "\tLast cycle: 932", "\tMax cycle:  2153781",
      "\tMean cycle: 192642", "\tLast depth cycle: 1", "\tLast depth cycle (try sched): 1"};
  ASSERT_GE(ours.size(), slurm.size());
  for (size_t i = 0; i < slurm.size(); ++i) {
    EXPECT_EQ(Label(ours[i]), Label(slurm[i])) << "line " << i + 1 << ": " << ours[i];
  }
  EXPECT_EQ(ours[10], "Jobs submitted: 4160");
  EXPECT_EQ(ours[24], "\tMean cycle:   100");
  EXPECT_EQ(ours[26], "\tCycles per minute: 26");  // 342 cycles over 13 whole minutes, as Slurm's
  const std::string text = FormatSdiag(d);
  EXPECT_NE(text.find("\nRemote Procedure Call statistics by message type\n"
                      "\tPOST /v1/jobs                           (    0) count:5      ave_time:10     total_time:50\n"
                      "\tGET /v1/jobs                            (    0) count:3      ave_time:100    total_time:300\n"),
            std::string::npos)
      << text;
  // Slurm's "\t%-16s(%8u) count:%-6u ave_time:%-6u total_time:%lu" rows, by count.
  EXPECT_TRUE(text.ends_with("\nRemote Procedure Call statistics by user\n"
                             "\talice           (    1001) count:6      ave_time:10     total_time:60\n"
                             "\troot            (       0) count:2      ave_time:200    total_time:400\n"
                             "\nPending RPC statistics\n\tNo pending RPCs\n"))
      << text;
  // -t: by total time; -i: users by uid.
  const std::string by_time = FormatSdiag(d, SdiagSort::kTime);
  EXPECT_LT(by_time.find("GET /v1/jobs"), by_time.find("POST /v1/jobs"));
  EXPECT_LT(by_time.find("\troot "), by_time.find("\talice "));
  const std::string by_id = FormatSdiag(d, SdiagSort::kId);
  EXPECT_LT(by_id.find("\troot "), by_id.find("\talice "));
}

}  // namespace
}  // namespace muster

namespace muster {
namespace {

// The day is zero-padded ("Dec 05", as the peer's sdiag printed), and the gettimeofday line
// carries what the controller measured.
TEST(SdiagTest, DatesArePaddedAsSlurmsAndTheLatencyLineIsMeasured) {
  setenv("TZ", "UTC", 1);
  tzset();
  DiagAnswer d;
  d.now = 1796487623;  // Sat Dec 05 16:20:23 2026
  d.since = 1796487622;
  const std::string text = FormatSdiag(d);
  EXPECT_NE(text.find("sdiag output at Sat Dec 05 16:20:23 2026 (1796487623)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Data since      Sat Dec 05 16:20:22 2026 (1796487622)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nLatency for 1000 calls to gettimeofday(): 0 microseconds\n"), std::string::npos) << text;
  d.gettimeofday_latency_us = 29;
  EXPECT_NE(FormatSdiag(d).find("\nLatency for 1000 calls to gettimeofday(): 29 microseconds\n"), std::string::npos);
}

}  // namespace
}  // namespace muster


namespace muster {
namespace {

std::string SdiagError(const std::vector<std::string>& args) {
  StatusOr<SdiagArgs> r = ParseSdiagArgs(args);
  EXPECT_FALSE(r.ok()) << args.front();
  return r.ok() ? "" : r.status().message();
}

// sdiag's line through the option engine: Slurm's names, clusters, unique prefixes and any order.
TEST(SdiagArgsTest, ReadsSlurmsOptions) {
  SdiagArgs r = *ParseSdiagArgs({});
  EXPECT_FALSE(r.reset);
  EXPECT_EQ(r.sort, SdiagSort::kCount);
  EXPECT_TRUE(ParseSdiagArgs({"-r"})->reset);
  EXPECT_TRUE(ParseSdiagArgs({"--res"})->reset);
  EXPECT_EQ(ParseSdiagArgs({"-i"})->sort, SdiagSort::kId);
  EXPECT_EQ(ParseSdiagArgs({"--sort-by-time"})->sort, SdiagSort::kTime);  // exact: not sort-by-time2
  EXPECT_EQ(ParseSdiagArgs({"--sort-by-time2"})->sort, SdiagSort::kAverage);
  r = *ParseSdiagArgs({"-aT", "--sort-by-id", "--reset"});
  EXPECT_TRUE(r.reset);
  EXPECT_EQ(r.sort, SdiagSort::kId);  // the last sort given
  EXPECT_EQ(ParseSdiagArgs({"--usage", "--bogus"})->meta, "usage");  // answered, the rest unread
  EXPECT_EQ(ParseSdiagArgs({"-h"})->meta, "help");
  EXPECT_EQ(ParseSdiagArgs({"-V"})->meta, "version");
}

TEST(SdiagArgsTest, ErrorsInSlurmWords) {
  const std::string try_help = "\nTry \"sdiag --help\" for more information\n";
  EXPECT_EQ(SdiagError({"--bogus"}), "sdiag: unrecognized option '--bogus'" + try_help);
  EXPECT_EQ(SdiagError({"-x"}), "sdiag: invalid option -- 'x'" + try_help);
  EXPECT_EQ(SdiagError({"--sort-by-t"}),
            "sdiag: option '--sort-by-t' is ambiguous; possibilities: '--sort-by-time' '--sort-by-time2'" + try_help);
  EXPECT_EQ(SdiagError({"--reset=1"}), "sdiag: option '--reset' doesn't allow an argument" + try_help);
  EXPECT_EQ(SdiagError({"-M"}), "sdiag: option requires an argument -- 'M'" + try_help);
  EXPECT_EQ(SdiagError({"-M", "c2"}), "sdiag: error: --clusters is not supported by Muster\n");
  EXPECT_EQ(SdiagError({"--json"}), "sdiag: error: --json is not supported by Muster\n");
  EXPECT_EQ(SdiagError({"now"}), "sdiag: unrecognized option 'now'" + try_help);
  // Before any controller is asked: the message and status 1.
  std::ostringstream out, err;
  EXPECT_EQ(SdiagMain({"-r", "--bogus"}, out, err), 1);
  EXPECT_EQ(err.str(), "sdiag: unrecognized option '--bogus'" + try_help);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(SdiagMain({"--usage"}, out, err), 0);
  EXPECT_EQ(out.str(), "Usage: sdiag [-a] [-r] [-i|-t|-T]\n");
}

}  // namespace
}  // namespace muster
