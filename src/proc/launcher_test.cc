#include "proc/launcher.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/test_util.h"

namespace muster {
namespace {

constexpr uint32_t kNobody = 65534;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class LauncherTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = geteuid() == 0;
    if (root_) {
      // The job user must be able to write its output here.
      ASSERT_EQ(chown(dir_.c_str(), kNobody, kNobody), 0);
    }
  }

  // A spec for the job user: nobody when we are root, else ourselves.
  LaunchSpec Spec(std::vector<std::string> argv) const {
    LaunchSpec spec;
    spec.uid = root_ ? kNobody : geteuid();
    spec.gid = root_ ? kNobody : getegid();
    spec.user = root_ ? "nobody" : "";
    spec.allow_root = !root_ && geteuid() == 0;
    spec.workdir = dir_;
    spec.argv = std::move(argv);
    spec.env = {"PATH=/usr/bin:/bin", "HOME=/nonexistent"};
    spec.stdout_path = dir_ + "/out";
    return spec;
  }

  ExitInfo Run(const LaunchSpec& spec) {
    StatusOr<pid_t> pid = Launch(spec);
    EXPECT_TRUE(pid.ok()) << pid.status().ToString();
    if (!pid.ok()) return ExitInfo{};
    return Reap(*pid);
  }

  TempDir tmp_{"muster-launch-test-"};
  const std::string dir_ = tmp_.path();
  bool root_ = false;
};

TEST_F(LauncherTest, RunsWithExactEnvironmentIdentityAndOutputs) {
  LaunchSpec spec = Spec({"sh", "-c", "env | sort; id -u; id -g; id -G; umask; pwd; echo oops >&2; exit 3"});
  spec.env.push_back("ONLY_THIS=1");
  spec.umask = 027;
  spec.stderr_path = dir_ + "/err";
  ExitInfo info = Run(spec);
  EXPECT_TRUE(info.exited);
  EXPECT_EQ(info.exit_code, 3);
  std::string uid = std::to_string(spec.uid), gid = std::to_string(spec.gid);
  // sh adds PWD (and dash nothing else) to what it was given.
  std::string want = "HOME=/nonexistent\nONLY_THIS=1\nPATH=/usr/bin:/bin\nPWD=" + dir_ + "\n" + uid + "\n" + gid +
                     "\n";
  std::string out = ReadAll(dir_ + "/out");
  EXPECT_EQ(out.substr(0, want.size()), want) << out;
  EXPECT_NE(out.find("0027\n" + dir_ + "\n"), std::string::npos) << out;
  EXPECT_EQ(ReadAll(dir_ + "/err"), "oops\n");
  struct stat st;
  ASSERT_EQ(stat((dir_ + "/out").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, spec.uid) << "output created as the job user";
  EXPECT_EQ(st.st_mode & 0777, 0640u) << "0644 under umask 027";
}

// A step's task learns its own pid (SLURM_TASK_PID, as slurmstepd sets it), replacing srun's.
TEST_F(LauncherTest, TaskPidIsTheTasksOwn) {
  LaunchSpec spec = Spec({"sh", "-c", "echo $SLURM_TASK_PID $$"});
  spec.env.push_back("SLURM_TASK_PID=1");
  spec.task_pid_env = true;
  ExitInfo info = Run(spec);
  EXPECT_TRUE(info.exited);
  std::istringstream out(ReadAll(dir_ + "/out"));
  std::string pid, shell;
  out >> pid >> shell;
  EXPECT_EQ(pid, shell) << "the pid the launcher started";
  EXPECT_NE(pid, "1");
}

TEST_F(LauncherTest, StderrDefaultsToStdoutAndStdinIsRead) {
  std::ofstream(dir_ + "/in") << "from stdin\n";
  chmod((dir_ + "/in").c_str(), 0644);
  LaunchSpec spec = Spec({"/bin/sh", "-c", "cat; echo to-err >&2"});
  spec.stdin_path = dir_ + "/in";
  ExitInfo info = Run(spec);
  EXPECT_TRUE(info.exited);
  EXPECT_EQ(ReadAll(dir_ + "/out"), "from stdin\nto-err\n");
}

TEST_F(LauncherTest, PropagatedUmaskAndSoftLimitsApplyAndTruncateReplacesOutput) {
  std::ofstream(dir_ + "/out") << "old content\n";
  LaunchSpec spec = Spec({"/bin/sh", "-c", "umask; ulimit -Sn; ulimit -Sc; env | grep -c RLIMIT; echo $SLURM_UMASK"});
  spec.env.insert(spec.env.end(), {"SLURM_UMASK=0077", "SLURM_RLIMIT_NOFILE=123", "SLURM_RLIMIT_CORE=0",
                                   "SLURM_RLIMIT_BOGUS=5", "SLURM_RLIMIT_AS=x"});
  ASSERT_EQ(chown((dir_ + "/out").c_str(), spec.uid, spec.gid), 0);  // the job user's file
  TakePropagatedLimits(&spec);
  EXPECT_EQ(spec.umask, 077);
  ASSERT_EQ(spec.soft_limits.size(), 2u);
  spec.truncate_stdout = true;
  ExitInfo info = Run(spec);
  EXPECT_TRUE(info.exited);
  EXPECT_EQ(ReadAll(dir_ + "/out"), "0077\n123\n0\n0\n0077\n") << "limits set, RLIMIT variables taken out";
}

TEST_F(LauncherTest, ASoftLimitAboveTheHardOneIsLoweredToIt) {
  struct rlimit hard;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &hard), 0);
  if (hard.rlim_max == RLIM_INFINITY) GTEST_SKIP() << "no hard limit on open files";
  LaunchSpec spec = Spec({"/bin/sh", "-c", "ulimit -Sn"});
  spec.soft_limits = {{RLIMIT_NOFILE, static_cast<uint64_t>(hard.rlim_max) + 1000}};
  ExitInfo info = Run(spec);
  EXPECT_TRUE(info.exited);
  EXPECT_EQ(ReadAll(dir_ + "/out"), std::to_string(hard.rlim_max) + "\n");
}

