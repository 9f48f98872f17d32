#include "model/account.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(AccountTreeTest, DefaultAccountAndWhoMayUseWhat) {
  AccountTree t;
  t.accounts = {{"vision", "", 1}, {"nlp", "", 1}};
  t.users = {{"alice", "vision", 1}, {"alice", "nlp", 1}, {"bob", "nlp", 1}};
  EXPECT_EQ(t.DefaultAccount("alice"), "vision");  // the first association
  EXPECT_EQ(t.DefaultAccount("carol"), "");        // none configured: the root
  EXPECT_TRUE(t.MayUse("alice", "nlp"));
  EXPECT_FALSE(t.MayUse("bob", "vision"));
  EXPECT_TRUE(t.MayUse("carol", "anything"));  // no association: not restricted
}

TEST(AccountTreeTest, AcceptsANestedTree) {
  AccountTree t;
  t.accounts = {{"science", "", 10}, {"physics", "science", 2}, {"ops", "", 0}};
  t.users = {{"alice", "physics", 1}, {"alice", "ops", 3}, {"bob", "science", 1}};
  EXPECT_TRUE(t.Validate().ok()) << t.Validate().ToString();
}

TEST(AccountTreeTest, ErrorsNameWhatIsWrong) {
  struct Row {
    AccountTree tree;
    const char* error;
  } rows[] = {
      {{{{"", "", 1}}, {}}, "an account has an empty name"},
      {{{{"a", "", 1}, {"a", "", 2}}, {}}, "account 'a' is defined twice"},
      {{{{"a", "nope", 1}}, {}}, "account 'a': parent account 'nope' is not defined"},
      {{{{"a", "b", 1}, {"b", "a", 1}}, {}}, "account 'a' is its own ancestor"},
      {{{{"a", "a", 1}}, {}}, "account 'a' is its own ancestor"},
      {{{{"a", "", -1}}, {}}, "account 'a': shares must be 0 or more"},
      {{{{"a", "", 1}}, {{"u", "b", 1}}}, "user 'u': account 'b' is not defined"},
      {{{{"a", "", 1}}, {{"u", "a", 1}, {"u", "a", 2}}}, "user 'u' is in account 'a' twice"},
      {{{{"a", "", 1}}, {{"", "a", 1}}}, "account 'a' has a user with an empty name"},
      {{{{"a", "", 1}}, {{"u", "a", -2}}}, "user 'u' in account 'a': shares must be 0 or more"},
  };
  for (const Row& r : rows) {
    Status st = r.tree.Validate();
    EXPECT_EQ(st.message(), r.error);
    EXPECT_FALSE(st.ok());
  }
}

}  // namespace
}  // namespace muster
