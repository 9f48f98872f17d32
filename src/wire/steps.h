// srun's job steps on the wire: POST /v1/jobs/{id}/steps and its answer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/job_list_json.h"
#include "model/job_record.h"
#include "wire/codec.h"

namespace muster {

// The step's GPUs when srun named them (--gpus, --gpus-per-node, --gpus-per-task; {"per_node": 0}:
// none of the job's).
struct StepGpus {
  using WireRecord = void;
  int per_node = 0;
  int total = 0;
  int per_task = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("per_node", s.per_node);
    v("total", s.total);
    v("per_task", s.per_task);
  }
};

// A step inside a running allocation, as srun asks for it (the controller's StepRequest says
// what each field means). -1 memory: not given.
struct StepCreate {
  using WireRecord = void;
  std::string name;
  int ntasks = 0, nnodes = 0, ntasks_per_node = 0;
  bool overlap = false, exact = false;
  int cpus_per_task = 0;
  bool overcommit = false;
  int64_t mem_mb = -1, mem_per_cpu_mb = -1, mem_per_gpu_mb = -1;
  std::string constraint;
  std::string nodelist;  // srun -w, a hostlist expression
  std::string exclude;   // srun -x
  std::optional<StepGpus> gpus;
  int64_t time_limit_s = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("name", s.name);
    v("ntasks", s.ntasks);
    v("nnodes", s.nnodes);
    v("ntasks_per_node", s.ntasks_per_node);
    v("overlap", s.overlap);
    v("exact", s.exact);
    v("cpus_per_task", s.cpus_per_task);
    v("overcommit", s.overcommit);
    v("mem_mb", s.mem_mb);
    v("mem_per_cpu_mb", s.mem_per_cpu_mb);
    v("mem_per_gpu_mb", s.mem_per_gpu_mb);
    v("constraint", s.constraint);
    v("nodelist", s.nodelist);
    v("exclude", s.exclude);
    v("gpus", s.gpus);
    v("time_limit_s", s.time_limit_s);
  }
};

// One node of a created step: how to reach its agent, the step's task ids there, and the GPUs it
// holds there (unset: srun named none, so the tasks see the job's).
struct StepNode {
  using WireRecord = void;
  std::string name;
  std::string agent_address;
  std::vector<int> tasks;
  std::optional<std::vector<int>> gpus;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("name", s.name);
    v("agent_address", s.agent_address);
    v("tasks", s.tasks);
    v("gpus", s.gpus);
  }
};

// The controller's answer (StepAnswer): the step's id, tasks and nodes, its limits, and the job (in the job
// list's form: the job's own script and environment are not in it).
struct StepAnswer {
  using WireRecord = void;
  int step_id = 0;
  int ntasks = 0;
  int64_t time_limit_s = 0;
  int64_t kill_wait_s = 30;
  std::string warning;
  JobRecord job;
  std::vector<StepNode> nodes;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("step_id", s.step_id);
    v("ntasks", s.ntasks);
    v("time_limit_s", s.time_limit_s);
    v("kill_wait_s", s.kill_wait_s);
    v("warning", s.warning);
    v("job", s.job);
    v("nodes", s.nodes);
  }
};

namespace json {

template <>
struct Custom<JobRecord> : std::true_type {
  static bj::value Write(const JobRecord& job, const bj::storage_ptr& sp) { return ListedJobObject(job, sp); }
  static Status Read(const bj::value& v, JobRecord& job, const std::string& path) {
    if (!v.is_object()) return InvalidArgument("field '" + path + "' has the wrong type");
    StatusOr<JobRecord> r = ListedJobFromObject(v.get_object(), path);
    if (!r.ok()) return r.status();
    job = std::move(*r);
    return Status::Ok();
  }
};

}  // namespace json
}  // namespace muster