TEST(PropagatedLimitsEnvironmentTest, NamesThisProcesssUmaskAndLimits) {
  const mode_t old = umask(023);
  std::vector<std::string> env = PropagatedLimitsEnvironment();
  umask(old);
  ASSERT_FALSE(env.empty());
  EXPECT_EQ(env[0], "SLURM_UMASK=0023");
  struct rlimit nofile;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &nofile), 0);
  EXPECT_NE(std::find(env.begin(), env.end(), "SLURM_RLIMIT_NOFILE=" + std::to_string(nofile.rlim_cur)), env.end());
  EXPECT_EQ(env.size(), 11u);
}

TEST_F(LauncherTest, RefusesRootUnlessAllowed) {
  LaunchSpec spec = Spec({"/bin/true"});
  spec.uid = 0;
  spec.gid = 0;
  spec.allow_root = false;
  StatusOr<pid_t> pid = Launch(spec);
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(pid.status().message().find("root"), std::string::npos);
}

TEST_F(LauncherTest, OutputFileIsOpenedWithTheUsersPermissions) {
  if (!root_) GTEST_SKIP() << "needs root to launch as another user";
  std::string closed = dir_ + "/closed";
  ASSERT_EQ(mkdir(closed.c_str(), 0700), 0);  // owned by root: nobody may not create files here
  LaunchSpec spec = Spec({"/bin/true"});
  spec.stdout_path = closed + "/slurm-7.out";
  StatusOr<pid_t> pid = Launch(spec);
  ASSERT_FALSE(pid.ok());
  EXPECT_TRUE(IsJobFault(pid.status())) << "the job's own path: the job fails, not the node";
  EXPECT_EQ(pid.status().message(), "Could not open stdout file " + closed + "/slurm-7.out: Permission denied");
  EXPECT_NE(access(spec.stdout_path.c_str(), F_OK), 0) << "nothing created as root";
}

