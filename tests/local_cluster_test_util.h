// Shared by the integration tests: run shell commands, wait for conditions, and a fixture that
// starts a real local cluster (`muster up` in a temp dir) and stops it (`muster down`) around each
// test. Header-only; test code.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include "base/test_util.h"

namespace muster_test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct Result {
  int rc = -1;
  std::string out;
};

// Runs a shell command line, stdout and stderr together.
inline Result Sh(const std::string& cmd) {
  Result r;
  FILE* p = popen(("(" + cmd + ") 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Where muster, musterctld and musterd are: the build's, or MUSTER_TEST_BIN_DIR (bench/soak.sh
// runs copies there, so that a rebuild during a long soak does not swap the binaries under it).
inline std::string BinDir() {
  const char* dir = std::getenv("MUSTER_TEST_BIN_DIR");
  return dir != nullptr && *dir != '\0' ? std::string(dir) : std::string(MUSTER_BIN_DIR);
}

// Every daemon a test starts (muster up, a restarted musterctld) ends with the test process
// (base/stop_with.h): a test killed by its ctest timeout leaves no cluster behind.
inline const bool kDaemonsStopWithTheTest =
    setenv("MUSTER_STOP_WITH_PID", std::to_string(getpid()).c_str(), 1) == 0;

// The script_dir a muster.yaml names ("" when none: the scripts and runs are in the spool). muster up
// puts it under /dev/shm when it can.
inline std::string ScriptDirIn(const std::string& conf) {
  const size_t at = conf.find("  script_dir: ");
  if (at == std::string::npos) return "";
  const size_t from = at + std::string("  script_dir: ").size();
  return conf.substr(from, conf.find_first_of(" \n", from) - from);
}

inline std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  size_t b = s.find_first_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b);
}

using muster::WaitFor;  // polls every 50 ms

inline std::string ReadFile(const std::string& p);

// Gone, or a zombie waiting for a parent that does not reap (pid 1 of a container may not).
inline bool Dead(pid_t pid) {
  std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return true;
  size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

inline std::string ReadFile(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class LocalClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("muster_it_" + std::to_string(getpid()) + "_" + std::to_string(counter_++));
    fs::remove_all(dir_);
    work_ = dir_ / "work";
    fs::create_directories(work_);
    fs::permissions(dir_, fs::perms::all);
    fs::permissions(work_, fs::perms::all);  // other users submit from here too
    env_ = "PATH=" + BinDir() + ":$PATH MUSTER_CONF=" + (dir_ / "c" / "muster.yaml").string() + " ";
    Result up = Sh(env_ + "muster up --dir " + (dir_ / "c").string() + " --nodes " + std::to_string(nodes_) +
                   " --gpus-per-node 4" + up_args_);
    ASSERT_EQ(up.rc, 0) << up.out;
    ASSERT_NE(up.out.find("is up: " + std::to_string(nodes_) + " node"), std::string::npos) << up.out;
    up_out_ = up.out;
  }
  void TearDown() override {
    if (HasFailure()) {
      // The daemons' logs outlive a failed test: what they said is what explains it.
      const fs::path kept = fs::temp_directory_path() / ("muster_failed_" + std::to_string(getpid()) + "_" +
                                                         std::to_string(counter_) + "_logs");
      std::error_code ec;
      fs::remove_all(kept, ec);
      fs::copy(dir_ / "c" / "log", kept, fs::copy_options::recursive, ec);
      std::cerr << "the cluster's logs: " << kept.string() << "\n";
    }
    const std::string scripts = ScriptDirIn(ReadFile((dir_ / "c/muster.yaml").string()));
    Result down = Sh(env_ + "muster down --dir " + (dir_ / "c").string());
    EXPECT_EQ(down.rc, 0) << down.out;
    // Nothing of ours may be left running, nor the jobs' scripts and the runs' records.
    for (const auto& e : fs::directory_iterator(dir_ / "c")) EXPECT_NE(e.path().extension(), ".pid") << e.path();
    if (!scripts.empty()) {
      EXPECT_FALSE(fs::exists(scripts)) << scripts << " left behind by muster down";
    }
    fs::remove_all(dir_);
  }
  // A command run by the cluster's owner (root here) from the work dir.
  // The cluster's environment holds for the whole command line (pipes, lists, background jobs).
  Result Run(const std::string& cmd) { return Sh("cd " + work_.string() + " || exit 99; export " + env_ + "; " + cmd); }
  // The same as another user.
  Result RunAs(const std::string& user, const std::string& cmd) {
    return Sh("cd " + work_.string() + " && su -s /bin/sh " + user + " -c '" + env_ + cmd + "'");
  }
  int64_t Submit(const std::string& args) {
    Result r = Run("sbatch --parsable " + args);
    EXPECT_EQ(r.rc, 0) << r.out;
    return std::atoll(r.out.c_str());
  }
  std::string State(int64_t id) { return Trim(Run("squeue -h -t all -j " + std::to_string(id) + " -o %T").out); }
  bool WaitState(int64_t id, const std::string& state, std::chrono::milliseconds limit = 15s) {
    return WaitFor([&] { return State(id) == state; }, limit);
  }
  std::string Pid(const std::string& daemon) { return Trim(ReadFile((dir_ / "c" / (daemon + ".pid")).string())); }
  // The controller's TCP address: controller.listen in the muster.yaml `muster up --tcp` wrote
  // ("" without one).
  std::string ControllerListen() {
    const std::string conf = ReadFile((dir_ / "c" / "muster.yaml").string());
    const size_t ctl = conf.find("controller:");
    const size_t at = ctl == std::string::npos ? ctl : conf.find("  listen: ", ctl);
    if (at == std::string::npos) return "";
    return conf.substr(at + 10, conf.find('\n', at) - at - 10);
  }
  // Stops the controller (SIGTERM), appends `yaml` to muster.yaml and starts it again (what
  // runs and waits is kept); true once the nodes are idle again.
  bool RestartControllerWith(const std::string& yaml) {
    if (kill(std::atoi(Pid("musterctld").c_str()), SIGTERM) != 0) return false;
    if (!WaitFor([&] { return Run("squeue").rc != 0; }, 5s)) return false;
    {
      std::ofstream conf((dir_ / "c/muster.yaml").string(), std::ios::app);
      conf << yaml;
    }
    Result restart = Sh("setsid " + BinDir() + "/musterctld --conf " +
                        (dir_ / "c/muster.yaml").string() + " >> " + (dir_ / "c/log/musterctld.log").string() +
                        " 2>&1 & echo $! > " + (dir_ / "c/musterctld.pid").string());
    if (restart.rc != 0) return false;
    return WaitFor([&] { return Run("sinfo -h -o %t").out.find("idle") != std::string::npos; }, 10s);
  }

  static inline int counter_ = 0;
  int nodes_ = 2;
  std::string up_args_;  // more options for `muster up` (" --tcp"), set before SetUp()
  std::string up_out_;   // what `muster up` printed
  fs::path dir_, work_;
  std::string env_;
};

}  // namespace muster_test
