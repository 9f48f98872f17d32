// Multi-host behaviour over real network links that the tests cut (issue 35, point 4): a cluster of
// network namespaces (tests/netns_test_util.h), each agent a "machine" of its own, TCP with tokens
// between them. Needs root and iproute2 (skipped otherwise; required by tools/test.sh).
#include <algorithm>
#include <set>
#include <sstream>

#include "netns_test_util.h"
#include "net/key_file.h"
#include "net/token.h"

namespace muster_test {
namespace {

// One line of beats.log: "start|beat RUN NODE NANOS".
struct Beat {
  std::string word;
  int run = -1;
  std::string node;
  int64_t when = 0;
};

std::vector<Beat> Beats(const std::string& text) {
  std::vector<Beat> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    Beat b;
    if (f >> b.word >> b.run >> b.node >> b.when) out.push_back(b);
  }
  return out;
}

// A job's script (or srun task) that says when it starts and beats every 0.1 s into beats.log in
// the shared work dir, with its run (restart count), its node and the time.
const std::string kBeater =
    "echo start ${SLURM_RESTART_COUNT:-0} $SLURMD_NODENAME $(date +%s%N) >> beats.log; "
    "while true; do echo beat ${SLURM_RESTART_COUNT:-0} $SLURMD_NODENAME $(date +%s%N) >> beats.log; sleep 0.1; done";

class NetnsCluster : public NetnsClusterTest {
 protected:
  std::string BeatsText() { return ReadFile((work_ / "beats.log").string()); }
  static size_t Occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }
  size_t Count(const std::string& what) { return Occurrences(BeatsText(), what); }
  int requests_ = 0;  // request bodies written so far (EveryRefusalHoldsOverTheLinks)
  template <class T>
  using StatusOr = muster::StatusOr<T>;
  // The pids in host's namespace other than its agent's: what of the jobs still runs there.
  std::vector<pid_t> JobPidsIn(const std::string& host, const std::string& agent) {
    std::vector<pid_t> out;
    std::istringstream in(Sh("ip netns pids " + Ns(host)).out);
    for (pid_t p; in >> p;) {
      // Not the agent, nor its shepherds' spawner (muster-shepherd --spawner), which stays with it.
      const std::string cmdline = ReadFile("/proc/" + std::to_string(p) + "/cmdline");
      if (p != PidOf(agent) && cmdline.find("--spawner") == std::string::npos) out.push_back(p);
    }
    return out;
  }
  // Requeued once: Restarts=1 (scontrol), one "requeued" in the leader's log, one record in sacct
  // (which has no restart count of its own; Muster keeps one record per job), running.
  void ExpectRequeuedOnce(int64_t id) {
    EXPECT_EQ(JobField(id, "Restarts"), "1");
    std::string log;
    for (int i = 1; i <= controllers_; ++i) log += LogOf("musterctld" + std::to_string(i));
    const std::string requeued = "JobId=" + std::to_string(id) + ": requeued";
    EXPECT_EQ(Occurrences(log, "JobId=" + std::to_string(id) + ": requeued"), 1u) << log;
    EXPECT_EQ(Trim(Run("sacct -n -X -j " + std::to_string(id) + " -P -o JobID,State").out),
              std::to_string(id) + "|RUNNING");
  }
  // Every agent told its peers: all the other nodes to ask should no controller answer (a node
  // that registered first is told none until its next heartbeat: then it could only take itself
  // for cut off).
  void WaitForPeerLists() {
    for (int i = 1; i <= nodes_; ++i) {
      const std::string agent = "musterd" + std::to_string(i);
      const std::string full = "the controller counts " + std::to_string(nodes_) + " nodes; " + std::to_string(nodes_ - 1) + " peers";
      ASSERT_TRUE(WaitFor([&] { return LogOf(agent).find(full) != std::string::npos; }, 10s)) << LogOf(agent);
    }
  }
  // Run 0's last line came before run 1's first, and no line of run 0 follows run 1's start.
  void ExpectRunsNeverOverlap() {
    const std::vector<Beat> beats = Beats(BeatsText());
    int64_t last0 = 0, first1 = 0;
    for (const Beat& b : beats) {
      if (b.run == 0) last0 = std::max(last0, b.when);
      if (b.run == 1 && (first1 == 0 || b.when < first1)) first1 = b.when;
    }
    ASSERT_GT(first1, 0) << BeatsText();
    EXPECT_LT(last0, first1) << BeatsText();
  }
};

