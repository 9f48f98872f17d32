// The agent acting for a user with that user's rights (agent/as_user.h): findings 4 and 7 of the
// fault review, as unit tests. Most need root (the agent's own situation).
#include "agent/as_user.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "base/test_util.h"

namespace muster {
namespace {

constexpr uint32_t kNobody = 65534;
const UserIdentity kNobodyUser{kNobody, kNobody, "nobody"};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class AsUserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "the agent's situation: root acting for another user";
    ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
    user_dir_ = dir_ + "/user";
    ASSERT_EQ(mkdir(user_dir_.c_str(), 0755), 0);
    ASSERT_EQ(chown(user_dir_.c_str(), kNobody, kNobody), 0);
    root_dir_ = dir_ + "/rootonly";
    ASSERT_EQ(mkdir(root_dir_.c_str(), 0700), 0);
  }
  TempDir tmp_{"muster-asuser-"};
  const std::string dir_ = tmp_.path();
  std::string user_dir_, root_dir_;
};

TEST_F(AsUserTest, AppendsToTheUsersOwnFile) {
  const std::string out = user_dir_ + "/slurm-1.out";
  { std::ofstream(out) << "output\n"; }
  ASSERT_EQ(chown(out.c_str(), kNobody, kNobody), 0);
  ASSERT_TRUE(AppendAsUser(out, kNobodyUser, "*** JOB 1 CANCELLED ***\n").ok());
  EXPECT_EQ(ReadAll(out), "output\n*** JOB 1 CANCELLED ***\n");
}

// Finding 7: a directory symlink swapped in while the job ran made root write into a root-only
// directory. No link is followed anywhere on the path, and the write is the user's.
TEST_F(AsUserTest, FollowsNoSymlinkAndWritesNothingTheUserCouldNot) {
  const std::string victim = root_dir_ + "/slurm-1.out";
  { std::ofstream(victim) << "root's\n"; }
  ASSERT_EQ(chown(victim.c_str(), kNobody, kNobody), 0);  // even owned by the user: behind a root-only dir
  const std::string link = user_dir_ + "/out";
  ASSERT_EQ(symlink(root_dir_.c_str(), link.c_str()), 0);
  EXPECT_FALSE(AppendAsUser(link + "/slurm-1.out", kNobodyUser, "x\n").ok());
  const std::string file_link = user_dir_ + "/file";
  ASSERT_EQ(symlink(victim.c_str(), file_link.c_str()), 0);
  EXPECT_FALSE(AppendAsUser(file_link, kNobodyUser, "x\n").ok());
  // The root-only directory itself, named directly: the user may not enter it.
  Status st = AppendAsUser(victim, kNobodyUser, "x\n");
  EXPECT_EQ(st.code(), StatusCode::kPermissionDenied) << st.ToString();
  EXPECT_EQ(ReadAll(victim), "root's\n");
}

TEST_F(AsUserTest, LeavesDevicesFifosAndOtherUsersFilesAlone) {
  const std::string fifo = user_dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0666), 0);
  ASSERT_EQ(chown(fifo.c_str(), kNobody, kNobody), 0);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(AppendAsUser(fifo, kNobodyUser, "x\n").ok());  // no reader: ENXIO, at once
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  const std::string dev = user_dir_ + "/null";
  ASSERT_EQ(mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  EXPECT_FALSE(AppendAsUser(dev, kNobodyUser, "x\n").ok());  // not a regular file (or a nodev mount)
  const std::string others = user_dir_ + "/roots-file";
  { std::ofstream(others) << ""; }
  ASSERT_EQ(chmod(others.c_str(), 0666), 0);  // writable by all, but not the user's
  EXPECT_EQ(AppendAsUser(others, kNobodyUser, "x\n").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(ReadAll(others), "");
}

// A Unix socket listening, optionally accepting nothing: its backlog fills and connect() would
// block for ever.
int ListenAt(const std::string& path, int backlog) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::strncpy(sa.sun_path, path.c_str(), sizeof sa.sun_path - 1);
  if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || listen(fd, backlog) != 0) return -1;
  return fd;
}

// Finding 4: the root agent connected wherever a step request pointed. Now it connects as the
// job's user: a root-only socket is out of reach, a port below 1024 refused.
TEST_F(AsUserTest, ConnectsOnlyWhereTheUserCould) {
  const std::string hidden = root_dir_ + "/srun.sock";
  const int l = ListenAt(hidden, 16);
  ASSERT_GE(l, 0);
  StatusOr<int> c = ConnectAsUser("unix:" + hidden, kNobodyUser, 1000);
  EXPECT_FALSE(c.ok()) << "a socket nobody cannot reach";
  EXPECT_NE(c.status().message().find("Permission denied"), std::string::npos) << c.status().ToString();
  const std::string open_sock = user_dir_ + "/srun.sock";
  const int l2 = ListenAt(open_sock, 16);
  ASSERT_GE(l2, 0);
  ASSERT_EQ(chown(open_sock.c_str(), kNobody, kNobody), 0);
  StatusOr<int> ok = ConnectAsUser("unix:" + open_sock, kNobodyUser, 1000);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  close(*ok);
  EXPECT_EQ(ConnectAsUser("127.0.0.1:22", kNobodyUser, 1000).status().code(), StatusCode::kInvalidArgument);
  close(l);
  close(l2);
}

// A listener that never accepts: the connect gives up within its time instead of wedging.
TEST_F(AsUserTest, AListenerThatNeverAcceptsTimesOut) {
  const std::string path = user_dir_ + "/wedge.sock";
  const int l = ListenAt(path, 0);
  ASSERT_GE(l, 0);
  ASSERT_EQ(chown(path.c_str(), kNobody, kNobody), 0);
  std::vector<int> filled;
  for (int i = 0; i < 8; ++i) {  // fill the backlog
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::strncpy(sa.sun_path, path.c_str(), sizeof sa.sun_path - 1);
    if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
      close(fd);
      break;
    }
    filled.push_back(fd);
  }
  const auto start = std::chrono::steady_clock::now();
  StatusOr<int> c = ConnectAsUser("unix:" + path, kNobodyUser, 300);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(c.ok());
  EXPECT_LT(took, std::chrono::seconds(3));
  for (int fd : filled) close(fd);
  close(l);
}

}  // namespace
}  // namespace muster
