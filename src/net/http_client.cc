// HttpClient over Boost.Beast: the only translation unit that instantiates Beast's client side.
// Blocking calls are asynchronous operations run to completion on a private io_context, because
// Beast's timeouts (basic_stream::expires_after) only apply to asynchronous operations.
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <optional>

#include "base/mutex.h"
#include "net/http.h"
#include "net/tls.h"

namespace muster {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using unix_stream = asio::local::stream_protocol;

constexpr uint64_t kMaxResponseBody = uint64_t{1} << 30;

Status Unavailable(std::string msg) { return Status(StatusCode::kUnavailable, std::move(msg)); }

// Errors that mean "the server had already closed this kept-alive connection".
bool IsClosedByPeer(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
         ec == asio::error::broken_pipe || ec == asio::error::connection_aborted ||
         ec == asio::ssl::error::stream_truncated;  // a TLS server closed without close_notify
}

// Over TLS when `kTls` (TCP only).
template <class Protocol, bool kTls = false>
class ClientImpl : public HttpClient {
  using Plain = beast::basic_stream<Protocol>;
  using Stream = std::conditional_t<kTls, beast::ssl_stream<Plain>, Plain>;

 public:
  // For TCP `host`/`port` name the server; for Unix `host` is the socket path. `ssl`: the TLS
  // context when `kTls`.
  ClientImpl(std::string address, std::string host, std::string port, std::string token, int timeout_ms,
             HttpClient::TokenSource source = {}, std::shared_ptr<asio::ssl::context> ssl = nullptr)
      : ssl_(std::move(ssl)),
        address_(std::move(address)),
        host_(std::move(host)),
        port_(std::move(port)),
        token_(std::move(token)),
        source_(std::move(source)),
        timeout_(std::max(timeout_ms, 1)) {
    // Beast reads at most the buffer's free capacity (512 bytes when empty): a 300 KB answer
    // would take 600 reads, each re-arming the timeout timer.
    buffer_.reserve(64 * 1024);
  }

  Status Open() {
    if (source_.next) {
      StatusOr<std::string> t = source_.next();
      if (!t.ok()) return t.status();
      token_ = std::move(*t);
      opened_at_ = std::chrono::steady_clock::now();
    }
    if constexpr (kTls) {
      stream_.emplace(ioc_, *ssl_);
    } else {
      stream_.emplace(ioc_);
    }
    buffer_.clear();
    reused_ = false;
    beast::error_code ec;
    if constexpr (std::is_same_v<Protocol, tcp>) {
      tcp::resolver resolver(ioc_);
      tcp::resolver::results_type endpoints;
      resolver.async_resolve(host_, port_, [&](beast::error_code e, tcp::resolver::results_type r) {
        ec = e;
        endpoints = std::move(r);
      });
      Run();
      if (!ec) ec = RunOp([&](auto handler) { Lowest().async_connect(endpoints, std::move(handler)); });
      if (!ec) Lowest().socket().set_option(tcp::no_delay(true), ec);
    } else {
      ec = RunOp([&](auto handler) { Lowest().async_connect(unix_stream::endpoint(host_), std::move(handler)); });
    }
    if constexpr (kTls) {
      if (!ec) {
        Status named = ExpectTlsPeerName(stream_->native_handle(), host_);
        if (!named.ok()) {
          stream_.reset();
          return named;
        }
        ec = RunOp([&](auto handler) { stream_->async_handshake(asio::ssl::stream_base::client, std::move(handler)); });
        if (ec) {
          std::string why = ec == beast::error::timeout ? Describe(ec) : TlsErrorText(ec, stream_->native_handle());
          Close();
          return Unavailable("TLS handshake with " + address_ + " failed: " + why);
        }
      }
    }
    if (ec) {
      stream_.reset();
      return Unavailable("cannot connect to " + address_ + ": " + Describe(ec));
    }
    return Status::Ok();
  }