class NetnsTwoControllers : public NetnsCluster {
 protected:
  void SetUp() override {
    controllers_ = 2;
    NetnsCluster::SetUp();
  }
};

// Two controllers with a heartbeat timeout well above a takeover's time: a leader cut off from the
// agents hands over before any node is given up.
class NetnsLeaderCut : public NetnsCluster {
 protected:
  void SetUp() override {
    controllers_ = 2;
    heartbeat_timeout_s_ = 20;
    NetnsCluster::SetUp();
  }
};

// A lease long enough for the agents to hear their peers before it runs out (model/outage.h:
// heartbeats every second, claims after 3 s; 6 s as `muster up` sets it).
class NetnsOutage : public NetnsCluster {
 protected:
  void SetUp() override {
    nodes_ = 3;
    heartbeat_timeout_s_ = 6;
    NetnsCluster::SetUp();
  }
};

class NetnsOutageTwoControllers : public NetnsCluster {
 protected:
  void SetUp() override {
    nodes_ = 3;
    controllers_ = 2;
    heartbeat_timeout_s_ = 6;
    NetnsCluster::SetUp();
  }
};

class NetnsThreeNodes : public NetnsCluster {
 protected:
  void SetUp() override {
    nodes_ = 3;
    NetnsCluster::SetUp();
  }
};

// Two controllers in namespaces of their own, sharing PostgreSQL over its Unix socket: one leads,
// the other stands by, and a job submitted from the login host runs on an agent over TCP.
TEST_F(NetnsTwoControllers, OneLeadsAndAJobRunsOnAnAgent) {
  const int leader = Leader();
  ASSERT_NE(leader, 0);
  EXPECT_EQ(Role(3 - leader), "standby");
  const Result ping = Run("scontrol ping");
  EXPECT_EQ(ping.rc, 0) << ping.out;
  EXPECT_NE(ping.out.find("Slurmctld(primary) at " + Ip("c1") + " is UP"), std::string::npos) << ping.out;
  EXPECT_NE(ping.out.find("Slurmctld(backup) at " + Ip("c2") + " is UP"), std::string::npos) << ping.out;
  const int64_t id = Submit("-N 1 --wrap 'echo ran on $SLURMD_NODENAME > smoke.out'");
  ASSERT_GT(id, 0);
  ASSERT_TRUE(WaitFor([&] { return State(id) == "COMPLETED"; }, 20s)) << State(id);
  const std::string node = Trim(ReadFile((work_ / "smoke.out").string()));
  EXPECT_TRUE(node == "ran on node1" || node == "ran on node2") << node;
  EXPECT_EQ(Squeue(id, "%N"), node.substr(7));
  // The agents registered with their own addresses, over TCP.
  for (int i = 1; i <= nodes_; ++i) {
    EXPECT_NE(LogOf("musterd" + std::to_string(i)).find(" and " + Ip("n" + std::to_string(i)) + ":6818"),
              std::string::npos)
        << LogOf("musterd" + std::to_string(i));
  }
}

