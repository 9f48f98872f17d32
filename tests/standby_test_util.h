// Shared by the integration tests of several controllers (tests/standby_test.cc, the leader-kill
// soak in tests/soak_test.cc): a local cluster of `muster up --state URL --controllers 2` on a
// database of its own on the PostgreSQL test server (MUSTER_TEST_PG_URL, which tools/test.sh sets),
// and ways to find, kill and restart its controllers. Header-only; test code.
#pragma once

#include <libpq-fe.h>
#include <signal.h>

#include <boost/json.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "local_cluster_test_util.h"
#include "net/http.h"
#include "store/pg_test_util.h"

namespace muster_test {

// Runs one statement on the test server (outside any store); false (and a test failure) if refused.
inline bool PgRun(const std::string& url, const std::string& sql) {
  PGconn* c = PQconnectdb(url.c_str());
  PGresult* r = PQexec(c, sql.c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  if (!ok) ADD_FAILURE() << sql << ": " << PQerrorMessage(c);
  PQclear(r);
  PQfinish(c);
  return ok;
}

class StandbyClusterTest : public LocalClusterTest {
 protected:
  void SetUp() override {
    MUSTER_PG_TEST_SERVER_OR_SKIP();
    // A database of its own on the test server, dropped at the end.
    const std::string url = muster::PgTestUrl();
    db_ = "t_standby_" + std::to_string(getpid());
    base_url_ = url.substr(0, url.rfind('/') + 1) + "postgres";
    PgRun(base_url_, "DROP DATABASE IF EXISTS " + db_);
    ASSERT_TRUE(PgRun(base_url_, "CREATE DATABASE " + db_));
    up_args_ = " --state " + url.substr(0, url.rfind('/') + 1) + db_ + " --controllers 2";
    LocalClusterTest::SetUp();
    if (HasFatalFailure()) return;
    const std::string conf = ReadFile((dir_ / "c" / "muster.yaml").string());
    const size_t at = conf.find("  hosts: [");
    ASSERT_NE(at, std::string::npos) << conf;
    std::string list = conf.substr(at + 10, conf.find(']', at) - at - 10);
    for (size_t b = 0; b < list.size();) {
      size_t e = list.find(", ", b);
      hosts_.push_back(list.substr(b, e == std::string::npos ? std::string::npos : e - b));
      b = e == std::string::npos ? list.size() : e + 2;
    }
    ASSERT_EQ(hosts_.size(), 2u) << conf;
    // The controllers' TCP ports speak TLS: this process's clients (Role) trust the cluster CA.
    muster::Status tls = muster::HttpClient::SetProcessTls(muster::HttpClient::Tls{(dir_ / "c" / "tls" / "ca.crt").string()});
    ASSERT_TRUE(tls.ok()) << tls.message();
  }
  void TearDown() override {
    if (IsSkipped()) return;
    EXPECT_TRUE(muster::HttpClient::SetProcessTls(std::nullopt).ok());
    LocalClusterTest::TearDown();
    if (!db_.empty()) PgRun(base_url_, "DROP DATABASE IF EXISTS " + db_ + " WITH (FORCE)");
  }
  // Controller i's GET /v1/ping: its role ("leader", "standby"), or "" when it does not answer.
  std::string Role(size_t i) {
    auto c = muster::HttpClient::Connect(hosts_[i], "", 2000);
    if (!c.ok()) return "";
    auto r = (*c)->Request("GET", "/v1/ping");
    if (!r.ok() || r->status != 200) return "";
    return std::string(boost::json::parse(r->body).as_object().at("role").as_string());
  }
  // Which controller leads (waits for one); its index.
  size_t Leader() {
    size_t found = 9;
    EXPECT_TRUE(WaitFor([&] {
      for (size_t i = 0; i < hosts_.size(); ++i) {
        if (Role(i) == "leader") found = i;
      }
      return found != 9;
    }, 15s));
    return found;
  }
  std::string PidFile(size_t i) { return (dir_ / "c" / (i == 0 ? "musterctld.pid" : "musterctld2.pid")).string(); }
  pid_t PidOf(size_t i) { return std::atoi(ReadFile(PidFile(i)).c_str()); }
  std::string LogOf(size_t i) {
    return ReadFile((dir_ / "c" / "log" / (i == 0 ? "musterctld.log" : "musterctld2.log")).string());
  }
  // Starts controller i again (as `muster up` did), its pid in its pid file.
  void Restart(size_t i) {
    const std::string c = (dir_ / "c").string();
    const std::string args = i == 0 ? "" : " --listen " + hosts_[i] + " --socket " + c + "/run/ctld2.sock";
    Result r = Sh("setsid " + BinDir() + "/musterctld --conf " + c + "/muster.yaml" + args + " >> " + c + "/log/" +
                  (i == 0 ? "musterctld.log" : "musterctld2.log") + " 2>&1 & echo $! > " + PidFile(i));
    ASSERT_EQ(r.rc, 0) << r.out;
  }

  std::string db_, base_url_;
  std::vector<std::string> hosts_;
};

}  // namespace muster_test
