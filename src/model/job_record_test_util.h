// Tests only: a job record with every field set away from its default (nested records and lists
// too), for the tests that pin each JSON form of a job byte for byte (stored, wire, job list).
#pragma once

#include "model/job_record.h"

namespace muster {

inline JobRecord FullyPopulatedJob() {
  JobRecord j;
  j.id = 42;
  j.name = "train \"llm\" \xc3\xbc\t";
  j.uid = 4000000000u;  // above int32: uint32 must stay unsigned
  j.gid = 1001;
  j.user = "alice";
  j.group = "ml";
  j.account = "research";
  j.qos = "high";
  j.nice = -5;
  j.partition = "gpu";
  JobRequest& r = j.request;
  r.name = "req";
  r.partition = "gpu,cpu";
  r.min_nodes = 2;
  r.max_nodes = 3;
  r.ntasks = 16;
  r.ntasks_per_node = 8;
  r.cpus_per_task = 4;
  r.mem_per_node_mb = 1024;
  r.mem_per_cpu_mb = 512;
  r.mem_per_gpu_mb = 2048;
  r.gpu_type = "h100";
  r.gpus_per_node = 8;
  r.gpus_total = 16;
  r.gpus_per_task = 1;
  r.cpus_per_gpu = 2;
  r.gpu_milli = 250;
  r.gpu_memory_mb = 20480;
  r.constraint = "a&b";
  r.exclusive = true;
  r.overcommit = true;
  r.min_cpus_per_node = 6;
  r.tmp_disk_mb = 100;
  r.time_limit_s = 3600;
  r.nodelist = {"gpu01", "gpu02"};
  r.exclude = {"gpu09"};
  j.submit_args = {"-N", "2"};
  j.script = "#!/bin/bash\nsrun hostname\n";
  j.interactive = true;
  j.script_args = {"a", "b"};
  j.workdir = "/home/alice";
  j.submit_host = "login1";
  j.submit_sid = 777;
  j.options.comment = "a comment";
  j.options.wckey = "proj";
  j.options.mail_type = kMailEnd | kMailFail;
  j.options.mail_user = "alice@example.org";
  j.submit_key = "key-1";
  j.array_job_id = 40;
  j.array_task_id = 2;
  j.array_tasks = "0-9%2";
  j.array_max_running = 2;
  j.het_job_id = 41;
  j.het_job_offset = 1;
  j.het_job_size = 2;
  j.het_environment = {"A=1"};
  j.environment = {"PATH=/usr/bin", "HOME=/home/alice"};
  j.stdout_pattern = "out-%j.txt";
  j.stderr_pattern = "err-%j.txt";
  j.stdin_path = "/dev/zero";
  j.priority = -7;
  j.time_limit_s = 0;  // differs from the default (unlimited)
  j.requeue = false;   // default true
  j.held = true;
  j.dependency = ParseDependency("afterok:1").value();
  j.dependency_left = "afterok:1";
  j.begin_time = 900;
  j.warn_signal = 10;
  j.warn_time_s = 60;
  j.warn_batch_only = true;
  j.warn_sent = true;
  j.state = JobState::kSuspended;
  j.reason = "None";
  j.reason_detail = "UnavailableNodes:n[3-4]";
  j.submit_time = 1000;
  j.eligible_time = 1001;
  j.start_time = 1005;
  j.expected_start = 1004;
  j.sched_nodes = "gpu[01-02]";
  j.end_time = 2000;
  j.exit_code = 3;
  j.exit_signal = 9;
  j.restart_count = 4;
  j.lost_launches = 1;
  j.allocation = {{"gpu01", 2000, 4096, 1, FromStoredGpus({{0, 1, 7}, -1, 0}), false},
                  {"gpu02", 2500, 0, 2, FromStoredGpus({{}, 3, 250}), true}};
  j.batch_host = "gpu01";
  j.ending = "timeout";
  j.kill_at = 2100;
  j.cancelled_by = 0;
  j.preempted_by = 43;
  j.preempt_time = 1500;
  j.preempt_reason = "by 43";
  j.preemptions = {{43, 1500, "REQUEUE", "by 43"}, {44, 1600, "SUSPEND", ""}};
  j.suspend_time = 1700;
  j.suspended_s = 30;
  j.run_before_s = 120;
  return j;
}

}  // namespace muster
