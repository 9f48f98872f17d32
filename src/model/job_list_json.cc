#include "model/job_list_json.h"

#include <algorithm>
#include <type_traits>

#include <boost/json.hpp>

#include "model/job_record_fields.h"

namespace muster {

namespace bj = boost::json;

namespace {

bool Skipped(std::string_view key) { return key == "script" || key == "script_args" || key == "environment"; }

// Writes a job's fields: `listed`, the job list's form (the fields that differ from their defaults,
// without the script, its arguments and the environment); else every field, as the full record's
// codec (record_json.cc) writes them.
struct JobWriter {
  bj::object& out;
  bool listed;

  template <typename T>
  void Field(const char* key, const T& value, const T& def) {
    if (listed && (value == def || Skipped(key))) return;
    Put(key, value);
  }
  void Field(const char* key, const JobState& value, const JobState& def) {
    if (!listed || value != def) out.emplace(key, JobStateName(value));
  }
  void Field(const char* key, const SharedText& value, const SharedText&) {
    if (!listed) out.emplace(key, value.str());  // the script: never listed
  }
  template <typename T, typename Fn>
  void Object(const char* key, const T& value, const T& def, Fn fields) {
    if (listed && value == def) return;
    bj::object sub(out.storage());
    JobWriter w{sub, listed};
    fields(w, value, def);
    out.emplace(key, std::move(sub));
  }
  template <typename T, typename Fn>
  void Objects(const char* key, const std::vector<T>& values, const std::vector<T>&, Fn fields) {
    if (listed && values.empty()) return;
    bj::array arr(out.storage());
    for (const T& v : values) {
      bj::object sub(out.storage());
      JobWriter w{sub, listed};
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

// The UTF-8 sequence at s[i]: its length when it is valid (1 to 4); else 0, and in *skip how many
// bytes one U+FFFD replaces, as nlohmann's decoder does: the bytes before the first that does not
// fit (that byte is read again as the start of the next sequence), a stray byte alone, or all that
// is left when the string ends inside a sequence.
size_t Utf8Length(std::string_view s, size_t i, size_t* skip) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    *skip = 1;
    return 0;
  }
  for (size_t k = 1; k < n; ++k) {
    if (i + k >= s.size()) {
      *skip = s.size() - i;
      return 0;
    }
    const unsigned char min = k == 1 ? lo : 0x80, max = k == 1 ? hi : 0xBF;
    if (b(i + k) < min || b(i + k) > max) {
      *skip = k;
      return 0;
    }
  }
  return n;
}

void AppendString(std::string_view s, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else if (size_t skip = 0, n = Utf8Length(s, i, &skip); n == 0) {
          out += "\xEF\xBF\xBD";  // U+FFFD
          i += skip;
          continue;
        } else {
          out.append(s.substr(i, n));
          i += n;
          continue;
        }
    }
    ++i;
  }
  out += '"';
}

void AppendPretty(const bj::value& v, int indent, std::string& out) {
  const std::string pad(static_cast<size_t>(indent) + 2, ' ');
  switch (v.kind()) {
    case bj::kind::object: {
      const bj::object& o = v.get_object();
      if (o.empty()) {
        out += "{}";
        return;
      }
      std::vector<const bj::key_value_pair*> kv;
      kv.reserve(o.size());
      for (const bj::key_value_pair& e : o) kv.push_back(&e);
      std::sort(kv.begin(), kv.end(), [](const auto* a, const auto* b) { return a->key() < b->key(); });
      out += "{\n";
      for (size_t k = 0; k < kv.size(); ++k) {
        out += pad;
        AppendString(kv[k]->key(), out);
        out += ": ";
        AppendPretty(kv[k]->value(), indent + 2, out);
        out += k + 1 < kv.size() ? ",\n" : "\n";
      }
      out.append(static_cast<size_t>(indent), ' ');
      out += '}';
      return;
    }
    case bj::kind::array: {
      const bj::array& a = v.get_array();
      if (a.empty()) {
        out += "[]";
        return;
      }
      out += "[\n";
      for (size_t k = 0; k < a.size(); ++k) {
        out += pad;
        AppendPretty(a[k], indent + 2, out);
        out += k + 1 < a.size() ? ",\n" : "\n";
      }
      out.append(static_cast<size_t>(indent), ' ');
      out += ']';
      return;
    }
    case bj::kind::string:
      AppendString(v.get_string(), out);
      return;
    default:
      out += bj::serialize(v);  // numbers, booleans, null
  }
}

bj::object JobObject(const JobRecord& job, bool listed, bj::storage_ptr sp) {
  static const JobRecord kDefault;
  bj::object o(std::move(sp));
  JobWriter w{o, listed};
  record_fields::JobRecordFields(w, job, kDefault);
  return o;
}

// {"jobs": [job, ...]}.
bj::object JobsObject(const std::vector<JobRecord>& jobs, bool listed, const bj::storage_ptr& sp) {
  bj::array arr(sp);
  arr.reserve(jobs.size());
  for (const JobRecord& j : jobs) arr.emplace_back(JobObject(j, listed, sp));
  bj::object root(sp);
  root.emplace("jobs", std::move(arr));
  return root;
}

}  // namespace

std::string JobRecordsPrettyJson(const std::vector<JobRecord>& jobs) {
  bj::monotonic_resource mr;
  std::string out;
  out.reserve(jobs.size() * 2048);
  AppendPretty(JobsObject(jobs, /*listed=*/false, bj::storage_ptr(&mr)), 0, out);
  return out;
}

JobRecord ListedJob(const JobRecord& job) {
  JobRecord out;
  ListedCopy copy;
  record_fields::JobRecordFields(copy, out, job);
  return out;
}

boost::json::object ListedJobObject(const JobRecord& job, boost::json::storage_ptr sp) {
  return JobObject(job, /*listed=*/true, std::move(sp));
}

StatusOr<JobRecord> ListedJobFromObject(const boost::json::object& o, const std::string& what) {
  static const JobRecord kDefault;
  Status status;
  JobRecord r;
  ListReader reader(o, what, &status);
  record_fields::JobRecordFields(reader, r, kDefault);
  if (!status.ok()) return status;
  return r;
}

std::string JobListJson(const std::vector<JobRecord>& jobs) {
  bj::monotonic_resource mr;
  return bj::serialize(JobsObject(jobs, /*listed=*/true, bj::storage_ptr(&mr)));
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
  size_t i = 0;
  for (const bj::value& v : jobs->get_array()) {
    const std::string what = "jobs[" + std::to_string(i++) + "]";
    if (!v.is_object()) return InvalidArgument(what + ": expected a JSON object");
    ASSIGN_OR_RETURN(JobRecord r, ListedJobFromObject(v.get_object(), what));
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace muster
