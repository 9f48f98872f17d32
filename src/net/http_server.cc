// HttpServer over Boost.Beast. The only translation unit that instantiates Beast's server side.
//
// Threading: one thread accepts connections on its own io_context and hands each to one of
// `threads` workers, each an io_context run by one thread; a connection stays on its worker, so
// reading a request, running the handler inline and writing the reply involve no other thread.
// (One io_context run by several threads woke idle threads for every completion: a dozen futex
// hand-offs per request, each a context switch and, on a busy machine, a wait for a CPU.) A new
// connection goes to the first worker not running a handler, so a slow handler holds one worker
// and the connections it already has; the other workers keep serving everyone else. Stop() marks
// the server as stopping, closes the acceptors and every idle connection, lets requests in flight
// finish (kStopGrace at most), then stops the io_contexts, joins, and aborts whatever is left.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "base/log.h"
#include "base/mutex.h"
#include "net/http.h"
#include "net/http_server_core.h"
#include "net/tls.h"
#include "net/token.h"
#include "net/url.h"

namespace muster {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using unix_stream = asio::local::stream_protocol;

constexpr uint32_t kHeaderLimit = 64 * 1024;
constexpr size_t kInitialReadBuffer = 16 * 1024;
constexpr auto kWriteTimeout = std::chrono::seconds(30);
constexpr auto kLingerTimeout = std::chrono::seconds(1);   // draining an unread body after a 413
constexpr size_t kLingerMaxBytes = 16 << 20;
constexpr auto kStopGrace = std::chrono::seconds(3);
constexpr auto kAcceptBackoff = std::chrono::milliseconds(100);  // after EMFILE and friends

Status Unavailable(std::string msg) { return Status(StatusCode::kUnavailable, std::move(msg)); }

// A request's header fields by lower-case name; repeated fields combined (RFC 9110).
template <class Fields>
std::map<std::string, std::string> HeaderFields(const Fields& fields) {
  std::map<std::string, std::string> headers;
  for (const auto& field : fields) {
    std::string name(field.name_string());
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    auto [it, inserted] = headers.emplace(std::move(name), std::string(field.value()));
    if (!inserted) it->second += ", " + std::string(field.value());
  }
  return headers;
}

HttpResponse CallHandler(const HttpHandler& handler, const HttpRequest& request) {
  try {
    return handler(request);
  } catch (const std::exception& e) {
    return HttpResponse::Error(500, std::string("internal error: ") + e.what());
  } catch (...) {
    return HttpResponse::Error(500, "internal error");
  }
}

// A worker: one io_context, run by one thread, with the connections handed to it.
struct Worker {
  asio::io_context ioc{1};         // concurrency hint: one thread runs it (others may still post)
  std::atomic<int64_t> busy_since{0};  // steady-clock ns when its running handler began; 0 = none runs
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::thread thread;
};

// One connection; over TLS when `Tls` (TCP only). All its methods except RequestStop run on its
// worker's thread.
template <class Protocol, bool Tls = false>
class Session : public SessionBase {
  using Plain = beast::basic_stream<Protocol>;
  using Stream = std::conditional_t<Tls, beast::ssl_stream<Plain>, Plain>;

 public:
  Session(ServerCore* core, Worker* worker, typename Protocol::socket socket, std::optional<Caller> unix_caller,
          std::string peer_name, std::string peer_key)
      : core_(core),
        worker_(worker),
        stream_(MakeStream(core, std::move(socket))),
        unix_caller_(std::move(unix_caller)),
        peer_name_(std::move(peer_name)),
        peer_key_(std::move(peer_key)) {
    // Beast reads into the spare capacity of the buffer, at least 512 bytes at a time: an empty
    // buffer takes a typical request (a job submission carries its environment, ~2-4 KB) in
    // several reads, each a trip through the io_context, often on another thread.
    buffer_.reserve(kInitialReadBuffer);
  }
  ~Session() override {
    if (registered_) core_->Unregister(this);
  }

