// KeptEntries: a list the controller keeps between scheduling passes (the snapshot's running
// jobs, the waiting list), rewritten each pass from its jobs. Each job still listed keeps its
// entry where it is, so that its strings and vectors are compared rather than copied; the entry
// of a job gone takes the list's last entry, and a new job's entry goes at the end. The list is
// in no particular order: the scheduler's decisions do not depend on it (scheduler.h).
//
// An earlier version kept the entries in id order, moving each to its new place: one job gone
// near the front moved every entry after it, every pass (5% of a Philly replay).
//
// A pass mostly asks for the jobs of the last pass in the same order (both walk the controller's
// jobs by id): Next tries the position the same call had last pass before the hash table.
//
// Each entry also carries a `Tag`, the caller's own (what the entry was filled from, say), kept
// with it between passes and default-constructed for a new entry.
#pragma once

#include <boost/unordered/unordered_flat_map.hpp>
#include <algorithm>
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
    hint_.swap(asked_);
    asked_.clear();
    cursor_ = 0;
    if (list_ != &list || slot_.size() != list.size()) {
      list_ = &list;
      slot_.clear();
      for (size_t k = 0; k < list.size(); ++k) slot_[list[k].id] = k;
      seen_.assign(list.size(), 0);
      tags_.assign(list.size(), Tag{});
      hint_.clear();
    }
  }
  // The entry for job `id` (each id at most once a pass): last pass's entry of that job if it had
  // one, else a new one at the end (its fields as a default T's, but `id` set; `*fresh` says
  // which).
  T& Next(int64_t id, bool* fresh = nullptr, Tag** tag = nullptr) {
    std::vector<T>& list = *list_;
    // Where last pass's call for `id` found its entry, looked for a few calls ahead of the last
    // one found (jobs of last pass gone): there unless Finish moved it (an entry that still holds
    // `id` is the job's, as an id has one entry). Inline, and the table apart: most calls end here.
    size_t k = kNone;
    for (size_t c = cursor_, end = std::min(hint_.size(), cursor_ + kLookAhead); c < end; ++c) {
      if (hint_[c].first != id) continue;
      const size_t at = hint_[c].second;
      if (at < list.size() && list[at].id == id && seen_[at] != pass_) k = at;
      cursor_ = c + 1;
      break;
    }
    bool added = false;
    if (k == kNone) k = FromTable(id, &added);
    if (fresh != nullptr) *fresh = added;
    seen_[k] = pass_;
    asked_.emplace_back(id, k);
    if (tag != nullptr) *tag = &tags_[k];
    return list[k];
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
  // Job id -> position in *list_: looked up for every running and waiting job every pass, so an
  // open-addressing table (no node allocation per entry).
  boost::unordered_flat_map<int64_t, size_t> slot_;
  std::vector<uint64_t> seen_;  // per position: the last pass that asked for it
  std::vector<Tag> tags_;       // per position: the entry's tag
  uint64_t pass_ = 0;
  static constexpr size_t kNone = static_cast<size_t>(-1);
  // Job `id`'s position from the table, a new entry at the end if it has none (`*added`).
  [[gnu::noinline]] size_t FromTable(int64_t id, bool* added) {
    auto [it, inserted] = slot_.try_emplace(id, list_->size());
    *added = inserted;
    if (inserted) {
      list_->emplace_back().id = id;
      seen_.push_back(0);
      tags_.emplace_back();
    }
    return it->second;
  }
  static constexpr size_t kLookAhead = 8;
  // This pass: each id asked for, in order, with the position of its entry; last pass's (the
  // positions before its Finish moved any); and in hint_, after the last one found there.
  std::vector<std::pair<int64_t, size_t>> asked_;
  std::vector<std::pair<int64_t, size_t>> hint_;
  size_t cursor_ = 0;
};

// Assigns only what differs (a kept entry mostly holds what it held last pass).
template <typename T>
void SetIfDifferent(T& to, const T& from) {
  if (!(to == from)) to = from;
}

}  // namespace muster
