#include "sim/openb.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include "base/strings.h"
#include "model/hostlist.h"
#include "sched/cluster_builder.h"
#include "sched/cluster_index.h"
#include "sched/placer.h"
#include "sched/plan.h"
#include "sched/workload_mix.h"

namespace muster {

namespace {

// The normalisation of DotProd and BestFit: the largest node of the simulator's cluster specs.
constexpr double kMaxSpecCpu = 128000;
constexpr double kMaxSpecGpu = 8000;
constexpr int kFull = 1000;

int Score(double x) { return static_cast<int>(std::floor(x)); }  // the simulator's int64 truncation

// A pod as the run places it.
struct Pod {
  int64_t cpu = 0, memory = 0;
  int gpu_milli = 0, num_gpu = 0;
  uint64_t models = ~uint64_t{0};  // the node models it may use (bit per model id)
  bool sharing() const { return num_gpu == 1 && gpu_milli < kFull; }
  int64_t demand() const { return int64_t{num_gpu} * gpu_milli; }
};

// The memo key of FGD's score: the score depends on the node's CPU left, the multiset of its GPUs'
// free thousandths and its model, and on the pod's CPU and GPU request, nothing else.
struct ScoreKey {
  int64_t cpu_left = 0, pod_cpu = 0;
  int32_t pod_gpu_milli = 0;
  int16_t pod_num_gpu = 0, model = 0;
  std::array<int16_t, 8> gpus{};
  friend bool operator==(const ScoreKey&, const ScoreKey&) = default;
};
struct ScoreKeyHash {
  size_t operator()(const ScoreKey& k) const {
    uint64_t h = static_cast<uint64_t>(k.cpu_left) * 0x9E3779B97F4A7C15ULL;
    auto mix = [&](uint64_t v) { h = (h ^ v) * 0xff51afd7ed558ccdULL + (h >> 29); };
    mix(static_cast<uint64_t>(k.pod_cpu));
    mix(static_cast<uint64_t>(k.pod_gpu_milli) << 32 | static_cast<uint16_t>(k.pod_num_gpu) << 16 | static_cast<uint16_t>(k.model));
    for (int16_t g : k.gpus) mix(static_cast<uint16_t>(g));
    return static_cast<size_t>(h);
  }
};

class Run {
 public:
  Run(const std::vector<OpenbNode>& nodes, const std::vector<OpenbPod>& pods, const OpenbOptions& o)
      : opt_(o), rng_(o.seed) {
    ClusterBuilder builder;
    std::vector<std::string> names;
    for (const OpenbNode& n : nodes) {
      if (n.gpus <= 0) continue;  // the GPU nodes only, as the paper's cluster
      if (o.policy == OpenbPolicy::kMuster) {
        NodeTemplate t;
        t.cpus = static_cast<int>((n.cpu_milli + 999) / 1000);
        t.memory_mb = n.memory_mib;
        t.gpus = n.gpus;
        t.model = n.model;
        t.layout = "pcie";  // the trace says nothing of links
        t.numa_nodes = 1;
        builder.Nodes(n.name, t);
        names.push_back(n.name);
      }
      OpenbNodeState s;
      s.cpu_left = n.cpu_milli;
      s.memory_left = n.memory_mib;
      s.gpu_left.assign(n.gpus, kFull);
      s.model = ModelId(n.model);
      nodes_.push_back(std::move(s));
      capacity_ += int64_t{n.gpus} * kFull;
      gpus_ += n.gpus;
    }
    if (o.policy == OpenbPolicy::kMuster && !names.empty()) {
      muster_snapshot_ = builder.Partition("p", CompressHostlist(names), true).Build();
      muster_index_ = std::make_unique<ClusterIndex>(muster_snapshot_);
      muster_plan_ = std::make_unique<Plan>(*muster_index_, muster_snapshot_);
      muster_all_ = DynamicBitset(muster_index_->size());
      ours_.assign(muster_index_->size(), -1);
      for (size_t k = 0; k < names.size(); ++k) {
        const int c = muster_index_->Find(names[k]);
        muster_all_.set(c);
        ours_[c] = static_cast<int>(k);
      }
    }
    typical_ = TypicalPods(pods, 0.95);
    for (const TypicalPod& t : typical_) typical_models_.push_back(Models(t.model));
    if (o.policy == OpenbPolicy::kMuster && muster_index_) {
      // Muster's placer learns the same typical pods FGD does: its workload mix.
      std::vector<MixShape> shapes;
      for (size_t t = 0; t < typical_.size(); ++t) {
        MixShape m;
        m.cpu_milli = typical_[t].cpu_milli;
        m.gpu_milli = typical_[t].gpu_milli;
        m.num_gpu = typical_[t].num_gpu;
        m.weight = typical_[t].weight;
        if (typical_models_[t] != ~uint64_t{0}) {
          m.nodes = DynamicBitset(muster_index_->size());
          for (int c = 0; c < muster_index_->size(); ++c) {
            if (ours_[c] >= 0 && ModelOk(typical_models_[t], nodes_[ours_[c]].model)) m.nodes.set(c);
          }
        }
        shapes.push_back(std::move(m));
      }
      muster_mix_ = WorkloadMix(std::move(shapes));
    }
    // The pool the clones are drawn from: the list sorted by name (as the simulator keeps it).
    std::vector<const OpenbPod*> pool;
    for (const OpenbPod& p : pods) pool.push_back(&p);
    std::sort(pool.begin(), pool.end(), [](const OpenbPod* a, const OpenbPod* b) { return a->name < b->name; });
    for (const OpenbPod* p : pool) pool_.push_back(ToPod(*p));
  }

