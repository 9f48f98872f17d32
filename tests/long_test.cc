// The integration tests that mostly wait, label "long" in CTest: tools/test.sh runs them beside the
// others. The fault suite's controller outages (issue 46; model/outage.h): jobs of every kind (a
// batch script, an srun step, a 2-node gang, an array, a heterogeneous job) run on through a
// controller outage far longer than every timeout, none runs twice, none is recorded NODE_FAIL,
// and all end COMPLETED with one run; the same when both controllers of a pair are down and the
// standby is the one that comes back (MUSTER_OUTAGE_S sets the outage: default 300 s, 5
// minutes). And a job's time limit (a minute: Slurm's least).
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "standby_test_util.h"

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

int OutageSeconds(int fallback) {
  const char* s = std::getenv("MUSTER_OUTAGE_S");
  return s != nullptr && std::atoi(s) > 0 ? std::atoi(s) : fallback;
}

// What each job runs: a line in NAME.runs at its start, NAME.alive rewritten every second (whole:
// a file renamed over it) until the file `go` appears, then NAME.done.
std::string Loop(const std::string& name) {
  return "echo start >> " + name + ".runs; while [ ! -e go ]; do date +%s > " + name + ".alive.new; mv " + name + ".alive.new " +
         name + ".alive; sleep 1; done; echo done > " + name + ".done";
}

// Submits one job of each kind from `work`; their names, and the ids by name.
struct Workload {
  std::vector<std::string> alive = {"batch", "step", "gang.0", "gang.1", "arr.0", "arr.1", "het"};
  std::map<std::string, int64_t> ids;
  std::vector<std::string> Ids() const {
    std::vector<std::string> out;
    for (const auto& [name, id] : ids) out.push_back(std::to_string(id));
    return out;
  }
};

void WriteScripts(const fs::path& work) {
  std::ofstream(work / "batch.sh") << "#!/bin/bash\n#SBATCH -J batch -o batch.out\n" << Loop("batch") << "\n";
  std::ofstream(work / "step.sh") << "#!/bin/bash\n#SBATCH -J step -o step.out\nsrun -n1 bash -c '" << Loop("step")
                                  << "'\necho step-rc=$?\n";
  std::ofstream(work / "gang.sh") << "#!/bin/bash\n#SBATCH -J gang -N2 -n2 -o gang.out\nsrun -N2 -n2 bash -c '"
                                  << Loop("gang.$SLURM_PROCID") << "'\necho gang-rc=$?\n";
  std::ofstream(work / "array.sh") << "#!/bin/bash\n#SBATCH -J arr --array=0-1 -o arr-%a.out\n" << Loop("arr.$SLURM_ARRAY_TASK_ID")
                                   << "\n";
  std::ofstream(work / "het.sh") << "#!/bin/bash\n#SBATCH -J het -n1 -o het.out\n#SBATCH hetjob\n#SBATCH -n1\n" << Loop("het")
                                 << "\n";
}

// The outage: the test watches every job's pulse through it, each second the whole time.
class OutageCheck {
 public:
  explicit OutageCheck(fs::path work) : work_(std::move(work)) {}
  // The NAME.alive files that have not been rewritten for 5 s and more (or never were).
  std::vector<std::string> Stale(const std::vector<std::string>& names) const {
    std::vector<std::string> stale;
    const int64_t now = time(nullptr);
    for (const std::string& n : names) {
      const int64_t at = std::atoll(ReadFile((work_ / (n + ".alive")).string()).c_str());
      if (now - at > 5) stale.push_back(n + " (" + std::to_string(now - at) + " s)");
    }
    return stale;
  }
  // Waits `seconds`, looking at the pulses every second; the first stale pulse fails the test.
  bool RideThrough(int seconds, const std::vector<std::string>& names) const {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    int64_t looked = 0;
    while (std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(1s);  // (the outage's length is the test's subject, not a wait)
      ++looked;
      const std::vector<std::string> stale = Stale(names);
      if (!stale.empty()) {
        std::string all;
        for (const std::string& s : stale) all += " " + s;
        ADD_FAILURE() << "after " << looked << " s of the outage these stopped:" << all;
        return false;
      }
    }
    std::cerr << "every job's pulse was fresh at each of " << looked << " looks through the outage\n";
    return true;
  }