  void Start() {
    if (unix_caller_) {
      registered_ = core_->AddCounted(this, peer_key_, core_->Privileged(unix_caller_));
    } else if (core_->ChecksCredentials()) {
      unauthenticated_ = true;
      auth_deadline_ = std::chrono::steady_clock::now() + core_->unauthenticated_timeout;
      registered_ = core_->AddUnauthenticated(this, peer_key_);
    } else {
      registered_ = core_->AddCounted(this, peer_key_, false);
    }
    if (!registered_) return;  // stopping, or no place for this peer: the socket closes with us
    if constexpr (Tls) {
      asio::dispatch(stream_.get_executor(), [self = Self()] { self->Handshake(); });
    } else {
      asio::dispatch(stream_.get_executor(), [self = Self()] { self->ReadHeader(); });
    }
  }

  void RequestStop() override {
    asio::post(stream_.get_executor(), [self = Self()] {
      self->stop_requested_ = true;
      // Idle or mid-request: close now. Writing: OnWrite closes after the response is out.
      if (!self->writing_) self->Close();
    });
  }

  void CloseNow() override { Close(); }

 private:
  std::shared_ptr<Session> Self() { return std::static_pointer_cast<Session>(shared_from_this()); }

  static Stream MakeStream(ServerCore* core, typename Protocol::socket socket) {
    if constexpr (Tls) {
      return Stream(std::move(socket), *core->ssl);
    } else {
      return Stream(std::move(socket));
    }
  }
  Plain& Lowest() { return beast::get_lowest_layer(stream_); }

  // How long the next read may take: the idle timeout, and for a connection that has not
  // authenticated, no later than its deadline.
  std::chrono::steady_clock::duration ReadTimeout() const {
    const std::chrono::steady_clock::duration idle = core_->idle_timeout;
    if (!unauthenticated_) return idle;
    const auto left = auth_deadline_ - std::chrono::steady_clock::now();
    return std::clamp(left, std::chrono::steady_clock::duration::zero(), idle);
  }
  bool PastAuthDeadline() const { return unauthenticated_ && std::chrono::steady_clock::now() >= auth_deadline_; }

  // The TLS handshake, within the idle timeout: a client that says nothing, or speaks plain HTTP,
  // is closed without an answer.
  void Handshake() {
    if (stop_requested_) return Close();
    Lowest().expires_after(ReadTimeout());
    stream_.async_handshake(asio::ssl::stream_base::server, [self = Self()](beast::error_code ec) {
      if (self->core_->hard_stop || self->stop_requested_) return self->Close();
      if (ec) {
        self->core_->LogTlsFailure(self->peer_key_, self->peer_name_, TlsErrorText(ec, nullptr));
        return self->Close();
      }
      self->ReadHeader();
    });
  }

  void ReadHeader() {
    if (stop_requested_ || PastAuthDeadline()) return Close();
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(boost::none);  // the route's own limit is set once the header is in
    Lowest().expires_after(ReadTimeout());
    http::async_read_header(stream_, buffer_, *parser_, [self = Self()](beast::error_code ec, size_t) {
      if (ec) return self->OnRead(ec);
      if (!self->Admit()) return;
      if (self->parser_->is_done()) return self->OnRead(ec);
      const auto& req = self->parser_->get();
      // Before any of the body is read: how large it may be.
      std::string_view target = req.target();
      const std::string_view path = target.substr(0, target.find('?'));
      const uint64_t limit = self->core_->BodyLimit(req.method_string(), path);
      const boost::optional<uint64_t> length = self->parser_->content_length();
      if (length && *length > limit) {
        return self->Reply(HttpResponse::Error(413, "request body is larger than " + std::to_string(limit) + " bytes"),
                           false, true);
      }
      self->parser_->body_limit(limit);
      if (!beast::iequals(req[http::field::expect], "100-continue")) return self->ReadBody();
      // curl and friends wait for this before sending a large body.
      static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
      self->Lowest().expires_after(kWriteTimeout);
      asio::async_write(self->stream_, asio::buffer(kContinue, sizeof(kContinue) - 1),
                        [self](beast::error_code ec, size_t) { ec ? self->Close() : self->ReadBody(); });
    });
  }

