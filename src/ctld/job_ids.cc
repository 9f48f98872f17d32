#include "ctld/job_ids.h"

#include <algorithm>
#include <string>

namespace muster {

void JobIds::Restart(int64_t next) {
  MutexLock lock(mu_);
  next_ = next;
  limit_ = next;
}

StatusOr<int64_t> JobIds::Take(int count) {
  if (count < 1 || count > kBlock) return InvalidArgument("too many job ids at once: " + std::to_string(count));
  MutexLock lock(mu_);
  if (next_ + count > limit_) {
    StatusOr<int64_t> first = store_->AllocateJobIds(kBlock);
    if (!first.ok()) return first.status();
    next_ = std::max(next_, *first);
    limit_ = *first + kBlock;
    if (next_ + count > limit_) return Internal("job id counter is behind the stored jobs");
  }
  const int64_t first = next_;
  next_ += count;
  return first;
}

int64_t JobIds::Peek() const {
  MutexLock lock(mu_);
  return next_;  // (a block reserved when this one is used up starts here: the store's counter)
}

}  // namespace muster
