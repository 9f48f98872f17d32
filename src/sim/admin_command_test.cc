// `muster admin migrate`'s command line (the copy itself: store/migrate_test.cc).
#include "sim/admin_command.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "base/test_util.h"
#include "store/store.h"

namespace muster {
namespace {

struct Ran {
  int rc;
  std::string out, err;
};

Ran Admin(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int rc = AdminMain(args, out, err);
  return {rc, out.str(), err.str()};
}

TEST(AdminCommand, UsageErrorsNameWhatIsWrong) {
  EXPECT_EQ(Admin({}).rc, 2);
  Ran verb = Admin({"vacuum"});
  EXPECT_EQ(verb.rc, 2);
  EXPECT_NE(verb.err.find("unknown verb 'vacuum'"), std::string::npos) << verb.err;
  Ran half = Admin({"migrate", "--from", "sqlite:a.db"});
  EXPECT_EQ(half.rc, 2);
  EXPECT_NE(half.err.find("both --from and --to are needed"), std::string::npos) << half.err;
  Ran bogus = Admin({"migrate", "--from=a.db", "--into", "b.db"});
  EXPECT_EQ(bogus.rc, 2);
  EXPECT_EQ(bogus.err, "muster admin migrate: unrecognized option '--into'\n" + AdminUsage());
  Ran dangling = Admin({"migrate", "--from"});
  EXPECT_EQ(dangling.rc, 2);
  EXPECT_EQ(dangling.err, "muster admin migrate: option '--from' requires an argument\n" + AdminUsage());
  Ran empty = Admin({"migrate", "--from=", "--to", "b.db"});
  EXPECT_EQ(empty.rc, 2);
  EXPECT_EQ(empty.err, "muster admin migrate: --from: empty location\n");
  Ran operand = Admin({"migrate", "--from", "a.db", "b.db"});
  EXPECT_EQ(operand.rc, 2);
  EXPECT_EQ(operand.err, "muster admin migrate: unexpected argument 'b.db'\n" + AdminUsage());
  Ran top = Admin({"--bogus", "migrate"});
  EXPECT_EQ(top.rc, 2);
  EXPECT_EQ(top.err, "muster admin: unrecognized option '--bogus'\n" + AdminUsage());
  EXPECT_EQ(Admin({"-h", "vacuum"}).rc, 0);  // answered, the rest unread
  Ran help = Admin({"migrate", "--help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_NE(help.out.find("usage: muster admin migrate --from LOCATION --to LOCATION"), std::string::npos);
}

TEST(AdminCommand, MigratesAndSaysWhat) {
  TempDir tmp("muster_admin_");
  const std::string dir = tmp.path();
  {
    std::unique_ptr<Store> s = OpenSqliteStore(dir + "/old.db").value();
    JobRecord j;
    j.id = 7;
    ASSERT_TRUE(s->SaveJob(j).ok());
    ASSERT_TRUE(s->SetMeta("usage", "{}").ok());
  }
  // "--fr": the option engine's unique prefix of --from.
  Ran ok = Admin({"migrate", "--fr", "sqlite:" + dir + "/old.db", "--to=sqlite:" + dir + "/new.db"});
  EXPECT_EQ(ok.rc, 0) << ok.err;
  EXPECT_EQ(ok.out, "migrated 1 jobs, 0 steps, 0 nodes and 1 meta records from sqlite:" + dir + "/old.db to sqlite:" +
                        dir + "/new.db (read back and compared); job ids go on from 8 or above\n");
  Ran missing = Admin({"migrate", "--from", dir + "/gone.db", "--to", "postgresql://u:secret@127.0.0.1:1/x"});
  EXPECT_EQ(missing.rc, 1);
  EXPECT_NE(missing.err.find("gone.db' does not exist"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace muster
