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

using nlohmann::json;

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
  StatusOr<json> r = (*c)->Priority();
  if (!r.ok()) return ConnectError("sprio", r.status(), err);
  SprioWeights w;
  std::vector<SprioRow> rows;
  try {
    const json& jw = r->at("weights");
    w = {jw.at("age").get<int64_t>(), jw.at("fairshare").get<int64_t>(), jw.at("job_size").get<int64_t>(),
         jw.at("partition").get<int64_t>(), jw.at("qos").get<int64_t>()};
    for (const json& j : r->at("jobs")) {
      SprioRow row;
      row.job_id = j.at("job_id").get<int64_t>();
      row.partition = j.at("partition").get<std::string>();
      row.user = j.at("user").get<std::string>();
      row.priority = j.at("priority").get<int64_t>();
      const json& f = j.at("factors");
      row.age = f.at("age").get<double>();
      row.fairshare = f.at("fairshare").get<double>();
      row.job_size = f.at("job_size").get<double>();
      row.partition_factor = f.at("partition").get<double>();
      row.qos = f.at("qos").get<double>();
      if ((!ids.empty() && !ids.count(row.job_id)) || (!users.empty() && !users.count(row.user))) continue;
      rows.push_back(std::move(row));
    }
  } catch (const json::exception& e) {
    err << "sprio: error: unexpected answer from the controller: " << e.what() << "\n";
    return 1;
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
  StatusOr<json> r = (*c)->Shares();
  if (!r.ok()) return ConnectError("sshare", r.status(), err);
  std::vector<SshareRow> rows;
  try {
    // Without -a or -u: the caller's own associations (and every account), as Slurm shows.
    if (!all && users.empty()) users.insert(r->at("caller").get<std::string>());
    for (const json& j : r->at("shares")) {
      SshareRow row;
      row.account = j.at("account").get<std::string>();
      row.user = j.at("user").get<std::string>();
      row.depth = j.at("depth").get<int>();
      row.raw_shares = j.at("raw_shares").get<int64_t>();
      row.norm_shares = j.at("norm_shares").get<double>();
      row.raw_usage = j.at("raw_usage").get<double>();
      row.norm_usage = j.at("norm_usage").get<double>();
      row.fairshare = j.at("fairshare").get<double>();
      row.level_fs = j.at("level_fs").is_null() ? std::numeric_limits<double>::infinity()
                                                : j.at("level_fs").get<double>();
      if (!row.user.empty() && !all && !users.count(row.user)) continue;
      if (!accounts.empty() && !accounts.count(row.account)) continue;
      rows.push_back(std::move(row));
    }
  } catch (const json::exception& e) {
    err << "sshare: error: unexpected answer from the controller: " << e.what() << "\n";
    return 1;
  }
  out << FormatSshare(rows, opt);
  return 0;
}

}  // namespace muster
