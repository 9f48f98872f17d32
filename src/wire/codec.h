// The API's wire codec (docs/api.md): every request and answer that travels between the commands,
// the controller and the agents is a struct that names its keys once,
//
//   struct ExitCode {
//     using WireRecord = void;
//     int exit_code = 0;
//     template <class V, class Self> static void Fields(V& v, Self& s) { v("exit_code", s.exit_code); }
//   };
//
// and Encode/Decode turn it into JSON text and back, through Boost.JSON. The protocol (the visitors,
// External<T>, Custom<T>, Named, Parsed) is base/json_codec.h's, the one the records' codec
// (model/record_json.h) uses too; specializations of External and Custom go in namespace json.
//
// Writers write every key (optionals only when set). Readers keep the default for a missing or null
// key, ignore unknown keys, take integers only as JSON integers in range (a float is the wrong
// type), and fail on the first key of the wrong type: "field 'nice' has the wrong type", with the
// path inside nested records and lists ("field 'running[].job_id' has the wrong type").
#pragma once

#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "base/json_codec.h"
#include "base/status.h"

namespace muster::wire {

namespace bj = boost::json;

using json::Custom;
using json::External;
using json::Named;
using json::Parsed;
using json::Reader;
using json::Record;
using json::VisitFields;
using json::Writer;

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
