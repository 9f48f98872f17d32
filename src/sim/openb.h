// The placement benchmark of the FGD paper (Weng et al., "Beware of Fragmentation", ATC'23) on the
// openb trace, reproduced as its public simulator (hkust-adsl/kubernetes-scheduler-simulator) runs
// it, and the baseline placement policies it compares:
//   - the cluster is the GPU nodes of the node list; every pod of the pod list arrives once, in a
//     shuffled order, then clones drawn uniformly with replacement from the list until the next
//     would take the arrived GPU demand past `ratio` (1.3) of the GPU capacity; nothing departs;
//     a pod that fits no node fails (it still counts as arrived) and is never retried;
//   - after every pod: the GPU allocation ratio (allocated GPU over capacity) and the
//     fragmentation rate (fragmented GPU over idle GPU, fragments measured against the "typical
//     pods": the most frequent pod types covering 95% of the list), reported at each whole
//     percent of arrived demand as the mean over the pods that round to it.
// Deterministic for a seed. Pure: no I/O (the caller reads the traces and prints).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "base/status.h"
#include "sim/trace.h"

namespace muster {

// kMuster: the scheduler core's own placement (sched/placer.h), each pod a one-node request.
enum class OpenbPolicy { kRandom, kDotProd, kGpuPacking, kBestFit, kFgd, kMuster };
const char* OpenbPolicyName(OpenbPolicy p);  // "random", "dotprod", "gpupacking", "bestfit", "fgd", "muster"
StatusOr<OpenbPolicy> ParseOpenbPolicy(const std::string& name);
std::vector<OpenbPolicy> AllOpenbPolicies();

// One node as the policies see it: what is left of its CPU, memory and each GPU (thousandths).
struct OpenbNodeState {
  int64_t cpu_left = 0;     // milli-CPU
  int64_t memory_left = 0;  // MiB
  std::vector<int> gpu_left;  // per GPU, 0..1000
  int model = 0;            // an id for the GPU model (same id, same model)
  int64_t idle_gpu() const;  // sum of gpu_left
};

// A pod type of the target workload, and how often it occurs (the weights sum to 1).
struct TypicalPod {
  int64_t cpu_milli = 0;
  int gpu_milli = 0;  // per GPU; 0: CPU only
  int num_gpu = 0;
  std::string model;  // gpu_spec ("" = any)
  double weight = 0;
};

// The most frequent pod types (cpu, gpu_milli, num_gpu, gpu_spec) until they cover `coverage` of
// the pods, by count (ties: the larger type first), weights renormalised to sum to 1.
std::vector<TypicalPod> TypicalPods(const std::vector<OpenbPod>& pods, double coverage = 0.95);

// FGD's fragment of a node against one pod type, and against the workload (the expected fragment,
// in thousandths of a GPU): a type the node cannot host (not enough CPU, GPUs or the wrong model;
// and every CPU-only type) sees all its idle GPU as fragment, a type it can host the idle GPU on
// cards too small for it. `model_ok`: whether the type may use the node's model.
double NodeFragment(const OpenbNodeState& n, const TypicalPod& t, bool model_ok);

struct OpenbOptions {
  OpenbPolicy policy = OpenbPolicy::kFgd;
  uint64_t seed = 42;
  double ratio = 1.3;  // arrived GPU demand at which the run ends, over the capacity
};

// One run's curves: index X = X% of the capacity arrived (0..floor(100*ratio)); empty where no pod
// rounds to X or its neighbours.
struct OpenbRun {
  std::vector<std::optional<double>> alloc;      // allocated GPU / capacity, %
  std::vector<std::optional<double>> frag_rate;  // fragmented GPU / idle GPU, %
  int64_t pods = 0, failed = 0;
  int64_t capacity_milli = 0;
};

// Runs the protocol once. `progress(done, total)` is called now and then (may be empty).
StatusOr<OpenbRun> RunOpenb(const std::vector<OpenbNode>& nodes, const std::vector<OpenbPod>& pods,
                            const OpenbOptions& options,
                            const std::function<void(int64_t, int64_t)>& progress = {});

}  // namespace muster
