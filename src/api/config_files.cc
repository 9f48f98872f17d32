#include "api/config_files.h"

#include <openssl/evp.h>

#include <filesystem>

#include "api/route_util.h"
#include "base/log.h"
#include "base/read_file.h"
#include "config/slurm_conf.h"

namespace muster::api {
namespace {

// Each piece's length before it: no two different sets of files hash alike by moving bytes
// between a name and a text.
void Append(std::string* all, std::string_view piece) {
  all->append(std::to_string(piece.size())).append(":").append(piece);
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 15]);
  }
  return out;
}

StatusOr<ServedConfig> ReadServedConfig(const MusterConfig& conf) {
  ServedConfig out;
  ASSIGN_OR_RETURN(out.muster_yaml, ReadWholeFile(conf.path));
  const std::filesystem::path cluster(conf.cluster_file);
  ASSIGN_OR_RETURN(std::string cluster_text, ReadWholeFile(conf.cluster_file));
  out.files.push_back({cluster.filename().string(), std::move(cluster_text)});
  if (IsSlurmConfPath(conf.cluster_file)) {
    // slurm.conf's companions, read from beside it (config/slurm_conf.h): served when present.
    for (const char* name : {"topology.conf", "gres.conf"}) {
      const std::filesystem::path p = cluster.parent_path() / name;
      std::error_code ec;
      if (!std::filesystem::exists(p, ec)) continue;
      ASSIGN_OR_RETURN(std::string text, ReadWholeFile(p.string()));
      out.files.push_back({name, std::move(text)});
    }
  }
  std::string all;
  Append(&all, out.muster_yaml);
  for (const ConfigFile& f : out.files) {
    Append(&all, f.name);
    Append(&all, f.text);
  }
  out.hash = Sha256Hex(all);
  return out;
}

void AddConfigFileRoutes(Controller& c, Router& r, const ServedConfig& served, Reconfigure reconfigure) {
  r.Add("GET", "/v1/config/files", [&c, &served](const HttpRequest& req) {
    if (!c.IsAdmin(req.caller)) {
      return ErrorResponse(Status(StatusCode::kPermissionDenied,
                                  "Access/permission denied: only the agents and the admins may read the configuration files"));
    }
    return Ok(served);
  });
  r.Add("POST", "/v1/reconfigure", kChangeBodyLimit,
        [&c, reconfigure = std::move(reconfigure)](const HttpRequest& req) {
    // Slurm's refusal (ESLURM_USER_ID_MISSING): scontrol prints "slurm_reconfigure error: Invalid user id".
    if (!c.IsAdmin(req.caller)) return ErrorResponse(Status(StatusCode::kPermissionDenied, "Invalid user id"));
    if (Status st = reconfigure(); !st.ok()) {
      LogWarning("reconfigure refused: " + st.message());
      return ErrorResponse(InvalidArgument(st.message()));
    }
    LogInfo("reconfigure: the configuration checks; starting again with it");
    return Ok();
  });
}

}  // namespace muster::api
