// HTTP/1.1 server and client over TCP and Unix sockets (Boost.Beast), for the controller's API,
// the node agents and the commands. Bodies are JSON text by convention; this layer does not parse
// them.
//
// Who is calling: on a Unix socket the kernel tells (SO_PEERCRED); on TCP the request carries a
// signed credential ("Authorization: Muster <token>", net/token.h) that the server verifies with
// its TokenAuthority. Handlers see the result in HttpRequest::caller and decide (401/403).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/caller.h"
#include "base/status.h"

namespace muster {

class TokenAuthority;

struct HttpRequest {
  std::string method;                          // "GET", "POST", ...
  std::string path;                            // "/v1/jobs/7" (no query; still percent-encoded)
  std::map<std::string, std::string> query;    // decoded ?a=b&c=d
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  Caller caller;
  std::string peer;                            // the other end, for logs: "127.0.0.1:41234" or "unix pid 812"
  // Filled by Router::Handle from "{name}" path segments (decoded) on the request it is handed:
  // mutable so that a route's handler sees the server's own request, not a copy of a body that may
  // be megabytes (the server builds one request per call, so no other thread sees it).
  mutable std::map<std::string, std::string> params;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // More header fields, in order (the dashboard's Content-Security-Policy).
  std::vector<std::pair<std::string, std::string>> headers = {};
  static HttpResponse Json(int status, std::string body) { return HttpResponse{status, "application/json", std::move(body)}; }
  // {"error": message} with the given status.
  static HttpResponse Error(int status, const std::string& message);
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// Routes by method and path pattern ("/v1/jobs/{id}"); 404 for unknown paths, 405 for a known
// path with another method. Each route carries the largest request body it takes, so that a
// server's body limit (HttpServer::Options::body_limit) comes from the same table as its routes.
// Thread-safe once built.
class Router {
 public:
  using BodyLimitRule = std::function<int64_t(std::string_view method, std::string_view path)>;
  static constexpr int64_t kDefaultBodyLimit = 64 << 10;
  // `unrouted`: the body limit of a request no route takes (an unknown path, or a method its path
  // has no route for: answered 404 or 405); nullptr: kDefaultBodyLimit.
  Router() = default;
  explicit Router(BodyLimitRule unrouted) : unrouted_(std::move(unrouted)) {}
  // `body_limit`: the largest request body the route takes (a larger one is answered 413 unread).
  void Add(const std::string& method, const std::string& pattern, int64_t body_limit, HttpHandler handler);
  void Add(const std::string& method, const std::string& pattern, HttpHandler handler) {
    Add(method, pattern, kDefaultBodyLimit, std::move(handler));
  }
  // Fills request.params and calls the route's handler with the request itself (no copy).
  HttpResponse Handle(const HttpRequest& request) const;
  // The body limit of the route Handle would choose for `method` and `path` (the most specific
  // one), else the `unrouted` rule's. For HttpServer::Options::body_limit.
  int64_t BodyLimit(std::string_view method, std::string_view path) const;
  // Every route as added (its handler left out), for checks of the table.
  struct RouteInfo {
    std::string method;
    std::string pattern;
    int64_t body_limit;
  };
  std::vector<RouteInfo> Routes() const;
  // Called after each request a route answered, on the handler's thread: the request (its method
  // and caller), the route's pattern as added ("/v1/jobs/{id}", never the path with its ids) and
  // the handler's wall time. Set before serving; it must be thread-safe.
  using Observer = std::function<void(const HttpRequest& request, const std::string& pattern, double seconds)>;
  void SetObserver(Observer observer) { observer_ = std::move(observer); }

