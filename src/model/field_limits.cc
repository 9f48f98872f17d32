#include "model/field_limits.h"

#include <algorithm>

namespace muster {

Status TooLong(std::string_view field, size_t bytes, size_t limit) {
  return InvalidArgument("Pathname of a file, directory or other parameter too long: " + std::string(field) + " is " +
                         std::to_string(bytes) + " bytes, at most " + std::to_string(limit));
}

Status CheckLength(std::string_view field, std::string_view value, size_t limit) {
  return value.size() > limit ? TooLong(field, value.size(), limit) : Status::Ok();
}

Status CheckList(std::string_view one, std::string_view all_name, bool by_name, const std::vector<std::string>& values,
                 size_t each, size_t all) {
  constexpr size_t kShownName = 64;  // a variable's name, shortened in the message
  size_t total = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string& v = values[i];
    if (v.size() > each) {
      const size_t eq = by_name ? v.find('=') : std::string::npos;
      const std::string which = eq != std::string::npos && eq > 0
                                    ? v.substr(0, std::min(eq, kShownName)) + (eq > kShownName ? "..." : "")
                                    : std::to_string(i + 1);
      return TooLong(std::string(one) + " " + which, v.size(), each);
    }
    total += v.size();
  }
  return total > all ? TooLong(std::string(all_name) + " in all", total, all) : Status::Ok();
}

}  // namespace muster
