// The fault suite: each finding of the fault and hostile-user review reproduced on a
// real local cluster, as a regression test. Label "integration" in CTest.
#include "local_cluster_test_util.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#ifndef MUSTER_SOURCE_DIR  // (CMake defines it; the presets build in <source>/build/<preset>)
#define MUSTER_SOURCE_DIR MUSTER_BIN_DIR "/../.."
#endif

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

class Faults : public LocalClusterTest {
 protected:
  // kill -9 of the controller, and a new one started on the same files.
  void KillController() { ASSERT_EQ(kill(std::atoi(Pid("musterctld").c_str()), SIGKILL), 0); }
  void StartController() {
    Result restart = Sh("setsid " + BinDir() + "/musterctld --conf " +
                        (dir_ / "c/muster.yaml").string() + " >> " + (dir_ / "c/log/musterctld.log").string() +
                        " 2>&1 & echo $! > " + (dir_ / "c/musterctld.pid").string());
    ASSERT_EQ(restart.rc, 0);
    ASSERT_TRUE(WaitFor([&] { return Run("squeue").rc == 0; }, 10s));
  }
  std::string Field(int64_t id, const std::string& key) {
    const std::string out = Run("scontrol show job " + std::to_string(id)).out;
    const size_t at = out.find(" " + key + "=");
    if (at == std::string::npos) return "";
    const size_t from = at + key.size() + 2;
    return out.substr(from, out.find_first_of(" \n", from) - from);
  }
  bool NoNodeDrained() { return Run("sinfo -h -R").out.empty(); }
  pid_t AgentPid(const std::string& node) { return std::atoi(Pid("musterd-" + node).c_str()); }
  void StartAgent(const std::string& node) {
    Result r = Sh("setsid " + BinDir() + "/musterd --conf " + (dir_ / "c/muster.yaml").string() +
                  " --node " + node + " --end-jobs-on-stop >> " + (dir_ / "c/log").string() + "/musterd-" + node +
                  ".log 2>&1 & echo $! > " + (dir_ / "c").string() + "/musterd-" + node + ".pid");
    ASSERT_EQ(r.rc, 0);
  }
  std::string AgentLog(const std::string& node) { return ReadFile((dir_ / "c/log").string() + "/musterd-" + node + ".log"); }
  std::string Testdata(const std::string& f) { return std::string(MUSTER_SOURCE_DIR) + "/tests/testdata/" + f; }
  // One raw HTTP request over a Unix socket as `user` ("" = the cluster's owner): {status, body}.
  std::pair<std::string, std::string> Http(const std::string& user, const std::string& socket, const std::string& method,
                                           const std::string& path, const std::string& body = "") {
    const std::string file = (work_ / ("body." + std::to_string(++bodies_))).string();
    { std::ofstream(file) << body; }
    fs::permissions(file, fs::perms::all);
    const std::string cmd = "python3 " + Testdata("http_unix.py") + " " + socket + " " + method + " '" + path + "' " + file;
    Result r = user.empty() ? Run(cmd) : RunAs(user, cmd);
    const size_t nl = r.out.find('\n');
    return {r.out.substr(0, nl), nl == std::string::npos ? "" : r.out.substr(nl + 1)};
  }
  // A listener (tests/testdata/unix_listener.py) as root, stopped by the fixture.
  void Listen(const std::string& path, const std::string& mode, const std::string& log) {
    const std::string ready = path + ".ready";
    Result r = Sh("python3 " + Testdata("unix_listener.py") + " " + path + " " + mode + " " + ready + " " + log +
                  " >/dev/null 2>&1 & echo $!");
    listeners_.push_back(std::atoi(r.out.c_str()));
    ASSERT_TRUE(WaitFor([&] { return fs::exists(ready); }, 10s));
  }
  void TearDown() override {
    for (pid_t p : listeners_) {
      kill(p, SIGKILL);
      WaitFor([&] { return Dead(p); }, 5s);
    }
    LocalClusterTest::TearDown();
  }
  int bodies_ = 0;
  std::vector<pid_t> listeners_;
};

