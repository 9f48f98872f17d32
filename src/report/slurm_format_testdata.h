// Test data for the Slurm format tests: the cluster and jobs of the Slurm 22.05.8 captures in
// shared/peers/slurm/captures/ (4 nodes n1..n4 of 16 CPUs, 64000 MB, 8 GPUs; partitions gpu* and
// debug; jobs 9148..9151), as Muster records. Times are UTC; the tests run with TZ=UTC.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "model/job_record.h"
#include "model/partition.h"

namespace muster {
namespace testdata {

inline constexpr int64_t kT0 = 1796008379;  // 2026-11-30T03:12:59Z, when the jobs were submitted

// Makes the process print times in UTC (the captures' zone). Call before formatting.
inline void UseUtc() {
  setenv("TZ", "UTC", 1);
  tzset();
}

inline NodeRecord CapturedNode(const std::string& name, int64_t now) {
  NodeRecord r;
  r.node.name = name;
  r.node.cpus = 16;
  r.node.sockets = 2;
  r.node.cores_per_socket = 8;
  r.node.threads_per_core = 1;
  r.node.memory_mb = 64000;
  for (int i = 0; i < 8; ++i) {
    Gpu g;
    g.index = i;
    r.node.gpus.push_back(g);
  }
  r.last_heartbeat = now;
  return r;
}

inline std::vector<NodeRecord> CapturedNodes(int64_t now) {
  return {CapturedNode("n1", now), CapturedNode("n2", now), CapturedNode("n3", now), CapturedNode("n4", now)};
}

inline std::vector<Partition> CapturedPartitions() {
  Partition gpu;
  gpu.name = "gpu";
  gpu.nodes = {"n1", "n2", "n3", "n4"};
  gpu.is_default = true;
  Partition debug;
  debug.name = "debug";
  debug.nodes = {"n1"};
  debug.max_time_s = 30 * 60;
  return {gpu, debug};
}

inline JobRecord BaseJob(int64_t id, const std::string& name) {
  JobRecord j;
  j.id = id;
  j.name = name;
  j.request.name = name;
  j.user = "root";
  j.group = "root";
  j.account = "root";
  j.partition = "gpu";
  j.workdir = "/work";
  j.script = "#!/bin/sh\n# This script was created by sbatch --wrap.\n\ntrue\n";
  j.submit_time = kT0;
  j.eligible_time = kT0;
  j.request.nodelist = {"n1"};
  j.request.mem_per_cpu_mb = 500;
  return j;
}

inline NodeAllocation Alloc(const std::string& node, int cpus, int64_t mem_mb, int gpus) {
  NodeAllocation a;
  a.node = node;
  a.cpu_milli = cpus * 1000;
  a.memory_mb = mem_mb;
  a.tasks = cpus;
  for (int i = 0; i < gpus; ++i) a.gpus.push_back({i, kMilliPerGpu});
  return a;
}

// 9148 gpujob: running on n1 (4 CPUs, 8 GPUs), 10 minute limit, output cap_%j.out.
inline JobRecord Job9148() {
  JobRecord j = BaseJob(9148, "gpujob");
  j.priority = 4294892681;
  j.request.ntasks = 4;
  j.request.gpus_per_node = 8;
  j.time_limit_s = 600;
  j.stdout_pattern = "cap_%j.out";
  j.state = JobState::kRunning;
  j.reason = "None";
  j.start_time = kT0;
  j.allocation = {Alloc("n1", 4, 2000, 8)};
  j.batch_host = "n1";
  j.submit_host = "localhost";
  j.submit_sid = 2108;
  return j;
}

// 9149 cpujob: running on n[1-2], no limit.
inline JobRecord Job9149() {
  JobRecord j = BaseJob(9149, "cpujob");
  j.priority = 4294892680;
  j.request.nodelist = {};
  j.request.min_nodes = 2;
  j.state = JobState::kRunning;
  j.start_time = kT0;
  j.allocation = {Alloc("n1", 1, 500, 0), Alloc("n2", 1, 500, 0)};
  j.batch_host = "n1";
  return j;
}

// 9150 waits4gpu: pending for Resources (4 GPUs on n1), output /dev/null.
inline JobRecord Job9150() {
  JobRecord j = BaseJob(9150, "waits4gpu");
  j.priority = 4294892679;
  j.request.gpus_per_node = 4;
  j.stdout_pattern = "/dev/null";
  j.state = JobState::kPending;
  j.reason = "Resources";
  return j;
}

// 9151 held: pending, held by its user.
inline JobRecord Job9151() {
  JobRecord j = BaseJob(9151, "held");
  j.priority = 0;
  j.held = true;
  j.state = JobState::kPending;
  j.reason = "JobHeldUser";
  return j;
}

inline std::vector<JobRecord> CapturedJobs() { return {Job9148(), Job9149(), Job9150(), Job9151()}; }

}  // namespace testdata
}  // namespace muster
