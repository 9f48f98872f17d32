// The kill soaks: a local cluster under a storm of submissions from parallel clients while its
// controller is killed (kill -9) and restarted again and again, and its agents too; and a cluster
// of two controllers sharing PostgreSQL whose leader is killed again and again (and in some rounds
// the standby), each killed one coming back as a standby. Every acknowledged job must run exactly
// once (with its script) and end COMPLETED with exit 0 in sacct; no id may be given twice; nothing
// may run twice. Every tenth kill (the sixth, the sixteenth, ...) keeps the controller down 18 s,
// past the lease, the kill wait and the margin. MUSTER_SOAK_KILLS sets the controller kills (10 by default) and
// MUSTER_SOAK_TAKEOVERS the leader kills (4): the short forms CI runs; bench/soak.sh and
// bench/standby_soak.sh run the long forms and write the figures.
#include "local_cluster_test_util.h"
#include "standby_test_util.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

// The storm and its checks, on either cluster: `kill_round(k, rng)` kills what round k kills and
// brings the cluster back (it returns once the commands answer again).
template <class Base>
class SoakOf : public Base {
 protected:
  static constexpr int kClients = 4;
  void TearDown() override {
    if (this->IsSkipped()) return;
    // The submitting loops are ours: stopped by pid whatever happened.
    (void)this->Run("touch stop");
    for (int c = 0; c < kClients; ++c) {
      const pid_t client =
          std::atoi(ReadFile((this->work_ / ("client." + std::to_string(c) + ".pid")).string()).c_str());
      if (client > 1 && !Dead(client)) {
        kill(client, SIGTERM);
        WaitFor([&] { return Dead(client); }, 5s);
      }
    }
    Base::TearDown();
  }
  void StartAgent(const std::string& node) {
    const fs::path c = this->dir_ / "c";
    Result r = Sh("setsid " + BinDir() + "/musterd --conf " + (c / "muster.yaml").string() + " --node " + node +
                  " --end-jobs-on-stop >> " + (c / "log").string() + "/musterd-" + node + ".log 2>&1 & echo $! > " +
                  c.string() + "/musterd-" + node + ".pid");
    ASSERT_EQ(r.rc, 0);
  }
  static int FromEnv(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v != nullptr && std::atoi(v) > 0 ? std::atoi(v) : fallback;
  }
  // Runs the storm through `rounds` kill rounds, then checks everything; the figures' line starts
  // with "[ soak ] " + `what`.
  void Storm(int rounds, const std::function<void(int, std::mt19937&)>& kill_round, const std::string& what,
             const std::function<std::string()>& more_figures) {
    const int clients = kClients;
    // Each client submits short jobs in a loop and keeps the ids it was given (the acknowledgement).
    // A job appends its id and run to runs.log once it starts, sleeps a little, and exits 0.
    const fs::path stop = this->work_ / "stop";
    for (int c = 0; c < clients; ++c) {
      Result r = this->Run("(while [ ! -e " + stop.string() + " ]; do sbatch --parsable -n1 --wrap "
                     "'echo $SLURM_JOB_ID ${SLURM_RESTART_COUNT:-0} >> runs.log; sleep 0.$((RANDOM % 5))' "
                     ">> acked." + std::to_string(c) + " 2>/dev/null; done) >/dev/null 2>&1 & echo $! > client." +
                     std::to_string(c) + ".pid");
      ASSERT_EQ(r.rc, 0);
    }
    std::mt19937 rng(12345);
    for (int k = 0; k < rounds; ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(400 + rng() % 800));  // the storm goes on
      kill_round(k, rng);
      if (::testing::Test::HasFatalFailure()) return;
    }
    ASSERT_EQ(this->Run("touch " + stop.string()).rc, 0);
    for (int c = 0; c < clients; ++c) {
      const pid_t client = std::atoi(ReadFile((this->work_ / ("client." + std::to_string(c) + ".pid")).string()).c_str());
      ASSERT_TRUE(WaitFor([&] { return Dead(client); }, 30s)) << "client " << c;
    }
    // Everything acknowledged ends.
    ASSERT_TRUE(WaitFor([&] { return Trim(this->Run("squeue -h -o %i").out).empty(); }, 120s)) << this->Run("squeue").out;

    std::set<int64_t> acked;
    int64_t acks = 0;
    for (int c = 0; c < clients; ++c) {
      std::istringstream in(ReadFile((this->work_ / ("acked." + std::to_string(c))).string()));
      for (int64_t id; in >> id; ++acks) {
        EXPECT_TRUE(acked.insert(id).second) << "job id " << id << " given twice";
      }
    }
    ASSERT_GT(acked.size(), 20u) << "the storm submitted too little to mean anything";
    // How each job ended, from accounting.
    std::map<int64_t, std::string> ended;
    std::istringstream sacct(this->Run("sacct -X -n -P -a -o JobID,State,ExitCode -S 2000-01-01").out);
    for (std::string line; std::getline(sacct, line);) {
      const size_t bar = line.find('|');
      if (bar == std::string::npos) continue;
      ended[std::atoll(line.substr(0, bar).c_str())] = line.substr(bar + 1);
    }
    // How often each ran.
    std::map<int64_t, int> runs;
    std::istringstream log(ReadFile((this->work_ / "runs.log").string()));
    for (std::string line; std::getline(log, line);) ++runs[std::atoll(line.c_str())];
    // And no job was made that no client was told of (a retried submission that became two jobs).
    int unacked = 0;
    for (const auto& [id, how] : ended) {
      if (!acked.count(id)) ++unacked;
      EXPECT_TRUE(acked.count(id)) << "job " << id << " stored but never acknowledged: " << how;
    }
    int lost = 0, rerun = 0, wrong = 0;
    for (int64_t id : acked) {
      if (!ended.count(id)) ++lost;
      if (runs[id] > 1) ++rerun;
      if (ended.count(id) && ended[id] != "COMPLETED|0:0") ++wrong;
      EXPECT_TRUE(ended.count(id)) << "job " << id << " acknowledged but not stored";
      EXPECT_EQ(runs[id], 1) << "job " << id << " ran " << runs[id] << " times:\n"
                             << this->Run("sacct -j " + std::to_string(id) + " -o JobID,State,NodeList,ExitCode -P").out
                             << this->Run("grep -h ' " + std::to_string(id) + "[ :]\\|job " + std::to_string(id) + "[ :]' " +
                                    (this->dir_ / "c/log").string() + "/*.log").out;
      EXPECT_EQ(ended[id], "COMPLETED|0:0") << "job " << id;
    }
    std::cout << "[ soak ] " << what << more_figures() << ", " << acks
              << " jobs acknowledged: " << lost << " lost, " << rerun << " run twice, " << wrong
              << " recorded in the wrong state, " << unacked << " made twice or never acknowledged\n";
  }
};

