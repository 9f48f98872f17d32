#include "sched/cluster_builder.h"

#include <sstream>

#include "model/hostlist.h"
#include "model/job_request.h"

namespace muster {

NodeTemplate DgxNode(std::string layout) {
  NodeTemplate t;
  t.cpus = 64;
  t.memory_mb = 1024 * 1024;
  t.gpus = 8;
  t.layout = std::move(layout);
  return t;
}

namespace {

std::vector<std::string> Expand(const std::string& hostlist) {
  StatusOr<std::vector<std::string>> v = ExpandHostlist(hostlist);
  MUSTER_CHECK(v.ok()) << v.status().ToString();
  return *v;
}

}  // namespace

ClusterBuilder& ClusterBuilder::Nodes(const std::string& hostlist, const NodeTemplate& t) {
  for (const std::string& name : Expand(hostlist)) {
    Node n;
    n.name = name;
    n.cpus = t.cpus;
    n.sockets = t.sockets;
    n.cores_per_socket = t.cpus / std::max(1, t.sockets);
    n.numa_nodes = t.numa_nodes;
    n.memory_mb = t.memory_mb;
    n.features = t.features;
    if (!t.mig_profiles.empty()) {
      for (size_t g = 0; g < t.mig_profiles.size(); ++g) {
        Gpu gpu;
        gpu.index = static_cast<int>(g);
        gpu.model = t.model;
        gpu.mig_profile = t.mig_profiles[g];
        gpu.memory_mb = t.mig_memory_mb;
        gpu.uuid = "MIG-" + name + "-" + std::to_string(g);
        gpu.parent_index = 0;
        n.gpus.push_back(gpu);
      }
      n.links = GpuLinkMatrix::PcieOnly(static_cast<int>(n.gpus.size()));
    } else {
      for (int g = 0; g < t.gpus; ++g) {
        Gpu gpu;
        gpu.index = g;
        gpu.model = t.model;
        gpu.memory_mb = t.gpu_memory_mb;
        gpu.uuid = "GPU-" + name + "-" + std::to_string(g);
        gpu.numa_node = t.numa_nodes > 0 ? g * t.numa_nodes / std::max(1, t.gpus) : 0;
        n.gpus.push_back(gpu);
      }
      StatusOr<GpuLinkMatrix> links = GpuLinkMatrix::Parse(t.layout, t.gpus);
      MUSTER_CHECK(links.ok()) << links.status().ToString();
      n.links = *links;
    }
    c_.nodes.push_back(std::move(n));
  }
  return *this;
}

ClusterBuilder& ClusterBuilder::Leaf(const std::string& name, const std::string& node_hostlist) {
  topology_ += "SwitchName=" + name + " Nodes=" + node_hostlist + "\n";
  return *this;
}

ClusterBuilder& ClusterBuilder::Spine(const std::string& name, const std::string& switch_hostlist) {
  topology_ += "SwitchName=" + name + " Switches=" + switch_hostlist + "\n";
  return *this;
}

ClusterBuilder& ClusterBuilder::Partition(const std::string& name, const std::string& node_hostlist,
                                          bool is_default) {
  muster::Partition p;
  p.name = name;
  p.nodes = Expand(node_hostlist);
  p.is_default = is_default;
  c_.partitions.push_back(std::move(p));
  return *this;
}

ClusterBuilder& ClusterBuilder::SetPartition(const std::string& name,
                                             const std::function<void(muster::Partition&)>& edit) {
  for (auto& p : c_.partitions) {
    if (p.name == name) edit(p);
  }
  return *this;
}

ClusterBuilder& ClusterBuilder::Down(const std::string& node) {
  for (auto& n : c_.nodes) {
    if (n.name == node) n.state = NodeState::kDown;
  }
  return *this;
}

ClusterBuilder& ClusterBuilder::Drain(const std::string& node) {
  for (auto& n : c_.nodes) {
    if (n.name == node) n.drain = true;
  }
  return *this;
}

ClusterBuilder& ClusterBuilder::Use(const std::string& node, int cpus, int64_t memory_mb,
                                    const std::vector<int>& gpu_milli) {
  if (c_.usage.empty()) c_.usage.resize(c_.nodes.size());
  if (c_.usage.size() < c_.nodes.size()) c_.usage.resize(c_.nodes.size());
  for (size_t i = 0; i < c_.nodes.size(); ++i) {
    if (c_.nodes[i].name != node) continue;
    NodeUsage& u = c_.usage[i];
    u.cpu_milli += int64_t{cpus} * 1000;
    u.memory_mb += memory_mb;
    u.jobs += 1;
    u.gpus.resize(c_.nodes[i].gpus.size());
    for (size_t g = 0; g < gpu_milli.size() && g < u.gpus.size(); ++g) u.gpus[g].milli += gpu_milli[g];
  }
  return *this;
}

ClusterSnapshot ClusterBuilder::Build() const {
  ClusterSnapshot c = c_;
  if (!c.usage.empty()) c.usage.resize(c.nodes.size());
  if (!topology_.empty()) {
    StatusOr<Topology> t = Topology::ParseTopologyConf(topology_);
    MUSTER_CHECK(t.ok()) << t.status().ToString();
    c.topology = *t;
  }
  Status st = c.Validate();
  MUSTER_CHECK(st.ok()) << st.ToString();
  return c;
}

PendingJob MakeJob(int64_t id, const std::string& options, int64_t priority, int64_t submit_time) {
  std::vector<std::string> args;
  std::istringstream in(options);
  for (std::string a; in >> a;) args.push_back(a);
  StatusOr<JobRequest> req = ParseJobRequest(args);
  MUSTER_CHECK(req.ok()) << "job " << id << ": " << req.status().ToString();
  PendingJob j;
  j.id = id;
  j.request = *req;
  j.priority = priority;
  j.submit_time = submit_time;
  j.user = "user" + std::to_string(id % 7);
  return j;
}

}  // namespace muster
