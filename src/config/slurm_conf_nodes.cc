// A node's CPUs and GPUs as slurm.conf's NodeName= lines and gres.conf give them (the reader in
// config/slurm_conf.cc keeps the lines and the order; these read and check one node's values).
#include "config/slurm_conf_nodes.h"

#include <algorithm>
#include <set>

#include "model/hostlist.h"

namespace muster::slurm_conf {

namespace {

constexpr int64_t kMaxCpus = 1'000'000;
constexpr int kMaxLinks = 255;          // GpuLinkMatrix stores counts as uint8_t

}  // namespace

// Boards, Sockets/SocketsPerBoard, CoresPerSocket, ThreadsPerCore and CPUs, completed as Slurm's
// read_config.c does: a missing Sockets is inferred from CPUs, a missing CPUs is the product.
// Slurm resets a CPUs= that matches no product (with an error in its log); here it is an error.
Status ReadNodeCpus(const SlurmConfOptions& o, Node* n) {
  int64_t boards = 1, per_board = 1, sockets = 1, cores = 1, threads = 1, cpus = 0;
  RETURN_IF_ERROR(o.Int("boards", &boards, 1, 1024));
  RETURN_IF_ERROR(o.Int("socketsperboard", &per_board, 1, 1024));
  RETURN_IF_ERROR(o.Int("sockets", &sockets, 1, 65535));
  RETURN_IF_ERROR(o.Int("corespersocket", &cores, 1, 65535));
  RETURN_IF_ERROR(o.Int("threadspercore", &threads, 1, 64));
  RETURN_IF_ERROR(o.Int("cpus", &cpus, 1, kMaxCpus));
  const SlurmConfPair* cpus_pair = o.Find("cpus");
  if (o.Find("sockets") != nullptr && o.Find("socketsperboard") != nullptr) {
    return o.Error(*o.Find("socketsperboard"), "give Sockets= or SocketsPerBoard=, not both");
  }
  if (o.Find("socketsperboard") != nullptr) {
    sockets = boards * per_board;
  } else if (o.Find("sockets") == nullptr) {
    sockets = boards;
    if (cpus_pair != nullptr) {
      if (cpus % (cores * threads) == 0 && cpus / (cores * threads) > 0) {
        sockets = cpus / (cores * threads);
      } else if (cpus % cores == 0 && cpus / cores > 0) {
        sockets = cpus / cores;  // CPUs= counts cores
      } else {
        return o.Error(*cpus_pair, "does not divide into sockets of CoresPerSocket=" + std::to_string(cores) +
                                       " x ThreadsPerCore=" + std::to_string(threads));
      }
    }
  }
  const int64_t total = sockets * cores * threads;
  if (total > kMaxCpus) {
    const SlurmConfPair* at = o.Find("corespersocket") ? o.Find("corespersocket") : o.Find("nodename");
    return o.Error(*at, "more than " + std::to_string(kMaxCpus) + " CPUs on a node");
  }
  if (cpus_pair == nullptr) {
    cpus = total;
  } else if (cpus != total && cpus != sockets * cores && cpus != sockets) {
    return o.Error(*cpus_pair, "matches none of Sockets (" + std::to_string(sockets) +
                                   "), Sockets x CoresPerSocket (" + std::to_string(sockets * cores) +
                                   ") or Sockets x CoresPerSocket x ThreadsPerCore (" + std::to_string(total) + ")");
  }
  n->cpus = static_cast<int>(cpus);
  n->sockets = static_cast<int>(sockets);
  n->cores_per_socket = static_cast<int>(cores);
  n->threads_per_core = static_cast<int>(threads);
  n->numa_nodes = static_cast<int>(std::min(sockets, cpus));
  return Status::Ok();
}

// One gres.conf line of GPUs: File= (or MultipleFiles=), Count=, Type= and Links= read and checked.
StatusOr<GresLine> ReadGresGpuLine(const SlurmConfOptions& o) {
  int64_t count = 1;
  if (const SlurmConfPair* f = o.Find("file")) {
    StatusOr<std::vector<std::string>> files = ExpandHostlist(f->value);
    if (!files.ok()) return o.Error(*f, files.status().message());
    if (files->empty()) return o.Error(*f, "names no device files");
    if (files->size() > static_cast<size_t>(kMaxDevicesPerNode)) {
      return o.Error(*f, "names more than " + std::to_string(kMaxDevicesPerNode) + " devices");
    }
    count = static_cast<int64_t>(files->size());
  } else if (o.Find("multiplefiles") != nullptr) {
    count = 1;  // one device (e.g. a MIG-sharded GPU) behind several files
  }
  if (const SlurmConfPair* c = o.Find("count")) {
    int64_t n = 0;
    if (!ParseSlurmConfInt(c->value, &n) || n < 1 || n > kMaxDevicesPerNode) {
      return o.Error(*c, "expected an integer in [1, " + std::to_string(kMaxDevicesPerNode) + "]");
    }
    if (o.Find("file") != nullptr && n != count) {
      return o.Error(*c, "File= names " + std::to_string(count) + " devices");
    }
    count = n;
  }
  std::string type;
  if (const SlurmConfPair* t = o.Find("type")) {
    if (!IsPlainName(t->value)) return o.Error(*t, "invalid GPU type " + SlurmConfQuote(t->value));
    type = t->value;
  }
  std::vector<int64_t> links;
  const SlurmConfPair* links_pair = o.Find("links");
  if (links_pair != nullptr) {
    if (count != 1) {
      return o.Error(*links_pair, "applies to a line of one device, and this line has " +
                                      std::to_string(count));
    }
    for (const std::string& cell : SplitOn(links_pair->value, ',')) {
      int64_t v = 0;
      const bool negative = !cell.empty() && cell[0] == '-';
      if (!ParseSlurmConfInt(negative ? std::string_view(cell).substr(1) : std::string_view(cell), &v)) {
        return o.Error(*links_pair, "expected a comma-separated list of link counts (-1 for the GPU itself)");
      }
      links.push_back(negative ? -v : v);
      if (links.size() > static_cast<size_t>(kMaxDevicesPerNode)) {
        return o.Error(*links_pair, "lists more than " + std::to_string(kMaxDevicesPerNode) + " GPUs");
      }
    }
  }
  return GresLine{count, type, links, links_pair};
}

bool MatchGresTypes(const std::vector<GresSpec>& specs, std::vector<GresDevice>* devices,
                    std::vector<std::pair<std::string, int>>* by_type) {
  std::set<std::string> typed;
  for (const GresSpec& s : specs) {
    if (!s.type.empty()) typed.insert(s.type);
  }
  if (typed.size() == 1) {
    for (GresDevice& d : *devices) {
      if (d.type.empty()) d.type = *typed.begin();
    }
  }
  std::vector<std::pair<std::string, int>> want;
  std::vector<std::pair<std::string, int>>& have = *by_type;
  auto add = [](std::vector<std::pair<std::string, int>>& v, const std::string& type, int count) {
    auto it = std::find_if(v.begin(), v.end(), [&](const auto& e) { return e.first == type; });
    if (it == v.end()) {
      v.emplace_back(type, count);
    } else {
      it->second += count;
    }
  };
  for (const GresSpec& s : specs) add(want, s.type, s.count);
  for (const GresDevice& d : *devices) add(have, d.type, 1);
  // Typed entries must match exactly; untyped ones take whatever devices are left.
  int untyped_want = 0, left = static_cast<int>(devices->size());
  bool ok = true;
  for (const auto& w : want) {
    if (w.first.empty()) {
      untyped_want += w.second;
      continue;
    }
    auto it = std::find_if(have.begin(), have.end(), [&](const auto& e) { return e.first == w.first; });
    const int got = it == have.end() ? 0 : it->second;
    ok = ok && got == w.second;
    left -= got;
  }
  return ok && left == untyped_want;
}

// The node's GPUs, one per device: model = the gres type (a MIG profile's GPU model, with the
// slice's memory), memory unknown (0), spread over the node's NUMA nodes in order.
std::vector<Gpu> GresGpus(const Node& n, const std::vector<GresDevice>& devices) {
  std::vector<Gpu> gpus;
  const int count = static_cast<int>(devices.size());
  for (int g = 0; g < count; ++g) {
    Gpu gpu;
    gpu.index = g;
    gpu.model = devices[g].type;
    gpu.memory_mb = 0;
    gpu.numa_node = g * n.numa_nodes / count;
    gpu.uuid = "GPU-" + n.name + "-" + std::to_string(g);
    if (const int64_t slice_mb = MigProfileMemoryMb(gpu.model); slice_mb > 0) {
      // The physical GPU behind a slice (its index; its model unless the type starts with it, as
      // "a100_3g.40gb") is not in Slurm's files. The whole type stays what requests name
      // (--gres=gpu:<type>:N).
      gpu.mig_profile = gpu.model;
      const size_t underscore = gpu.mig_profile.rfind('_');
      gpu.model = underscore == std::string::npos ? "" : gpu.mig_profile.substr(0, underscore);
      gpu.memory_mb = slice_mb;
      gpu.uuid = "MIG-" + n.name + "-" + std::to_string(g);
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

// gres.conf Links=: per GPU, its NVLink count to every GPU of the node in order (-1 for itself).
StatusOr<GpuLinkMatrix> GresLinkMatrix(const std::string& gres_source, const std::string& node_name,
                                       const std::vector<GresDevice>& devices) {
  const std::string node = SlurmConfQuote(node_name);
  const int count = static_cast<int>(devices.size());
  auto error = [&](int g, const std::string& msg) {
    return SlurmConfPairError(gres_source, devices[g].links_pair, msg);
  };
  auto gpu = [&](int g) { return "GPU " + std::to_string(g) + " of node " + node; };
  for (int g = 0; g < count; ++g) {
    const GresDevice& d = devices[g];
    if (!d.has_links) {
      int with = 0;
      while (!devices[with].has_links) ++with;
      return error(with, "given for some GPUs of node " + node + " but not for GPU " + std::to_string(g));
    }
    if (static_cast<int>(d.links.size()) != count) {
      return error(g, "lists " + std::to_string(d.links.size()) + " GPUs, node " + node + " has " +
                          std::to_string(count));
    }
    for (int h = 0; h < count; ++h) {
      const int64_t v = d.links[h];
      if (h == g && v != -1 && v != 0) {
        return error(g, gpu(g) + " must list itself as -1, got " + std::to_string(v));
      }
      if (h != g && (v < 0 || v > kMaxLinks)) {
        return error(g, gpu(g) + " has " + std::to_string(v) + " links to GPU " + std::to_string(h) +
                            " (expected 0 to " + std::to_string(kMaxLinks) + ")");
      }
    }
  }
  GpuLinkMatrix m(count);
  for (int g = 0; g < count; ++g) {
    for (int h = g + 1; h < count; ++h) {
      if (devices[g].links[h] != devices[h].links[g]) {
        return error(h, gpu(h) + " has " + std::to_string(devices[h].links[g]) + " links to GPU " +
                            std::to_string(g) + ", but GPU " + std::to_string(g) + " has " +
                            std::to_string(devices[g].links[h]) + " to it");
      }
      m.set_links(g, h, static_cast<int>(devices[g].links[h]));
    }
  }
  return m;
}

}  // namespace muster::slurm_conf
