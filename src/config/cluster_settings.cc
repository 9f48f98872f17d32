#include "config/cluster_settings.h"

#include <cstdlib>

namespace muster::config_internal {

bool YamlSets(const YAML::Node& doc, std::string_view dotted_key) {
  // Read through const nodes only: yaml-cpp's non-const operator[] adds the keys it looks for.
  if (!doc.IsMap()) return false;
  const size_t dot = dotted_key.find('.');
  const YAML::Node next = doc[std::string(dotted_key.substr(0, dot))];
  if (!next.IsDefined() || next.IsNull()) return false;
  return dot == std::string_view::npos || YamlSets(next, dotted_key.substr(dot + 1));
}

const ClusterFileSetting* ClusterSettings::Take(const std::string& key, const std::string& current) {
  const auto it = cluster_.settings.find(key);
  if (it == cluster_.settings.end()) return nullptr;
  if (!YamlSets(doc_, key)) return &it->second;
  if (it->second.value != current) {
    warnings_->push_back(it->second.origin + ": " + source_ + " sets " + key + " (" + current +
                         "), which wins; ignored");
  }
  return nullptr;
}

void ClusterSettings::Int(const std::string& key, int64_t* out) {
  if (const ClusterFileSetting* s = Take(key, std::to_string(*out))) *out = std::strtoll(s->value.c_str(), nullptr, 10);
}

void ClusterSettings::Text(const std::string& key, std::string* out) {
  if (const ClusterFileSetting* s = Take(key, *out)) *out = s->value;
}

void ClusterSettings::Bool(const std::string& key, bool* out) {
  if (const ClusterFileSetting* s = Take(key, *out ? "true" : "false")) *out = s->value == "true";
}

}  // namespace muster::config_internal