// A node's link cut mid-job: DOWN after the heartbeat timeout, the job requeued exactly once and
// run again on the other node, never two runs at once; the link restored, the node comes back idle
// and nothing of the old run is left on it.
TEST_F(NetnsCluster, ANodeCutMidJobIsRequeuedOnceAndItsOldRunEnds) {
  const int64_t id = Submit("--gres=gpu:4 --wrap '" + kBeater + "'");
  ASSERT_TRUE(WaitFor([&] { return Count("start 0 ") == 1; }, 20s)) << BeatsText();
  const std::string first = Squeue(id, "%N");
  ASSERT_TRUE(first == "node1" || first == "node2") << first;
  const std::string host = "n" + first.substr(4), agent = "musterd" + first.substr(4);
  const std::string other = first == "node1" ? "node2" : "node1";
  ASSERT_FALSE(JobPidsIn(host, agent).empty()) << "the job runs in " << host << "'s namespace";

  const auto cut = std::chrono::steady_clock::now();
  CutLink(host);
  ASSERT_TRUE(WaitFor([&] { return NodeState(first).rfind("down", 0) == 0; }, 20s)) << Run("sinfo -N").out;
  const double down_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - cut).count();
  // For the heartbeat timeout's silence: the controller says so. (Counted from the last heartbeat,
  // up to one interval before the cut, in whole seconds: here DOWN came 2.8 s to 3.6 s after it.)
  std::cout << "cut -> DOWN: " << down_s << " s\n";
  EXPECT_NE(LogOf("musterctld1").find("NodeName=" + first + ": not responding for " +
                                      std::to_string(heartbeat_timeout_s_) + " s: set DOWN"),
            std::string::npos)
      << LogOf("musterctld1");
  EXPECT_LE(down_s, heartbeat_timeout_s_ + 3.0) << "DOWN long after the heartbeat timeout";
  ASSERT_TRUE(WaitFor([&] { return Count("start 1 ") == 1; }, 20s)) << BeatsText();
  EXPECT_EQ(Squeue(id, "%N"), other);
  EXPECT_EQ(JobField(id, "Restarts"), "1");
  ExpectRequeuedOnce(id);
  // Run 0 ended on the cut node by itself, with nobody to tell it: its lease ran out.
  ASSERT_TRUE(WaitFor([&] { return JobPidsIn(host, agent).empty(); }, 15s));
  ExpectRunsNeverOverlap();

  RestoreLink(host);
  ASSERT_TRUE(WaitFor([&] { return NodeState(first) == "idle"; }, 20s)) << Run("sinfo -N").out;
  EXPECT_TRUE(JobPidsIn(host, agent).empty());
  const std::string log = LogOf(agent);
  EXPECT_NE(log.find("JobId=" + std::to_string(id) + ": run 0 ended, exit"), std::string::npos) << log;
  EXPECT_NE(log.find("(its lease ran out)"), std::string::npos) << log;
  // So the run was over before the agent heard from the controller again: nothing was left for
  // the controller to name as a stray run in its heartbeat answer.
  EXPECT_EQ(log.find("the controller does not run it here"), std::string::npos) << log;
  // Run 1 beats on, alone, and the job was requeued once only.
  const size_t beats1 = Count("beat 1 ");
  ASSERT_TRUE(WaitFor([&] { return Count("beat 1 ") >= beats1 + 3; }, 10s));
  EXPECT_EQ(Count("start 0 "), 1u);
  EXPECT_EQ(Count("start 1 "), 1u);
  EXPECT_EQ(Count("start 2 "), 0u);
  ExpectRequeuedOnce(id);
  ExpectRunsNeverOverlap();
  EXPECT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
  EXPECT_TRUE(WaitFor([&] { return State(id) == "CANCELLED"; }, 15s)) << State(id);
}

