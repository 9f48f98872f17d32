// HttpServer: parsing, callers (peer credentials, tokens), limits, errors, Stop().
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <future>
#include <thread>

#include "base/test_util.h"
#include "gtest/gtest.h"
#include "net/http.h"
#include "net/http_test_util.h"
#include "net/token.h"

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

std::unique_ptr<HttpClient> MustConnect(const std::string& address, const std::string& token = "",
                                        int timeout_ms = 10000) {
  StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Connect(address, token, timeout_ms);
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return client.ok() ? std::move(client).value() : nullptr;
}

// WaitFor polls for up to 5 s (a closed connection frees its place once the server has seen it go).
constexpr std::chrono::milliseconds kWait{5000}, kPoll{10};

std::string TcpAddress(const HttpServer& server) { return "127.0.0.1:" + std::to_string(server.tcp_port()); }

HttpServer::Options UnixOnly(const std::string& path) {
  HttpServer::Options o;
  o.tcp_port = -1;
  o.unix_path = path;
  return o;
}

TEST(HttpServerTest, TcpRoundTripParsesTheRequest) {
  auto server = MustStart({});
  ASSERT_TRUE(server);
  ASSERT_GT(server->tcp_port(), 0);
  auto client = MustConnect(TcpAddress(*server));
  ASSERT_TRUE(client);
  StatusOr<HttpResponse> r = client->Request("POST", "/v1/echo?state=PENDING&name=a%20b+c&flag", R"({"x":1})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->content_type, "application/json");
  Json j = BodyOf(r);
  EXPECT_EQ(j["method"], "POST");
  EXPECT_EQ(j["path"], "/v1/echo");
  EXPECT_EQ(j["query"], Json(boost::json::object{{"state", "PENDING"}, {"name", "a b c"}, {"flag", ""}}));
  EXPECT_EQ(j["body"], R"({"x":1})");
  EXPECT_EQ(j["headers"]["user-agent"], "muster");  // names lower-cased
  EXPECT_EQ(j["headers"]["content-type"], "application/json");
  EXPECT_EQ(j["caller"]["authenticated"], false);
  EXPECT_EQ(j["caller"]["via"], "none");
  EXPECT_NE(j["caller"]["error"].get<std::string>().find("no credentials"), std::string::npos);
  EXPECT_EQ(j["peer"].get<std::string>().rfind("127.0.0.1:", 0), 0u);
}

TEST(HttpServerTest, UnixRoundTripReportsOurPeerCredentials) {
  std::string path = net_test::TempSocketPath();
  auto server = MustStart(UnixOnly(path));
  ASSERT_TRUE(server);
  EXPECT_EQ(server->tcp_port(), -1);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0666u);
  // A token sent over the Unix socket changes nothing: the kernel's word counts there.
  auto client = MustConnect("unix:" + path, "not-a-token");
  ASSERT_TRUE(client);
  Json j = BodyOf(client->Request("GET", "/who"));
  EXPECT_EQ(j["caller"]["authenticated"], true);
  EXPECT_EQ(j["caller"]["via"], "unix");
  EXPECT_EQ(j["caller"]["uid"], ::getuid());
  EXPECT_EQ(j["caller"]["gid"], ::getgid());
  EXPECT_EQ(j["peer"], "unix pid " + std::to_string(::getpid()));
  server->Stop();
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "socket file left behind";
}

