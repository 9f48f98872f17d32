// Cluster files (YAML): the nodes, partitions and topology (and, for `muster place`, what is in
// use). The formats are documented, with examples, in docs/cluster-file.md; examples/cluster.yaml
// and examples/queue.yaml are complete files.
//
// Errors are InvalidArgument statuses that name the file, the line and the field, e.g.
//   "cluster.yaml:12: nodes[1].type: unknown node type 'h200' (known: h100, v100)".
// Unknown fields are errors. No input, however malformed, makes these functions crash or throw.
// Pure functions of their arguments (the *File variants also read the file); thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/cluster_spec.h"

namespace muster {

// A value a cluster file gives for one of muster.yaml's keys (slurm.conf's KillWait= sets
// controller.kill_wait): muster.yaml's own value wins (config/cluster_settings.h).
struct ClusterFileSetting {
  std::string origin;  // where it was set, for messages: "slurm.conf:12: KillWait=60"
  std::string value;   // in muster.yaml's terms: an integer (seconds for times), a path, true/false, a word
};

// A loaded cluster file: its name (the `cluster:` field, may be empty) and the cluster.
struct ClusterConfig {
  std::string name;
  ClusterSpec spec;  // passes ClusterSpec::Validate()
  // The file's `usage:` (what running jobs hold, for `muster place`): empty, or one per node,
  // within each node's capacity.
  std::vector<NodeUsage> usage;
  // slurm.conf's global keys that set muster.yaml's, by muster.yaml's dotted key.
  std::map<std::string, ClusterFileSetting> settings;
  // What the file holds that Muster ignores (keys it does not support, by name, with their file
  // and line): reported once at start, by the controller's log and by `muster up`.
  std::vector<std::string> warnings;
};

// `source` names the text in error messages (a file path; "<input>" when not given).
StatusOr<ClusterConfig> LoadClusterConfigYaml(const std::string& text, const std::string& source = "<input>");
StatusOr<ClusterConfig> LoadClusterConfigFile(const std::string& path);

}  // namespace muster
