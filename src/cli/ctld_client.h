// How the commands reach the controller: read muster.yaml (DefaultConfigPath()), connect to the
// controller's Unix socket (the kernel tells it who we are); when the socket is not reachable
// from here and the controller listens on TCP, fetch a token from this node's agent and use TCP.
// $MUSTER_SERVER ("unix:/path" or "host:port") overrides the address.
// The same token (LocalToken) lets srun reach node agents that listen on TCP.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "model/submit_request.h"
#include "model/job_record.h"
#include "model/partition.h"
#include "net/http.h"

namespace muster {

struct MusterConfig;

class CtldClient {
 public:
  static StatusOr<std::unique_ptr<CtldClient>> Connect();

  // Sends a request; returns the JSON body for 200, else an error whose code follows the HTTP
  // status (400 InvalidArgument, 401 Unauthenticated, 403 PermissionDenied, 404 NotFound, 409
  // FailedPrecondition) and whose message is the server's.
  StatusOr<nlohmann::json> Call(const std::string& method, const std::string& target,
                                const nlohmann::json& body = nullptr);
  // The same, returning the body of a 200 answer as it came.
  StatusOr<std::string> CallRaw(const std::string& method, const std::string& target,
                                const nlohmann::json& body = nullptr);

  // POST /v1/jobs under a submission key of its own (random): when the answer is lost (the
  // connection reset, the controller restarted) the request is sent again, for up to `retry_s`
  // seconds, and the controller answers the retry with the job the first attempt made.
  // The new job's id.
  StatusOr<int64_t> Submit(SubmitRequest request, int retry_s = 60);
  // POST /v1/jobs?test_only=1 (sbatch --test-only): when and where it would start; nothing is
  // submitted.
  StatusOr<WillRun> TestOnly(const SubmitRequest& request);

  // `query`: "" for every job, or e.g. "active=1" / "ids=3,4" (docs/api.md).
  StatusOr<std::vector<JobRecord>> Jobs(const std::string& query = "");
  // `allocated`, when given, receives what running jobs hold on each node (sinfo's CPUAlloc...).
  StatusOr<std::vector<NodeRecord>> Nodes(std::map<std::string, NodeAllocated>* allocated = nullptr);
  StatusOr<std::vector<Partition>> Partitions();
  const std::string& cluster_name() const { return cluster_name_; }
  // What the controller told the submitter with its last error, before the error itself (Slurm's
  // job_submit_user_msg: "Memory specification can not be satisfied"); "" when nothing.
  const std::string& user_msg() const { return user_msg_; }

 private:
  std::unique_ptr<HttpClient> http_;
  std::string cluster_name_;
  std::string user_msg_;
};

// The agent sockets to ask for a token, best first, each a socket that exists: the node named like
// this host (`hostname`, then its first label), the node of the job we run in (`job_node`,
// $SLURMD_NODENAME), then every other musterd-*.sock in `socket_dir` in name order. Every agent
// socket there is on this host by construction; on a local cluster (`muster up`) the agents are
// node1..N, none named like the host.
std::vector<std::string> LocalAgentSockets(const std::string& socket_dir, const std::string& hostname,
                                           const std::string& job_node);

// A token bound to the caller's uid, from a musterd on this host (over its Unix socket, which
// identifies us by peer credentials). Errors read "cannot get a credential from the local musterd
// at <socket>: <why>". The second form reads muster.yaml (DefaultConfigPath()).
StatusOr<std::string> LocalToken(const MusterConfig& conf);
StatusOr<std::string> LocalToken();

}  // namespace muster
