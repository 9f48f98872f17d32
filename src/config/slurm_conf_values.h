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
