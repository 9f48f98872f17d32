// The settings a cluster file gives for muster.yaml's keys (ClusterConfig::settings: slurm.conf's
// KillWait= for controller.kill_wait, ...), applied under muster.yaml's own values. The rule
// (docs/configuration.md, "Settings from slurm.conf"): a key muster.yaml sets keeps muster.yaml's
// value, and when the cluster file gives another one, a warning names both; a key muster.yaml
// leaves out takes the cluster file's value; else the default stays. Internal to src/config.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/cluster_file.h"

namespace muster::config_internal {

// True when the YAML document sets the dotted key ("controller.kill_wait", "priority.weights.age").
bool YamlSets(const YAML::Node& doc, std::string_view dotted_key);

class ClusterSettings {
 public:
  // `doc` is muster.yaml as parsed (`source` names it); warnings go to `warnings`. All are
  // referenced, not copied: they must outlive this object.
  ClusterSettings(const ClusterConfig& cluster, const YAML::Node& doc, const std::string& source,
                  std::vector<std::string>* warnings)
      : cluster_(cluster), doc_(doc), source_(source), warnings_(warnings) {}

  // Each applies the cluster file's value of `key` to `*out` under the rule above.
  void Int(const std::string& key, int64_t* out);
  void Text(const std::string& key, std::string* out);
  void Bool(const std::string& key, bool* out);

 private:
  // The cluster file's value to apply, or nullptr (none, or muster.yaml's wins: then a different
  // value, `current` as written, is warned about).
  const ClusterFileSetting* Take(const std::string& key, const std::string& current);

  const ClusterConfig& cluster_;
  const YAML::Node& doc_;
  const std::string& source_;
  std::vector<std::string>* warnings_;
};

}  // namespace muster::config_internal
