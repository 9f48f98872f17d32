#include "cli/sacctmgr_command.h"

#include <algorithm>
#include <cctype>

#include "base/strings.h"
#include "cli/command_args.h"
#include "cli/ctld_client.h"
#include "model/job_request.h"
#include "model/limits.h"

namespace muster {

namespace {

constexpr char kUsage[] =
    "Usage: sacctmgr [-i] [-n] [-P|-p] add|modify|delete account|user|qos NAME [where ...] [set] Key=Value ...\n"
    "       sacctmgr [-n] [-P|-p] show account|assoc|qos\n";

struct Table {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
};

// Slurm's sacctmgr layout: right-aligned columns of 10 (wider where a value needs it), or with
// -P/-p fields joined by '|' (-p: a trailing '|' too).
void Print(const Table& t, bool header, int parsable, std::ostream& out) {
  if (parsable > 0) {
    auto line = [&](const std::vector<std::string>& cells) {
      for (size_t i = 0; i < cells.size(); ++i) out << (i ? "|" : "") << cells[i];
      out << (parsable == 2 ? "|" : "") << "\n";
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
    out << l << "\n";
  };
  if (header) {
    line(t.head);
    std::vector<std::string> dashes;
    for (size_t w : width) dashes.push_back(std::string(w, '-'));
    std::string l;
    for (const std::string& d : dashes) l += " " + d;
    out << l << "\n";
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

Table ShowTable(const std::string& what, const PolicyAnswer& p) {
  Table t;
  if (what == "qos") {
    t.head = {"Name", "Priority", "GraceTime", "Preempt", "PreemptExemptTime", "PreemptMode", "GrpTRES",
              "MaxTRES", "MaxWall", "MaxTRESPU", "MaxJobsPU"};
    for (const Qos& q : p.qos) {
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
    for (const Account& a : p.accounts) {
      t.rows.push_back({a.name, a.parent.empty() ? "root" : a.parent, std::to_string(a.shares), Tres(a.quota),
                        Weight(a.over_quota_weight), Tres(a.limit), Amount(a.max_jobs), Time(a.max_wall_s),
                        GpuTres(a.max_gpus_per_user)});
    }
    return t;
  }
  // assoc: every account, then its users.
  t.head = {"Account", "User", "Share", "GrpTRES", "MaxJobs", "MaxWall", "MaxTRESPU"};
  for (const Account& a : p.accounts) {
    t.rows.push_back({a.name, "", std::to_string(a.shares), Tres(a.limit), Amount(a.max_jobs), Time(a.max_wall_s),
                      GpuTres(a.max_gpus_per_user)});
    for (const UserAssociation& u : p.users) {
      if (u.account == a.name) t.rows.push_back({a.name, u.user, std::to_string(u.shares), "", "", "", ""});
    }
  }
  for (const UserAssociation& u : p.users) {
    if (u.account.empty()) t.rows.push_back({"root", u.user, std::to_string(u.shares), "", "", "", ""});
  }
  return t;
}

}  // namespace

int SacctmgrMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  bool header = true;
  int parsable = 0;
  std::vector<std::string> words;
  for (const std::string& a : args) {
    if (a == "-i" || a == "--immediate") continue;
    if (a == "-n" || a == "--noheader") {
      header = false;
    } else if (a == "-P" || a == "--parsable2") {
      parsable = 1;
    } else if (a == "-p" || a == "--parsable") {
      parsable = 2;
    } else if (a == "-h" || a == "--help" || a == "--usage") {
      out << kUsage;
      return 0;
    } else if (a == "-V" || a == "--version") {
      out << "muster 0.1.0 (sacctmgr)\n";
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      err << "sacctmgr: error: unrecognized option '" << a << "'\n" << kUsage;
      return 1;
    } else {
      words.push_back(a);
    }
  }
  if (words.size() < 2) {
    err << kUsage;
    return 1;
  }
  std::string verb = Lower(words[0]);
  std::string entity = Lower(words[1]);
  if (verb == "create") verb = "add";
  if (verb == "update") verb = "modify";
  if (verb == "remove") verb = "delete";
  if (verb == "list") verb = "show";
  if (entity == "accounts") entity = "account";
  if (entity == "users") entity = "user";
  if (entity == "association" || entity == "associations" || entity == "assocs") entity = "assoc";
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (verb == "show") {
    if (entity != "account" && entity != "assoc" && entity != "qos") {
      err << "sacctmgr: error: show: unknown entity '" << words[1] << "' (known: account, assoc, qos)\n";
      return 1;
    }
    if (!c.ok()) return ConnectError("sacctmgr", c.status(), err);
    StatusOr<PolicyAnswer> r = (*c)->Policy();
    if (!r.ok()) return ConnectError("sacctmgr", r.status(), err);
    Print(ShowTable(entity, *r), header, parsable, out);
    for (const std::string& w : r->warnings) err << "sacctmgr: warning: " << w << "\n";
    return 0;
  }
  if (verb != "add" && verb != "modify" && verb != "delete") {
    err << "sacctmgr: error: unknown command '" << words[0] << "' (known: add, modify, delete, show)\n";
    return 1;
  }
  if (entity != "account" && entity != "user" && entity != "qos") {
    err << "sacctmgr: error: " << verb << ": unknown entity '" << words[1] << "' (known: account, user, qos)\n";
    return 1;
  }
  // NAME, name=NAME (after an optional "where"), then Key=Value settings (after an optional "set").
  std::string name;
  PolicyOp op{verb, entity, "", {}};
  for (size_t i = 2; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (Lower(w) == "where" || Lower(w) == "set") continue;
    const size_t eq = w.find('=');
    if (eq == std::string::npos) {
      if (!name.empty()) {
        err << "sacctmgr: error: more than one name given ('" << name << "', '" << w << "')\n";
        return 1;
      }
      name = w;
      continue;
    }
    const std::string key = w.substr(0, eq), value = w.substr(eq + 1);
    if (Lower(key) == "name" || Lower(key) == "names") {
      name = value;
    } else {
      op.fields.emplace_back(key, value);
    }
  }
  if (name.empty()) {
    err << "sacctmgr: error: no " << entity << " name given\n";
    return 1;
  }
  if (!c.ok()) return ConnectError("sacctmgr", c.status(), err);
  op.name = name;
  if (Status st = (*c)->ChangePolicy(op); !st.ok()) {
    err << "sacctmgr: error: " << st.message() << "\n";
    return 1;
  }
  const char* what = entity == "account" ? "Account(s)" : entity == "user" ? "User(s)" : "QOS(s)";
  out << (verb == "add" ? " Adding " : verb == "modify" ? " Modified " : " Deleting ") << what << "\n  " << name << "\n";
  if (!op.fields.empty() && verb != "delete") {
    out << " Settings\n";
    for (const auto& [key, value] : op.fields) out << "  " << key << " = " << value << "\n";
  }
  return 0;
}

}  // namespace muster
