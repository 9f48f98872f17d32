#include "cli/sdiag_command.h"

#include <time.h>

#include <algorithm>
#include <cstdio>

#include "cli/command_args.h"
#include "cli/command_help.h"
#include "cli/ctld_client.h"

namespace muster {
namespace {

// Slurm's slurm_ctime2: ctime's form without its line feed, the day zero-padded as Slurm 22.05's
// sdiag printed it on the peer ("Sat Dec 05 16:20:23 2026").
std::string Ctime(int64_t t) {
  const time_t tt = static_cast<time_t>(t);
  struct tm tm {};
  localtime_r(&tt, &tm);
  char buf[64];
  strftime(buf, sizeof buf, "%a %b %d %H:%M:%S %Y", &tm);
  return buf;
}

std::string Printf(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

enum SdiagOpt : int { kSdReset, kSdSortById, kSdSortByTime, kSdSortByTime2 };

// Every option of Slurm 22.05's src/sdiag/opts.c, in its long_options order.
constexpr OptionSpec kSdiagOptions[] = {
    {"all", 'a', OptionArg::kNone, OptionUse::kIgnored, 0, nullptr, "no effect: the figures are what sdiag prints"},
    {"help", 'h', OptionArg::kNone, OptionUse::kMeta},
    {"reset", 'r', OptionArg::kNone, OptionUse::kOwn, kSdReset},
    {"sort-by-id", 'i', OptionArg::kNone, OptionUse::kOwn, kSdSortById, nullptr,
     "every route's id is 0: the RPC rows keep the controller's order; users by uid"},
    {"cluster", 'M', OptionArg::kRequired, OptionUse::kUnsupported, 0, "clusters",
     "one cluster: Muster has no other clusters to name"},
    {"clusters", 'M', OptionArg::kRequired, OptionUse::kUnsupported, 0, nullptr,
     "one cluster: Muster has no other clusters to name"},
    {"sort-by-time", 't', OptionArg::kNone, OptionUse::kOwn, kSdSortByTime},
    {"sort-by-time2", 'T', OptionArg::kNone, OptionUse::kOwn, kSdSortByTime2},
    {"usage", 0, OptionArg::kNone, OptionUse::kMeta},
    {"version", 'V', OptionArg::kNone, OptionUse::kMeta},
    {"json", 0, OptionArg::kOptional, OptionUse::kUnsupported, 0, nullptr, "not implemented"},
    {"yaml", 0, OptionArg::kOptional, OptionUse::kUnsupported, 0, nullptr, "not implemented"},
};

constexpr GetoptStyle kSdiagStyle{.program = "sdiag", .end = "\n", .permute = true};

}  // namespace

std::string FormatSdiag(const DiagAnswer& d, SdiagSort sort) {
  using ll = long long;
  std::string o;
  o += "*******************************************************\n";
  o += Printf("sdiag output at %s (%lld)\n", Ctime(d.now).c_str(), ll(d.now));
  o += Printf("Data since      %s (%lld)\n", Ctime(d.since).c_str(), ll(d.since));
  o += "*******************************************************\n";
  o += Printf("Server thread count:  %lld\n", ll(d.server_threads));
  o += "Agent queue size:     0\n";
  o += "Agent count:          0\n";
  o += "Agent thread count:   0\n";
  o += "DBD Agent queue size: 0\n\n";
  o += Printf("Jobs submitted: %lld\n", ll(d.jobs_submitted));
  o += Printf("Jobs started:   %lld\n", ll(d.jobs_started));
  o += Printf("Jobs completed: %lld\n", ll(d.jobs_completed));
  o += Printf("Jobs canceled:  %lld\n", ll(d.jobs_canceled));
  o += Printf("Jobs failed:    %lld\n\n", ll(d.jobs_failed));
  o += Printf("Job states ts:  %s (%lld)\n", Ctime(d.now).c_str(), ll(d.now));
  o += Printf("Jobs pending:   %lld\n", ll(d.jobs_pending));
  o += Printf("Jobs running:   %lld\n", ll(d.jobs_running));
  o += "\nMain schedule statistics (microseconds):\n";
  o += Printf("\tLast cycle:   %lld\n", ll(d.cycle_last_us));
  o += Printf("\tMax cycle:    %lld\n", ll(d.cycle_max_us));
  o += Printf("\tTotal cycles: %lld\n", ll(d.cycles));
  if (d.cycles > 0) {
    o += Printf("\tMean cycle:   %lld\n", ll(d.cycle_total_us / d.cycles));
    o += Printf("\tMean depth cycle:  %lld\n", ll(d.cycle_depth_total / d.cycles));
  }
  if (d.now - d.since > 60) o += Printf("\tCycles per minute: %lld\n", ll(d.cycles / ((d.now - d.since) / 60)));
  o += Printf("\tLast queue length: %lld\n", ll(d.last_queue_length));
  const int64_t bf = d.bf_cycles;
  o += "\nBackfilling stats\n";
  o += Printf("\tTotal backfilled jobs (since last slurm start): %lld\n", ll(d.bf_backfilled_jobs));
  o += Printf("\tTotal backfilled jobs (since last stats cycle start): %lld\n", ll(d.bf_backfilled_jobs));
  o += Printf("\tTotal backfilled heterogeneous job components: %lld\n", ll(d.bf_backfilled_het));
  o += Printf("\tTotal cycles: %lld\n", ll(bf));
  if (d.bf_last_when > 0) {
    o += Printf("\tLast cycle when: %s (%lld)\n", Ctime(d.bf_last_when).c_str(), ll(d.bf_last_when));
  } else {
    o += "\tLast cycle when: N/A\n";
  }
  o += Printf("\tLast cycle: %lld\n", ll(d.bf_last_us));
  o += Printf("\tMax cycle:  %lld\n", ll(d.bf_max_us));
  if (bf > 0) o += Printf("\tMean cycle: %lld\n", ll(d.bf_total_us / bf));
  o += Printf("\tLast depth cycle: %lld\n", ll(d.bf_last_depth));
  o += Printf("\tLast depth cycle (try sched): %lld\n", ll(d.bf_last_depth));
  if (bf > 0) {
    o += Printf("\tDepth Mean: %lld\n", ll(d.bf_depth_total / bf));
    o += Printf("\tDepth Mean (try depth): %lld\n", ll(d.bf_depth_total / bf));
  }
  o += Printf("\tLast queue length: %lld\n", ll(d.bf_last_depth));
  if (bf > 0) o += Printf("\tQueue length mean: %lld\n", ll(d.bf_depth_total / bf));
  o += "\tLast table size: 0\n";
  if (bf > 0) o += "\tMean table size: 0\n";
  o += Printf("\nLatency for 1000 calls to gettimeofday(): %lld microseconds\n", ll(d.gettimeofday_latency_us));
  o += "\nRemote Procedure Call statistics by message type\n";
  std::vector<DiagRpc> rpcs = d.rpcs;
  auto avg = [](const DiagRpc& r) { return r.count > 0 ? r.total_us / r.count : 0; };
  std::stable_sort(rpcs.begin(), rpcs.end(), [&](const DiagRpc& a, const DiagRpc& b) {
    switch (sort) {
      case SdiagSort::kId: return false;  // every route's id is 0: as the controller lists them
      case SdiagSort::kTime: return a.total_us > b.total_us;
      case SdiagSort::kAverage: return avg(a) > avg(b);
      case SdiagSort::kCount: break;
    }
    return a.count > b.count;
  });
  for (const DiagRpc& r : rpcs) {
    const std::string name = r.method + " " + r.route;
    o += Printf("\t%-40s(%5u) count:%-6lld ave_time:%-6lld total_time:%lld\n", name.c_str(), 0u, ll(r.count),
                ll(avg(r)), ll(r.total_us));
  }
  o += "\nRemote Procedure Call statistics by user\n";
  std::vector<DiagRpcUser> users = d.rpc_users;
  auto user_avg = [](const DiagRpcUser& u) { return u.count > 0 ? u.total_us / u.count : 0; };
  std::stable_sort(users.begin(), users.end(), [&](const DiagRpcUser& a, const DiagRpcUser& b) {
    switch (sort) {
      case SdiagSort::kId: return a.uid < b.uid;
      case SdiagSort::kTime: return a.total_us > b.total_us;
      case SdiagSort::kAverage: return user_avg(a) > user_avg(b);
      case SdiagSort::kCount: break;
    }
    return a.count > b.count;
  });
  for (const DiagRpcUser& u : users) {
    o += Printf("\t%-16s(%8u) count:%-6lld ave_time:%-6lld total_time:%lld\n", u.user.c_str(),
                static_cast<unsigned>(u.uid), ll(u.count), ll(user_avg(u)), ll(u.total_us));
  }
  o += "\nPending RPC statistics\n";
  o += "\tNo pending RPCs\n";
  return o;
}

StatusOr<SdiagArgs> ParseSdiagArgs(const std::vector<std::string>& args) {
  SdiagArgs r;
  ASSIGN_OR_RETURN(CommandLine line,
                   ReadCommandLine(kSdiagOptions, args, kSdiagStyle, [&](const OptionOccurrence& o) -> Status {
                     switch (static_cast<SdiagOpt>(o.spec->id)) {
                       case kSdReset:
                         r.reset = true;
                         break;
                       case kSdSortById:
                         r.sort = SdiagSort::kId;
                         break;
                       case kSdSortByTime:
                         r.sort = SdiagSort::kTime;
                         break;
                       case kSdSortByTime2:
                         r.sort = SdiagSort::kAverage;
                         break;
                     }
                     return Status::Ok();
                   }));
  r.meta = line.meta;
  if (!r.meta.empty()) return r;  // answered at once, the rest unread
  // Slurm's sdiag ignores operands; Muster says that it does not take them.
  RETURN_IF_ERROR(RefuseOperands("sdiag", line));
  return r;
}

OptionTable SdiagOptionTable() { return kSdiagOptions; }

int SdiagMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  StatusOr<SdiagArgs> parsed = ParseSdiagArgs(args);
  if (!parsed.ok()) return err << parsed.status().message(), 1;
  if (parsed->meta == "version") return out << "muster " << kMusterVersion << " (sdiag)\n", 0;
  if (!parsed->meta.empty()) return out << "Usage: sdiag [-a] [-r] [-i|-t|-T]\n", 0;  // --help, --usage
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("sdiag", c.status(), err);
  if (parsed->reset) {
    Status st = (*c)->ResetDiag();
    if (!st.ok()) return err << "slurm_reset_statistics: " << st.message() << "\n", 1;
    out << "Reset scheduling statistics\n";
    return 0;
  }
  StatusOr<DiagAnswer> d = (*c)->Diag();
  if (!d.ok()) return ConnectError("sdiag", d.status(), err);
  out << FormatSdiag(*d, parsed->sort);
  return 0;
}

}  // namespace muster
