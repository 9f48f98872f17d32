#include "agent/config_fetch.h"

#include <unistd.h>

#include <chrono>

#include "wire/codec.h"

namespace muster {

StatusOr<ServedConfig> FetchServedConfig(const std::vector<std::string>& addresses, const TokenAuthority* tokens,
                                         int timeout_ms, std::string* from) {
  if (addresses.empty()) return InvalidArgument("no controller to fetch the configuration from");
  std::string why;
  for (const std::string& a : addresses) {
    std::string token;
    if (a.rfind("unix:", 0) != 0 && tokens != nullptr) {
      const int64_t now =
          std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
      token = tokens->Mint(geteuid(), getegid(), now, kTokenTtlSeconds, kControllerAudience);
    }
    std::string failed;
    StatusOr<std::unique_ptr<HttpClient>> c = HttpClient::Connect(a, token, timeout_ms);
    if (!c.ok()) {
      failed = c.status().message();
    } else if (StatusOr<HttpResponse> r = (*c)->Request("GET", "/v1/config/files"); !r.ok()) {
      failed = r.status().message();
    } else if (r->status != 200) {
      failed = "answered " + std::to_string(r->status) + (r->status == 503 ? " (standing by)" : "") + ": " + r->body;
    } else {
      StatusOr<ServedConfig> served = wire::Decode<ServedConfig>(r->body, "the configuration from " + a);
      if (served.ok()) {
        if (from != nullptr) *from = a;
        return served;
      }
      failed = served.status().message();
    }
    why += (why.empty() ? "" : "; ") + a + ": " + failed;
  }
  return Status(StatusCode::kUnavailable, "no controller served the configuration (" + why + ")");
}

}  // namespace muster
