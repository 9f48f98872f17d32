// The fields of a job record, named once. Each JSON codec of JobRecord (the stored and wire form
// in record_json.cc, the compact job list in job_list_json.cc) visits these functions with
// base/json_codec.h's Writer or Reader, so a field added here is written and read everywhere under
// the same key.
//
// The calls are json_codec.h's protocol with defaults:
//   v(key, value, default_value)                  scalars, strings, string/int vectors, JobState
//   v(key, value, default_value, fields_fn)       a nested record (fields_fn(sub_visitor, value,
//                                                 default)) or a vector of them
// `value` is T& for readers and const T& for writers; `default_value` is the field's value in a
// default-constructed record (writers of compact forms leave such fields out, and readers keep the
// default when a key is missing, so leaving a field out means exactly "unchanged from default").
// A visitor may also pass a second record as the "default" (job_list_json.cc copies one that way).
// Internal to the model layer, but for JobRequestFields, which wire/submit.h's submission uses too.
#pragma once

#include <string>
#include <type_traits>

#include "base/json_codec.h"
#include "model/job_record.h"

namespace muster {

// A job's state on the wire and in the store: its name ("RUNNING"), read in either form.
template <>
struct json::Text<JobState> : std::true_type {
  static const char* Format(JobState s) { return JobStateName(s); }
  static StatusOr<JobState> Parse(const std::string& name) { return ParseJobState(name); }
};

// A job's dependencies on the wire and in the store: their text ("afterok:12,afterany:13"),
// parsed when read (an error names the part: "invalid dependency 'after:x': ...").
template <>
struct json::Text<DependencySpec> : std::true_type {
  static std::string Format(const DependencySpec& d) { return DependencyText(d); }
  static StatusOr<DependencySpec> Parse(const std::string& text) { return ParseDependency(text); }
};

namespace record_fields {

template <class V, class R>
void JobRequestFields(V& v, R& r, const JobRequest& d) {
  v("name", r.name, d.name);
  v("partition", r.partition, d.partition);
  v("min_nodes", r.min_nodes, d.min_nodes);
  v("max_nodes", r.max_nodes, d.max_nodes);
  v("ntasks", r.ntasks, d.ntasks);
  v("ntasks_per_node", r.ntasks_per_node, d.ntasks_per_node);
  v("cpus_per_task", r.cpus_per_task, d.cpus_per_task);
  v("mem_per_node_mb", r.mem_per_node_mb, d.mem_per_node_mb);
  v("mem_per_cpu_mb", r.mem_per_cpu_mb, d.mem_per_cpu_mb);
  v("mem_per_gpu_mb", r.mem_per_gpu_mb, d.mem_per_gpu_mb);
  v("gpu_type", r.gpu_type, d.gpu_type);
  v("gpus_per_node", r.gpus_per_node, d.gpus_per_node);
  v("gpus_total", r.gpus_total, d.gpus_total);
  v("gpus_per_task", r.gpus_per_task, d.gpus_per_task);
  v("cpus_per_gpu", r.cpus_per_gpu, d.cpus_per_gpu);
  v("gpu_milli", r.gpu_milli, d.gpu_milli);
  v("gpu_memory_mb", r.gpu_memory_mb, d.gpu_memory_mb);
  v("constraint", r.constraint, d.constraint);
  v("exclusive", r.exclusive, d.exclusive);
  v("overcommit", r.overcommit, d.overcommit);
  v("min_cpus_per_node", r.min_cpus_per_node, d.min_cpus_per_node);
  v("tmp_disk_mb", r.tmp_disk_mb, d.tmp_disk_mb);
  v("time_limit_s", r.time_limit_s, d.time_limit_s);
  v("nodelist", r.nodelist, d.nodelist);
  v("exclude", r.exclude, d.exclude);
}

template <class V, class A>
void AllocationFields(V& v, A& a, const NodeAllocation& d) {
  v("node", a.node, d.node);
  v("cpu_milli", a.cpu_milli, d.cpu_milli);
  v("memory_mb", a.memory_mb, d.memory_mb);
  v("tasks", a.tasks, d.tasks);
  // The GPUs in their stored form (model/allocation.h's StoredGpus): read into it, then rebuilt.
  const StoredGpus sd = ToStoredGpus(d);
  if constexpr (std::is_const_v<A>) {
    const StoredGpus s = ToStoredGpus(a);
    v("gpus", s.whole, sd.whole);
    v("shared_gpu", s.shared, sd.shared);
    v("shared_milli", s.shared_milli, sd.shared_milli);
  } else {
    StoredGpus s = ToStoredGpus(a);
    v("gpus", s.whole, sd.whole);
    v("shared_gpu", s.shared, sd.shared);
    v("shared_milli", s.shared_milli, sd.shared_milli);
    a.gpus = FromStoredGpus(s);
  }
  v("exclusive", a.exclusive, d.exclusive);
}

template <class V, class P>
void PreemptionFields(V& v, P& p, const PreemptionEvent& d) {
  v("by", p.by, d.by);
  v("time", p.time, d.time);
  v("mode", p.mode, d.mode);
  v("reason", p.reason, d.reason);
}

template <class V, class J>
void JobRecordFields(V& v, J& j, const JobRecord& d) {
  v("id", j.id, d.id);
  v("name", j.name, d.name);
  v("uid", j.uid, d.uid);
  v("gid", j.gid, d.gid);
  v("user", j.user, d.user);
  v("group", j.group, d.group);
  v("account", j.account, d.account);
  v("qos", j.qos, d.qos);
  v("nice", j.nice, d.nice);
  v("partition", j.partition, d.partition);
  v("request", j.request, d.request, [](auto& sub, auto& r, const JobRequest& rd) { JobRequestFields(sub, r, rd); });
  v("submit_args", j.submit_args, d.submit_args);
  v("script", j.script, d.script);
  v("interactive", j.interactive, d.interactive);
  v("script_args", j.script_args, d.script_args);
  v("workdir", j.workdir, d.workdir);
  v("submit_host", j.submit_host, d.submit_host);
  v("submit_sid", j.submit_sid, d.submit_sid);
  JobOptionsFields(v, j.options, d.options);  // flattened: "comment", ...
  v("submit_key", j.submit_key, d.submit_key);
  v("array_job_id", j.array_job_id, d.array_job_id);
  v("array_task_id", j.array_task_id, d.array_task_id);
  v("array_tasks", j.array_tasks, d.array_tasks);
  v("array_max_running", j.array_max_running, d.array_max_running);
  v("het_job_id", j.het_job_id, d.het_job_id);
  v("het_job_offset", j.het_job_offset, d.het_job_offset);
  v("het_job_size", j.het_job_size, d.het_job_size);
  v("het_environment", j.het_environment, d.het_environment);
  v("environment", j.environment, d.environment);
  v("stdout", j.stdout_pattern, d.stdout_pattern);
  v("stderr", j.stderr_pattern, d.stderr_pattern);
  v("stdin", j.stdin_path, d.stdin_path);
  v("priority", j.priority, d.priority);
  v("time_limit_s", j.time_limit_s, d.time_limit_s);
  v("requeue", j.requeue, d.requeue);
  v("held", j.held, d.held);
  v("dependency", j.dependency, d.dependency);
  v("dependency_left", j.dependency_left, d.dependency_left);
  v("begin_time", j.begin_time, d.begin_time);
  v("warn_signal", j.warn_signal, d.warn_signal);
  v("warn_time_s", j.warn_time_s, d.warn_time_s);
  v("warn_batch_only", j.warn_batch_only, d.warn_batch_only);
  v("warn_sent", j.warn_sent, d.warn_sent);
  v("state", j.state, d.state);
  v("reason", j.reason, d.reason);
  v("reason_detail", j.reason_detail, d.reason_detail);
  v("submit_time", j.submit_time, d.submit_time);
  v("eligible_time", j.eligible_time, d.eligible_time);
  v("start_time", j.start_time, d.start_time);
  v("expected_start", j.expected_start, d.expected_start);
  v("sched_nodes", j.sched_nodes, d.sched_nodes);
  v("end_time", j.end_time, d.end_time);
  v("exit_code", j.exit_code, d.exit_code);
  v("exit_signal", j.exit_signal, d.exit_signal);
  v("restart_count", j.restart_count, d.restart_count);
  v("lost_launches", j.lost_launches, d.lost_launches);
  v("allocation", j.allocation, d.allocation,
    [](auto& sub, auto& a, const NodeAllocation& ad) { AllocationFields(sub, a, ad); });
  v("batch_host", j.batch_host, d.batch_host);
  v("ending", j.ending, d.ending);
  v("kill_at", j.kill_at, d.kill_at);
  v("cancelled_by", j.cancelled_by, d.cancelled_by);
  v("preempted_by", j.preempted_by, d.preempted_by);
  v("preempt_time", j.preempt_time, d.preempt_time);
  v("preempt_reason", j.preempt_reason, d.preempt_reason);
  v("preemptions", j.preemptions, d.preemptions,
    [](auto& sub, auto& p, const PreemptionEvent& pd) { PreemptionFields(sub, p, pd); });
  v("suspend_time", j.suspend_time, d.suspend_time);
  v("suspended_s", j.suspended_s, d.suspended_s);
  v("run_before_s", j.run_before_s, d.run_before_s);
}

}  // namespace record_fields
}  // namespace muster
