// The Boost.JSON visitors over a record's fields (model/job_record_fields.h's protocol:
// Field/Object/Objects), shared by the records' codec (record_json.cc) and the job list
// (job_list_json.cc), so that each key is written and read by one piece of code. Internal to the
// model layer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include "base/status.h"
#include "model/job_record.h"

namespace muster::json_fields {

namespace bj = boost::json;

inline bool Skipped(std::string_view key) { return key == "script" || key == "script_args" || key == "environment"; }

// Writes a record's fields: `listed`, the job list's form (the fields that differ from their
// defaults, without the script, its arguments and the environment); else every field, defaults
// too (the stored and wire form keep them, so a reader of any age sees them).
struct Writer {
  bj::object& out;
  bool listed = false;

  template <typename T>
  void Field(const char* key, const T& value, const T& def) {
    if (listed && (value == def || Skipped(key))) return;
    Put(key, value);
  }
  void Field(const char* key, const JobState& value, const JobState& def) {
    if (!listed || value != def) out.insert_or_assign(key, JobStateName(value));
  }
  void Field(const char* key, const SharedText& value, const SharedText&) {
    if (!listed) out.insert_or_assign(key, value.str());  // the script: never listed
  }
  template <typename T, typename Fn>
  void Object(const char* key, const T& value, const T& def, Fn fields) {
    if (listed && value == def) return;
    bj::object sub(out.storage());
    Writer w{sub, listed};
    fields(w, value, def);
    out.insert_or_assign(key, std::move(sub));
  }
  template <typename T, typename Fn>
  void Objects(const char* key, const std::vector<T>& values, const std::vector<T>&, Fn fields) {
    if (listed && values.empty()) return;
    bj::array arr(out.storage());
    arr.reserve(values.size());
    for (const T& v : values) {
      bj::object sub(out.storage());
      Writer w{sub, listed};
      fields(w, v, T{});
      arr.emplace_back(std::move(sub));
    }
    out.insert_or_assign(key, std::move(arr));
  }

  template <typename T>
  static bj::value ToValue(const std::vector<T>& values, const bj::storage_ptr& sp) {
    bj::array arr(sp);
    arr.reserve(values.size());
    for (const T& v : values) arr.emplace_back(ToValue(v, sp));
    return arr;
  }
  static bj::value ToValue(const std::string& s, const bj::storage_ptr& sp) { return bj::string(s, sp); }
  template <typename T>
  static bj::value ToValue(const T& value, const bj::storage_ptr& sp) {
    return bj::value(value, sp);
  }

 private:
  template <typename T>
  void Put(const char* key, const T& value) {
    out.insert_or_assign(key, ToValue(value, out.storage()));
  }
};

// Reads the fields present (a missing or null key keeps the default; unknown keys are ignored);
// the first error wins and names the field: "job.uid: wrong type", "job.allocation[].node: wrong
// type". Integers must be JSON integers in range.
class Reader {
 public:
  Reader(const bj::object& in, std::string what, Status* status) : in_(in), what_(std::move(what)), status_(status) {}

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
  void Field(const char* key, SharedText& value, const SharedText&) {
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
    Reader r(v->get_object(), what_ + "." + key, status_);
    fields(r, value, def);
  }
  template <typename T, typename Fn>
  void Objects(const char* key, std::vector<T>& values, const std::vector<T>&, Fn fields) {
    const bj::value* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_array()) return Fail(key);
    values.clear();
    for (const bj::value& e : v->get_array()) {
      if (!e.is_object()) return Fail(key);
      T item{};
      Reader r(e.get_object(), what_ + "." + key + "[]", status_);
      fields(r, item, T{});
      if (!status_->ok()) return;
      values.push_back(std::move(item));
    }
  }

  // The value under `key` (nullptr when missing or null, or after an error).
  const bj::value* Find(const char* key) const {
    if (!status_->ok()) return nullptr;
    const bj::value* v = in_.if_contains(key);
    return v == nullptr || v->is_null() ? nullptr : v;
  }
  void Fail(const char* key) { SetError(InvalidArgument(what_ + "." + key + ": wrong type")); }
  void SetError(Status s) {
    if (status_->ok()) *status_ = std::move(s);
  }
  const std::string& what() const { return what_; }

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

 private:
  const bj::object& in_;
  std::string what_;
  Status* status_;
};

}  // namespace muster::json_fields
