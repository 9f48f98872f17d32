#include "model/outage.h"

#include <gtest/gtest.h>

#include <cmath>

namespace muster {
namespace {

TEST(Outage, TimesFollowTheHeartbeat) {
  OutageRule r;
  r.heartbeat_interval_ms = 5000;
  EXPECT_EQ(r.OutOfTouchMs(), 7500);
  EXPECT_EQ(r.ClaimMs(), 8500);
  EXPECT_EQ(r.ShortestLeaseMs(), 14500);  // the default heartbeat_timeout of 30 s is well above
  r.heartbeat_interval_ms = 1000;
  EXPECT_EQ(r.OutOfTouchMs(), 2000);
  EXPECT_EQ(r.ClaimMs(), 3000);
  EXPECT_EQ(r.ShortestLeaseMs(), 5000);  // muster up: heartbeats every second, a 6 s lease
}

TEST(Outage, MassLossAtTheThreshold) {
  EXPECT_FALSE(MassLoss(0, 0, 55));
  EXPECT_TRUE(MassLoss(1, 1, 55));    // one node: its silence is the controller's
  EXPECT_FALSE(MassLoss(1, 2, 55));   // one of two cut off: that node's
  EXPECT_TRUE(MassLoss(2, 2, 55));
  EXPECT_FALSE(MassLoss(54, 100, 55));
  EXPECT_TRUE(MassLoss(55, 100, 55));
  EXPECT_TRUE(MassLoss(3, 4, 55));
  EXPECT_FALSE(MassLoss(2, 4, 55));
}

TEST(Outage, CountedExactlyTheAgentAndTheControllerAgree) {
  // Among all the peers, an agent's runs go on exactly when the controller (which counts at least
  // the same nodes out of touch) takes the silence for its own fault.
  for (int peers = 1; peers <= 70; ++peers) {
    for (int lost = 0; lost <= peers; ++lost) {
      ASSERT_EQ(RunsGoOn(lost, peers, peers, 55, false), MassLoss(lost, peers, 55)) << lost << " of " << peers;
    }
  }
  EXPECT_FALSE(RunsGoOn(0, 2, 2, 55, false));  // not itself lost: nothing to renew
  // Peers it could not ask (not yet registered when it was told) count as not lost.
  EXPECT_FALSE(RunsGoOn(1, 1, 3, 55, false));
  EXPECT_TRUE(RunsGoOn(3, 3, 4, 55, false));
}

TEST(Outage, ASampleNeedsAClearMajority) {
  // 64 peers asked of 1,000: the lower bound of the share must reach 55%.
  EXPECT_TRUE(RunsGoOn(65, 65, 1000, 55, true));  // every one lost: the controller is down
  EXPECT_TRUE(RunsGoOn(60, 65, 1000, 55, true));  // some did not answer (dead nodes)
  EXPECT_FALSE(RunsGoOn(40, 65, 1000, 55, true));
  EXPECT_FALSE(RunsGoOn(36, 65, 1000, 55, true));  // 55% of the sample is not enough
  // Of a sample of 64 (itself among them), at least 52 lost: when fewer than 55% of the cluster
  // are, that happens with a probability under 1e-4 (binomial, at 55%: about 1e-5).
  int need = 0;
  while (need <= 64 && !RunsGoOn(need, 64, 1000, 55, true)) ++need;
  EXPECT_EQ(need, 52);
  double tail = 0;
  for (int k = need; k <= 64; ++k) tail += std::exp(std::lgamma(65) - std::lgamma(k + 1) - std::lgamma(65 - k) +
                                                   k * std::log(0.55) + (64 - k) * std::log(0.45));
  EXPECT_LT(tail, 1e-4);
}

TEST(Outage, WilsonBound) {
  EXPECT_DOUBLE_EQ(WilsonLowerBound(0, 0, 4), 0);
  EXPECT_NEAR(WilsonLowerBound(64, 64, 4), 0.8, 1e-9);  // n / (n + z^2)
  EXPECT_LT(WilsonLowerBound(32, 64, 4), 0.5);
  EXPECT_GT(WilsonLowerBound(32, 64, 4), 0.25);
}

}  // namespace
}  // namespace muster
