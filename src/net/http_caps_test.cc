// HttpServer's connection caps over TCP (HttpServer::Options): a connection counts against the
// uid whose credential it presents, not its address; unauthenticated connections have a few places
// of their own (when full, one from the address holding the most is refused at once, one from
// another takes the place of that address's oldest), and are closed when their time to
// authenticate is over; a server's own credential check (the REST listener's JWTs)
// decides before a body is read. (The Unix socket's caps: http_server_test.cc.)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <functional>
#include <map>
#include <thread>

#include "base/test_util.h"
#include "gtest/gtest.h"
#include "net/http.h"
#include "net/http_test_util.h"
#include "net/token.h"

namespace muster {
namespace {

using net_test::BodyOf;
using net_test::Echo;

std::unique_ptr<HttpServer> MustStart(const HttpServer::Options& options, HttpHandler handler = Echo) {
  StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(options, std::move(handler));
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  return server.ok() ? std::move(server).value() : nullptr;
}

// WaitFor polls for up to 5 s (a closed connection frees its place once the server has seen it go).
constexpr std::chrono::milliseconds kWait{5000}, kPoll{10};

std::string TcpAddress(const HttpServer& server) { return "127.0.0.1:" + std::to_string(server.tcp_port()); }

// A blocking connection to the server's port from `source` (a loopback address), 5 s receive timeout.
int ConnectFrom(const HttpServer& server, const char* source) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source, &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(server.tcp_port()));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// One kept-alive request without a credential on `fd`: its status line ("" when none came).
std::string Ask(int fd, const std::string& extra_headers = "") {
  if (!net_test::RawSend(fd, "GET /x HTTP/1.1\r\nHost: x\r\n" + extra_headers + "\r\n")) return "";
  std::string got;
  char buf[4096];
  while (got.find("\r\n\r\n") == std::string::npos) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return "";
    got.append(buf, static_cast<size_t>(n));
  }
  // The Echo body follows; read it whole (Content-Length) so that the next request starts clean.
  const size_t at = got.find("content-length: ") != std::string::npos ? got.find("content-length: ")
                                                                        : got.find("Content-Length: ");
  const size_t length = at == std::string::npos ? 0 : std::stoul(got.substr(at + 16));
  while (got.size() < got.find("\r\n\r\n") + 4 + length) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got.substr(0, got.find("\r\n"));
}

TEST(HttpCapsTest, TcpConnectionsCountAgainstTheUidOfTheirTokenNotTheirAddress) {
  TokenAuthority tokens(std::string(32, 'k'));
  HttpServer::Options o;
  o.tokens = &tokens;
  o.max_connections_per_peer = 2;
  o.privileged_uids = {0};
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  const int64_t now = std::time(nullptr);
  auto connect_as = [&](uint32_t uid) {
    StatusOr<std::unique_ptr<HttpClient>> c = HttpClient::Connect(TcpAddress(*server), tokens.Mint(uid, uid, now, 300));
    EXPECT_TRUE(c.ok());
    return c.ok() ? std::move(*c) : nullptr;
  };
  std::vector<std::unique_ptr<HttpClient>> held;
  for (int i = 0; i < 2; ++i) {
    held.push_back(connect_as(1000));
    EXPECT_EQ(held.back()->Request("GET", "/")->status, 200) << i;
  }
  // A third of uid 1000 (from the same address as all here): 429, naming the cap.
  StatusOr<HttpResponse> third = connect_as(1000)->Request("GET", "/");
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_EQ(third->status, 429);
  EXPECT_EQ(BodyOf(third)["error"], "too many connections: uid 1000 holds 2 connections, as many as one caller may");
  // Another user from the same address is not shut out by it, nor is root.
  for (uint32_t uid : {1001u, 1001u, 0u, 0u, 0u}) {
    held.push_back(connect_as(uid));
    EXPECT_EQ(held.back()->Request("GET", "/")->status, 200) << uid;
  }
  // A place uid 1000 gives up is its own again.
  held.erase(held.begin());
  EXPECT_TRUE(WaitFor([&] {
    StatusOr<HttpResponse> r = connect_as(1000)->Request("GET", "/");
    return r.ok() && r->status == 200;
  }, kWait, kPoll));
}

TEST(HttpCapsTest, UnauthenticatedConnectionsHavePlacesOfTheirOwnAndTheBusiestAddressGivesOneUp) {
  TokenAuthority tokens(std::string(32, 'k'));
  HttpServer::Options o;
  o.tokens = &tokens;
  o.max_unauthenticated_connections = 3;
  o.max_connections = 1;  // the counted places: unauthenticated connections never take them
  o.reserved_connections = 0;
  o.privileged_uids = {};
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  // Two from one address, one from another; each answered (so each holds its place now).
  const int flood1 = ConnectFrom(*server, "127.0.0.2"), flood2 = ConnectFrom(*server, "127.0.0.2");
  const int user = ConnectFrom(*server, "127.0.0.3");
  for (int fd : {flood1, flood2, user}) {
    ASSERT_GE(fd, 0);
    ASSERT_EQ(Ask(fd), "HTTP/1.1 200 OK");
  }
  // Another from 127.0.0.2, which holds the most: refused at once (no request needed).
  const int flood3 = ConnectFrom(*server, "127.0.0.2");
  ASSERT_GE(flood3, 0);
  EXPECT_TRUE(net_test::ClosedByServer(flood3));
  ::close(flood3);
  EXPECT_EQ(Ask(flood1), "HTTP/1.1 200 OK") << "the ones before it stay";
  // One from an address holding fewer: 127.0.0.2's oldest gives its place up.
  const int newcomer = ConnectFrom(*server, "127.0.0.4");
  ASSERT_GE(newcomer, 0);
  EXPECT_EQ(Ask(newcomer), "HTTP/1.1 200 OK");
  EXPECT_TRUE(net_test::ClosedByServer(flood1));
  EXPECT_EQ(Ask(user), "HTTP/1.1 200 OK") << "the user's connection, the oldest of all, stays";
  EXPECT_EQ(Ask(flood2), "HTTP/1.1 200 OK");
  // The one counted place is still free for a caller with a token; it stays on its connection.
  auto client = HttpClient::Connect(TcpAddress(*server), tokens.Mint(7, 7, std::time(nullptr), 300));
  ASSERT_TRUE(client.ok());
  StatusOr<HttpResponse> r = (*client)->Request("GET", "/");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(BodyOf(r)["caller"]["uid"], 7);
  // The next caller with a token finds the counted places taken: 429.
  const int late = ConnectFrom(*server, "127.0.0.5");
  ASSERT_GE(late, 0);
  EXPECT_EQ(Ask(late, "Authorization: Muster " + tokens.Mint(8, 8, std::time(nullptr), 300) + "\r\n"),
            "HTTP/1.1 429 Too Many Requests");
  for (int fd : {flood1, flood2, user, newcomer, late}) ::close(fd);
}

