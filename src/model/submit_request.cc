#include "model/submit_request.h"

namespace muster {
namespace {

using nlohmann::json;

// The keys, once, in the order a reader checks them.
template <class V, class R>
void SubmitFields(V& v, R& r) {
  v("resource_args", r.resource_args);
  v("name", r.name);
  v("script", r.script);
  v("script_args", r.script_args);
  v("workdir", r.workdir);
  v("environment", r.environment);
  v("stdout", r.stdout_pattern);
  v("stderr", r.stderr_pattern);
  v("stdin", r.stdin_path);
  v("account", r.account);
  v("hold", r.hold);
  v("qos", r.qos);
  v("nice", r.nice);
  v("requeue", r.requeue);
  v("submit_host", r.submit_host);
  v("submit_sid", r.submit_sid);
  v("dependency", r.dependency);
  v("comment", r.comment);
  v("array", r.array);
  v("submit_key", r.submit_key);
  v("interactive", r.interactive);
  v("begin_time", r.begin_time);
  v("warn_signal", r.warn_signal);
  v("warn_time_s", r.warn_time_s);
  v("warn_batch_only", r.warn_batch_only);
}

template <class V, class R>
void WillRunFields(V& v, R& r) {
  v("job_id", r.job_id);
  v("start_time", r.start_time);
  v("nodes", r.nodes);
  v("cpus", r.cpus);
  v("partition", r.partition);
}

struct Writer {
  json& out;
  template <typename T>
  void operator()(const char* key, const T& value) {
    out[key] = value;
  }
};

struct Reader {
  const json& in;
  Status status;
  template <typename T>
  void operator()(const char* key, T& value) {
    if (!status.ok() || !in.is_object()) return;
    auto it = in.find(key);
    if (it == in.end() || it->is_null()) return;
    try {
      value = it->template get<T>();
    } catch (const json::exception&) {
      status = InvalidArgument(std::string("field '") + key + "' has the wrong type");
    }
  }
};

template <typename T, typename Fields>
StatusOr<T> Read(const json& body, Fields fields) {
  if (!body.is_object()) return InvalidArgument("expected a JSON object");
  T out;
  Reader r{body, Status::Ok()};
  fields(r, out);
  if (!r.status.ok()) return r.status;
  return out;
}

}  // namespace

json ToJson(const SubmitRequest& request) {
  json out = json::object();
  Writer w{out};
  SubmitFields(w, request);
  return out;
}

json ToJson(const WillRun& answer) {
  json out = json::object();
  Writer w{out};
  WillRunFields(w, answer);
  return out;
}

StatusOr<SubmitRequest> SubmitRequestFromJson(const json& body) {
  return Read<SubmitRequest>(body, [](Reader& r, SubmitRequest& s) { SubmitFields(r, s); });
}

StatusOr<WillRun> WillRunFromJson(const json& body) {
  return Read<WillRun>(body, [](Reader& r, WillRun& w) { WillRunFields(r, w); });
}

}  // namespace muster