class Soak : public SoakOf<LocalClusterTest> {
 protected:
  void StartController() {
    Result r = Sh("setsid " + BinDir() + "/musterctld --conf " + (dir_ / "c/muster.yaml").string() +
                  " >> " + (dir_ / "c/log/musterctld.log").string() + " 2>&1 & echo $! > " +
                  (dir_ / "c/musterctld.pid").string());
    ASSERT_EQ(r.rc, 0);
  }
};

TEST_F(Soak, KillsOfTheControllerAndTheAgentsLoseNothingAndRunNothingTwice) {
  const int kills = FromEnv("MUSTER_SOAK_KILLS", 10);
  int agent_kills = 0, long_outages = 0;
  Storm(
      kills,
      [&](int k, std::mt19937& rng) {
        const pid_t ctld = std::atoi(Pid("musterctld").c_str());
        ASSERT_EQ(kill(ctld, SIGKILL), 0) << "kill " << k;
        ASSERT_TRUE(WaitFor([&] { return Dead(ctld); }, 5s));
        if (k % 3 == 1) {
          // An agent too, while the controller is down; it comes back within its lease.
          const std::string node = "node" + std::to_string(1 + rng() % 2);
          const pid_t agent = std::atoi(Pid("musterd-" + node).c_str());
          ASSERT_EQ(kill(agent, SIGKILL), 0);
          ASSERT_TRUE(WaitFor([&] { return Dead(agent); }, 5s));
          StartAgent(node);
          ++agent_kills;
        }
        if (k % 10 == 5) {
          // Now and then an outage longer than the lease, the kill wait and the margin (6 + 5 + 5 s
          // under muster up): the agents keep their runs on each other's word (model/outage.h),
          // and the controller that comes back requeues none of them.
          std::this_thread::sleep_for(18s);  // (the outage's length is the point, not a wait)
          ++long_outages;
        } else {
          std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 400));  // down a while
        }
        StartController();
        Result answer;
        ASSERT_TRUE(WaitFor([&] { return (answer = Run("squeue -h -o %i")).rc == 0; }, 30s))
            << "kill " << k << ": squeue said " << answer.out.substr(0, 500);
      },
      std::to_string(kills) + " controller kills, ", [&] {
        return std::to_string(agent_kills) + " agent kills, " + std::to_string(long_outages) + " outages of 18 s";
      });
  const std::string log = ReadFile((dir_ / "c/log/musterctld.log").string());
  EXPECT_EQ(log.find("not responding"), std::string::npos) << "a node was given up for the controller's outage";
}

using StandbySoak = SoakOf<StandbyClusterTest>;

// Two controllers: each round kills the leader (every fifth, the standby instead) at a random
// moment of the storm, waits for a leader to answer, and starts the killed one again (a standby).
TEST_F(StandbySoak, KillsOfTheLeaderLoseNothingAndRunNothingTwice) {
  const int rounds = FromEnv("MUSTER_SOAK_TAKEOVERS", 4);
  int leader_kills = 0, standby_kills = 0;
  double longest_s = 0;
  Storm(
      rounds,
      [&](int k, std::mt19937&) {
        const size_t leader = Leader();
        ASSERT_LT(leader, 2u) << "round " << k;
        const size_t victim = k % 5 == 4 ? 1 - leader : leader;
        const pid_t pid = PidOf(victim);
        const auto killed = std::chrono::steady_clock::now();
        ASSERT_EQ(kill(pid, SIGKILL), 0) << "round " << k;
        ASSERT_TRUE(WaitFor([&] { return Dead(pid); }, 5s));
        (victim == leader ? leader_kills : standby_kills)++;
        ASSERT_TRUE(WaitFor([&] { return Role(1 - victim) == "leader"; }, 15s)) << "round " << k;
        if (victim == leader) {
          longest_s = std::max(longest_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count());
        }
        Restart(victim);
        ASSERT_TRUE(WaitFor([&] { return Role(victim) == "standby"; }, 15s)) << "round " << k << ": " << LogOf(victim);
      },
      "", [&] {
        char longest[32];
        std::snprintf(longest, sizeof longest, "%.2f", longest_s);
        return std::to_string(rounds) + " rounds (" + std::to_string(leader_kills) + " leader kills, " +
               std::to_string(standby_kills) + " standby kills), longest without a leader " + longest + " s";
      });
  EXPECT_LT(longest_s, 10.0);
}

}  // namespace
