// What TLS costs the daemons' HTTP (bench/tls_cost.sh): one process, two servers on loopback with
// the same trivial handler, one plain TCP and one TLS (a CA and a certificate made here, as
// `muster up --tcp` makes them), measured in alternating rounds (plain, TLS, plain, TLS, ...) so
// that the host's load weighs on both alike:
//   - kept-alive: requests per second over one connection;
//   - connect: a new connection (TCP connect, for TLS the handshake) plus one request, per call.
// Prints JSON: each figure's median over the rounds, and TLS/plain ratios.
//   tls_cost [ROUNDS] [REQUESTS_PER_ROUND] [CONNECTS_PER_ROUND]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

#include "net/http.h"
#include "net/tls_certs.h"

using namespace muster;
using Clock = std::chrono::steady_clock;

namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "tls_cost: %s\n", why.c_str());
  std::exit(1);
}

std::unique_ptr<HttpClient> Open(const std::string& address, const HttpClient::Tls* tls) {
  StatusOr<std::unique_ptr<HttpClient>> c =
      tls != nullptr ? HttpClient::Connect(address, "", 10000, *tls) : HttpClient::Connect(address, "", 10000);
  if (!c.ok()) Die(c.status().message());
  return std::move(*c);
}

void Get(HttpClient& c) {
  StatusOr<HttpResponse> r = c.Request("GET", "/v1/ping");
  if (!r.ok() || r->status != 200) Die(r.ok() ? "HTTP " + std::to_string(r->status) : r.status().message());
}

// Requests per second over one kept-alive connection.
double KeptAlive(const std::string& address, const HttpClient::Tls* tls, int n) {
  std::unique_ptr<HttpClient> c = Open(address, tls);
  Get(*c);  // (the connection opened)
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) Get(*c);
  return n / std::chrono::duration<double>(Clock::now() - t0).count();
}

// Milliseconds for a new connection and one request.
double Connect(const std::string& address, const HttpClient::Tls* tls, int n) {
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) {
    std::unique_ptr<HttpClient> c = Open(address, tls);
    Get(*c);
  }
  return 1000 * std::chrono::duration<double>(Clock::now() - t0).count() / n;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  const int requests = argc > 2 ? std::atoi(argv[2]) : 2000;
  const int connects = argc > 3 ? std::atoi(argv[3]) : 200;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("tls_cost_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string ca = (dir / "ca.crt").string(), cert = (dir / "server.crt").string(),
                    key = (dir / "server.key").string();
  if (Status st = WriteTlsCa(ca, (dir / "ca.key").string(), "tls_cost CA"); !st.ok()) Die(st.message());
  if (Status st = WriteTlsServerCert(ca, (dir / "ca.key").string(), cert, key, {"127.0.0.1"}); !st.ok()) {
    Die(st.message());
  }
  const auto handler = [](const HttpRequest&) { return HttpResponse::Json(200, "{\"pong\":true}"); };
  HttpServer::Options plain_opt;
  plain_opt.tcp_host = "127.0.0.1";
  plain_opt.tcp_port = 0;
  HttpServer::Options tls_opt = plain_opt;
  tls_opt.tls_cert_file = cert;
  tls_opt.tls_key_file = key;
  StatusOr<std::unique_ptr<HttpServer>> plain = HttpServer::Start(plain_opt, handler);
  StatusOr<std::unique_ptr<HttpServer>> tls = HttpServer::Start(tls_opt, handler);
  if (!plain.ok()) Die(plain.status().message());
  if (!tls.ok()) Die(tls.status().message());
  const std::string plain_at = "127.0.0.1:" + std::to_string((*plain)->tcp_port());
  const std::string tls_at = "127.0.0.1:" + std::to_string((*tls)->tcp_port());
  const HttpClient::Tls trust{ca};
  std::vector<double> plain_rps, tls_rps, plain_ms, tls_ms;
  for (int r = 0; r < rounds; ++r) {
    plain_rps.push_back(KeptAlive(plain_at, nullptr, requests));
    tls_rps.push_back(KeptAlive(tls_at, &trust, requests));
    plain_ms.push_back(Connect(plain_at, nullptr, connects));
    tls_ms.push_back(Connect(tls_at, &trust, connects));
  }
  (*plain)->Stop();
  (*tls)->Stop();
  std::filesystem::remove_all(dir);
  const double prps = Median(plain_rps), trps = Median(tls_rps), pms = Median(plain_ms), tms = Median(tls_ms);
  std::printf(
      "{\"rounds\": %d, \"requests_per_round\": %d, \"connects_per_round\": %d,\n"
      " \"kept_alive_rps\": {\"plain\": %.0f, \"tls\": %.0f, \"tls_over_plain\": %.3f},\n"
      " \"connect_and_request_ms\": {\"plain\": %.3f, \"tls\": %.3f, \"tls_over_plain\": %.2f}}\n",
      rounds, requests, connects, prps, trps, trps / prps, pms, tms, tms / pms);
  return 0;
}
