// HttpServer and HttpClient over TLS: verification of the server (its CA, its name), plain
// clients refused, tokens, the process-wide client setting.
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdlib.h>

#include <ctime>
#include <filesystem>

#include "base/test_util.h"
#include "gtest/gtest.h"
#include "net/http.h"
#include "net/http_test_util.h"
#include "net/tls_certs.h"
#include "net/token.h"

namespace muster {
namespace {

using net_test::BodyOf;
using net_test::Echo;
using net_test::Json;

// A CA and a server certificate for `sans`, in a temporary directory.
class Pki {
 public:
  explicit Pki(const std::vector<std::string>& sans = {"127.0.0.1", "localhost"}) {
    EXPECT_TRUE(WriteTlsCa(ca(), dir_ + "/ca.key", "test CA").ok());
    Status s = WriteTlsServerCert(ca(), dir_ + "/ca.key", cert(), key(), sans);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  std::string ca() const { return dir_ + "/ca.crt"; }
  std::string cert() const { return dir_ + "/server.crt"; }
  std::string key() const { return dir_ + "/server.key"; }
  HttpServer::Options ServerOptions() const {
    HttpServer::Options o;
    o.tls_cert_file = cert();
    o.tls_key_file = key();
    return o;
  }

 private:
  TempDir tmp_{"muster-tls-net-"};
  const std::string dir_ = tmp_.path();
};

std::unique_ptr<HttpServer> MustStart(const HttpServer::Options& options) {
  StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(options, Echo);
  EXPECT_TRUE(server.ok()) << server.status().ToString();
  return server.ok() ? std::move(server).value() : nullptr;
}

std::string Address(const HttpServer& server, const std::string& host = "127.0.0.1") {
  return host + ":" + std::to_string(server.tcp_port());
}

TEST(HttpTlsTest, AClientTrustingTheCaIsServedAndIdentifiedByItsToken) {
  Pki pki;
  TokenAuthority tokens(std::string(32, 'k'));
  HttpServer::Options o = pki.ServerOptions();
  o.tokens = &tokens;
  o.unix_path = net_test::TempSocketPath();
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  for (const std::string host : {"127.0.0.1", "localhost"}) {
    StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Connect(
        Address(*server, host), tokens.Mint(1234, 100, std::time(nullptr), 300), 10000, HttpClient::Tls{pki.ca()});
    ASSERT_TRUE(client.ok()) << host << ": " << client.status().ToString();
    for (int i = 0; i < 3; ++i) {  // one kept-alive connection, its token presented again
      Json caller = BodyOf((*client)->Request("POST", "/who", "{\"a\":1}"))["caller"];
      EXPECT_EQ(caller["authenticated"], true) << host << " " << i << " " << caller;
      EXPECT_EQ(caller["uid"], 1234);
    }
  }
  // The Unix socket stays plain.
  StatusOr<std::unique_ptr<HttpClient>> local = HttpClient::Connect("unix:" + o.unix_path, "", 10000);
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_EQ(BodyOf((*local)->Request("GET", "/who"))["caller"]["via"], "unix");
}

TEST(HttpTlsTest, AServerCertificateFromAnotherCaIsRefused) {
  Pki pki, other;
  auto server = MustStart(pki.ServerOptions());
  ASSERT_TRUE(server);
  StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Connect(Address(*server), "", 10000,
                                                                     HttpClient::Tls{other.ca()});
  ASSERT_FALSE(client.ok());
  const std::string& m = client.status().message();
  EXPECT_NE(m.find("TLS handshake with " + Address(*server) + " failed: certificate verify failed"),
            std::string::npos) << m;
  EXPECT_NE(m.find("unable to get local issuer certificate"), std::string::npos) << m;
}

TEST(HttpTlsTest, AServerCertificateWithoutTheNameDialedIsRefused) {
  Pki pki({"node1.example", "10.1.2.3"});
  auto server = MustStart(pki.ServerOptions());
  ASSERT_TRUE(server);
  StatusOr<std::unique_ptr<HttpClient>> by_ip =
      HttpClient::Connect(Address(*server), "", 10000, HttpClient::Tls{pki.ca()});
  ASSERT_FALSE(by_ip.ok());
  EXPECT_NE(by_ip.status().message().find("IP address mismatch"), std::string::npos) << by_ip.status().message();
  StatusOr<std::unique_ptr<HttpClient>> by_name =
      HttpClient::Connect(Address(*server, "localhost"), "", 10000, HttpClient::Tls{pki.ca()});
  ASSERT_FALSE(by_name.ok());
  EXPECT_NE(by_name.status().message().find("hostname mismatch"), std::string::npos) << by_name.status().message();
}

TEST(HttpTlsTest, APlainClientGetsNoAnswerAndTheNextTlsClientIsServed) {
  Pki pki;
  auto server = MustStart(pki.ServerOptions());
  ASSERT_TRUE(server);
  int fd = net_test::RawConnectTcp(server->tcp_port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(net_test::RawSend(fd, "GET /who HTTP/1.1\r\nHost: x\r\n\r\n"));
  bool eof = false;
  std::string got = net_test::RawReadAll(fd, &eof);
  ::close(fd);
  EXPECT_TRUE(eof) << "the server closes the connection";
  EXPECT_EQ(got.find("HTTP/"), std::string::npos) << got;
  EXPECT_EQ(got.find("caller"), std::string::npos) << got;

  // Our own client without TLS: a transport error, no response.
  StatusOr<std::unique_ptr<HttpClient>> plain = HttpClient::Connect(Address(*server), "", 10000);
  ASSERT_TRUE(plain.ok()) << "TCP connects: " << plain.status().ToString();
  StatusOr<HttpResponse> r = (*plain)->Request("GET", "/who");
  EXPECT_FALSE(r.ok()) << r->body;

  StatusOr<std::unique_ptr<HttpClient>> tls = HttpClient::Connect(Address(*server), "", 10000, HttpClient::Tls{pki.ca()});
  ASSERT_TRUE(tls.ok()) << tls.status().ToString();
  StatusOr<HttpResponse> served = (*tls)->Request("GET", "/who");
  ASSERT_TRUE(served.ok()) << served.status().ToString();
  EXPECT_EQ(served->status, 200);
}

// An OpenSSL client limited to [min, max] protocol versions (and TLS 1.2 `ciphers` if given)
// against `port`: whether the handshake succeeded.
bool HandshakeWith(int port, const std::string& ca, int min, int max, const char* ciphers = nullptr) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_security_level(ctx, 0);  // let the client offer old protocols at all
  SSL_CTX_set_min_proto_version(ctx, min);
  SSL_CTX_set_max_proto_version(ctx, max);
  if (ciphers != nullptr) SSL_CTX_set_cipher_list(ctx, ciphers);
  SSL_CTX_load_verify_locations(ctx, ca.c_str(), nullptr);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  const int fd = net_test::RawConnectTcp(port);
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  const bool ok = fd >= 0 && SSL_connect(ssl) == 1;
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  ERR_clear_error();
  if (fd >= 0) ::close(fd);
  return ok;
}

TEST(HttpTlsTest, OnlyTls12And13WithAeadCiphersAreAccepted) {
  Pki pki;
  auto server = MustStart(pki.ServerOptions());
  ASSERT_TRUE(server);
  const int port = server->tcp_port();
  EXPECT_TRUE(HandshakeWith(port, pki.ca(), TLS1_3_VERSION, TLS1_3_VERSION));
  EXPECT_TRUE(HandshakeWith(port, pki.ca(), TLS1_2_VERSION, TLS1_2_VERSION));
  EXPECT_FALSE(HandshakeWith(port, pki.ca(), TLS1_VERSION, TLS1_1_VERSION));
  // TLS 1.2 with a CBC (not AEAD) cipher: refused; the same key exchange with AES-GCM: accepted.
  EXPECT_FALSE(HandshakeWith(port, pki.ca(), TLS1_2_VERSION, TLS1_2_VERSION, "ECDHE-ECDSA-AES128-SHA256"));
  EXPECT_TRUE(HandshakeWith(port, pki.ca(), TLS1_2_VERSION, TLS1_2_VERSION, "ECDHE-ECDSA-AES128-GCM-SHA256"));
}

TEST(HttpTlsTest, ASilentClientIsClosedAfterTheIdleTimeout) {
  Pki pki;
  HttpServer::Options o = pki.ServerOptions();
  o.idle_timeout_ms = 300;
  auto server = MustStart(o);
  ASSERT_TRUE(server);
  int fd = net_test::RawConnectTcp(server->tcp_port());
  ASSERT_GE(fd, 0);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(net_test::ClosedByServer(fd)) << "not closed within the 5 s receive timeout";
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(250));
  ::close(fd);
}

TEST(HttpTlsTest, TheProcessSettingMakesEveryTcpConnectionTls) {
  Pki pki;
  auto server = MustStart(pki.ServerOptions());
  ASSERT_TRUE(server);
  ASSERT_TRUE(HttpClient::SetProcessTls(HttpClient::Tls{pki.ca()}).ok());
  StatusOr<std::unique_ptr<HttpClient>> client = HttpClient::Connect(Address(*server), "", 10000);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  StatusOr<HttpResponse> r = (*client)->Request("GET", "/who");
  EXPECT_TRUE(r.ok() && r->status == 200) << (r.ok() ? r->body : r.status().ToString());
  ASSERT_TRUE(HttpClient::SetProcessTls(std::nullopt).ok());
  Status missing = HttpClient::SetProcessTls(HttpClient::Tls{"/nonexistent/ca.crt"});
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("/nonexistent/ca.crt"), std::string::npos) << missing.message();
}

TEST(HttpTlsTest, BadServerFilesAreErrorsAtStart) {
  Pki pki, other;
  HttpServer::Options o = pki.ServerOptions();
  o.tls_key_file = other.key();
  StatusOr<std::unique_ptr<HttpServer>> s = HttpServer::Start(o, Echo);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(other.key() + ": key values mismatch"), std::string::npos) << s.status().message();
  o.tls_key_file = "";
  s = HttpServer::Start(o, Echo);
  ASSERT_FALSE(s.ok());
  o = pki.ServerOptions();
  o.tls_cert_file = "/nonexistent/server.crt";
  s = HttpServer::Start(o, Echo);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("/nonexistent/server.crt"), std::string::npos) << s.status().message();
}

}  // namespace
}  // namespace muster
