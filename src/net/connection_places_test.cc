// ConnectionPlaces: the caps on counted connections, and the unauthenticated pool's evictions.
#include "net/connection_places.h"

#include <vector>

#include "gtest/gtest.h"

namespace muster {
namespace {

// Distinct ids for connections (only their addresses are used).
struct Ids {
  std::vector<char> slots = std::vector<char>(64);
  ConnectionPlaces::Id operator[](int i) const { return &slots[i]; }
};

TEST(ConnectionPlacesTest, CountedConnectionsAreCappedPerKeyAndInAllWithAReserveForThePrivileged) {
  Ids id;
  ConnectionPlaces p({.max_counted = 4, .max_per_key = 2, .reserved = 1, .max_unauthenticated = 8});
  EXPECT_TRUE(p.AddCounted(id[0], "uid 1000", false));
  EXPECT_TRUE(p.AddCounted(id[1], "uid 1000", false));
  EXPECT_FALSE(p.AddCounted(id[2], "uid 1000", false)) << "its key's cap";
  EXPECT_TRUE(p.AddCounted(id[3], "uid 1001", false));
  EXPECT_TRUE(p.AddCounted(id[4], "uid 0", true));
  EXPECT_FALSE(p.AddCounted(id[5], "uid 1002", false)) << "the total";
  EXPECT_TRUE(p.AddCounted(id[6], "uid 0", true)) << "the reserve";
  EXPECT_FALSE(p.AddCounted(id[7], "uid 0", true)) << "past the reserve";
  EXPECT_EQ(p.counted(), 5);
  p.Remove(id[0]);
  p.Remove(id[0]);  // twice is fine
  EXPECT_EQ(p.held_by("uid 1000"), 1);
  p.Remove(id[6]);
  EXPECT_TRUE(p.AddCounted(id[2], "uid 1000", false));
  EXPECT_EQ(p.counted(), 4);
}

TEST(ConnectionPlacesTest, UnauthenticatedConnectionsTakeNoCountedPlaceAndPromotionMovesThemToTheirUid) {
  Ids id;
  ConnectionPlaces p({.max_counted = 2, .max_per_key = 1, .reserved = 0, .max_unauthenticated = 8});
  for (int i = 0; i < 6; ++i) EXPECT_EQ(p.AddUnauthenticated(id[i], "10.0.0.1"), nullptr);
  EXPECT_EQ(p.counted(), 0);
  EXPECT_EQ(p.unauthenticated(), 6);
  // Authenticated users still find their places.
  std::string why;
  EXPECT_EQ(p.Promote(id[0], "uid 1000", false, &why), ConnectionPlaces::Promotion::kPromoted);
  EXPECT_EQ(p.unauthenticated(), 5);
  EXPECT_EQ(p.held_by("uid 1000"), 1);
  EXPECT_EQ(p.Promote(id[1], "uid 1000", false, &why), ConnectionPlaces::Promotion::kNoPlace);
  EXPECT_EQ(why, "uid 1000 holds 1 connections, as many as one caller may");
  EXPECT_EQ(p.unauthenticated(), 5) << "refused, it keeps its unauthenticated place (and is closed by the server)";
  EXPECT_EQ(p.Promote(id[1], "uid 1001", false, &why), ConnectionPlaces::Promotion::kPromoted);
  EXPECT_EQ(p.Promote(id[2], "uid 1002", false, &why), ConnectionPlaces::Promotion::kNoPlace);
  EXPECT_EQ(why, "the server holds as many connections as it may (2)");
  EXPECT_EQ(p.Promote(id[0], "uid 1000", false, &why), ConnectionPlaces::Promotion::kNotHeld) << "counted already";
  p.Remove(id[0]);
  EXPECT_EQ(p.Promote(id[2], "uid 1002", false, &why), ConnectionPlaces::Promotion::kPromoted);
  EXPECT_EQ(p.counted(), 2);
  EXPECT_EQ(p.unauthenticated(), 3);
}

TEST(ConnectionPlacesTest, AFullUnauthenticatedPoolTakesANewcomerOnlyFromAnAddressHoldingFewerThanTheMost) {
  Ids id;
  ConnectionPlaces p({.max_counted = 8, .max_per_key = 8, .reserved = 0, .max_unauthenticated = 4});
  EXPECT_TRUE(p.MayAddUnauthenticated("user"));
  EXPECT_EQ(p.AddUnauthenticated(id[0], "user"), nullptr);
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(p.AddUnauthenticated(id[i], "flood"), nullptr);
  // Full: the flood's address holds the most, so its next connection is refused at once...
  EXPECT_FALSE(p.MayAddUnauthenticated("flood"));
  // ... while one from elsewhere takes the place of the flood's oldest, not of the user's (the
  // oldest of all).
  EXPECT_TRUE(p.MayAddUnauthenticated("other"));
  EXPECT_EQ(p.AddUnauthenticated(id[4], "other"), id[1]);
  EXPECT_EQ(p.closing(), 1);
  EXPECT_EQ(p.unauthenticated(), 4);
  EXPECT_EQ(p.Promote(id[1], "uid 7", false, nullptr), ConnectionPlaces::Promotion::kNotHeld) << "evicted";
  // {user: 0, flood: 2 3, other: 4}: the user's address holds fewer than the flood's.
  EXPECT_TRUE(p.MayAddUnauthenticated("user"));
  EXPECT_EQ(p.AddUnauthenticated(id[5], "user"), id[2]);
  // {user: 0 5, flood: 3, other: 4}: now the user's address holds the most.
  EXPECT_FALSE(p.MayAddUnauthenticated("user"));
  EXPECT_EQ(p.Promote(id[0], "uid 1000", false, nullptr), ConnectionPlaces::Promotion::kPromoted);
  EXPECT_EQ(p.unauthenticated(), 3);
  EXPECT_TRUE(p.MayAddUnauthenticated("flood")) << "a free place is anyone's";
  EXPECT_EQ(p.AddUnauthenticated(id[6], "flood"), nullptr);
  // {user: 5, flood: 3 6, other: 4}: the flood's oldest; then one each, and the oldest of all goes.
  EXPECT_EQ(p.AddUnauthenticated(id[7], "new"), id[3]);
  EXPECT_EQ(p.AddUnauthenticated(id[8], "new2"), id[4]);
  EXPECT_EQ(p.closing(), 4);
  p.Remove(id[1]);  // the server removes each evicted connection once it has closed it
  EXPECT_EQ(p.closing(), 3);
  EXPECT_EQ(p.unauthenticated(), 4);
  EXPECT_EQ(p.counted(), 1);
}

// A server that cannot close evicted connections as fast as they come refuses newcomers at once
// until it has: never more than max_unauthenticated connections are closing.
TEST(ConnectionPlacesTest, NoMoreConnectionsAreClosingThanThereArePlaces) {
  Ids id;
  ConnectionPlaces p({.max_counted = 8, .max_per_key = 8, .reserved = 0, .max_unauthenticated = 2});
  EXPECT_EQ(p.AddUnauthenticated(id[0], "a"), nullptr);
  EXPECT_EQ(p.AddUnauthenticated(id[1], "b"), nullptr);
  ASSERT_TRUE(p.MayAddUnauthenticated("c"));
  EXPECT_EQ(p.AddUnauthenticated(id[2], "c"), id[0]);
  ASSERT_TRUE(p.MayAddUnauthenticated("d"));
  EXPECT_EQ(p.AddUnauthenticated(id[3], "d"), id[1]);
  EXPECT_EQ(p.closing(), 2);
  EXPECT_FALSE(p.MayAddUnauthenticated("e"));
  p.Remove(id[0]);
  EXPECT_TRUE(p.MayAddUnauthenticated("e"));
  p.Remove(id[0]);  // twice is fine
  EXPECT_EQ(p.closing(), 1);
}

}  // namespace
}  // namespace muster