// Finding 2: one user's bad path drained every node. Slurm fails the job (JobLaunchFailure,
// ExitCode 0:53) and leaves the node alone; a working directory that cannot be entered is not
// fatal when the output can be opened elsewhere: the job runs in /tmp and is told so.
TEST_F(Faults, AUsersBadPathFailsTheJobAndDrainsNothing) {
  struct Case {
    std::string args;
    std::string detail;
  };
  const std::vector<Case> cases = {
      {"-D /nonexistent", "Could not open stdout file /nonexistent/slurm-"},
      {"-o /root/x", "Could not open stdout file /root/x: Permission denied"},
      {"-e /root/y", "Could not open stderr file /root/y: Permission denied"},
      {"-i /nonexistent/in", "Could not open stdin file /nonexistent/in: No such file or directory"},
  };
  for (const Case& c : cases) {
    Result r = RunAs("nobody", "sbatch --parsable " + c.args + " --wrap true");
    ASSERT_EQ(r.rc, 0) << r.out;
    const int64_t id = std::atoll(r.out.c_str());
    ASSERT_TRUE(WaitState(id, "FAILED")) << c.args << ": " << State(id);
    // scontrol prints a reason's blanks as '_': JobLaunchFailure,_Could_not_open_...
    std::string detail = c.detail;
    for (char& ch : detail) ch = ch == ' ' ? '_' : ch;
    EXPECT_EQ(Field(id, "Reason").rfind("JobLaunchFailure,_" + detail, 0), 0u) << Field(id, "Reason");
    EXPECT_EQ(Field(id, "ExitCode"), "0:53") << c.args;
    EXPECT_EQ(Field(id, "Restarts"), "0") << c.args << ": not bounced to another node";
    EXPECT_TRUE(NoNodeDrained()) << c.args << "\n" << Run("sinfo -R").out;
  }
  // The -e failure is told in the job's stdout, which could be opened.
  EXPECT_TRUE(WaitFor([&] { return Run("cat slurm-*.out").out.find("Could not open stderr file /root/y") != std::string::npos; }, 5s))
      << Run("ls -la; cat slurm-*.out").out;
  // A workdir that cannot be entered, with the output elsewhere: runs in /tmp, as under Slurm.
  const std::string out = (work_ / "pwd.txt").string();
  Result r = RunAs("nobody", "sbatch --parsable -D /nonexistent -o " + out + " --wrap pwd");
  ASSERT_EQ(r.rc, 0) << r.out;
  const int64_t id = std::atoll(r.out.c_str());
  ASSERT_TRUE(WaitState(id, "COMPLETED")) << State(id);
  EXPECT_NE(ReadFile(out).find("error: couldn't chdir to `/nonexistent': No such file or directory: going to /tmp instead\n/tmp\n"),
            std::string::npos)
      << ReadFile(out);
  // And the nodes take the next job at once.
  const int64_t next = Submit("-N 2 --wrap true");
  EXPECT_TRUE(WaitState(next, "COMPLETED")) << State(next);
}

