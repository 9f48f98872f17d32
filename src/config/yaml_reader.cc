#include "config/yaml_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>

#include "base/read_file.h"
#include "model/job_request.h"

namespace muster::config_internal {

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string JoinChoices(std::span<const std::string_view> v) {
  std::string s;
  for (std::string_view x : v) {
    if (!s.empty()) s += ", ";
    s += x;
  }
  return s;
}

}  // namespace

std::string Quote(std::string_view s) {
  constexpr size_t kMax = 80;
  if (s.size() <= kMax) return "'" + std::string(s) + "'";
  return "'" + std::string(s.substr(0, kMax)) + "...'";
}

StatusOr<YAML::Node> ParseYaml(const std::string& text, const std::string& source) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    std::string where = source;
    if (e.mark.line >= 0) where += ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
    return InvalidArgument(where + ": invalid YAML: " + e.msg);
  } catch (const std::exception& e) {
    return InvalidArgument(source + ": invalid YAML: " + e.what());
  }
}

std::string Where(const std::string& source, const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  if (m.is_null() || m.line < 0) return source;
  return source + ":" + std::to_string(m.line + 1);
}

Status ErrorAt(const std::string& source, const YAML::Node& node, const std::string& path, const std::string& msg) {
  return InvalidArgument(Where(source, node) + ": " + (path.empty() ? "" : path + ": ") + msg);
}

std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return Quote(node.Scalar());
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return "nothing";
  }
  return "nothing";
}

StatusOr<std::string> ScalarText(const std::string& source, const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) return ErrorAt(source, node, path, "expected a value, got " + Describe(node));
  return node.Scalar();
}

StatusOr<int64_t> ScalarInt(const std::string& source, const YAML::Node& node, const std::string& path,
                            int64_t min, int64_t max) {
  if (!node.IsScalar()) return ErrorAt(source, node, path, "expected an integer, got " + Describe(node));
  const std::string& s = node.Scalar();
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec == std::errc::invalid_argument || end != s.data() + s.size()) {
    return ErrorAt(source, node, path, "expected an integer, got " + Quote(s));
  }
  if (ec == std::errc::result_out_of_range || v < min || v > max) {
    std::string range = max == std::numeric_limits<int64_t>::max()
                            ? "at least " + std::to_string(min)
                            : "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    return ErrorAt(source, node, path, Quote(s) + " is out of range (expected an integer " + range + ")");
  }
  return v;
}

StatusOr<MapReader> MapReader::Make(const std::string& source, const YAML::Node& node, std::string path,
                                    std::initializer_list<std::string_view> allowed) {
  return Make(source, node, std::move(path), std::span<const std::string_view>(allowed.begin(), allowed.size()));
}

StatusOr<MapReader> MapReader::Make(const std::string& source, const YAML::Node& node, std::string path,
                                    std::span<const std::string_view> allowed) {
  if (!node.IsMap()) {
    return ErrorAt(source, node, path, "expected a map (key: value), got " + Describe(node));
  }
  MapReader r(source, node, std::move(path));
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key = it->first;  // a copy: it->first is a temporary
    if (!key.IsScalar()) return ErrorAt(source, key, r.path_, "a key must be a plain name, got " + Describe(key));
    std::string k = key.Scalar();
    if (std::find(allowed.begin(), allowed.end(), std::string_view(k)) == allowed.end()) {
      return ErrorAt(source, key, r.path_,
                     "unknown field " + Quote(k) + " (known: " + JoinChoices(allowed) + ")");
    }
    if (r.Find(k) != nullptr) return ErrorAt(source, key, r.PathOf(k), "field given twice");
    r.entries_.push_back({std::move(k), key, it->second});
  }
  return r;
}

std::string MapReader::PathOf(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

const YAML::Node* MapReader::Find(std::string_view key) const {
  for (const Entry& e : entries_) {
    if (e.key == key) return &e.value;
  }
  return nullptr;
}

Status MapReader::Error(std::string_view key, const std::string& msg) const {
  for (const Entry& e : entries_) {
    if (e.key != key) continue;
    // A null value (`key:` with nothing after it) may carry no mark: point at the key instead.
    const YAML::Node& at = e.value.Mark().is_null() ? e.key_node : e.value;
    return ErrorAt(source_, at, PathOf(key), msg);
  }
  return ErrorAt(source_, node_, path_, msg);
}

Status MapReader::Missing(std::string_view key) const {
  return ErrorAt(source_, node_, path_, "missing required field '" + std::string(key) + "'");
}

Status MapReader::String(std::string_view key, std::string* out, bool required) const {
  const YAML::Node* v = Find(key);
  if (v == nullptr) return required ? Missing(key) : Status::Ok();
  if (!v->IsScalar()) return Error(key, "expected a string, got " + Describe(*v));
  *out = v->Scalar();
  return Status::Ok();
}

Status MapReader::Int(std::string_view key, int64_t* out, int64_t min, int64_t max, bool required) const {
  const YAML::Node* v = Find(key);
  if (v == nullptr) return required ? Missing(key) : Status::Ok();
  if (!v->IsScalar()) return Error(key, "expected an integer, got " + Describe(*v));
  StatusOr<int64_t> n = ScalarInt(source_, *v, PathOf(key), min, max);
  if (!n.ok()) return n.status();
  *out = *n;
  return Status::Ok();
}

Status MapReader::Int(std::string_view key, int* out, int min, int max, bool required) const {
  int64_t v = *out;
  RETURN_IF_ERROR(Int(key, &v, min, max, required));
  *out = static_cast<int>(v);
  return Status::Ok();
}

Status MapReader::Bool(std::string_view key, bool* out) const {
  const YAML::Node* v = Find(key);
  if (v == nullptr) return Status::Ok();
  if (v->IsScalar()) {
    const std::string& s = v->Scalar();
    if (EqualsIgnoreCase(s, "true") || EqualsIgnoreCase(s, "yes")) {
      *out = true;
      return Status::Ok();
    }
    if (EqualsIgnoreCase(s, "false") || EqualsIgnoreCase(s, "no")) {
      *out = false;
      return Status::Ok();
    }
  }
  return Error(key, "expected true or false, got " + Describe(*v));
}

namespace {
std::string FormatNumber(double d) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(d);
}
}  // namespace