  StatusOr<OpenbRun> Go(const std::function<void(int64_t, int64_t)>& progress) {
    if (nodes_.empty()) return InvalidArgument("the node list has no GPU node");
    if (nodes_.size() > 64 * 1024) return InvalidArgument("more than 65536 GPU nodes");
    // Every pod once, shuffled; then clones until the next would pass ratio x capacity.
    std::vector<Pod> order = pool_;
    std::shuffle(order.begin(), order.end(), rng_);
    int64_t total = 0;
    for (const Pod& p : order) total += p.demand();
    const double target = opt_.ratio * static_cast<double>(capacity_);
    if (static_cast<double>(total) < target) {
      std::uniform_int_distribution<size_t> pick(0, pool_.size() - 1);
      while (true) {
        const Pod& p = pool_[pick(rng_)];
        // (The simulator compares the per-GPU request here, not the pod's whole demand.)
        if (static_cast<double>(total + p.gpu_milli) > target) break;
        total += p.demand();
        order.push_back(p);
      }
    }
    node_frag_.resize(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) {
      node_frag_[i] = Fragment(nodes_[i]);
      frag_total_ += node_frag_[i];
    }
    const int xs = static_cast<int>(std::floor(opt_.ratio * 100 + 1e-9)) + 1;
    std::vector<double> alloc_sum(xs + 2, 0), frag_sum(xs + 2, 0);
    std::vector<int64_t> alloc_n(xs + 2, 0), frag_n(xs + 2, 0);
    OpenbRun out;
    out.capacity_milli = capacity_;
    int64_t arrived = 0;
    for (size_t k = 0; k < order.size(); ++k) {
      const Pod& p = order[k];
      arrived += p.demand();
      if (!Place(p)) ++out.failed;
      ++out.pods;
      // What the simulator logs after every pod, discretised as its analysis scripts do.
      const double pct = static_cast<double>(arrived) / static_cast<double>(gpus_) / 10.0;
      const int x = static_cast<int>(std::nearbyint(pct));  // round half to even, as Python's round
      if (x >= 0 && x < xs + 2) {
        alloc_sum[x] += std::round(static_cast<double>(used_) / static_cast<double>(gpus_) / 10.0 * 100) / 100;
        ++alloc_n[x];
        const double idle = static_cast<double>(capacity_ - used_);
        if (idle > 0) {
          frag_sum[x] += 100.0 * frag_total_ / idle;
          ++frag_n[x];
        }
      }
      if (progress && (k % 1000 == 0 || k + 1 == order.size())) progress(static_cast<int64_t>(k + 1), static_cast<int64_t>(order.size()));
    }
    auto curve = [&](const std::vector<double>& sum, const std::vector<int64_t>& n, bool round2) {
      std::vector<std::optional<double>> c(xs);
      for (int x = 0; x < xs; ++x) {
        double s = sum[x];
        int64_t m = n[x];
        if (m == 0) {  // no pod rounds to x: its neighbours
          for (int y : {x - 1, x + 1}) {
            if (y >= 0 && y < xs + 2) {
              s += sum[y];
              m += n[y];
            }
          }
        }
        if (m > 0) c[x] = round2 ? std::round(s / static_cast<double>(m) * 100) / 100 : s / static_cast<double>(m);
      }
      return c;
    };
    out.alloc = curve(alloc_sum, alloc_n, true);
    out.frag_rate = curve(frag_sum, frag_n, false);
    return out;
  }