// The job's stderr or stdin that cannot be opened fails it too, and Slurm's line goes into its
// stdout, which is open by then.
TEST_F(LauncherTest, UnopenableStderrAndStdinFailTheJobWithALineInItsOutput) {
  LaunchSpec spec = Spec({"/bin/true"});
  spec.log_name = "musterd-n1";
  spec.stderr_path = dir_ + "/no/such/err";
  StatusOr<pid_t> pid = Launch(spec);
  ASSERT_FALSE(pid.ok());
  EXPECT_TRUE(IsJobFault(pid.status()));
  EXPECT_EQ(pid.status().message(), "Could not open stderr file " + dir_ + "/no/such/err: No such file or directory");
  EXPECT_EQ(ReadAll(dir_ + "/out"),
            "musterd-n1: error: Could not open stderr file " + dir_ + "/no/such/err: No such file or directory\n");

  spec = Spec({"/bin/true"});
  spec.stdin_path = dir_ + "/missing-input";
  pid = Launch(spec);
  ASSERT_FALSE(pid.ok());
  EXPECT_TRUE(IsJobFault(pid.status()));
  EXPECT_EQ(pid.status().message(), "Could not open stdin file " + dir_ + "/missing-input: No such file or directory");
}

// A FIFO named as the job's stdout has no reader: the launch fails at once instead of holding the
// agent's thread until someone opens the other end. One named as stdin opens, and is read.
TEST_F(LauncherTest, FifosDoNotBlockTheLaunch) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0666), 0);
  if (root_) {
    ASSERT_EQ(chown(fifo.c_str(), kNobody, kNobody), 0);
  }
  LaunchSpec spec = Spec({"/bin/true"});
  spec.stdout_path = fifo;
  StatusOr<pid_t> pid = Launch(spec);
  ASSERT_FALSE(pid.ok());
  EXPECT_TRUE(IsJobFault(pid.status()));
  EXPECT_EQ(pid.status().message(), "Could not open stdout file " + fifo + ": No such device or address");

  spec = Spec({"/bin/sh", "-c", "echo started"});
  spec.stdin_path = fifo;
  ExitInfo info = Run(spec);
  EXPECT_TRUE(info.exited);
  EXPECT_EQ(ReadAll(dir_ + "/out"), "started\n");
}

TEST_F(LauncherTest, ReportsExecAndChdirFailures) {
  LaunchSpec spec = Spec({"/nope"});
  StatusOr<pid_t> pid = Launch(spec);
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(pid.status().message(), "cannot execute '/nope': No such file or directory");

  EXPECT_FALSE(IsJobFault(pid.status())) << "the script is the agent's own";
}

// As under Slurm's slurmstepd: a working directory that cannot be entered does not fail the job,
// which starts in /tmp and says so on its stderr.
TEST_F(LauncherTest, AWorkdirThatCannotBeEnteredStartsTheJobInTmp) {
  LaunchSpec spec = Spec({"/bin/pwd"});
  spec.log_name = "musterd-n1";
  spec.workdir = dir_ + "/missing";
  ExitInfo info = Run(spec);
  EXPECT_TRUE(info.exited);
  EXPECT_EQ(info.exit_code, 0);
  EXPECT_EQ(ReadAll(dir_ + "/out"), "musterd-n1: error: couldn't chdir to `" + dir_ +
                                        "/missing': No such file or directory: going to /tmp instead\n/tmp\n");
}

TEST_F(LauncherTest, SearchesTheJobsPathNotTheAgents) {
  LaunchSpec spec = Spec({"true"});
  spec.env = {"PATH=/nonexistent-dir"};
  StatusOr<pid_t> pid = Launch(spec);
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().message(), "cannot execute 'true': No such file or directory");

  // A script without "#!" runs under /bin/sh, as with execvp.
  std::string script = dir_ + "/script";
  std::ofstream(script) << "echo from-script \"$1\"\n";
  ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  spec = Spec({"script", "arg1"});
  spec.env = {"PATH=/nonexistent-dir:" + dir_};
  ExitInfo info = Run(spec);
  EXPECT_TRUE(info.exited);
  EXPECT_EQ(info.exit_code, 0);
  EXPECT_EQ(ReadAll(dir_ + "/out"), "from-script arg1\n");
}

