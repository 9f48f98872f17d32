#include "net/json_body.h"

#include <optional>
#include <string>
#include <utility>

#include <boost/json.hpp>

#include "base/pretty_json.h"

namespace muster {

int JsonNestingDepth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > deepest) {
          deepest = depth;
          if (deepest > limit) return limit + 1;
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return deepest;
}

namespace {

namespace bj = boost::json;

// The first floating-point number in `v`, in the order of the text (objects keep their keys'
// order); nullptr when it holds integers only.
const bj::value* FirstDouble(const bj::value& v) {
  switch (v.kind()) {
    case bj::kind::double_:
      return &v;
    case bj::kind::array:
      for (const bj::value& e : v.get_array()) {
        if (const bj::value* d = FirstDouble(e)) return d;
      }
      return nullptr;
    case bj::kind::object:
      for (const bj::key_value_pair& e : v.get_object()) {
        if (const bj::value* d = FirstDouble(e.value())) return d;
      }
      return nullptr;
    default:
      return nullptr;
  }
}

// `text` parsed once its nesting is known to be within `max_depth`; nullopt when it is not JSON.
std::optional<bj::value> Parse(std::string_view text, int max_depth) {
  bj::parse_options opt;
  opt.max_depth = static_cast<std::size_t>(max_depth) + 1;  // already counted: never reached
  opt.allow_invalid_utf8 = true;
  bj::error_code ec;
  bj::value v = bj::parse(bj::string_view(text.data(), text.size()), ec, {}, opt);
  if (ec) return std::nullopt;
  return v;
}

}  // namespace

StatusOr<bj::value> ParseJson(std::string_view text, std::string_view what, int max_depth) {
  if (JsonNestingDepth(text, max_depth) > max_depth) {
    return InvalidArgument(std::string(what) + " nests deeper than " + std::to_string(max_depth) + " levels");
  }
  std::optional<bj::value> v = Parse(text, max_depth);
  if (!v) return InvalidArgument(std::string(what) + " is not valid JSON");
  return std::move(*v);
}

StatusOr<bj::value> ParseRequestBody(std::string_view text) {
  ASSIGN_OR_RETURN(bj::value v, ParseJson(text, "request body", kMaxJsonDepth));
  if (const bj::value* d = FirstDouble(v)) {
    return InvalidArgument("request body holds a number that is not an integer: " + JsonDoubleText(d->get_double()));
  }
  if (!v.is_object()) return InvalidArgument("request body is not a JSON object");
  return v;
}

StatusOr<bj::value> ParseJsonObject(std::string_view text, std::string_view what, int max_depth) {
  ASSIGN_OR_RETURN(bj::value v, ParseJson(text, what, max_depth));
  if (!v.is_object()) return InvalidArgument(std::string(what) + " is not a JSON object");
  return v;
}

std::string ErrorMessageOf(std::string_view body, std::string fallback) {
  StatusOr<bj::value> j = ParseJsonObject(body);
  if (!j.ok()) return fallback;
  const bj::value* e = j->get_object().if_contains("error");
  if (e != nullptr && e->is_string()) return std::string(e->get_string());
  return fallback;
}

}  // namespace muster