  // Once a request's header is in, before any of its body: who calls (the kernel's word on a Unix
  // socket, else the credential the request presents), the connection's place once it
  // authenticates (its uid's), and whether a body may be read. False when it answered instead.
  bool Admit() {
    const auto& req = parser_->get();
    if (unix_caller_) {
      caller_ = *unix_caller_;
      return true;
    }
    caller_ = core_->AuthenticateTcp(HeaderFields(req), &session_token_);
    if (unauthenticated_ && caller_.authenticated) {
      std::string why;
      switch (core_->Promote(this, caller_, &why)) {
        case ConnectionPlaces::Promotion::kPromoted:
          unauthenticated_ = false;
          break;
        case ConnectionPlaces::Promotion::kNoPlace:
          Reply(HttpResponse::Error(429, "too many connections: " + why), false, true);
          return false;
        case ConnectionPlaces::Promotion::kNotHeld:  // it gave its place up: it is being closed
          Close();
          return false;
      }
    }
    const boost::optional<uint64_t> length = parser_->content_length();
    const bool has_body = (length && *length > 0) || parser_->chunked();
    if (has_body && !caller_.authenticated && core_->authenticate_before_body && core_->ChecksCredentials()) {
      Reply(core_->Unauthenticated(caller_.error), false, true);
      return false;
    }
    return true;
  }

