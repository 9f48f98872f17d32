#include "cli/why_command.h"

#include <cmath>
#include <map>
#include <memory>

#include "base/pretty_json.h"
#include "cli/command_args.h"
#include "cli/ctld_client.h"
#include "model/job_request.h"
#include "report/slurm_format.h"

namespace muster {
namespace {

std::string Number(double x) {
  if (x == std::floor(x)) return std::to_string(static_cast<long long>(x));
  std::string s = std::to_string(x);
  while (s.back() == '0') s.pop_back();
  return s;
}

std::string Gpus(double n) { return Number(n) + (n == 1 ? " GPU" : " GPUs"); }

std::string Ordinal(int n) {
  const int tens = n % 100;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

// The reason in words, after Slurm's word for it.
std::string ReasonWords(const std::string& reason, const WhyAnswer& a) {
  static const std::map<std::string, std::string> kWords = {
      {"Priority", "jobs ahead of it in its partition come first (or a backfill reservation is in its way)"},
      {"PartitionDown", "its partition is not up"},
      {"PartitionConfig", "its time limit is over the partition's MaxTime"},
      {"PartitionNodeLimit", "its node count is outside the partition's limits"},
      {"ReqNodeNotAvail", "the nodes it could use are down or drained"},
      {"BadConstraints", "the nodes with the features it asks for are all unavailable"},
      {"AssocGrpGRES", "its account's GPU limit would be exceeded"},
      {"AssocGrpCpuLimit", "its account's CPU limit would be exceeded"},
      {"AssocGrpMemLimit", "its account's memory limit would be exceeded"},
      {"AssocMaxJobsLimit", "its user's limit of running jobs in the account is reached"},
      {"AssocGrpJobsLimit", "its account's limit of running jobs is reached"},
      {"AssocMaxWallDurationPerJobLimit", "its time limit is over its account's MaxWall"},
      {"QOSMaxGRESPerUser", "its user's GPU limit in its QOS would be exceeded"},
      {"QOSMaxGRESPerJob", "it asks for more GPUs than its QOS allows one job"},
      {"QOSMaxJobsPerUserLimit", "its user's limit of running jobs in its QOS is reached"},
      {"QOSMaxWallDurationPerJobLimit", "its time limit is over its QOS's MaxWall"},
      {"QOSGrpGRES", "its QOS's GPU limit would be exceeded"},
  };
  if (reason == "Resources") {
    if (a.gpus > 0) return "the " + Gpus(a.gpus) + " it asks for are not free now";
    return "the resources it asks for are not free now";
  }
  auto it = kWords.find(reason);
  return it != kWords.end() ? it->second : "";
}

// "node03 GPUs 0-7, node04 GPUs 0-7", or the host list when no GPUs.
std::string Where(const WhyOutcomeAnswer& o) {
  if (o.gpus.empty()) return o.nodes;
  std::string s;
  for (const std::string& g : o.gpus) {
    const size_t colon = g.rfind(':');
    if (!s.empty()) s += ", ";
    s += g.substr(0, colon) + " GPUs " + g.substr(colon + 1);
  }
  return s;
}

// What a cycle decides, short: "starts now", "planned 2026-12-05T23:10:00", "waits: Priority".
std::string Short(const WhyOutcomeAnswer& o) {
  if (o.start == "now") return "starts now";
  if (o.start == "preempting") return "starts once jobs it preempts stop";
  if (o.start == "never") return "can never run as asked";
  std::string s = "waits";
  if (!o.reason.empty()) s += ": " + o.reason;
  if (o.start == "planned") s += ", planned " + FormatSlurmTime(o.start_time);
  return s;
}

std::string When(const WhyOutcomeAnswer& o) {
  if (o.start == "now") return "now";
  if (o.start == "preempting") return "now, by preemption";
  if (o.start == "planned") return FormatSlurmTime(o.start_time);
  return "no planned start";
}

}  // namespace

std::string FormatWhy(const WhyAnswer& a) {
  std::string o = "Job " + std::to_string(a.job_id) + " (" + a.user + (a.account.empty() ? "" : ", account " + a.account) + ")";
  if (!a.explained) {
    o += " is " + a.state + ": " + a.note + ".\n";
    return o;
  }
  const WhyOutcomeAnswer& d = a.outcome;
  if (d.start == "now") {
    o += " is pending (" + a.reason + "), but the scheduler would start it at its next pass";
    if (!d.nodes.empty()) o += ", on " + Where(d);
    o += ".\n";
  } else {
    const std::string reason = d.reason.empty() ? a.reason : d.reason;
    o += " is pending: " + reason;
    const std::string words = ReasonWords(reason, a);
    if (!words.empty()) o += " - " + words;
    if (!d.message.empty()) o += " (" + d.message + ")";
    o += ".\n";
  }
  o += "The scheduler takes it " + Ordinal(a.position) + " of " + std::to_string(a.queue_size) +
       (a.queue_size == 1 ? " waiting job" : " waiting jobs");
  if (a.fair_share_order) o += " (across accounts by fair share, then by priority)";
  o += ".\n";
  if (a.ahead_in_partition == 0) {
    o += "No job of partition " + a.partition + " is ahead of it";
    if (a.ahead_total > 0) o += " (" + std::to_string(a.ahead_total) + " of other partitions are)";
    o += ".\n";
  } else {
    o += "Ahead of it in partition " + a.partition + " (scheduling order):\n";
    for (const WhyAheadAnswer& j : a.ahead) {
      o += "  " + std::to_string(j.position) + ". job " + std::to_string(j.job_id) + " prio " + std::to_string(j.priority) +
           " (" + j.user + (j.account.empty() ? "" : "/" + j.account) + ", " + Gpus(j.gpus) + "): " + Short(j.outcome) + "\n";
    }
    const int more = a.ahead_in_partition - static_cast<int>(a.ahead.size());
    if (more > 0) o += "  ... and " + std::to_string(more) + " more\n";
    if (a.ahead_total > a.ahead_in_partition) {
      o += "  (and " + std::to_string(a.ahead_total - a.ahead_in_partition) + " of other partitions)\n";
    }
  }
  for (const WhyShareAnswer& s : a.shares) {
    o += "Fair share: account " + s.account + " holds " + Number(s.held) + " of its fair share of " + Number(s.fair_share) +
         " GPUs" + (s.quota >= 0 ? " (quota " + Number(s.quota) + ")" : "") + ", wants " + Number(s.demand) + ".\n";
  }
  if (d.start == "planned") {
    o += "Expected start: " + FormatSlurmTime(d.start_time) + " on " + Where(d) + " (backfill plan).\n";
  } else if (d.start == "preempting") {
    o += "Expected start: once running job";
    o += d.preempt.size() == 1 ? " " : "s ";
    for (size_t i = 0; i < d.preempt.size(); ++i) o += (i ? ", " : "") + std::to_string(d.preempt[i]);
    o += d.preempt.size() == 1 ? " is stopped (preemption).\n" : " are stopped (preemption).\n";
  } else if (d.start != "now") {
    o += "Expected start: none planned (no backfill reservation for it in this pass).\n";
  }
  if (d.start == "now" || d.start == "preempting") return o;
  if (a.sooner.empty()) {
    o += "Nothing checked starts it sooner (fewer GPUs, a shorter time limit, another partition, its account's limits).\n";
    return o;
  }
  o += "Would start sooner with:";
  for (size_t i = 0; i < a.sooner.size(); ++i) {
    const WhySoonerAnswer& s = a.sooner[i];
    o += (i ? "; " : " ") + s.change + " (" + When(s.outcome) + (s.outcome.nodes.empty() ? "" : " on " + s.outcome.nodes);
    if (s.kind == "time" && s.outcome.start == "now") o += ", backfilled";
    if (s.kind == "limit" && s.in_use >= 0) o += ", " + std::to_string(s.in_use) + " in use";
    o += ")";
  }
  o += ".\n";
  return o;
}

int WhyMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  bool json = false;
  std::string id_text;
  for (const std::string& a : args) {
    if (a == "--json") {
      json = true;
    } else if (a == "-h" || a == "--help") {
      out << "usage: muster why JOBID [--json]\n"
             "Why a pending job waits and when it will start: its reason, the jobs ahead of it in the\n"
             "scheduling order, the expected start and nodes from the backfill plan, and what would let it\n"
             "start sooner (fewer GPUs, a shorter time limit, another partition, its account's limits),\n"
             "each checked by the scheduler.\n";
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      err << "muster why: unknown option '" << a << "'\nusage: muster why JOBID [--json]\n";
      return 2;
    } else if (id_text.empty()) {
      id_text = a;
    } else {
      err << "muster why: one job id only\nusage: muster why JOBID [--json]\n";
      return 2;
    }
  }
  if (id_text.empty()) {
    err << "usage: muster why JOBID [--json]\n";
    return 2;
  }
  int64_t id = 0;
  size_t used = 0;
  try {
    id = std::stoll(id_text, &used);
  } catch (...) {
    used = 0;
  }
  if (used != id_text.size() || id <= 0) {
    err << "muster why: invalid job id '" << id_text << "'\n";
    return 2;
  }
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("muster why", c.status(), err);
  StatusOr<WhyAnswer> a = (*c)->Why(id);
  if (!a.ok()) {
    err << "muster why: job " << id << ": " << a.status().message() << "\n";
    return 1;
  }
  if (json) {
    out << PrettyJson(wire::bj::value(wire::ToObject(*a))) << "\n";
  } else {
    out << FormatWhy(*a);
  }
  return 0;
}

}  // namespace muster
