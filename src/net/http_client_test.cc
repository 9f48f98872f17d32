// HttpClient against a real HttpServer: keep-alive, reconnects, errors, timeouts, concurrency.
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "gtest/gtest.h"
#include "net/http.h"
#include "net/http_test_util.h"

namespace muster {
namespace {

using net_test::BodyOf;
using net_test::Json;
using net_test::Echo;

std::unique_ptr<HttpServer> MustStart(const HttpServer::Options& options, HttpHandler handler = Echo) {
  StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(options, std::move(handler));
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  return server.ok() ? std::move(server).value() : nullptr;
}

std::unique_ptr<HttpClient> MustConnect(const std::string& address, int timeout_ms = 10000) {
  StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Connect(address, "", timeout_ms);
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return client.ok() ? std::move(client).value() : nullptr;
}

std::string TcpAddress(const HttpServer& server) { return "127.0.0.1:" + std::to_string(server.tcp_port()); }

HttpServer::Options UnixOnly(const std::string& path) {
  HttpServer::Options o;
  o.tcp_port = -1;
  o.unix_path = path;
  return o;
}

TEST(HttpClientTest, KeepAliveReusesOneConnection) {
  auto server = MustStart({});
  ASSERT_TRUE(server);
  auto client = MustConnect(TcpAddress(*server));
  ASSERT_TRUE(client);
  std::string first_peer;
  for (int i = 0; i < 300; ++i) {
    StatusOr<HttpResponse> r = client->Request(i % 2 ? "POST" : "GET", "/n?i=" + std::to_string(i),
                                               i % 2 ? std::string(i, 'x') : "");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    Json j = BodyOf(r);
    ASSERT_EQ(j["query"]["i"], std::to_string(i));
    ASSERT_EQ(j["body"].get<std::string>().size(), i % 2 ? size_t(i) : 0u);
    if (i == 0) first_peer = j["peer"].str();
    ASSERT_EQ(j["peer"], first_peer) << "request " << i << " used another connection";
  }
}

TEST(HttpClientTest, ReconnectsAfterServerRestartOnTheSameUnixPath) {
  std::string path = net_test::TempSocketPath();
  auto server = MustStart(UnixOnly(path));
  ASSERT_TRUE(server);
  auto client = MustConnect("unix:" + path);
  ASSERT_TRUE(client);
  ASSERT_EQ(client->Request("GET", "/")->status, 200);
  server->Stop();  // closes the client's kept-alive connection
  server = MustStart(UnixOnly(path));
  ASSERT_TRUE(server);
  StatusOr<HttpResponse> r = client->Request("GET", "/again");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(BodyOf(r)["path"], "/again");

  // While no server listens the request fails, naming the address; later ones recover.
  server->Stop();
  r = client->Request("GET", "/");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("unix:" + path), std::string::npos) << r.status().message();
  server = MustStart(UnixOnly(path));
  ASSERT_TRUE(server);
  r = client->Request("GET", "/");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

TEST(HttpClientTest, ReconnectsAfterServerRestartOnTheSameTcpPort) {
  auto server = MustStart({});
  ASSERT_TRUE(server);
  int port = server->tcp_port();
  auto client = MustConnect(TcpAddress(*server));
  ASSERT_TRUE(client);
  ASSERT_EQ(client->Request("GET", "/")->status, 200);
  server->Stop();
  HttpServer::Options o;
  o.tcp_port = port;
  server = MustStart(o);
  ASSERT_TRUE(server);
  StatusOr<HttpResponse> r = client->Request("POST", "/again", "{}");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(BodyOf(r)["body"], "{}");
}

TEST(HttpClientTest, ConnectErrorsNameTheAddress) {
  std::string path = net_test::TempSocketPath();
  StatusOr<std::unique_ptr<HttpClient>> c = HttpClient::Connect("unix:" + path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(c.status().message().find("unix:" + path), std::string::npos) << c.status().message();

  // A port that was just free: bind one, note it, close it.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ::close(fd);
  std::string address = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  c = HttpClient::Connect(address);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(c.status().message().find(address), std::string::npos) << c.status().message();

  for (const char* bad : {"", "unix:", "localhost", "host:", ":80", "host:http", "host:99999"}) {
    EXPECT_EQ(HttpClient::Connect(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(HttpClientTest, TimeoutIsUnavailableAndTheClientRecovers) {
  net_test::Gate release;
  auto server = MustStart({}, [&](const HttpRequest& r) {
    if (r.path == "/stuck") release.WaitFor(std::chrono::seconds(10));
    return HttpResponse::Json(200, "{}");
  });
  ASSERT_TRUE(server);
  auto client = MustConnect(TcpAddress(*server), /*timeout_ms=*/100);
  ASSERT_TRUE(client);
  StatusOr<HttpResponse> r = client->Request("GET", "/stuck");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("timed out after 100 ms"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(TcpAddress(*server)), std::string::npos) << r.status().message();
  release.Open();
  r = client->Request("GET", "/fine");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
}

// 8 clients x 200 requests against 2 server threads while another client keeps one of those
// threads in a sleeping handler: everything completes.
TEST(HttpClientTest, ManyClientsWhileOneHandlerSleeps) {
  HttpServer::Options o;
  o.threads = 2;
  auto server = MustStart(o, [](const HttpRequest& r) {
    if (r.path == "/slow") std::this_thread::sleep_for(std::chrono::milliseconds(200));  // on purpose
    return Echo(r);
  });
  ASSERT_TRUE(server);
  std::string address = TcpAddress(*server);
  std::atomic<int> ok{0}, slow_ok{0};
  std::atomic<bool> fast_done{false};
  std::thread slow([&] {
    auto client = MustConnect(address);
    do {
      if (client && client->Request("GET", "/slow").ok()) ++slow_ok;
    } while (!fast_done);
  });
  std::vector<std::thread> fast;
  for (int t = 0; t < 8; ++t) {
    fast.emplace_back([&, t] {
      auto client = MustConnect(address);
      // (A connection that landed on the slow handler's worker waits 200 ms a request: a few dozen
      // requests show it all.)
      for (int i = 0; client && i < 30; ++i) {
        StatusOr<HttpResponse> r = client->Request("POST", "/fast", std::to_string(t * 1000 + i));
        if (r.ok() && BodyOf(r)["body"] == std::to_string(t * 1000 + i)) ++ok;
      }
    });
  }
  for (auto& t : fast) t.join();
  fast_done = true;
  slow.join();
  EXPECT_EQ(ok, 8 * 30);
  EXPECT_GE(slow_ok, 1);
}

// Stronger: a handler that does not return until the other clients are all done. If the server
// could not serve other connections meanwhile, this would time out instead.
// A connection stays on the worker that accepted it; new connections go to workers not running a
// handler, so a handler that blocks holds its own worker only.
TEST(HttpClientTest, BlockedHandlerDoesNotStallOtherConnections) {
  HttpServer::Options o;
  o.threads = 2;
  net_test::Gate blocked, others_done;
  auto server = MustStart(o, [&](const HttpRequest& r) {
    if (r.path == "/block") {
      blocked.Open();
      bool released = others_done.WaitFor(std::chrono::seconds(30));
      return HttpResponse::Json(200, released ? R"({"released":true})" : R"({"released":false})");
    }
    return Echo(r);
  });
  ASSERT_TRUE(server);
  std::string address = TcpAddress(*server);
  std::atomic<int> ok{0};
  std::thread blocker([&] {
    StatusOr<HttpResponse> r = MustConnect(address, 60000)->Request("GET", "/block");
    EXPECT_TRUE(r.ok() && r->body == R"({"released":true})") << (r.ok() ? r->body : r.status().ToString());
  });
  ASSERT_TRUE(blocked.WaitFor(std::chrono::seconds(30)));
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&] {
      auto client = MustConnect(address);
      for (int i = 0; client && i < 200; ++i) ok += client->Request("GET", "/fast").ok();
    });
  }
  for (auto& t : clients) t.join();
  others_done.Open();
  blocker.join();
  EXPECT_EQ(ok, 8 * 200);
}

// Not a benchmark with assertions: prints requests/second for one kept-alive client.
TEST(HttpClientTest, PrintsKeptAliveThroughput) {
  std::string path = net_test::TempSocketPath();
  HttpServer::Options o;
  o.unix_path = path;
  auto server = MustStart(o, [](const HttpRequest&) { return HttpResponse::Json(200, R"({"ok":true})"); });
  ASSERT_TRUE(server);
  for (const std::string& address : {"unix:" + path, TcpAddress(*server)}) {
    auto client = MustConnect(address);
    ASSERT_TRUE(client);
    constexpr int kRequests = 5000;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kRequests; ++i) ASSERT_TRUE(client->Request("GET", "/v1/ping").ok());
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "[ rate     ] GET over " << (address.starts_with("unix:") ? "unix" : "tcp ") << ": "
              << static_cast<int>(kRequests / seconds) << " requests/s (one kept-alive client)\n";
  }
}

}  // namespace
}  // namespace muster