  void ReadBody() {
    Lowest().expires_after(ReadTimeout());
    http::async_read(stream_, buffer_, *parser_,
                     [self = Self()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    if (core_->hard_stop || stop_requested_) return Close();
    if (ec == http::error::body_limit) {
      return Reply(HttpResponse::Error(413, "request body is too large"), /*keep_alive=*/false, /*linger=*/true);
    }
    if (ec == http::error::header_limit) {
      return Reply(HttpResponse::Error(431, "request header is too large"), false, true);
    }
    if (ec) {
      bool parse_error = ec.category() == http::make_error_code(http::error::bad_method).category() &&
                         ec != http::error::end_of_stream && ec != http::error::partial_message;
      if (!parse_error) return Close();  // the peer went away, timed out, or we closed it
      return Reply(HttpResponse::Error(400, "malformed HTTP request: " + ec.message()), false, true);
    }

    http::request<http::string_body>& req = parser_->get();
    HttpRequest request;
    request.method = std::string(req.method_string());
    std::string_view target = req.target();
    size_t q = target.find('?');
    request.path = std::string(target.substr(0, q));
    if (q != std::string_view::npos) request.query = ParseQuery(target.substr(q + 1));
    request.headers = HeaderFields(req);
    request.body = std::move(req.body());
    request.caller = caller_;  // Admit's
    request.peer = peer_name_;
    worker_->busy_since.store(std::max<int64_t>(SteadyNanos(), 1), std::memory_order_relaxed);
    HttpResponse response = request.path.empty() || request.path[0] != '/'
                                ? HttpResponse::Error(400, "request target must be an absolute path")
                                : CallHandler(core_->handler, request);
    worker_->busy_since.store(0, std::memory_order_relaxed);
    Reply(std::move(response), req.keep_alive(), false);
  }

  void Reply(HttpResponse response, bool keep_alive, bool linger) {
    unsigned status = response.status >= 100 && response.status <= 999 ? unsigned(response.status) : 500u;
    res_.emplace();
    res_->version(11);
    res_->result(status);
    res_->set(http::field::server, "muster");
    res_->set(http::field::content_type, response.content_type);
    for (const auto& [name, value] : response.headers) res_->set(name, value);
    res_->keep_alive(keep_alive && !stop_requested_);
    res_->body() = std::move(response.body);
    res_->prepare_payload();
    writing_ = true;
    Lowest().expires_after(kWriteTimeout);
    http::async_write(stream_, *res_, [self = Self(), linger](beast::error_code ec, size_t) {
      self->writing_ = false;
      bool keep = self->res_->keep_alive();
      self->res_.reset();
      if (ec) return self->Close();
      if (linger) return self->Linger();
      if (!keep || self->stop_requested_) return self->Close();
      self->ReadHeader();
    });
  }

  // After an error reply the client may still be sending its body. Closing with unread data would
  // make the kernel reset the connection, and the client might never see our reply, so read and
  // drop what comes for a moment first.
  void Linger() {
    beast::error_code ignored;
    Lowest().socket().shutdown(Protocol::socket::shutdown_send, ignored);
    Lowest().expires_after(kLingerTimeout);
    drain_.resize(64 * 1024);
    DrainSome();
  }
  void DrainSome() {
    stream_.async_read_some(asio::buffer(drain_), [self = Self()](beast::error_code ec, size_t n) {
      self->drained_ += n;
      if (ec || self->drained_ > kLingerMaxBytes || self->stop_requested_) return self->Close();
      self->DrainSome();
    });
  }

  void Close() {
    beast::error_code ignored;
    Lowest().socket().shutdown(Protocol::socket::shutdown_both, ignored);
    Lowest().close();
  }

  ServerCore* core_;
  Worker* worker_;
  Stream stream_;
  std::optional<Caller> unix_caller_;  // set on Unix sockets: the kernel's word, for every request
  std::string session_token_;          // the token this connection opened with (TCP)
  std::string peer_name_;
  // Whose connection this is when it opens: a Unix peer's "uid 1000", a TCP peer's address
  // ("127.0.0.1"), by which it holds a place until it authenticates (then it is its uid's).
  std::string peer_key_;
  Caller caller_;                // the request's, from Admit
  bool unauthenticated_ = false;  // TCP, on a server that checks credentials, none valid yet
  std::chrono::steady_clock::time_point auth_deadline_;  // then closed, if still unauthenticated
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> res_;
  std::string drain_;
  size_t drained_ = 0;
  bool writing_ = false;
  bool stop_requested_ = false;
  bool registered_ = false;
};

Caller PeerCredentials(int fd, int* pid) {
  Caller caller;
  struct ucred cred;
  socklen_t len = sizeof(cred);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    caller.via = "none";
    caller.error = std::string("cannot read peer credentials: ") + std::strerror(errno);
    return caller;
  }
  *pid = cred.pid;
  caller.authenticated = true;
  caller.uid = cred.uid;
  caller.gid = cred.gid;
  caller.via = "unix";
  return caller;
}

// A listening socket with its accept loop, on the accepting thread's io_context.
template <class Protocol>
struct Listener {
  explicit Listener(asio::io_context& ioc) : acceptor(ioc), backoff(ioc) {}
  typename Protocol::acceptor acceptor;
  asio::steady_timer backoff;
};

class ServerImpl : public HttpServer {
 public:
  ServerImpl(const Options& options, HttpHandler handler) : options_(options) {
    core_.handler = std::move(handler);
    core_.tokens = options.tokens;
    core_.max_body = static_cast<uint64_t>(std::max<int64_t>(options.max_body_bytes, 0));
    core_.body_limit = options.body_limit;
    core_.authenticate_before_body = options.authenticate_before_body;
    core_.idle_timeout = std::chrono::milliseconds(std::max(options.idle_timeout_ms, 1));
    core_.authenticate = options.authenticate;
    core_.unauthenticated_reply = options.unauthenticated_reply;
    core_.unauthenticated_timeout = std::chrono::milliseconds(std::max(options.unauthenticated_timeout_ms, 1));
    core_.places = ConnectionPlaces(ConnectionPlaces::Limits{options.max_connections, options.max_connections_per_peer,
                                                             options.reserved_connections,
                                                             options.max_unauthenticated_connections});
    core_.privileged_uids = options.privileged_uids;
    for (int i = 0; i < std::max(options.threads, 1); ++i) workers_.push_back(std::make_unique<Worker>());
  }
  ~ServerImpl() override { Stop(); }

