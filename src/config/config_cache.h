// A configless agent's cache (musterd --conf-server; docs/configuration.md, "Configless agents"):
// the configuration files it fetched from the controller, written into one directory so that it
// loads them as it loads a local muster.yaml, and so that it can start from them when no
// controller answers.
//   <dir>/muster.yaml     the controller's muster.yaml, its cluster_file pointing at the cached one
//   <dir>/<file name>     the cluster file (and a slurm.conf's topology.conf, gres.conf)
//   <dir>/hash            the hash the controller gave them, written last (a complete cache)
// Relative paths in muster.yaml (spool_dir, socket_dir, ...) are then relative to <dir>.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace muster {

struct CachedConfigFile {
  std::string name;  // a plain file name: no '/', not "muster.yaml" nor "hash"
  std::string text;
};

struct CachedConfig {
  std::string hash;
  std::string muster_yaml;              // as the controller serves it
  std::vector<CachedConfigFile> files;  // the cluster file first
};

// Writes `config` into `dir` (made 0700 if missing; each file 0600, written whole then renamed
// into place). Errors name what is wrong: a bad file name, a muster.yaml that is not a YAML map,
// a directory that cannot be written.
Status WriteConfigCache(const std::string& dir, const CachedConfig& config);

// The hash of the configuration cached in `dir`: NotFound when there is none (never written, or
// a write cut short).
StatusOr<std::string> ReadCachedConfigHash(const std::string& dir);

// <dir>/muster.yaml.
std::string CachedMusterYamlPath(const std::string& dir);

// muster.yaml's text with its cluster_file set to `cluster_file` (the rest as it was, comments
// aside).
StatusOr<std::string> WithClusterFile(const std::string& muster_yaml, const std::string& cluster_file);

}  // namespace muster
