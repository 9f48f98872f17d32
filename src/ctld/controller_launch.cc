// The controller telling agents to run the jobs a scheduling pass started.
#include <algorithm>
#include <atomic>
#include <thread>

#include "ctld/controller.h"

namespace muster {

namespace {

constexpr size_t kLaunchThreads = 8;        // agents launched to at once, at most
constexpr size_t kConcurrentLaunchMin = 4;  // fewer launches are cheaper in turn than a thread each

}  // namespace

std::vector<Status> Controller::LaunchStarted(const std::vector<JobRecord>& started) {
  // Every node of the allocation learns of the job (steps run there); the batch host, told
  // first, starts the script. Jobs of different batch hosts are launched side by side where the
  // agents allow it: a launch waits for the agent to start the script, and a pass that starts
  // many jobs would otherwise wait for each in turn while the other agents idle.
  std::vector<std::vector<NodeRecord>> hosts(started.size());
  std::map<std::string, std::vector<size_t>> by_host;
  {
    NodeTable::Access nodes = nodes_.Lock();
    for (size_t k = 0; k < started.size(); ++k) {
      for (const NodeAllocation& a : started[k].allocation) {
        if (const NodeRecord* n = nodes.Find(a.node); n != nullptr) hosts[k].push_back(*n);
      }
      by_host[started[k].batch_host].push_back(k);
    }
  }
  std::vector<Status> launch(started.size());
  auto launch_all = [&](const std::vector<size_t>& ks) {
    for (size_t k : ks) {
      for (const NodeRecord& h : hosts[k]) {
        Status s1 = agents_->LaunchJob(h, started[k]);
        if (!s1.ok() && h.node.name == started[k].batch_host) launch[k] = s1;
      }
    }
  };
  if (by_host.size() > 1 && started.size() >= kConcurrentLaunchMin && agents_->ConcurrentLaunches()) {
    std::vector<const std::vector<size_t>*> groups;
    for (const auto& [host, ks] : by_host) groups.push_back(&ks);
    std::atomic<size_t> next{0};
    std::vector<std::thread> threads;
    for (size_t t = 0; t < std::min<size_t>(groups.size(), kLaunchThreads); ++t) {
      threads.emplace_back([&] {
        for (size_t g; (g = next.fetch_add(1)) < groups.size();) launch_all(*groups[g]);
      });
    }
    for (std::thread& t : threads) t.join();
  } else {
    std::vector<size_t> all(started.size());
    for (size_t k = 0; k < all.size(); ++k) all[k] = k;
    launch_all(all);
  }
  return launch;
}

}  // namespace muster