// A gang cut in half: a 2-node job, one of its nodes cut off; the whole job is requeued once (the
// other node's part killed too) and runs again on the two nodes that remain; the link restored,
// nothing of run 0 is left anywhere.
TEST_F(NetnsThreeNodes, AGangCutInHalfIsRequeuedWhole) {
  // (srun's command in double quotes: its $ escaped, for the tasks' shells to expand)
  std::string task;
  for (char c : kBeater) task += c == '$' ? std::string("\\$") : std::string(1, c);
  const int64_t id = Submit("-N 2 --ntasks-per-node=1 --gres=gpu:4 --wrap 'srun sh -c \"" + task + "\"'");
  ASSERT_TRUE(WaitFor([&] { return Count("start 0 ") == 2; }, 20s)) << BeatsText();
  std::set<std::string> run0;
  for (const Beat& b : Beats(BeatsText())) run0.insert(b.node);
  ASSERT_EQ(run0.size(), 2u) << BeatsText();
  const std::string cut_node = *run0.begin(), kept_node = *run0.rbegin();
  const std::string cut_host = "n" + cut_node.substr(4), kept_host = "n" + kept_node.substr(4);
  ASSERT_FALSE(JobPidsIn(kept_host, "musterd" + kept_node.substr(4)).empty());

  CutLink(cut_host);
  ASSERT_TRUE(WaitFor([&] { return Count("start 1 ") == 2; }, 45s)) << BeatsText();
  EXPECT_EQ(NodeState(cut_node).rfind("down", 0), 0u) << Run("sinfo -N").out;
  std::set<std::string> run1;
  for (const Beat& b : Beats(BeatsText())) {
    if (b.run == 1) run1.insert(b.node);
  }
  EXPECT_EQ(run1.count(cut_node), 0u) << BeatsText();
  EXPECT_EQ(run1.size(), 2u) << BeatsText();
  EXPECT_EQ(JobField(id, "Restarts"), "1");
  // Both halves of run 0 are gone: the cut one by its lease (srun with it), and with srun gone the
  // other node's agent ended its part of the step (agent/step_runner.cc), before the requeue.
  ASSERT_TRUE(WaitFor([&] { return JobPidsIn(cut_host, "musterd" + cut_node.substr(4)).empty(); }, 15s));
  const std::string cut_log = LogOf("musterd" + cut_node.substr(4));
  EXPECT_NE(cut_log.find("JobId=" + std::to_string(id) + ": run 0 ended, exit"), std::string::npos) << cut_log;
  EXPECT_NE(cut_log.find("(its lease ran out)"), std::string::npos) << cut_log;
  int64_t last0[2] = {0, 0};
  for (const Beat& b : Beats(BeatsText())) {
    if (b.run == 0) last0[b.node == cut_node ? 0 : 1] = std::max(last0[b.node == cut_node ? 0 : 1], b.when);
  }
  EXPECT_LT(last0[1], last0[0] + 2'000'000'000) << "the kept half outlived the cut one by 2 s or more\n" << BeatsText();
  ExpectRunsNeverOverlap();

  RestoreLink(cut_host);
  ASSERT_TRUE(WaitFor([&] { return NodeState(cut_node) == "idle"; }, 20s)) << Run("sinfo -N").out;
  EXPECT_TRUE(JobPidsIn(cut_host, "musterd" + cut_node.substr(4)).empty());
  const size_t beats1 = Count("beat 1 ");
  ASSERT_TRUE(WaitFor([&] { return Count("beat 1 ") >= beats1 + 6; }, 10s));
  EXPECT_EQ(Count("start 1 "), 2u);
  EXPECT_EQ(Count("start 2 "), 0u);
  EXPECT_EQ(JobField(id, "Restarts"), "1");
  ExpectRequeuedOnce(id);
  ExpectRunsNeverOverlap();
  EXPECT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
  EXPECT_TRUE(WaitFor([&] { return State(id) == "CANCELLED"; }, 15s)) << State(id);
}

// The leader cut off from the agents (and the other controller, and the login host) but not from
// the database (reached over its Unix socket): the agents, timing out on it, tell the standby so;
// the standby reports it through the store; the leader, hearing no agent, hands the lease over and
// starts again as a standby (fenced: its token is refused from then on). The job runs on, never
// requeued; the cluster goes on under the new leader within 10 s of the cut.
TEST_F(NetnsLeaderCut, ALeaderCutOffFromTheAgentsHandsOverAndTheJobsRunOn) {
  const int leader = Leader();
  ASSERT_NE(leader, 0);
  const int standby = 3 - leader;
  const std::string old_host = "c" + std::to_string(leader);
  const std::string old_log = "musterctld" + std::to_string(leader), new_log = "musterctld" + std::to_string(standby);
  const pid_t old_pid = PidOf(old_log);
  const int64_t id = Submit("--gres=gpu:4 --wrap '" + kBeater + "'");
  ASSERT_TRUE(WaitFor([&] { return Count("start 0 ") == 1; }, 20s)) << BeatsText();

  const auto cut = std::chrono::steady_clock::now();
  CutLink(old_host);
  ASSERT_TRUE(WaitFor([&] { return Role(standby) == "leader"; }, 20s)) << LogOf(new_log) << LogOf(old_log);
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - cut).count();
  std::cout << "leader cut off from the agents -> the standby leads: " << took_s << " s\n";
  EXPECT_LT(took_s, 10.0);
  const std::string old_addr = Ip(old_host) + ":6817", new_addr = Ip("c" + std::to_string(standby)) + ":6817";
  // Why, as each said it.
  EXPECT_TRUE(WaitFor([&] { return LogOf(old_log).find("starting again as a standby") != std::string::npos; }, 10s))
      << LogOf(old_log);
  const std::string said = LogOf(old_log);
  // (One agent or both: whichever had timed out on the cut leader by the standby's last report.)
  const size_t handing = said.find("handing the lease to " + new_addr + ": ");
  ASSERT_NE(handing, std::string::npos) << said;
  const std::string why = said.substr(handing, said.find('\n', handing) - handing);
  EXPECT_TRUE(why.find(": 1 agent(s) reach it") != std::string::npos || why.find(": 2 agent(s) reach it") != std::string::npos)
      << why;
  EXPECT_NE(why.find(" agent(s) reach it and say they cannot reach this controller, which heard 0 in the last 3 s"),
            std::string::npos)
      << why;
  EXPECT_NE(said.find("no longer leading: handed the lease to " + new_addr), std::string::npos) << said;
  EXPECT_EQ(PidOf(old_log), old_pid);
  EXPECT_FALSE(Dead(old_pid)) << "started again in the same process";
  EXPECT_EQ(said.find("not responding"), std::string::npos) << "the cut-off leader gave up no node\n" << said;
  const std::string took = LogOf(new_log);
  EXPECT_NE(took.find("agent(s) reached this standby"), std::string::npos) << took;
  EXPECT_NE(took.find("took over from " + old_addr), std::string::npos) << took;

  // The job runs on where it ran, never requeued; the nodes stay up; a new job runs.
  const size_t beats = Count("beat 0 ");
  ASSERT_TRUE(WaitFor([&] { return Count("beat 0 ") >= beats + 5; }, 10s)) << BeatsText();
  EXPECT_EQ(State(id), "RUNNING");
  EXPECT_EQ(JobField(id, "Restarts"), "0");
  EXPECT_EQ(Count("start 1 "), 0u);
  EXPECT_EQ(Trim(Run("sinfo -h -N -o '%N %t' | grep -c -v -E ' (idle|alloc|mix)$'").out), "0")
      << Run("sinfo -N").out;
  const int64_t after = Submit("--wrap 'echo after > after.out'");
  ASSERT_TRUE(WaitFor([&] { return State(after) == "COMPLETED"; }, 20s)) << State(after);

  // Fenced: the store refuses the old leader's token (its lease was taken at a higher one), and
  // the agents follow the new leader's (orders with the old token are refused: agent_follow_test).
  const Result ping = Run("scontrol ping");
  EXPECT_NE(ping.out.find("at " + Ip(old_host) + " is DOWN"), std::string::npos) << ping.out;
  RestoreLink(old_host);
  ASSERT_TRUE(WaitFor([&] { return Role(leader) == "standby"; }, 15s)) << LogOf(old_log);
  EXPECT_EQ(Role(standby), "leader");
  EXPECT_EQ(State(id), "RUNNING");
  EXPECT_EQ(JobField(id, "Restarts"), "0");
  EXPECT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
  EXPECT_TRUE(WaitFor([&] { return State(id) == "CANCELLED"; }, 15s)) << State(id);
}

