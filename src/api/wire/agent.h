// What the node agents and the controller say to each other (docs/api.md, "Agents"): the reports
// of a node (registration, heartbeat, a run's exit) and the controller's orders in answer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/wire/codec.h"
#include "model/job_record.h"

namespace muster {

// What an agent reports when a job's batch script (or a job's processes on a node) ended.
struct ExitReport {
  using WireRecord = void;
  int exit_code = 0;
  int signal = 0;
  bool oom = false;       // the cgroup recorded an OOM kill
  std::string note;       // free text for the log
  int restart_count = 0;  // which run of the job this was (a requeued job runs again)
  bool lease_expired = false;  // the node ended it when its lease ran out: lost, as with the node
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("exit_code", s.exit_code);
    v("signal", s.signal);
    v("oom", s.oom);
    v("note", s.note);
    v("restart_count", s.restart_count);
    v("lease_expired", s.lease_expired);
  }
  friend bool operator==(const ExitReport&, const ExitReport&) = default;
};

// One run of a job: the job and its restart count. Every order to an agent names the run it is
// for, and the agent acts on no other: a requeued job's new run is out of reach of orders meant
// for its old one.
struct JobRun {
  using WireRecord = void;
  int64_t job_id = 0;
  int restart_count = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
    v("restart_count", s.restart_count);
  }
  friend auto operator<=>(const JobRun&, const JobRun&) = default;
};

// The end of a run, as a node reports it (POST /v1/agent/exit, and in every node report until the
// controller acknowledges it): one flat object, the job id beside the report's keys.
struct RunExit {
  using WireRecord = void;
  int64_t job_id = 0;
  ExitReport report;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
    ExitReport::Fields(v, s.report);
  }
  friend bool operator==(const RunExit&, const RunExit&) = default;
};

// The site's health-check program's last verdict on a node.
struct NodeHealth {
  using WireRecord = void;
  bool ok = true;
  std::string reason;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("ok", s.ok);
    v("reason", s.reason);
  }
  friend bool operator==(const NodeHealth&, const NodeHealth&) = default;
};

// What a node agent says when it registers and in every heartbeat: the runs it holds, and the
// runs that ended there and that the controller has not acknowledged yet. Read in one piece, the
// ends first: a job that ended while the controller (or the agent) was away is settled from its
// real exit, never taken for lost.
struct NodeReport {
  using WireRecord = void;
  std::vector<JobRun> running;
  std::vector<RunExit> exits;
  // The GPUs its health watch has out now (sorted by index), when the agent watches them: a GPU
  // failing here requeues the jobs on it; one no longer listed returns. Unset: not watched.
  std::optional<std::vector<GpuFault>> gpu_faults;
  // When the agent runs a health check: a failure drains the node ("health check: <its first
  // line>"), a pass resumes a node it drained. Unset: no check runs there.
  std::optional<NodeHealth> node_health;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("running", s.running);
    v("exits", s.exits);
    v("gpu_health", s.gpu_faults);
    v("node_health", s.node_health);
  }
  friend bool operator==(const NodeReport&, const NodeReport&) = default;
};

// POST /v1/agent/heartbeat: the node's name and its report.
struct Heartbeat {
  using WireRecord = void;
  std::string node;
  NodeReport report;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("node", s.node);
    NodeReport::Fields(v, s.report);
  }
};

// POST /v1/agent/exit: the node's name and one run's end.
struct ExitNotice {
  using WireRecord = void;
  std::string node;
  RunExit exit;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("node", s.node);
    RunExit::Fields(v, s.exit);
  }
};

// The controller's answer to a registration or heartbeat: how long the node may keep running its
// jobs without hearing from the controller again (its lease), and the runs it must stop because
// the controller no longer has them running there (a requeued job's old run, a launch it gave up
// on, a job that ended while the node was away).
struct NodeOrders {
  using WireRecord = void;
  int64_t lease_s = 0;
  std::vector<JobRun> stop;
  std::vector<int> resume_gpus;  // an admin resumed the node: its health watch takes these back
  std::string cluster;           // the registration's answer: the cluster's name
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("lease_s", s.lease_s);
    v("stop", s.stop);
    v("resume_gpus", s.resume_gpus);
    v("cluster", s.cluster);
  }
  friend bool operator==(const NodeOrders&, const NodeOrders&) = default;
};

namespace wire {

// A GPU out of service, as a node reports it: {"index", "condition": "failed"|"needs_reset", "reason"}.
template <>
struct External<GpuFault> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("index", s.index);
    v("condition", Named{s.needs_reset, {{false, "failed"}, {true, "needs_reset"}}});
    v("reason", s.reason);
  }
};

// A node report read and checked: GPU indexes within 0..4095, the faults sorted by index.
StatusOr<NodeReport> CheckedNodeReport(NodeReport report);

}  // namespace wire
}  // namespace muster
