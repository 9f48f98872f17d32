// sinfo's output: partitions and nodes in Slurm's layouts (default, -l, -N, -N -l) or an -o format.
// Pure; see slurm_format.h for the shared conventions.
#pragma once

#include <cstdint>
#include <boost/json/value.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "report/slurm_format.h"
#include "model/job_record.h"
#include "model/partition.h"

namespace muster {

// Slurm's layouts. "%#P" / "%#N": as wide as the longest partition / node list printed (at least 9).
inline constexpr char kSinfoDefaultFormat[] = "%#P %.5a %.10l %.6D %.6t %N";
inline constexpr char kSinfoLongFormat[] = "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N";
inline constexpr char kSinfoNodeFormat[] = "%#N %.6D %#P %6t";
inline constexpr char kSinfoNodeLongFormat[] = "%#N %.6D %.#P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E";
inline constexpr char kSinfoSummaryFormat[] = "%#P %.5a %.10l %.16F %N";   // -s
inline constexpr char kSinfoReasonFormat[] = "%20E %9u %19H %N";            // -R

struct SinfoOptions {
  bool node_oriented = false;  // -N: a line per node and partition
  bool long_output = false;    // -l: the date line, and the long layout unless `format` is set
  std::string format;          // -o; "" = the layout the flags select
  bool no_header = false;      // -h
  bool summarize = false;      // -s: A/I/O/T node counts per partition
  bool reasons = false;        // -R: why nodes are down, drained or failing (one line per reason)
  std::vector<std::string> states;      // -t: only nodes in these states (ParseSinfoState names)
  std::vector<std::string> node_names;  // -n: only these nodes (expanded)
  int64_t slurmd_timeout_s = kDefaultSlurmdTimeoutSeconds;  // silent longer: '*' (not responding)
};

// Whether `name` (as given to sinfo -t: idle, alloc, mixed, drain, drained, draining, down, fail,
// future, unknown, no_respond, completing, ... case-insensitive) is a state sinfo knows; the error
// is Slurm's two lines after "sinfo: error: " ("Bad state string: \"x\"").
Status CheckSinfoState(const std::string& name);

// Field types: P a l D t T N c z m d w f E u H G s r h g O e C F (see sinfo_format.cc).
// Partition-oriented, nodes of a partition are grouped when every printed per-node value is equal
// (so by state with the default layout); groups are ordered by partition (as given), then by state
// as Slurm's "#P,-t" sort. Node-oriented lines are ordered by node name, then partition. Nodes in
// no partition are not shown. `usage` gives what is allocated (missing entries: nothing).
StatusOr<std::string> FormatSinfo(const std::vector<Partition>& partitions, const std::vector<NodeRecord>& nodes,
                                  const NodeActivityMap& usage, const SinfoOptions& options, int64_t now);

// sinfo --json: {"meta", "errors", "nodes": [...]} with the keys of Slurm 22.05's node records
// (name, state, state_flags, cpus, alloc_cpus, idle_cpus, real_memory, alloc_memory, gres,
// gres_used, partitions, reason, reason_set_by_user, reason_changed_at, ...) for the nodes of
// `partitions`, in name order.
boost::json::value SinfoJson(const std::vector<Partition>& partitions, const std::vector<NodeRecord>& nodes,
                         const NodeActivityMap& usage, int64_t now);

}  // namespace muster
