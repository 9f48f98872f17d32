// Cluster files (YAML): the nodes, partitions and topology (and, for `muster place`, what is in
// use). The formats are documented, with examples, in docs/cluster-file.md; examples/cluster.yaml
// and examples/queue.yaml are complete files.
//
// Errors are InvalidArgument statuses that name the file, the line and the field, e.g.
//   "cluster.yaml:12: nodes[1].type: unknown node type 'h200' (known: h100, v100)".
// Unknown fields are errors. No input, however malformed, makes these functions crash or throw.
// Pure functions of their arguments (the *File variants also read the file); thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "model/cluster_spec.h"

namespace muster {

// A loaded cluster file: its name (the `cluster:` field, may be empty) and the cluster.
struct ClusterConfig {
  std::string name;
  ClusterSpec spec;  // passes ClusterSpec::Validate()
  // The file's `usage:` (what running jobs hold, for `muster place`): empty, or one per node,
  // within each node's capacity.
  std::vector<NodeUsage> usage;
};

// `source` names the text in error messages (a file path; "<input>" when not given).
StatusOr<ClusterConfig> LoadClusterConfigYaml(const std::string& text, const std::string& source = "<input>");
StatusOr<ClusterConfig> LoadClusterConfigFile(const std::string& path);

}  // namespace muster