Status MapReader::Double(std::string_view key, double* out, double min, double max) const {
  const YAML::Node* v = Find(key);
  if (v == nullptr) return Status::Ok();
  if (!v->IsScalar()) return Error(key, "expected a number, got " + Describe(*v));
  const std::string& s = v->Scalar();
  double d = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d)) {
    return Error(key, "expected a number, got " + Quote(s));
  }
  if (d < min || d > max) {
    return Error(key, Quote(s) + " is out of range (expected a number in [" + FormatNumber(min) + ", " +
                          FormatNumber(max) + "])");
  }
  *out = d;
  return Status::Ok();
}

Status MapReader::MemoryMb(std::string_view key, int64_t* out, bool required) const {
  const YAML::Node* v = Find(key);
  if (v == nullptr) return required ? Missing(key) : Status::Ok();
  if (!v->IsScalar()) return Error(key, "expected a memory size such as 512G, got " + Describe(*v));
  StatusOr<int64_t> mb = ParseMemoryMb(v->Scalar());
  if (!mb.ok()) return Error(key, mb.status().message());
  *out = *mb;
  return Status::Ok();
}

Status MapReader::TimeS(std::string_view key, int64_t* out) const {
  const YAML::Node* v = Find(key);
  if (v == nullptr) return Status::Ok();
  if (!v->IsScalar()) return Error(key, "expected a time such as 2-00:00:00, got " + Describe(*v));
  StatusOr<int64_t> s = ParseTimeSpec(v->Scalar());
  if (!s.ok()) return Error(key, s.status().message());
  *out = *s;
  return Status::Ok();
}

Status MapReader::StringList(std::string_view key, std::vector<std::string>* out) const {
  const YAML::Node* v = Find(key);
  if (v == nullptr) return Status::Ok();
  out->clear();
  if (v->IsScalar()) {
    out->push_back(v->Scalar());
    return Status::Ok();
  }
  if (!v->IsSequence()) return Error(key, "expected a list of names, got " + Describe(*v));
  size_t i = 0;
  for (auto it = v->begin(); it != v->end(); ++it, ++i) {
    const YAML::Node item = *it;
    if (!item.IsScalar()) {
      return ErrorAt(source_, item, PathOf(key) + "[" + std::to_string(i) + "]",
                     "expected a name, got " + Describe(item));
    }
    out->push_back(item.Scalar());
  }
  return Status::Ok();
}

Status MapReader::List(std::string_view key, std::vector<YAML::Node>* out, bool required) const {
  const YAML::Node* v = Find(key);
  if (v == nullptr) return required ? Missing(key) : Status::Ok();
  if (!v->IsSequence()) return Error(key, "expected a list, got " + Describe(*v));
  for (auto it = v->begin(); it != v->end(); ++it) out->push_back(*it);
  return Status::Ok();
}

Status MapReader::Choice(std::string_view key, std::initializer_list<std::string_view> choices,
                         std::string* out) const {
  return Choice(key, std::span<const std::string_view>(choices.begin(), choices.size()), out);
}

Status MapReader::Choice(std::string_view key, std::span<const std::string_view> choices, std::string* out) const {
  const YAML::Node* v = Find(key);
  if (v == nullptr) return Status::Ok();
  if (v->IsScalar()) {
    for (std::string_view c : choices) {
      if (EqualsIgnoreCase(v->Scalar(), c)) {
        *out = std::string(c);
        return Status::Ok();
      }
    }
  }
  return Error(key, "expected one of " + JoinChoices(choices) + ", got " + Describe(*v));
}

StatusOr<std::string> ReadTextFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NotFound("cannot open " + path + ": " + std::strerror(errno));
  std::string text;
  const int err = ReadAll(fd, &text);
  close(fd);
  if (err != 0) return Status(StatusCode::kUnavailable, "cannot read " + path + ": " + std::strerror(err));
  return text;
}

}  // namespace muster::config_internal
