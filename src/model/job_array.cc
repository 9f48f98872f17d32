#include "model/job_array.h"

#include <algorithm>
#include <set>

#include "base/strings.h"

namespace muster {
namespace {

Status Bad(std::string_view text, const std::string& why) {
  return InvalidArgument("invalid job array '" + std::string(text) + "': " + why);
}

bool ToInt(std::string_view s, int* out) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string_view::npos) return false;
  *out = std::stoi(std::string(s));
  return true;
}

}  // namespace

StatusOr<ArraySpec> ParseArraySpec(std::string_view text, int max_array_size) {
  ArraySpec spec;
  std::string_view list = text;
  if (size_t pct = text.find('%'); pct != std::string_view::npos) {
    list = text.substr(0, pct);
    if (!ToInt(text.substr(pct + 1), &spec.max_running) || spec.max_running < 1) {
      return Bad(text, "the limit after '%' must be a positive number");
    }
  }
  if (list.empty()) return Bad(text, "no tasks");
  if (list.front() == ',' || list.back() == ',' || list.find(",,") != std::string_view::npos) {
    return Bad(text, "an empty item");
  }
  std::set<int> tasks;
  for (const std::string& piece : Split(list, ',')) {
    std::string_view item = piece;
    int step = 1;
    if (size_t colon = item.find(':'); colon != std::string_view::npos) {
      if (!ToInt(item.substr(colon + 1), &step) || step < 1) return Bad(text, "the step after ':' must be positive");
      item = item.substr(0, colon);
    }
    int lo = 0, hi = 0;
    if (size_t dash = item.find('-'); dash != std::string_view::npos) {
      if (!ToInt(item.substr(0, dash), &lo) || !ToInt(item.substr(dash + 1), &hi)) {
        return Bad(text, "'" + std::string(item) + "' is not a range of task ids");
      }
      if (hi < lo) return Bad(text, "the range " + std::string(item) + " is empty");
    } else {
      if (!ToInt(item, &lo)) return Bad(text, "'" + std::string(item) + "' is not a task id");
      hi = lo;
    }
    if (hi >= max_array_size) {
      return Bad(text, "task id " + std::to_string(hi) + " is over the limit (MaxArraySize " +
                           std::to_string(max_array_size) + ": ids 0-" + std::to_string(max_array_size - 1) + ")");
    }
    for (int t = lo; t <= hi; t += step) tasks.insert(t);
  }
  spec.tasks.assign(tasks.begin(), tasks.end());
  return spec;
}

std::string FormatArrayTasks(const std::vector<int>& tasks, int max_running) {
  std::string out;
  for (size_t i = 0; i < tasks.size();) {
    size_t j = i;
    while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(tasks[i]);
    if (j > i) out += "-" + std::to_string(tasks[j]);
    i = j + 1;
  }
  if (max_running > 0) out += "%" + std::to_string(max_running);
  return out;
}

Status ValidateArraySpec(const ArraySpec& spec, int max_array_size) {
  const std::string text = ArraySpecText(spec);
  if (spec.max_running < 0) return Bad(text, "the limit after '%' must be a positive number");
  if (spec.tasks.empty() && spec.max_running > 0) return Bad(text, "no tasks");
  for (size_t i = 0; i < spec.tasks.size(); ++i) {
    const int t = spec.tasks[i];
    if (t < 0) return Bad(text, "'" + std::to_string(t) + "' is not a task id");
    if (t >= max_array_size) {
      return Bad(text, "task id " + std::to_string(t) + " is over the limit (MaxArraySize " +
                           std::to_string(max_array_size) + ": ids 0-" + std::to_string(max_array_size - 1) + ")");
    }
    if (i > 0 && t <= spec.tasks[i - 1]) return Bad(text, "the task ids are not ascending");
  }
  return Status::Ok();
}

int ArrayTaskStep(const std::vector<int>& tasks) {
  if (tasks.size() < 2) return 1;
  const int step = tasks[1] - tasks[0];
  for (size_t i = 2; i < tasks.size(); ++i) {
    if (tasks[i] - tasks[i - 1] != step) return 1;
  }
  return step;
}

}  // namespace muster
