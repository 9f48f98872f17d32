// What slurm.conf's and gres.conf's keys may hold: the options each kind of line knows, node
// states, the Gres= list, MIG profile names, and the small value readers they share.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/node.h"

namespace muster::slurm_conf {

inline constexpr int kMaxDevicesPerNode = 64;  // ClusterSpec::Validate's limit

// Names used in gres and constraint syntax: no blanks, ':', ',', '&', '|', brackets (as in
// cluster_file.cc, so both loaders accept the same names).
bool IsPlainName(const std::string& s);
std::vector<std::string> SplitOn(std::string_view s, char sep);

// Known options, lower case -> canonical key (aliases share one). Slurm's lists (read_config.c),
// through 24.11: an option Slurm knows is accepted even when Muster does not use it.
const std::map<std::string, std::string>& NodeOptions();
const std::map<std::string, std::string>& PartitionOptions();
const std::map<std::string, std::string>& DownNodesOptions();
const std::map<std::string, std::string>& NodeSetOptions();
const std::map<std::string, std::string>& GresOptions();

// slurm.conf's global keys that set one of muster.yaml's (docs/cluster-file.md lists them).
enum class SettingValue {
  kInt,        // a plain count (FirstJobId, PriorityWeight*): the integer
  kSeconds,    // seconds (KillWait, SlurmdTimeout): the integer
  kTime,       // Slurm's time ("7-0", minutes alone: PriorityMaxAge): seconds
  kPath,       // an absolute path (HealthCheckProgram)
  kYesNo,      // YES/NO (PriorityFavorSmall): "true"/"false"
  kNotYesNo,   // YES/NO meaning the opposite of the Muster key (DisableRootJobs): "false"/"true"
  kPreemptMode,  // OFF, CANCEL, REQUEUE, SUSPEND[,GANG]: the mode's name, lower case
};
struct MappedKey {
  const char* muster_key;  // muster.yaml's dotted key ("controller.kill_wait")
  SettingValue value;
  int64_t min = 0, max = 0;  // the range Muster takes (kInt, kSeconds, kTime); outside it: ignored, warned
};
// Lower-case slurm.conf key -> what it sets.
const std::map<std::string, MappedKey>& MappedGlobalKeys();

// SchedulerParameters= options Muster reads: bf_window (minutes) -> scheduler.backfill_horizon,
// bf_max_job_test -> scheduler.backfill_depth. Lower-case option -> (muster.yaml key, seconds per unit).
const std::map<std::string, std::pair<const char*, int64_t>>& MappedSchedulerParameters();

// What Muster does with a global key of slurm.conf it does not map.
enum class GlobalKeyUse {
  kUnknown,      // not a key of Slurm's (22.05 to 24.11) at all
  kHarmless,     // nothing for Muster to do (ports, paths, plugins and daemons Muster replaces)
  kUnsupported,  // a behaviour Muster does not have
};
// `lower`'s use, and its canonical spelling in `*name` (the key itself when unknown).
GlobalKeyUse ClassifyGlobalKey(const std::string& lower, std::string* name);

// Options of NodeName= and PartitionName= lines for a behaviour Muster does not have (Weight=,
// RootOnly=, OverSubscribe=, ...): lower-case key -> Slurm's default, which is not warned about
// ("" when any value is).
const std::map<std::string, std::string>& UnsupportedNodeOptions();
const std::map<std::string, std::string>& UnsupportedPartitionOptions();

// A node's State= (or a DownNodes line's): how it maps onto Node.
struct NodeStateValue {
  NodeState state = NodeState::kIdle;
  bool drain = false;
};
StatusOr<NodeStateValue> ParseNodeState(const std::string& v);

// One gpu entry of a node's Gres=: gpu[:type][:no_consume][:count][(S:...)].
struct GresSpec {
  std::string type;
  int count = 0;
};
// Parses Gres=; non-gpu gres (mps, shard, nic, ...) are skipped.
StatusOr<std::vector<GresSpec>> ParseGres(const std::string& value);

// The slice's memory in MiB when a gres type is a MIG profile ("1g.10gb", "a100_3g.40gb"), else 0.
int64_t MigProfileMemoryMb(const std::string& full_type);

// "gpu:a100:4,gpu:2" for messages.
std::string FormatGres(const std::vector<std::pair<std::string, int>>& by_type);

}  // namespace muster::slurm_conf
