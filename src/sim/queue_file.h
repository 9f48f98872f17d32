// Queue files (YAML) -> pending jobs. The format is documented in docs/cluster-file.md;
// examples/queue.yaml is a complete file:
//
//   jobs:
//     - {id: 1, name: train-llm, user: alice, priority: 100, submit_time: 0,
//        options: "-N 4 --gres=gpu:8 -t 2-00:00:00"}
//
// Errors name the file, the line and the field ("queue.yaml:7: jobs[3].options: --time: ...").
// Unknown fields are errors. No input makes these functions crash or throw. Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "sched/cluster_snapshot.h"

namespace muster {

// Jobs in file order (the scheduler orders them by priority itself). `source` names the text in
// error messages (a file path; "<input>" when not given).
StatusOr<std::vector<PendingJob>> LoadQueueYaml(const std::string& text, const std::string& source = "<input>");
StatusOr<std::vector<PendingJob>> LoadQueueFile(const std::string& path);

// Splits an option string the way a shell would for simple cases: on blanks, with '...' (literal)
// and "..." (where \" and \\ are escapes) quoting, quotes joining with adjacent text
// (--constraint="a|b" -> --constraint=a|b). Errors on an unterminated quote.
StatusOr<std::vector<std::string>> SplitShellWords(const std::string& text);

}  // namespace muster
