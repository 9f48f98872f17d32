#include "agent/gpu_health.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "agent/nvml_api.h"
#include "base/test_util.h"

namespace muster {
namespace {

GpuHealthConfig Config(int recover = 3) {
  GpuHealthConfig c;
  c.recover_checks = recover;
  c.interval_ms = 10;
  return c;
}

TEST(GpuHealthTracker, ACriticalXidTakesOneGpuOutUntilEnoughHealthyChecks) {
  GpuHealthTracker t(4, Config(3));
  const uint64_t g0 = t.generation();
  t.Xid(1, 13);  // an application's error: not the GPU's
  EXPECT_EQ(t.Snapshot()[1].condition, GpuCondition::kHealthy);
  EXPECT_EQ(t.generation(), g0);
  t.Xid(1, 79);
  std::vector<GpuHealth> s = t.Snapshot();
  EXPECT_EQ(s[1].condition, GpuCondition::kFailed);
  EXPECT_EQ(s[1].reason, "Xid 79 (GPU has fallen off the bus)");
  for (int g : {0, 2, 3}) EXPECT_EQ(s[g].condition, GpuCondition::kHealthy) << "GPU " << g << " stays in";
  EXPECT_GT(t.generation(), g0);
  t.Observe(1, {});
  t.Observe(1, {});
  EXPECT_EQ(t.Snapshot()[1].condition, GpuCondition::kFailed) << "two healthy checks of three";
  t.Observe(1, {});
  EXPECT_EQ(t.Snapshot()[1].condition, GpuCondition::kHealthy);
  EXPECT_EQ(t.Snapshot()[1].reason, "");
}

TEST(GpuHealthTracker, KeepsEachGpusLastXidCriticalOrNot) {
  GpuHealthTracker t(3, Config(3));
  EXPECT_EQ(t.LastXids(), (std::vector<int>{0, 0, 0}));
  t.Xid(1, 13);  // an application's: counted, though it takes nothing out
  EXPECT_EQ(t.LastXids(), (std::vector<int>{0, 13, 0}));
  t.Xid(2, 79);
  t.Xid(1, 31);
  t.Xid(7, 48);  // no such GPU: ignored
  EXPECT_EQ(t.LastXids(), (std::vector<int>{0, 31, 79}));
  t.Observe(2, {});  // healthy checks change the condition, not the last Xid
  EXPECT_EQ(t.LastXids()[2], 79);
}

TEST(GpuHealthTracker, ABadCheckStartsTheCountAgain) {
  GpuHealthTracker t(1, Config(2));
  t.Xid(0, 48);
  t.Observe(0, {});
  GpuObservation ecc;
  ecc.ecc_dbe = 2;
  t.Observe(0, ecc);
  EXPECT_EQ(t.Snapshot()[0].reason, "2 uncorrected (double-bit) ECC errors since the last reset");
  t.Observe(0, {});
  EXPECT_EQ(t.Snapshot()[0].condition, GpuCondition::kFailed);
  t.Observe(0, {});
  EXPECT_EQ(t.Snapshot()[0].condition, GpuCondition::kHealthy);
}

TEST(GpuHealthTracker, APendingRemapNeedsAResetAndLostAndFailedRemapFail) {
  GpuHealthTracker t(3, Config(1));
  GpuObservation pending;
  pending.remap_pending = true;
  pending.ecc_dbe = 1;
  t.Observe(0, pending);
  EXPECT_EQ(t.Snapshot()[0].condition, GpuCondition::kNeedsReset);
  EXPECT_EQ(t.Snapshot()[0].reason, "row remapping pending: the GPU needs a reset");
  t.Resume(0);
  EXPECT_EQ(t.Snapshot()[0].condition, GpuCondition::kHealthy) << "an admin's RESUME";
  t.Observe(0, pending);
  EXPECT_EQ(t.Snapshot()[0].condition, GpuCondition::kNeedsReset) << "not without the reset it needs";
  t.Observe(0, {});  // reset: the pending remap and the volatile count are gone
  EXPECT_EQ(t.Snapshot()[0].condition, GpuCondition::kHealthy);
  GpuObservation pages;
  pages.pages_pending = true;
  t.Observe(0, pages);
  EXPECT_EQ(t.Snapshot()[0].condition, GpuCondition::kNeedsReset);
  EXPECT_EQ(t.Snapshot()[0].reason, "page retirement pending: the GPU needs a reset");
  GpuObservation lost;
  lost.lost = true;
  t.Observe(1, lost);
  EXPECT_EQ(t.Snapshot()[1].reason, "GPU is lost (NVML: GPU is lost)");
  GpuObservation failed;
  failed.remap_failed = true;
  t.Observe(2, failed);
  EXPECT_EQ(t.Snapshot()[2].reason, "row remapping failed");
}

TEST(GpuHealthTracker, ThrottlingIsAWarningOnly) {
  GpuHealthTracker t(1, Config());
  GpuObservation hot;
  hot.throttle = nvml::kThrottleHwThermal | nvml::kThrottleHwSlowdown;
  t.Observe(0, hot);
  EXPECT_EQ(t.Snapshot()[0].condition, GpuCondition::kHealthy);
  EXPECT_EQ(t.Snapshot()[0].warning, "clocks slowed: hardware slowdown thermal");
  t.Observe(0, {});
  EXPECT_EQ(t.Snapshot()[0].warning, "");
}

// ---- The watcher over a table of fakes ----------------------------------------------------------

struct Fake {
  std::mutex mu;
  int xid_for_gpu1 = 0;  // delivered once
  unsigned long long dbe_gpu0 = 0;
  bool lost_gpu2 = false;
};
Fake* g_fake = nullptr;
int g_dev[3] = {0, 1, 2};

nvml::Device Dev(int i) { return reinterpret_cast<nvml::Device>(&g_dev[i]); }
int Index(nvml::Device d) { return *reinterpret_cast<int*>(d); }

nvml::NvmlApi FakeApi() {
  nvml::NvmlApi a;
  a.init = [] { return nvml::kSuccess; };
  a.shutdown = [] { return nvml::kSuccess; };
  a.handle_by_index = [](unsigned i, nvml::Device* d) {
    if (i > 2) return nvml::kErrorInvalidArgument;
    *d = Dev(static_cast<int>(i));
    return nvml::kSuccess;
  };
  a.event_set_create = [](nvml::EventSet* s) {
    *s = reinterpret_cast<nvml::EventSet>(g_fake);
    return nvml::kSuccess;
  };
  a.register_events = [](nvml::Device, unsigned long long, nvml::EventSet) { return nvml::kSuccess; };
  a.event_set_free = [](nvml::EventSet) { return nvml::kSuccess; };
  a.event_set_wait = [](nvml::EventSet, nvml::EventData* e, unsigned ms) {
    {
      std::lock_guard<std::mutex> lock(g_fake->mu);
      if (g_fake->xid_for_gpu1 != 0) {
        e->device = Dev(1);
        e->event_type = nvml::kEventXidCriticalError;
        e->event_data = static_cast<unsigned long long>(std::exchange(g_fake->xid_for_gpu1, 0));
        return nvml::kSuccess;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(ms, 5u)));
    return nvml::kErrorTimeout;
  };
  a.total_ecc_errors = [](nvml::Device d, int, int, unsigned long long* n) {
    std::lock_guard<std::mutex> lock(g_fake->mu);
    if (Index(d) == 2 && g_fake->lost_gpu2) return nvml::kErrorGpuIsLost;
    *n = Index(d) == 0 ? g_fake->dbe_gpu0 : 0;
    return nvml::kSuccess;
  };
  return a;
}

// How long a WaitFor here waits at most (2,000 looks), and how often it looks.
constexpr std::chrono::milliseconds kWait{10000}, kPoll{5};

// GPU indexes 0-3: GPU 0 whole (NVML 0); 1 and 2 slices of NVML 1; 3 whole (NVML 2).
TEST(GpuHealthWatcher, EventsAndPollsReachTheNodesGpusAndSlices) {
  Fake fake;
  g_fake = &fake;
  const nvml::NvmlApi api = FakeApi();
  std::atomic<int> changes{0};
  StatusOr<std::unique_ptr<GpuHealthWatcher>> w =
      GpuHealthWatcher::StartWith(&api, {0, 1, 1, 2}, Config(2), [&] { ++changes; });
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE(WaitFor([&] { return (*w)->polls() >= 2; }, kWait, kPoll));
  for (const GpuHealth& h : (*w)->Snapshot()) EXPECT_EQ(h.condition, GpuCondition::kHealthy) << h.index;
  {
    std::lock_guard<std::mutex> lock(fake.mu);
    fake.xid_for_gpu1 = 79;
  }
  ASSERT_TRUE(WaitFor([&] { return (*w)->Snapshot()[1].condition == GpuCondition::kFailed; }, kWait, kPoll));
  std::vector<GpuHealth> s = (*w)->Snapshot();
  EXPECT_EQ(s[2].condition, GpuCondition::kFailed) << "both slices of the GPU that failed";
  EXPECT_EQ(s[0].condition, GpuCondition::kHealthy);
  EXPECT_EQ(s[3].condition, GpuCondition::kHealthy);
  // The snapshot is published before the watcher's thread calls back, so wait for the call.
  EXPECT_TRUE(WaitFor([&] { return changes.load() > 0; }, kWait, kPoll)) << "a change is reported";
  ASSERT_TRUE(WaitFor([&] { return (*w)->Snapshot()[1].condition == GpuCondition::kHealthy; }, kWait, kPoll))
      << "back after two healthy polls";
  {
    std::lock_guard<std::mutex> lock(fake.mu);
    fake.dbe_gpu0 = 1;
    fake.lost_gpu2 = true;
  }
  ASSERT_TRUE(WaitFor([&] {
    s = (*w)->Snapshot();
    return s[0].condition == GpuCondition::kFailed && s[3].condition == GpuCondition::kFailed;
  }, kWait, kPoll));
  EXPECT_EQ(s[3].reason, "GPU is lost (NVML: GPU is lost)");
  w->reset();
  g_fake = nullptr;
}

}  // namespace
}  // namespace muster
