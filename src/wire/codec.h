// The API's wire codec (docs/api.md): every request and answer that travels between the commands,
// the controller and the agents is a struct that names its keys once,
//
//   struct ExitCode {
//     using WireRecord = void;
//     int exit_code = 0;
//     template <class V, class Self> static void Fields(V& v, Self& s) { v("exit_code", s.exit_code); }
//   };
//
// and Encode/Decode turn it into JSON text and back, through Boost.JSON. `Self` is `const T` when
// writing and `T` when reading, so one list of keys serves both.
//
// Writers write every key (optionals only when set). Readers keep the default for a missing or null
// key, ignore unknown keys, take integers only as JSON integers in range (a float is the wrong
// type), and fail on the first key of the wrong type: "field 'nice' has the wrong type", with the
// path inside nested records and lists ("field 'running[].job_id' has the wrong type").
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include "base/status.h"

namespace muster::wire {

namespace bj = boost::json;

// A type defined outside this layer (in model) names its keys by specializing External:
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

class Writer {
 public:
  explicit Writer(bj::object& out) : out_(out) {}

  template <class T>
  void operator()(const char* key, const T& value) {
    out_.insert_or_assign(key, ToValue(value, out_.storage()));
  }
  template <class T>
  void operator()(const char* key, const std::optional<T>& value) {
    if (value) (*this)(key, *value);
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
  static bj::value ToValue(const T& value, const bj::storage_ptr& sp) {
    if constexpr (Custom<T>::value) {
      return Custom<T>::Write(value, sp);
    } else if constexpr (Record<T>) {
      bj::object o(sp);
      Writer w(o);
      VisitFields<T>(w, value);
      return o;
    } else if constexpr (std::is_same_v<T, std::string>) {
      return bj::string(value, sp);
    } else if constexpr (std::is_same_v<T, bool> || std::is_arithmetic_v<T>) {
      return bj::value(value, sp);
    } else if constexpr (requires { typename T::mapped_type; }) {  // std::map<std::string, V>
      bj::object o(sp);
      for (const auto& [k, v] : value) o.insert_or_assign(k, ToValue(v, sp));
      return o;
    } else if constexpr (requires { typename T::first_type; }) {  // a pair: [first, second]
      bj::array a(sp);
      a.emplace_back(ToValue(value.first, sp));
      a.emplace_back(ToValue(value.second, sp));
      return a;
    } else {  // a vector
      bj::array a(sp);
      a.reserve(value.size());
      for (const auto& v : value) a.emplace_back(ToValue(v, sp));
      return a;
    }
  }

 private:
  bj::object& out_;
};

class Reader {
 public:
  Reader(const bj::object& in, std::string path, Status* status) : in_(in), path_(std::move(path)), status_(status) {}

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
    if (!x.ok()) return SetError(InvalidArgument("field '" + path_ + key + "': " + x.status().message()));
    parsed.value = std::move(*x);
  }

  // Reads `v` into `out`; false when it has the wrong type (a nested error is already set).
  template <class T>
  bool Read(const bj::value& v, T& out, const std::string& path) {
    if constexpr (Custom<T>::value) {
      Status st = Custom<T>::Read(v, out, path);
      if (!st.ok()) SetError(std::move(st));
      return true;
    } else if constexpr (Record<T>) {
      if (!v.is_object()) return false;
      Reader r(v.get_object(), path + ".", status_);
      VisitFields<T>(r, out);
      return true;
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!v.is_string()) return false;
      out.assign(v.get_string().data(), v.get_string().size());
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

 private:
  const bj::value* Find(const char* key) const {
    if (!status_->ok()) return nullptr;
    const bj::value* v = in_.if_contains(key);
    return v == nullptr || v->is_null() ? nullptr : v;
  }
  void Fail(const char* key) { SetError(InvalidArgument("field '" + path_ + key + "' has the wrong type")); }
  void SetError(Status s) {
    if (status_->ok()) *status_ = std::move(s);
  }

  const bj::object& in_;
  std::string path_;  // "" at the top, "running[]." inside a list's records
  Status* status_;
};

// A record as a JSON object (to embed in a larger answer), and as text.
template <Record T>
bj::object ToObject(const T& value, bj::storage_ptr sp = {}) {
  bj::object o(std::move(sp));
  Writer w(o);
  VisitFields<T>(w, value);
  return o;
}
template <Record T>
std::string Encode(const T& value) {
  return bj::serialize(ToObject(value));
}

// A record from a JSON object already parsed.
template <Record T>
StatusOr<T> FromValue(const bj::value& v) {
  if (!v.is_object()) return InvalidArgument("expected a JSON object");
  T out;
  Status status;
  Reader r(v.get_object(), "", &status);
  VisitFields<T>(r, out);
  if (!status.ok()) return status;
  return out;
}

// JSON text parsed (at most 32 levels deep, as net/json_body.h allows); InvalidArgument naming
// `what` when it is not JSON or nests deeper.
StatusOr<bj::value> ParseValue(std::string_view text, std::string_view what = "request body");

// A record from JSON text: "request body is not valid JSON", "expected a JSON object", or the
// first key of the wrong type.
template <Record T>
StatusOr<T> Decode(std::string_view text, std::string_view what = "request body") {
  ASSIGN_OR_RETURN(const bj::value v, ParseValue(text, what));
  return FromValue<T>(v);
}

}  // namespace muster::wire
