// Clock: the only source of time outside the scheduler core. Production code gets a SystemClock;
// tests and the simulator inject a ManualClock and move it explicitly. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>

namespace muster {

// The microseconds 1000 calls to gettimeofday() take on this host (sdiag's latency line, which
// Slurm's slurmctld measures on its own host).
int64_t GettimeofdayLatencyUs();

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowSeconds() const = 0;  // since the Unix epoch
  virtual int64_t NowMillis() const = 0;
};

class SystemClock : public Clock {
 public:
  int64_t NowSeconds() const override;
  int64_t NowMillis() const override;
};

class ManualClock : public Clock {
 public:
  explicit ManualClock(int64_t start_ms = 1'700'000'000'000) : ms_(start_ms) {}
  int64_t NowSeconds() const override { return ms_.load() / 1000; }
  int64_t NowMillis() const override { return ms_.load(); }
  void AdvanceMillis(int64_t d) { ms_ += d; }
  void AdvanceSeconds(int64_t d) { ms_ += d * 1000; }

 private:
  std::atomic<int64_t> ms_;
};

}  // namespace muster