// Between hosts, no one gets in: each refusal tried from the login host over the namespaces' links
// (TLS, the cluster's CA trusted), with tokens minted here from the cluster key (as a thief who
// captured one, or forged one, would present them), and plain HTTP against the TLS listeners.
// Nothing refused changes anything: the job runs on, untouched.
TEST_F(NetnsCluster, EveryRefusalHoldsOverTheLinks) {
  const int64_t id = Submit("-w node1 --gres=gpu:4 --wrap '" + kBeater + "'");
  ASSERT_TRUE(WaitFor([&] { return Count("start 0 ") == 1; }, 20s)) << BeatsText();
  StatusOr<std::string> key = muster::LoadClusterKey((dir_ / "state" / "cluster.key").string(), false);
  ASSERT_TRUE(key.ok()) << key.status().message();
  const muster::TokenAuthority authority(*key);
  const int64_t now = std::time(nullptr);
  const std::string ctld = "https://" + Ip("c1") + ":6817", agent = "https://" + Ip("n1") + ":6818";
  const std::string sid = std::to_string(id);
  // One request from the login host: {HTTP status, body}; status 0 when nothing answered.
  const auto curl = [&](const std::string& method, const std::string& url, const std::string& token,
                        const std::string& body = "") -> std::pair<int, std::string> {
    const std::string file = (work_ / ("req." + std::to_string(++requests_))).string();
    std::ofstream(file) << body;
    Result r = Run("curl -s -m 5 --cacert " + CaFile() + " -w '\\n%{http_code}' -X " + method + (token.empty() ? "" : " -H 'Authorization: Muster " + token + "'") +
                   (body.empty() ? "" : " -H 'Content-Type: application/json' --data-binary @" + file) + " " + url);
    const size_t nl = r.out.rfind('\n');
    return {std::atoi(r.out.substr(nl + 1).c_str()), r.out.substr(0, nl)};
  };
  const auto expect = [&](std::pair<int, std::string> got, int status, const std::string& says, const char* what) {
    EXPECT_EQ(got.first, status) << what << ": " << got.second;
    EXPECT_NE(got.second.find(says), std::string::npos) << what << ": " << got.second;
  };

  // A replayed token: root's, used once on its connection; on a connection of its own, refused.
  const std::string captured = authority.Mint(0, 0, now, 300, muster::kControllerAudience);
  EXPECT_EQ(curl("GET", ctld + "/v1/jobs", captured).first, 200);
  expect(curl("DELETE", ctld + "/v1/jobs/" + sid, captured), 401, "token already used", "replayed at the controller");
  const std::string at_agent = authority.Mint(0, 0, now, 300, muster::NodeAudience("node1"));
  EXPECT_EQ(curl("GET", agent + "/metrics", at_agent).first, 200);
  expect(curl("POST", agent + "/v1/signal", at_agent, "{\"job_id\":" + sid + ",\"signal\":9,\"kill_after\":0,\"why\":\"cancel\"}"),
         401, "token already used", "replayed at an agent");
  // A forged one: root's payload under another key's signature.
  const std::string forged = muster::TokenAuthority(std::string(32, 'f')).Mint(0, 0, now, 300, muster::kControllerAudience);
  expect(curl("DELETE", ctld + "/v1/jobs/" + sid, forged), 401, "bad token signature", "forged");
  // An expired one.
  const std::string old = authority.Mint(0, 0, now - 1000, 300, muster::kControllerAudience);
  expect(curl("DELETE", ctld + "/v1/jobs/" + sid, old), 401, "token expired", "expired");
  // None at all.
  expect(curl("DELETE", ctld + "/v1/jobs/" + sid, ""), 401, "authentication required", "no token");
  // A user's token (nobody's) at an agent's order routes: 403, the controller's alone.
  const std::string signal = "{\"job_id\":" + sid + ",\"signal\":9,\"kill_after\":0,\"why\":\"cancel\"}";
  expect(curl("POST", agent + "/v1/signal", authority.Mint(65534, 65534, now, 300, muster::NodeAudience("node1")), signal),
         403, "only the controller", "a user's token at /v1/signal");
  expect(curl("POST", agent + "/v1/launch", authority.Mint(65534, 65534, now, 300, muster::NodeAudience("node1")),
              "{\"job\":{}}"),
         403, "only the controller", "a user's token at /v1/launch");
  // A user's token for the controller, taken to an agent (and one for node2 taken to node1): 401.
  expect(curl("POST", agent + "/v1/signal-step", authority.Mint(65534, 65534, now, 300, muster::kControllerAudience),
              "{\"job_id\":" + sid + ",\"step_id\":0,\"signal\":9}"),
         401, "token for controller, not for node:node1", "a controller's token at an agent");
  expect(curl("POST", agent + "/v1/signal-step", authority.Mint(0, 0, now, 300, muster::NodeAudience("node2")),
              "{\"job_id\":" + sid + ",\"step_id\":0,\"signal\":9}"),
         401, "token for node:node2, not for node:node1", "node2's token at node1");
  // A plain client against the TLS listeners: no HTTP answer at all (curl's code 000), with a
  // valid token or without; and a TLS client that does not trust the cluster's CA is refused too.
  const std::string plain_ctld = "http://" + Ip("c1") + ":6817", plain_agent = "http://" + Ip("n1") + ":6818";
  for (const std::string& url : {plain_ctld + "/v1/ping", plain_ctld + "/v1/jobs", plain_agent + "/metrics"}) {
    Result r = Run("curl -s -m 5 -o /dev/null -w '%{http_code}' -H 'Authorization: Muster " +
                   authority.Mint(0, 0, now, 300, muster::kControllerAudience) + "' " + url);
    EXPECT_EQ(Trim(r.out), "000") << url << ": a plain request was answered";
  }
  Result untrusted = Run("curl -s -m 5 -o /dev/null -w '%{http_code}' " + ctld + "/v1/ping");
  EXPECT_EQ(Trim(untrusted.out), "000") << "a client without the cluster's CA";
  EXPECT_NE(untrusted.rc, 0);
  // nobody may not cancel root's job with a valid token of its own either.
  expect(curl("DELETE", ctld + "/v1/jobs/" + sid, authority.Mint(65534, 65534, now, 300, muster::kControllerAudience)), 403,
         "", "another user's job");

  const size_t beats = Count("beat 0 ");
  ASSERT_TRUE(WaitFor([&] { return Count("beat 0 ") >= beats + 3; }, 10s)) << "the job runs on";
  EXPECT_EQ(State(id), "RUNNING");
  EXPECT_EQ(JobField(id, "Restarts"), "0");
  EXPECT_EQ(Run("scancel " + sid).rc, 0);
  EXPECT_TRUE(WaitFor([&] { return State(id) == "CANCELLED"; }, 15s)) << State(id);
}

