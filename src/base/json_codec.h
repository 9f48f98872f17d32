// The one field-visitor protocol for JSON (Boost.JSON), shared by the API's wire types (wire/codec.h)
// and the records' codec (model/record_json.h, model/job_list_json.h): a type names its keys once,
// in one function that both writes and reads them.
//
//   v("exit_code", s.exit_code);                  a key (a scalar, string, list, map, pair, optional,
//                                                 or a record: a type with Fields)
//   v("nice", j.nice, d.nice);                    a key with its default value: a writer that leaves
//                                                 out defaults (WriteOptions) leaves it out when equal
//   v("request", j.request, d.request, fields);   a nested record (or a list of them) whose keys are
//                                                 `fields(sub_visitor, value, default)`
//
// `Self` (the visited value) is `const T` when writing and `T` when reading, so one list of keys
// serves both. A wire struct names its keys in `template <class V, class Self> static void
// Fields(V&, Self&)` and is marked with `using WireRecord = void;`; a type defined elsewhere
// specializes External<T> with that Fields; a type with a codec of its own, Custom<T>; a type written
// as one word (a job's state), Text<T>.
//
// Writers write every key (optionals only when set) unless told otherwise. Readers keep the default
// for a missing or null key, ignore unknown keys, take integers only as JSON integers in range (a
// float is the wrong type), and stop at the first error, which names the key with its path inside
// nested records and lists, in one of two styles (ErrorStyle): the API's "field 'running[].job_id'
// has the wrong type", or the records' "job.allocation[].node: wrong type".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include "base/shared_text.h"
#include "base/status.h"

namespace muster::json {

namespace bj = boost::json;

// A type defined outside its codec's layer names its keys by specializing External:
//   template <> struct External<GpuFault> : std::true_type {
//     template <class V, class Self> static void Fields(V& v, Self& s) { ... }
//   };
template <class T>
struct External : std::false_type {};

template <class T>
concept Record = requires { typename T::WireRecord; } || External<T>::value;

// A type with a codec of its own elsewhere (a job record: model/job_list_json.h) is carried by
// specializing Custom:
//   static bj::value Write(const T&, const bj::storage_ptr&);
//   static Status Read(const bj::value&, T&, const std::string& path);
template <class T>
struct Custom : std::false_type {};

// A type written as one word (a job's state: "RUNNING"), by specializing Text:
//   static const char* Format(const T&);
//   static StatusOr<T> Parse(const std::string&);   // its error is reported under the key's path
template <class T>
struct Text : std::false_type {};

template <class T, class V, class Self>
void VisitFields(V& v, Self& s) {
  if constexpr (External<T>::value) {
    External<T>::Fields(v, s);
  } else {
    T::Fields(v, s);
  }
}

// A key whose value is one of a few names ("condition": "failed" | "needs_reset"): written as the
// name of the value, read back from it (another name is an error listing the valid ones).
template <class T>
struct Named {
  T& value;
  std::initializer_list<std::pair<std::remove_const_t<T>, const char*>> names;
};
template <class T>
Named(T&, std::initializer_list<std::pair<std::remove_const_t<T>, const char*>>) -> Named<T>;

// A key whose value is text that a function reads ("preempt_mode": "REQUEUE"), as Named is for a
// fixed list of names: written as `format(value)`, read back with `parse`, whose error is reported
// under the field's name ("field 'qos[].preempt_mode': invalid preempt mode 'x' (...)").
//   v("preempt_mode", Parsed{s.mode, &ModeText, &ParseMode});
template <class T>
struct Parsed {
  using Value = std::remove_const_t<T>;
  T& value;
  std::string (*format)(const Value&);
  StatusOr<Value> (*parse)(const std::string&);
};
template <class T>
Parsed(T&, std::string (*)(const std::remove_const_t<T>&), StatusOr<std::remove_const_t<T>> (*)(const std::string&))
    -> Parsed<T>;

// How a writer trims a record: the job list leaves out every key still at its default value (a
// missing key reads back as that default) and the keys only the job's own processes need.
struct WriteOptions {
  bool omit_defaults = false;
  std::span<const std::string_view> skip_keys;  // at any depth
};

class Writer {
 public:
  explicit Writer(bj::object& out, const WriteOptions& options = kAll) : out_(out), options_(options) {}

