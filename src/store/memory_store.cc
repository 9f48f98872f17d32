#include "store/memory_store.h"

#include "base/mutex.h"
#include "model/name_order.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace muster {

struct MemoryStoreData {
  Mutex mu{"memory store"};
  std::map<int64_t, JobRecord> jobs GUARDED_BY(mu);
  std::map<std::string, NodeRecord> nodes GUARDED_BY(mu);
  std::map<std::pair<int64_t, int>, StepRecord> steps GUARDED_BY(mu);
  std::map<std::string, std::string> meta GUARDED_BY(mu);
  std::map<std::string, int64_t> nonces GUARDED_BY(mu);  // nonce -> its token's expiry
  int64_t next_job_id GUARDED_BY(mu) = 1;
};

namespace {

class MemoryStore final : public Store {
 public:
  explicit MemoryStore(std::shared_ptr<MemoryStoreData> data) : d_(std::move(data)) {}

  Status SaveJobs(std::span<const JobRecord> jobs) override {
    MutexLock l(d_->mu);
    for (const JobRecord& j : jobs) d_->jobs[j.id] = j;
    return Status::Ok();
  }
  StatusOr<std::vector<JobRecord>> LoadJobs() override {
    MutexLock l(d_->mu);
    std::vector<JobRecord> out;
    out.reserve(d_->jobs.size());
    for (const auto& [id, j] : d_->jobs) out.push_back(j);
    return out;
  }
  Status SaveNode(const NodeRecord& node) override {
    MutexLock l(d_->mu);
    d_->nodes[node.node.name] = node;
    return Status::Ok();
  }
  StatusOr<std::vector<NodeRecord>> LoadNodes() override {
    MutexLock l(d_->mu);
    std::vector<NodeRecord> out;
    for (const auto& [name, n] : d_->nodes) out.push_back(n);
    std::sort(out.begin(), out.end(),
              [](const NodeRecord& a, const NodeRecord& b) { return NaturalLess(a.node.name, b.node.name); });
    return out;
  }
  Status SaveStep(const StepRecord& step) override {
    MutexLock l(d_->mu);
    d_->steps[{step.job_id, step.step_id}] = step;
    return Status::Ok();
  }
  StatusOr<std::vector<StepRecord>> LoadSteps() override {
    MutexLock l(d_->mu);
    std::vector<StepRecord> out;
    for (const auto& [key, s] : d_->steps) out.push_back(s);
    return out;
  }
  StatusOr<int64_t> AllocateJobIds(int count) override {
    if (count < 1) return Status(StatusCode::kInvalidArgument, "job id count must be at least 1, got " + std::to_string(count));
    MutexLock l(d_->mu);
    const int64_t first = d_->next_job_id;
    d_->next_job_id += count;
    return first;
  }
  StatusOr<int64_t> RewindJobIds(int64_t floor) override {
    if (floor < 1) return Status(StatusCode::kInvalidArgument, "job id floor must be at least 1, got " + std::to_string(floor));
    MutexLock l(d_->mu);
    d_->next_job_id = std::max(floor, d_->jobs.empty() ? 1 : d_->jobs.rbegin()->first + 1);
    return d_->next_job_id;
  }
  StatusOr<bool> UseNonce(const std::string& nonce, int64_t expires, int64_t now) override {
    if (nonce.empty()) return Status(StatusCode::kInvalidArgument, "nonce is empty");
    MutexLock l(d_->mu);
    std::erase_if(d_->nonces, [now](const auto& n) { return n.second <= now; });
    return d_->nonces.emplace(nonce, expires).second;
  }
  Status SetMeta(const std::string& key, const std::string& value) override {
    if (key.empty()) return Status(StatusCode::kInvalidArgument, "meta key is empty");
    MutexLock l(d_->mu);
    d_->meta[key] = value;
    return Status::Ok();
  }
  StatusOr<std::string> GetMeta(const std::string& key) override {
    MutexLock l(d_->mu);
    auto it = d_->meta.find(key);
    if (it == d_->meta.end()) return Status(StatusCode::kNotFound, "meta key '" + key + "' is not set");
    return it->second;
  }
  StatusOr<std::map<std::string, std::string>> LoadMeta() override {
    MutexLock l(d_->mu);
    return d_->meta;
  }

 private:
  std::shared_ptr<MemoryStoreData> d_;
};

}  // namespace

std::shared_ptr<MemoryStoreData> NewMemoryStoreData(int64_t first_job_id) {
  auto d = std::make_shared<MemoryStoreData>();
  MutexLock l(d->mu);  // (no other thread has it yet)
  d->next_job_id = first_job_id;
  return d;
}

std::unique_ptr<Store> OpenMemoryStore(std::shared_ptr<MemoryStoreData> data) {
  if (data == nullptr) data = NewMemoryStoreData();
  return std::make_unique<MemoryStore>(std::move(data));
}

}  // namespace muster