TEST(HttpServerTest, UnixModeIsApplied) {
  std::string path = net_test::TempSocketPath();
  HttpServer::Options o = UnixOnly(path);
  o.unix_mode = 0600;
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(HttpServerTest, BothListenersServeOneHandler) {
  std::string path = net_test::TempSocketPath();
  HttpServer::Options o;
  o.unix_path = path;
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  EXPECT_EQ(BodyOf(MustConnect("unix:" + path)->Request("GET", "/a"))["caller"]["via"], "unix");
  EXPECT_EQ(BodyOf(MustConnect(TcpAddress(*server))->Request("GET", "/a"))["caller"]["via"], "none");
}

TEST(HttpServerTest, StaleSocketFileIsReplacedButALiveOneIsNot) {
  std::string path = net_test::TempSocketPath();
  {  // a socket file nobody listens on, as a crashed server leaves it
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    ::close(fd);
  }
  auto server = MustStart(UnixOnly(path));
  ASSERT_TRUE(server);
  EXPECT_EQ(MustConnect("unix:" + path)->Request("GET", "/")->status, 200);

  StatusOr<std::unique_ptr<HttpServer>> second = HttpServer::Start(UnixOnly(path), Echo);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(second.status().message().find(path), std::string::npos);
  EXPECT_EQ(MustConnect("unix:" + path)->Request("GET", "/")->status, 200) << "the failed start broke the first";
  server->Stop();

  std::string file = net_test::TempSocketPath();
  { std::ofstream(file) << "precious"; }
  StatusOr<std::unique_ptr<HttpServer>> over_file = HttpServer::Start(UnixOnly(file), Echo);
  EXPECT_EQ(over_file.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(::unlink(file.c_str()), 0) << "a regular file was removed";
}

TEST(HttpServerTest, ListenErrorsAreStatuses) {
  HttpServer::Options none;
  none.tcp_port = -1;
  EXPECT_EQ(HttpServer::Start(none, Echo).status().code(), StatusCode::kInvalidArgument);
  auto server = MustStart({});
  ASSERT_TRUE(server);
  HttpServer::Options taken;
  taken.tcp_port = server->tcp_port();
  StatusOr<std::unique_ptr<HttpServer>> second = HttpServer::Start(taken, Echo);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find(std::to_string(server->tcp_port())), std::string::npos);
  HttpServer::Options long_path = UnixOnly("/tmp/" + std::string(200, 'x'));
  EXPECT_EQ(HttpServer::Start(long_path, Echo).status().code(), StatusCode::kInvalidArgument);
}

// The kernel, not the client, says who is calling: a child that became 'nobody' is seen as nobody.
TEST(HttpServerTest, SetuidChildIsSeenAsNobody) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to setuid";
  std::string path = net_test::TempSocketPath();
  auto server = MustStart(UnixOnly(path));
  ASSERT_TRUE(server);
  // Everything the child needs is prepared before fork(): after it only async-signal-safe calls.
  const std::string request = "GET /who HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(pipefd[0]);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) ::_exit(3);
    if (::write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) ::_exit(4);
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof(buf))) > 0) {
      if (::write(pipefd[1], buf, static_cast<size_t>(n)) != n) ::_exit(5);
    }
    ::_exit(n == 0 ? 0 : 6);
  }
  ::close(pipefd[1]);
  bool eof = false;
  std::string response = net_test::RawReadAll(pipefd[0], &eof);
  ::close(pipefd[0]);
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFEXITED(wstatus)) << "child killed by signal " << WTERMSIG(wstatus);
  ASSERT_EQ(WEXITSTATUS(wstatus), 0) << response;
  size_t body_at = response.find("\r\n\r\n");
  ASSERT_NE(body_at, std::string::npos) << response;
  EXPECT_EQ(response.rfind("HTTP/1.1 200", 0), 0u) << response;
  Json j = test_json::Parse(response.substr(body_at + 4));
  EXPECT_EQ(j["caller"]["authenticated"], true);
  EXPECT_EQ(j["caller"]["via"], "unix");
  EXPECT_EQ(j["caller"]["uid"], 65534);
  EXPECT_EQ(j["caller"]["gid"], 65534);
  EXPECT_EQ(j["peer"], "unix pid " + std::to_string(pid));
}