  template <class T>
  void operator()(const char* key, const T& value) {
    if (Skips(key)) return;
    out_.insert_or_assign(key, ToValue(value, out_.storage(), options_));
  }
  template <class T>
  void operator()(const char* key, const std::optional<T>& value) {
    if (value) (*this)(key, *value);
  }
  template <class T>
  void operator()(const char* key, const T& value, const T& def) {
    if (options_.omit_defaults && value == def) return;
    (*this)(key, value);
  }
  template <class T, class Fn>
  void operator()(const char* key, const T& value, const T& def, Fn fields) {
    if ((options_.omit_defaults && value == def) || Skips(key)) return;
    out_.insert_or_assign(key, Nested(value, def, fields));
  }
  template <class T, class Fn>
  void operator()(const char* key, const std::vector<T>& values, const std::vector<T>& def, Fn fields) {
    if ((options_.omit_defaults && values == def) || Skips(key)) return;
    static const T kItemDefault{};
    bj::array arr(out_.storage());
    arr.reserve(values.size());
    for (const T& v : values) arr.emplace_back(Nested(v, kItemDefault, fields));
    out_.insert_or_assign(key, std::move(arr));
  }
  template <class T>
  void operator()(const char* key, Named<T> named) {
    for (const auto& [v, name] : named.names) {
      if (v == named.value) {
        out_.insert_or_assign(key, bj::string(name, out_.storage()));
        return;
      }
    }
  }
  template <class T>
  void operator()(const char* key, Parsed<T> parsed) {
    out_.insert_or_assign(key, bj::string(parsed.format(parsed.value), out_.storage()));
  }

  template <class T>
  static bj::value ToValue(const T& value, const bj::storage_ptr& sp, const WriteOptions& options = kAll) {
    if constexpr (Custom<T>::value) {
      return Custom<T>::Write(value, sp);
    } else if constexpr (Text<T>::value) {
      return bj::string(Text<T>::Format(value), sp);
    } else if constexpr (Record<T>) {
      bj::object o(sp);
      Writer w(o, options);
      VisitFields<T>(w, value);
      return o;
    } else if constexpr (std::is_same_v<T, std::string>) {
      return bj::string(value, sp);
    } else if constexpr (std::is_same_v<T, SharedText>) {
      return bj::string(value.str(), sp);
    } else if constexpr (std::is_same_v<T, bool> || std::is_arithmetic_v<T>) {
      return bj::value(value, sp);
    } else if constexpr (requires { typename T::mapped_type; }) {  // std::map<std::string, V>
      bj::object o(sp);
      for (const auto& [k, v] : value) o.insert_or_assign(k, ToValue(v, sp, options));
      return o;
    } else if constexpr (requires { typename T::first_type; }) {  // a pair: [first, second]
      bj::array a(sp);
      a.emplace_back(ToValue(value.first, sp, options));
      a.emplace_back(ToValue(value.second, sp, options));
      return a;
    } else {  // a vector
      bj::array a(sp);
      a.reserve(value.size());
      for (const auto& v : value) a.emplace_back(ToValue(v, sp, options));
      return a;
    }
  }

 private:
  static constexpr WriteOptions kAll{};

  bool Skips(std::string_view key) const {
    for (std::string_view k : options_.skip_keys) {
      if (k == key) return true;
    }
    return false;
  }
  template <class T, class Fn>
  bj::object Nested(const T& value, const T& def, Fn& fields) const {
    bj::object sub(out_.storage());
    Writer w(sub, options_);
    fields(w, value, def);
    return sub;
  }

  bj::object& out_;
  WriteOptions options_;
};

enum class ErrorStyle {
  kApi,     // "field 'running[].job_id' has the wrong type" (the wire types)
  kRecord,  // "job.allocation[].node: wrong type" (the records, stored and listed)
};

class Reader {
 public:
  // `path`: the keys' prefix in errors, "" at the top of a request, "job." for a record.
  Reader(const bj::object& in, std::string path, Status* status, ErrorStyle style = ErrorStyle::kApi)
      : in_(in), path_(std::move(path)), status_(status), style_(style) {}

