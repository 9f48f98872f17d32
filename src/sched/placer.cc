#include "sched/placer.h"

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <tuple>

namespace muster {

namespace {

int64_t Div(int64_t have, int64_t per) { return per > 0 ? have / per : INT64_MAX; }

}  // namespace

int SliceMilli(const Gpu& gpu, const RequestShape& shape) {
  if (shape.gpu_milli > 0) return shape.gpu_milli;
  if (gpu.memory_mb <= 0) return kMilliPerGpu + 1;  // unknown memory: cannot size a memory slice
  int64_t m = (shape.gpu_memory_mb * kMilliPerGpu + gpu.memory_mb - 1) / gpu.memory_mb;
  return m > kMilliPerGpu ? kMilliPerGpu + 1 : static_cast<int>(std::max<int64_t>(m, 1));
}

Placer::Placer(const ClusterIndex& index, Plan& plan, const WorkloadMix* mix, const PlacementScorer* scorer)
    : index_(index), plan_(plan), mix_(mix != nullptr && !mix->empty() ? mix : nullptr), scorer_(scorer) {
  if (scorer_ == nullptr) {
    static const std::shared_ptr<const PlacementScorer> fallback =
        PlacementScorerRegistry::Create(PlacementScorerRegistry::kDefault);
    scorer_ = fallback.get();
  }
}

const PlacementScorer& Placer::ScorerFor(const RequestShape& shape) const {
  return scorer_->Scores(shape, mix_) ? *scorer_ : PlacementScorerRegistry::BestFit();
}

std::tuple<int, int64_t, int> Placer::FitKey(int i, const RequestShape& shape) const {
  if (shape.fractional()) {
    // Nodes where the slice joins a partly used GPU come first: they open no new GPU.
    auto [g, milli] = Slice(i, shape);
    const bool joins = g >= 0 && (plan_.free(i).partial_mask >> g & 1);
    return {joins ? -1 : plan_.free_whole(i), 0, i};
  }
  const bool gpu_job = shape.per_node.gpus + shape.unit.gpus > 0;
  return {plan_.free_whole(i), gpu_job ? 0 : plan_.free(i).cpu_milli, i};
}

std::pair<int, int> Placer::Slice(int i, const RequestShape& shape) const {
  const NodeFree& f = plan_.free(i);
  const IndexedNode& in = index_.node(i);
  if (i == slice_node_ && slice_gpu_ >= 0) return {slice_gpu_, SliceMilli(in.node->gpus[slice_gpu_], shape)};
  const uint64_t type_mask = in.TypeMask(shape.gpu_type);
  // Best fit among partly used GPUs: the least room left that still holds the slice.
  int best = -1, best_room = kMilliPerGpu + 1, best_milli = 0;
  for (uint64_t m = f.partial_mask & type_mask; m; m &= m - 1) {
    int g = std::countr_zero(m);
    int need = SliceMilli(in.node->gpus[g], shape);
    int room = plan_.gpu_free_milli(i, g);
    if (need <= room && room < best_room) {
      best = g;
      best_room = room;
      best_milli = need;
    }
  }
  if (best >= 0) return {best, best_milli};
  // Otherwise open the free GPU whose loss hurts the remaining NVLink sets least.
  uint64_t pick = index_.picker().Pick(in.layout, f.free_mask & type_mask, 1);
  if (pick == 0) return {-1, 0};
  int g = std::countr_zero(pick);
  int need = SliceMilli(in.node->gpus[g], shape);
  if (need > kMilliPerGpu) return {-1, 0};
  return {g, need};
}

int Placer::Capacity(int i, const RequestShape& shape) const {
  if (!plan_.usable().test(i)) return 0;
  const NodeFree& f = plan_.free(i);
  if (f.exclusive || (shape.exclusive && f.jobs > 0)) return 0;
  const IndexedNode& in = index_.node(i);
  int64_t cpu = f.cpu_milli - shape.per_node.cpu_milli;
  int64_t mem = f.memory_mb - shape.per_node.memory_mb;
  int64_t gpus = std::popcount(f.free_mask & in.TypeMask(shape.gpu_type)) - shape.per_node.gpus;
  if (cpu < 0 || mem < 0 || gpus < 0) return 0;
  if (shape.fractional() && Slice(i, shape).first < 0) return 0;
  int64_t c = shape.units;
  c = std::min({c, Div(cpu, shape.unit.cpu_milli), Div(mem, shape.unit.memory_mb), Div(gpus, shape.unit.gpus)});
  if (shape.max_units_per_node > 0) c = std::min<int64_t>(c, shape.max_units_per_node);
  return static_cast<int>(c);
}

std::optional<NodeAllocation> Placer::Build(int i, int units, const RequestShape& shape) const {
  const IndexedNode& in = index_.node(i);
  const NodeFree& f = plan_.free(i);
  NodeAllocation a;
  a.node = in.node->name;
  a.tasks = shape.tasks_per_node_fixed + units * shape.tasks_per_unit;
  a.exclusive = shape.exclusive;
  uint64_t mask = 0;
  if (shape.exclusive) {
    a.cpu_milli = f.cpu_milli;
    a.memory_mb = f.memory_mb;
    mask = f.free_mask & in.whole_mask;
  } else {
    a.cpu_milli = shape.per_node.cpu_milli + int64_t{units} * shape.unit.cpu_milli;
    a.memory_mb = shape.per_node.memory_mb + int64_t{units} * shape.unit.memory_mb;
    const int count = shape.per_node.gpus + units * shape.unit.gpus;
    if (count > 0) {
      mask = index_.picker().Pick(in.layout, f.free_mask & in.TypeMask(shape.gpu_type), count);
      if (mask == 0) return std::nullopt;
    }
  }
  for (uint64_t m = mask; m; m &= m - 1) a.gpus.push_back(GpuShare{std::countr_zero(m), kMilliPerGpu});
  if (shape.fractional()) {
    auto [g, milli] = Slice(i, shape);
    if (g < 0) return std::nullopt;
    a.gpus.push_back(GpuShare{g, milli});
    std::sort(a.gpus.begin(), a.gpus.end(), [](const GpuShare& x, const GpuShare& y) { return x.index < y.index; });
  }
  return a;
}

std::optional<Placer::Pick> Placer::FractionalSingle(const RequestShape& shape,
                                                     const DynamicBitset& candidates) const {
  // The partly used GPU with the least room that still fits, over all candidate nodes.
  int best_node = -1, best_room = kMilliPerGpu + 1;
  plan_.with_partial().ForEachAnd(candidates, [&](int i) {
    auto [g, milli] = Slice(i, shape);
    if (g < 0 || !(plan_.free(i).partial_mask >> g & 1)) return true;
    int room = plan_.gpu_free_milli(i, g) - milli;
    if (room < best_room && Capacity(i, shape) >= shape.units) {
      best_room = room;
      best_node = i;
    }
    return true;
  });
  if (best_node < 0) return std::nullopt;
  return Pick{{best_node, shape.units}};
}

Placer::Quality Placer::LinkQuality(int i, int units, const RequestShape& shape) const {
  const int count = shape.exclusive ? 0 : shape.per_node.gpus + units * shape.unit.gpus;
  if (count < 2) return {1, 1};
  const IndexedNode& in = index_.node(i);
  GpuPickCache& picker = index_.picker();
  const int best = picker.BestLinkSum(in.layout, count);
  if (best == 0) return {1, 1};
  const uint64_t pick = picker.Pick(in.layout, plan_.free(i).free_mask & in.TypeMask(shape.gpu_type), count);
  return {picker.LinkSum(in.layout, pick), best};
}

std::optional<Placer::Pick> Placer::SingleNode(const RequestShape& shape, const DynamicBitset& candidates) const {
  const PlacementScorer& scorer = ScorerFor(shape);
  if (shape.fractional() && scorer.SlicesFirst()) {
    if (auto p = FractionalSingle(shape, candidates)) return p;
  }
  // The node whose GPU set has the best NVLink connectivity relative to what its hardware can
  // offer (a 4-GPU job should get a DGX-1's fully connected quad on a free node rather than a
  // weaker set on a busy one); among equals, the best score.
  int found = -1;
  Quality best_q{0, 1};
  std::array<int64_t, 3> best_key{};
  auto consider = [&](int i) {
    if (Capacity(i, shape) < shape.units) return;
    const Quality q = LinkQuality(i, shape.units, shape);
    const int64_t lhs = int64_t{q.links} * best_q.best, rhs = int64_t{best_q.links} * q.best;
    if (found >= 0 && lhs < rhs) return;
    const PlacementScore s = scorer.Score(*this, i, shape.units, shape);
    if (!s.ok) return;
    if (found < 0 || lhs > rhs || s.key < best_key) {
      found = i;
      slice_node_ = i;
      slice_gpu_ = s.gpu;
      best_q = q;
      best_key = s.key;
    }
  };
  const PlacementScorer::Walk walk = scorer.WalkFor(shape);
  if (walk.by_free_whole) {
    // Buckets by free whole GPUs, ascending, nodes in index order. When the scores follow that
    // order, the first node of full link quality is the answer for GPU jobs, and CPU-only jobs
    // look no further than the lowest bucket with a candidate.
    bool done = false;
    for (int k = walk.from; k <= index_.max_gpus_per_node() && !done; ++k) {
      plan_.by_free_whole(k).ForEachAnd(candidates, [&](int i) {
        consider(i);
        done = walk.ordered && found >= 0 && walk.from > 0 && best_q.links == best_q.best;
        return !done;
      });
      if (walk.ordered && found >= 0 && walk.from == 0) done = true;
    }
  } else {
    plan_.usable().ForEachAnd(candidates, [&](int i) {
      consider(i);
      return true;
    });
  }
  if (found < 0) return std::nullopt;
  return Pick{{found, shape.units}};
}

bool Placer::SelectIn(int t, int need, const RequestShape& shape, const std::vector<std::pair<int, int>>& elig,
                      Pick& out) const {
  const TreeNode& tn = index_.tree()[t];
  auto lo = std::lower_bound(elig.begin(), elig.end(), std::make_pair(tn.begin, 0));
  auto hi = std::lower_bound(elig.begin(), elig.end(), std::make_pair(tn.end, 0));
  if (tn.children.empty()) {
    // Nodes: largest capacity first; the node that completes the job is the best fit among the rest.
    std::vector<std::pair<int, int>> nodes(lo, hi);
    std::sort(nodes.begin(), nodes.end(), [&](const auto& a, const auto& b) {
      if (a.second != b.second) return a.second > b.second;
      return FitKey(a.first, shape) < FitKey(b.first, shape);
    });
    int rem = need;
    for (size_t k = 0; k < nodes.size() && rem > 0; ++k) {
      if (nodes[k].second >= rem) {
        size_t best = k;
        for (size_t j = k + 1; j < nodes.size(); ++j) {
          if (nodes[j].second < rem) continue;
          if (std::make_tuple(nodes[j].second, FitKey(nodes[j].first, shape)) <
              std::make_tuple(nodes[best].second, FitKey(nodes[best].first, shape))) {
            best = j;
          }
        }
        out.emplace_back(nodes[best].first, rem);
        rem = 0;
      } else {
        out.emplace_back(nodes[k].first, nodes[k].second);
        rem -= nodes[k].second;
      }
    }
    return rem == 0;
  }
  // Children: the fewest of them, largest first; the one that completes the job is the best fit.
  std::vector<std::pair<int, int>> kids;  // (capacity for the job, tree index)
  for (int c : tn.children) {
    const TreeNode& cn = index_.tree()[c];
    int64_t sum = 0;
    for (auto it = std::lower_bound(lo, hi, std::make_pair(cn.begin, 0));
         it != hi && it->first < cn.end && sum < need; ++it) {
      sum += it->second;
    }
    if (sum > 0) kids.emplace_back(static_cast<int>(std::min<int64_t>(sum, need)), c);
  }
  std::sort(kids.begin(), kids.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  int rem = need;
  for (size_t k = 0; k < kids.size() && rem > 0; ++k) {
    if (kids[k].first >= rem) {
      size_t best = k;
      for (size_t j = k + 1; j < kids.size(); ++j) {
        if (kids[j].first >= rem && kids[j] < kids[best]) best = j;
      }
      if (!SelectIn(kids[best].second, rem, shape, elig, out)) return false;
      rem = 0;
    } else {
      if (!SelectIn(kids[k].second, kids[k].first, shape, elig, out)) return false;
      rem -= kids[k].first;
    }
  }
  return rem == 0;
}

bool Placer::Spread(int t, const RequestShape& shape, const std::vector<std::pair<int, int>>& elig,
                    Pick& pick) const {
  // Fewer nodes than -N asks: add eligible nodes of the same subtree (leaves already used first)
  // and move single units onto them from the most loaded node.
  const TreeNode& tn = index_.tree()[t];
  std::vector<int> used_leaves;
  for (auto& [n, u] : pick) used_leaves.push_back(index_.node(n).leaf);
  std::vector<int> extra;
  for (const auto& e : elig) {
    const int n = e.first;
    if (n < tn.begin || n >= tn.end) continue;
    if (std::any_of(pick.begin(), pick.end(), [&](const auto& p) { return p.first == n; })) continue;
    extra.push_back(n);
  }
  std::stable_sort(extra.begin(), extra.end(), [&](int a, int b) {
    auto in_used = [&](int n) {
      return std::find(used_leaves.begin(), used_leaves.end(), index_.node(n).leaf) != used_leaves.end();
    };
    return in_used(a) > in_used(b);
  });
  size_t next = 0;
  while (static_cast<int>(pick.size()) < shape.min_nodes) {
    if (next == extra.size()) return false;
    auto most = std::max_element(pick.begin(), pick.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    if (most->second <= 1) return false;
    most->second -= 1;
    pick.emplace_back(extra[next++], 1);
  }
  return true;
}

std::optional<Placer::Pick> Placer::MultiNode(const RequestShape& shape, const DynamicBitset& candidates) const {
  std::vector<std::pair<int, int>> elig;  // (node, capacity), ascending node
  const int min_gpus = shape.exclusive ? 0 : shape.per_node.gpus + shape.unit.gpus;
  if (shape.gpu_type.empty() && min_gpus > 0) {
    for (int k = min_gpus; k <= index_.max_gpus_per_node(); ++k) {
      plan_.by_free_whole(k).ForEachAnd(candidates, [&](int i) {
        if (int c = Capacity(i, shape); c > 0) elig.emplace_back(i, c);
        return true;
      });
    }
    std::sort(elig.begin(), elig.end());
  } else {
    plan_.usable().ForEachAnd(candidates, [&](int i) {
      if (int c = Capacity(i, shape); c > 0) elig.emplace_back(i, c);
      return true;
    });
  }
  // Prefix sums over the canonical order: a switch's capacity is a range sum.
  std::vector<int64_t> prefix(elig.size() + 1, 0);
  for (size_t k = 0; k < elig.size(); ++k) prefix[k + 1] = prefix[k] + elig[k].second;
  auto range = [&](const TreeNode& tn) {
    size_t a = std::lower_bound(elig.begin(), elig.end(), std::make_pair(tn.begin, 0)) - elig.begin();
    size_t b = std::lower_bound(elig.begin(), elig.end(), std::make_pair(tn.end, 0)) - elig.begin();
    return std::make_pair(prefix[b] - prefix[a], static_cast<int64_t>(b - a));
  };
  for (int level = 0; level <= index_.max_level(); ++level) {
    std::vector<std::tuple<int64_t, int>> fits;  // (capacity, tree index): best fit first
    for (int t : index_.level(level)) {
      auto [sum, count] = range(index_.tree()[t]);
      if (sum >= shape.units && count >= shape.min_nodes) fits.emplace_back(sum, t);
    }
    std::sort(fits.begin(), fits.end());
    for (const auto& [sum, t] : fits) {
      Pick pick;
      if (!SelectIn(t, shape.units, shape, elig, pick)) continue;
      if (static_cast<int>(pick.size()) < shape.min_nodes && !Spread(t, shape, elig, pick)) continue;
      if (shape.max_nodes > 0 && static_cast<int>(pick.size()) > shape.max_nodes) continue;
      return pick;
    }
  }
  return std::nullopt;
}

std::optional<std::vector<NodeAllocation>> Placer::Place(const RequestShape& shape,
                                                         const DynamicBitset& candidates) {
  std::optional<Pick> pick;
  slice_node_ = slice_gpu_ = -1;
  if (shape.min_nodes <= 1) pick = SingleNode(shape, candidates);
  if (!pick && (shape.max_nodes == 0 || shape.max_nodes > 1)) pick = MultiNode(shape, candidates);
  if (!pick) return std::nullopt;
  std::sort(pick->begin(), pick->end());
  // Gang: take node by node under one checkpoint; any failure undoes all of it.
  const int mark = plan_.Mark();
  std::vector<NodeAllocation> out;
  for (const auto& [node, units] : *pick) {
    std::optional<NodeAllocation> a = Build(node, units, shape);
    if (!a) {
      plan_.Rollback(mark);
      slice_node_ = slice_gpu_ = -1;
      return std::nullopt;
    }
    plan_.Take(node, *a);
    out.push_back(std::move(*a));
  }
  slice_node_ = slice_gpu_ = -1;
  return out;
}

std::optional<std::vector<NodeAllocation>> TryPlace(const ClusterIndex& index, Plan& plan, const RequestShape& shape,
                                                    const DynamicBitset& candidates) {
  const int mark = plan.Mark();
  std::optional<std::vector<NodeAllocation>> a = Placer(index, plan).Place(shape, candidates);
  plan.Rollback(mark);
  return a;
}

}  // namespace muster
