// Router and the small, Beast-free parts of http.h.
#include <boost/json.hpp>

#include "base/pretty_json.h"

#include <chrono>
#include <set>
#include <string_view>

#include "net/http.h"
#include "net/url.h"

namespace muster {
namespace {

// "/v1/jobs/7/" -> {"v1", "jobs", "7"}; empty segments are dropped, so a trailing slash is ignored.
std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> parts;
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    if (!part.empty()) parts.emplace_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

bool IsParam(const std::string& part) { return part.size() >= 2 && part.front() == '{' && part.back() == '}'; }

}  // namespace

HttpResponse HttpResponse::Error(int status, const std::string& message) {
  // Invalid UTF-8 in the message (e.g. from a path) is replaced by U+FFFD.
  return Json(status, PrettyJson(boost::json::object{{"error", message}}, -1));
}

void Router::Add(const std::string& method, const std::string& pattern, int64_t body_limit, HttpHandler handler) {
  routes_.push_back(Route{method, SplitPath(pattern), std::move(handler), pattern, body_limit});
}

const Router::Route* Router::Match(std::string_view method, const std::vector<std::string>& parts,
                                   std::set<std::string>* allowed) const {
  const Route* best = nullptr;
  int best_literals = -1;
  for (const Route& route : routes_) {
    if (route.parts.size() != parts.size()) continue;
    int literals = 0;
    bool match = true;
    for (size_t i = 0; i < parts.size() && match; ++i) {
      if (IsParam(route.parts[i])) continue;
      match = route.parts[i] == parts[i];
      ++literals;
    }
    if (!match) continue;
    if (route.method != method) {
      if (allowed != nullptr) allowed->insert(route.method);
      continue;
    }
    // The most specific pattern wins: "/v1/jobs/stats" over "/v1/jobs/{id}"; ties go to the first added.
    if (literals > best_literals) {
      best = &route;
      best_literals = literals;
    }
  }
  return best;
}

int64_t Router::BodyLimit(std::string_view method, std::string_view path) const {
  if (const Route* route = Match(method, SplitPath(path), nullptr)) return route->body_limit;
  return unrouted_ ? unrouted_(method, path) : kDefaultBodyLimit;
}

std::vector<Router::RouteInfo> Router::Routes() const {
  std::vector<RouteInfo> routes;
  for (const Route& r : routes_) routes.push_back(RouteInfo{r.method, r.pattern, r.body_limit});
  return routes;
}

HttpResponse Router::Handle(const HttpRequest& request) const {
  const std::vector<std::string> parts = SplitPath(request.path);
  std::set<std::string> allowed;
  const Route* best = Match(request.method, parts, &allowed);
  if (best == nullptr) {
    if (allowed.empty()) return HttpResponse::Error(404, "no such path: " + request.path);
    std::string list;
    for (const std::string& m : allowed) list += list.empty() ? m : ", " + m;
    return HttpResponse::Error(405, "method " + request.method + " is not allowed on " + request.path +
                                        " (allowed: " + list + ")");
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = best->parts[i];
    if (IsParam(part)) request.params[part.substr(1, part.size() - 2)] = PercentDecode(parts[i]);
  }
  if (!observer_) return best->handler(request);
  const auto began = std::chrono::steady_clock::now();
  HttpResponse response = best->handler(request);
  observer_(request, best->pattern,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  return response;
}

}  // namespace muster
