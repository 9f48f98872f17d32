// A node's CPUs and GPUs as slurm.conf's NodeName= lines and gres.conf give them: the pieces of
// config/slurm_conf.cc's reader that read and check one node's values.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "config/slurm_conf_values.h"
#include "model/gpu_links.h"
#include "model/node.h"
#include "model/slurm_syntax.h"

namespace muster::slurm_conf {

// One GPU device of a gres.conf line.
struct GresDevice {
  std::string type;
  std::vector<int64_t> links;
  bool has_links = false;
  SlurmConfPair links_pair;  // the Links= it came from
};

// A gres.conf line's GPUs: how many, their type, their Links= (nullptr: none).
struct GresLine {
  int64_t count = 1;
  std::string type;
  std::vector<int64_t> links;
  const SlurmConfPair* links_pair = nullptr;
};

// Boards=, SocketsPerBoard=, Sockets=, CoresPerSocket=, ThreadsPerCore= and CPUs= of a NodeName=
// line into *n (cpus, sockets, cores, threads, NUMA nodes), as Slurm's read_config.c does.
Status ReadNodeCpus(const SlurmConfOptions& o, Node* n);

// A gres.conf line of Name=gpu: File= (or MultipleFiles=), Count=, Type=, Links=.
StatusOr<GresLine> ReadGresGpuLine(const SlurmConfOptions& o);

// gres.conf's devices of a node against its Gres=: the same count of each type. A device without
// Type= takes the node's gres type when Gres= names exactly one. *by_type: the devices' counts by
// type (for the message when they do not match).
bool MatchGresTypes(const std::vector<GresSpec>& specs, std::vector<GresDevice>* devices,
                    std::vector<std::pair<std::string, int>>* by_type);

// Node n's GPUs, one per device.
std::vector<Gpu> GresGpus(const Node& n, const std::vector<GresDevice>& devices);

// The NVLink matrix of gres.conf's Links= (every device of the node has one), checked.
StatusOr<GpuLinkMatrix> GresLinkMatrix(const std::string& gres_source, const std::string& node_name,
                                       const std::vector<GresDevice>& devices);

}  // namespace muster::slurm_conf
