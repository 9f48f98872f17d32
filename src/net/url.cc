#include "net/url.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace muster {

std::map<std::string, std::string> ParseQuery(std::string_view query) {
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    std::string key = PercentDecode(pair.substr(0, eq), true);
    std::string value = eq == std::string_view::npos ? "" : PercentDecode(pair.substr(eq + 1), true);
    out[std::move(key)] = std::move(value);
  }
  return out;
}

std::set<std::string> CommaSet(const std::map<std::string, std::string>& query, const char* key) {
  std::set<std::string> out;
  auto it = query.find(key);
  if (it == query.end()) return out;
  std::string_view rest = it->second;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    if (!item.empty()) out.emplace(item);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

StatusOr<std::optional<int64_t>> QueryEpochSeconds(const std::map<std::string, std::string>& query,
                                                   const char* key) {
  auto it = query.find(key);
  if (it == query.end()) return std::optional<int64_t>();
  char* rest = nullptr;
  errno = 0;
  const long long v = std::strtoll(it->second.c_str(), &rest, 10);
  if (it->second.empty() || *rest != '\0' || v < 0 || errno == ERANGE) {
    return InvalidArgument(std::string(key) + ": expected seconds since the epoch, got '" + it->second + "'");
  }
  return std::optional<int64_t>(v);
}

}  // namespace muster
