#include "net/tls_certs.h"

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>

#include "base/test_util.h"

namespace muster {
namespace {

X509* ReadCert(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return nullptr;
  X509* c = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  return c;
}

int Mode(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return -1;
  return st.st_mode & 0777;
}

// X509_verify_cert's verdict on `leaf` against `ca` alone, with `host` or `ip` to match if set.
int Verify(X509* ca, X509* leaf, const char* host, const char* ip) {
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, leaf, nullptr);
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx);
  X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
  if (host) X509_VERIFY_PARAM_set1_host(param, host, 0);
  if (ip) X509_VERIFY_PARAM_set1_ip_asc(param, ip);
  int ok = X509_verify_cert(ctx);
  int err = ok == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  return err;
}

TEST(TlsCerts, ServerCertVerifiesAgainstItsCaWithItsNamesOnly) {
  TempDir dir("muster-tls-test-");
  const std::string ca = dir.Path("ca.crt"), ca_key = dir.Path("ca.key");
  const std::string crt = dir.Path("server.crt"), key = dir.Path("server.key");
  ASSERT_TRUE(WriteTlsCa(ca, ca_key, "test CA").ok());
  ASSERT_TRUE(WriteTlsServerCert(ca, ca_key, crt, key, {"127.0.0.1", "localhost", "node7.example", "::1"}).ok());
  EXPECT_EQ(Mode(ca_key), 0600);
  EXPECT_EQ(Mode(key), 0600);
  EXPECT_EQ(Mode(ca), 0644);
  EXPECT_EQ(Mode(crt), 0644);

  X509* ca_cert = ReadCert(ca);
  X509* leaf = ReadCert(crt);
  ASSERT_NE(ca_cert, nullptr);
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(X509_check_ca(ca_cert), 1);
  EXPECT_EQ(X509_check_ca(leaf), 0);
  EXPECT_EQ(Verify(ca_cert, leaf, nullptr, nullptr), X509_V_OK);
  EXPECT_EQ(Verify(ca_cert, leaf, "localhost", nullptr), X509_V_OK);
  EXPECT_EQ(Verify(ca_cert, leaf, "node7.example", nullptr), X509_V_OK);
  EXPECT_EQ(Verify(ca_cert, leaf, nullptr, "127.0.0.1"), X509_V_OK);
  EXPECT_EQ(Verify(ca_cert, leaf, nullptr, "::1"), X509_V_OK);
  EXPECT_EQ(Verify(ca_cert, leaf, "node8.example", nullptr), X509_V_ERR_HOSTNAME_MISMATCH);
  EXPECT_EQ(Verify(ca_cert, leaf, nullptr, "127.0.0.2"), X509_V_ERR_IP_ADDRESS_MISMATCH);
  // The IP went in as an IP SAN, not a DNS name (a DNS check for "127.0.0.1" finds nothing).
  EXPECT_EQ(Verify(ca_cert, leaf, "127.0.0.1", nullptr), X509_V_ERR_HOSTNAME_MISMATCH);

  // Validity: the CA 10 years, the server 1 year.
  int days = 0, secs = 0;
  ASSERT_EQ(ASN1_TIME_diff(&days, &secs, X509_get0_notBefore(ca_cert), X509_get0_notAfter(ca_cert)), 1);
  EXPECT_GE(days, 3652);
  ASSERT_EQ(ASN1_TIME_diff(&days, &secs, X509_get0_notBefore(leaf), X509_get0_notAfter(leaf)), 1);
  EXPECT_GE(days, 365);
  EXPECT_LE(days, 366);

  // Another CA does not vouch for it.
  ASSERT_TRUE(WriteTlsCa(dir.Path("other.crt"), dir.Path("other.key"), "other CA").ok());
  X509* other = ReadCert(dir.Path("other.crt"));
  EXPECT_NE(Verify(other, leaf, nullptr, nullptr), X509_V_OK);
  X509_free(other);
  X509_free(leaf);
  X509_free(ca_cert);
}

TEST(TlsCerts, RefusesAMismatchedCaKeyAndNoNames) {
  TempDir dir("muster-tls-test-");
  ASSERT_TRUE(WriteTlsCa(dir.Path("a.crt"), dir.Path("a.key"), "A").ok());
  ASSERT_TRUE(WriteTlsCa(dir.Path("b.crt"), dir.Path("b.key"), "B").ok());
  Status s = WriteTlsServerCert(dir.Path("a.crt"), dir.Path("b.key"), dir.Path("s.crt"), dir.Path("s.key"),
                                {"localhost"});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("does not belong"), std::string::npos) << s.message();
  s = WriteTlsServerCert(dir.Path("a.crt"), dir.Path("a.key"), dir.Path("s.crt"), dir.Path("s.key"), {});
  EXPECT_FALSE(s.ok());
  s = WriteTlsServerCert(dir.Path("missing.crt"), dir.Path("a.key"), dir.Path("s.crt"), dir.Path("s.key"),
                         {"localhost"});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("missing.crt"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace muster
