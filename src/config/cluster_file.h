// Cluster files (YAML) -> scheduler inputs; the queue loaders (config/queue_file.h) come with this
// header. The formats are documented, with examples, in docs/cluster-file.md; examples/cluster.yaml
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
#include "config/queue_file.h"  // the queue loaders, declared beside the cluster loaders
#include "sched/cluster_snapshot.h"

namespace muster {

// A loaded cluster file: its name (the `cluster:` field, may be empty) and the snapshot.
struct ClusterConfig {
  std::string name;
  ClusterSnapshot snapshot;  // passes ClusterSnapshot::Validate()
};

// `source` names the text in error messages (a file path; "<input>" when not given).
StatusOr<ClusterConfig> LoadClusterConfigYaml(const std::string& text, const std::string& source = "<input>");
StatusOr<ClusterConfig> LoadClusterConfigFile(const std::string& path);

StatusOr<ClusterSnapshot> LoadClusterYaml(const std::string& text, const std::string& source = "<input>");
StatusOr<ClusterSnapshot> LoadClusterFile(const std::string& path);

}  // namespace muster