 private:
  fs::path work_;
};

// The same fixture over one controller or a pair (StandbyClusterTest), with four nodes.
template <class Base>
class OutageTest : public Base {
 protected:
  void SetUp() override {
    this->nodes_ = 4;
    Base::SetUp();
  }
  std::string Field(const std::string& id, const std::string& key) {
    const std::string out = this->Run("scontrol show job " + id).out;
    const size_t at = out.find(" " + key + "=");
    if (at == std::string::npos) return "";
    const size_t from = at + key.size() + 2;
    return out.substr(from, out.find_first_of(" \n", from) - from);
  }
  void SubmitAll(Workload* w) {
    // Every agent told its peers first (a node that registered before the others is told them at
    // its next heartbeat; until then it could only take itself for cut off).
    for (int i = 1; i <= 4; ++i) {
      ASSERT_TRUE(WaitFor([&] { return AgentLog(i).find("the controller counts 4 nodes; 3 peers") != std::string::npos; }, 10s))
          << AgentLog(i);
    }
    WriteScripts(this->work_);
    for (const char* s : {"batch", "step", "gang", "array", "het"}) w->ids[s] = this->Submit(std::string(s) + ".sh");
    ASSERT_TRUE(WaitFor([&] { return OutageCheck(this->work_).Stale(w->alive).empty(); }, 60s))
        << this->Run("squeue; ls -la").out;
    // And every launch answered: each job record (array tasks and components too) held by an
    // agent (GET /v1/ping's running), so that no launch is cut short by the outage. (A component's
    // launch cut short is a lost launch: the gang is requeued, and its script runs again.)
    const std::string ids = this->Run("squeue -h -o %A | sort -u").out;
    ASSERT_TRUE(WaitFor([&] {
      std::string held;
      for (int i = 1; i <= 4; ++i) {
        held += this->Run("curl -sf --unix-socket " + (this->dir_ / "c/run").string() + "/musterd-node" + std::to_string(i) +
                          ".sock http://x/v1/ping").out;
      }
      std::istringstream want(ids);
      for (std::string id; want >> id;) {
        const std::regex in_running("\"running\":\\[[^\\]]*\\b" + id + "\\b");
        if (!std::regex_search(held, in_running)) return false;
      }
      return !ids.empty();
    }, 20s)) << ids << this->Run("for s in " + (this->dir_ / "c/run").string() + "/musterd-node*.sock; do curl -s --unix-socket $s http://x/v1/ping; echo; done").out;
  }
  // After the outage: every node back, and no job requeued.
  void NodesBack() {
    ASSERT_TRUE(WaitFor([&] {
      const Result states = this->Run("sinfo -h -N -o %t");
      std::istringstream lines(states.out);
      int up = 0;
      for (std::string state; std::getline(lines, state);) up += state == "idle" || state == "mix" || state == "alloc";
      return states.rc == 0 && up == 4;
    }, 20s)) << this->Run("sinfo -N").out;
  }
  // Every job running its first run; then `go`, and every one COMPLETED, each part having run once.
  void FinishAll(const Workload& w) {
    const std::string queue = this->Run("squeue -h -o '%i %T'").out;
    for (const std::string& id : w.Ids()) {
      EXPECT_EQ(Field(id, "Restarts"), "0") << "job " << id << "\n" << queue;
    }
    EXPECT_EQ(queue.find("PENDING"), std::string::npos) << queue;
    std::ofstream(this->work_ / "go") << "";
    std::string ids;
    for (const std::string& id : w.Ids()) ids += (ids.empty() ? "" : ",") + id;
    ASSERT_TRUE(WaitFor([&] { return this->Run("squeue -h -j " + ids).out.empty(); }, 60s)) << this->Run("squeue").out;
    const std::string acct = this->Run("sacct -X -n -P -o JobID,State -j " + ids).out;
    std::istringstream lines(acct);
    int n = 0;
    for (std::string line; std::getline(lines, line); ++n) {
      EXPECT_NE(line.find("|COMPLETED"), std::string::npos) << acct;
    }
    // batch, step, gang, the array's 2 tasks, the heterogeneous job's 2 components
    EXPECT_EQ(n, 7) << acct;
    EXPECT_EQ(acct.find("NODE_FAIL"), std::string::npos) << acct;
    for (const std::string& name : w.alive) {
      EXPECT_EQ(ReadFile((this->work_ / (name + ".runs")).string()), "start\n") << name << " ran more than once";
      EXPECT_EQ(ReadFile((this->work_ / (name + ".done")).string()), "done\n") << name;
    }
    for (const char* out : {"step.out", "gang.out"}) {
      const std::string text = ReadFile((this->work_ / out).string());
      EXPECT_NE(text.find("-rc=0"), std::string::npos) << out << ": " << text;
    }
  }
  std::string AgentLog(int i) { return ReadFile((this->dir_ / "c/log" / ("musterd-node" + std::to_string(i) + ".log")).string()); }
};
using ControllerOutage = OutageTest<LocalClusterTest>;
using StandbyOutage = OutageTest<StandbyClusterTest>;

