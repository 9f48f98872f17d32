// GPU health, per GPU and both ways: a GPU that fails is taken out alone, and comes back by itself
// after enough healthy checks (or an admin's RESUME), unless it needs a reset first.
//
// GpuHealthTracker is the pure state machine (observations in, each GPU's condition out);
// GpuHealthWatcher feeds it from NVML on a thread of its own: Xid events (nvmlEventSetWait) as they
// come, and every interval the volatile double-bit ECC count, row remapping (pending: needs a
// reset; failed), a lost GPU (NVML_ERROR_GPU_IS_LOST), and hardware slowdowns (a warning only).
// The critical Xids default to the set DCGM and the device plugin treat as fatal.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "model/gpu.h"

namespace muster {


enum class GpuCondition { kHealthy, kFailed, kNeedsReset };
const char* GpuConditionName(GpuCondition c);  // "healthy", "failed", "needs_reset"

// A GPU's health as the node reports it (index: the node's GPU index, as allocations name it).
struct GpuHealth {
  int index = 0;
  GpuCondition condition = GpuCondition::kHealthy;
  std::string reason;   // why it failed ("Xid 79 (GPU has fallen off the bus)"), "" when healthy
  std::string warning;  // e.g. a hardware slowdown; never takes the GPU out
  friend bool operator==(const GpuHealth&, const GpuHealth&) = default;
};

// What one poll of a GPU saw.
struct GpuObservation {
  bool lost = false;                 // NVML_ERROR_GPU_IS_LOST
  unsigned long long ecc_dbe = 0;    // volatile (since the last reset) uncorrected ECC errors
  bool remap_pending = false;        // a row remap waits for a reset
  bool remap_failed = false;         // a row remap failed
  bool pages_pending = false;        // (before Ampere) a page retirement waits for a reset
  unsigned long long throttle = 0;   // clocks throttle reasons (nvml.h bits)
};

// A short account of an Xid ("Xid 79 (GPU has fallen off the bus)").
std::string DescribeXid(int xid);

class GpuHealthTracker {
 public:
  GpuHealthTracker(int gpus, GpuHealthConfig config);
  // One poll of GPU `gpu`.
  void Observe(int gpu, const GpuObservation& seen);
  // An Xid event on GPU `gpu`; only critical ones take it out, every one is the GPU's last Xid.
  void Xid(int gpu, int xid);
  // An admin's RESUME: the GPU is healthy again unless the next poll finds it bad.
  void Resume(int gpu);
  std::vector<GpuHealth> Snapshot() const;
  // Each GPU's last Xid, critical or not (0: none seen), as DCGM_FI_DEV_XID_ERRORS says it.
  std::vector<int> LastXids() const;
  // Bumped at every change of condition, reason or warning.
  uint64_t generation() const { return generation_; }

 private:
  struct State {
    GpuHealth health;
    int healthy_streak = 0;
  };
  void Set(State& s, GpuCondition c, const std::string& reason);
  GpuHealthConfig config_;
  std::vector<State> gpus_;
  std::vector<int> last_xid_;
  uint64_t generation_ = 0;
};

namespace nvml {
struct NvmlApi;
}

// Watches a node's GPUs through NVML on its own thread. `nvml_index[i]` is the NVML index of the
// physical GPU of the node's GPU i (a MIG slice's parent: a fault of the parent fails its slices).
// `changed` is called (on the watcher's thread) after every change of the snapshot.
class GpuHealthWatcher {
 public:
  static StatusOr<std::unique_ptr<GpuHealthWatcher>> Start(const std::string& library, std::vector<int> nvml_index,
                                                           GpuHealthConfig config, std::function<void()> changed);
  // Over a table a test fills (the library stays the caller's).
  static StatusOr<std::unique_ptr<GpuHealthWatcher>> StartWith(const nvml::NvmlApi* api, std::vector<int> nvml_index,
                                                               GpuHealthConfig config, std::function<void()> changed);
  ~GpuHealthWatcher();
  std::vector<GpuHealth> Snapshot() const;
  std::vector<int> LastXids() const;  // GpuHealthTracker::LastXids
  void Resume(int gpu);
  // Polls done so far (tests wait on it).
  uint64_t polls() const { return polls_.load(); }

 private:
  GpuHealthWatcher() = default;
  Status Open();
  void Run();
  void PollOnce();
  std::shared_ptr<void> library_;  // the dlopen'ed NVML (NvmlLibrary), when Start loaded it
  const nvml::NvmlApi* api_ = nullptr;
  std::vector<int> nvml_index_;
  std::vector<void*> handles_;  // per physical NVML index used
  void* events_ = nullptr;
  std::function<void()> changed_;
  mutable Mutex mu_{"GPU health"};
  std::unique_ptr<GpuHealthTracker> tracker_ PT_GUARDED_BY(mu_);
  GpuHealthConfig config_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> polls_{0};
  std::thread thread_;
};

}  // namespace muster
