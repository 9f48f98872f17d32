// For tests: a read-only view of parsed JSON that reads like a document ("j["caller"]["via"] ==
// "unix""): a missing key or a key of a non-object is null, comparisons take plain C++ values.
// Tests only (the code reads JSON through its codecs: wire/codec.h, model/record_json.h).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/json.hpp>

namespace muster::test_json {

struct Json {
  boost::json::value v;

  Json() = default;
  Json(boost::json::value x) : v(std::move(x)) {}  // NOLINT: implicit on purpose

  Json operator[](std::string_view key) const {
    const boost::json::object* o = v.if_object();
    const boost::json::value* x = o == nullptr ? nullptr : o->if_contains(key);
    return x == nullptr ? Json() : Json(*x);
  }
  Json operator[](std::size_t i) const {
    const boost::json::array* a = v.if_array();
    return a == nullptr || i >= a->size() ? Json() : Json((*a)[i]);
  }
  Json operator[](int i) const { return (*this)[static_cast<std::size_t>(i)]; }
  bool contains(std::string_view key) const { return v.is_object() && v.get_object().contains(key); }
  std::size_t size() const {
    if (v.is_array()) return v.get_array().size();
    if (v.is_object()) return v.get_object().size();
    return v.is_null() ? 0 : 1;
  }
  bool is_null() const { return v.is_null(); }
  bool is_object() const { return v.is_object(); }
  bool is_array() const { return v.is_array(); }
  bool is_string() const { return v.is_string(); }
  template <class T>
  T get() const {
    return boost::json::value_to<T>(v);
  }
  std::string str() const { return v.is_string() ? std::string(v.get_string()) : std::string(); }

  friend bool operator==(const Json& a, const Json& b) { return a.v == b.v; }
  friend bool operator==(const Json& a, const char* b) { return a.v == boost::json::value(b); }
  friend bool operator==(const Json& a, const std::string& b) { return a.v == boost::json::value(b); }
  template <class T>
    requires(std::is_arithmetic_v<T>)
  friend bool operator==(const Json& a, const T& b) {
    return a.v == boost::json::value(b);
  }
  friend std::ostream& operator<<(std::ostream& os, const Json& j) { return os << j.v; }
};

// `text` parsed; null when it is not JSON.
inline Json Parse(std::string_view text) {
  boost::json::parse_options opt;
  opt.allow_invalid_utf8 = true;
  boost::json::error_code ec;
  boost::json::value v = boost::json::parse(boost::json::string_view(text.data(), text.size()), ec, {}, opt);
  return ec ? Json() : Json(std::move(v));
}

}  // namespace muster::test_json
