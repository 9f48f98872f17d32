// The fields of a job record, named once. Each JSON codec of JobRecord (the stored and wire form
// in record_json.cc, the compact job list in job_list_json.cc) is a visitor over these functions,
// so a field added here is written and read everywhere under the same key.
//
// A visitor V provides:
//   v.Field(key, value, default_value)                  scalars, strings, string/int vectors, JobState
//   v.Object(key, value, default_value, fields_fn)      a nested record: fields_fn(sub_visitor, value, default)
//   v.Objects(key, vector, default_vector, fields_fn)   an array of nested records
// `value` is T& for readers and const T& for writers; `default_value` is the field's value in a
// default-constructed record (writers of compact forms leave such fields out, and readers keep the
// default when a key is missing, so leaving a field out means exactly "unchanged from default").
// A visitor may also pass a second record as the "default" (job_list_json.cc copies one that way).
// Internal to the model layer.
#pragma once

#include <type_traits>

#include "model/job_record.h"

namespace muster::record_fields {

template <class V, class R>
void JobRequestFields(V& v, R& r, const JobRequest& d) {
  v.Field("name", r.name, d.name);
  v.Field("partition", r.partition, d.partition);
  v.Field("min_nodes", r.min_nodes, d.min_nodes);
  v.Field("max_nodes", r.max_nodes, d.max_nodes);
  v.Field("ntasks", r.ntasks, d.ntasks);
  v.Field("ntasks_per_node", r.ntasks_per_node, d.ntasks_per_node);
  v.Field("cpus_per_task", r.cpus_per_task, d.cpus_per_task);
  v.Field("mem_per_node_mb", r.mem_per_node_mb, d.mem_per_node_mb);
  v.Field("mem_per_cpu_mb", r.mem_per_cpu_mb, d.mem_per_cpu_mb);
  v.Field("mem_per_gpu_mb", r.mem_per_gpu_mb, d.mem_per_gpu_mb);
  v.Field("gpu_type", r.gpu_type, d.gpu_type);
  v.Field("gpus_per_node", r.gpus_per_node, d.gpus_per_node);
  v.Field("gpus_total", r.gpus_total, d.gpus_total);
  v.Field("gpus_per_task", r.gpus_per_task, d.gpus_per_task);
  v.Field("cpus_per_gpu", r.cpus_per_gpu, d.cpus_per_gpu);
  v.Field("gpu_milli", r.gpu_milli, d.gpu_milli);
  v.Field("gpu_memory_mb", r.gpu_memory_mb, d.gpu_memory_mb);
  v.Field("constraint", r.constraint, d.constraint);
  v.Field("exclusive", r.exclusive, d.exclusive);
  v.Field("overcommit", r.overcommit, d.overcommit);
  v.Field("min_cpus_per_node", r.min_cpus_per_node, d.min_cpus_per_node);
  v.Field("tmp_disk_mb", r.tmp_disk_mb, d.tmp_disk_mb);
  v.Field("time_limit_s", r.time_limit_s, d.time_limit_s);
  v.Field("nodelist", r.nodelist, d.nodelist);
  v.Field("exclude", r.exclude, d.exclude);
}

template <class V, class A>
void AllocationFields(V& v, A& a, const NodeAllocation& d) {
  v.Field("node", a.node, d.node);
  v.Field("cpu_milli", a.cpu_milli, d.cpu_milli);
  v.Field("memory_mb", a.memory_mb, d.memory_mb);
  v.Field("tasks", a.tasks, d.tasks);
  // The GPUs in their stored form (model/allocation.h's StoredGpus): read into it, then rebuilt.
  const StoredGpus sd = ToStoredGpus(d);
  if constexpr (std::is_const_v<A>) {
    const StoredGpus s = ToStoredGpus(a);
    v.Field("gpus", s.whole, sd.whole);
    v.Field("shared_gpu", s.shared, sd.shared);
    v.Field("shared_milli", s.shared_milli, sd.shared_milli);
  } else {
    StoredGpus s = ToStoredGpus(a);
    v.Field("gpus", s.whole, sd.whole);
    v.Field("shared_gpu", s.shared, sd.shared);
    v.Field("shared_milli", s.shared_milli, sd.shared_milli);
    a.gpus = FromStoredGpus(s);
  }
  v.Field("exclusive", a.exclusive, d.exclusive);
}

template <class V, class P>
void PreemptionFields(V& v, P& p, const PreemptionEvent& d) {
  v.Field("by", p.by, d.by);
  v.Field("time", p.time, d.time);
  v.Field("mode", p.mode, d.mode);
  v.Field("reason", p.reason, d.reason);
}

template <class V, class J>
void JobRecordFields(V& v, J& j, const JobRecord& d) {
  v.Field("id", j.id, d.id);
  v.Field("name", j.name, d.name);
  v.Field("uid", j.uid, d.uid);
  v.Field("gid", j.gid, d.gid);
  v.Field("user", j.user, d.user);
  v.Field("group", j.group, d.group);
  v.Field("account", j.account, d.account);
  v.Field("qos", j.qos, d.qos);
  v.Field("nice", j.nice, d.nice);
  v.Field("partition", j.partition, d.partition);
  v.Object("request", j.request, d.request, [](auto& sub, auto& r, const JobRequest& rd) { JobRequestFields(sub, r, rd); });
  v.Field("submit_args", j.submit_args, d.submit_args);
  v.Field("script", j.script, d.script);
  v.Field("interactive", j.interactive, d.interactive);
  v.Field("script_args", j.script_args, d.script_args);
  v.Field("workdir", j.workdir, d.workdir);
  v.Field("submit_host", j.submit_host, d.submit_host);
  v.Field("submit_sid", j.submit_sid, d.submit_sid);
  v.Field("comment", j.comment, d.comment);
  v.Field("submit_key", j.submit_key, d.submit_key);
  v.Field("array_job_id", j.array_job_id, d.array_job_id);
  v.Field("array_task_id", j.array_task_id, d.array_task_id);
  v.Field("array_tasks", j.array_tasks, d.array_tasks);
  v.Field("array_max_running", j.array_max_running, d.array_max_running);
  v.Field("het_job_id", j.het_job_id, d.het_job_id);
  v.Field("het_job_offset", j.het_job_offset, d.het_job_offset);
  v.Field("het_job_size", j.het_job_size, d.het_job_size);
  v.Field("het_environment", j.het_environment, d.het_environment);
  v.Field("environment", j.environment, d.environment);
  v.Field("stdout", j.stdout_pattern, d.stdout_pattern);
  v.Field("stderr", j.stderr_pattern, d.stderr_pattern);
  v.Field("stdin", j.stdin_path, d.stdin_path);
  v.Field("priority", j.priority, d.priority);
  v.Field("time_limit_s", j.time_limit_s, d.time_limit_s);
  v.Field("requeue", j.requeue, d.requeue);
  v.Field("held", j.held, d.held);
  v.Field("dependency", j.dependency, d.dependency);
  v.Field("dependency_left", j.dependency_left, d.dependency_left);
  v.Field("begin_time", j.begin_time, d.begin_time);
  v.Field("warn_signal", j.warn_signal, d.warn_signal);
  v.Field("warn_time_s", j.warn_time_s, d.warn_time_s);
  v.Field("warn_batch_only", j.warn_batch_only, d.warn_batch_only);
  v.Field("warn_sent", j.warn_sent, d.warn_sent);
  v.Field("state", j.state, d.state);
  v.Field("reason", j.reason, d.reason);
  v.Field("reason_detail", j.reason_detail, d.reason_detail);
  v.Field("submit_time", j.submit_time, d.submit_time);
  v.Field("eligible_time", j.eligible_time, d.eligible_time);
  v.Field("start_time", j.start_time, d.start_time);
  v.Field("expected_start", j.expected_start, d.expected_start);
  v.Field("sched_nodes", j.sched_nodes, d.sched_nodes);
  v.Field("end_time", j.end_time, d.end_time);
  v.Field("exit_code", j.exit_code, d.exit_code);
  v.Field("exit_signal", j.exit_signal, d.exit_signal);
  v.Field("restart_count", j.restart_count, d.restart_count);
  v.Field("lost_launches", j.lost_launches, d.lost_launches);
  v.Objects("allocation", j.allocation, d.allocation,
            [](auto& sub, auto& a, const NodeAllocation& ad) { AllocationFields(sub, a, ad); });
  v.Field("batch_host", j.batch_host, d.batch_host);
  v.Field("ending", j.ending, d.ending);
  v.Field("kill_at", j.kill_at, d.kill_at);
  v.Field("cancelled_by", j.cancelled_by, d.cancelled_by);
  v.Field("preempted_by", j.preempted_by, d.preempted_by);
  v.Field("preempt_time", j.preempt_time, d.preempt_time);
  v.Field("preempt_reason", j.preempt_reason, d.preempt_reason);
  v.Objects("preemptions", j.preemptions, d.preemptions,
            [](auto& sub, auto& p, const PreemptionEvent& pd) { PreemptionFields(sub, p, pd); });
  v.Field("suspend_time", j.suspend_time, d.suspend_time);
  v.Field("suspended_s", j.suspended_s, d.suspended_s);
  v.Field("run_before_s", j.run_before_s, d.run_before_s);
}

}  // namespace muster::record_fields
