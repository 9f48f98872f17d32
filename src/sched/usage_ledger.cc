#include "sched/usage_ledger.h"

#include <algorithm>
#include <cmath>

namespace muster {

double BillingRate(const UsageWeights& w, double gpus, double cpus, double memory_mb) {
  return w.gpu * gpus + w.cpu * cpus + w.mem_gb * memory_mb / 1024.0;
}

double UsageLedger::Decay(int64_t seconds) const {
  if (half_life_s_ <= 0 || seconds <= 0) return 1.0;
  return std::exp2(-static_cast<double>(seconds) / static_cast<double>(half_life_s_));
}

void UsageLedger::Charge(const std::string& account, const std::string& user, double amount, int64_t at) {
  auto it = entries_.find(Key(account, user));
  const bool fresh = it == entries_.end();
  if (fresh) it = entries_.try_emplace({account, user}).first;
  Value& v = it->second;
  if (fresh) {
    v.at = at;
  } else if (at > v.at) {
    v.amount *= Decay(at - v.at);
    v.at = at;
  }
  v.amount += amount;
}

double UsageLedger::Usage(const std::string& account, const std::string& user, int64_t now) const {
  auto it = entries_.find(Key(account, user));
  if (it == entries_.end()) return 0;
  return it->second.amount * Decay(now - it->second.at);
}

std::vector<UsageLedger::Entry> UsageLedger::Entries(int64_t now) const {
  std::vector<Entry> out;
  out.reserve(entries_.size());
  for (const auto& [key, v] : entries_) out.push_back({key.first, key.second, v.amount * Decay(now - v.at)});
  return out;
}

std::vector<UsageLedger::Stored> UsageLedger::Save() const {
  std::vector<Stored> out;
  out.reserve(entries_.size());
  for (const auto& [key, v] : entries_) out.push_back({key.first, key.second, v.amount, v.at});
  return out;
}

void UsageLedger::Restore(const std::vector<Stored>& entries) {
  entries_.clear();
  for (const Stored& s : entries) entries_[{s.account, s.user}] = Value{s.amount, s.at};
}

}  // namespace muster