 private:
  int ModelId(const std::string& model) {
    auto [it, added] = model_ids_.emplace(model, static_cast<int>(model_ids_.size()));
    return it->second;
  }
  uint64_t Models(const std::string& spec) {
    if (spec.empty()) return ~uint64_t{0};
    uint64_t m = 0;
    for (const std::string& name : Split(spec, '|')) {
      const int id = ModelId(name);
      if (id < 64) m |= uint64_t{1} << id;
    }
    return m;
  }
  Pod ToPod(const OpenbPod& p) {
    Pod q;
    q.cpu = p.cpu_milli;
    q.memory = p.memory_mib;
    q.num_gpu = p.num_gpu;
    q.gpu_milli = p.num_gpu > 0 ? p.gpu_milli : 0;
    q.models = q.gpu_milli > 0 ? Models(p.gpu_spec) : ~uint64_t{0};
    return q;
  }
  static bool ModelOk(uint64_t models, int model) { return model >= 64 || (models >> model & 1) != 0; }

  double Fragment(const OpenbNodeState& n) const {
    double f = 0;
    for (size_t t = 0; t < typical_.size(); ++t) f += typical_[t].weight * NodeFragment(n, typical_[t], ModelOk(typical_models_[t], n.model));
    return f;
  }

  bool Fits(const OpenbNodeState& n, const Pod& p) const {
    if (n.cpu_left < p.cpu || n.memory_left < p.memory) return false;
    if (p.gpu_milli <= 0) return true;
    if (!ModelOk(p.models, n.model)) return false;
    int fit = 0;
    for (int g : n.gpu_left) fit += g >= p.gpu_milli;
    return fit >= p.num_gpu;
  }

  // The GPUs a pod takes on a node: a sharing pod the one `pick` says, a whole-GPU pod the
  // lowest-index fully free ones.
  std::vector<int> WholeGpus(const OpenbNodeState& n, const Pod& p) const {
    std::vector<int> out;
    for (int g = 0; g < static_cast<int>(n.gpu_left.size()) && static_cast<int>(out.size()) < p.num_gpu; ++g) {
      if (n.gpu_left[g] >= p.gpu_milli) out.push_back(g);
    }
    return out;
  }
  // "best": the tightest GPU that fits, lowest index on ties.
  static int BestGpu(const OpenbNodeState& n, const Pod& p) {
    int best = -1;
    for (int g = 0; g < static_cast<int>(n.gpu_left.size()); ++g) {
      if (n.gpu_left[g] >= p.gpu_milli && (best < 0 || n.gpu_left[g] < n.gpu_left[best])) best = g;
    }
    return best;
  }
  int RandomGpu(const OpenbNodeState& n, const Pod& p) {
    std::vector<int> fit;
    for (int g = 0; g < static_cast<int>(n.gpu_left.size()); ++g) {
      if (n.gpu_left[g] >= p.gpu_milli) fit.push_back(g);
    }
    return fit[std::uniform_int_distribution<size_t>(0, fit.size() - 1)(rng_)];
  }

