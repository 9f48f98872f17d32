// Queue files (YAML) -> pending jobs. See docs/cluster-file.md.
#include "sim/queue_file.h"

#include <exception>
#include <limits>
#include <unordered_map>

#include "config/yaml_reader.h"
#include "model/job_request.h"

namespace muster {

namespace {

using config_internal::Index;
using config_internal::MapReader;
using config_internal::Quote;

StatusOr<std::vector<PendingJob>> ReadQueue(const std::string& text, const std::string& source) {
  ASSIGN_OR_RETURN(YAML::Node doc, config_internal::ParseYaml(text, source));
  if (doc.IsNull()) return InvalidArgument(source + ": the queue file is empty (expected jobs: [...])");
  ASSIGN_OR_RETURN(MapReader root, MapReader::Make(source, doc, "", {"jobs"}));
  std::vector<YAML::Node> items;
  RETURN_IF_ERROR(root.List("jobs", &items, /*required=*/true));
  std::vector<PendingJob> jobs;
  std::unordered_map<int64_t, size_t> by_id;
  for (size_t i = 0; i < items.size(); ++i) {
    ASSIGN_OR_RETURN(MapReader r, MapReader::Make(source, items[i], Index("jobs", i),
                                                  {"id", "name", "user", "account", "priority", "submit_time",
                                                   "options"}));
    PendingJob j;
    RETURN_IF_ERROR(r.Int("id", &j.id, 1, std::numeric_limits<int64_t>::max(), /*required=*/true));
    if (auto [at, inserted] = by_id.emplace(j.id, i); !inserted) {
      return r.Error("id", "job id " + std::to_string(j.id) + " is already used by jobs[" +
                               std::to_string(at->second) + "]");
    }
    std::string name;
    RETURN_IF_ERROR(r.String("name", &name));
    RETURN_IF_ERROR(r.String("user", &j.user));
    RETURN_IF_ERROR(r.String("account", &j.account));
    RETURN_IF_ERROR(r.Int("priority", &j.priority, std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::max()));
    RETURN_IF_ERROR(r.Int("submit_time", &j.submit_time, 0, std::numeric_limits<int64_t>::max()));
    std::vector<std::string> args;
    if (const YAML::Node* o = r.Find("options"); o != nullptr && !o->IsNull()) {
      if (o->IsScalar()) {
        StatusOr<std::vector<std::string>> words = SplitShellWords(o->Scalar());
        if (!words.ok()) return r.Error("options", words.status().message());
        args = std::move(*words);
      } else {
        RETURN_IF_ERROR(r.StringList("options", &args));
      }
    }
    StatusOr<JobRequest> req = ParseJobRequest(args);
    if (!req.ok()) return r.Error("options", req.status().message());
    j.request = std::move(*req);
    if (!name.empty()) {
      if (!j.request.name.empty() && j.request.name != name) {
        return r.Error("name", Quote(name) + " differs from the -J/--job-name option " + Quote(j.request.name));
      }
      j.request.name = name;
    }
    jobs.push_back(std::move(j));
  }
  return jobs;
}

}  // namespace

StatusOr<std::vector<std::string>> SplitShellWords(const std::string& text) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(std::move(cur));
      cur.clear();
      in_word = false;
    } else if (c == '\'') {
      size_t end = text.find('\'', i + 1);
      if (end == std::string::npos) return InvalidArgument("unterminated ' quote at column " + std::to_string(i + 1));
      cur.append(text, i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '"') {
      size_t k = i + 1;
      for (; k < text.size() && text[k] != '"'; ++k) {
        if (text[k] == '\\' && k + 1 < text.size() && (text[k + 1] == '"' || text[k + 1] == '\\')) ++k;
        cur += text[k];
      }
      if (k >= text.size()) return InvalidArgument("unterminated \" quote at column " + std::to_string(i + 1));
      i = k;
      in_word = true;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(cur));
  return words;
}

StatusOr<std::vector<PendingJob>> LoadQueueYaml(const std::string& text, const std::string& source) {
  try {
    return ReadQueue(text, source);
  } catch (const std::exception& e) {
    return InvalidArgument(source + ": " + e.what());
  }
}

StatusOr<std::vector<PendingJob>> LoadQueueFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, config_internal::ReadTextFile(path));
  return LoadQueueYaml(text, path);
}

}  // namespace muster
