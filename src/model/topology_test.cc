#include "model/topology.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "model/hostlist.h"

namespace muster {
namespace {

using Names = std::vector<std::string>;

Topology Parse(const std::string& text) {
  StatusOr<Topology> topo = Topology::ParseTopologyConf(text);
  EXPECT_TRUE(topo.ok()) << topo.status().ToString();
  return topo.ok() ? *topo : Topology();
}

int IndexOf(const Topology& topo, const std::string& name) {
  for (size_t i = 0; i < topo.switches().size(); ++i) {
    if (topo.switches()[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

Names ChildNames(const Topology& topo, const std::string& name) {
  Names out;
  for (int c : topo.switches()[IndexOf(topo, name)].children) out.push_back(topo.switches()[c].name);
  return out;
}

// Structure compared by names, so a re-parsed topology may list children and nodes in another order.
void ExpectSameTree(const Topology& a, const Topology& b) {
  ASSERT_EQ(a.switches().size(), b.switches().size());
  for (const Switch& sa : a.switches()) {
    int j = IndexOf(b, sa.name);
    ASSERT_GE(j, 0) << sa.name;
    const Switch& sb = b.switches()[j];
    EXPECT_EQ(sa.level, sb.level) << sa.name;
    EXPECT_EQ(sa.link_speed, sb.link_speed) << sa.name;
    std::string pa = sa.parent < 0 ? "" : a.switches()[sa.parent].name;
    std::string pb = sb.parent < 0 ? "" : b.switches()[sb.parent].name;
    EXPECT_EQ(pa, pb) << sa.name;
    Names ca = ChildNames(a, sa.name), cb = ChildNames(b, sa.name);
    std::sort(ca.begin(), ca.end());
    std::sort(cb.begin(), cb.end());
    EXPECT_EQ(ca, cb) << sa.name;
    Names na = sa.nodes, nb = sb.nodes;
    std::sort(na.begin(), na.end());
    std::sort(nb.begin(), nb.end());
    EXPECT_EQ(na, nb) << sa.name;
  }
}

constexpr char kFatTree[] = R"(# Fat tree: 4 leaf switches of 16 GPU nodes, 2 spines, 1 core.
SwitchName=leaf0 Nodes=gpu[001-016]
SwitchName=leaf1 Nodes=gpu[017-032]   # rack 2

switchname=leaf2 NODES=gpu[033-048] linkspeed=100
  SwitchName=leaf3	Nodes=gpu[049-064]
SwitchName=spine0 Switches=leaf[0-1]
SwitchName=spine1 Switches=leaf[2-3]
SwitchName=core Switches=spine[0-1] LinkSpeed=400
)";

TEST(TopologyParseTest, FatTree) {
  Topology topo = Parse(kFatTree);
  ASSERT_EQ(topo.switches().size(), 7u);
  const std::vector<Switch>& sw = topo.switches();
  Names names;
  for (const Switch& s : sw) names.push_back(s.name);
  EXPECT_EQ(names, (Names{"leaf0", "leaf1", "leaf2", "leaf3", "spine0", "spine1", "core"}));
  std::vector<int> levels, parents;
  for (const Switch& s : sw) {
    levels.push_back(s.level);
    parents.push_back(s.parent);
  }
  EXPECT_EQ(levels, (std::vector<int>{0, 0, 0, 0, 1, 1, 2}));
  EXPECT_EQ(parents, (std::vector<int>{4, 4, 5, 5, 6, 6, -1}));
  EXPECT_EQ(sw[4].children, (std::vector<int>{0, 1}));
  EXPECT_EQ(sw[6].children, (std::vector<int>{4, 5}));
  EXPECT_EQ(sw[1].nodes.size(), 16u);
  EXPECT_EQ(sw[1].nodes.front(), "gpu017");
  EXPECT_EQ(sw[1].nodes.back(), "gpu032");
  EXPECT_EQ(sw[2].link_speed, 100u);
  EXPECT_EQ(sw[6].link_speed, 400u);
  EXPECT_EQ(sw[0].link_speed, 1u);
  EXPECT_EQ(topo.LeafOf("gpu001"), 0);
  EXPECT_EQ(topo.LeafOf("gpu017"), 1);
  EXPECT_EQ(topo.LeafOf("gpu064"), 3);
  EXPECT_EQ(topo.LeafOf("gpu065"), -1);
  EXPECT_EQ(topo.LeafOf("spine0"), -1);
  EXPECT_FALSE(topo.empty());
}

TEST(TopologyParseTest, RendersAndReparsesTheSameTree) {
  Topology topo = Parse(kFatTree);
  std::string conf = topo.ToTopologyConf();
  EXPECT_EQ(conf,
            "SwitchName=leaf0 Nodes=gpu[001-016]\n"
            "SwitchName=leaf1 Nodes=gpu[017-032]\n"
            "SwitchName=leaf2 Nodes=gpu[033-048] LinkSpeed=100\n"
            "SwitchName=leaf3 Nodes=gpu[049-064]\n"
            "SwitchName=spine0 Switches=leaf[0-1]\n"
            "SwitchName=spine1 Switches=leaf[2-3]\n"
            "SwitchName=core Switches=spine[0-1] LinkSpeed=400\n");
  Topology again = Parse(conf);
  ExpectSameTree(topo, again);
  EXPECT_EQ(again.ToTopologyConf(), conf);
}

TEST(TopologyParseTest, ForwardReferencesAndUnevenDepth) {
  // The core is defined first; one leaf hangs straight off the core next to a spine.
  Topology topo = Parse(
      "SwitchName=core Switches=spine,edge\n"
      "SwitchName=spine Switches=s[1-2]\n"
      "SwitchName=s1 Nodes=n[1-2]\n"
      "SwitchName=s2 Nodes=n[3-4]\n"
      "SwitchName=edge Nodes=n5\n");
  EXPECT_EQ(topo.switches()[IndexOf(topo, "core")].level, 2);
  EXPECT_EQ(topo.switches()[IndexOf(topo, "spine")].level, 1);
  EXPECT_EQ(topo.switches()[IndexOf(topo, "edge")].level, 0);
  EXPECT_EQ(topo.switches()[IndexOf(topo, "edge")].parent, IndexOf(topo, "core"));
  EXPECT_EQ(ChildNames(topo, "core"), (Names{"spine", "edge"}));
  EXPECT_EQ(topo.LeafOf("n5"), IndexOf(topo, "edge"));
}

TEST(TopologyParseTest, SeveralRootsAndEmptyLeaves) {
  Topology topo = Parse(
      "SwitchName=a Nodes=n[1-2]\n"
      "SwitchName=b Nodes=m[1-2]\n"
      "SwitchName=spare\n");
  ASSERT_EQ(topo.switches().size(), 3u);
  for (const Switch& s : topo.switches()) {
    EXPECT_EQ(s.parent, -1);
    EXPECT_EQ(s.level, 0);
  }
  EXPECT_TRUE(topo.switches()[2].nodes.empty());
  EXPECT_EQ(topo.ToTopologyConf(), "SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=m[1-2]\nSwitchName=spare\n");
}

TEST(TopologyParseTest, EmptyAndCommentOnlyTextGiveAnEmptyTopology) {
  EXPECT_TRUE(Parse("").empty());
  EXPECT_TRUE(Parse("# nothing here\n\n   \n# SwitchName=s0 Nodes=n1\n").empty());
  EXPECT_EQ(Parse("").ToTopologyConf(), "");
  EXPECT_EQ(Parse("").LeafOf("n1"), -1);
}

TEST(TopologyParseTest, ContinuationQuotesAndCrlf) {
  Topology topo = Parse(
      "SwitchName=s0 \\\n"
      "  Nodes=n[1-2],\\\n"
      "n3\r\n"
      "SwitchName=s1 Nodes=\"m[1-2]\"\r\n"
      "SwitchName=top Switches=s[0-1]\r\n");
  ASSERT_EQ(topo.switches().size(), 3u);
  EXPECT_EQ(topo.switches()[0].nodes, (Names{"n1", "n2", "n3"}));
  EXPECT_EQ(topo.switches()[1].nodes, (Names{"m1", "m2"}));
  EXPECT_EQ(topo.switches()[2].level, 1);
}

TEST(TopologyParseTest, RepeatsInsideOneListAreDropped) {
  Topology topo = Parse("SwitchName=s0 Nodes=n[1-3],n2\nSwitchName=top Switches=s0,s0\n");
  EXPECT_EQ(topo.switches()[0].nodes, (Names{"n1", "n2", "n3"}));
  EXPECT_EQ(topo.switches()[1].children, (std::vector<int>{0}));
}

TEST(TopologyParseTest, LongChainHasNoDepthLimit) {
  // Slurm gives up after 20 levels; a chain this deep must neither fail nor overflow the stack.
  const int kDepth = 20000;
  std::string text = "SwitchName=s0 Nodes=n1\n";
  for (int i = 1; i < kDepth; ++i) {
    text += "SwitchName=s" + std::to_string(i) + " Switches=s" + std::to_string(i - 1) + "\n";
  }
  Topology topo = Parse(text);
  ASSERT_EQ(topo.switches().size(), static_cast<size_t>(kDepth));
  EXPECT_EQ(topo.switches().back().level, kDepth - 1);
  EXPECT_EQ(topo.switches().back().parent, -1);
}

struct BadConf {
  std::string text;
  std::vector<std::string> message_parts;  // each must appear in the error
};

class TopologyBadConfTest : public testing::TestWithParam<BadConf> {};

TEST_P(TopologyBadConfTest, IsInvalidArgumentWithLineAndNames) {
  StatusOr<Topology> topo = Topology::ParseTopologyConf(GetParam().text);
  ASSERT_FALSE(topo.ok()) << GetParam().text;
  EXPECT_EQ(topo.status().code(), StatusCode::kInvalidArgument);
  for (const std::string& part : GetParam().message_parts) {
    EXPECT_NE(topo.status().message().find(part), std::string::npos)
        << "missing '" << part << "' in: " << topo.status().message();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, TopologyBadConfTest,
    testing::Values(
        BadConf{"SwitchName=s0 Nodes=n1\n# x\nSwitchName=s0 Nodes=n2\n",
                {"line 3", "switch 's0' is already defined on line 1"}},
        BadConf{"SwitchName=s0 Nodes=n1 Speed=3\n", {"line 1", "'s0'", "unknown key 'Speed'"}},
        BadConf{"SwitchName=s0 Nodes=n1 Switches=s1\nSwitchName=s1\n",
                {"line 1", "'s0'", "both Nodes= and Switches="}},
        BadConf{"SwitchName=s0 Nodes=n1\nSwitchName=top Switches=s[0-1]\n",
                {"line 2", "switch 'top' lists unknown switch 's1' in Switches="}},
        BadConf{"SwitchName=s0 Nodes=n1\nSwitchName=a Switches=s0\n\nSwitchName=b Switches=s0\n",
                {"line 4", "switch 's0' is listed under two parents", "'a' (line 2)", "'b' (line 4)"}},
        BadConf{"SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[2-3]\n",
                {"line 2", "node 'n2' is under two leaf switches", "'s0' (line 1)", "'s1' (line 2)"}},
        BadConf{"SwitchName=a Switches=b\nSwitchName=b Switches=a\n", {"cycle", "'a' -> 'b' -> 'a'"}},
        BadConf{"SwitchName=x Nodes=n1\nSwitchName=a Switches=b\nSwitchName=b Switches=c\n"
                "SwitchName=c Switches=a\n",
                {"cycle", "'a' -> 'b' -> 'c' -> 'a'"}},
        BadConf{"SwitchName=a Switches=a\n", {"line 1", "switch 'a' lists itself"}},
        BadConf{"SwitchName=root Switches=a\nSwitchName=a Switches=b\nSwitchName=b Switches=a\n",
                {"switch 'a' is listed under two parents"}},
        BadConf{"SwitchName=s0 Nodes=n[1-3\n", {"line 1", "switch 's0': Nodes=", "unterminated '['"}},
        BadConf{"SwitchName=s0 Nodes=n1\nSwitchName=t Switches=s[0-]\n",
                {"line 2", "switch 't': Switches=", "missing number"}},
        BadConf{"SwitchName=s0 Nodes=n1 LinkSpeed=fast\n", {"line 1", "LinkSpeed='fast'"}},
        BadConf{"SwitchName=s0 Nodes=n1 LinkSpeed=-1\n", {"LinkSpeed='-1'"}},
        BadConf{"SwitchName=s0 Nodes=n1 LinkSpeed=99999999999\n", {"LinkSpeed='99999999999'"}},
        BadConf{"SwitchName=s0 Nodes\n", {"line 1", "expected Key=Value, got 'Nodes'"}},
        BadConf{"\n\nSwitchName=s0 =n1\n", {"line 3", "expected Key=Value, got '=n1'"}},
        BadConf{"Nodes=n1 SwitchName=s0\n", {"line 1", "expected SwitchName= first, got 'Nodes='"}},
        BadConf{"SwitchName=s0 Nodes=a Nodes=b\n", {"line 1", "Nodes= given twice"}},
        BadConf{"SwitchName=s0 Nodes=\n", {"line 1", "Nodes= has an empty value"}},
        BadConf{"SwitchName=\n", {"line 1", "SwitchName= has an empty value"}},
        BadConf{"SwitchName=s[0-1] Nodes=n1\n", {"line 1", "SwitchName 's[0-1]' must be a single name"}},
        BadConf{"SwitchName=s0 Nodes=\"n1\n", {"line 1", "unterminated '\"'"}},
        BadConf{"SwitchName=s0 Nodes=\"n1\"x\n", {"line 1", "text after the closing"}},
        BadConf{"SwitchName=s0 \\\nNodes=n1 \\\nFoo=1\n", {"line 1", "unknown key 'Foo'"}},
        BadConf{"SwitchName=\"s 0\" Nodes=n1\n", {"line 1", "SwitchName 's 0' must be a single name"}},
        BadConf{"SwitchName=s0 Nodes=n1,\"x\n", {"line 1", "switch 's0': Nodes=", "contains"}},
        BadConf{"SwitchName=s\\0 Nodes=n1\n", {"line 1", "SwitchName=", "contains"}}));

TEST(TopologyParseTest, RandomJunkNeverCrashes) {
  const std::vector<std::string> kFragments = {
      "SwitchName=", "switches=", "Nodes=", "LinkSpeed=", "s0", "s1", "s[0-1]", "n[1-2]", "n1", ",", " ",
      "\n", "#", "\\\n", "\"", "=", "[", "]", "10", "Foo="};
  std::mt19937 rng(99);
  for (int iter = 0; iter < 5000; ++iter) {
    std::string text;
    int len = std::uniform_int_distribution<int>(0, 30)(rng);
    for (int i = 0; i < len; ++i) text += kFragments[rng() % kFragments.size()];
    StatusOr<Topology> topo = Topology::ParseTopologyConf(text);
    if (!topo.ok()) {
      EXPECT_EQ(topo.status().code(), StatusCode::kInvalidArgument) << text;
      continue;
    }
    // Whatever parses must render to text that parses to the same tree.
    StatusOr<Topology> again = Topology::ParseTopologyConf(topo->ToTopologyConf());
    ASSERT_TRUE(again.ok()) << text << "\n->\n" << topo->ToTopologyConf() << "\n" << again.status().ToString();
    ExpectSameTree(*topo, *again);
  }
}

// ---- TwoLevel --------------------------------------------------------------------------------

std::vector<Names> Leaves(int leaves, int nodes_per_leaf) {
  std::vector<Names> out;
  for (int l = 0; l < leaves; ++l) {
    StatusOr<Names> nodes = ExpandHostlist("gpu[" + std::to_string(l * nodes_per_leaf + 1) + "-" +
                                           std::to_string((l + 1) * nodes_per_leaf) + "]");
    out.push_back(*nodes);
  }
  return out;
}

TEST(TopologyTwoLevelTest, FourLeavesTwoSpinesOneCore) {
  Topology topo = Topology::TwoLevel(Leaves(4, 16), 2);
  ASSERT_EQ(topo.switches().size(), 7u);
  EXPECT_EQ(topo.ToTopologyConf(),
            "SwitchName=leaf0 Nodes=gpu[1-16]\n"
            "SwitchName=leaf1 Nodes=gpu[17-32]\n"
            "SwitchName=leaf2 Nodes=gpu[33-48]\n"
            "SwitchName=leaf3 Nodes=gpu[49-64]\n"
            "SwitchName=spine0 Switches=leaf[0-1]\n"
            "SwitchName=spine1 Switches=leaf[2-3]\n"
            "SwitchName=core Switches=spine[0-1]\n");
  std::vector<int> levels, parents;
  for (const Switch& s : topo.switches()) {
    levels.push_back(s.level);
    parents.push_back(s.parent);
  }
  EXPECT_EQ(levels, (std::vector<int>{0, 0, 0, 0, 1, 1, 2}));
  EXPECT_EQ(parents, (std::vector<int>{4, 4, 5, 5, 6, 6, -1}));
  EXPECT_EQ(topo.LeafOf("gpu33"), 2);
  EXPECT_EQ(topo.LeafOf("gpu65"), -1);
  ExpectSameTree(topo, Parse(topo.ToTopologyConf()));
}

TEST(TopologyTwoLevelTest, OneSpineMeansNoCore) {
  Topology topo = Topology::TwoLevel(Leaves(4, 2), 4);
  ASSERT_EQ(topo.switches().size(), 5u);
  EXPECT_EQ(topo.switches()[4].name, "spine0");
  EXPECT_EQ(topo.switches()[4].parent, -1);
  EXPECT_EQ(topo.switches()[4].level, 1);
  EXPECT_EQ(topo.switches()[4].children, (std::vector<int>{0, 1, 2, 3}));
}

TEST(TopologyTwoLevelTest, LastSpineMayBeShort) {
  Topology topo = Topology::TwoLevel(Leaves(4, 1), 3);
  ASSERT_EQ(topo.switches().size(), 7u);  // 4 leaves, 2 spines (3 + 1), core
  EXPECT_EQ(topo.switches()[4].children, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(topo.switches()[5].children, (std::vector<int>{3}));
  EXPECT_EQ(topo.switches()[6].name, "core");
  EXPECT_EQ(topo.switches()[6].level, 2);
}

TEST(TopologyTwoLevelTest, NoLeavesIsEmpty) {
  EXPECT_TRUE(Topology::TwoLevel({}, 2).empty());
}

TEST(TopologyTwoLevelTest, HugeLeavesPerSpineIsOneSpine) {
  Topology topo = Topology::TwoLevel(Leaves(3, 1), 2147483647);
  ASSERT_EQ(topo.switches().size(), 4u);
  EXPECT_EQ(topo.switches()[3].children, (std::vector<int>{0, 1, 2}));
}

TEST(TopologyTwoLevelDeathTest, ProgrammerErrorsCheckFail) {
  EXPECT_DEATH(Topology::TwoLevel(Leaves(2, 2), 0), "leaves_per_spine");
  EXPECT_DEATH(Topology::TwoLevel({{"n1", "n2"}, {"n2"}}, 2), "node 'n2' is under two leaf switches");
}

}  // namespace
}  // namespace muster
