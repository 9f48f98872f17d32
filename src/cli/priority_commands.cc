// sprio and sshare: the priority factors of pending jobs and the fair-share tree.
#include "cli/priority_commands.h"

#include <cmath>
#include <limits>
#include <set>

#include "cli/command_args.h"
#include "cli/command_help.h"
#include "cli/command_options.h"
#include "cli/ctld_client.h"
#include "report/priority_format.h"

namespace muster {


int SprioMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  StatusOr<SprioArgs> parsed = ParseSprioArgs(args);
  if (!parsed.ok()) return err << parsed.status().message(), 1;
  if (parsed->meta == "version") return out << "muster " << kMusterVersion << " (sprio)\n", 0;
  if (!parsed->meta.empty()) return out << SprioUsage(), 0;  // --help and --usage
  const SprioOptions& opt = parsed->opt;
  const std::set<int64_t>& ids = parsed->ids;
  const std::set<std::string>& users = parsed->users;
  const std::set<std::string>& partitions = parsed->partitions;
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("sprio", c.status(), err);
  StatusOr<PriorityAnswer> r = (*c)->Priority();
  if (!r.ok()) return ConnectError("sprio", r.status(), err);
  const PriorityWeightsAnswer& jw = r->weights;
  const SprioWeights w{jw.age, jw.fairshare, jw.job_size, jw.partition, jw.qos};
  std::vector<SprioRow> rows;
  for (const JobPriorityAnswer& j : r->jobs) {
    if ((!ids.empty() && !ids.count(j.job_id)) || (!users.empty() && !users.count(j.user))) continue;
    if (!partitions.empty() && !partitions.count(j.partition)) continue;
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
  StatusOr<SshareArgs> parsed = ParseSshareArgs(args);
  if (!parsed.ok()) return err << parsed.status().message(), 1;
  if (parsed->meta == "version") return out << "muster " << kMusterVersion << " (sshare)\n", 0;
  if (!parsed->meta.empty()) {  // --help and --usage
    out << "Usage: sshare [-a] [-A account[,account...]] [-u user[,user...]] [-l] [-n] [-P]\n";
    return 0;
  }
  const SshareOptions& opt = parsed->opt;
  const bool all = parsed->all;
  std::set<std::string>& users = parsed->users;
  const std::set<std::string>& accounts = parsed->accounts;
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
