#include "agent/outage_witness.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "agent/shepherd.h"
#include "base/read_file.h"

namespace muster {
namespace {

namespace fs = std::filesystem;

// A spool of its own, the peers' answers set by the test, and a manual clock: the rule for a
// 1 s heartbeat (claims after 3 s) and a 6 s lease, as `muster up` configures it.
class WitnessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("muster_witness_test_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    witness_ = Make();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::unique_ptr<OutageWitness> Make() {
    OutageWitness::Options o;
    o.spool_dir = dir_.string();
    o.ask = [this](const PeerAgent& p) -> StatusOr<int64_t> {
      std::lock_guard<std::mutex> lock(mu_);
      ++asks_;
      auto it = ages_.find(p.node);
      if (it == ages_.end()) return Status(StatusCode::kUnavailable, "no answer from " + p.node);
      return it->second;
    };
    return std::make_unique<OutageWitness>(std::move(o), &clock_);
  }
  WitnessView View(int peers) {
    WitnessView v;
    v.generation = 7;
    v.peers = peers;
    for (int i = 2; i <= peers; ++i) v.ask.push_back({"n" + std::to_string(i), "unix:/x" + std::to_string(i)});
    v.threshold_pct = 55;
    v.claim_ms = 3000;
    return v;
  }
  void Answer(const std::string& node, int64_t age) {
    std::lock_guard<std::mutex> lock(mu_);
    ages_[node] = age;
  }
  void Silent(const std::string& node) {
    std::lock_guard<std::mutex> lock(mu_);
    ages_.erase(node);
  }
  int64_t LeaseOnDisk() { return ReadLease((dir_ / "lease").string()); }

