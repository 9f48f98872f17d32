// bestfit: the node that leaves the least room, as Slurm's select/cons_tres packs: the fewest free
// whole GPUs after it (a CPU-only job: then the least free CPU), then the lowest canonical index; a
// slice joins the partly used GPU with the least room that still holds it, anywhere, before it
// opens a free GPU (Placer::FitKey).
#include "sched/placement_scorer.h"
#include "sched/placer.h"

namespace muster {
namespace {

class BestFitScorer final : public PlacementScorer {
 public:
  std::string_view name() const override { return "bestfit"; }
  bool learns_mix() const override { return false; }
  bool Scores(const RequestShape&, const WorkloadMix*) const override { return true; }
  Walk WalkFor(const RequestShape& shape) const override {
    // Buckets by free whole GPUs, ascending, nodes in index order, as the key orders them: for GPU
    // jobs the first node of full link quality is the answer; CPU-only jobs compare free CPU
    // inside the lowest bucket. A slice that opens a GPU needs one more free.
    const int need = shape.per_node.gpus + shape.units * shape.unit.gpus + (shape.fractional() ? 1 : 0);
    return Walk{.by_free_whole = shape.gpu_type.empty() && !shape.exclusive, .from = need, .ordered = true};
  }
  bool SlicesFirst() const override { return true; }
  PlacementScore Score(const Placer& placer, int node, int, const RequestShape& shape) const override {
    const auto [whole, cpu, index] = placer.FitKey(node, shape);
    return PlacementScore{.ok = true, .key = {whole, cpu, index}, .gpu = -1};
  }
};

}  // namespace

std::shared_ptr<const PlacementScorer> NewBestFitScorer() {
  static const std::shared_ptr<const PlacementScorer> scorer = std::make_shared<BestFitScorer>();
  return scorer;
}

}  // namespace muster
