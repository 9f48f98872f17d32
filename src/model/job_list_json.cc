#include "model/job_list_json.h"

#include <boost/json.hpp>

#include "model/job_record_fields.h"

namespace muster {

namespace bj = boost::json;

namespace {

bool Skipped(std::string_view key) { return key == "script" || key == "script_args" || key == "environment"; }

// Writes the fields that differ from their defaults.
struct ListWriter {
  bj::object& out;

  template <typename T>
  void Field(const char* key, const T& value, const T& def) {
    if (value == def || Skipped(key)) return;
    Put(key, value);
  }
  void Field(const char* key, const JobState& value, const JobState& def) {
    if (value != def) out.emplace(key, JobStateName(value));
  }
  void Field(const char*, const SharedText&, const SharedText&) {}  // the script: never listed
  template <typename T, typename Fn>
  void Object(const char* key, const T& value, const T& def, Fn fields) {
    if (value == def) return;
    bj::object sub(out.storage());
    ListWriter w{sub};
    fields(w, value, def);
    out.emplace(key, std::move(sub));
  }
  template <typename T, typename Fn>
  void Objects(const char* key, const std::vector<T>& values, const std::vector<T>&, Fn fields) {
    if (values.empty()) return;
    bj::array arr(out.storage());
    for (const T& v : values) {
      bj::object sub(out.storage());
      ListWriter w{sub};
      fields(w, v, T{});
      arr.emplace_back(std::move(sub));
    }
    out.emplace(key, std::move(arr));
  }

 private:
  template <typename T>
  void Put(const char* key, const std::vector<T>& values) {
    bj::array arr(out.storage());
    for (const T& v : values) arr.emplace_back(v);
    out.emplace(key, std::move(arr));
  }
  template <typename T>
  void Put(const char* key, const T& value) {
    out.emplace(key, value);
  }
};

// Reads the fields present; the first error wins and names the field.
class ListReader {
 public:
  ListReader(const bj::object& in, std::string what, Status* status) : in_(in), what_(std::move(what)), status_(status) {}

  template <typename T>
  void Field(const char* key, T& value, const T&) {
    const bj::value* v = Find(key);
    if (v != nullptr && !Read(*v, value)) Fail(key);
  }
  void Field(const char* key, JobState& value, const JobState&) {
    const bj::value* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_string()) return Fail(key);
    StatusOr<JobState> st = ParseJobState(std::string(v->get_string()));
    if (!st.ok()) return SetError(st.status().WithPrefix(what_ + "." + key));
    value = *st;
  }
  void Field(const char* key, SharedText& value, const SharedText&) {  // not listed, but kept if given
    std::string text;
    const bj::value* v = Find(key);
    if (v == nullptr) return;
    if (!Read(*v, text)) return Fail(key);
    value = std::move(text);
  }
  template <typename T, typename Fn>
  void Object(const char* key, T& value, const T& def, Fn fields) {
    const bj::value* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_object()) return Fail(key);
    ListReader r(v->get_object(), what_ + "." + key, status_);
    fields(r, value, def);
  }
  template <typename T, typename Fn>
  void Objects(const char* key, std::vector<T>& values, const std::vector<T>&, Fn fields) {
    const bj::value* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_array()) return Fail(key);
    for (const bj::value& e : v->get_array()) {
      if (!e.is_object()) return Fail(key);
      T item{};
      ListReader r(e.get_object(), what_ + "." + key + "[]", status_);
      fields(r, item, T{});
      if (!status_->ok()) return;
      values.push_back(std::move(item));
    }
  }

 private:
  const bj::value* Find(const char* key) const {
    if (!status_->ok()) return nullptr;
    const bj::value* v = in_.if_contains(key);
    return v == nullptr || v->is_null() ? nullptr : v;
  }
  void Fail(const char* key) { SetError(InvalidArgument(what_ + "." + key + ": wrong type")); }
  void SetError(Status s) {
    if (status_->ok()) *status_ = std::move(s);
  }

  template <typename T>
  static bool ReadInt(const bj::value& v, T& out) {
    bj::error_code ec;
    if (!v.is_int64() && !v.is_uint64()) return false;
    T x = v.to_number<T>(ec);
    if (ec) return false;
    out = x;
    return true;
  }
  static bool Read(const bj::value& v, int64_t& out) { return ReadInt(v, out); }
  static bool Read(const bj::value& v, int& out) { return ReadInt(v, out); }
  static bool Read(const bj::value& v, uint32_t& out) { return ReadInt(v, out); }
  static bool Read(const bj::value& v, bool& out) {
    if (!v.is_bool()) return false;
    out = v.get_bool();
    return true;
  }
  static bool Read(const bj::value& v, std::string& out) {
    if (!v.is_string()) return false;
    out.assign(v.get_string().data(), v.get_string().size());
    return true;
  }
  template <typename T>
  static bool Read(const bj::value& v, std::vector<T>& out) {
    if (!v.is_array()) return false;
    out.clear();
    out.reserve(v.get_array().size());
    for (const bj::value& e : v.get_array()) {
      T x{};
      if (!Read(e, x)) return false;
      out.push_back(std::move(x));
    }
    return true;
  }

  const bj::object& in_;
  std::string what_;
  Status* status_;
};

