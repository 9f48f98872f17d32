// MixLearner: the workload mix (sched/workload_mix.h) a controller learns from the jobs submitted
// to it, so that its placer can steer clear of fragments the coming jobs could not use without
// being told the workload (the FGD paper takes it from the trace; a live cluster has only what
// arrives).
//
// Each job counts as the slices it puts on its nodes: per node its GPUs (whole, or one shared
// slice of `gpu_milli`) and its CPUs rounded up to whole CPUs. A job of G whole GPUs on N nodes
// (N = its node count, or as many nodes of `max_gpus_per_node` as G needs) is N slices of
// ceil(G / N). Weights decay: a slice seen `half_life_jobs` jobs ago counts half as much as one
// seen now. Shapes() gives the heaviest keys that together cover `cover` of the weight (at most
// `max_shapes`), as the FGD paper keeps the typical pods. Deterministic; not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sched/request_shape.h"
#include "sched/workload_mix.h"

namespace muster {

class MixLearner {
 public:
  explicit MixLearner(double half_life_jobs = 1000, int max_gpus_per_node = 8);

  // Counts one submitted job of this shape. Shapes sized by GPU memory (no thousandths) are not
  // counted: their slices depend on the node they land on.
  void Observe(const RequestShape& shape);
  // Jobs counted so far.
  int64_t observed() const { return observed_; }
  // cover >= 1: every key seen (within max_shapes).
  std::vector<MixShape> Shapes(double cover = 0.95, size_t max_shapes = 32) const;

 private:
  using Key = std::tuple<int64_t, int, int, std::string>;  // cpu_milli, gpu_milli, num_gpu, gpu_type
  void Add(const Key& key, double slices);

  double growth_;   // the weight of a new observation grows by this much per job (the decay)
  int max_gpus_per_node_;
  double next_ = 1;  // the weight an observation gets now
  int64_t observed_ = 0;
  std::map<Key, double> weights_;
};

}  // namespace muster
