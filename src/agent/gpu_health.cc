#include "agent/gpu_health.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "agent/nvml_api.h"

namespace muster {

const char* GpuConditionName(GpuCondition c) {
  switch (c) {
    case GpuCondition::kHealthy: return "healthy";
    case GpuCondition::kFailed: return "failed";
    case GpuCondition::kNeedsReset: return "needs_reset";
  }
  return "healthy";
}

std::string DescribeXid(int xid) {
  static const std::map<int, const char*> kWhat = {
      {13, "graphics engine exception"},
      {31, "GPU memory page fault"},
      {43, "GPU stopped processing"},
      {45, "preemptive cleanup"},
      {48, "double-bit ECC error"},
      {61, "internal micro-controller breakpoint"},
      {62, "internal micro-controller halt"},
      {63, "ECC page retirement or row remapping recorded"},
      {64, "ECC page retirement or row remapping failure"},
      {68, "video processor exception"},
      {74, "NVLink error"},
      {79, "GPU has fallen off the bus"},
      {92, "high single-bit ECC error rate"},
      {94, "contained ECC error"},
      {95, "uncontained ECC error"},
      {109, "context switch timeout"},
      {119, "GSP RPC timeout"},
      {120, "GSP error"},
  };
  auto it = kWhat.find(xid);
  return "Xid " + std::to_string(xid) + (it == kWhat.end() ? "" : std::string(" (") + it->second + ")");
}

GpuHealthTracker::GpuHealthTracker(int gpus, GpuHealthConfig config) : config_(std::move(config)) {
  gpus_.resize(static_cast<size_t>(std::max(gpus, 0)));
  last_xid_.assign(gpus_.size(), 0);
  for (size_t i = 0; i < gpus_.size(); ++i) gpus_[i].health.index = static_cast<int>(i);
}

void GpuHealthTracker::Set(State& s, GpuCondition c, const std::string& reason) {
  if (s.health.condition == c && s.health.reason == reason) return;
  s.health.condition = c;
  s.health.reason = reason;
  ++generation_;
}

void GpuHealthTracker::Observe(int gpu, const GpuObservation& seen) {
  if (gpu < 0 || gpu >= static_cast<int>(gpus_.size())) return;
  State& s = gpus_[static_cast<size_t>(gpu)];
  GpuCondition bad = GpuCondition::kHealthy;
  std::string why;
  if (seen.lost) {
    bad = GpuCondition::kFailed;
    why = "GPU is lost (NVML: GPU is lost)";
  } else if (seen.remap_failed) {
    bad = GpuCondition::kFailed;
    why = "row remapping failed";
  } else if (seen.remap_pending) {
    bad = GpuCondition::kNeedsReset;
    why = "row remapping pending: the GPU needs a reset";
  } else if (seen.pages_pending) {
    bad = GpuCondition::kNeedsReset;
    why = "page retirement pending: the GPU needs a reset";
  } else if (seen.ecc_dbe > 0) {
    bad = GpuCondition::kFailed;
    why = std::to_string(seen.ecc_dbe) + " uncorrected (double-bit) ECC error" + (seen.ecc_dbe > 1 ? "s" : "") +
          " since the last reset";
  }
  std::string warning;
  const unsigned long long slow = seen.throttle & (nvml::kThrottleHwSlowdown | nvml::kThrottleSwThermal |
                                                   nvml::kThrottleHwThermal | nvml::kThrottleHwPowerBrake);
  if (slow != 0) {
    warning = "clocks slowed:";
    if (seen.throttle & nvml::kThrottleHwSlowdown) warning += " hardware slowdown";
    if (seen.throttle & (nvml::kThrottleSwThermal | nvml::kThrottleHwThermal)) warning += " thermal";
    if (seen.throttle & nvml::kThrottleHwPowerBrake) warning += " power brake";
  }
  if (warning != s.health.warning) {
    s.health.warning = warning;
    ++generation_;
  }
  if (bad != GpuCondition::kHealthy) {
    s.healthy_streak = 0;
    Set(s, bad, why);
    return;
  }
  ++s.healthy_streak;
  if (s.health.condition != GpuCondition::kHealthy && s.healthy_streak >= config_.recover_checks) {
    Set(s, GpuCondition::kHealthy, "");
  }
}

void GpuHealthTracker::Xid(int gpu, int xid) {
  if (gpu < 0 || gpu >= static_cast<int>(gpus_.size())) return;
  last_xid_[static_cast<size_t>(gpu)] = xid;
  if (!config_.critical_xids.count(xid)) return;
  State& s = gpus_[static_cast<size_t>(gpu)];
  s.healthy_streak = 0;
  Set(s, GpuCondition::kFailed, DescribeXid(xid));
}

void GpuHealthTracker::Resume(int gpu) {
  if (gpu < 0 || gpu >= static_cast<int>(gpus_.size())) return;
  State& s = gpus_[static_cast<size_t>(gpu)];
  s.healthy_streak = 0;
  Set(s, GpuCondition::kHealthy, "");
}

std::vector<int> GpuHealthTracker::LastXids() const { return last_xid_; }

std::vector<GpuHealth> GpuHealthTracker::Snapshot() const {
  std::vector<GpuHealth> out;
  for (const State& s : gpus_) out.push_back(s.health);
  return out;
}

// ---- The watcher -------------------------------------------------------------------------------

StatusOr<std::unique_ptr<GpuHealthWatcher>> GpuHealthWatcher::Start(const std::string& library,
                                                                    std::vector<int> nvml_index,
                                                                    GpuHealthConfig config,
                                                                    std::function<void()> changed) {
  ASSIGN_OR_RETURN(std::unique_ptr<nvml::NvmlLibrary> lib, nvml::NvmlLibrary::Load(library));
  std::shared_ptr<nvml::NvmlLibrary> shared(std::move(lib));
  ASSIGN_OR_RETURN(std::unique_ptr<GpuHealthWatcher> w,
                   StartWith(&shared->api(), std::move(nvml_index), std::move(config), std::move(changed)));
  w->library_ = shared;
  return w;
}

StatusOr<std::unique_ptr<GpuHealthWatcher>> GpuHealthWatcher::StartWith(const nvml::NvmlApi* api,
                                                                        std::vector<int> nvml_index,
                                                                        GpuHealthConfig config,
                                                                        std::function<void()> changed) {
  std::unique_ptr<GpuHealthWatcher> w(new GpuHealthWatcher());
  w->api_ = api;
  w->nvml_index_ = std::move(nvml_index);
  w->config_ = config;
  w->changed_ = std::move(changed);
  w->tracker_ = std::make_unique<GpuHealthTracker>(static_cast<int>(w->nvml_index_.size()), std::move(config));
  RETURN_IF_ERROR(w->Open());
  w->thread_ = std::thread([raw = w.get()] { raw->Run(); });
  return w;
}

Status GpuHealthWatcher::Open() {
  if (const nvml::Return r = api_->init(); r != nvml::kSuccess) {
    return Internal("nvmlInit_v2 failed: " + std::string(api_->error_string ? api_->error_string(r) : "error"));
  }
  int physical = 0;
  for (int i : nvml_index_) physical = std::max(physical, i + 1);
  handles_.assign(static_cast<size_t>(physical), nullptr);
  for (int i = 0; i < physical; ++i) {
    nvml::Device d = nullptr;
    if (api_->handle_by_index(static_cast<unsigned>(i), &d) == nvml::kSuccess) handles_[static_cast<size_t>(i)] = d;
  }
  if (api_->event_set_create != nullptr && api_->register_events != nullptr && api_->event_set_wait != nullptr) {
    nvml::EventSet set = nullptr;
    if (api_->event_set_create(&set) == nvml::kSuccess) {
      events_ = set;
      for (void* d : handles_) {
        // Not every GPU takes Xid events (some virtual ones do not): those are polled only.
        if (d != nullptr) (void)api_->register_events(static_cast<nvml::Device>(d), nvml::kEventXidCriticalError, set);
      }
    }
  }
  return Status::Ok();
}

GpuHealthWatcher::~GpuHealthWatcher() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (events_ != nullptr && api_->event_set_free != nullptr) api_->event_set_free(static_cast<nvml::EventSet>(events_));
  if (api_ != nullptr) api_->shutdown();
}

