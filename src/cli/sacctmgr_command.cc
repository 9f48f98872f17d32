#include "cli/sacctmgr_command.h"

#include <algorithm>
#include <cctype>

#include "base/strings.h"
#include "cli/command_args.h"
#include "cli/command_options.h"
#include "cli/ctld_client.h"
#include "report/sacctmgr_format.h"
#include "model/job_request.h"
#include "model/limits.h"

namespace muster {

namespace {

constexpr char kUsage[] =
    "Usage: sacctmgr [-i] [-n] [-P|-p] add|modify|delete account|user|qos NAME [where ...] [set] Key=Value ...\n"
    "       sacctmgr [-n] [-P|-p] show account|assoc|qos\n";

}  // namespace

int SacctmgrMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  StatusOr<SacctmgrArgs> parsed = ParseSacctmgrArgs(args);
  if (!parsed.ok()) return err << parsed.status().message(), 1;
  if (parsed->meta == "version") return out << "muster 0.1.0 (sacctmgr)\n", 0;
  if (!parsed->meta.empty()) return out << kUsage, 0;  // -h, --help, --usage
  const bool header = parsed->header;
  const int parsable = parsed->parsable;
  const std::vector<std::string>& words = parsed->words;
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
    out << FormatSacctmgrShow(entity, r->accounts, r->users, r->qos, {header, parsable});
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
