// How the commands reach the controller: read muster.yaml (DefaultConfigPath()), connect to the
// controller's Unix socket (the kernel tells it who we are); when the socket is not reachable
// from here and the controller listens on TCP, fetch a token from this node's agent and use TCP.
// $MUSTER_SERVER ("unix:/path" or "host:port") overrides the address. With several controllers
// (controller.hosts), the one that leads: see FindLeader.
// The same token (LocalToken) lets srun reach node agents that listen on TCP.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>


#include "wire/diag.h"
#include "wire/jobs.h"
#include "wire/policy.h"
#include "wire/priority.h"
#include "wire/steps.h"
#include "wire/submit.h"
#include "wire/why.h"
#include "wire/usage.h"
#include "base/status.h"
#include "model/job_record.h"
#include "model/partition.h"
#include "net/http.h"
#include "net/token.h"

namespace muster {

struct MusterConfig;

// Every call the commands make to the controller, typed: the requests and answers are the wire
// types of src/wire (and the records' codecs of model/). Errors follow the HTTP status (400
// InvalidArgument, 401 Unauthenticated, 403 PermissionDenied, 404 NotFound, 409
// FailedPrecondition, 503 Unavailable) with the server's message; an answer that does not read
// is Internal "the controller sent a malformed answer: ...".
class CtldClient {
 public:
  static StatusOr<std::unique_ptr<CtldClient>> Connect();

  // POST /v1/jobs under a submission key of its own (random): when the answer is lost (the
  // connection reset, the controller restarted) the request is sent again, for up to `retry_s`
  // seconds, and the controller answers the retry with the job the first attempt made.
  // The new job's id.
  StatusOr<int64_t> Submit(JobSpec request, int retry_s = 60);
  // POST /v1/jobs?test_only=1 (sbatch --test-only): when and where it would start; nothing is
  // submitted.
  StatusOr<WillRun> TestOnly(const JobSpec& request);

  // `query`: "" for every job, or e.g. "active=1" / "ids=3,4" (docs/api.md).
  StatusOr<std::vector<JobRecord>> Jobs(const std::string& query = "");
  // GET /v1/jobs?render=...: the job list rendered by the controller in one of Slurm's text
  // formats (squeue's table, scontrol show job), as text.
  StatusOr<std::string> RenderedJobs(const std::string& query);
  StatusOr<JobRecord> Job(int64_t id);
  // GET /v1/jobs/{id}/why (muster why): why it waits and when it will start.
  StatusOr<WhyAnswer> Why(int64_t id);
  // DELETE /v1/jobs/{id}: cancel it, or with `signal` send that signal to `target` ("full",
  // "batch" or "steps").
  Status Cancel(int64_t id, int signal = 0, const std::string& target = "");
  // POST /v1/jobs/{id}/{verb}: hold, release, suspend, resume, requeue, requeuehold.
  Status JobAction(int64_t id, const std::string& verb);
  Status UpdateJob(int64_t id, const JobUpdate& update);
  // POST /v1/jobs/{id}/complete: an interactive allocation's command ended.
  Status Complete(int64_t id, int exit_code);
  // POST /v1/jobs/{id}/steps/{step}/done.
  Status StepDone(int64_t job_id, int step_id, int exit_code);
  // POST /v1/jobs/{id}/steps: srun's step, with where its tasks go (docs/api.md).
  StatusOr<StepAnswer> CreateStep(int64_t job_id, const StepCreate& request);
  // GET /v1/steps: the running steps.
  StatusOr<std::vector<StepRecord>> Steps();

  // `allocated`, when given, receives what running jobs hold on each node (sinfo's CPUAlloc...).
  StatusOr<std::vector<NodeRecord>> Nodes(std::map<std::string, NodeAllocated>* allocated = nullptr);
  Status UpdateNode(const std::string& name, const NodeUpdate& update);
  StatusOr<std::vector<Partition>> Partitions();
  StatusOr<PingAnswer> Ping();
  // sdiag: GET /v1/diag; sdiag -r: POST /v1/diag/reset (admins).
  StatusOr<DiagAnswer> Diag();
  Status ResetDiag();
  StatusOr<ConfigAnswer> Config();
  // POST /v1/jwt (scontrol token): a JWT for slurmrestd's REST API.
  // POST /v1/reconfigure (scontrol reconfigure, admins): the controller checks its files again and
  // starts again with them; their error otherwise.
  Status Reconfigure();
  StatusOr<JwtAnswer> MintJwt(const JwtRequest& request);

