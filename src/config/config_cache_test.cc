#include "config/config_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/muster_config.h"

namespace muster {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ConfigCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("muster_config_cache_test." + std::to_string(getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

constexpr char kCluster[] =
    "node_types:\n  t: {cpus: 4, memory: 8G}\nnodes:\n  - {names: n1, type: t, features: [fast]}\n"
    "partitions:\n  - {name: p, nodes: n1, default: true}\n";

TEST_F(ConfigCacheTest, WritesFilesThatLoadAsALocalConfiguration) {
  const fs::path cache = dir_ / "cache";
  CachedConfig c{"h1",
                 "# the controller's\ncluster: lab\ncluster_file: /etc/muster/cluster.yaml\n"
                 "agent:\n  heartbeat_interval: 7\n  spool_dir: /var/spool/muster\n",
                 {{"cluster.yaml", kCluster}}};
  ASSERT_TRUE(WriteConfigCache(cache.string(), c).ok());
  EXPECT_EQ(*ReadCachedConfigHash(cache.string()), "h1");
  EXPECT_EQ(Read(cache / "cluster.yaml"), kCluster);
  EXPECT_EQ(fs::status(cache).permissions() & fs::perms::all, fs::perms::owner_all);
  // cluster_file points at the cached file; the rest is the controller's.
  StatusOr<MusterConfig> conf = LoadMusterConfig(CachedMusterYamlPath(cache.string()));
  ASSERT_TRUE(conf.ok()) << conf.status().message();
  EXPECT_EQ(conf->cluster_file, (cache / "cluster.yaml").string());
  EXPECT_EQ(conf->cluster_name, "lab");
  EXPECT_EQ(conf->heartbeat_interval_s, 7);
  EXPECT_EQ(conf->spool_dir, "/var/spool/muster");
  ASSERT_EQ(conf->cluster.spec.nodes.size(), 1u);
  EXPECT_EQ(conf->cluster.spec.nodes[0].features, std::vector<std::string>{"fast"});
  // A new fetch replaces it whole.
  c.hash = "h2";
  c.files[0].text = std::string(kCluster).replace(std::string(kCluster).find("fast"), 4, "slow");
  ASSERT_TRUE(WriteConfigCache(cache.string(), c).ok());
  EXPECT_EQ(*ReadCachedConfigHash(cache.string()), "h2");
  EXPECT_EQ(LoadMusterConfig(CachedMusterYamlPath(cache.string()))->cluster.spec.nodes[0].features,
            std::vector<std::string>{"slow"});
}

TEST_F(ConfigCacheTest, NoCacheAndBadFilesAreNamed) {
  EXPECT_EQ(ReadCachedConfigHash((dir_ / "none").string()).status().message(),
            "no cached configuration in " + (dir_ / "none").string());
  const std::string cache = (dir_ / "c").string();
  for (const char* name : {"../x", "a/b", "muster.yaml", "hash", ""}) {
    EXPECT_EQ(WriteConfigCache(cache, {"h", "cluster: x\n", {{name, "t"}}}).message(),
              std::string("the controller served a file named '") + name + "', which cannot be cached");
  }
  EXPECT_EQ(WriteConfigCache(cache, {"h", "- a list\n", {{"c.yaml", "t"}}}).message(),
            "the controller's muster.yaml is not a YAML map");
  EXPECT_EQ(WriteConfigCache(cache, {"h", "cluster: x\n", {}}).message(), "the controller served no cluster file");
  // Nothing refused became a cache.
  EXPECT_FALSE(ReadCachedConfigHash(cache).ok());
}

TEST(ConfigCacheRewriteTest, OnlyClusterFileChanges) {
  StatusOr<std::string> y = WithClusterFile("cluster: a\ncluster_file: x.yaml\ncontroller: {listen: \"h:1\"}\n", "/c/x.yaml");
  ASSERT_TRUE(y.ok());
  EXPECT_NE(y->find("cluster_file: /c/x.yaml"), std::string::npos) << *y;
  EXPECT_NE(y->find("cluster: a"), std::string::npos) << *y;
  EXPECT_NE(y->find("h:1"), std::string::npos) << *y;
  EXPECT_EQ(WithClusterFile("a: [", "/x").status().message().rfind("the controller's muster.yaml is not valid YAML: ", 0),
            0u);
}

}  // namespace
}  // namespace muster