  StatusOr<HttpResponse> Request(const std::string& method, const std::string& target,
                                 const std::string& body) override {
    http::request<http::string_body> req;
    req.version(11);
    req.method_string(method);
    req.target(target);
    req.set(http::field::host, std::is_same_v<Protocol, tcp> ? address_ : "localhost");
    req.set(http::field::user_agent, "muster");
    if (!body.empty()) req.set(http::field::content_type, "application/json");
    req.body() = body;
    req.prepare_payload();
    // The connection's token would expire: a new connection, with a new token.
    if (source_.next && stream_ && std::chrono::steady_clock::now() - opened_at_ >= std::chrono::seconds(source_.renew_after_s)) {
      Close();
    }

    // A kept-alive connection may have been closed by the server while idle; that shows as EOF
    // or a reset before any byte of the response, and then one retry on a fresh connection is safe.
    bool may_retry = stream_.has_value() && reused_;
    if (!stream_) RETURN_IF_ERROR(Open());
    // (Set after Open: each connection presents the token it was opened with.)
    if (!token_.empty()) req.set(http::field::authorization, "Muster " + token_);
    bool stale = false;
    StatusOr<HttpResponse> response = Exchange(req, &stale);
    if (!response.ok() && stale && may_retry) {
      Close();
      RETURN_IF_ERROR(Open());
      if (!token_.empty()) req.set(http::field::authorization, "Muster " + token_);
      response = Exchange(req, &stale);
    }
    if (!response.ok()) Close();
    return response;
  }

 private:
  StatusOr<HttpResponse> Exchange(http::request<http::string_body>& req, bool* stale) {
    *stale = false;
    beast::error_code write_ec = RunOp([&](auto handler) { http::async_write(*stream_, req, std::move(handler)); });
    if (write_ec == beast::error::timeout) return Failed(req, write_ec);
    // Even when the write failed, the server may have answered (413 for a huge body) and closed.
    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxResponseBody);
    beast::error_code ec =
        RunOp([&](auto handler) { http::async_read(*stream_, buffer_, parser, std::move(handler)); });
    if (ec) {
      *stale = !parser.got_some() && (write_ec ? IsClosedByPeer(write_ec) : IsClosedByPeer(ec));
      return Failed(req, write_ec ? write_ec : ec);
    }
    reused_ = true;
    http::response<http::string_body>& res = parser.get();
    HttpResponse out;
    out.status = static_cast<int>(res.result_int());
    out.content_type = std::string(res[http::field::content_type]);
    out.body = std::move(res.body());
    if (!res.keep_alive()) Close();
    return out;
  }

  Status Failed(const http::request<http::string_body>& req, const beast::error_code& ec) {
    return Unavailable(std::string(req.method_string()) + " " + std::string(req.target()) + " on " + address_ +
                       " failed: " + Describe(ec));
  }

  std::string Describe(const beast::error_code& ec) const {
    if (ec == beast::error::timeout) return "timed out after " + std::to_string(timeout_.count()) + " ms";
    return ec.message();
  }

  // Starts one operation with a deadline and runs the io_context until it completes.
  template <class Start>
  beast::error_code RunOp(Start start) {
    beast::error_code result = asio::error::would_block;
    Lowest().expires_after(timeout_);
    start([&result](beast::error_code ec, auto&&...) { result = ec; });
    Run();
    return result;
  }

  void Run() {
    ioc_.restart();
    ioc_.run();
  }

  void Close() {
    if (!stream_) return;
    beast::error_code ignored;
    Lowest().socket().shutdown(Protocol::socket::shutdown_both, ignored);
    Lowest().close();
    stream_.reset();
    Run();  // let the cancelled operations (if any) finish before the next connection
  }

  Plain& Lowest() { return beast::get_lowest_layer(*stream_); }

  const std::shared_ptr<asio::ssl::context> ssl_;
  const std::string address_, host_, port_;
  std::string token_;                 // the current connection's
  const HttpClient::TokenSource source_;
  std::chrono::steady_clock::time_point opened_at_;
  const std::chrono::milliseconds timeout_;
  asio::io_context ioc_{1};
  std::optional<Stream> stream_;  // after ioc_: destroyed before it
  beast::flat_buffer buffer_;
  bool reused_ = false;  // a response already came back on this connection
};

}  // namespace

