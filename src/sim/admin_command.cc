#include "sim/admin_command.h"

#include <ostream>

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

int AdminMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? err : out) << AdminUsage();
    return args.empty() ? 2 : 0;
  }
  if (args[0] != "migrate") {
    err << "muster admin: unknown verb '" << args[0] << "'\n" << AdminUsage();
    return 2;
  }
  std::string from, to;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      out << AdminUsage();
      return 0;
    }
    std::string* target = nullptr;
    std::string value;
    for (auto [name, dest] : {std::pair{"--from", &from}, std::pair{"--to", &to}}) {
      const std::string n = name;
      if (a == n) {
        if (i + 1 >= args.size()) {
          err << "muster admin migrate: " << n << " needs a value\n";
          return 2;
        }
        target = dest;
        value = args[++i];
      } else if (a.rfind(n + "=", 0) == 0) {
        target = dest;
        value = a.substr(n.size() + 1);
      }
    }
    if (target == nullptr) {
      err << "muster admin migrate: unknown argument '" << a << "'\n" << AdminUsage();
      return 2;
    }
    if (value.empty()) {
      err << "muster admin migrate: " << a << ": empty location\n";
      return 2;
    }
    *target = value;
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
