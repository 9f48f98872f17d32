// UsageLedger: recent usage per (account, user), decayed with a half-life (Slurm's
// PriorityDecayHalfLife): a charge of u made at time t counts u * 2^(-(now - t) / half_life) at
// `now`. Fair share reads it; the controller charges running jobs as time passes. Pure and
// deterministic: time is always passed in, never read. Not thread-safe (one owner).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace muster {

// What one second of a job costs, in billing units (Slurm's TRESBillingWeights): GPUs dominate by
// default; CPUs and memory count only when given a weight.
struct UsageWeights {
  double gpu = 1.0;     // per GPU (a fraction of a GPU counts its fraction)
  double cpu = 0.0;     // per CPU
  double mem_gb = 0.0;  // per GiB of memory
};

// Billing units per second of a job holding `gpus` GPUs, `cpus` CPUs and `memory_mb` MiB.
double BillingRate(const UsageWeights& w, double gpus, double cpus, double memory_mb);

class UsageLedger {
 public:
  // half_life_s <= 0: no decay (usage only grows).
  explicit UsageLedger(int64_t half_life_s = 7 * 24 * 3600) : half_life_s_(half_life_s) {}

  // Adds `amount` billing-seconds for `user` in `account` at time `at`. A time before the entry's
  // last charge counts as that time: usage never decays backwards.
  void Charge(const std::string& account, const std::string& user, double amount, int64_t at);

  // Decayed usage at `now` (0 for an unknown pair).
  double Usage(const std::string& account, const std::string& user, int64_t now) const;

  struct Entry {
    std::string account;
    std::string user;
    double usage = 0;  // decayed to the `now` asked for
  };
  // Every pair charged so far, by (account, user).
  std::vector<Entry> Entries(int64_t now) const;

  // Stored form: the value at its anchor time, so that a restart loses nothing of the decay.
  struct Stored {
    std::string account;
    std::string user;
    double amount = 0;
    int64_t at = 0;
  };
  std::vector<Stored> Save() const;
  void Restore(const std::vector<Stored>& entries);

  int64_t half_life_s() const { return half_life_s_; }

 private:
  double Decay(int64_t seconds) const;
  struct Value {
    double amount = 0;
    int64_t at = 0;
  };
  // (account, user) in the order of std::pair<std::string, std::string>, also against a pair of
  // views: Charge, for every running job every minute, looks a pair up without copying it.
  struct KeyLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      const std::string_view a1 = a.first, b1 = b.first;
      if (a1 != b1) return a1 < b1;
      return std::string_view(a.second) < std::string_view(b.second);
    }
  };
  using Key = std::pair<std::string_view, std::string_view>;
  int64_t half_life_s_;
  std::map<std::pair<std::string, std::string>, Value, KeyLess> entries_;
};

}  // namespace muster
