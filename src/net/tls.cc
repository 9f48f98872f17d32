#include "net/tls.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <boost/asio/ssl/error.hpp>

namespace muster {
namespace {

namespace ssl = boost::asio::ssl;

std::shared_ptr<ssl::context> NewContext(ssl::context::method method) {
  auto ctx = std::make_shared<ssl::context>(method);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                   ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::no_compression |
                   ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  SSL_CTX_set_cipher_list(ctx->native_handle(), kTls12Ciphers);
  return ctx;
}

std::string Reason(const boost::system::error_code& ec) {
  std::string m = ec.message();
  return m.empty() ? "unknown error" : m;
}

}  // namespace

StatusOr<std::shared_ptr<ssl::context>> MakeServerTlsContext(const std::string& cert_chain_file,
                                                             const std::string& key_file) {
  auto ctx = NewContext(ssl::context::tls_server);
  boost::system::error_code ec;
  if (ctx->use_certificate_chain_file(cert_chain_file, ec)) {
    return FailedPrecondition("cannot load the TLS certificate chain " + cert_chain_file + ": " + Reason(ec));
  }
  if (ctx->use_private_key_file(key_file, ssl::context::pem, ec)) {
    return FailedPrecondition("cannot load the TLS key " + key_file + ": " + Reason(ec));
  }
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
    ERR_clear_error();
    return FailedPrecondition("the TLS key " + key_file + " does not belong to the certificate in " +
                              cert_chain_file);
  }
  return ctx;
}

StatusOr<std::shared_ptr<ssl::context>> MakeClientTlsContext(const std::string& ca_file) {
  auto ctx = NewContext(ssl::context::tls_client);
  boost::system::error_code ec;
  if (ctx->load_verify_file(ca_file, ec)) {
    return FailedPrecondition("cannot load the TLS CA file " + ca_file + ": " + Reason(ec));
  }
  ctx->set_verify_mode(ssl::verify_peer);
  return ctx;
}

Status ExpectTlsPeerName(SSL* ssl, const std::string& host) {
  unsigned char buf[16];
  const bool ip = inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  int ok = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str())
              : X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0);
  if (ok == 1 && !ip) ok = SSL_set_tlsext_host_name(ssl, host.c_str());
  if (ok != 1) {
    ERR_clear_error();
    return InvalidArgument("cannot check a TLS certificate for the name '" + host + "'");
  }
  return Status::Ok();
}

std::string TlsErrorText(const boost::system::error_code& ec, SSL* ssl) {
  std::string text = Reason(ec);
  if (ssl != nullptr) {
    long v = SSL_get_verify_result(ssl);
    if (v != X509_V_OK) text += std::string(" (") + X509_verify_cert_error_string(v) + ")";
  }
  if (ec == ssl::error::stream_truncated || ec == boost::asio::error::eof) text += " (the peer closed the connection)";
  return text;
}

}  // namespace muster
