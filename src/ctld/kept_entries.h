// KeptEntries: a list the controller keeps between scheduling passes (the snapshot's running
// jobs, the waiting list), rewritten each pass from its jobs. Each job still listed keeps its
// entry where it is, so that its strings and vectors are compared rather than copied; the entry
// of a job gone takes the list's last entry, and a new job's entry goes at the end. The list is
// in no particular order: the scheduler's decisions do not depend on it (scheduler.h).
//
// An earlier version kept the entries in id order, moving each to its new place: one job gone
// near the front moved every entry after it, every pass (5% of a Philly replay).
//
// Each entry also carries a `Tag`, the caller's own (what the entry was filled from, say), kept
// with it between passes and default-constructed for a new entry.
#pragma once

#include <boost/unordered/unordered_flat_map.hpp>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace muster {

template <typename T, typename Tag = char>  // T has an int64_t `id`
class KeptEntries {
 public:
  // Begins a pass over `list`: the list this object kept last pass, or another (then indexed
  // afresh; only KeptEntries may change a kept list between passes).
  void Begin(std::vector<T>& list) {
    ++pass_;
    if (list_ != &list || slot_.size() != list.size()) {
      list_ = &list;
      slot_.clear();
      for (size_t k = 0; k < list.size(); ++k) slot_[list[k].id] = k;
      seen_.assign(list.size(), 0);
      tags_.assign(list.size(), Tag{});
    }
  }
  // The entry for job `id` (each id at most once a pass): last pass's entry of that job if it had
  // one, else a new one at the end (its fields as a default T's, but `id` set; `*fresh` says
  // which).
  T& Next(int64_t id, bool* fresh = nullptr, Tag** tag = nullptr) {
    auto [it, added] = slot_.try_emplace(id, list_->size());
    if (fresh != nullptr) *fresh = added;
    if (added) {
      list_->emplace_back().id = id;
      seen_.push_back(0);
      tags_.emplace_back();
    }
    seen_[it->second] = pass_;
    if (tag != nullptr) *tag = &tags_[it->second];
    return (*list_)[it->second];
  }
  // The tag of job `id`'s entry, or null when it has none.
  Tag* FindTag(int64_t id) {
    auto it = slot_.find(id);
    return it == slot_.end() ? nullptr : &tags_[it->second];
  }
  // Drops the entries of jobs gone (not asked for by Next this pass).
  void Finish() {
    std::vector<T>& list = *list_;
    for (size_t k = 0; k < list.size();) {
      if (seen_[k] == pass_) {
        ++k;
        continue;
      }
      slot_.erase(list[k].id);
      if (k + 1 != list.size()) {
        std::swap(list[k], list.back());
        seen_[k] = seen_.back();
        tags_[k] = std::move(tags_.back());
        slot_[list[k].id] = k;
      }
      list.pop_back();
      seen_.pop_back();
      tags_.pop_back();
    }
  }

 private:
  std::vector<T>* list_ = nullptr;
  // Job id -> position in *list_. An open-addressing table: a node-based std::unordered_map,
  // looked up for every running and waiting job every pass, was 5% of a Philly replay.
  boost::unordered_flat_map<int64_t, size_t> slot_;
  std::vector<uint64_t> seen_;  // per position: the last pass that asked for it
  std::vector<Tag> tags_;       // per position: the entry's tag
  uint64_t pass_ = 0;
};

// Assigns only what differs (a kept entry mostly holds what it held last pass).
template <typename T>
void SetIfDifferent(T& to, const T& from) {
  if (!(to == from)) to = from;
}

}  // namespace muster
