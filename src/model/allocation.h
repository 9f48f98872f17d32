// Where a job's resources are on one node: the scheduler's decision to start it, and what the
// job record keeps while it runs (and after, for accounting). One type for both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace muster {

inline constexpr int kMilliPerGpu = 1000;

// A GPU, or a share of one, on a node.
struct GpuShare {
  int index = 0;             // device index on the node
  int milli = kMilliPerGpu;  // thousandths of the GPU; kMilliPerGpu = the whole GPU
  bool whole() const { return milli >= kMilliPerGpu; }
  friend bool operator==(const GpuShare&, const GpuShare&) = default;
};

struct NodeAllocation {
  std::string node;
  int64_t cpu_milli = 0;
  int64_t memory_mb = 0;
  int tasks = 0;
  std::vector<GpuShare> gpus;  // ascending index; a GPU appears once (whole or shared)
  bool exclusive = false;
  friend bool operator==(const NodeAllocation&, const NodeAllocation&) = default;
};

// The device indexes of the whole GPUs, ascending.
std::vector<int> WholeGpus(const NodeAllocation& a);
// The indexes of every GPU the allocation holds, whole or shared, ascending.
std::vector<int> GpuIndexes(const NodeAllocation& a);
// The one shared (fractional) GPU, or nullptr. The scheduler gives a job at most one per node.
const GpuShare* SharedGpu(const NodeAllocation& a);
// Whether the allocation holds GPU `index`, whole or shared.
bool HoldsGpu(const NodeAllocation& a, int index);
// GPUs as Slurm counts them: a shared GPU counts once.
inline int64_t GpuCount(const NodeAllocation& a) { return static_cast<int64_t>(a.gpus.size()); }
// GPUs in GPU units: a shared GPU counts as its share (250 thousandths: 0.25).
double GpuUnits(const NodeAllocation& a);
// The CPUs as whole CPUs (cpu_milli rounded up).
inline int64_t CpusOf(const NodeAllocation& a) { return (a.cpu_milli + 999) / 1000; }

// The stored and wire form of the GPUs (model/job_record_fields.h): the whole GPUs as a list of
// indexes, the shared one apart with its share. Kept so that stored records and clients of any age
// read the same keys.
struct StoredGpus {
  std::vector<int> whole;
  int shared = -1;  // index of the shared GPU, -1 = none
  int shared_milli = 0;
};
StoredGpus ToStoredGpus(const NodeAllocation& a);
// The GpuShare list of a stored form (sorted by index).
std::vector<GpuShare> FromStoredGpus(const StoredGpus& s);

}  // namespace muster