TEST_F(ControllerOutage, EveryKindOfJobRunsOnThroughFiveMinutesWithoutIt) {
  Workload w;
  SubmitAll(&w);
  if (HasFatalFailure()) return;
  ASSERT_EQ(kill(std::atoi(Pid("musterctld").c_str()), SIGKILL), 0);
  const int outage = OutageSeconds(300);
  std::cerr << "controller killed; down for " << outage << " s (lease 6 s, kill wait 5 s)\n";
  ASSERT_TRUE(OutageCheck(work_).RideThrough(outage, w.alive));
  for (int i = 1; i <= 4; ++i) {
    EXPECT_NE(AgentLog(i).find("taken for a controller outage, the runs here go on"), std::string::npos) << AgentLog(i);
  }
  Result restart = Sh("setsid " + BinDir() + "/musterctld --conf " + (dir_ / "c/muster.yaml").string() + " >> " +
                      (dir_ / "c/log/musterctld.log").string() + " 2>&1 & echo $! > " + (dir_ / "c/musterctld.pid").string());
  ASSERT_EQ(restart.rc, 0);
  NodesBack();
  const std::string log = ReadFile((dir_ / "c/log/musterctld.log").string());
  EXPECT_EQ(log.find("requeued"), std::string::npos) << log;
  FinishAll(w);
}

// Both controllers of a pair down, well past every timeout; the standby (not the old leader)
// comes back, takes the lease, gives every node time to register and adopts every run.
TEST_F(StandbyOutage, BothControllersDownThenTheStandbyTakesOver) {
  const size_t leader = Leader();
  ASSERT_LT(leader, 2u);
  const size_t standby = 1 - leader;
  Workload w;
  SubmitAll(&w);
  if (HasFatalFailure()) return;
  ASSERT_EQ(kill(PidOf(standby), SIGKILL), 0);
  ASSERT_EQ(kill(PidOf(leader), SIGKILL), 0);
  const int outage = OutageSeconds(300) / 5;  // a fifth of the long outage: still past every timeout
  std::cerr << "both controllers killed; down for " << outage << " s\n";
  ASSERT_TRUE(OutageCheck(work_).RideThrough(outage, w.alive));
  Restart(standby);
  ASSERT_TRUE(WaitFor([&] { return Role(standby) == "leader"; }, 20s)) << LogOf(standby);
  NodesBack();
  EXPECT_EQ(LogOf(standby).find("requeued"), std::string::npos) << LogOf(standby);
  FinishAll(w);
}

using LocalCluster = LocalClusterTest;

// A job that ignores SIGTERM past its time limit is killed and ends TIMEOUT.
TEST_F(LocalCluster, TimeLimitEndsInTimeout) {
  const int64_t id = Submit("-t 1 --wrap 'trap \"\" TERM; sleep 300'");  // ignores SIGTERM: SIGKILL follows
  ASSERT_TRUE(WaitState(id, "RUNNING"));
  ASSERT_TRUE(WaitState(id, "TIMEOUT", 80s)) << State(id);
  Result j = Run("scontrol show job " + std::to_string(id));
  EXPECT_NE(j.out.find("JobState=TIMEOUT"), std::string::npos) << j.out;
}

}  // namespace