  // FGD: 100 x sigmoid(fragment decrease in GPUs), truncated; for a sharing pod the best GPU
  // (`gpu`, lowest index on ties).
  int FgdScore(size_t i, const Pod& p, int* gpu) {
    const OpenbNodeState& n = nodes_[i];
    const double before = node_frag_[i];
    auto score_of = [&](const OpenbNodeState& after) {
      const double x = (before - Fragment(after)) / 1000.0;
      return Score(100.0 / (1.0 + std::exp(-x)));
    };
    if (p.sharing()) {
      int best = -1, best_score = 0;
      OpenbNodeState after = n;
      after.cpu_left -= p.cpu;
      std::vector<std::pair<int, int>> tried;  // (free, score): equal free amounts score alike
      for (int g = 0; g < static_cast<int>(n.gpu_left.size()); ++g) {
        if (n.gpu_left[g] < p.gpu_milli) continue;
        auto seen = std::find_if(tried.begin(), tried.end(), [&](const auto& t) { return t.first == n.gpu_left[g]; });
        int s = 0;
        if (seen != tried.end()) {
          s = seen->second;
        } else {
          after.gpu_left[g] -= p.gpu_milli;
          s = score_of(after);
          after.gpu_left[g] += p.gpu_milli;
          tried.emplace_back(n.gpu_left[g], s);
        }
        if (best < 0 || s > best_score) {
          best = g;
          best_score = s;
        }
      }
      *gpu = best;
      return best_score;
    }
    OpenbNodeState after = n;
    after.cpu_left -= p.cpu;
    for (int g : WholeGpus(n, p)) after.gpu_left[g] -= p.gpu_milli;
    *gpu = -1;
    return score_of(after);
  }
  int FgdScoreMemo(size_t i, const Pod& p) {
    const OpenbNodeState& n = nodes_[i];
    if (n.gpu_left.size() > 8) {
      int g;
      return FgdScore(i, p, &g);
    }
    ScoreKey k;
    k.cpu_left = n.cpu_left;
    k.pod_cpu = p.cpu;
    k.pod_gpu_milli = p.gpu_milli;
    k.pod_num_gpu = static_cast<int16_t>(p.num_gpu);
    k.model = static_cast<int16_t>(n.model);
    k.gpus.fill(-1);
    for (size_t g = 0; g < n.gpu_left.size(); ++g) k.gpus[g] = static_cast<int16_t>(n.gpu_left[g]);
    std::sort(k.gpus.begin(), k.gpus.begin() + static_cast<long>(n.gpu_left.size()));
    auto it = memo_.find(k);
    if (it != memo_.end()) return it->second;
    int g;
    const int s = FgdScore(i, p, &g);
    memo_.emplace(k, s);
    return s;
  }

  int ScoreOf(size_t i, const Pod& p) {
    const OpenbNodeState& n = nodes_[i];
    switch (opt_.policy) {
      case OpenbPolicy::kRandom:
        return 0;
      case OpenbPolicy::kDotProd: {
        const double d = (static_cast<double>(n.cpu_left) / kMaxSpecCpu * static_cast<double>(p.cpu) / kMaxSpecCpu +
                          static_cast<double>(n.idle_gpu()) / kMaxSpecGpu * static_cast<double>(p.demand()) / kMaxSpecGpu) /
                         2;
        return Score(100 * (1 - d));
      }
      case OpenbPolicy::kGpuPacking: {
        if (p.gpu_milli <= 0) return 0;
        const int gpus = static_cast<int>(n.gpu_left.size());
        const int free = static_cast<int>(std::count(n.gpu_left.begin(), n.gpu_left.end(), kFull));
        if (free == gpus) return std::max(33 - gpus, gpus);
        std::vector<int> idx(n.gpu_left.size());
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return n.gpu_left[a] < n.gpu_left[b]; });
        int taken = 0, fresh = 0, sum = 0;
        for (int g : idx) {
          if (taken == p.num_gpu) break;
          if (n.gpu_left[g] < p.gpu_milli) continue;
          ++taken;
          fresh += n.gpu_left[g] == kFull;
          sum += n.gpu_left[g] * 100 / kFull;
        }
        if (fresh > 0) return std::max(50 - fresh, 33);
        return std::max(100 - sum / 10, 50);
      }
      case OpenbPolicy::kBestFit: {
        const double raw = 0.5 * static_cast<double>(n.cpu_left - p.cpu) / kMaxSpecCpu +
                           0.5 * static_cast<double>(n.idle_gpu() - p.demand()) / kMaxSpecGpu;
        return Score(100 * (1 - raw));
      }
      case OpenbPolicy::kFgd:
        return FgdScoreMemo(i, p);
      case OpenbPolicy::kMuster:
        return 0;  // (placed by PlaceMuster)
    }
    return 0;
  }

