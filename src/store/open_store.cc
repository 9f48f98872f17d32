// OpenStore: a store by its location (a PostgreSQL URL or a SQLite file).
#include <memory>
#include <string>

#include "store/pg_store.h"
#include "store/store.h"

namespace muster {

StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& location, int64_t first_job_id) {
  if (IsPostgresUrl(location)) {
    StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(location, first_job_id);
    if (!s.ok()) return s.status();
    return std::unique_ptr<Store>(std::move(s).value());
  }
  if (location.rfind("sqlite:", 0) == 0) return OpenSqliteStore(location.substr(7), first_job_id);
  return OpenSqliteStore(location, first_job_id);
}

std::string StoreLocationForDisplay(const std::string& location) {
  return IsPostgresUrl(location) ? RedactedPgUrl(location) : location;
}

}  // namespace muster
