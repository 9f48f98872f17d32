// LeaseKeeper: when a controller leads, and when it must stop (the store's lease semantics are
// tested on a real server in store/pg_store_test.cc; here a store plays them by a test clock).
#include "ctld/lease_keeper.h"

#include <gtest/gtest.h>

#include <string>

namespace muster {
namespace {

// The lease as PgStore keeps it, by a clock the test moves; `down` makes every call fail.
class LeaseStore final : public Store {
 public:
  explicit LeaseStore(const int64_t* now) : now_(now) {}
  StatusOr<Leadership> TryLead(const std::string& holder, const std::string& address, int64_t lease_ms) override {
    if (down) return Status(StatusCode::kUnavailable, "store unreachable");
    const bool lapsed = *now_ >= expires_;
    if (holder_ != holder && !lapsed) return Lease(false);
    if (holder_ != holder || lapsed) ++token_;
    holder_ = holder;
    address_ = address;
    expires_ = *now_ + lease_ms;
    return Lease(true);
  }
  StatusOr<Leadership> ReadLeadership() override { return Lease(false); }
  Status HandOver(const std::string& holder, const std::string& successor, int64_t) override {
    if (down) return Status(StatusCode::kUnavailable, "store unreachable");
    if (holder != holder_ || *now_ >= expires_) return FailedPrecondition("not its lease");
    expires_ = *now_;
    successor_ = successor;
    return Status::Ok();
  }
  bool down = false;
  std::string successor_;

  Status SaveJobs(std::span<const JobRecord>) override { return Internal("unused"); }
  StatusOr<std::vector<JobRecord>> LoadJobs() override { return Internal("unused"); }
  Status SaveNode(const NodeRecord&) override { return Internal("unused"); }
  StatusOr<std::vector<NodeRecord>> LoadNodes() override { return Internal("unused"); }
  Status SaveStep(const StepRecord&) override { return Internal("unused"); }
  StatusOr<std::vector<StepRecord>> LoadSteps() override { return Internal("unused"); }
  StatusOr<int64_t> AllocateJobIds(int) override { return Internal("unused"); }
  StatusOr<int64_t> RewindJobIds(int64_t) override { return Internal("unused"); }
  StatusOr<bool> UseNonce(const std::string&, int64_t, int64_t) override { return Internal("unused"); }
  Status SetMeta(const std::string&, const std::string&) override { return Internal("unused"); }
  StatusOr<std::string> GetMeta(const std::string&) override { return Internal("unused"); }
  StatusOr<std::map<std::string, std::string>> LoadMeta() override { return Internal("unused"); }

 private:
  Leadership Lease(bool leading) const { return {leading, token_, holder_, address_, expires_ - *now_}; }
  const int64_t* now_;
  int64_t token_ = 0;
  std::string holder_;
  std::string address_;
  int64_t expires_ = 0;
};

struct Fixture {
  int64_t now = 1000;
  LeaseStore store{&now};
  LeaseKeeper Keeper(const std::string& holder, const std::string& address) {
    return LeaseKeeper(&store, {holder, address, 6000}, [this] { return now; });
  }
};

TEST(LeaseKeeper, AStandbyWaitsThenTakesTheLeaseOnceItLapses) {
  Fixture f;
  LeaseKeeper a = f.Keeper("a", "ctl1:6817");
  LeaseKeeper b = f.Keeper("b", "ctl2:6817");
  ASSERT_TRUE(a.Try().ok());
  EXPECT_TRUE(a.Leading());
  EXPECT_EQ(a.RemainingMs(), 6000 - a.MarginMs());
  StatusOr<Leadership> waiting = b.Try();
  ASSERT_TRUE(waiting.ok());
  EXPECT_FALSE(b.Leading());
  EXPECT_FALSE(b.Deposed()) << "a standby that never led is not deposed";
  EXPECT_EQ(b.Last().address, "ctl1:6817") << "a standby knows where the leader is";
  f.now += 5999;
  ASSERT_TRUE(b.Try().ok());
  EXPECT_FALSE(b.Leading());
  f.now += 1;  // a (killed) renewed nothing: its lease lapses
  ASSERT_TRUE(b.Try().ok());
  EXPECT_TRUE(b.Leading());
  EXPECT_EQ(b.Last().token, 2);
}

// The leader stops before the store's lease lapses: its deadline counts from when its last
// successful renewal began, less a margin, so a standby never leads while it still acts.
TEST(LeaseKeeper, ALeaderCutOffFromTheStoreStopsBeforeItsLeaseLapses) {
  Fixture f;
  LeaseKeeper a = f.Keeper("a", "ctl1:6817");
  ASSERT_TRUE(a.Try().ok());
  f.now += a.RenewMs();
  ASSERT_TRUE(a.Try().ok());
  const int64_t renewed_at = f.now;
  f.store.down = true;
  while (f.now < renewed_at + 6000) {
    f.now += a.RenewMs();
    EXPECT_FALSE(a.Try().ok());
    if (f.now < renewed_at + 6000 - a.MarginMs()) {
      EXPECT_TRUE(a.Leading()) << "at +" << f.now - renewed_at;
    } else {
      EXPECT_FALSE(a.Leading()) << "at +" << f.now - renewed_at;
      EXPECT_TRUE(a.Deposed());
    }
  }
  // The store answers again, and nobody took the lease meanwhile: the keeper stays deposed (its
  // controller stopped acting; it starts again as a standby).
  f.store.down = false;
  ASSERT_TRUE(a.Try().ok());
  EXPECT_FALSE(a.Leading());
  EXPECT_TRUE(a.Deposed());
}

TEST(LeaseKeeper, ALeaderFindingTheLeaseTakenIsDeposed) {
  Fixture f;
  LeaseKeeper a = f.Keeper("a", "ctl1:6817");
  LeaseKeeper b = f.Keeper("b", "ctl2:6817");
  ASSERT_TRUE(a.Try().ok());
  f.now += 6000;  // a stalled (a long pause) past its lease; b takes it
  ASSERT_TRUE(b.Try().ok());
  ASSERT_TRUE(b.Leading());
  StatusOr<Leadership> late = a.Try();
  ASSERT_TRUE(late.ok());
  EXPECT_FALSE(late->leading);
  EXPECT_EQ(late->holder, "b");
  EXPECT_TRUE(a.Deposed());
  EXPECT_FALSE(a.Leading());
}

// A leader that hands the lease over (the agents reach a standby, not it) stops leading at once
// and says to whom; a keeper that does not lead has nothing to hand over.
TEST(LeaseKeeper, ALeaderThatHandsTheLeaseOverStopsLeading) {
  Fixture f;
  LeaseKeeper a = f.Keeper("a", "ctl1:6817");
  EXPECT_EQ(a.HandOver("ctl2:6817").code(), StatusCode::kFailedPrecondition) << "it never led";
  ASSERT_TRUE(a.Try().ok());
  ASSERT_TRUE(a.Leading());
  ASSERT_TRUE(a.HandOver("ctl2:6817").ok());
  EXPECT_FALSE(a.Leading());
  EXPECT_TRUE(a.Deposed());
  EXPECT_EQ(a.HandedTo(), "ctl2:6817");
  EXPECT_EQ(f.store.successor_, "ctl2:6817");
  // Its next renewal does not revive it, though the lease lapsed (no one took it yet).
  ASSERT_TRUE(a.Try().ok());
  EXPECT_FALSE(a.Leading());
}

}  // namespace
}  // namespace muster
