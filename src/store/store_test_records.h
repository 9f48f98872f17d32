// Records with every field set, for the stores' tests (store_contract_test.cc's
// RichRecordsSetEveryField keeps them so as fields are added).
#pragma once

#include <cstdint>
#include <string>

#include "model/job_record.h"
#include "model/record_json.h"

namespace muster {

// Every field set to a non-default value (RichRecordsSetEveryField checks that stays true).
inline JobRecord RichJob(int64_t id) {
  JobRecord j;
  j.id = id;
  j.name = "train-" + std::to_string(id);
  j.uid = 1000 + static_cast<uint32_t>(id);
  j.gid = 100;
  j.user = "alice";
  j.group = "ml";
  j.account = "vision";
  j.qos = "high";
  j.sched_nodes = "gpu[001-002]";
  j.nice = 50;
  j.partition = "gpu";
  JobRequest& r = j.request;
  r.name = j.name;
  r.partition = "gpu";
  r.min_nodes = 2;
  r.max_nodes = 4;
  r.ntasks = 16;
  r.ntasks_per_node = 8;
  r.cpus_per_task = 4;
  r.mem_per_node_mb = 512000;
  r.mem_per_cpu_mb = 4096;
  r.mem_per_gpu_mb = 81920;
  r.gpu_type = "h100";
  r.gpus_per_node = 8;
  r.gpus_total = 16;
  r.gpus_per_task = 1;
  r.cpus_per_gpu = 12;
  r.gpu_milli = 250;
  r.gpu_memory_mb = 20480;
  r.constraint = "nvlink&ib";
  r.exclusive = true;
  r.overcommit = true;
  r.min_cpus_per_node = 4;
  r.tmp_disk_mb = 1024;
  r.time_limit_s = 86400;
  r.nodelist = {"gpu001", "gpu002"};
  r.exclude = {"gpu013"};
  j.submit_args = {"-N", "2-4", "--gres=gpu:h100:8", "--time=1-00:00:00"};
  j.script = "#!/bin/bash\n#SBATCH -J train\nsrun python train.py --lr=3e-4 \"$@\"\n";
  j.script_args = {"--epochs", "90"};
  j.workdir = "/home/alice/проект";
  j.submit_host = "login-01.example.org";
  j.submit_sid = 31337;
  j.environment = {"PATH=/usr/bin:/bin", "OPTS=a=b=c", "EMPTY=", "GREETING=héllo 世界 🚀", "QUOTE=\"x\"\t\\n"};
  j.stdout_pattern = "slurm-%j.out";
  j.stderr_pattern = "slurm-%j.err";
  j.stdin_path = "/dev/zero";
  j.priority = 4294967296;
  j.time_limit_s = 86400;
  j.requeue = false;
  j.held = true;
  j.options.comment = "a comment";
  j.options.wckey = "proj";
  j.options.mail_type = kMailBegin;
  j.options.mail_user = "a@b";
  j.submit_key = "retry-key-0042";
  j.interactive = true;
  j.array_job_id = 5;
  j.array_task_id = 2;
  j.array_tasks = "0-3";
  j.array_max_running = 2;
  j.het_job_id = 41;
  j.het_job_offset = 1;
  j.het_job_size = 2;
  j.het_environment = {"SLURM_HET_SIZE=2"};
  j.dependency = ParseDependency("afterok:6,afterany:5").value();
  j.dependency_left = "afterok:6(unfulfilled)";
  j.begin_time = 1700000600;
  j.warn_signal = 10;
  j.warn_time_s = 90;
  j.warn_batch_only = true;
  j.warn_sent = true;
  j.state = JobState::kRunning;
  j.reason = "None";
  j.reason_detail = "UnavailableNodes:gpu[003-004]";
  j.submit_time = 1700000000 + id;
  j.eligible_time = 1700000001 + id;
  j.start_time = 1700000002 + id;
  j.expected_start = 1700000001 + id;
  j.end_time = 1700000003 + id;
  j.exit_code = 3;
  j.exit_signal = 9;
  j.restart_count = 2;
  j.lost_launches = 1;
  j.allocation = {
      {"gpu001", 32000, 256000, 8, FromStoredGpus({{0, 1, 3, 4, 5, 6, 7}, 2, 500}), true},
      {"gpu002", 32000, 256000, 8, FromStoredGpus({{0, 1, 2, 3}, 5, 250}), true},
  };
  j.batch_host = "gpu001";
  j.ending = "preempt-requeue";
  j.kill_at = 1700000530;
  j.cancelled_by = 1000;
  j.preempted_by = 41;
  j.preempt_time = 1700000500;
  j.preempt_reason = "QOS high preempts QOS normal";
  j.preemptions = {PreemptionEvent{40, 1700000400, "REQUEUE", "quota reclaim"},
                   PreemptionEvent{41, 1700000500, "CANCEL", "QOS high preempts QOS normal"}};
  j.suspend_time = 1700000450;
  j.suspended_s = 75;
  j.run_before_s = 3600;
  return j;
}

inline NodeRecord RichNode(const std::string& name) {
  NodeRecord n;
  Node& node = n.node;
  node.name = name;
  node.cpus = 128;
  node.sockets = 2;
  node.cores_per_socket = 32;
  node.threads_per_core = 2;
  node.numa_nodes = 8;
  node.memory_mb = 1024000;
  node.tmp_disk_mb = 200000;
  node.features = {"h100", "nvlink", "ib"};
  node.state = NodeState::kMixed;
  node.drain = true;
  node.reason = "ECC errors (ünïcode)";
  node.reason_user = "admin";
  node.reason_time = 1700000400;
  for (int i = 0; i < 4; ++i) {
    node.gpus.push_back({i, "h100", 81559, "GPU-" + std::to_string(i), i / 2, i < 2 ? "" : "1g.10gb", i < 2 ? -1 : 1});
  }
  node.links = GpuLinkMatrix::NvSwitch(4, 12);  // every field set, the NVSwitch flag included
  n.failed_gpus = {{1, false, "Xid 79 (GPU has fallen off the bus)"}, {3, true, "row remapping pending"}};
  n.agent_address = "unix:/run/musterd.sock";
  n.last_heartbeat = 1700000100;
  n.boot_time = 1699990000;
  n.start_time = 1699990100;
  n.version = "0.1.0";
  n.arch = "x86_64";
  n.os = "Linux 6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)";
  n.hostname = "gpu001.cluster.example";
  return n;
}

inline StepRecord RichStep(int64_t job_id, int step_id) {
  StepRecord s;
  s.job_id = job_id;
  s.step_id = step_id;
  s.name = step_id == -5 ? "batch" : "python";
  s.nodes = {"gpu001", "gpu002"};
  s.node_cpus = {4, 2};
  s.node_mem_mb = {8000, 4000};
  s.node_gpus = {{0, 1}, {3}};
  s.time_limit_s = 600;
  s.ntasks = 16;
  s.state = JobState::kCompleted;
  s.start_time = 1700000010;
  s.end_time = 1700000020;
  s.exit_code = 1;
  return s;
}

}  // namespace muster