TEST(HttpServerTest, TcpCallersAreIdentifiedByTokens) {
  TokenAuthority tokens(std::string(32, 'k'));
  HttpServer::Options o;
  o.tokens = &tokens;
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  int64_t now = std::time(nullptr);
  auto caller_with = [&](const std::string& token) {
    return BodyOf(MustConnect(TcpAddress(*server), token)->Request("GET", "/who"))["caller"];
  };
  Json c = caller_with(tokens.Mint(1234, 100, now, 300));
  EXPECT_EQ(c["authenticated"], true);
  EXPECT_EQ(c["via"], "token");
  EXPECT_EQ(c["uid"], 1234);
  EXPECT_EQ(c["gid"], 100);

  c = caller_with(TokenAuthority(std::string(32, 'x')).Mint(0, 0, now, 300));
  EXPECT_EQ(c["authenticated"], false);
  EXPECT_EQ(c["via"], "none");
  EXPECT_NE(c["error"].get<std::string>().find("signature"), std::string::npos) << c;

  c = caller_with(tokens.Mint(1234, 100, now - 600, 300));
  EXPECT_EQ(c["authenticated"], false);
  EXPECT_NE(c["error"].get<std::string>().find("expired"), std::string::npos) << c;

  c = caller_with("garbage");
  EXPECT_EQ(c["authenticated"], false);
  EXPECT_NE(c["error"].get<std::string>().find("malformed"), std::string::npos) << c;

  c = caller_with("");
  EXPECT_EQ(c["authenticated"], false);
  EXPECT_NE(c["error"].get<std::string>().find("no credentials"), std::string::npos) << c;

  // Another scheme, sent by hand.
  int fd = net_test::RawConnectTcp(server->tcp_port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(
      net_test::RawSend(fd, "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer abc\r\nConnection: close\r\n\r\n"));
  bool eof = false;
  std::string raw = net_test::RawReadAll(fd, &eof);
  ::close(fd);
  EXPECT_NE(raw.find("unsupported authorization scheme"), std::string::npos) << raw;
}

// A token opens one connection: the requests that follow on it present it again and pass; the same
// token on a connection of its own (a replay of a captured one) is refused 401.
TEST(HttpServerTest, ATokenOpensOneConnectionAndIsNotReplayed) {
  TokenAuthority tokens(std::string(32, 'k'));
  HttpServer::Options o;
  o.tokens = &tokens;
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  const std::string token = tokens.Mint(1234, 100, std::time(nullptr), 300);
  auto first = MustConnect(TcpAddress(*server), token);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(BodyOf(first->Request("GET", "/who"))["caller"]["uid"], 1234) << i;
  Json replay = BodyOf(MustConnect(TcpAddress(*server), token)->Request("GET", "/who"))["caller"];
  EXPECT_EQ(replay["authenticated"], false);
  EXPECT_NE(replay["error"].get<std::string>().find("token already used"), std::string::npos) << replay;
  EXPECT_EQ(BodyOf(first->Request("GET", "/who"))["caller"]["uid"], 1234) << "the first connection goes on";
}

// A client with a TokenSource opens each connection with a new token: when its kept-alive
// connection is gone (here the server restarted on the same port, with the same authority, which
// remembers the first token), it reconnects with a new one and is still identified.
TEST(HttpServerTest, AClientWithATokenSourceReconnectsWithANewToken) {
  TokenAuthority tokens(std::string(32, 'k'));
  HttpServer::Options o;
  o.tokens = &tokens;
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  int minted = 0;
  HttpClient::TokenSource source;
  source.next = [&]() -> StatusOr<std::string> {
    ++minted;
    return tokens.Mint(77, 77, std::time(nullptr), 300);
  };
  StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Connect(TcpAddress(*server), source);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  EXPECT_EQ(BodyOf((*client)->Request("GET", "/who"))["caller"]["uid"], 77);
  EXPECT_EQ(BodyOf((*client)->Request("GET", "/who"))["caller"]["uid"], 77) << "the same connection, its token again";
  EXPECT_EQ(minted, 1);
  o.tcp_port = server->tcp_port();
  server->Stop();
  server = MustStart(o);
  ASSERT_TRUE(server);
  Json again = BodyOf((*client)->Request("GET", "/who"))["caller"];
  EXPECT_EQ(again["authenticated"], true) << again;
  EXPECT_EQ(again["uid"], 77);
  EXPECT_EQ(minted, 2);
}

TEST(HttpServerTest, ServerWithoutTokenAuthorityRejectsTokens) {
  auto server = MustStart({});
  ASSERT_TRUE(server);
  TokenAuthority tokens(std::string(32, 'k'));
  Json c = BodyOf(
      MustConnect(TcpAddress(*server), tokens.Mint(1, 1, std::time(nullptr), 60))->Request("GET", "/"))["caller"];
  EXPECT_EQ(c["authenticated"], false);
  EXPECT_NE(c["error"].get<std::string>().find("does not accept tokens"), std::string::npos) << c;
}

TEST(HttpServerTest, OversizedBodyGets413AndTheClientCarriesOn) {
  HttpServer::Options o;
  o.max_body_bytes = 1024;
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  auto client = MustConnect(TcpAddress(*server));
  ASSERT_TRUE(client);
  StatusOr<HttpResponse> r = client->Request("POST", "/", std::string(1024, 'a'));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  r = client->Request("POST", "/", std::string(64 * 1024, 'a'));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 413);
  EXPECT_NE(BodyOf(r)["error"].get<std::string>().find("1024 bytes"), std::string::npos) << r->body;
  r = client->Request("GET", "/");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
}

