#include "api/config_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ctld/controller_test_fixture.h"
#include "wire/codec.h"

namespace muster {
namespace {

using namespace ctld_test;  // NOLINT(build/namespaces)
namespace fs = std::filesystem;

class ConfigDir {
 public:
  ConfigDir() : path_(fs::temp_directory_path() / ("muster_config_files_test." + std::to_string(getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ConfigDir() { fs::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream((path_ / name).string()) << text;
    return (path_ / name).string();
  }
  MusterConfig Conf(const std::string& cluster_file) {
    MusterConfig c;
    c.path = (path_ / "muster.yaml").string();
    c.cluster_file = (path_ / cluster_file).string();
    return c;
  }

 private:
  fs::path path_;
};

HttpRequest As(const Caller& caller, const std::string& method, const std::string& path) {
  HttpRequest r;
  r.method = method;
  r.path = path;
  r.caller = caller;
  return r;
}

TEST(ConfigFilesTest, Sha256IsTheStandardOne) {
  EXPECT_EQ(api::Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(api::Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(ConfigFilesTest, ServesMusterYamlAndTheClusterFileHashedTogether) {
  ConfigDir dir;
  dir.Write("muster.yaml", "cluster_file: cluster.yaml\n");
  dir.Write("cluster.yaml", "nodes: []\n");
  dir.Write("gres.conf", "ignored beside a YAML cluster file\n");
  StatusOr<ServedConfig> a = api::ReadServedConfig(dir.Conf("cluster.yaml"));
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->muster_yaml, "cluster_file: cluster.yaml\n");
  EXPECT_EQ(a->files, (std::vector<ConfigFile>{{"cluster.yaml", "nodes: []\n"}}));
  EXPECT_EQ(a->hash.size(), 64u);
  EXPECT_EQ(api::ReadServedConfig(dir.Conf("cluster.yaml"))->hash, a->hash) << "the same files, the same hash";
  // Any change to either file changes the hash.
  dir.Write("cluster.yaml", "nodes: [] \n");
  const std::string b = api::ReadServedConfig(dir.Conf("cluster.yaml"))->hash;
  EXPECT_NE(b, a->hash);
  dir.Write("muster.yaml", "cluster_file: cluster.yaml \n");
  EXPECT_NE(api::ReadServedConfig(dir.Conf("cluster.yaml"))->hash, b);
  // A missing file is named.
  EXPECT_EQ(api::ReadServedConfig(dir.Conf("gone.yaml")).status().message(),
            "cannot read '" + dir.Conf("gone.yaml").cluster_file + "': No such file or directory");
}

TEST(ConfigFilesTest, ASlurmConfComesWithTheFilesItReadsBesideIt) {
  ConfigDir dir;
  dir.Write("muster.yaml", "cluster_file: slurm.conf\n");
  dir.Write("slurm.conf", "NodeName=n1 CPUs=4\n");
  dir.Write("gres.conf", "Name=gpu File=/dev/nvidia0\n");
  StatusOr<ServedConfig> s = api::ReadServedConfig(dir.Conf("slurm.conf"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->files, (std::vector<ConfigFile>{{"slurm.conf", "NodeName=n1 CPUs=4\n"},
                                               {"gres.conf", "Name=gpu File=/dev/nvidia0\n"}}));
  dir.Write("topology.conf", "SwitchName=s Nodes=n1\n");
  s = api::ReadServedConfig(dir.Conf("slurm.conf"));
  ASSERT_EQ(s->files.size(), 3u);
  EXPECT_EQ(s->files[1].name, "topology.conf");
}

TEST_F(ControllerTest, OnlyAdminsReadTheFilesOrReconfigure) {
  ServedConfig served{"ab", "cluster_file: c.yaml\n", {{"c.yaml", "nodes: []\n"}}};
  int checks = 0;
  Status verdict = InvalidArgument("muster.yaml:3: unknown field 'bogus'");
  Router r;
  api::AddConfigFileRoutes(*ctld_, r, served, [&] {
    ++checks;
    return verdict;
  });
  HttpResponse got = r.Handle(As(kAdmin, "GET", "/v1/config/files"));
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(*wire::Decode<ServedConfig>(got.body), served);
  // A user: the files may hold the state's URL and its password.
  got = r.Handle(As(kAlice, "GET", "/v1/config/files"));
  EXPECT_EQ(got.status, 403);
  EXPECT_EQ(got.body.find("cluster_file"), std::string::npos) << got.body;

  got = r.Handle(As(kAlice, "POST", "/v1/reconfigure"));
  EXPECT_EQ(got.status, 403);
  EXPECT_NE(got.body.find("Invalid user id"), std::string::npos) << got.body;
  EXPECT_EQ(checks, 0) << "a user's request checks nothing";
  got = r.Handle(As(kAdmin, "POST", "/v1/reconfigure"));
  EXPECT_EQ(got.status, 400);
  EXPECT_NE(got.body.find("muster.yaml:3: unknown field 'bogus'"), std::string::npos) << got.body;
  verdict = Status::Ok();
  got = r.Handle(As(kAdmin, "POST", "/v1/reconfigure"));
  EXPECT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(checks, 2);
}

}  // namespace
}  // namespace muster
