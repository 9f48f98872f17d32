// Where the commands ask for a token: which agent sockets, in which order, and the error when no
// musterd can give one.
#include "cli/ctld_client.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "config/muster_config.h"

namespace muster {
namespace {

namespace fs = std::filesystem;

class LocalAgentSocketsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("muster_ctld_client_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    for (int fd : fds_) close(fd);
    fs::remove_all(dir_);
  }
  // A bound (not listening) Unix socket: a socket file nobody answers on.
  std::string MakeSocket(const std::string& name) {
    const std::string path = (dir_ / name).string();
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    EXPECT_GE(fd, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << path;
    fds_.push_back(fd);
    return path;
  }
  fs::path dir_;
  std::vector<int> fds_;
};

TEST_F(LocalAgentSocketsTest, HostNodeFirstThenTheJobsNodeThenEveryOtherInNameOrder) {
  const std::string n2 = MakeSocket("musterd-node2.sock");
  const std::string n1 = MakeSocket("musterd-node1.sock");
  const std::string gpu = MakeSocket("musterd-gpu07.sock");
  MakeSocket("ctld.sock");                                       // not an agent
  std::ofstream((dir_ / "musterd-fake.sock").string()) << "x";  // not a socket
  const std::string d = dir_.string();
  // A local cluster: no node is named like the host.
  EXPECT_EQ(LocalAgentSockets(d, "buildhost", ""), (std::vector<std::string>{gpu, n1, n2}));
  // Inside a job on node2.
  EXPECT_EQ(LocalAgentSockets(d, "buildhost", "node2"), (std::vector<std::string>{n2, gpu, n1}));
  // A node named like the host (or its first label) comes first.
  EXPECT_EQ(LocalAgentSockets(d, "node1", "node2"), (std::vector<std::string>{n1, n2, gpu}));
  EXPECT_EQ(LocalAgentSockets(d, "gpu07.cluster.example", ""), (std::vector<std::string>{gpu, n1, n2}));
  EXPECT_TRUE(LocalAgentSockets((dir_ / "nosuchdir").string(), "node1", "node1").empty());
}

TEST_F(LocalAgentSocketsTest, NoMusterdMeansAClearError) {
  MusterConfig conf;
  conf.agent_socket_dir = dir_.string();
  StatusOr<std::string> none = LocalToken(conf);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(none.status().message().find("cannot get a credential from the local musterd at " + dir_.string() +
                                         "/musterd-"),
            std::string::npos)
      << none.status().message();
  EXPECT_NE(none.status().message().find("is musterd running on this host?"), std::string::npos)
      << none.status().message();
  // A socket file whose agent is gone: the error names it and says why.
  const std::string dead = MakeSocket("musterd-node1.sock");
  StatusOr<std::string> refused = LocalToken(conf);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("cannot get a credential from the local musterd at " + dead + ": "),
            std::string::npos)
      << refused.status().message();
}

}  // namespace
}  // namespace muster