// Each route has its own limit, applied once the header is read: a body over it is never buffered.
TEST(HttpServerTest, BodyLimitsArePerRoute) {
  HttpServer::Options o;
  o.body_limit = [](std::string_view method, std::string_view path) -> int64_t {
    return method == "POST" && path == "/v1/jobs" ? 4096 : 100;
  };
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  auto client = MustConnect(TcpAddress(*server));
  ASSERT_TRUE(client);
  StatusOr<HttpResponse> r = client->Request("POST", "/v1/jobs?x=1", std::string(4000, 'a'));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200);
  r = client->Request("POST", "/v1/other", std::string(200, 'a'));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 413);
  EXPECT_NE(r->body.find("larger than 100 bytes"), std::string::npos) << r->body;
}

// Over TCP, a caller without a valid token who announces a body gets 401 at once: its body is
// never waited for nor buffered (the finding: 16 such clients each had the controller hold 64 MB).
TEST(HttpServerTest, UnauthenticatedBodiesAreRefusedBeforeTheyAreRead) {
  TokenAuthority tokens(std::string(32, 'k'));
  HttpServer::Options o;
  o.tokens = &tokens;
  int handled = 0;
  auto server = MustStart(o, [&](const HttpRequest& r) {
    ++handled;
    return Echo(r);
  });
  ASSERT_TRUE(server);
  int fd = net_test::RawConnectTcp(server->tcp_port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(net_test::RawSend(fd, "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 67108864\r\n\r\n"));
  bool eof = false;
  std::string raw = net_test::RawReadAll(fd, &eof);  // no byte of the body was sent
  ::close(fd);
  EXPECT_EQ(raw.rfind("HTTP/1.1 401", 0), 0u) << raw;
  EXPECT_NE(raw.find("no credentials"), std::string::npos) << raw;
  EXPECT_EQ(handled, 0);
  // A GET without a body still reaches the handler, which decides (the controller's ping).
  auto anon = MustConnect(TcpAddress(*server));
  ASSERT_TRUE(anon);
  StatusOr<HttpResponse> ping = anon->Request("GET", "/v1/ping");
  ASSERT_TRUE(ping.ok());
  EXPECT_EQ(ping->status, 200);
  // With a token the body is read as usual.
  auto client = MustConnect(TcpAddress(*server), tokens.Mint(7, 7, std::time(nullptr), 60));
  StatusOr<HttpResponse> r = client->Request("POST", "/v1/jobs", "{}");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200);
}

