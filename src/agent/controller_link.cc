#include "agent/controller_link.h"

#include <utility>

#include "base/log.h"
#include "net/json_body.h"
#include "net/url.h"

namespace muster {

ControllerLink::ControllerLink(std::vector<std::string> addresses, int timeout_ms, HttpClient::TokenSource tokens)
    : addresses_(std::move(addresses)), timeout_ms_(timeout_ms), tokens_(std::move(tokens)) {
  if (addresses_.empty()) addresses_.push_back("");
  logged_.resize(addresses_.size());
}

StatusOr<std::string> ControllerLink::Post(const std::string& target, const std::string& body) {
  StatusOr<std::string> answer = Status(StatusCode::kUnavailable, "no controller address");
  std::string unreachable;  // the first address this call could not reach
  for (size_t tries = 0; tries < addresses_.size(); ++tries) {
    bool move_on = false;
    // The next controller is told which one could not be reached: a standby counts the agents
    // cut off from the leader (ctld/agent_reach.h).
    const std::string here = unreachable.empty() ? target
                                                 : target + (target.find('?') == std::string::npos ? "?" : "&") +
                                                       "unreachable=" + PercentEncode(unreachable);
    answer = PostHere(here, body, &move_on);
    if (!move_on || addresses_.size() == 1) break;
    // A transport failure (refused, timed out, a kept connection broken), not a standby's 503.
    if (unreachable.empty() && !standby_) unreachable = current();
    MoveOn(answer.status().message());
  }
  return answer;
}

StatusOr<std::string> ControllerLink::PostHere(const std::string& target, const std::string& body, bool* move_on) {
  standby_ = false;
  if (!http_) {
    StatusOr<std::unique_ptr<HttpClient>> c = current().starts_with("unix:") || !tokens_.next
                                                  ? HttpClient::Connect(current(), "", timeout_ms_)
                                                  : HttpClient::Connect(current(), tokens_, timeout_ms_);
    if (!c.ok()) {
      *move_on = true;
      return c.status();
    }
    http_ = std::move(*c);
  }
  StatusOr<HttpResponse> resp = http_->Request("POST", target, body);
  if (!resp.ok()) {
    http_.reset();
    *move_on = true;
    return resp.status();
  }
  const std::string msg = resp->status == 200 ? "" : ErrorMessageOf(resp->body, resp->body);
  if (resp->status == 503 && addresses_.size() > 1) {
    // A standby (or a controller that lost its lease): the leader is elsewhere.
    *move_on = true;
    standby_ = true;
    return Status(StatusCode::kUnavailable, "HTTP 503: " + msg);
  }
  logged_[index_].clear();  // it answers
  if (resp->status == 200) return std::move(resp->body);
  return Status(resp->status == 404 ? StatusCode::kNotFound
                                    : (resp->status == 409 ? StatusCode::kFailedPrecondition : StatusCode::kInternal),
                msg);
}

void ControllerLink::MoveOn(const std::string& why) {
  http_.reset();
  const size_t from = index_;
  index_ = (index_ + 1) % addresses_.size();
  ++switches_;
  if (logged_[from] == why) return;  // said already, this outage
  logged_[from] = why;
  std::string what = why;  // the transport's "cannot connect to A: ..." names A already
  if (const std::string prefix = "cannot connect to " + addresses_[from] + ": "; what.rfind(prefix, 0) == 0) {
    what = what.substr(prefix.size());
  }
  LogWarning("controller at " + addresses_[from] + ": " + what + "; trying " + addresses_[index_]);
}

}  // namespace muster
