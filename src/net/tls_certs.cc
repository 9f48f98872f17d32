// Certificates through OpenSSL's C API (libcrypto only).
#include "net/tls_certs.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>

namespace muster {
namespace {

template <class T, void (*F)(T*)>
struct Deleter {
  void operator()(T* p) const { F(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

Status Fail(const std::string& what) { return Internal(what + ": " + OpenSslError()); }

bool IsIp(const std::string& s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

// Writes `data` to `path` (replaced) with `mode`, whatever the umask; the file is never readable
// more widely than `mode` while written.
Status WriteFileMode(const std::string& path, const std::string& data, mode_t mode) {
  std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return FailedPrecondition("cannot create " + tmp + ": " + std::strerror(errno));
  bool ok = ::fchmod(fd, mode) == 0;
  size_t done = 0;
  while (ok && done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ok = false;
    else done += static_cast<size_t>(n);
  }
  int err = errno;
  if (::close(fd) != 0 && ok) ok = false, err = errno;
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) ok = false, err = errno;
  if (!ok) {
    ::unlink(tmp.c_str());
    return FailedPrecondition("cannot write " + path + ": " + std::strerror(err));
  }
  return Status::Ok();
}

StatusOr<std::string> Pem(const std::function<int(BIO*)>& write) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || write(bio.get()) != 1) return Fail("cannot encode PEM");
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

Status WriteKey(const std::string& path, EVP_PKEY* key) {
  ASSIGN_OR_RETURN(std::string pem, Pem([key](BIO* b) {
                     return PEM_write_bio_PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr);
                   }));
  return WriteFileMode(path, pem, 0600);
}

Status WriteCert(const std::string& path, X509* cert) {
  ASSIGN_OR_RETURN(std::string pem, Pem([cert](BIO* b) { return PEM_write_bio_X509(b, cert); }));
  return WriteFileMode(path, pem, 0644);
}

StatusOr<KeyPtr> NewKey() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return Fail("cannot generate an EC P-256 key");
  return key;
}

Status AddExt(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return Fail("cannot make the certificate extension '" + value + "'");
  int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  return ok == 1 ? Status::Ok() : Fail("cannot add the certificate extension '" + value + "'");
}

// A certificate for `key`, issued by `issuer_name` (nullptr: itself), valid `days` from an hour ago.
StatusOr<X509Ptr> NewCert(EVP_PKEY* key, const std::string& cn, X509* issuer, long days) {
  X509Ptr cert(X509_new());
  if (!cert) return Fail("cannot allocate a certificate");
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return Fail("cannot draw a serial number");
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  ASN1_INTEGER* sn = bn ? BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get())) : nullptr;
  BN_free(bn);
  if (sn == nullptr) return Fail("cannot set the serial number");
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), days * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("muster"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name);
  return cert;
}

StatusOr<KeyPtr> ReadKey(const std::string& path) {
  BioPtr bio(BIO_new_file(path.c_str(), "r"));
  if (!bio) return FailedPrecondition("cannot read the CA key " + path + ": " + OpenSslError());
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return FailedPrecondition("no PEM private key in " + path + ": " + OpenSslError());
  return key;
}

StatusOr<X509Ptr> ReadCert(const std::string& path) {
  BioPtr bio(BIO_new_file(path.c_str(), "r"));
  if (!bio) return FailedPrecondition("cannot read the CA certificate " + path + ": " + OpenSslError());
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return FailedPrecondition("no PEM certificate in " + path + ": " + OpenSslError());
  return cert;
}

}  // namespace

Status WriteTlsCa(const std::string& cert_path, const std::string& key_path, const std::string& common_name) {
  ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  ASSIGN_OR_RETURN(X509Ptr cert, NewCert(key.get(), common_name, nullptr, 3653));
  RETURN_IF_ERROR(AddExt(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE"));
  RETURN_IF_ERROR(AddExt(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign"));
  RETURN_IF_ERROR(AddExt(cert.get(), cert.get(), NID_subject_key_identifier, "hash"));
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) return Fail("cannot sign the CA certificate");
  RETURN_IF_ERROR(WriteKey(key_path, key.get()));
  return WriteCert(cert_path, cert.get());
}

Status WriteTlsServerCert(const std::string& ca_cert_path, const std::string& ca_key_path,
                          const std::string& cert_path, const std::string& key_path,
                          const std::vector<std::string>& sans) {
  if (sans.empty()) return InvalidArgument("a server certificate needs at least one name (IP or DNS)");
  std::string san_text;
  for (const std::string& s : sans) {
    if (s.empty() || s.find_first_of(", \t\n") != std::string::npos) {
      return InvalidArgument("bad certificate name '" + s + "'");
    }
    san_text += (san_text.empty() ? "" : ",") + std::string(IsIp(s) ? "IP:" : "DNS:") + s;
  }
  ASSIGN_OR_RETURN(X509Ptr ca, ReadCert(ca_cert_path));
  ASSIGN_OR_RETURN(KeyPtr ca_key, ReadKey(ca_key_path));
  if (X509_check_private_key(ca.get(), ca_key.get()) != 1) {
    ERR_clear_error();
    return FailedPrecondition("the CA key " + ca_key_path + " does not belong to " + ca_cert_path);
  }
  ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  ASSIGN_OR_RETURN(X509Ptr cert, NewCert(key.get(), sans.front(), ca.get(), 365));
  RETURN_IF_ERROR(AddExt(cert.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE"));
  RETURN_IF_ERROR(AddExt(cert.get(), ca.get(), NID_key_usage, "critical,digitalSignature,keyAgreement"));
  RETURN_IF_ERROR(AddExt(cert.get(), ca.get(), NID_ext_key_usage, "serverAuth,clientAuth"));
  RETURN_IF_ERROR(AddExt(cert.get(), ca.get(), NID_subject_alt_name, san_text));
  RETURN_IF_ERROR(AddExt(cert.get(), ca.get(), NID_authority_key_identifier, "keyid:always"));
  if (X509_sign(cert.get(), ca_key.get(), EVP_sha256()) == 0) return Fail("cannot sign the server certificate");
  RETURN_IF_ERROR(WriteKey(key_path, key.get()));
  return WriteCert(cert_path, cert.get());
}

}  // namespace muster
