// A submission's wire form (POST /v1/jobs), shared by the commands that submit (sbatch, salloc,
// srun) and the controller's route: the keys of model/job_spec.h's records, named once, and the
// answer.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "model/job_array.h"
#include "model/job_record_fields.h"
#include "model/job_spec.h"
#include "wire/codec.h"

namespace muster {

// The keys of a submission and of sbatch --test-only's answer (model/job_spec.h).
namespace json {

// A job array's tasks on the wire: their text ("0-9%2"), parsed when read (model/job_array.h;
// at most MaxArraySize ids, so a body cannot make it hold more).
template <>
struct Text<ArraySpec> : std::true_type {
  static std::string Format(const ArraySpec& a) { return ArraySpecText(a); }
  static StatusOr<ArraySpec> Parse(const std::string& text) {
    if (text.empty()) return ArraySpec{};
    return ParseArraySpec(text);
  }
};

// A job's resources: the keys of a job record's "request" (model/job_record_fields.h).
template <>
struct External<JobRequest> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    static const JobRequest kDefaults;
    record_fields::JobRequestFields(v, s, kDefaults);
  }
};

template <>
struct External<HetComponentSpec> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("resources", s.resources);
    v("resource_args", s.submit_args);
    v("account", s.account);
    v("qos", s.qos);
  }
};

template <>
struct External<JobSpec> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("resources", s.resources);
    v("resource_args", s.submit_args);
    v("name", s.name);
    v("script", s.script);
    v("script_args", s.script_args);
    v("workdir", s.workdir);
    v("environment", s.environment);
    v("stdout", s.stdout_pattern);
    v("stderr", s.stderr_pattern);
    v("stdin", s.stdin_path);
    v("account", s.account);
    v("hold", s.hold);
    v("qos", s.qos);
    v("nice", s.nice);
    v("requeue", s.requeue);
    v("submit_host", s.submit_host);
    v("submit_sid", s.submit_sid);
    v("dependency", s.dependency);
    static const JobOptions kOptionDefaults;
    JobOptionsFields(v, s.options, kOptionDefaults);  // flattened: "comment", ...
    v("array", s.array);
    v("submit_key", s.submit_key);
    v("interactive", s.interactive);
    v("begin_time", s.begin_time);
    v("warn_signal", s.warn_signal);
    v("warn_time_s", s.warn_time_s);
    v("warn_batch_only", s.warn_batch_only);
    v("het_components", s.het_components);
  }
};

template <>
struct External<WillRun> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
    v("start_time", s.start_time);
    v("nodes", s.nodes);
    v("cpus", s.cpus);
    v("partition", s.partition);
  }
};

}  // namespace json

// The answer to a submission: the new job's id (an array's: its first task's).
struct SubmitAnswer {
  using WireRecord = void;
  int64_t job_id = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
  }
};

}  // namespace muster
