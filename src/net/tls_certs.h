// A cluster's TLS certificates, made without the openssl command: a certificate authority (CA)
// and server certificates signed by it, for `muster up --tcp` and the tests. A site may give its
// own instead (docs/configuration.md, "TLS").
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace muster {

// Writes a new CA: an EC P-256 key (PEM, mode 0600) and a self-signed certificate valid for
// 10 years (PEM, mode 0644), CA:TRUE, subject CN=`common_name`. Existing files are replaced.
Status WriteTlsCa(const std::string& cert_path, const std::string& key_path, const std::string& common_name);

// Writes a server certificate (1 year, EC P-256 key at `key_path`, mode 0600) signed by the CA
// at `ca_cert_path`/`ca_key_path`, for the names in `sans`: each an IP address (v4 or v6),
// written as an IP SAN, or a DNS name. Usable by both ends (serverAuth and clientAuth).
Status WriteTlsServerCert(const std::string& ca_cert_path, const std::string& ca_key_path,
                          const std::string& cert_path, const std::string& key_path,
                          const std::vector<std::string>& sans);

}  // namespace muster
