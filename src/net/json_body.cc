#include "net/json_body.h"

#include <string>

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

StatusOr<nlohmann::json> ParseJson(std::string_view text, std::string_view what, int max_depth) {
  if (JsonNestingDepth(text, max_depth) > max_depth) {
    return InvalidArgument(std::string(what) + " nests deeper than " + std::to_string(max_depth) + " levels");
  }
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument(std::string(what) + " is not valid JSON");
  return j;
}

StatusOr<nlohmann::json> ParseRequestBody(std::string_view text) {
  if (JsonNestingDepth(text, kMaxJsonDepth) > kMaxJsonDepth) {
    return InvalidArgument("request body nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  std::string bad;
  const auto integers_only = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (event == nlohmann::json::parse_event_t::value && parsed.is_number_float() && bad.empty()) bad = parsed.dump();
    return true;
  };
  nlohmann::json j = nlohmann::json::parse(text, integers_only, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument("request body is not valid JSON");
  if (!bad.empty()) return InvalidArgument("request body holds a number that is not an integer: " + bad);
  if (!j.is_object()) return InvalidArgument("request body is not a JSON object");
  return j;
}

StatusOr<nlohmann::json> ParseJsonObject(std::string_view text, std::string_view what, int max_depth) {
  StatusOr<nlohmann::json> j = ParseJson(text, what, max_depth);
  if (!j.ok()) return j.status();
  if (!j->is_object()) return InvalidArgument(std::string(what) + " is not a JSON object");
  return j;
}

}  // namespace muster

namespace muster {

std::string ErrorMessageOf(std::string_view body, std::string fallback) {
  StatusOr<nlohmann::json> j = ParseJsonObject(body);
  if (j.ok() && j->contains("error") && (*j)["error"].is_string()) return (*j)["error"].get<std::string>();
  return fallback;
}

}  // namespace muster