std::vector<int> GpuHealthWatcher::LastXids() const {
  MutexLock lock(mu_);
  return tracker_->LastXids();
}

std::vector<GpuHealth> GpuHealthWatcher::Snapshot() const {
  MutexLock lock(mu_);
  return tracker_->Snapshot();
}

void GpuHealthWatcher::Resume(int gpu) {
  {
    MutexLock lock(mu_);
    tracker_->Resume(gpu);
  }
  if (changed_) changed_();
}

void GpuHealthWatcher::PollOnce() {
  std::map<int, GpuObservation> seen;  // per physical NVML index
  for (size_t p = 0; p < handles_.size(); ++p) {
    nvml::Device d = static_cast<nvml::Device>(handles_[p]);
    if (d == nullptr) continue;
    GpuObservation o;
    auto lost = [&](nvml::Return r) { o.lost = o.lost || r == nvml::kErrorGpuIsLost; };
    if (api_->total_ecc_errors != nullptr) {
      unsigned long long n = 0;
      const nvml::Return r = api_->total_ecc_errors(d, nvml::kMemoryErrorUncorrected, nvml::kVolatileEcc, &n);
      lost(r);
      if (r == nvml::kSuccess) o.ecc_dbe = n;  // NOT_SUPPORTED: a GPU without ECC
    }
    if (api_->remapped_rows != nullptr) {
      unsigned corrected = 0, uncorrected = 0, pending = 0, failure = 0;
      const nvml::Return r = api_->remapped_rows(d, &corrected, &uncorrected, &pending, &failure);
      lost(r);
      if (r == nvml::kSuccess) {
        o.remap_pending = pending != 0;
        o.remap_failed = failure != 0;
      }
    }
    if (api_->retired_pages_pending != nullptr && !o.remap_pending) {
      int pending = 0;  // NOT_SUPPORTED on GPUs that remap rows instead (Ampere and later)
      const nvml::Return r = api_->retired_pages_pending(d, &pending);
      lost(r);
      if (r == nvml::kSuccess) o.pages_pending = pending != 0;
    }
    if (api_->throttle_reasons != nullptr) {
      unsigned long long reasons = 0;
      const nvml::Return r = api_->throttle_reasons(d, &reasons);
      lost(r);
      if (r == nvml::kSuccess) o.throttle = reasons;
    }
    seen[static_cast<int>(p)] = o;
  }
  MutexLock lock(mu_);
  for (size_t i = 0; i < nvml_index_.size(); ++i) {
    auto it = seen.find(nvml_index_[i]);
    if (it != seen.end()) tracker_->Observe(static_cast<int>(i), it->second);
  }
}