  Status Listen() {
    if (options_.tcp_port < 0 && options_.unix_path.empty()) return InvalidArgument("no TCP port and no Unix path");
    if (options_.tls_cert_file.empty() != options_.tls_key_file.empty()) {
      return InvalidArgument("TLS needs both a certificate chain file and a key file");
    }
    if (options_.tcp_port >= 0 && !options_.tls_cert_file.empty()) {
      ASSIGN_OR_RETURN(ssl_, MakeServerTlsContext(options_.tls_cert_file, options_.tls_key_file));
      core_.ssl = ssl_.get();
    }
    if (options_.tcp_port >= 0) RETURN_IF_ERROR(ListenTcp());
    if (!options_.unix_path.empty()) RETURN_IF_ERROR(ListenUnix());
    return Status::Ok();
  }

  void Run() {
    work_.emplace(ioc_.get_executor());
    if (tcp_) Accept(*tcp_);
    if (unix_) Accept(*unix_);
    for (auto& w : workers_) {
      w->work.emplace(w->ioc.get_executor());
      w->thread = std::thread([ioc = &w->ioc] { RunContext(*ioc); });
    }
    accept_thread_ = std::thread([this] { RunContext(ioc_); });
  }

  static void RunContext(asio::io_context& ioc) {
    for (;;) {
      try {
        ioc.run();
        return;
      } catch (const std::exception& e) {  // a bug or bad_alloc in a completion; keep serving
        LogError(std::string("http server: ") + e.what());
      }
    }
  }

  // The first worker not running a handler; if all are, the one whose handler began last (one
  // that has run for long may be blocked for longer still).
  Worker& PickWorker() {
    Worker* best = nullptr;
    int64_t best_since = 0;
    for (auto& w : workers_) {
      int64_t since = w->busy_since.load(std::memory_order_relaxed);
      if (since == 0) return *w;
      if (best == nullptr || since > best_since) best = w.get(), best_since = since;
    }
    return *best;
  }

  int tcp_port() const override { return tcp_port_; }

  void Stop() override {
    {
      MutexLock lock(stop_mu_);
      if (stopped_) return;
      stopped_ = true;
    }
    for (const auto& w : workers_) {
      MUSTER_CHECK(w->thread.get_id() != std::this_thread::get_id()) << "HttpServer::Stop called from a handler";
    }
    std::vector<std::shared_ptr<SessionBase>> sessions;
    {
      MutexLock lock(core_.mu);
      core_.stopping = true;
      for (auto& [ptr, weak] : core_.live) {
        if (auto s = weak.lock()) sessions.push_back(std::move(s));
      }
    }
    if (tcp_) asio::post(ioc_, [this] { CloseListener(*tcp_); });
    if (unix_) asio::post(ioc_, [this] { CloseListener(*unix_); });
    for (auto& s : sessions) s->RequestStop();
    sessions.clear();  // our references must not keep the count up
    {
      MutexLock lock(core_.mu);
      lock.WaitFor(core_.cv, kStopGrace, [this] {
        core_.mu.AssertHeld();
        return core_.live.empty();
      });
    }
    core_.hard_stop = true;
    work_.reset();
    ioc_.stop();
    if (accept_thread_.joinable()) accept_thread_.join();
    for (auto& w : workers_) {
      w->work.reset();
      w->ioc.stop();
      if (w->thread.joinable()) w->thread.join();
    }
    // Only this thread is left: close what did not finish in time and let the aborted operations
    // release their sessions.
    if (tcp_) CloseListener(*tcp_);
    if (unix_) CloseListener(*unix_);
    {
      MutexLock lock(core_.mu);
      for (auto& [ptr, weak] : core_.live) {
        if (auto s = weak.lock()) sessions.push_back(std::move(s));
      }
    }
    for (auto& s : sessions) s->CloseNow();
    sessions.clear();
    ioc_.restart();
    ioc_.poll();
    for (auto& w : workers_) {
      w->ioc.restart();
      w->ioc.poll();
    }
    RemoveSocketFile();
  }