  // GET /v1/accounting/jobs?<query> (sacct's selection) and the steps of the jobs `ids`.
  StatusOr<std::vector<JobRecord>> AccountingJobs(const std::string& query);
  StatusOr<std::vector<StepRecord>> AccountingSteps(const std::string& ids);
  // GET /v1/reports/usage?start=&end= (sreport): the cluster's and the associations' usage.
  StatusOr<UsageAnswer> Usage(int64_t start, int64_t end);
  // GET /v1/priority (sprio), /v1/shares (sshare), /v1/policy (sacctmgr show); POST /v1/policy.
  StatusOr<PriorityAnswer> Priority();
  StatusOr<SharesAnswer> Shares();
  StatusOr<PolicyAnswer> Policy();
  Status ChangePolicy(const PolicyOp& op);

  const std::string& cluster_name() const { return cluster_name_; }
  // What the controller told the submitter with its last error, before the error itself (Slurm's
  // job_submit_user_msg: "Memory specification can not be satisfied"); "" when nothing.
  const std::string& user_msg() const { return user_msg_; }

 private:
  // The body of a 200 answer, as it came; an error (with user_msg_ set) otherwise.
  StatusOr<std::string> Send(const std::string& method, const std::string& target, const std::string& body = "");
  // A wire answer read from a 200 answer's body.
  template <wire::Record Answer>
  static StatusOr<Answer> Read(const StatusOr<std::string>& text);
  template <wire::Record Answer, wire::Record Request>
  StatusOr<Answer> Exchange(const std::string& method, const std::string& target, const Request& request);

  // Several controllers: connects to the one that leads now (FindLeader over candidates_).
  Status FindLeaderAgain();

  std::unique_ptr<HttpClient> http_;
  // With several controllers (controller.hosts): where to look for the leader, in order, and the
  // token for TCP ones (from the local agent, asked once); empty with one controller.
  std::vector<std::string> candidates_;
  std::function<StatusOr<std::string>()> tcp_token_;
  std::string cluster_name_;
  std::string user_msg_;
};

// The controller that leads, among `candidates` ("unix:/path" or "host:port"), asked in order with
// GET /v1/ping: the first whose answer says role "leader" (an answer without a role leads: an
// older controller). `tcp_token` gives the token for TCP candidates; it is asked at the first TCP
// one, once. When none leads: Unavailable "no controller leads: <address>: <what it said>, ..."
// (e.g. "unix:/run/muster/ctld.sock: standby (leader: none), ctl2:6817: Connection refused"; the
// TCP ones, when no token could be had, named together: "ctl1:6817, ctl2:6817: cannot get a
// credential from the local musterd at ...").
// Each ping waits `ping_timeout_ms` at most (a controller whose host is down costs that long); the
// leader's connection then bounds each request by `timeout_ms`.
struct FoundLeader {
  std::unique_ptr<HttpClient> http;  // connected to it, with the token for TCP
  std::string address;
};
StatusOr<FoundLeader> FindLeader(const std::vector<std::string>& candidates,
                                 const std::function<StatusOr<std::string>()>& tcp_token, int ping_timeout_ms = 5000,
                                 int timeout_ms = 30000);

// The agent sockets to ask for a token, best first, each a socket that exists: the node named like
// this host (`hostname`, then its first label), the node of the job we run in (`job_node`,
// $SLURMD_NODENAME), then every other musterd-*.sock in `socket_dir` in name order. Every agent
// socket there is on this host by construction; on a local cluster (`muster up`) the agents are
// node1..N, none named like the host.
std::vector<std::string> LocalAgentSockets(const std::string& socket_dir, const std::string& hostname,
                                           const std::string& job_node);

// A token bound to the caller's uid, from a musterd on this host (over its Unix socket, which
// identifies us by peer credentials). Errors read "cannot get a credential from the local musterd
// at <socket>: <why>". For `audience` (net/token.h): the controllers, or NodeAudience(node) for
// that node's agent. The second form reads muster.yaml (DefaultConfigPath()).
StatusOr<std::string> LocalToken(const MusterConfig& conf, const std::string& audience = kControllerAudience);
StatusOr<std::string> LocalToken(const std::string& audience = kControllerAudience);

// This process's TCP connections use the cluster's TLS (muster.yaml's tls section: the servers
// verified against its CA), when it has one; the CA is loaded once. The second form reads the
// configuration (DefaultConfigPath).
Status UseClusterTls(const MusterConfig& conf);
Status UseClusterTls();

}  // namespace muster
