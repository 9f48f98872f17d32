// Location-aware reading of YAML config files (internal to src/config). Every error names the
// place and the field: "<source>:<line>: <path>: <message>", e.g.
//   "cluster.yaml:12: nodes[1].type: unknown node type 'h200' (known: h100, v100)".
// Nothing here throws: values are read from the parsed node tree with explicit type checks, and
// a map's keys are checked against the keys the caller knows (a typo is an error, never ignored).
// Plain values; not thread-safe to share a MapReader while it is being read (it is not mutated).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "base/status.h"

namespace muster::config_internal {

// Quotes user text for a message, shortened so that a megabyte of junk stays readable.
std::string Quote(std::string_view s);

// "<path>[<i>]": the path of a list item.
inline std::string Index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

// Reads a whole file; errors name the path and the system's reason.
StatusOr<std::string> ReadTextFile(const std::string& path);

// Parses a YAML document. Syntax errors name the line and column yaml-cpp reports.
StatusOr<YAML::Node> ParseYaml(const std::string& text, const std::string& source);

// Where a node is: "<source>:<line>" (1-based), or just "<source>" when yaml-cpp has no mark.
std::string Where(const std::string& source, const YAML::Node& node);
// "<where>: <path>: <message>" as an InvalidArgument (path may be empty).
Status ErrorAt(const std::string& source, const YAML::Node& node, const std::string& path, const std::string& msg);

// "a map", "a list", "a string", "nothing" — for "expected X, got Y" messages.
std::string Describe(const YAML::Node& node);

// Reads a map node field by field.
class MapReader {
 public:
  // Fails when `node` is not a map, a key is not a plain string, a key is not in `allowed`, or a
  // key appears twice. `path` names the map ("" for the document root).
  static StatusOr<MapReader> Make(const std::string& source, const YAML::Node& node, std::string path,
                                  std::initializer_list<std::string_view> allowed);
  static StatusOr<MapReader> Make(const std::string& source, const YAML::Node& node, std::string path,
                                  std::span<const std::string_view> allowed);

  const YAML::Node& node() const { return node_; }
  const std::string& path() const { return path_; }
  const std::string& source() const { return source_; }
  // "<path>.<key>" (or "<key>" at the root).
  std::string PathOf(std::string_view key) const;
  // The value of `key`, or nullptr when absent.
  const YAML::Node* Find(std::string_view key) const;
  bool Has(std::string_view key) const { return Find(key) != nullptr; }
  // The entries in file order (key text, key node, value node).
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };
  const std::vector<Entry>& entries() const { return entries_; }

  // An error about `key`'s value (or about the map itself when `key` is absent).
  Status Error(std::string_view key, const std::string& msg) const;
  // "missing required field '<key>'" at the map.
  Status Missing(std::string_view key) const;

  // The readers below leave *out unchanged when the key is absent, unless `required` (then an
  // error). A present key must hold a value of the right type.
  Status String(std::string_view key, std::string* out, bool required = false) const;
  Status Int(std::string_view key, int64_t* out, int64_t min, int64_t max, bool required = false) const;
  Status Int(std::string_view key, int* out, int min, int max, bool required = false) const;
  Status Bool(std::string_view key, bool* out) const;
  // A finite decimal number in [min, max].
  Status Double(std::string_view key, double* out, double min, double max) const;
  // Slurm memory sizes ("512G", "2T", "4096" = MiB).
  Status MemoryMb(std::string_view key, int64_t* out, bool required = false) const;
  // Slurm time specifications ("2-00:00:00", "60", "UNLIMITED" = kUnlimited).
  Status TimeS(std::string_view key, int64_t* out) const;
  // A list of strings (a YAML list; a single string is taken as a one-element list).
  Status StringList(std::string_view key, std::vector<std::string>* out) const;
  // The items of a list (appended to *out).
  Status List(std::string_view key, std::vector<YAML::Node>* out, bool required = false) const;
  // One of `choices` (case-insensitive; *out gets the choice as spelled in `choices`).
  Status Choice(std::string_view key, std::initializer_list<std::string_view> choices, std::string* out) const;
  Status Choice(std::string_view key, std::span<const std::string_view> choices, std::string* out) const;

 private:
  MapReader(std::string source, YAML::Node node, std::string path)
      : source_(std::move(source)), node_(std::move(node)), path_(std::move(path)) {}

  std::string source_;
  YAML::Node node_;
  std::string path_;
  std::vector<Entry> entries_;
};

// Scalar conversions with messages for "<path>: <message>"; `what` is the path used in errors.
StatusOr<std::string> ScalarText(const std::string& source, const YAML::Node& node, const std::string& path);
StatusOr<int64_t> ScalarInt(const std::string& source, const YAML::Node& node, const std::string& path,
                            int64_t min, int64_t max);

}  // namespace muster::config_internal
