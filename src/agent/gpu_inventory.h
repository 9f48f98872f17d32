// The node's GPUs: from NVML, loaded with dlopen("libnvidia-ml.so.1") at run time (no CUDA needed
// to build), or a fake inventory from the configuration for machines without GPUs.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "model/gpu.h"
#include "model/gpu_links.h"

namespace muster {

struct GpuInventory {
  std::vector<Gpu> gpus;
  GpuLinkMatrix links;
  std::string source;  // "nvml" or "fake"
  // The /dev/nvidia<minor> device of each entry of `gpus` (for a MIG slice, its parent GPU's),
  // for the device cgroup; same size as `gpus`. The minor need not equal the index.
  std::vector<int> minors;
};

// NVML: devices (and MIG instances where MIG is enabled), memory, UUIDs, NUMA nodes, NVLink
// link counts between GPUs. NotFound when libnvidia-ml.so.1 cannot be loaded; other errors name
// the NVML call that failed.
StatusOr<GpuInventory> DiscoverNvmlGpus();

// A fake inventory: `count` GPUs of `model` with `memory_mb`, NUMA split in halves, links from a
// GpuLinkMatrix::Parse spec ("nvswitch", "islands:4", "pcie", "dgx1", or a matrix).
StatusOr<GpuInventory> FakeGpus(int count, const std::string& model, int64_t memory_mb, const std::string& links,
                                const std::string& node_name);

}  // namespace muster
