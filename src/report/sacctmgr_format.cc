#include "report/sacctmgr_format.h"

#include <algorithm>

#include "base/strings.h"
#include "model/job_request.h"
#include "model/limits.h"

namespace muster {
namespace {

struct Table {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
};

// Slurm's sacctmgr layout: right-aligned columns of 10 (wider where a value needs it), or with
// -P/-p fields joined by '|' (-p: a trailing '|' too).
void Print(const Table& t, bool header, int parsable, std::string& out) {
  if (parsable > 0) {
    auto line = [&](const std::vector<std::string>& cells) {
      for (size_t i = 0; i < cells.size(); ++i) out += (i ? "|" : "") + cells[i];
      out += parsable == 2 ? "|\n" : "\n";
    };
    if (header) line(t.head);
    for (const auto& r : t.rows) line(r);
    return;
  }
  std::vector<size_t> width(t.head.size(), 10);
  for (size_t i = 0; i < t.head.size(); ++i) {
    width[i] = std::max(width[i], t.head[i].size());
    for (const auto& r : t.rows) width[i] = std::max(width[i], r[i].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (size_t i = 0; i < cells.size(); ++i) l += std::string(width[i] - cells[i].size() + 1, ' ') + cells[i];
    out += l + "\n";
  };
  if (header) {
    line(t.head);
    std::vector<std::string> dashes;
    for (size_t w : width) dashes.push_back(std::string(w, '-'));
    std::string l;
    for (const std::string& d : dashes) l += " " + d;
    out += l + "\n";
  }
  for (const auto& r : t.rows) line(r);
}

std::string Amount(int64_t n) { return n == kUnlimited ? "" : std::to_string(n); }
std::string Time(int64_t n) { return n == kUnlimited ? "" : FormatTimeSpec(n); }
std::string Tres(const TresAmounts& t) {
  std::string s;
  auto add = [&](const std::string& item) { s += (s.empty() ? "" : ",") + item; };
  if (t.cpus != kUnlimited) add("cpu=" + std::to_string(t.cpus));
  if (const int64_t mb = t.memory_mb; mb != kUnlimited) {
    add("mem=" + (mb % 1024 == 0 ? std::to_string(mb / 1024) + "G" : std::to_string(mb) + "M"));
  }
  if (t.gpus != kUnlimited) add("gres/gpu=" + std::to_string(t.gpus));
  return s;
}
std::string GpuTres(int64_t n) { return n == kUnlimited ? "" : "gres/gpu=" + std::to_string(n); }
std::string Weight(double w) {
  std::string s = std::to_string(w);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

Table ShowTable(const std::string& what, const std::vector<Account>& accounts,
                const std::vector<UserAssociation>& users, const std::vector<Qos>& qos) {
  Table t;
  if (what == "qos") {
    t.head = {"Name", "Priority", "GraceTime", "Preempt", "PreemptExemptTime", "PreemptMode", "GrpTRES",
              "MaxTRES", "MaxWall", "MaxTRESPU", "MaxJobsPU"};
    for (const Qos& q : qos) {
      std::string preempt;
      for (const std::string& x : q.preempt) preempt += (preempt.empty() ? "" : ",") + x;
      t.rows.push_back({q.name, std::to_string(q.priority), Time(q.grace_time_s), preempt,
                        Time(q.preempt_exempt_time_s), q.has_preempt_mode ? Lower(PreemptModeName(q.preempt_mode)) : "cluster",
                        GpuTres(q.grp_gpus), GpuTres(q.max_gpus_per_job), Time(q.max_wall_s),
                        GpuTres(q.max_gpus_per_user), Amount(q.max_jobs_per_user)});
    }
    return t;
  }
  if (what == "account") {
    t.head = {"Account", "Parent", "Share", "Quota", "OverQuotaWeight", "GrpTRES", "MaxJobs", "MaxWall",
              "MaxTRESPU"};
    for (const Account& a : accounts) {
      t.rows.push_back({a.name, a.parent.empty() ? "root" : a.parent, std::to_string(a.shares), Tres(a.quota),
                        Weight(a.over_quota_weight), Tres(a.limit), Amount(a.max_jobs), Time(a.max_wall_s),
                        GpuTres(a.max_gpus_per_user)});
    }
    return t;
  }
  // assoc: every account, then its users.
  t.head = {"Account", "User", "Share", "GrpTRES", "MaxJobs", "MaxWall", "MaxTRESPU"};
  for (const Account& a : accounts) {
    t.rows.push_back({a.name, "", std::to_string(a.shares), Tres(a.limit), Amount(a.max_jobs), Time(a.max_wall_s),
                      GpuTres(a.max_gpus_per_user)});
    for (const UserAssociation& u : users) {
      if (u.account == a.name) t.rows.push_back({a.name, u.user, std::to_string(u.shares), "", "", "", ""});
    }
  }
  for (const UserAssociation& u : users) {
    if (u.account.empty()) t.rows.push_back({"root", u.user, std::to_string(u.shares), "", "", "", ""});
  }
  return t;
}

}  // namespace

std::string FormatSacctmgrShow(const std::string& what, const std::vector<Account>& accounts,
                               const std::vector<UserAssociation>& users, const std::vector<Qos>& qos,
                               const SacctmgrOptions& options) {
  std::string out;
  Print(ShowTable(what, accounts, users, qos), options.header, options.parsable, out);
  return out;
}

}  // namespace muster
