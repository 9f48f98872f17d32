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

TEST(ConnectionPlacesTest, AFullUnauthenticatedPoolEvictsTheOldestOfTheAddressHoldingTheMost) {
  Ids id;
  ConnectionPlaces p({.max_counted = 8, .max_per_key = 8, .reserved = 0, .max_unauthenticated = 4});
  EXPECT_EQ(p.AddUnauthenticated(id[0], "user"), nullptr);
  EXPECT_EQ(p.AddUnauthenticated(id[1], "flood"), nullptr);
  EXPECT_EQ(p.AddUnauthenticated(id[2], "flood"), nullptr);
  EXPECT_EQ(p.AddUnauthenticated(id[3], "flood"), nullptr);
  // The user's connection is the oldest of all, but the flood's address holds the most.
  EXPECT_EQ(p.AddUnauthenticated(id[4], "flood"), id[1]);
  EXPECT_EQ(p.AddUnauthenticated(id[5], "other"), id[2]);
  EXPECT_EQ(p.unauthenticated(), 4);
  EXPECT_EQ(p.Promote(id[1], "uid 7", false, nullptr), ConnectionPlaces::Promotion::kNotHeld) << "evicted";
  EXPECT_EQ(p.Promote(id[0], "uid 1000", false, nullptr), ConnectionPlaces::Promotion::kPromoted);
  // Now {flood: 3, 4; other: 5}: the flood again.
  EXPECT_EQ(p.AddUnauthenticated(id[6], "user"), nullptr);
  EXPECT_EQ(p.AddUnauthenticated(id[7], "user"), id[3]);
  // flood: 4; other: 5; user: 6, 7 -> the user's address holds the most now.
  EXPECT_EQ(p.AddUnauthenticated(id[8], "other"), id[6]);
  // flood: 4, other: 5, 8, user: 7 -> other.
  EXPECT_EQ(p.AddUnauthenticated(id[9], "new"), id[5]);
  // One each (flood: 4, other: 8, user: 7, new: 9): the oldest, 4.
  EXPECT_EQ(p.AddUnauthenticated(id[10], "x"), id[4]);
  p.Remove(id[4]);  // the server removes an evicted connection when it closes: nothing left to give
  EXPECT_EQ(p.unauthenticated(), 4);
  EXPECT_EQ(p.counted(), 1);
}

}  // namespace
}  // namespace muster