 private:
  struct Route {
    std::string method;
    std::vector<std::string> parts;
    HttpHandler handler;
    std::string pattern;
    int64_t body_limit;
  };
  // The most specific route for `method` and the path's `parts`, or nullptr; then `allowed` (when
  // given) holds the methods of the routes the path has.
  const Route* Match(std::string_view method, const std::vector<std::string>& parts,
                     std::set<std::string>* allowed) const;
  std::vector<Route> routes_;
  BodyLimitRule unrouted_;
  Observer observer_;
};

class HttpServer {
 public:
  struct Options {
    std::string tcp_host = "127.0.0.1";
    int tcp_port = 0;            // 0 = any free port (see tcp_port()); -1 = no TCP listener
    std::string unix_path;       // "" = no Unix listener; created with mode unix_mode
    int unix_mode = 0666;        // who may connect; identity still comes from peer credentials
    int threads = 2;             // handler threads
    const TokenAuthority* tokens = nullptr;  // verifies TCP callers; nullptr = TCP callers unauthenticated
    int64_t max_body_bytes = 64 << 20;       // larger request bodies get 413
    // The body limit of one request, decided from its method and path once its header is read
    // (a larger body gets 413 and is never buffered); nullptr: max_body_bytes for every request.
    std::function<int64_t(std::string_view method, std::string_view path)> body_limit;
    int idle_timeout_ms = 60000;             // an idle kept-alive connection (or a slow request) is closed after this
    // Who a TCP caller is, on a server whose callers prove it otherwise than with a Muster token
    // (the REST listener's JWTs): called on the handler's thread with a request's header fields
    // (lower-case names) as soon as they are read, before its body; what it returns is the
    // request's caller (unauthenticated, with the reason in `error`, when it is not satisfied).
    // Set, `tokens` is not used. Must be thread-safe.
    std::function<Caller(const std::map<std::string, std::string>& headers)> authenticate;
    // Over TCP, a request with a body from a caller without a valid credential is answered 401
    // before its body is read: `unauthenticated_reply(why)` when set, else {"error": "authentication
    // required: why"}.
    bool authenticate_before_body = true;
    std::function<HttpResponse(const std::string& why)> unauthenticated_reply;
    // Connections at once: in all, and per peer. A Unix peer is its uid ("uid 1000") from the
    // moment it connects. On a server that checks credentials over TCP (`tokens` or
    // `authenticate`), a TCP connection is unauthenticated until a request on it presents a valid
    // one, and from then on counts as that caller's uid, like a Unix peer of that uid (on a server
    // that checks none, it counts as its source address from the start). Over a cap, a Unix
    // connection is closed as soon as it is accepted, and a TCP one is answered 429 (naming the
    // cap) and closed. Callers of `privileged_uids` have no per-peer cap and may use
    // `reserved_connections` places beyond the total, so that root's squeue and the agents still
    // get in while users hold every other place.
    int max_connections = 4096;
    int max_connections_per_peer = 256;
    int reserved_connections = 64;
    std::vector<uint32_t> privileged_uids = {0};
    // Unauthenticated TCP connections have places of their own, never those above: at most
    // `max_unauthenticated_connections`. When they are all held, a new one from a source address
    // that holds the most of them is reset as soon as it is accepted, and one from an address
    // holding fewer takes the place of that busiest address's oldest (closed at once); while as
    // many evicted ones are still being closed, new ones are reset too (net/connection_places.h).
    // One that has not presented a valid credential `unauthenticated_timeout_ms` after it was
    // accepted (its TLS handshake included) is closed: at once if it is waiting for a request, or
    // once the request it sent is answered. So a flood of connections that never authenticate
    // holds a few hundred descriptors and takes no place an authenticated caller needs.
    int max_unauthenticated_connections = 256;
    int unauthenticated_timeout_ms = 5000;
    // TLS on the TCP listener: both set, it speaks only TLS (1.2 or 1.3) with this PEM
    // certificate chain and key; a client that does not (plain HTTP) is closed unanswered, its
    // address logged once. The handshake must end within idle_timeout_ms. The Unix socket stays plain.
    std::string tls_cert_file;
    std::string tls_key_file;
  };
  // Binds and starts serving on background threads; returns once listening. `handler` runs on
  // those threads (concurrently, up to `threads` at a time) and must be thread-safe; it must not
  // call Stop() or destroy the server. `options.tokens` must outlive the server.
  static StatusOr<std::unique_ptr<HttpServer>> Start(const Options& options, HttpHandler handler);
  virtual ~HttpServer() = default;
  virtual int tcp_port() const = 0;   // the bound port, or -1
  // Stops listening, closes idle connections, lets requests in flight finish (a few seconds at
  // most), joins its threads and removes the Unix socket file. Idempotent; the destructor calls it.
  virtual void Stop() = 0;
};

// A blocking client with one kept-alive connection; reconnects once if the server closed it.
// Not thread-safe (one per thread).
class HttpClient {
 public:
  // `address`: "host:port" or "unix:/path/to/socket". `token` (optional) is sent as
  // "Authorization: Muster <token>" on every request. Connects at once (Unavailable if nobody
  // listens); `timeout_ms` bounds each connect, request write and response read.
  static StatusOr<std::unique_ptr<HttpClient>> Connect(const std::string& address, const std::string& token = "",
                                                       int timeout_ms = 30000);
  // Where a client's tokens come from: `next` is called for each connection it opens (a server
  // takes a token for one connection only: net/token.h), and the connection is opened again, with
  // a new token, once `renew_after_s` have passed since (before the token expires). An error from
  // `next` is the request's.
  struct TokenSource {
    std::function<StatusOr<std::string>()> next;
    int64_t renew_after_s = 150;  // half of kTokenTtlSeconds
    // `first` (a token already in hand) for the first connection, then `then()` for each other.
    static TokenSource FirstThen(std::string first, std::function<StatusOr<std::string>()> then);
  };
  static StatusOr<std::unique_ptr<HttpClient>> Connect(const std::string& address, TokenSource tokens,
                                                       int timeout_ms = 30000);
  // TLS on TCP: the server's certificate must chain to a CA certificate in `ca_file` (PEM) and
  // name the host dialed (an IP SAN for an IP address, else a DNS SAN). Unix addresses stay plain.
  struct Tls {
    std::string ca_file;
  };
  static StatusOr<std::unique_ptr<HttpClient>> Connect(const std::string& address, const std::string& token,
                                                       int timeout_ms, const Tls& tls);
  static StatusOr<std::unique_ptr<HttpClient>> Connect(const std::string& address, TokenSource tokens,
                                                       int timeout_ms, const Tls& tls);
  // The TLS the Connect calls without `tls` use for TCP addresses, for the whole process (the
  // daemons and commands set it from muster.yaml's tls section); nullopt (the default): plain.
  // Loads the CA file now (an error names it). Thread-safe.
  static Status SetProcessTls(std::optional<Tls> tls);
  virtual ~HttpClient() = default;
  // Errors only for transport failures (connection refused, timeout: Unavailable with the
  // address in the message); HTTP error statuses come back as responses. A request that finds
  // its kept-alive connection closed by the server (EOF or reset before any response byte) is
  // sent once more on a new connection; after a transport error the next call reconnects.
  virtual StatusOr<HttpResponse> Request(const std::string& method, const std::string& target,
                                         const std::string& body = "") = 0;
};

}  // namespace muster