  template <class T>
  void operator()(const char* key, T& value) {
    const bj::value* v = Find(key);
    if (v != nullptr && !Read(*v, value, path_ + key)) Fail(key);
  }
  template <class T>
  void operator()(const char* key, std::optional<T>& value) {
    const bj::value* v = Find(key);
    if (v == nullptr) return;
    T x{};
    if (!Read(*v, x, path_ + key)) return Fail(key);
    value = std::move(x);
  }
  template <class T>
  void operator()(const char* key, T& value, const T&) {
    (*this)(key, value);
  }
  template <class T, class Fn>
  void operator()(const char* key, T& value, const T& def, Fn fields) {
    const bj::value* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_object()) return Fail(key);
    Reader r(v->get_object(), path_ + key + ".", status_, style_);
    fields(r, value, def);
  }
  template <class T, class Fn>
  void operator()(const char* key, std::vector<T>& values, const std::vector<T>&, Fn fields) {
    const bj::value* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_array()) return Fail(key);
    static const T kItemDefault{};
    const std::string item_path = path_ + key + "[].";
    values.clear();
    for (const bj::value& e : v->get_array()) {
      if (!e.is_object()) return Fail(key);
      T item{};
      Reader r(e.get_object(), item_path, status_, style_);
      fields(r, item, kItemDefault);
      if (!status_->ok()) return;
      values.push_back(std::move(item));
    }
  }
  template <class T>
  void operator()(const char* key, Named<T> named) {
    const bj::value* v = Find(key);
    if (v == nullptr) return;
    if (v->is_string()) {
      for (const auto& [x, name] : named.names) {
        if (v->get_string() == name) {
          named.value = x;
          return;
        }
      }
    }
    std::string list;
    for (const auto& [x, name] : named.names) list += std::string(list.empty() ? "" : ", ") + "\"" + name + "\"";
    SetError(InvalidArgument("field '" + path_ + key + "' must be one of " + list));
  }
  template <class T>
  void operator()(const char* key, Parsed<T> parsed) {
    const bj::value* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_string()) return Fail(key);
    StatusOr<typename Parsed<T>::Value> x = parsed.parse(std::string(v->get_string()));
    if (!x.ok()) return SetError(Invalid(path_ + key, x.status()));
    parsed.value = std::move(*x);
  }

  // Reads `v` into `out`; false when it has the wrong type (a nested error is already set).
  template <class T>
  bool Read(const bj::value& v, T& out, const std::string& path) {
    if constexpr (Custom<T>::value) {
      Status st = Custom<T>::Read(v, out, path);
      if (!st.ok()) SetError(std::move(st));
      return true;
    } else if constexpr (Text<T>::value) {
      if (!v.is_string()) return false;
      StatusOr<T> x = Text<T>::Parse(std::string(v.get_string()));
      if (!x.ok()) {
        SetError(Invalid(path, x.status()));
      } else {
        out = std::move(*x);
      }
      return true;
    } else if constexpr (Record<T>) {
      if (!v.is_object()) return false;
      Reader r(v.get_object(), path + ".", status_, style_);
      VisitFields<T>(r, out);
      return true;
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!v.is_string()) return false;
      out.assign(v.get_string().data(), v.get_string().size());
      return true;
    } else if constexpr (std::is_same_v<T, SharedText>) {
      if (!v.is_string()) return false;
      out = std::string(v.get_string().data(), v.get_string().size());
      return true;
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!v.is_bool()) return false;
      out = v.get_bool();
      return true;
    } else if constexpr (std::is_integral_v<T>) {
      if (!v.is_int64() && !v.is_uint64()) return false;
      bj::error_code ec;
      const T x = v.to_number<T>(ec);
      if (ec) return false;
      out = x;
      return true;
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!v.is_number()) return false;
      bj::error_code ec;
      out = v.to_number<T>(ec);
      return !ec;
    } else if constexpr (requires { typename T::mapped_type; }) {
      if (!v.is_object()) return false;
      out.clear();
      for (const auto& kv : v.get_object()) {
        typename T::mapped_type x{};
        if (!Read(kv.value(), x, path + "." + std::string(kv.key()))) return false;
        out.emplace(std::string(kv.key()), std::move(x));
      }
      return true;
    } else if constexpr (requires { typename T::first_type; }) {
      if (!v.is_array() || v.get_array().size() != 2) return false;
      return Read(v.get_array()[0], out.first, path) && Read(v.get_array()[1], out.second, path);
    } else {
      if (!v.is_array()) return false;
      out.clear();
      out.reserve(v.get_array().size());
      for (const bj::value& e : v.get_array()) {
        typename T::value_type x{};
        if (!Read(e, x, path + "[]")) return false;
        if (!status_->ok()) return true;  // a nested error, already named
        out.push_back(std::move(x));
      }
      return true;
    }
  }

  // The value under `key` (nullptr when missing or null, or after an error), for keys read by hand.
  const bj::value* Find(const char* key) const {
    if (!status_->ok()) return nullptr;
    const bj::value* v = in_.if_contains(key);
    return v == nullptr || v->is_null() ? nullptr : v;
  }

 private:
  void Fail(const char* key) {
    const std::string path = path_ + key;
    SetError(InvalidArgument(style_ == ErrorStyle::kApi ? "field '" + path + "' has the wrong type"
                                                        : path + ": wrong type"));
  }
  Status Invalid(const std::string& path, const Status& st) const {
    if (style_ == ErrorStyle::kApi) return InvalidArgument("field '" + path + "': " + st.message());
    return st.WithPrefix(path);
  }
  void SetError(Status s) {
    if (status_->ok()) *status_ = std::move(s);
  }

  const bj::object& in_;
  std::string path_;  // "" at the top, "running[]." inside a list's records
  Status* status_;
  ErrorStyle style_;
};

}  // namespace muster::json
