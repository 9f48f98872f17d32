// Nodes and partitions (sinfo, scontrol update node), and the agents' register, heartbeat and
// exit reports.

#include "api/decode.h"
#include "wire/agent.h"
#include "wire/jobs.h"
#include "api/route_util.h"
#include "api/routes.h"
#include "wire/records.h"

namespace muster::api {

namespace bj = wire::bj;

void AddNodeRoutes(Controller& c, Router& r) {
  // Each node record with "allocated": {"cpus", "gpus", "memory_mb"} held by its running jobs.
  r.Add("GET", "/v1/nodes", [&c](const HttpRequest&) {
    const std::map<std::string, NodeAllocated> allocated = c.AllocatedByNode();
    NodesAnswer answer;
    for (NodeRecord& n : c.ListNodes()) {
      auto it = allocated.find(n.node.name);
      const NodeAllocated a = it == allocated.end() ? NodeAllocated{} : it->second;
      answer.nodes.push_back(ListedNode{std::move(n), a});
    }
    return Ok(answer);
  });

  r.Add("POST", "/v1/nodes/{name}", kChangeBodyLimit, [&c](const HttpRequest& req) {
    StatusOr<NodeUpdate> update = wire::Decode<NodeUpdate>(req.body);
    if (!update.ok()) return ErrorResponse(update.status());
    Status st = c.UpdateNode(req.params.at("name"), update->state, update->reason, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok();
  });

  r.Add("GET", "/v1/partitions", [&c](const HttpRequest&) {
    return Ok(PartitionsAnswer{c.ListPartitions()});
  });

  r.Add("POST", "/v1/agent/register", kLargeBodyLimit, [&c](const HttpRequest& req) {
    StatusOr<Registration> reg = ReadBody<Registration>(req);  // one parse, one decode
    if (!reg.ok()) return ErrorResponse(reg.status());
    if (!reg->node) return ErrorResponse(InvalidArgument("missing 'node'"));
    StatusOr<NodeReport> report = wire::CheckedNodeReport(std::move(reg->report));
    if (!report.ok()) return ErrorResponse(report.status());
    StatusOr<NodeOrders> orders = c.RegisterNode(*reg->node, *report, req.caller);
    if (!orders.ok()) return ErrorResponse(orders.status());
    orders->cluster = c.cluster_name();
    orders->leader_token = c.stats().Leadership().token;
    orders->config_hash = c.config_hash();
    return Ok(*orders);
  });

  r.Add("POST", "/v1/agent/heartbeat", kLargeBodyLimit, [&c](const HttpRequest& req) {
    StatusOr<Heartbeat> beat = wire::Decode<Heartbeat>(req.body);
    if (beat.ok()) {
      StatusOr<NodeReport> checked = wire::CheckedNodeReport(std::move(beat->report));
      if (!checked.ok()) return ErrorResponse(checked.status());
      beat->report = std::move(*checked);
    }
    if (!beat.ok()) return ErrorResponse(beat.status());
    StatusOr<NodeOrders> orders = c.Heartbeat(beat->node, beat->report, req.caller, beat->witness_generation);
    if (!orders.ok()) return ErrorResponse(orders.status());
    orders->leader_token = c.stats().Leadership().token;  // (controller.hosts; 0: one controller)
    orders->config_hash = c.config_hash();
    return Ok(*orders);
  });

  r.Add("POST", "/v1/agent/exit", kLargeBodyLimit, [&c](const HttpRequest& req) {
    StatusOr<ExitNotice> notice = wire::Decode<ExitNotice>(req.body);
    if (!notice.ok()) return ErrorResponse(notice.status());
    Status st = c.JobExited(notice->exit.job_id, notice->node, notice->exit.report, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok();
  });
}

}  // namespace muster::api
