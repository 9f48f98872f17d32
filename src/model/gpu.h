// Gpu: one schedulable GPU device of a node: a whole GPU, or one MIG slice of a GPU (a typed device).
// Plain value type.
#pragma once

#include <cstdint>
#include <set>
#include <string>

namespace muster {

struct Gpu {
  int index = 0;              // position in the node's device list (what CUDA_VISIBLE_DEVICES names)
  std::string model;          // e.g. "h100", "a100", "v100" (lower case, Slurm gres type)
  int64_t memory_mb = 0;      // device memory (of the slice, for a MIG slice)
  std::string uuid;           // "GPU-..." or "MIG-..."
  int numa_node = 0;          // NUMA node of its PCIe root
  std::string mig_profile;    // "" for a whole GPU, else e.g. "1g.18gb"
  int parent_index = -1;      // for a MIG slice: index of the physical GPU it is carved from

  bool is_mig() const { return !mig_profile.empty(); }
  // The gres type a request names to select this device: the MIG profile for a slice, else the model.
  const std::string& type() const { return is_mig() ? mig_profile : model; }

  friend bool operator==(const Gpu&, const Gpu&) = default;
};

// How a node agent watches its NVML GPUs' health (agent/gpu_health.h; muster.yaml agent.gpu_health).
// The critical Xids default to the set DCGM and the GPU device plugin treat as fatal.
struct GpuHealthConfig {
  std::set<int> critical_xids = {48, 63, 64, 74, 79, 92, 94, 95, 119, 120};
  int64_t interval_ms = 10000;  // between polls of each GPU's counters
  int recover_checks = 3;       // consecutive healthy polls before a failed GPU returns
};

}  // namespace muster
