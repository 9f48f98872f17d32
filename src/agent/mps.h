// Fractional GPUs with limits: where NVIDIA's MPS control program exists, a GPU that jobs share
// runs an MPS control daemon (started for its first sharer, stopped after its last), and each
// sharer's CUDA clients get its share as CUDA_MPS_ACTIVE_THREAD_PERCENTAGE and
// CUDA_MPS_PINNED_DEVICE_MEM_LIMIT. Without MPS the share is only counted, and the job's
// environment says so (MUSTER_GPU_SHARE). Thread-compatible (the agent calls it under its lock).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace muster {

// What a sharer of a GPU gets.
struct MpsShare {
  int gpu = -1;                 // the node's GPU index
  std::string device;           // what CUDA_VISIBLE_DEVICES names for the daemon (UUID or index)
  int visible_index = 0;        // the GPU's index as the job's CUDA sees it
  int milli = 0;                // its share, in thousandths
  int64_t memory_mb = 0;        // its memory limit
};

class MpsManager {
 public:
  // `control`: the nvidia-cuda-mps-control program ("" = none here); `dir`: where each GPU's pipe
  // and log directories go (<dir>/<gpu>/pipe, <dir>/<gpu>/log).
  MpsManager(std::string control, std::string dir, std::string node);
  bool available() const { return !control_.empty(); }
  // A sharer begins: the daemon of its GPU starts when it is the first. The environment lines its
  // processes get.
  StatusOr<std::vector<std::string>> Acquire(const MpsShare& share);
  // A sharer of `gpu` found running at the agent's start: counted, its daemon left as it is.
  void Adopt(int gpu) { ++sharers_[gpu]; }
  // A sharer ends: the daemon stops after the last.
  void Release(int gpu);
  int sharers(int gpu) const;

 private:
  Status Control(int gpu, const std::string& device, const std::vector<std::string>& args, const std::string& input);
  std::string control_, dir_, node_;
  std::map<int, int> sharers_;
  std::map<int, std::string> device_;
};

// The nvidia-cuda-mps-control program of this host ("" when it has none): in PATH, or where the
// driver and CUDA packages put it.
std::string FindMpsControl();

}  // namespace muster