  fs::path dir_;
  ManualClock clock_;
  std::mutex mu_;
  std::map<std::string, int64_t> ages_;
  int asks_ = 0;
  std::unique_ptr<OutageWitness> witness_;
};

TEST_F(WitnessTest, AnAnswerRenewsTheLeaseTheShepherdsRead) {
  ASSERT_TRUE(witness_->Heard(6).ok());
  EXPECT_EQ(LeaseOnDisk(), clock_.NowMillis() + 6000);
  EXPECT_EQ(witness_->HeardMsAgo(), 0);
  clock_.AdvanceMillis(1500);
  EXPECT_EQ(witness_->HeardMsAgo(), 1500);
  witness_->Check();  // not lost yet: nobody asked
  EXPECT_EQ(asks_, 0);
}

TEST_F(WitnessTest, EveryPeerLostTheControllerTheRunsGoOn) {
  ASSERT_TRUE(witness_->SetView(View(4)).ok());
  ASSERT_TRUE(witness_->Heard(6).ok());
  const int64_t first = LeaseOnDisk();
  clock_.AdvanceMillis(2500);
  witness_->Check();
  EXPECT_EQ(asks_, 0) << "asked before its own claim time";
  clock_.AdvanceMillis(1000);  // 3.5 s without the controller; the peers lost it a little earlier or later
  Answer("n2", 4000);
  Answer("n3", 3100);
  Answer("n4", 2000);  // not yet: 3 of 4 is still 75%
  witness_->Check();
  EXPECT_EQ(asks_, 3);
  EXPECT_EQ(witness_->verdict(), OutageWitness::Verdict::kOutage);
  EXPECT_EQ(LeaseOnDisk(), clock_.NowMillis() + 6000);
  EXPECT_GT(LeaseOnDisk(), first);
  // Asked again a third of a lease later, and so on past any number of leases.
  for (int i = 0; i < 300; ++i) {
    clock_.AdvanceMillis(1000);
    for (const char* n : {"n2", "n3", "n4"}) Answer(n, 3500 + 1000 * i);
    witness_->Check();
    ASSERT_GT(LeaseOnDisk(), clock_.NowMillis()) << "at " << i << " s";
  }
  EXPECT_EQ(asks_, 3 + 3 * 150);
  EXPECT_EQ(witness_->renewals(), 151);
  // The controller is back: its answer renews the lease, and nobody is asked.
  ASSERT_TRUE(witness_->Heard(6).ok());
  EXPECT_EQ(witness_->verdict(), OutageWitness::Verdict::kHeard);
  clock_.AdvanceMillis(1000);
  witness_->Check();
  EXPECT_EQ(asks_, 453);
}

TEST_F(WitnessTest, PeersThatReachTheControllerLetTheLeaseRunOut) {
  ASSERT_TRUE(witness_->SetView(View(4)).ok());
  ASSERT_TRUE(witness_->Heard(6).ok());
  const int64_t lease = LeaseOnDisk();
  Answer("n2", 500);
  Answer("n3", 1200);
  Answer("n4", 4000);  // one other lost it too: 2 of 4
  for (int i = 0; i < 20; ++i) {
    clock_.AdvanceMillis(500);
    witness_->Check();
  }
  EXPECT_EQ(witness_->verdict(), OutageWitness::Verdict::kCutOff);
  EXPECT_EQ(LeaseOnDisk(), lease) << "renewed although cut off alone";
  // Past its end the lease is never renewed, even when the peers then lose the controller too:
  // the shepherds are ending the runs.
  const int before = asks_;
  for (const char* n : {"n2", "n3", "n4"}) Answer(n, 9000);
  clock_.AdvanceMillis(500);
  witness_->Check();
  EXPECT_EQ(asks_, before);
  EXPECT_EQ(LeaseOnDisk(), lease);
}

TEST_F(WitnessTest, PeersThatDoNotAnswerAreNotCountedLost) {
  // Cut off from everything: no peer answers, so nothing says the controller is down.
  ASSERT_TRUE(witness_->SetView(View(3)).ok());
  ASSERT_TRUE(witness_->Heard(6).ok());
  const int64_t lease = LeaseOnDisk();
  for (int i = 0; i < 12; ++i) {
    clock_.AdvanceMillis(500);
    witness_->Check();
  }
  EXPECT_GT(asks_, 0);
  EXPECT_EQ(witness_->verdict(), OutageWitness::Verdict::kCutOff);
  EXPECT_EQ(LeaseOnDisk(), lease);
}

TEST_F(WitnessTest, ANodeAloneRidesThroughOnItsOwnWord) {
  // A one-node cluster: the controller counts it alone, so its silence is the controller's fault.
  ASSERT_TRUE(witness_->SetView(View(1)).ok());
  ASSERT_TRUE(witness_->Heard(6).ok());
  clock_.AdvanceMillis(3000);
  witness_->Check();
  EXPECT_EQ(witness_->verdict(), OutageWitness::Verdict::kOutage);
  EXPECT_EQ(LeaseOnDisk(), clock_.NowMillis() + 6000);
}

TEST_F(WitnessTest, WithoutAViewNothingIsRenewed) {
  ASSERT_TRUE(witness_->Heard(6).ok());
  const int64_t lease = LeaseOnDisk();
  clock_.AdvanceMillis(4000);
  witness_->Check();
  EXPECT_EQ(LeaseOnDisk(), lease);
  EXPECT_EQ(asks_, 0);
}

TEST_F(WitnessTest, ARestartedAgentKeepsTheLeaseAndThePeers) {
  ASSERT_TRUE(witness_->SetView(View(2)).ok());
  ASSERT_TRUE(witness_->Heard(6).ok());
  clock_.AdvanceMillis(2000);
  // The agent restarts while the controller is away: what it knew comes back from the spool.
  witness_ = Make();
  witness_->Load();
  EXPECT_EQ(witness_->generation(), 7);
  EXPECT_EQ(witness_->HeardMsAgo(), 2000);
  EXPECT_EQ(witness_->lease_until_ms(), clock_.NowMillis() + 4000);
  Answer("n2", 3500);
  clock_.AdvanceMillis(1500);
  witness_->Check();
  EXPECT_EQ(witness_->verdict(), OutageWitness::Verdict::kOutage);
  EXPECT_EQ(LeaseOnDisk(), clock_.NowMillis() + 6000);
  // A peer that never heard a controller (its spool new) cannot say it lost one: not counted.
  Answer("n2", -1);
  const int64_t renewed = LeaseOnDisk();
  clock_.AdvanceMillis(2000);
  witness_->Check();
  EXPECT_EQ(LeaseOnDisk(), renewed);
  EXPECT_EQ(witness_->verdict(), OutageWitness::Verdict::kCutOff);
}

}  // namespace
}  // namespace muster
