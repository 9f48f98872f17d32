// sprio and sshare: the priority factors of pending jobs and the fair-share tree.
#include "cli/priority_commands.h"

#include <cmath>
#include <limits>
#include <set>

#include "cli/command_args.h"
#include "cli/command_help.h"
#include "cli/ctld_client.h"
#include "report/priority_format.h"

namespace muster {


int SprioMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  SprioOptions opt;
  std::set<int64_t> ids;
  std::set<std::string> users;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    if (a == "-l" || a == "--long") {
      opt.long_list = true;
    } else if (a == "-n" || a == "--norm") {
      opt.normalized = true;
    } else if (a == "-h" || a == "--noheader") {
      opt.no_header = true;
    } else if (a == "-w" || a == "--weights") {
      opt.weights = true;
    } else if (a == "--help" || a == "--usage") {
      out << "Usage: sprio [-j jobid[,jobid...]] [-u user[,user...]] [-l] [-n] [-h] [-w]\n";
      return 0;
    } else if (a == "-V" || a == "--version") {
      out << "muster " << kMusterVersion << " (sprio)\n";
      return 0;
    } else if (TakeValue(args, i, "-j", "--jobs", &v)) {
      for (const std::string& s : Split(v, ',')) {
        char* end = nullptr;
        long long id = std::strtoll(s.c_str(), &end, 10);
        if (*end != '\0' || id <= 0) {
          err << "sprio: error: Invalid job id: " << s << "\n";
          return 1;
        }
        ids.insert(id);
      }
    } else if (TakeValue(args, i, "-u", "--user", &v)) {
      for (const std::string& s : Split(v, ',')) users.insert(s);
      opt.show_user = true;
    } else {
      err << "sprio: unrecognized option '" << a << "'\nTry \"sprio --help\" for more information\n";
      return 1;
    }
  }
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("sprio", c.status(), err);
  StatusOr<PriorityAnswer> r = (*c)->Priority();
  if (!r.ok()) return ConnectError("sprio", r.status(), err);
  const PriorityWeightsAnswer& jw = r->weights;
  const SprioWeights w{jw.age, jw.fairshare, jw.job_size, jw.partition, jw.qos};
  std::vector<SprioRow> rows;
  for (const JobPriorityAnswer& j : r->jobs) {
    if ((!ids.empty() && !ids.count(j.job_id)) || (!users.empty() && !users.count(j.user))) continue;
    const PriorityFactorsAnswer& f = j.factors;
    rows.push_back({j.job_id, j.partition, j.user, j.priority, f.age, f.fairshare, f.job_size, f.partition, f.qos});
  }
  if (!opt.weights && rows.empty() && (!ids.empty() || !users.empty())) {
    out << "Unable to find jobs matching user/id(s) specified\n";
    return 0;
  }
  out << FormatSprio(rows, w, opt);
  return 0;
}

int SshareMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  SshareOptions opt;
  bool all = false;
  std::set<std::string> users, accounts;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    if (a == "-a" || a == "--all") {
      all = true;
    } else if (a == "-l" || a == "--long") {
      opt.long_list = true;
    } else if (a == "-n" || a == "--noheader") {
      opt.no_header = true;
    } else if (a == "-P" || a == "--parsable2") {
      opt.parsable = true;
    } else if (a == "--help" || a == "--usage") {
      out << "Usage: sshare [-a] [-A account[,account...]] [-u user[,user...]] [-l] [-n] [-P]\n";
      return 0;
    } else if (a == "-V" || a == "--version") {
      out << "muster " << kMusterVersion << " (sshare)\n";
      return 0;
    } else if (TakeValue(args, i, "-A", "--accounts", &v)) {
      for (const std::string& s : Split(v, ',')) accounts.insert(s);
    } else if (TakeValue(args, i, "-u", "--users", &v)) {
      for (const std::string& s : Split(v, ',')) users.insert(s);
    } else {
      err << "sshare: unrecognized option '" << a << "'\nTry \"sshare --help\" for more information\n";
      return 1;
    }
  }
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("sshare", c.status(), err);
  StatusOr<SharesAnswer> r = (*c)->Shares();
  if (!r.ok()) return ConnectError("sshare", r.status(), err);
  std::vector<SshareRow> rows;
  // Without -a or -u: the caller's own associations (and every account), as Slurm shows.
  if (!all && users.empty()) users.insert(r->caller);
  for (const ShareAnswer& j : r->shares) {
    if (!j.user.empty() && !all && !users.count(j.user)) continue;
    if (!accounts.empty() && !accounts.count(j.account)) continue;
    rows.push_back({j.account, j.user, j.depth, j.raw_shares, j.norm_shares, j.raw_usage, j.norm_usage, j.fairshare,
                    j.level_fs.value_or(std::numeric_limits<double>::infinity())});
  }
  out << FormatSshare(rows, opt);
  return 0;
}

}  // namespace muster
