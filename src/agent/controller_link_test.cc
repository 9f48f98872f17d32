// The agent's link to several controllers: a standby's 503 and a refused connection both move it
// on, round robin; it stays with the controller that answers; with one address a 503 is an
// ordinary error (no switching). The controllers are in-process HTTP servers.
#include "agent/controller_link.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "net/http_test_util.h"

namespace muster {
namespace {

using net_test::FreePort;

// Answers every request: 200 with its own name while it leads, 503 while it stands by.
class Controller {
 public:
  explicit Controller(bool leads) : leads_(leads) {
    HttpServer::Options o;
    o.tcp_port = 0;
    StatusOr<std::unique_ptr<HttpServer>> s = HttpServer::Start(o, [this](const HttpRequest& r) {
      ++requests_;
      {
        std::lock_guard<std::mutex> l(mu_);
        auto it = r.query.find("unreachable");
        unreachable_ = it == r.query.end() ? "(none)" : it->second;
      }
      if (!leads_) return HttpResponse::Json(503, R"({"error":"this controller stands by"})");
      return HttpResponse::Json(200, "{\"from\":\"" + address_ + "\"}");
    });
    EXPECT_TRUE(s.ok()) << s.status().message();
    server_ = std::move(*s);
    address_ = "127.0.0.1:" + std::to_string(server_->tcp_port());
  }
  const std::string& address() const { return address_; }
  void set_leads(bool leads) { leads_ = leads; }
  int requests() const { return requests_; }
  // The last request's ?unreachable= ("(none)" without one).
  std::string unreachable() const {
    std::lock_guard<std::mutex> l(mu_);
    return unreachable_;
  }

 private:
  std::atomic<bool> leads_;
  std::atomic<int> requests_{0};
  mutable std::mutex mu_;
  std::string unreachable_;
  std::string address_;
  std::unique_ptr<HttpServer> server_;
};

// The next controller hears which one could not be reached (what a standby counts to learn that
// the leader is cut off from the agents); a standby's 503 is not a failure to reach it.
TEST(ControllerLinkTest, TheNextControllerHearsWhichOneCouldNotBeReached) {
  Controller standby(false), leader(true);
  const std::string refused = "127.0.0.1:" + std::to_string(FreePort());
  ControllerLink cut({refused, standby.address()}, 2000);
  EXPECT_FALSE(cut.Post("/v1/agent/heartbeat", "{}").ok());
  EXPECT_EQ(standby.unreachable(), refused);
  ControllerLink link({standby.address(), leader.address()}, 2000);
  ASSERT_TRUE(link.Post("/v1/agent/heartbeat", "{}").ok());
  EXPECT_EQ(standby.unreachable(), "(none)") << "its first try";
  EXPECT_EQ(leader.unreachable(), "(none)") << "the standby was reached: it answered 503";
}

TEST(ControllerLinkTest, AStandbyAndARefusedConnectionBothMoveItOnToTheLeader) {
  Controller standby(false), leader(true);
  const std::string refused = "127.0.0.1:" + std::to_string(FreePort());
  ControllerLink link({standby.address(), refused, leader.address()}, 2000);
  StatusOr<std::string> r = link.Post("/v1/agent/heartbeat", "{}");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, "{\"from\":\"" + leader.address() + "\"}");
  EXPECT_EQ(link.current(), leader.address());
  EXPECT_EQ(link.switches(), 2);
  EXPECT_EQ(standby.requests(), 1);
  // It stays with the leader.
  ASSERT_TRUE(link.Post("/v1/agent/heartbeat", "{}").ok());
  EXPECT_EQ(standby.requests(), 1);
  EXPECT_EQ(leader.requests(), 2);
  EXPECT_EQ(link.switches(), 2);
}

TEST(ControllerLinkTest, ATakeoverMovesItRoundRobinToTheNewLeader) {
  Controller a(true), b(false);
  ControllerLink link({a.address(), b.address()}, 2000);
  ASSERT_TRUE(link.Post("/v1/agent/exit", "{}").ok());
  EXPECT_EQ(link.current(), a.address());
  a.set_leads(false);
  b.set_leads(true);
  StatusOr<std::string> r = link.Post("/v1/agent/exit", "{}");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, "{\"from\":\"" + b.address() + "\"}");
  EXPECT_EQ(link.current(), b.address());
  EXPECT_EQ(link.switches(), 1);
}

TEST(ControllerLinkTest, NoneLeadingTriesEachOnceAndSaysUnavailable) {
  Controller a(false), b(false);
  ControllerLink link({a.address(), b.address()}, 2000);
  StatusOr<std::string> r = link.Post("/v1/agent/heartbeat", "{}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(r.status().message(), "HTTP 503: this controller stands by");
  EXPECT_EQ(a.requests(), 1);
  EXPECT_EQ(b.requests(), 1);
  EXPECT_EQ(link.current(), a.address());  // round the ring, back at the start
}

TEST(ControllerLinkTest, OneAddressKeepsA503AnOrdinaryError) {
  Controller a(false);
  ControllerLink link({a.address()}, 2000);
  StatusOr<std::string> r = link.Post("/v1/agent/heartbeat", "{}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_EQ(r.status().message(), "this controller stands by");
  EXPECT_EQ(link.switches(), 0);
  EXPECT_EQ(a.requests(), 1);
}

}  // namespace
}  // namespace muster