// A user holding connections open runs out of places; others (and root) still get in.
TEST(HttpServerTest, ConnectionsAreCappedPerPeerAndInAll) {
  const std::string path = net_test::TempSocketPath();
  HttpServer::Options o = UnixOnly(path);
  o.max_connections_per_peer = 3;
  o.max_connections = 5;
  o.reserved_connections = 2;
  o.privileged_uids = {};  // we are capped like any user
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  // A connection that was given a place answers a request; one that was not is closed at once.
  auto served = [&](int fd) {
    if (!net_test::RawSend(fd, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n")) return false;
    char buf[16];
    return ::recv(fd, buf, sizeof buf, 0) > 0;
  };
  std::vector<int> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(net_test::RawConnectUnix(path));
    ASSERT_TRUE(served(held.back())) << i;
  }
  const int fourth = net_test::RawConnectUnix(path);
  EXPECT_FALSE(served(fourth)) << "over the per-peer cap";
  ::close(fourth);
  ::close(held.back());
  held.pop_back();
  EXPECT_TRUE(WaitFor([&] {
    const int fd = net_test::RawConnectUnix(path);
    const bool ok = served(fd);
    if (ok) held.push_back(fd); else ::close(fd);
    return ok;
  }, kWait, kPoll)) << "a place freed is a place again";
  for (int fd : held) ::close(fd);
  server->Stop();

  // The privileged (root, the daemon's own uid) have no per-peer cap and may use the reserve.
  o.unix_path = net_test::TempSocketPath();
  o.privileged_uids = {::geteuid()};
  server = MustStart(o);
  ASSERT_TRUE(server);
  held.clear();
  for (int i = 0; i < 7; ++i) {
    const int fd = net_test::RawConnectUnix(o.unix_path);
    EXPECT_TRUE(served(fd)) << i;
    held.push_back(fd);
  }
  const int over = net_test::RawConnectUnix(o.unix_path);
  EXPECT_FALSE(served(over)) << "past the total and its reserve";
  ::close(over);
  for (int fd : held) ::close(fd);
}

TEST(HttpServerTest, ChunkedBodyOverTheLimitGets413) {
  HttpServer::Options o;
  o.max_body_bytes = 16;
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  int fd = net_test::RawConnectTcp(server->tcp_port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(net_test::RawSend(fd, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                                    "10\r\n0123456789abcdef\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n"));
  bool eof = false;
  std::string raw = net_test::RawReadAll(fd, &eof);
  ::close(fd);
  EXPECT_EQ(raw.rfind("HTTP/1.1 413", 0), 0u) << raw;
  EXPECT_TRUE(eof);
}

TEST(HttpServerTest, ExpectContinueIsAnswered) {
  auto server = MustStart({});
  ASSERT_TRUE(server);
  int fd = net_test::RawConnectTcp(server->tcp_port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(net_test::RawSend(
      fd, "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"));
  char buf[64];
  ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, static_cast<size_t>(n)).rfind("HTTP/1.1 100 Continue\r\n\r\n", 0), 0u);
  ASSERT_TRUE(net_test::RawSend(fd, "hello"));
  bool eof = false;
  std::string raw = net_test::RawReadAll(fd, &eof);
  ::close(fd);
  EXPECT_NE(raw.find(R"("body":"hello")"), std::string::npos) << raw;
}

TEST(HttpServerTest, MalformedRequestGets400AndHandlerExceptionGets500) {
  auto server = MustStart({}, [](const HttpRequest& r) -> HttpResponse {
    if (r.path == "/throw") throw std::runtime_error("boom");
    return HttpResponse::Json(200, "{}");
  });
  ASSERT_TRUE(server);
  int fd = net_test::RawConnectTcp(server->tcp_port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(net_test::RawSend(fd, "NOT HTTP AT ALL\r\n\r\n"));
  bool eof = false;
  std::string raw = net_test::RawReadAll(fd, &eof);
  ::close(fd);
  EXPECT_EQ(raw.rfind("HTTP/1.1 400", 0), 0u) << raw;

  StatusOr<HttpResponse> r = MustConnect(TcpAddress(*server))->Request("GET", "/throw");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(BodyOf(r)["error"], "internal error: boom");
}

TEST(HttpServerTest, IdleKeptAliveConnectionIsClosedAfterTheTimeout) {
  HttpServer::Options o;
  o.idle_timeout_ms = 50;
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  auto client = MustConnect(TcpAddress(*server));
  ASSERT_TRUE(client);
  ASSERT_EQ(client->Request("GET", "/")->status, 200);
  int fd = net_test::RawConnectTcp(server->tcp_port());
  ASSERT_GE(fd, 0);
  bool eof = false;
  net_test::RawReadAll(fd, &eof);  // blocks until the server gives up on the silent connection
  ::close(fd);
  EXPECT_TRUE(eof);
  // The client's connection went idle earlier, so it is closed too; the client reconnects.
  StatusOr<HttpResponse> r = client->Request("GET", "/");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
}

TEST(HttpServerTest, StopWithOpenConnectionsReturns) {
  std::string path = net_test::TempSocketPath();
  HttpServer::Options o;
  o.unix_path = path;
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  std::vector<std::unique_ptr<HttpClient>> clients;
  for (int i = 0; i < 3; ++i) {
    clients.push_back(MustConnect(i % 2 ? "unix:" + path : TcpAddress(*server)));
    ASSERT_EQ(clients.back()->Request("GET", "/")->status, 200);
  }
  int silent = net_test::RawConnectTcp(server->tcp_port());
  int half = net_test::RawConnectUnix(path);
  ASSERT_GE(silent, 0);
  ASSERT_GE(half, 0);
  ASSERT_TRUE(net_test::RawSend(half, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc"));
  std::string tcp_address = TcpAddress(*server);
  server->Stop();
  server->Stop();  // idempotent
  for (int fd : {silent, half}) {
    EXPECT_TRUE(net_test::ClosedByServer(fd));
    ::close(fd);
  }
  StatusOr<HttpResponse> r = clients[0]->Request("GET", "/");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find(tcp_address), std::string::npos) << r.status().message();
  server.reset();  // the destructor after Stop() is fine too
}

TEST(HttpServerTest, RequestInFlightFinishesDuringStop) {
  std::promise<void> entered;
  auto server = MustStart({}, [&](const HttpRequest&) {
    entered.set_value();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a slow handler, on purpose
    return HttpResponse::Json(200, R"({"done":true})");
  });
  ASSERT_TRUE(server);
  std::string address = TcpAddress(*server);
  std::future<StatusOr<HttpResponse>> response =
      std::async(std::launch::async, [&] { return MustConnect(address)->Request("GET", "/slow"); });
  entered.get_future().wait();
  server->Stop();
  StatusOr<HttpResponse> r = response.get();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body, R"({"done":true})");
}

}  // namespace
}  // namespace muster
