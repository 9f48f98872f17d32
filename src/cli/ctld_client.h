// How the commands reach the controller: read muster.yaml (DefaultConfigPath()), connect to the
// controller's Unix socket (the kernel tells it who we are); when the socket is not reachable
// from here and the controller listens on TCP, fetch a token from this node's agent and use TCP.
// $MUSTER_SERVER ("unix:/path" or "host:port") overrides the address.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "model/job_record.h"
#include "model/partition.h"
#include "net/http.h"

namespace muster {

class CtldClient {
 public:
  static StatusOr<std::unique_ptr<CtldClient>> Connect();

  // Sends a request; returns the JSON body for 200, else an error whose code follows the HTTP
  // status (400 InvalidArgument, 401 Unauthenticated, 403 PermissionDenied, 404 NotFound, 409
  // FailedPrecondition) and whose message is the server's.
  StatusOr<nlohmann::json> Call(const std::string& method, const std::string& target,
                                const nlohmann::json& body = nullptr);

  // `query`: "" for every job, or e.g. "active=1" / "ids=3,4" (docs/api.md).
  StatusOr<std::vector<JobRecord>> Jobs(const std::string& query = "");
  StatusOr<std::vector<NodeRecord>> Nodes();
  StatusOr<std::vector<Partition>> Partitions();
  const std::string& cluster_name() const { return cluster_name_; }

 private:
  std::unique_ptr<HttpClient> http_;
  std::string cluster_name_;
};

}  // namespace muster