// Finding 1: jobs that ended while the controller was down ran again and were recorded FAILED
// (their node re-registered before its queued exit reports). Now the exits travel with the
// registration: each job completes once, with its own exit code.
TEST_F(Faults, JobsThatEndWhileTheControllerIsDownCompleteOnce) {
  const int64_t plain = Submit("-w node1 --wrap 'touch plain.started; sleep 1; echo run >> plain.runs'");
  const int64_t no_requeue = Submit("-w node2 --no-requeue --wrap 'touch nr.started; sleep 1; echo run >> nr.runs; exit 3'");
  // Really started (RUNNING is said before the node is told).
  ASSERT_TRUE(WaitFor([&] { return fs::exists(work_ / "plain.started") && fs::exists(work_ / "nr.started"); }, 15s));
  KillController();
  // Both end while it is down.
  ASSERT_TRUE(WaitFor([&] { return ReadFile((work_ / "plain.runs").string()) == "run\n" &&
                                   ReadFile((work_ / "nr.runs").string()) == "run\n"; }, 10s));
  // The outage lasts until both agents' heartbeats found the controller gone: they register again
  // when it is back, which is when their queued exits used to be lost.
  for (const char* node : {"node1", "node2"}) {
    ASSERT_TRUE(WaitFor([&] { return AgentLog(node).find("lost the controller") != std::string::npos; }, 15s)) << node;
  }
  StartController();
  for (const char* node : {"node1", "node2"}) {
    EXPECT_TRUE(WaitFor([&] { return Sh("grep -c 'registered with the controller' " + (dir_ / "c/log").string() + "/musterd-" +
                                        node + ".log").out == "2\n"; }, 10s))
        << node << " registered again";
  }
  ASSERT_TRUE(WaitState(plain, "COMPLETED", 20s)) << State(plain);
  ASSERT_TRUE(WaitState(no_requeue, "FAILED", 20s)) << State(no_requeue);
  EXPECT_EQ(Field(plain, "ExitCode"), "0:0");
  EXPECT_EQ(Field(plain, "Restarts"), "0");
  EXPECT_EQ(Field(no_requeue, "ExitCode"), "3:0") << "its own exit, not NODE_FAIL";
  // Never run twice, even once both nodes have run later work (their registrations settled).
  for (const char* node : {"node1", "node2"}) {
    const int64_t later = Submit(std::string("-w ") + node + " -o /dev/null --wrap true");
    ASSERT_TRUE(WaitState(later, "COMPLETED", 20s)) << State(later);
  }
  EXPECT_EQ(ReadFile((work_ / "plain.runs").string()), "run\n");
  EXPECT_EQ(ReadFile((work_ / "nr.runs").string()), "run\n");
}

// Finding 5, first half: restarting an agent killed every job on its node. Its jobs' shepherds
// outlive it, and the agent that comes back adopts them: the same processes run on, and the job
// completes once.
TEST_F(Faults, AnAgentRestartedUnderItsJobsAdoptsThem) {
  const int64_t id = Submit("-w node2 --wrap 'echo $$ > adopt.pid; while [ ! -e adopt.go ]; do sleep 0.1; done; echo done'");
  ASSERT_TRUE(WaitFor([&] { return !ReadFile((work_ / "adopt.pid").string()).empty(); }, 15s));
  const pid_t script = std::atoi(ReadFile((work_ / "adopt.pid").string()).c_str());
  const pid_t agent = AgentPid("node2");
  ASSERT_EQ(kill(agent, SIGKILL), 0);
  ASSERT_TRUE(WaitFor([&] { return Dead(agent); }, 5s));
  EXPECT_FALSE(Dead(script)) << "the job runs on without its agent";
  StartAgent("node2");
  ASSERT_TRUE(WaitFor([&] { return AgentLog("node2").find("adopted from an earlier run") != std::string::npos; }, 10s))
      << AgentLog("node2");
  EXPECT_FALSE(Dead(script)) << "and the agent that came back left it alone";
  EXPECT_EQ(State(id), "RUNNING");
  ASSERT_EQ(Run("touch adopt.go").rc, 0);
  ASSERT_TRUE(WaitState(id, "COMPLETED", 20s)) << State(id);
  EXPECT_EQ(Field(id, "Restarts"), "0");
  EXPECT_EQ(Field(id, "ExitCode"), "0:0");
  EXPECT_EQ(ReadFile((work_ / ("slurm-" + std::to_string(id) + ".out")).string()), "done\n");
}

