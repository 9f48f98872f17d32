#include "ctld/node_table.h"

#include <algorithm>
#include <utility>

#include "base/check.h"

namespace muster {

NodeTable::NodeTable(const ClusterSnapshot& cluster, SchedulerOptions probe_options)
    : partitions_(cluster.partitions), topology_(cluster.topology), probe_options_(std::move(probe_options)) {
  probe_options_.policy = nullptr;
  for (const Node& n : cluster.nodes) {
    NodeRecord r;
    r.node = n;
    if (n.state != NodeState::kDown && n.state != NodeState::kFuture) r.node.state = NodeState::kUnknown;
    records_.emplace(n.name, std::move(r));
  }
  for (auto& [name, r] : records_) {
    pos_.Insert(name, static_cast<int>(at_.size()));
    at_.push_back(&r);
  }
  heard_ms_.assign(at_.size(), 0);
  for (const NodeRecord* r : at_) counted_.push_back(r->node.state != NodeState::kFuture);
}

void NodeTable::Acquire() const {
  MUSTER_CHECK(holder_.load(std::memory_order_relaxed) != std::this_thread::get_id())
      << "a thread took the node table's lock twice";
  mu_.Lock();
  holder_.store(std::this_thread::get_id(), std::memory_order_relaxed);
}

void NodeTable::Release() const {
  holder_.store(std::thread::id(), std::memory_order_relaxed);
  mu_.Unlock();
}

// (Not analysed: an Access holds the lock from its construction to its end, which the analysis
// cannot follow through Lock()'s return; its methods assert it held.)
NodeTable::Access::Access(NodeTable* t) NO_THREAD_SAFETY_ANALYSIS : t_(t) { t_->Acquire(); }

NodeTable::Access::~Access() NO_THREAD_SAFETY_ANALYSIS { t_->Release(); }

NodeTable::Access NodeTable::Lock() { return Access(this); }

NodeRecord* NodeTable::Access::Find(std::string_view name) {
  t_->mu_.AssertHeld();
  const int p = t_->pos_.Find(name);
  return p < 0 ? nullptr : t_->at_[p];
}

void NodeTable::Access::OffersChanged(bool hardware) {
  t_->mu_.AssertHeld();
  ++t_->epoch_;
  if (hardware) {
    t_->idle_probe_.reset();
    t_->idle_.reset();
  }
}

void NodeTable::Access::Heard(std::string_view name, int64_t now_ms) {
  t_->mu_.AssertHeld();
  const int p = t_->pos_.Find(name);
  if (p >= 0) t_->heard_ms_[p] = now_ms;
}

void NodeTable::Access::StartCounting(int64_t now_ms) {
  t_->mu_.AssertHeld();
  std::fill(t_->heard_ms_.begin(), t_->heard_ms_.end(), now_ms);
  t_->peers_generation_ = std::max(t_->peers_generation_, now_ms);
}

std::vector<int> NodeTable::Access::TakeResumedGpus(const std::string& node) {
  t_->mu_.AssertHeld();
  auto it = t_->resume_gpus_.find(node);
  if (it == t_->resume_gpus_.end()) return {};
  std::vector<int> out = std::move(it->second);
  t_->resume_gpus_.erase(it);
  return out;
}

int64_t NodeTable::CountHeardSince(int64_t since) const {
  Acquire();
  int64_t n = 0;
  for (const NodeRecord* r : at_) n += r->last_heartbeat > 0 && r->last_heartbeat >= since && r->node.state != NodeState::kFuture;
  Release();
  return n;
}

std::vector<NodeRecord> NodeTable::List() const {
  Acquire();
  std::vector<NodeRecord> out;
  out.reserve(at_.size());
  for (const NodeRecord* r : at_) out.push_back(*r);
  Release();
  return out;
}

std::vector<NodeRecord> NodeTable::Get(const std::vector<std::string>& names) const {
  Acquire();
  std::vector<NodeRecord> out;
  out.reserve(names.size());
  for (const std::string& name : names) {
    if (const int p = pos_.Find(name); p >= 0) out.push_back(*at_[p]);
  }
  Release();
  return out;
}

uint64_t NodeTable::epoch() const {
  Acquire();
  const uint64_t e = epoch_;
  Release();
  return e;
}

Status NodeTable::EverRuns(const JobRequest& request, int64_t now, std::string* user_msg) {
  Access nodes = Lock();
  mu_.AssertHeld();
  if (!idle_) {
    ClusterSnapshot& s = idle_.emplace();
    s.now = now;
    s.partitions = partitions_;
    s.topology = topology_;
    s.nodes.reserve(at_.size());
    for (const NodeRecord* r : at_) {
      s.nodes.push_back(r->node);
      s.nodes.back().state = NodeState::kIdle;
      s.nodes.back().drain = false;
    }
  }
  if (!idle_probe_) idle_probe_ = std::make_unique<Scheduler>(*idle_, probe_options_);
  PendingJob probe;
  probe.id = 0;
  probe.request = request;
  std::vector<Decision> d = idle_probe_->RunCycle({probe});
  if (!d.empty() && d[0].kind == DecisionKind::kReject) {
    if (user_msg != nullptr) *user_msg = d[0].user_msg;
    return InvalidArgument(d[0].message);
  }
  return Status::Ok();
}

}  // namespace muster
