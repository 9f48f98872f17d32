// TLS for the HTTP server and client (Boost.Asio's OpenSSL binding): the contexts both ends use,
// and error texts. Internal to net/.
#pragma once

#include <openssl/ssl.h>

#include <boost/asio/ssl/context.hpp>
#include <boost/system/error_code.hpp>
#include <memory>
#include <string>

#include "base/status.h"

namespace muster {

// TLS 1.2 and 1.3 only; in TLS 1.2 only ECDHE key exchange with AES-GCM or ChaCha20-Poly1305
// (forward secrecy, AEAD); TLS 1.3's default suites (the same ciphers).
inline constexpr char kTls12Ciphers[] = "ECDHE+AESGCM:ECDHE+CHACHA20";

// A server context presenting the PEM certificate chain and key in these files (checked to match).
StatusOr<std::shared_ptr<boost::asio::ssl::context>> MakeServerTlsContext(const std::string& cert_chain_file,
                                                                          const std::string& key_file);
// A client context that verifies servers against the PEM CA certificate(s) in `ca_file`.
StatusOr<std::shared_ptr<boost::asio::ssl::context>> MakeClientTlsContext(const std::string& ca_file);

// Makes `ssl` (a client's, before its handshake) check that the server's certificate names
// `host`: an IP SAN when `host` is an IP address, else a DNS SAN (and sends it as SNI).
Status ExpectTlsPeerName(SSL* ssl, const std::string& host);

// "certificate verify failed (Hostname mismatch)": the error, and for a certificate the
// verification's own reason (`ssl` may be null).
std::string TlsErrorText(const boost::system::error_code& ec, SSL* ssl);

}  // namespace muster