// The controller cut off from every agent (issue 46): each agent hears that its peers lost it too
// and renews its own lease, the controller takes the silence of all its nodes for its own fault,
// and nothing is requeued, though the cut outlasts the lease, the kill wait and the margin twice
// over (6 + 2 + 5 s). The link restored, the nodes answer again, the job ran on and was never
// requeued.
TEST_F(NetnsOutage, AControllerCutOffFromEveryAgentRequeuesNothing) {
  ASSERT_NO_FATAL_FAILURE(WaitForPeerLists());
  const int64_t id = Submit("--gres=gpu:4 --wrap '" + kBeater + "'");
  ASSERT_TRUE(WaitFor([&] { return Count("start 0 ") == 1; }, 20s)) << BeatsText();
  const std::string node = Squeue(id, "%N");
  CutLink("c1");
  // Every agent takes it for a controller outage (none is cut off alone).
  for (int i = 1; i <= nodes_; ++i) {
    const std::string agent = "musterd" + std::to_string(i);
    ASSERT_TRUE(WaitFor([&] { return LogOf(agent).find("taken for a controller outage") != std::string::npos; }, 20s))
        << LogOf(agent);
  }
  ASSERT_TRUE(WaitFor([&] { return LogOf("musterctld1").find("stopped answering at once") != std::string::npos; }, 20s))
      << LogOf("musterctld1");
  // Well past the lease, the kill wait and the margin: the job beats on the whole time.
  const auto cut = std::chrono::steady_clock::now();
  size_t beats = Count("beat 0 ");
  while (std::chrono::steady_clock::now() - cut < 26s) {
    ASSERT_TRUE(WaitFor([&] { return Count("beat 0 ") >= beats + 5; }, 5s)) << "the job stopped beating\n" << BeatsText();
    beats = Count("beat 0 ");
  }
  RestoreLink("c1");
  ASSERT_TRUE(WaitFor([&] { return LogOf("musterctld1").find("the nodes answer again") != std::string::npos; }, 20s))
      << LogOf("musterctld1");
  ASSERT_TRUE(WaitFor([&] { return Trim(Run("sinfo -h -N -o '%N %t' | grep -c -v -E ' (idle|alloc|mix)$'").out) == "0"; }, 20s))
      << Run("sinfo -N").out;
  EXPECT_EQ(State(id), "RUNNING");
  EXPECT_EQ(Squeue(id, "%N"), node);
  EXPECT_EQ(JobField(id, "Restarts"), "0");
  EXPECT_EQ(LogOf("musterctld1").find("requeued"), std::string::npos) << LogOf("musterctld1");
  EXPECT_EQ(Count("start 1 "), 0u);
  const size_t after = Count("beat 0 ");
  ASSERT_TRUE(WaitFor([&] { return Count("beat 0 ") >= after + 5; }, 10s)) << BeatsText();
  EXPECT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
  EXPECT_TRUE(WaitFor([&] { return State(id) == "CANCELLED"; }, 15s)) << State(id);
}