// Finding 5, second half: after kill -9 of an agent, its job was requeued and ran on a second node
// while the first copy kept running. Now the first copy ends when its node's lease runs out, and
// the controller gives the job up only after that: the second run starts after the first one's
// last sign of life.
TEST_F(Faults, AJobNeverRunsOnTwoNodesAtOnce) {
  const std::string log = (work_ / "twice.log").string();
  const int64_t id = Submit("--gres=gpu:4 --wrap 'echo start ${SLURM_RESTART_COUNT:-0} $(date +%s%N) >> twice.log; "
                            "while true; do echo beat ${SLURM_RESTART_COUNT:-0} $(date +%s%N) >> twice.log; sleep 0.1; done'");
  ASSERT_TRUE(WaitFor([&] { return ReadFile(log).find("start 0") != std::string::npos; }, 15s));
  const std::string first_host = Trim(Run("squeue -h -j " + std::to_string(id) + " -o %N").out);
  ASSERT_TRUE(first_host == "node1" || first_host == "node2") << first_host;
  ASSERT_EQ(kill(AgentPid(first_host), SIGKILL), 0);  // and it stays dead
  ASSERT_TRUE(WaitFor([&] { return ReadFile(log).find("start 1") != std::string::npos; }, 60s)) << ReadFile(log);
  EXPECT_EQ(Trim(Run("squeue -h -j " + std::to_string(id) + " -o %N").out), first_host == "node1" ? "node2" : "node1");
  // Every line of run 0 came before run 1 began.
  std::istringstream lines(ReadFile(log));
  int64_t last_beat0 = 0, start1 = 0;
  for (std::string word, line; std::getline(lines, line);) {
    std::istringstream f(line);
    int run = -1;
    int64_t when = 0;
    f >> word >> run >> when;
    if (run == 0) last_beat0 = std::max(last_beat0, when);
    if (word == "start" && run == 1) start1 = when;
  }
  ASSERT_GT(start1, 0);
  EXPECT_LT(last_beat0, start1) << ReadFile(log);
  // And nothing of run 0 came after, while run 1 beat twice more.
  const auto beats1 = [&] {
    const std::string text = ReadFile(log);
    size_t n = 0;
    for (size_t at = text.find("beat 1 "); at != std::string::npos; at = text.find("beat 1 ", at + 1)) ++n;
    return n;
  };
  const size_t beats_then = beats1();
  ASSERT_TRUE(WaitFor([&] { return beats1() >= beats_then + 2; }, 10s)) << ReadFile(log);
  std::string after = ReadFile(log);
  size_t last0 = after.rfind("beat 0 ");
  size_t first1 = after.find("start 1 ");
  EXPECT_LT(last0, first1) << after;
  EXPECT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
}

// Issue 46: a launch its node refused (the node's fault: here a file stands where the job's script
// directory goes) never started. With controller.launch_failure: requeue the job waits, then runs
// on the other node, and neither scontrol (Restarts=0) nor its script (no SLURM_RESTART_COUNT)
// sees a restart, though the run is numbered on (run 1). Requeued after it started, it restarts:
// Restarts=1, SLURM_RESTART_COUNT=1.
TEST_F(Faults, ALaunchTheNodeRefusedIsNotARestart) {
  const std::string conf_path = (dir_ / "c/muster.yaml").string();
  std::string conf = ReadFile(conf_path);
  const size_t controller = conf.find("controller:\n");
  ASSERT_NE(controller, std::string::npos) << conf;
  conf.insert(controller + std::string("controller:\n").size(), "  launch_failure: requeue\n");
  { std::ofstream(conf_path, std::ios::trunc) << conf; }
  ASSERT_TRUE(RestartControllerWith(""));
  // node2 is kept busy, so that the job goes to node1 first.
  const int64_t holder = Submit("-w node2 --gres=gpu:4 --wrap 'sleep 300'");
  ASSERT_TRUE(WaitState(holder, "RUNNING")) << State(holder);
  // node1's script directory (muster up puts it under /dev/shm when it can, else in the spool).
  std::string scripts = ScriptDirIn(conf);
  if (scripts.empty()) scripts = (dir_ / "c/spool").string();
  const int64_t next = holder + 1;  // ids are dense
  const std::string blocker = scripts + "/node1/job" + std::to_string(next);
  { std::ofstream(blocker) << "in the way\n"; }
  ASSERT_TRUE(fs::is_regular_file(blocker)) << blocker;
  const std::string log = (work_ / "restarts.log").string();
  const int64_t id = Submit("--gres=gpu:4 --wrap 'echo run ${SLURM_RESTART_COUNT:-unset} >> " + log + "; sleep 300'");
  ASSERT_EQ(id, next) << "the blocker is named for job " << next;
  ASSERT_TRUE(WaitFor([&] { return Run("sinfo -h -R").out.find("launch failed") != std::string::npos; }, 15s))
      << Run("sinfo -R").out << Run("scontrol show job " + std::to_string(id)).out;
  fs::remove(blocker);
  EXPECT_EQ(State(id), "PENDING");
  EXPECT_EQ(Field(id, "Restarts"), "0") << Run("scontrol show job " + std::to_string(id)).out;
  EXPECT_EQ(Field(id, "Requeue"), "1");
  ASSERT_EQ(Run("scancel " + std::to_string(holder)).rc, 0);
  ASSERT_TRUE(WaitFor([&] { return ReadFile(log) == "run unset\n"; }, 20s))
      << ReadFile(log) << Run("scontrol show job " + std::to_string(id)).out;
  EXPECT_EQ(Trim(Run("squeue -h -j " + std::to_string(id) + " -o %N").out), "node2");
  EXPECT_EQ(Field(id, "Restarts"), "0");
  // The record keeps both counts: run 1 now, after one lost launch.
  const std::string json = Run("scontrol --json show job " + std::to_string(id)).out;
  EXPECT_NE(json.find("\"restart_count\": 1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"lost_launches\": 1"), std::string::npos) << json;
  // A requeue of the run that started is a restart.
  ASSERT_EQ(Run("scontrol requeue " + std::to_string(id)).rc, 0);
  ASSERT_TRUE(WaitFor([&] { return ReadFile(log) == "run unset\nrun 1\n"; }, 30s))
      << ReadFile(log) << Run("scontrol show job " + std::to_string(id)).out;
  EXPECT_EQ(Field(id, "Restarts"), "1");
  EXPECT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
}