 private:
  Status ListenTcp() {
    beast::error_code ec;
    tcp::resolver resolver(ioc_);
    auto results = resolver.resolve(options_.tcp_host, std::to_string(options_.tcp_port),
                                    tcp::resolver::passive | tcp::resolver::numeric_service, ec);
    std::string where = options_.tcp_host + ":" + std::to_string(options_.tcp_port);
    if (ec || results.empty()) return Unavailable("cannot resolve listen address " + where + ": " + ec.message());
    tcp::endpoint endpoint = results.begin()->endpoint();
    tcp_.emplace(ioc_);
    auto& acc = tcp_->acceptor;
    if (acc.open(endpoint.protocol(), ec) || acc.set_option(tcp::acceptor::reuse_address(true), ec) ||
        acc.bind(endpoint, ec) || acc.listen(asio::socket_base::max_listen_connections, ec)) {
      return Unavailable("cannot listen on " + where + ": " + ec.message());
    }
    tcp_port_ = acc.local_endpoint(ec).port();
    return Status::Ok();
  }

  Status ListenUnix() {
    const std::string& path = options_.unix_path;
    if (path.size() >= sizeof(sockaddr_un::sun_path)) return InvalidArgument("Unix socket path is too long: " + path);
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0) {
      if (!S_ISSOCK(st.st_mode)) return FailedPrecondition("'" + path + "' exists and is not a socket");
      if (SomeoneListens(path)) {
        return Status(StatusCode::kAlreadyExists, "another server is listening on unix:" + path);
      }
      if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
        return Unavailable("cannot remove stale socket '" + path + "': " + std::strerror(errno));
      }
    }
    beast::error_code ec;
    unix_.emplace(ioc_);
    auto& acc = unix_->acceptor;
    unix_stream::endpoint endpoint(path);
    if (acc.open(endpoint.protocol(), ec) || acc.bind(endpoint, ec)) {
      return Unavailable("cannot listen on unix:" + path + ": " + ec.message());
    }
    if (::chmod(path.c_str(), static_cast<mode_t>(options_.unix_mode)) != 0 || ::lstat(path.c_str(), &st) != 0) {
      return Unavailable("cannot set the mode of unix:" + path + ": " + std::strerror(errno));
    }
    socket_inode_ = {st.st_dev, st.st_ino};
    if (acc.listen(asio::socket_base::max_listen_connections, ec)) {
      return Unavailable("cannot listen on unix:" + path + ": " + ec.message());
    }
    return Status::Ok();
  }

