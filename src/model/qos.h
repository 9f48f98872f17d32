// Quality of service (Slurm's QOS): a priority, whom its jobs may preempt and how its own jobs are
// preempted, and limits on its jobs. Jobs name one with -q/--qos ("normal" when they do not).
// Plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/limits.h"

namespace muster {

// How a preempted job is stopped (Slurm's PreemptMode). SUSPEND stops the job's processes and
// frees its CPUs, but a suspended job keeps its memory and its GPUs' memory, so it frees no GPU.
enum class PreemptMode { kOff, kCancel, kRequeue, kSuspend };
const char* PreemptModeName(PreemptMode m);  // "OFF", "CANCEL", "REQUEUE", "SUSPEND"
StatusOr<PreemptMode> ParsePreemptMode(const std::string& name);  // case-insensitive

inline constexpr const char* kDefaultQosName = "normal";

struct Qos {
  std::string name;
  int64_t priority = 0;               // the QOS priority factor is this over the highest QOS's
  std::vector<std::string> preempt;   // Preempt=: QOS whose running jobs this QOS's jobs may preempt
  // How this QOS's jobs are preempted; kUnlimited/unset fields take the cluster's settings.
  bool has_preempt_mode = false;
  PreemptMode preempt_mode = PreemptMode::kRequeue;
  int64_t grace_time_s = kUnlimited;         // GraceTime: SIGTERM, then SIGKILL this much later
  int64_t preempt_exempt_time_s = kUnlimited;  // PreemptExemptTime: minimum runtime before preemption
  // Limits (Slurm's QOS limits, with the pending reasons they give).
  int64_t max_gpus_per_user = kUnlimited;  // MaxTRESPerUser=gres/gpu: QOSMaxGRESPerUser
  int64_t max_gpus_per_job = kUnlimited;   // MaxTRESPerJob=gres/gpu: QOSMaxGRESPerJob
  int64_t max_jobs_per_user = kUnlimited;  // MaxJobsPerUser (running): QOSMaxJobsPerUserLimit
  int64_t max_wall_s = kUnlimited;         // MaxWall: QOSMaxWallDurationPerJobLimit
  int64_t grp_gpus = kUnlimited;           // GrpTRES=gres/gpu (all its running jobs): QOSGrpGRES
  friend bool operator==(const Qos&, const Qos&) = default;
};

// Unique non-empty names; Preempt= names known QOS (not itself); limits -1 or >= 0. Errors name
// the QOS. An empty list is valid (every job is "normal", with nothing configured).
Status ValidateQosList(const std::vector<Qos>& list);
// The QOS named `name` ("" = "normal"), or nullptr when not configured.
const Qos* FindQos(const std::vector<Qos>& list, const std::string& name);

}  // namespace muster
