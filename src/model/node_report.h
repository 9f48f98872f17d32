// What a node agent reports to the controller (its runs, their ends, its GPUs' and its own health)
// and the controller's orders in answer (the node's lease, the runs to stop, the peers to ask in an
// outage): domain records that ctld takes and returns (Controller::RegisterNode, Heartbeat,
// JobExited) and wire/agent.h carries (docs/api.md, "Agents").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/job_record.h"

namespace muster {

// What an agent reports when a job's batch script (or a job's processes on a node) ended.
struct ExitReport {
  int exit_code = 0;
  int signal = 0;
  bool oom = false;       // the cgroup recorded an OOM kill
  std::string note;       // free text for the log
  int restart_count = 0;  // which run of the job this was (a requeued job runs again)
  bool lease_expired = false;  // the node ended it when its lease ran out: lost, as with the node
  friend bool operator==(const ExitReport&, const ExitReport&) = default;
};

// One run of a job: the job and its restart count. Every order to an agent names the run it is
// for, and the agent acts on no other: a requeued job's new run is out of reach of orders meant
// for its old one.
struct JobRun {
  int64_t job_id = 0;
  int restart_count = 0;
  friend auto operator<=>(const JobRun&, const JobRun&) = default;
};

// The end of a run, as a node reports it (POST /v1/agent/exit, and in every node report until the
// controller acknowledges it): one flat object, the job id beside the report's keys.
struct RunExit {
  int64_t job_id = 0;
  ExitReport report;
  friend bool operator==(const RunExit&, const RunExit&) = default;
};

// The site's health-check program's last verdict on a node.
struct NodeHealth {
  bool ok = true;
  std::string reason;
  friend bool operator==(const NodeHealth&, const NodeHealth&) = default;
};

// One GPU's utilization as the agent last read it, carried by its heartbeat (the dashboard's
// cluster view): the figures of its GET /metrics (DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_FB_USED).
struct GpuUtilization {
  int index = 0;
  double util_pct = 0;
  std::optional<double> fb_used_mib;
  friend bool operator==(const GpuUtilization&, const GpuUtilization&) = default;
};

// What a node agent says when it registers and in every heartbeat: the runs it holds, and the
// runs that ended there and that the controller has not acknowledged yet. Read in one piece, the
// ends first: a job that ended while the controller (or the agent) was away is settled from its
// real exit, never taken for lost.
struct NodeReport {
  std::vector<JobRun> running;
  std::vector<RunExit> exits;
  // The GPUs its health watch has out now (sorted by index), when the agent watches them: a GPU
  // failing here requeues the jobs on it; one no longer listed returns. Unset: not watched.
  std::optional<std::vector<GpuFault>> gpu_faults;
  // When the agent runs a health check: a failure drains the node ("health check: <its first
  // line>"), a pass resumes a node it drained. Unset: no check runs there.
  std::optional<NodeHealth> node_health;
  // Heartbeats only: the GPUs' utilization as last read (unset: none read; NVML GPUs are read
  // when /metrics is scraped, never by the heartbeat itself, so a hung driver delays no heartbeat).
  std::optional<std::vector<GpuUtilization>> gpu_usage;
  friend bool operator==(const NodeReport&, const NodeReport&) = default;
};

// A node's agent as its peers reach it.
struct PeerAgent {
  std::string node;
  std::string address;  // "unix:/path" or "host:port", as the node registered it
  friend bool operator==(const PeerAgent&, const PeerAgent&) = default;
};

// How an agent tells a controller outage from its own node being cut off (model/outage.h): the
// nodes the controller counts, the peers to ask whether a controller answers them, and the
// controller's rule. Kept by the agent in its spool (it must hold while no controller answers).
struct WitnessView {
  int64_t generation = 0;        // moves whenever the peers to ask or their addresses change
  int64_t peers = 0;             // the nodes the controller counts (model/outage.h), the asking one among them
  std::vector<PeerAgent> ask;    // the others registered so far, or a random kMaxPeersAsked of them
  bool sampled = false;          // `ask` is a random sample (RunsGoOn's sampled)
  int threshold_pct = 55;        // controller.outage_threshold
  int64_t claim_ms = 0;          // OutageRule::ClaimMs: a peer this long unanswered has lost it
  friend bool operator==(const WitnessView&, const WitnessView&) = default;
};

// The controller's answer to a registration or heartbeat: how long the node may keep running its
// jobs without hearing from the controller again (its lease), and the runs it must stop because
// the controller no longer has them running there (a requeued job's old run, a launch it gave up
// on, a job that ended while the node was away).
struct NodeOrders {
  int64_t lease_s = 0;
  std::vector<JobRun> stop;
  std::vector<int> resume_gpus;  // an admin resumed the node: its health watch takes these back
  std::string cluster;           // the registration's answer: the cluster's name
  int64_t leader_token = 0;      // the answering controller's lease token (0: a single controller)
  // The hash of the configuration the controller runs with (GET /v1/config/files' `hash`): a
  // configless agent (musterd --conf-server) that runs with another fetches it again and restarts.
  std::string config_hash;
  // The peers and the outage rule: in a registration's answer, and in a heartbeat's when the
  // heartbeat's witness_generation is not the controller's.
  std::optional<WitnessView> witness;
  friend bool operator==(const NodeOrders&, const NodeOrders&) = default;
};

}  // namespace muster