// Finding 3: POST /v1/policy with `fields` nested 10^5 deep (a 200 KB body) overflowed the
// controller's stack before the admin check. Now: 403 for a user before the body is read, 400 for
// an admin before anything recursive touches it; the controller serves on.
TEST_F(Faults, ADeeplyNestedRequestCrashesNothing) {
  const std::string ctld = (dir_ / "c/run/ctld.sock").string();
  const std::string deep = R"({"verb":"add","entity":"account","name":"x","fields":)" + std::string(100000, '[') +
                           std::string(100000, ']') + "}";
  auto [status, body] = Http("nobody", ctld, "POST", "/v1/policy", deep);
  EXPECT_EQ(status, "403") << body;
  std::tie(status, body) = Http("", ctld, "POST", "/v1/policy", deep);
  EXPECT_EQ(status, "400") << body;
  EXPECT_NE(body.find("nests deeper than 32 levels"), std::string::npos) << body;
  std::tie(status, body) = Http("nobody", ctld, "POST", "/v1/jobs", R"({"resource_args": [], "script": "#!/bin/sh\n", "nice": 1e300})");
  EXPECT_EQ(status, "400") << body;
  EXPECT_EQ(Run("squeue").rc, 0) << "still serving";
  EXPECT_EQ(kill(std::atoi(Pid("musterctld").c_str()), 0), 0) << "still running";
}

// Finding 4: the root agent connected wherever a user's step request pointed (a root-only socket
// got bytes from uid 0), with a blocking connect on one of its two request threads (a socket that
// never accepts wedged it: scancel took 10 s, the node was drained). Now the connect is the user's,
// bounded, and off the request threads.
TEST_F(Faults, AStepRequestNeitherReachesForRootNorWedgesTheAgent) {
  const fs::path hidden = dir_ / "rootonly";
  fs::create_directories(hidden);
  fs::permissions(hidden, fs::perms::owner_all);  // 0700, root's
  const std::string victim = (hidden / "victim.sock").string(), victim_log = (hidden / "victim.log").string();
  Listen(victim, "record", victim_log);
  const std::string wedge = (work_ / "wedge.sock").string();
  Listen(wedge, "wedge", (work_ / "wedge.log").string());
  Result r = RunAs("nobody", "sbatch --parsable -w node1 --wrap \"touch step.started; sleep 300\"");
  ASSERT_EQ(r.rc, 0) << r.out;
  const int64_t id = std::atoll(r.out.c_str());
  ASSERT_TRUE(WaitFor([&] { return fs::exists(work_ / "step.started"); }, 15s));  // the node runs it
  const std::string agent = (dir_ / "c/run/musterd-node1.sock").string();
  for (const std::string& io : {"unix:" + victim, "unix:" + wedge}) {
    for (int step = 0; step < 4; ++step) {  // more than the agent's request threads
      const std::string req = R"({"job_id": )" + std::to_string(id) + R"(, "step_id": )" + std::to_string(100 + step) +
                              R"(, "restart_count": 0, "tasks": [{"procid": 0, "localid": 0}], "ntasks": 1,)"
                              R"( "step_nodes": ["node1"], "argv": ["true"], "io": ")" + io + R"(", "io_key": "k"})";
      auto [status, body] = Http("nobody", agent, "POST", "/v1/step", req);
      EXPECT_TRUE(status == "200" || status == "409") << status << " " << body;
    }
  }
  // The agent answers at once while those steps try (and fail) to connect.
  const auto t0 = std::chrono::steady_clock::now();
  auto [ping, pong] = Http("nobody", agent, "GET", "/v1/ping");
  EXPECT_EQ(ping, "200");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  // Root's scancel is prompt, the job ends CANCELLED, and no node is drained.
  const auto t1 = std::chrono::steady_clock::now();
  ASSERT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
  ASSERT_TRUE(WaitState(id, "CANCELLED", 10s)) << State(id);
  EXPECT_LT(std::chrono::steady_clock::now() - t1, 8s);
  EXPECT_TRUE(NoNodeDrained()) << Run("sinfo -R").out;
  // Nothing reached the root-only socket.
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(ReadFile(victim_log), "") << "uid 0 connected for a user";
}

// Finding 7: the job-end line was appended as root, following a directory symlink swapped in while
// the job ran, into a root-only directory. Now it is written as the user, through no link.
TEST_F(Faults, TheEndingLineFollowsNoLinkTheUserSwappedIn) {
  const fs::path user_dir = work_ / "outs", real = user_dir / "real", secret = dir_ / "secret";
  fs::create_directories(real);
  fs::create_directories(secret);
  fs::permissions(secret, fs::perms::owner_all);  // root-only
  ASSERT_EQ(Sh("chown -R nobody " + user_dir.string()).rc, 0);
  const std::string target = (secret / "slurm.out").string();
  { std::ofstream(target) << "root's file\n"; }
  ASSERT_EQ(Sh("chown nobody " + target).rc, 0);  // the user's name on it, in a dir they cannot enter
  ASSERT_EQ(Sh("su -s /bin/sh nobody -c 'ln -s real " + (user_dir / "out").string() + "'").rc, 0);
  Result r = RunAs("nobody", "sbatch --parsable -w node1 -o " + (user_dir / "out" / "slurm.out").string() +
                                 " --wrap \"echo started; sleep 300\"");
  ASSERT_EQ(r.rc, 0) << r.out;
  const int64_t id = std::atoll(r.out.c_str());
  ASSERT_TRUE(WaitFor([&] { return ReadFile((real / "slurm.out").string()) == "started\n"; }, 15s));
  // The user swaps the directory for a link to the root-only one.
  ASSERT_EQ(Sh("su -s /bin/sh nobody -c 'rm " + (user_dir / "out").string() + " && ln -s " + secret.string() + " " +
               (user_dir / "out").string() + "'").rc, 0);
  ASSERT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
  ASSERT_TRUE(WaitState(id, "CANCELLED")) << State(id);
  EXPECT_TRUE(WaitFor([&] { return AgentLog("node1").find("ending line not written") != std::string::npos; }, 5s))
      << AgentLog("node1");
  EXPECT_EQ(ReadFile(target), "root's file\n");
  EXPECT_EQ(ReadFile((real / "slurm.out").string()), "started\n");
}

// Finding 8: state.db and its WAL were 0644: any local user could read every user's script and
// environment. The store is the owner's alone, in a directory only the owner may enter.
TEST_F(Faults, TheStoreIsReadableByItsOwnerAlone) {
  ASSERT_GT(Submit("--export=ALL,SECRET_TOKEN=x --wrap true"), 0);
  for (const char* f : {"state/state.db", "state/state.db-wal", "state/cluster.key"}) {
    struct stat st;
    ASSERT_EQ(::stat((dir_ / "c" / f).c_str(), &st), 0) << f;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << f;
  }
  struct stat st;
  ASSERT_EQ(::stat((dir_ / "c/state").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_NE(RunAs("nobody", "cat " + (dir_ / "c/state/state.db").string()).rc, 0);
}

}  // namespace
