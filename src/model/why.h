// Why a job waits and when it will start (muster why, GET /v1/jobs/{id}/why), as the controller
// answers from the scheduler core's verdict (sched/why.h): a domain record that ctld fills
// (Controller::Why) and wire/why.h carries; the command prints it in plain words (cli/why_command.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace muster {

// What a cycle decides for a job.
struct WhyOutcomeAnswer {
  std::string start;       // "now", "preempting", "planned", "unplanned", "never"
  std::string reason;      // squeue's word ("Resources", "Priority", ...); "" when it starts
  std::string message;     // a rejection's message or a reason's detail
  int64_t start_time = 0;  // seconds since the epoch: now, or the planned start
  std::string nodes;       // a host list ("node[03-04]")
  std::vector<std::string> gpus;  // per node: "node03:0-7" (the GPUs it would take there)
  std::vector<int64_t> preempt;   // "preempting": the running jobs to stop
};

struct WhyAheadAnswer {
  int64_t job_id = 0;
  int position = 0;  // in the cycle's order, from 1
  std::string user, account, partition;
  int64_t priority = 0;
  double gpus = 0;
  WhyOutcomeAnswer outcome;
};

struct WhyShareAnswer {
  std::string account;
  double held = 0, fair_share = 0, demand = 0;
  double quota = -1;  // -1: none
};

struct WhySoonerAnswer {
  std::string kind;    // "gpus", "time", "partition", "limit", "quota"
  std::string change;  // plain words
  double gpus = 0;
  int64_t time_limit_s = 0;
  std::string partition;
  std::string account;  // or the QOS, for a QOS's limit
  std::string limit;
  int64_t value = -1;
  int64_t in_use = -1;
  WhyOutcomeAnswer outcome;
};

struct WhyAnswer {
  int64_t job_id = 0;
  std::string user, account, partition;
  std::string state;   // the job's ("PENDING", "RUNNING", ...)
  // The job's record as squeue shows it: its reason and squeue --start's figures, from the last pass.
  std::string reason;
  std::string reason_detail;
  int64_t expected_start = 0;
  std::string sched_nodes;
  int64_t now = 0;
  // Whether the core was asked (a pending job in the scheduling queue); else `note` says why not
  // ("it is RUNNING", "it is held", "it waits for its dependency", ...).
  bool explained = false;
  std::string note;
  double gpus = 0;
  int64_t time_limit_s = 0;
  WhyOutcomeAnswer outcome;
  int position = 0;
  int queue_size = 0;
  int ahead_total = 0;
  int ahead_in_partition = 0;
  std::vector<WhyAheadAnswer> ahead;
  bool fair_share_order = false;
  std::vector<WhyShareAnswer> shares;
  std::vector<WhySoonerAnswer> sooner;
  int cycles = 0;
};

}  // namespace muster