// A node cut off alone while the leader is killed and the standby takes over: the cut node hears
// no peer (its link is down), so its runs end with its lease; the new leader gives every node a
// lease to register, then requeues the cut node's job once, and the two runs never overlap.
TEST_F(NetnsOutageTwoControllers, ANodeCutOffAloneWhileTheStandbyTakesOverIsRequeuedOnce) {
  const int leader = Leader();
  ASSERT_NE(leader, 0);
  const int standby = 3 - leader;
  ASSERT_NO_FATAL_FAILURE(WaitForPeerLists());
  const int64_t id = Submit("--gres=gpu:4 --wrap '" + kBeater + "'");
  ASSERT_TRUE(WaitFor([&] { return Count("start 0 ") == 1; }, 20s)) << BeatsText();
  const std::string first = Squeue(id, "%N");
  const std::string host = "n" + first.substr(4), agent = "musterd" + first.substr(4);
  CutLink(host);
  ASSERT_EQ(kill(PidOf("musterctld" + std::to_string(leader)), SIGKILL), 0);
  ASSERT_TRUE(WaitFor([&] { return Role(standby) == "leader"; }, 20s)) << LogOf("musterctld" + std::to_string(standby));
  ASSERT_TRUE(WaitFor([&] { return Count("start 1 ") == 1; }, 45s)) << BeatsText();
  EXPECT_NE(Squeue(id, "%N"), first);
  EXPECT_NE(LogOf(agent).find("this node is taken for cut off"), std::string::npos) << LogOf(agent);
  EXPECT_EQ(LogOf(agent).find("taken for a controller outage"), std::string::npos) << LogOf(agent);
  ASSERT_TRUE(WaitFor([&] { return JobPidsIn(host, agent).empty(); }, 15s));
  ExpectRequeuedOnce(id);
  ExpectRunsNeverOverlap();
  RestoreLink(host);
  ASSERT_TRUE(WaitFor([&] { return NodeState(first) == "idle"; }, 20s)) << Run("sinfo -N").out;
  const size_t beats1 = Count("beat 1 ");
  ASSERT_TRUE(WaitFor([&] { return Count("beat 1 ") >= beats1 + 3; }, 10s));
  EXPECT_EQ(Count("start 0 "), 1u);
  EXPECT_EQ(Count("start 2 "), 0u);
  ExpectRequeuedOnce(id);
  ExpectRunsNeverOverlap();
  EXPECT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
  EXPECT_TRUE(WaitFor([&] { return State(id) == "CANCELLED"; }, 15s)) << State(id);
}

}  // namespace
}  // namespace muster_test
