// The shepherds' spawner: it forks a shepherd for each run it is sent, which answers on the pipe
// it was given and holds the run's lock; it reaps them; it exits when the agent's end closes.
// And a spawner that is not one fails a run's start instead of hanging it.
#include "agent/shepherd_spawner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "agent/shepherd.h"
#include "base/read_file.h"

namespace muster {
namespace {

namespace fs = std::filesystem;

class SpawnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("spawner_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (spawner_ > 0) {
      kill(spawner_, SIGKILL);
      waitpid(spawner_, nullptr, 0);
    }
    fs::remove_all(dir_);
  }
  // SpawnerMain in a child of this test, serving the returned socket (as AskSpawner's peer).
  int StartSpawner() {
    int sv[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
    spawner_ = fork();
    if (spawner_ == 0) {
      // As exec would leave it (the agent's descriptors are close-on-exec): stdio alone.
      dup2(sv[1], 0);
      syscall(SYS_close_range, 3, ~0U, 0);
      _exit(SpawnerMain(0, nullptr));
    }
    close(sv[1]);
    return sv[0];
  }
  fs::path dir_;
  pid_t spawner_ = -1;
};

// Whether `pid` is a zombie or gone (its parent reaped it).
bool Reaped(pid_t pid) { return ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/stat").empty(); }

TEST_F(SpawnerTest, ForksAShepherdThatRunsTheScriptAndIsReaped) {
  const std::string run_dir = (dir_ / "7.0").string();
  fs::create_directories(run_dir);
  ShepherdSpec spec;
  spec.job_id = 7;
  spec.batch = true;
  spec.launch = AgentProgram({"/bin/sh", "-c", "exit 3"});
  spec.launch.stdout_path = "/dev/null";
  spec.lease_file = (dir_ / "lease").string();  // none: no lease yet
  spec.marker = RunMarker(7, 0);
  ASSERT_TRUE(WriteShepherdSpec(run_dir, spec).ok());
  ASSERT_EQ(mkfifo((run_dir + "/ctl").c_str(), 0600), 0);
  const int lock = open((run_dir + "/lock").c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(flock(lock, LOCK_EX | LOCK_NB), 0);
  int out[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);

  const int sock = StartSpawner();
  StatusOr<SpawnedShepherd> spawned = AskSpawner(sock, run_dir, lock, out[1]);
  close(out[1]);
  close(lock);
  ASSERT_TRUE(spawned.ok()) << spawned.status().ToString();
  const pid_t pid = spawned->pid;
  const int pidfd = spawned->pidfd;
  ASSERT_GT(pid, 0);
  ASSERT_GE(pidfd, 0) << "no pidfd came with the pid";

  // It answers as a shepherd does, from a session of its own, then ends with the script.
  std::string line;
  char buf[256];
  for (ssize_t n; line.find('\n') == std::string::npos && (n = read(out[0], buf, sizeof buf)) > 0;) line.append(buf, n);
  EXPECT_EQ(line.rfind("ok ", 0), 0u) << line;
  EXPECT_EQ(getsid(pid), pid);
  pollfd p{pidfd, POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 10000), 1) << "the shepherd did not end with its script";
  std::optional<ShepherdExit> end = ReadShepherdExit(run_dir);
  ASSERT_TRUE(end.has_value());
  EXPECT_TRUE(end->exited);
  EXPECT_EQ(end->exit_code, 3);
  // The spawner reaps it (no zombie left for the agent, which is not its parent).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!Reaped(pid) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polling the condition
  }
  EXPECT_TRUE(Reaped(pid)) << "shepherd " << pid << " left unreaped";
  close(pidfd);
  close(out[0]);

  // The agent's end closes: the spawner exits.
  close(sock);
  int status = 0;
  ASSERT_EQ(waitpid(spawner_, &status, 0), spawner_);
  spawner_ = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(SpawnerTest, OneThatIsNotASpawnerFailsTheStartAndDoesNotHang) {
  ShepherdSpawner spawner("/bin/false");  // exits at once, reading nothing
  const int lock = open((dir_ / "lock").c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
  int out[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  const auto start = std::chrono::steady_clock::now();
  StatusOr<SpawnedShepherd> s = spawner.Spawn((dir_ / "1.0").string(), lock, out[1]);
  EXPECT_FALSE(s.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  close(lock);
  close(out[0]);
  close(out[1]);
}

}  // namespace
}  // namespace muster
