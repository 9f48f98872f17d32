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
  // For a MIG slice, the minors of its GPU instance's and compute instance's capability devices
  // (/dev/nvidia-caps/nvidia-cap<minor>), which a job on the slice must open too; empty for a
  // whole GPU. Same size as `gpus`.
  std::vector<std::vector<int>> cap_minors;
  // NVML's index of the physical GPU of each entry (a MIG slice's parent's), for health watching;
  // same size as `gpus` (empty for fake GPUs).
  std::vector<int> nvml_index;
  // Node features from what NVML says (nvml::GpuFeatures): "h200", "gpumem_140g", "cc_9.0",
  // "driver_580", "cuda_13.0", "mig_capable", "nvlink", ...; none for fake GPUs.
  std::vector<std::string> features;
};

// NVML: devices (and MIG instances where MIG is enabled), memory, UUIDs, NUMA nodes, NVLink
// link counts between GPUs. NotFound when libnvidia-ml.so.1 cannot be loaded; other errors name
// the NVML call that failed.
// `library`: the NVML library to load (agent.nvml_library; a test's fake one).
StatusOr<GpuInventory> DiscoverNvmlGpus(const std::string& library = "libnvidia-ml.so.1");

// A fake inventory: `count` GPUs of `model` with `memory_mb`, NUMA split in halves, links from a
// GpuLinkMatrix::Parse spec ("nvswitch", "islands:4", "pcie", "dgx1", or a matrix).
StatusOr<GpuInventory> FakeGpus(int count, const std::string& model, int64_t memory_mb, const std::string& links,
                                const std::string& node_name);

}  // namespace muster
