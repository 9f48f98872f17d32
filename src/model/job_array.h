// Job arrays (sbatch --array): the task list a specification names, and the compressed form squeue
// shows for tasks still waiting ("[1-3]", "[0,2,4,6%2]").
//
//   "1-3"        tasks 1, 2, 3
//   "0-6:2"      tasks 0, 2, 4, 6 (a step)
//   "1,3,5-7"    a list of the above
//   "0-99%10"    at most 10 tasks running at once (a throttle)
// Task ids are 0 .. max_array_size-1 (Slurm's MaxArraySize, 1001 by default). Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace muster {

inline constexpr int kDefaultMaxArraySize = 1001;

struct ArraySpec {
  std::vector<int> tasks;  // ascending, no duplicates
  int max_running = 0;     // '%N'; 0 = no limit
  bool empty() const { return tasks.empty(); }
  friend bool operator==(const ArraySpec&, const ArraySpec&) = default;
};

// Errors say what is wrong with the text ("invalid job array '5-1': the range 5-1 is empty").
StatusOr<ArraySpec> ParseArraySpec(std::string_view text, int max_array_size = kDefaultMaxArraySize);

// "1-3", "0,2,4,6", "1,3,5-7": runs of consecutive ids as ranges; with "%N" when max_running > 0.
std::string FormatArrayTasks(const std::vector<int>& tasks, int max_running = 0);

// The spec's text ParseArraySpec reads back to it: FormatArrayTasks of its tasks and limit.
inline std::string ArraySpecText(const ArraySpec& spec) { return FormatArrayTasks(spec.tasks, spec.max_running); }

// A spec that did not come from ParseArraySpec (a typed request) held to its rules: ids
// 0 .. max_array_size-1, ascending without duplicates, a limit >= 0.
Status ValidateArraySpec(const ArraySpec& spec, int max_array_size = kDefaultMaxArraySize);

// What SLURM_ARRAY_TASK_STEP says: the common difference of the tasks, or 1 when there is none.
int ArrayTaskStep(const std::vector<int>& tasks);

}  // namespace muster