TEST(HttpCapsTest, AConnectionThatDoesNotAuthenticateInTimeIsClosedAndOneThatDidStays) {
  TokenAuthority tokens(std::string(32, 'k'));
  HttpServer::Options o;
  o.tokens = &tokens;
  o.unauthenticated_timeout_ms = 300;  // (the idle timeout stays 60 s)
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  std::atomic<int> minted{0};
  HttpClient::TokenSource source;
  source.next = [&]() -> StatusOr<std::string> {
    ++minted;
    return tokens.Mint(77, 77, std::time(nullptr), 300);
  };
  auto client = HttpClient::Connect(TcpAddress(*server), source);
  ASSERT_TRUE(client.ok());
  ASSERT_EQ((*client)->Request("GET", "/")->status, 200);
  const auto start = std::chrono::steady_clock::now();
  const int silent = net_test::RawConnectTcp(server->tcp_port());
  const int anonymous = net_test::RawConnectTcp(server->tcp_port());  // asks without a credential
  ASSERT_GE(silent, 0);
  ASSERT_GE(anonymous, 0);
  EXPECT_EQ(Ask(anonymous), "HTTP/1.1 200 OK");
  EXPECT_TRUE(net_test::ClosedByServer(silent)) << "not closed within the 5 s receive timeout";
  EXPECT_TRUE(net_test::ClosedByServer(anonymous));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // Past the deadline the authenticated connection still serves, without a new token.
  StatusOr<HttpResponse> r = (*client)->Request("GET", "/");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(minted, 1) << "the client had to open another connection";
  ::close(silent);
  ::close(anonymous);
}

// A server whose callers prove who they are otherwise (the REST listener's JWTs): its check runs
// once the header is in, a body without its approval is never read (and answered as the server
// says), and a connection it approves counts against that uid.
TEST(HttpCapsTest, AServersOwnCredentialCheckDecidesBeforeTheBody) {
  HttpServer::Options o;
  o.authenticate = [](const std::map<std::string, std::string>& headers) {
    Caller c;
    auto it = headers.find("x-user");
    if (it == headers.end() || it->second != "alice") {
      c.via = "none";
      c.error = "no alice";
      return c;
    }
    c.authenticated = true;
    c.uid = 4242;
    c.gid = 4242;
    c.via = "test";
    return c;
  };
  o.unauthenticated_reply = [](const std::string& why) { return HttpResponse{401, "text/plain", "refused: " + why}; };
  o.max_connections_per_peer = 1;
  std::atomic<int> handled{0};
  auto server = MustStart(o, [&](const HttpRequest& r) {
    ++handled;
    return Echo(r);
  });
  ASSERT_TRUE(server);
  int fd = net_test::RawConnectTcp(server->tcp_port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(net_test::RawSend(fd, "POST /submit HTTP/1.1\r\nHost: x\r\nContent-Length: 67108864\r\n\r\n"));
  bool eof = false;
  const std::string raw = net_test::RawReadAll(fd, &eof);
  ::close(fd);
  EXPECT_EQ(raw.rfind("HTTP/1.1 401", 0), 0u) << raw;
  EXPECT_NE(raw.find("\r\n\r\nrefused: no alice"), std::string::npos) << raw;
  EXPECT_EQ(handled, 0);
  // A GET without it reaches the handler, unauthenticated, with the reason.
  fd = net_test::RawConnectTcp(server->tcp_port());
  ASSERT_GE(fd, 0);
  EXPECT_EQ(Ask(fd), "HTTP/1.1 200 OK");
  ::close(fd);
  // Approved: the body is read, the caller is the check's, and the connection is uid 4242's.
  fd = net_test::RawConnectTcp(server->tcp_port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(net_test::RawSend(fd, "POST /submit HTTP/1.1\r\nHost: x\r\nX-User: alice\r\nContent-Length: 2\r\n\r\n{}"));
  std::string got;
  char buf[4096];
  while (got.find("\"via\":\"test\"") == std::string::npos) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  EXPECT_EQ(got.rfind("HTTP/1.1 200", 0), 0u) << got;
  EXPECT_NE(got.find("\"uid\":4242"), std::string::npos) << got;
  const int second = net_test::RawConnectTcp(server->tcp_port());
  ASSERT_GE(second, 0);
  EXPECT_EQ(Ask(second, "X-User: alice\r\n"), "HTTP/1.1 429 Too Many Requests") << "uid 4242's one place is taken";
  ::close(second);
  ::close(fd);
}

}  // namespace
}  // namespace muster
