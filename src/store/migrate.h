// Moving a controller's state from one store to another (`muster admin migrate`, run by
// muster-sim: the commands' binary links no store): every job (an array's script with its tasks),
// step, node and meta key (the usage ledger, the sacctmgr policy, the cluster's name), and the job
// id counter, so that no id is handed out twice. The controller must be stopped meanwhile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "store/store.h"

namespace muster {

struct MigrationCounts {
  size_t jobs = 0;
  size_t steps = 0;
  size_t nodes = 0;
  size_t meta = 0;
  int64_t next_job_id = 0;  // MigrateStore: the source's next id, where the destination's ids go on
                            // (or above, if the destination had handed out more)
};

// Copies every record of `from` into `to` and reads them back from `to` to compare: any
// difference is an Internal error naming the first record that differs. `to` must hold no job,
// step, node or meta key (FailedPrecondition otherwise); its id counter must already be at least
// `from`'s (MigrateStore opens it so).
StatusOr<MigrationCounts> CopyStore(Store& from, Store& to);

// Opens the store at `from` (it must exist: a SQLite file is not created), takes its next job id,
// opens (creating) the store at `to` with that id as its first, and copies (CopyStore).
// Locations as OpenStore takes them.
StatusOr<MigrationCounts> MigrateStore(const std::string& from, const std::string& to);

}  // namespace muster