  static bool SomeoneListens(const std::string& path) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    ::close(fd);
    return ok;
  }

  // Removes the socket file if it is still the one we bound (a successor may have replaced it).
  void RemoveSocketFile() {
    if (!socket_inode_) return;
    struct stat st;
    if (::lstat(options_.unix_path.c_str(), &st) == 0 && st.st_dev == socket_inode_->first &&
        st.st_ino == socket_inode_->second) {
      ::unlink(options_.unix_path.c_str());
    }
    socket_inode_.reset();
  }

  template <class Protocol>
  static void CloseListener(Listener<Protocol>& l) {
    beast::error_code ignored;
    l.acceptor.close(ignored);
    l.backoff.cancel();
  }

  template <class Protocol>
  void Accept(Listener<Protocol>& l) {
    l.acceptor.async_accept([this, &l](beast::error_code ec, typename Protocol::socket s) {
      if (!l.acceptor.is_open() || ec == asio::error::operation_aborted) return;
      if (ec) {
        // Out of descriptors or memory: retrying at once would spin, so wait a little.
        l.backoff.expires_after(kAcceptBackoff);
        l.backoff.async_wait([this, &l](beast::error_code ec) {
          if (!ec && l.acceptor.is_open()) Accept(l);
        });
        return;
      }
      std::optional<Caller> unix_caller;
      std::string peer_name, peer_key;
      if constexpr (std::is_same_v<Protocol, unix_stream>) {
        int pid = 0;
        unix_caller = PeerCredentials(s.native_handle(), &pid);
        peer_name = "unix pid " + std::to_string(pid);
        peer_key = "uid " + std::to_string(unix_caller->uid);
      } else {
        beast::error_code ignored;
        s.set_option(tcp::no_delay(true), ignored);
        tcp::endpoint remote = s.remote_endpoint(ignored);
        std::string ip = remote.address().to_string();
        peer_name = (remote.address().is_v6() ? "[" + ip + "]" : ip) + ":" + std::to_string(remote.port());
        peer_key = ip;
        if (core_.ChecksCredentials() && !core_.MayAddUnauthenticated(ip)) {
          s.set_option(asio::socket_base::linger(true, 0), ignored);  // a reset: no TIME_WAIT left here
          s.close(ignored);
          return Accept(l);
        }
      }
      // The worker is chosen now, not when the accept was started: the socket moves to its
      // io_context (a different epoll set) by handing over the descriptor.
      Worker& worker = PickWorker();
      beast::error_code move_ec;
      auto protocol = s.local_endpoint(move_ec).protocol();
      int fd = move_ec ? -1 : s.release(move_ec);
      if (move_ec || fd < 0) return Accept(l);  // the socket closes with `s`
      typename Protocol::socket moved(worker.ioc);
      moved.assign(protocol, fd, move_ec);
      if (move_ec) {
        ::close(fd);
        return Accept(l);
      }
      bool tls = false;
      if constexpr (std::is_same_v<Protocol, tcp>) {
        if (core_.ssl != nullptr) {
          tls = true;
          std::make_shared<Session<Protocol, true>>(&core_, &worker, std::move(moved), std::move(unix_caller),
                                                    std::move(peer_name), std::move(peer_key))
              ->Start();
        }
      }
      if (!tls) {
        std::make_shared<Session<Protocol>>(&core_, &worker, std::move(moved), std::move(unix_caller),
                                            std::move(peer_name), std::move(peer_key))
            ->Start();
      }
      Accept(l);
    });
  }

  const Options options_;
  std::shared_ptr<asio::ssl::context> ssl_;  // the TCP listener's TLS (null: plain)
  ServerCore core_;  // before the io_contexts: sessions destroyed with them still reach it
  std::vector<std::unique_ptr<Worker>> workers_;  // before ioc_: its sockets may belong to them
  asio::io_context ioc_{1};                       // the accepting thread's
  // Keeps the threads in run() until Stop() is done draining, even at moments with no I/O pending
  // (otherwise they could leave while Stop() still posts work for them).
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::optional<Listener<tcp>> tcp_;  // after ioc_: destroyed before it
  std::optional<Listener<unix_stream>> unix_;
  std::thread accept_thread_;
  int tcp_port_ = -1;
  std::optional<std::pair<dev_t, ino_t>> socket_inode_;
  Mutex stop_mu_{"server stop"};
  bool stopped_ GUARDED_BY(stop_mu_) = false;
};

}  // namespace

StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const Options& options, HttpHandler handler) {
  auto server = std::make_unique<ServerImpl>(options, std::move(handler));
  Status status = server->Listen();
  if (!status.ok()) return status;
  server->Run();
  return std::unique_ptr<HttpServer>(std::move(server));
}

}  // namespace muster
