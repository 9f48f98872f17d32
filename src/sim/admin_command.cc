#include "sim/admin_command.h"

#include <ostream>

#include "model/option_engine.h"
#include "sim/tool_args.h"
#include "store/migrate.h"
#include "store/store.h"

namespace muster {

std::string AdminUsage() {
  return "usage: muster admin migrate --from LOCATION --to LOCATION\n"
         "  Copies a stopped controller's state (jobs, steps, nodes, scripts, usage, policy, the next\n"
         "  job id) into an empty store, then reads it back and compares.\n"
         "  LOCATION: sqlite:FILE (or a path) | postgresql://USER@HOST:PORT/DB\n"
         "  (a password is best kept in ~/.pgpass or PGPASSWORD, not on the command line)\n";
}

namespace {

constexpr OptionSpec kAdminOptions[] = {
    {"help", 'h', OptionArg::kNone, OptionUse::kMeta},
};

enum MigrateOpt : int { kMiFrom, kMiTo };

constexpr OptionSpec kMigrateOptions[] = {
    {"from", 0, OptionArg::kRequired, OptionUse::kOwn, kMiFrom},
    {"to", 0, OptionArg::kRequired, OptionUse::kOwn, kMiTo},
    {"help", 'h', OptionArg::kNone, OptionUse::kMeta},
};

}  // namespace

int AdminMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  StatusOr<ToolLine> admin = ReadToolLine(kAdminOptions, args, [](const OptionOccurrence&) { return Status::Ok(); });
  if (!admin.ok()) {
    err << "muster admin: " << admin.status().message() << "\n" << AdminUsage();
    return 2;
  }
  if (admin->help || admin->operands.empty()) {
    (admin->help ? out : err) << AdminUsage();
    return admin->help ? 0 : 2;
  }
  const std::vector<std::string>& verb = admin->operands;
  if (verb[0] != "migrate") {
    err << "muster admin: unknown verb '" << verb[0] << "'\n" << AdminUsage();
    return 2;
  }
  std::string from, to;
  bool empty_location = false;  // a mistake in a location, not in the command's form: no usage
  StatusOr<ToolLine> line = ReadToolLine(
      kMigrateOptions, std::vector<std::string>(verb.begin() + 1, verb.end()), [&](const OptionOccurrence& o) {
        if (o.value->empty()) {
          empty_location = true;
          return InvalidArgument("--" + std::string(o.spec->name) + ": empty location");
        }
        (o.spec->id == kMiFrom ? from : to) = *o.value;
        return Status::Ok();
      });
  if (line.ok() && line->help) {
    out << AdminUsage();
    return 0;
  }
  if (line.ok()) {
    if (Status st = RefuseToolOperands(*line); !st.ok()) line = st;
  }
  if (!line.ok()) {
    err << "muster admin migrate: " << line.status().message() << "\n" << (empty_location ? "" : AdminUsage());
    return 2;
  }
  if (from.empty() || to.empty()) {
    err << "muster admin migrate: both --from and --to are needed\n" << AdminUsage();
    return 2;
  }
  StatusOr<MigrationCounts> n = MigrateStore(from, to);
  if (!n.ok()) {
    err << "muster admin migrate: " << n.status().message() << "\n";
    return 1;
  }
  out << "migrated " << n->jobs << " jobs, " << n->steps << " steps, " << n->nodes << " nodes and " << n->meta
      << " meta records from " << StoreLocationForDisplay(from) << " to " << StoreLocationForDisplay(to)
      << " (read back and compared); job ids go on from " << n->next_job_id << " or above\n";
  return 0;
}

}  // namespace muster
