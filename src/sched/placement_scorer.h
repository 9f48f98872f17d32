// PlacementScorer: how the placer (sched/placer.h) ranks the nodes a one-node job could go to, as
// a Kubernetes Score plugin ranks the nodes its Filter plugins left. The placer walks the
// candidates, drops those that cannot hold the job, compares what remain by NVLink link quality
// first (the topology preference every scorer shares: a 4-GPU job gets a fully connected quad
// where there is one) and then by the scorer's Score; the best wins. Multi-node jobs are placed
// under the lowest switch that holds them, best fit (the switch tree is a constraint, not a score).
//
// The scorers are listed in one table (PlacementScorerRegistry, sched/placement_scorer.cc) and
// chosen by name in muster.yaml (`scheduler.placement`, config/scheduling/scheduling_config.cc)
// and `muster sim philly --placement`. A new scorer is one file (sched/<name>_scorer.cc: a class
// implementing PlacementScorer and its New...Scorer function, declared below), its row in the
// table, and its test. Pure and deterministic; a scorer keeps no state (one is shared by every
// placer of the controller's threads).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "sched/request_shape.h"

namespace muster {

class Placer;
class WorkloadMix;

// One candidate's score: smaller `key` is better (compared element by element; the last element
// should be the node's canonical index, so that no two candidates tie and the choice does not
// depend on the order the placer meets them).
struct PlacementScore {
  bool ok = true;  // false: the job cannot be placed there after all (skip it)
  std::array<int64_t, 3> key{};
  int gpu = -1;    // a slice's GPU on that node, when the scorer chose it (-1: the placer's best fit)
};

class PlacementScorer {
 public:
  virtual ~PlacementScorer() = default;

  // Its name in muster.yaml's `scheduler.placement`.
  virtual std::string_view name() const = 0;
  // Whether it places by the workload mix the controller learns from the jobs submitted
  // (sched/mix_learner.h): the controller learns one, and gives it to the placer, only then.
  virtual bool learns_mix() const = 0;
  // Whether it scores `shape`'s candidates given `mix` (null or empty: none learnt yet); when it
  // does not, best fit does.
  virtual bool Scores(const RequestShape& shape, const WorkloadMix* mix) const = 0;
  // Where the placer walks the candidates of a one-node job: the nodes by free whole GPUs from
  // `from` up (`by_free_whole`; else every usable node), and whether the scores follow that walk
  // (fewest free whole GPUs first, then the lowest index, `ordered`): then the placer stops at the
  // first candidate of full link quality (a GPU job) or after the first bucket with a candidate.
  struct Walk {
    bool by_free_whole = false;
    int from = 0;
    bool ordered = false;
  };
  virtual Walk WalkFor(const RequestShape& shape) const = 0;
  // Best fit places a slice on the partly used GPU with the least room that still holds it,
  // anywhere among the candidates, before it scores nodes (which opens a GPU): true for it.
  virtual bool SlicesFirst() const = 0;
  // The score of placing `units` of `shape` on canonical node `node`, as things stand in
  // `placer`'s plan (which the placer has checked can hold them).
  virtual PlacementScore Score(const Placer& placer, int node, int units, const RequestShape& shape) const = 0;
};

// The scorers by name: a fixed table, in the order muster.yaml's error message lists them.
class PlacementScorerRegistry {
 public:
  static constexpr std::string_view kDefault = "learned";
  static std::span<const std::string_view> Names();
  // Null when no scorer has that name (exactly as Names spells it).
  static std::shared_ptr<const PlacementScorer> Create(std::string_view name);
  // The scorer named `word`, or InvalidArgument "'word' is not learned or bestfit" (every name).
  static StatusOr<std::shared_ptr<const PlacementScorer>> Parse(std::string_view word);
  // Best fit: what the placer falls back on where a scorer does not score a job (Scores).
  static const PlacementScorer& BestFit();
};

// The implementations, one file each, named in the registry's table.
std::shared_ptr<const PlacementScorer> NewLearnedScorer();  // learned_scorer.cc: FGD's expected fragment
std::shared_ptr<const PlacementScorer> NewBestFitScorer();  // best_fit_scorer.cc

}  // namespace muster