  // Filters every node, scores the feasible ones, takes the best and places the pod there. The
  // nodes are visited in one random order for the run, and a tie goes to the node met first: the
  // simulator's behaviour, which its published figures need (breaking every tie anew at random,
  // as kube-scheduler's selectHost does, costs FGD 5 points and GpuPacking 3). Random draws
  // uniformly among the feasible nodes. False: no node fits.
  // Muster: the scheduler core's Placer decides, on its own Plan of the same nodes.
  bool PlaceMuster(const Pod& p) {
    RequestShape shape;
    shape.per_node.memory_mb = p.memory;
    shape.unit.cpu_milli = p.cpu;
    if (p.sharing()) {
      shape.gpu_milli = p.gpu_milli;
    } else if (p.gpu_milli > 0) {
      shape.per_node.gpus = p.num_gpu;
    }
    shape.units = 1;
    shape.max_units_per_node = 1;
    shape.tasks_per_unit = 1;
    shape.min_nodes = shape.max_nodes = 1;
    DynamicBitset where = muster_all_;
    if (p.gpu_milli > 0 && p.models != ~uint64_t{0}) {
      muster_all_.ForEach([&](int c) {
        if (!ModelOk(p.models, nodes_[ours_[c]].model)) where.reset(c);
        return true;
      });
    }
    Placer placer(*muster_index_, *muster_plan_, &muster_mix_);
    std::optional<std::vector<NodeAllocation>> alloc = placer.Place(shape, where);
    if (!alloc) return false;
    for (const NodeAllocation& a : *alloc) {
      const size_t i = static_cast<size_t>(ours_[muster_index_->Find(a.node)]);
      OpenbNodeState& n = nodes_[i];
      n.cpu_left -= a.cpu_milli;
      n.memory_left -= a.memory_mb;
      for (const GpuShare& g : a.gpus) {
        n.gpu_left[g.index] -= g.milli;
        used_ += g.milli;
      }
      frag_total_ -= node_frag_[i];
      node_frag_[i] = Fragment(n);
      frag_total_ += node_frag_[i];
    }
    return true;
  }

  bool Place(const Pod& p) {
    if (opt_.policy == OpenbPolicy::kMuster) return PlaceMuster(p);
    if (perm_.empty()) {
      perm_.resize(nodes_.size());
      std::iota(perm_.begin(), perm_.end(), size_t{0});
      std::shuffle(perm_.begin(), perm_.end(), rng_);
    }
    int64_t best = -1;
    int best_score = 0;
    int64_t ties = 0;
    for (size_t pi = 0; pi < nodes_.size(); ++pi) {
      const size_t i = perm_[pi];
      if (!Fits(nodes_[i], p)) continue;
      const int s = ScoreOf(i, p);
      if (best < 0 || s > best_score) {
        best = static_cast<int64_t>(i);
        best_score = s;
        ties = 1;
      } else if (s == best_score && opt_.policy == OpenbPolicy::kRandom) {
        ++ties;
        if (std::uniform_int_distribution<int64_t>(0, ties - 1)(rng_) == 0) best = static_cast<int64_t>(i);
      }
    }
    if (best < 0) return false;
    OpenbNodeState& n = nodes_[best];
    std::vector<int> gpus;
    if (p.sharing()) {
      int g = -1;
      if (opt_.policy == OpenbPolicy::kFgd) {
        (void)FgdScore(best, p, &g);
      } else if (opt_.policy == OpenbPolicy::kRandom) {
        g = RandomGpu(n, p);
      } else {
        g = BestGpu(n, p);
      }
      gpus.push_back(g);
    } else if (p.gpu_milli > 0) {
      gpus = WholeGpus(n, p);
    }
    n.cpu_left -= p.cpu;
    n.memory_left -= p.memory;
    for (int g : gpus) n.gpu_left[g] -= p.gpu_milli;
    used_ += p.demand();
    frag_total_ -= node_frag_[best];
    node_frag_[best] = Fragment(n);
    frag_total_ += node_frag_[best];
    return true;
  }

