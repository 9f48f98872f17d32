// A Slurm site's own configuration -> scheduler inputs: slurm.conf (nodes, partitions, the cluster's
// name), with topology.conf (the switch tree) and gres.conf (GPU types, device files, NVLinks)
// beside it. The keys read, and how each maps onto Muster's model, are documented in
// docs/cluster-file.md ("From Slurm's slurm.conf").
//
// Slurm's syntax: Key=Value pairs separated by blanks (blanks around '=' allowed, "..." quotes a
// value), case-insensitive keys, '#' comments (\# is a literal '#'), a trailing '\' continues a
// line. NodeName=, PartitionName=, DownNodes= and NodeSet= lines take the rest of their line as
// options; NodeName=DEFAULT / PartitionName=DEFAULT set defaults for the lines after them. Global
// keys with a Muster meaning (KillWait=, PriorityWeightAge=, ...) become ClusterConfig::settings,
// applied under muster.yaml's (config/cluster_settings.h); every other global key is ignored,
// never an error, and named in ClusterConfig::warnings with its line. An option Slurm does not
// know on a NodeName=/PartitionName= line is an error, as in Slurm.
// `Include` is not supported (an error says so).
//
// Errors are InvalidArgument statuses naming the file, the line and the pair, e.g.
//   "slurm.conf:12: NodeName=gpu[01-: unterminated '[' in 'gpu[01-'".
// No input, however malformed, makes these functions crash or throw. Pure functions of their
// arguments (LoadSlurmConfFile also reads files); thread-safe.
#pragma once

#include <optional>
#include <string>

#include "base/status.h"
#include "config/cluster_file.h"

namespace muster {

// The files read beside slurm.conf, as text (absent = not read).
struct SlurmConfExtras {
  std::optional<std::string> topology_conf;         // topology.conf text
  std::string topology_source = "topology.conf";    // its name in error messages
  std::optional<std::string> gres_conf;             // gres.conf text
  std::string gres_source = "gres.conf";
};

// Parses slurm.conf text (`source` names it in errors) plus the extras as given: a topology.conf
// given here is used whatever TopologyPlugin says. The result passes ClusterSpec::Validate().
StatusOr<ClusterConfig> LoadSlurmConf(const std::string& slurm_conf_text, const std::string& source,
                                      const SlurmConfExtras& extras = {});

// Reads `path` (a slurm.conf) and, like Slurm, the files beside it: topology.conf when
// TopologyPlugin=topology/tree (then it must exist), and gres.conf when it exists.
StatusOr<ClusterConfig> LoadSlurmConfFile(const std::string& path);

// True when `path` names a Slurm configuration file rather than a YAML cluster file: its file
// name ends in ".conf" (slurm.conf, cluster.conf, ...).
bool IsSlurmConfPath(const std::string& path);

// The cluster file at `path`, by its name: LoadSlurmConfFile for "*.conf", else the YAML loader
// (LoadClusterConfigFile). What muster.yaml's cluster_file: and `muster place --cluster` use.
StatusOr<ClusterConfig> LoadAnyClusterFile(const std::string& path);

}  // namespace muster
