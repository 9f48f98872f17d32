#include "agent/outage_witness.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <sstream>
#include <thread>
#include <vector>

#include "agent/shepherd.h"
#include "base/log.h"
#include "base/read_file.h"
#include "model/outage.h"
#include "wire/codec.h"

namespace muster {

namespace {

constexpr char kLeaseFile[] = "/lease";
constexpr char kViewFile[] = "/witness.json";

std::string Seconds(int64_t ms) {
  std::ostringstream out;
  out.precision(1);
  out << std::fixed << static_cast<double>(ms) / 1000.0 << " s";
  return out.str();
}

}  // namespace

OutageWitness::OutageWitness(Options options, const Clock* clock) : opt_(std::move(options)), clock_(clock) {}

void OutageWitness::Load() {
  std::istringstream lease(ReadFileOrEmpty(opt_.spool_dir + kLeaseFile));
  int64_t until = 0, heard = 0, lease_s = 0;
  lease >> until >> heard >> lease_s;
  StatusOr<WitnessView> view = wire::Decode<WitnessView>(ReadFileOrEmpty(opt_.spool_dir + kViewFile), "witness.json");
  MutexLock lock(mu_);
  until_ms_ = until;
  heard_ms_ = heard;
  lease_s_ = lease_s;
  if (view.ok() && view->generation > 0) view_ = *view;
}

Status OutageWitness::WriteLeaseLocked() {
  return WriteAtomically(opt_.spool_dir + kLeaseFile,
                         std::to_string(until_ms_) + "\n" + std::to_string(heard_ms_) + "\n" + std::to_string(lease_s_) + "\n",
                         0644);
}

Status OutageWitness::Heard(int64_t lease_s) {
  const int64_t now = clock_->NowMillis();
  MutexLock lock(mu_);
  if (verdict_ != Verdict::kHeard && heard_ms_ > 0) {
    LogInfo("a controller answers again, after " + Seconds(now - heard_ms_) + " without one");
  }
  verdict_ = Verdict::kHeard;
  heard_ms_ = now;
  if (lease_s > 0) {
    lease_s_ = lease_s;
    until_ms_ = now + lease_s * 1000;
  }
  return WriteLeaseLocked();
}

Status OutageWitness::SetView(const WitnessView& view) {
  {
    MutexLock lock(mu_);
    if (view_ && *view_ == view) return Status::Ok();
    if (!view_ || view_->peers != view.peers || view_->ask.size() != view.ask.size()) {
      LogInfo("the controller counts " + std::to_string(view.peers) + " nodes; " + std::to_string(view.ask.size()) +
              " peers to ask should no controller answer (outage threshold " + std::to_string(view.threshold_pct) + "%)");
    }
    view_ = view;
  }
  return WriteAtomically(opt_.spool_dir + kViewFile, wire::Encode(view), 0644);
}

int64_t OutageWitness::generation() const {
  MutexLock lock(mu_);
  return view_ ? view_->generation : 0;
}

int64_t OutageWitness::HeardMsAgo() const {
  MutexLock lock(mu_);
  return heard_ms_ > 0 ? std::max<int64_t>(0, clock_->NowMillis() - heard_ms_) : -1;
}

int64_t OutageWitness::lease_until_ms() const {
  MutexLock lock(mu_);
  return until_ms_;
}

OutageWitness::Verdict OutageWitness::verdict() const {
  MutexLock lock(mu_);
  return verdict_;
}

int64_t OutageWitness::renewals() const {
  MutexLock lock(mu_);
  return renewals_;
}

void OutageWitness::Check() {
  WitnessView view;
  int64_t heard = 0;
  {
    const int64_t now = clock_->NowMillis();
    MutexLock lock(mu_);
    if (!view_ || heard_ms_ == 0 || lease_s_ <= 0) return;  // never told who the peers are
    if (until_ms_ <= now) return;                            // ran out: its runs are ending
    if (now - heard_ms_ < view_->claim_ms) return;           // not lost yet
    // Renewed on the peers' word lately: asked again a third of a lease later (once a second at
    // most); a verdict of "cut off" is asked again soon (the peers may lose it too).
    const int64_t every = verdict_ == Verdict::kOutage ? std::max<int64_t>(1000, lease_s_ * 1000 / 3) : opt_.retry_ms;
    if (now - asked_ms_ < every) return;
    asked_ms_ = now;
    view = *view_;
    heard = heard_ms_;
  }
  // Every peer at once (`parallel` at a time): one that does not answer within its timeout counts
  // as one that still hears the controller.
  std::vector<int64_t> ages(view.ask.size(), -2);  // -2: no answer
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < view.ask.size();) {
      StatusOr<int64_t> age = opt_.ask(view.ask[i]);
      if (age.ok()) ages[i] = *age;
    }
  };
  const size_t n = std::min<size_t>(view.ask.size(), static_cast<size_t>(std::max(1, opt_.parallel)));
  std::vector<std::thread> threads;
  for (size_t t = 1; t < n; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  int64_t lost = 1, answered = 0;  // itself: lost for claim_ms
  for (int64_t age : ages) {
    if (age == -2) continue;
    ++answered;
    // (-1: it never heard one since its spool was made: it cannot say it lost one, and the
    // controller may have heard it a moment ago. Counted as not lost, the safe side.)
    if (age >= view.claim_ms) ++lost;
  }
  const int64_t asked = 1 + static_cast<int64_t>(view.ask.size());
  const bool go_on = RunsGoOn(lost, asked, view.peers, view.threshold_pct, view.sampled);
  const int64_t now = clock_->NowMillis();
  MutexLock lock(mu_);
  if (heard_ms_ != heard) return;  // a controller answered meanwhile
  const std::string count = std::to_string(lost) + " of the " + std::to_string(view.peers) +
                            " nodes (this one among them) have lost it; " + std::to_string(answered) + " of the " +
                            std::to_string(view.ask.size()) + " peers asked answered" + (view.sampled ? " (a random sample)" : "");
  if (go_on) {
    if (until_ms_ <= now) return;  // ran out while the peers were asked
    until_ms_ = now + lease_s_ * 1000;
    if (Status st = WriteLeaseLocked(); !st.ok()) {
      LogWarning("cannot renew the lease: " + st.message());
      return;
    }
    ++renewals_;
    if (verdict_ != Verdict::kOutage) {
      LogWarning("no controller has answered for " + Seconds(now - heard_ms_) + "; " + count +
                 ": taken for a controller outage, the runs here go on (the lease renewed on the peers' word)");
    }
    verdict_ = Verdict::kOutage;
    return;
  }
  if (verdict_ != Verdict::kCutOff) {
    LogWarning("no controller has answered for " + Seconds(now - heard_ms_) + ", but only " + count +
               ": this node is taken for cut off; its runs end when its lease runs out in " +
               Seconds(std::max<int64_t>(0, until_ms_ - now)));
  }
  verdict_ = Verdict::kCutOff;
}

}  // namespace muster