  OpenbOptions opt_;
  std::mt19937_64 rng_;
  std::vector<OpenbNodeState> nodes_;
  std::vector<size_t> perm_;
  ClusterSnapshot muster_snapshot_;
  std::unique_ptr<ClusterIndex> muster_index_;
  std::unique_ptr<Plan> muster_plan_;
  WorkloadMix muster_mix_;
  DynamicBitset muster_all_;
  std::vector<int> ours_;  // canonical node index -> ours
  std::vector<Pod> pool_;
  std::vector<TypicalPod> typical_;
  std::vector<uint64_t> typical_models_;
  std::map<std::string, int> model_ids_;
  std::vector<double> node_frag_;
  double frag_total_ = 0;
  int64_t capacity_ = 0, used_ = 0;
  int64_t gpus_ = 0;
  std::unordered_map<ScoreKey, int, ScoreKeyHash> memo_;
};

}  // namespace

const char* OpenbPolicyName(OpenbPolicy p) {
  switch (p) {
    case OpenbPolicy::kRandom: return "random";
    case OpenbPolicy::kDotProd: return "dotprod";
    case OpenbPolicy::kGpuPacking: return "gpupacking";
    case OpenbPolicy::kBestFit: return "bestfit";
    case OpenbPolicy::kFgd: return "fgd";
    case OpenbPolicy::kMuster: return "muster";
  }
  return "?";
}

std::vector<OpenbPolicy> AllOpenbPolicies() {
  return {OpenbPolicy::kRandom, OpenbPolicy::kDotProd, OpenbPolicy::kGpuPacking, OpenbPolicy::kBestFit,
          OpenbPolicy::kFgd,    OpenbPolicy::kMuster};
}

StatusOr<OpenbPolicy> ParseOpenbPolicy(const std::string& name) {
  for (OpenbPolicy p : AllOpenbPolicies()) {
    if (Lower(name) == OpenbPolicyName(p)) return p;
  }
  return InvalidArgument("unknown placement policy '" + name +
                         "' (expected random, dotprod, gpupacking, bestfit, fgd or muster)");
}

int64_t OpenbNodeState::idle_gpu() const { return std::accumulate(gpu_left.begin(), gpu_left.end(), int64_t{0}); }

std::vector<TypicalPod> TypicalPods(const std::vector<OpenbPod>& pods, double coverage) {
  using Key = std::tuple<int64_t, int, int, std::string>;  // cpu, gpu_milli, num_gpu, model
  std::map<Key, int64_t> count;
  for (const OpenbPod& p : pods) {
    const int gpu_milli = p.num_gpu > 0 ? p.gpu_milli : 0;
    const int64_t cpu = p.cpu_milli > 0 ? p.cpu_milli : 100;  // the scheduler's non-zero request
    ++count[Key{cpu, gpu_milli, p.num_gpu, gpu_milli > 0 ? p.gpu_spec : ""}];
  }
  std::vector<std::pair<Key, int64_t>> types(count.begin(), count.end());
  std::sort(types.begin(), types.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first > b.first;
  });
  std::vector<TypicalPod> out;
  int64_t taken = 0;
  const double need = coverage * static_cast<double>(pods.size());
  for (const auto& [k, n] : types) {
    if (static_cast<double>(taken) >= need && !out.empty()) break;
    out.push_back(TypicalPod{std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), static_cast<double>(n)});
    taken += n;
  }
  for (TypicalPod& t : out) t.weight /= static_cast<double>(taken);
  return out;
}

double NodeFragment(const OpenbNodeState& n, const TypicalPod& t, bool model_ok) {
  int64_t idle = 0;
  for (int g : n.gpu_left) idle += g;
  if (t.gpu_milli <= 0 || !model_ok) return static_cast<double>(idle);
  int hostable = 0;
  int64_t small = 0;
  for (int g : n.gpu_left) {
    if (g >= t.gpu_milli) {
      ++hostable;
    } else {
      small += g;
    }
  }
  if (hostable >= t.num_gpu && n.cpu_left >= t.cpu_milli) return static_cast<double>(small);
  return static_cast<double>(idle);
}

StatusOr<OpenbRun> RunOpenb(const std::vector<OpenbNode>& nodes, const std::vector<OpenbPod>& pods,
                            const OpenbOptions& options, const std::function<void(int64_t, int64_t)>& progress) {
  if (pods.empty()) return InvalidArgument("the pod list is empty");
  if (options.ratio <= 0 || options.ratio > 10) return InvalidArgument("the demand ratio must be in (0, 10]");
  Run run(nodes, pods, options);
  return run.Go(progress);
}

}  // namespace muster