HttpClient::TokenSource HttpClient::TokenSource::FirstThen(std::string first,
                                                         std::function<StatusOr<std::string>()> then) {
  auto unused = std::make_shared<std::optional<std::string>>(std::move(first));
  TokenSource source;
  source.next = [unused, then = std::move(then)]() -> StatusOr<std::string> {
    if (!*unused) return then();
    std::string t = std::move(**unused);
    unused->reset();
    return t;
  };
  return source;
}

namespace {

// The process's TLS (HttpClient::SetProcessTls): its context, loaded once.
constinit Mutex process_tls_mu("process TLS");
std::shared_ptr<asio::ssl::context> process_tls GUARDED_BY(process_tls_mu);

std::shared_ptr<asio::ssl::context> ProcessTls() {
  MutexLock lock(process_tls_mu);
  return process_tls;
}

// `ssl`: TLS for a TCP address (null: plain).
StatusOr<std::unique_ptr<HttpClient>> ConnectWith(const std::string& address, const std::string& token, int timeout_ms,
                                                  HttpClient::TokenSource source,
                                                  std::shared_ptr<asio::ssl::context> ssl) {
  constexpr std::string_view kUnix = "unix:";
  if (address.starts_with(kUnix)) {
    std::string path = address.substr(kUnix.size());
    if (path.empty()) return InvalidArgument("empty Unix socket path in address '" + address + "'");
    auto client = std::make_unique<ClientImpl<unix_stream>>(address, path, "", token, timeout_ms, std::move(source));
    RETURN_IF_ERROR(client->Open());
    return std::unique_ptr<HttpClient>(std::move(client));
  }
  size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) {
    return InvalidArgument("address '" + address + "' is not 'host:port' or 'unix:/path'");
  }
  std::string host = address.substr(0, colon), port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 || std::stoi(port) > 65535) {
    return InvalidArgument("bad port in address '" + address + "'");
  }
  if (ssl) {
    auto client = std::make_unique<ClientImpl<tcp, true>>(address, host, port, token, timeout_ms, std::move(source),
                                                          std::move(ssl));
    RETURN_IF_ERROR(client->Open());
    return std::unique_ptr<HttpClient>(std::move(client));
  }
  auto client = std::make_unique<ClientImpl<tcp>>(address, host, port, token, timeout_ms, std::move(source));
  RETURN_IF_ERROR(client->Open());
  return std::unique_ptr<HttpClient>(std::move(client));
}

}  // namespace

StatusOr<std::unique_ptr<HttpClient>> HttpClient::Connect(const std::string& address, const std::string& token,
                                                          int timeout_ms) {
  return ConnectWith(address, token, timeout_ms, {}, ProcessTls());
}

StatusOr<std::unique_ptr<HttpClient>> HttpClient::Connect(const std::string& address, TokenSource tokens,
                                                          int timeout_ms) {
  return ConnectWith(address, "", timeout_ms, std::move(tokens), ProcessTls());
}

StatusOr<std::unique_ptr<HttpClient>> HttpClient::Connect(const std::string& address, const std::string& token,
                                                          int timeout_ms, const Tls& tls) {
  ASSIGN_OR_RETURN(std::shared_ptr<asio::ssl::context> ssl, MakeClientTlsContext(tls.ca_file));
  return ConnectWith(address, token, timeout_ms, {}, std::move(ssl));
}

StatusOr<std::unique_ptr<HttpClient>> HttpClient::Connect(const std::string& address, TokenSource tokens,
                                                          int timeout_ms, const Tls& tls) {
  ASSIGN_OR_RETURN(std::shared_ptr<asio::ssl::context> ssl, MakeClientTlsContext(tls.ca_file));
  return ConnectWith(address, "", timeout_ms, std::move(tokens), std::move(ssl));
}

Status HttpClient::SetProcessTls(std::optional<Tls> tls) {
  std::shared_ptr<asio::ssl::context> ssl;
  if (tls) {
    ASSIGN_OR_RETURN(ssl, MakeClientTlsContext(tls->ca_file));
  }
  MutexLock lock(process_tls_mu);
  process_tls = std::move(ssl);
  return Status::Ok();
}

}  // namespace muster