// Copies every field of `from` but the skipped ones (visited with `from` as the "default").
struct ListedCopy {
  template <typename T>
  void Field(const char* key, T& to, const T& from) {
    if (!Skipped(key)) to = from;
  }
  template <typename T, typename Fn>
  void Object(const char*, T& to, const T& from, Fn) {
    to = from;
  }
  template <typename T, typename Fn>
  void Objects(const char*, std::vector<T>& to, const std::vector<T>& from, Fn) {
    to = from;
  }
};

}  // namespace

JobRecord ListedJob(const JobRecord& job) {
  JobRecord out;
  ListedCopy copy;
  record_fields::JobRecordFields(copy, out, job);
  return out;
}

std::string JobListJson(const std::vector<JobRecord>& jobs) {
  bj::monotonic_resource mr;
  bj::storage_ptr sp(&mr);
  bj::array arr(sp);
  arr.reserve(jobs.size());
  static const JobRecord kDefault;
  for (const JobRecord& j : jobs) {
    bj::object o(sp);
    ListWriter w{o};
    record_fields::JobRecordFields(w, j, kDefault);
    arr.emplace_back(std::move(o));
  }
  bj::object root(sp);
  root.emplace("jobs", std::move(arr));
  return bj::serialize(root);
}

StatusOr<std::vector<JobRecord>> ParseJobListJson(std::string_view text) {
  bj::monotonic_resource mr;
  bj::error_code ec;
  bj::parse_options opt;
  opt.allow_invalid_utf8 = true;  // names are the users' bytes; the writer does not check them either
  bj::value root = bj::parse(bj::string_view(text.data(), text.size()), ec, bj::storage_ptr(&mr), opt);
  if (ec) return InvalidArgument("job list: malformed JSON: " + ec.message());
  const bj::value* jobs = root.is_object() ? root.get_object().if_contains("jobs") : nullptr;
  if (jobs == nullptr || !jobs->is_array()) return InvalidArgument("job list: expected {\"jobs\": [...]}");
  std::vector<JobRecord> out;
  out.reserve(jobs->get_array().size());
  static const JobRecord kDefault;
  Status status;
  size_t i = 0;
  for (const bj::value& v : jobs->get_array()) {
    if (!v.is_object()) return InvalidArgument("jobs[" + std::to_string(i) + "]: expected a JSON object");
    JobRecord r;
    ListReader reader(v.get_object(), "jobs[" + std::to_string(i) + "]", &status);
    record_fields::JobRecordFields(reader, r, kDefault);
    if (!status.ok()) return status;
    out.push_back(std::move(r));
    ++i;
  }
  return out;
}

}  // namespace muster