TEST_F(LauncherTest, ClosesInheritedDescriptorsAndResetsSignals) {
  int leaked = open("/dev/null", O_RDONLY);  // no O_CLOEXEC on purpose
  ASSERT_GE(leaked, 3);
  struct sigaction ignore, old;
  std::memset(&ignore, 0, sizeof(ignore));
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGTERM, &ignore, &old);
  ExitInfo checked = Run(Spec({"/bin/sh", "-c",
                               "if [ -e /proc/$$/fd/" + std::to_string(leaked) + " ]; then echo leaked; else echo closed; fi"}));
  StatusOr<pid_t> pid = Launch(Spec({"/bin/sleep", "1000"}));
  sigaction(SIGTERM, &old, nullptr);
  close(leaked);
  EXPECT_TRUE(checked.exited);
  EXPECT_EQ(ReadAll(dir_ + "/out"), "closed\n");
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  EXPECT_EQ(getpgid(*pid), *pid) << "own process group";
  EXPECT_EQ(getsid(*pid), *pid) << "own session";
  ExitInfo info;
  EXPECT_FALSE(TryReap(*pid, &info));
  // SIGTERM was ignored in the agent; the job must still die of it.
  EXPECT_TRUE(SignalGroup(*pid, SIGTERM).ok());
  info = Reap(*pid);
  EXPECT_FALSE(info.exited);
  EXPECT_EQ(info.signal, SIGTERM);
}

TEST_F(LauncherTest, TryReapReportsExitAndSignalGroupGuardsItsArgument) {
  StatusOr<pid_t> pid = Launch(Spec({"/bin/sh", "-c", "exit 7"}));
  ASSERT_TRUE(pid.ok());
  ExitInfo info = Reap(*pid);
  EXPECT_TRUE(info.exited);
  EXPECT_EQ(info.exit_code, 7);
  EXPECT_TRUE(TryReap(*pid, &info)) << "an already reaped pid does not hang callers";
  EXPECT_EQ(SignalGroup(0, SIGTERM).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(SignalGroup(1, SIGTERM).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(SignalGroup(*pid, SIGTERM).ok()) << "a group that is gone is not an error";
}

TEST_F(LauncherTest, RejectsEmptyArgv) {
  LaunchSpec spec = Spec({});
  EXPECT_EQ(Launch(spec).status().code(), StatusCode::kInvalidArgument);
}

// Finding 6 of the fault review (a reaped task's pid, taken by another user's process, got the
// job's signals): the exit is seen without reaping, so the pid, and the group's id, stay the
// task's until Reap.
TEST_F(LauncherTest, AnEndedTaskKeepsItsPidUntilReaped) {
  StatusOr<pid_t> pid = Launch(Spec({"/bin/sh", "-c", "exit 5"}));
  ASSERT_TRUE(pid.ok());
  ExitInfo info;
  for (int i = 0; i < 500 && !TryWaitExited(*pid, &info); ++i) usleep(10000);
  EXPECT_TRUE(info.exited);
  EXPECT_EQ(info.exit_code, 5);
  // Still ours: a zombie, reported again, and its group can be signalled without error.
  const std::string stat = ReadAll("/proc/" + std::to_string(*pid) + "/stat");
  EXPECT_NE(stat.find(") Z "), std::string::npos) << stat;
  ExitInfo again;
  EXPECT_TRUE(TryWaitExited(*pid, &again));
  EXPECT_EQ(again.exit_code, 5);
  EXPECT_TRUE(SignalGroup(*pid, SIGKILL).ok());
  info = Reap(*pid);
  EXPECT_EQ(info.exit_code, 5);
}

TEST_F(LauncherTest, OutputToGivenDescriptors) {
  int out[2], err[2];
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(err, O_CLOEXEC), 0);
  LaunchSpec spec = Spec({"sh", "-c", "echo to-out; echo to-err >&2; exit 4"});
  spec.stdout_path.clear();
  spec.stdout_fd = out[1];
  spec.stderr_fd = err[1];
  StatusOr<pid_t> pid = Launch(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  close(out[1]);
  close(err[1]);
  auto drain = [](int fd) {
    std::string s;
    char buf[256];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) s.append(buf, n);
    close(fd);
    return s;
  };
  EXPECT_EQ(drain(out[0]), "to-out\n");  // EOF once the child exits: nothing else holds the pipes
  EXPECT_EQ(drain(err[0]), "to-err\n");
  ExitInfo info = Reap(*pid);
  EXPECT_EQ(info.exit_code, 4);
}

}  // namespace
}  // namespace muster
