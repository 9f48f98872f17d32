// KeptEntries: a list the controller keeps between scheduling passes (the snapshot's running
// jobs, the waiting list), rewritten each pass from its jobs in ascending id. Each job still
// listed is moved to its new place, so that its strings and vectors are compared rather than
// copied; an entry of a job gone is written over by a new one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace muster {

template <typename T>  // T has an int64_t `id`
class KeptEntries {
 public:
  explicit KeptEntries(std::vector<T>& list) : list_(list), end_(list.size()) {}

  // The entry for job `id` (ids come ascending): last pass's entry of that job if it had one,
  // else one to write over. Positions [k, q) hold entries of jobs gone, [q, end) those not
  // reached yet.
  T& Next(int64_t id) {
    while (q_ < end_ && list_[q_].id < id) ++q_;
    if (q_ < end_ && list_[q_].id == id) {
      if (q_ != k_) std::swap(list_[k_], list_[q_]);
      ++q_;
    } else if (k_ == q_) {
      // A new job and no gone job's entry to write over: one is made here.
      list_.insert(list_.begin() + static_cast<std::ptrdiff_t>(k_), T{});
      ++q_;
      ++end_;
    }
    return list_[k_++];
  }
  // Drops the entries of jobs gone.
  void Finish() { list_.resize(k_); }

 private:
  std::vector<T>& list_;
  size_t k_ = 0, q_ = 0, end_;
};

// Assigns only what differs (a kept entry mostly holds what it held last pass).
template <typename T>
void SetIfDifferent(T& to, const T& from) {
  if (!(to == from)) to = from;
}

}  // namespace muster