void GpuHealthWatcher::Run() {
  using Clock = std::chrono::steady_clock;
  auto next_poll = Clock::now();
  uint64_t reported = 0;
  while (!stop_) {
    if (Clock::now() >= next_poll) {
      PollOnce();
      ++polls_;
      next_poll = Clock::now() + std::chrono::milliseconds(config_.interval_ms);
    }
    const int64_t left = std::chrono::duration_cast<std::chrono::milliseconds>(next_poll - Clock::now()).count();
    const unsigned wait_ms = static_cast<unsigned>(std::clamp<int64_t>(left, 1, 250));  // stop stays prompt
    nvml::EventData e{};
    if (events_ != nullptr &&
        api_->event_set_wait(static_cast<nvml::EventSet>(events_), &e, wait_ms) == nvml::kSuccess) {
      if ((e.event_type & nvml::kEventXidCriticalError) != 0) {
        MutexLock lock(mu_);
        for (size_t i = 0; i < nvml_index_.size(); ++i) {
          const int p = nvml_index_[i];
          if (p >= 0 && p < static_cast<int>(handles_.size()) && handles_[static_cast<size_t>(p)] == e.device) {
            tracker_->Xid(static_cast<int>(i), static_cast<int>(e.event_data));
          }
        }
      }
    } else if (events_ == nullptr) {
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    }
    uint64_t now;
    {
      MutexLock lock(mu_);
      now = tracker_->generation();
    }
    if (now != reported) {
      reported = now;
      if (changed_) changed_();
    }
  }
}

}  // namespace muster
