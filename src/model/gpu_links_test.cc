#include "model/gpu_links.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace muster {
namespace {

uint64_t Mask(std::initializer_list<int> gpus) {
  uint64_t m = 0;
  for (int g : gpus) m |= uint64_t{1} << g;
  return m;
}

// Writes the matrix in Parse's explicit form ("0,1;1,0").
std::string ToSpec(const GpuLinkMatrix& m) {
  std::string out;
  for (int a = 0; a < m.size(); ++a) {
    if (a > 0) out += ";";
    for (int b = 0; b < m.size(); ++b) {
      if (b > 0) out += ",";
      out += std::to_string(m.links(a, b));
    }
  }
  return out;
}

void ExpectSymmetricZeroDiagonal(const GpuLinkMatrix& m) {
  for (int a = 0; a < m.size(); ++a) {
    EXPECT_EQ(m.links(a, a), 0) << a;
    for (int b = 0; b < m.size(); ++b) EXPECT_EQ(m.links(a, b), m.links(b, a)) << a << "," << b;
  }
}

TEST(GpuLinkMatrixTest, ConstructorAndSetLinks) {
  GpuLinkMatrix m(4);
  EXPECT_EQ(m.size(), 4);
  EXPECT_FALSE(m.nvswitch());
  EXPECT_EQ(m.LinkSum(Mask({0, 1, 2, 3})), 0);
  m.set_links(1, 3, 4);
  EXPECT_EQ(m.links(1, 3), 4);
  EXPECT_EQ(m.links(3, 1), 4);
  m.set_links(0, 1, 2);
  EXPECT_EQ(m.LinkSum(Mask({0, 1, 3})), 6);
  EXPECT_EQ(m.LinkSum(Mask({0, 3})), 0);
  EXPECT_EQ(m.LinkSum(Mask({1})), 0);
  EXPECT_EQ(m.LinkSum(0), 0);
  m.set_links(1, 3, 0);
  EXPECT_EQ(m.LinkSum(Mask({0, 1, 2, 3})), 2);
  EXPECT_EQ(GpuLinkMatrix().size(), 0);
  EXPECT_EQ(GpuLinkMatrix(0).LinkSum(0), 0);
}

TEST(GpuLinkMatrixTest, SixtyFourGpus) {
  GpuLinkMatrix m = GpuLinkMatrix::NvSwitch(64, 1);
  EXPECT_EQ(m.LinkSum(~uint64_t{0}), 64 * 63 / 2);
  EXPECT_EQ(m.LinkSum(Mask({0, 63})), 1);
}

TEST(GpuLinkMatrixDeathTest, BadIndexesAreInvariantViolations) {
  GpuLinkMatrix m(4);
  EXPECT_DEATH(m.set_links(0, 4, 1), "outside");
  EXPECT_DEATH(m.set_links(-1, 0, 1), "outside");
  EXPECT_DEATH(m.set_links(2, 2, 1), "diagonal");
  EXPECT_DEATH(m.set_links(0, 1, 256), "outside \\[0, 255\\]");
  EXPECT_DEATH(m.set_links(0, 1, -1), "outside \\[0, 255\\]");
  EXPECT_DEATH((void)m.LinkSum(Mask({4})), "beyond");
  EXPECT_DEATH(GpuLinkMatrix(65), "outside");
  EXPECT_DEATH(GpuLinkMatrix::Islands(8, 3), "does not divide");
}

TEST(GpuLinkMatrixTest, NvSwitch) {
  GpuLinkMatrix m = GpuLinkMatrix::NvSwitch(8);
  EXPECT_TRUE(m.nvswitch());
  ExpectSymmetricZeroDiagonal(m);
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) EXPECT_EQ(m.links(a, b), a == b ? 0 : 12);
  }
  EXPECT_EQ(m.LinkSum(0xFF), 12 * 28);
  EXPECT_EQ(GpuLinkMatrix::NvSwitch(4, 18).links(0, 3), 18);
}

TEST(GpuLinkMatrixTest, Islands) {
  GpuLinkMatrix m = GpuLinkMatrix::Islands(8, 4);
  EXPECT_FALSE(m.nvswitch());
  ExpectSymmetricZeroDiagonal(m);
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) EXPECT_EQ(m.links(a, b), (a != b && a / 4 == b / 4) ? 2 : 0) << a << "," << b;
  }
  EXPECT_EQ(m.LinkSum(0xFF), 2 * 6 * 2);
  EXPECT_EQ(m.LinkSum(Mask({3, 4})), 0);
  EXPECT_EQ(GpuLinkMatrix::Islands(8, 2, 4).LinkSum(0xFF), 4 * 4);
  EXPECT_EQ(GpuLinkMatrix::Islands(8, 1), GpuLinkMatrix::PcieOnly(8));
}

TEST(GpuLinkMatrixTest, PcieOnly) {
  GpuLinkMatrix m = GpuLinkMatrix::PcieOnly(8);
  EXPECT_EQ(m.size(), 8);
  EXPECT_FALSE(m.nvswitch());
  EXPECT_EQ(m.LinkSum(0xFF), 0);
}

TEST(GpuLinkMatrixTest, Dgx1HybridCubeMeshMatchesNvidiaSmiTopo) {
  // nvidia-smi topo -m on a DGX-1 (V100); SYS = 0 links.
  const int kTopo[8][8] = {
      //      0  1  2  3  4  5  6  7
      /*0*/ {0, 1, 1, 2, 2, 0, 0, 0},
      /*1*/ {1, 0, 2, 1, 0, 2, 0, 0},
      /*2*/ {1, 2, 0, 2, 0, 0, 1, 0},
      /*3*/ {2, 1, 2, 0, 0, 0, 0, 1},
      /*4*/ {2, 0, 0, 0, 0, 1, 1, 2},
      /*5*/ {0, 2, 0, 0, 1, 0, 2, 1},
      /*6*/ {0, 0, 1, 0, 1, 2, 0, 2},
      /*7*/ {0, 0, 0, 1, 2, 1, 2, 0},
  };
  GpuLinkMatrix m = GpuLinkMatrix::Dgx1HybridCubeMesh();
  ASSERT_EQ(m.size(), 8);
  EXPECT_FALSE(m.nvswitch());
  ExpectSymmetricZeroDiagonal(m);
  for (int a = 0; a < 8; ++a) {
    int total = 0;
    for (int b = 0; b < 8; ++b) {
      EXPECT_EQ(m.links(a, b), kTopo[a][b]) << a << "," << b;
      total += m.links(a, b);
    }
    EXPECT_EQ(total, 6) << "V100 has 6 NVLinks, all used on a DGX-1: GPU " << a;
  }
  EXPECT_EQ(m.LinkSum(0xFF), 24);
  EXPECT_EQ(m.LinkSum(Mask({0, 1, 2, 3})), 9);
  EXPECT_EQ(m.LinkSum(Mask({4, 5, 6, 7})), 9);
  // The cross links 0-4 (NV2), 1-5 (NV2), 2-6 (NV1), 3-7 (NV1).
  EXPECT_EQ(m.LinkSum(0xFF) - m.LinkSum(0x0F) - m.LinkSum(0xF0), 6);
}

TEST(GpuLinkMatrixTest, ParseNamedLayouts) {
  EXPECT_EQ(*GpuLinkMatrix::Parse("nvswitch", 8), GpuLinkMatrix::NvSwitch(8));
  EXPECT_EQ(*GpuLinkMatrix::Parse("pcie", 4), GpuLinkMatrix::PcieOnly(4));
  EXPECT_EQ(*GpuLinkMatrix::Parse("islands:4", 8), GpuLinkMatrix::Islands(8, 4));
  EXPECT_EQ(*GpuLinkMatrix::Parse("islands:8", 8), GpuLinkMatrix::Islands(8, 8));
  EXPECT_EQ(*GpuLinkMatrix::Parse("dgx1", 8), GpuLinkMatrix::Dgx1HybridCubeMesh());
  EXPECT_EQ(*GpuLinkMatrix::Parse("  nvswitch ", 2), GpuLinkMatrix::NvSwitch(2));
  EXPECT_EQ(*GpuLinkMatrix::Parse("nvswitch", 64), GpuLinkMatrix::NvSwitch(64));
  // A node without GPUs gets an empty matrix from any layout that does not need a GPU count.
  EXPECT_EQ(GpuLinkMatrix::Parse("nvswitch", 0)->size(), 0);
  EXPECT_EQ(GpuLinkMatrix::Parse("islands:4", 0)->size(), 0);
  EXPECT_EQ(GpuLinkMatrix::Parse("pcie", 0)->size(), 0);
}

TEST(GpuLinkMatrixTest, ParseExplicitMatrix) {
  StatusOr<GpuLinkMatrix> two = GpuLinkMatrix::Parse("0,2;2,0", 2);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(two->links(0, 1), 2);
  EXPECT_FALSE(two->nvswitch());  // an all-equal matrix is not declared a switch
  EXPECT_EQ(*GpuLinkMatrix::Parse(" 0 , 2 ; 2 , 0 ", 2), *two);
  EXPECT_EQ(*GpuLinkMatrix::Parse("0", 1), GpuLinkMatrix(1));
  EXPECT_EQ(GpuLinkMatrix::Parse("0,255;255,0", 2)->links(1, 0), 255);
  // The DGX-1 written out round-trips to the named layout.
  GpuLinkMatrix dgx1 = GpuLinkMatrix::Dgx1HybridCubeMesh();
  EXPECT_EQ(*GpuLinkMatrix::Parse(ToSpec(dgx1), 8), dgx1);
}

TEST(GpuLinkMatrixTest, ParseErrorsNameWhatIsWrong) {
  struct Case {
    std::string spec;
    int num_gpus;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      {"", 8, "empty"},
      {"   ", 8, "empty"},
      {"nvlink", 8, "unknown GPU link layout 'nvlink'"},
      {"NVSWITCH", 8, "unknown GPU link layout"},
      {"nvswitch", -1, "GPU count -1"},
      {"nvswitch", 65, "must be in [0, 64]"},
      {"dgx1", 0, "needs exactly 8 GPUs"},
      {"0", 0, "has 1 rows, expected 0"},
      {"dgx1", 4, "'dgx1' needs exactly 8 GPUs, the node has 4"},
      {"islands:3", 8, "island size 3 does not divide the node's 8 GPUs"},
      {"islands:16", 8, "island size 16 does not divide"},
      {"islands:0", 8, "island size '0' is not a positive integer"},
      {"islands:-2", 8, "not a positive integer"},
      {"islands:", 8, "not a positive integer"},
      {"islands:four", 8, "island size 'four' is not a positive integer"},
      {"0,1;1,0;0,0", 2, "has 3 rows, expected 2"},
      {"0,1;1,0;", 2, "has 3 rows, expected 2"},
      {"0", 2, "has 1 rows, expected 2"},
      {"0,1,0;1,0", 2, "not square: row 0 has 3 entries, expected 2"},
      {"0,1;1", 2, "not square: row 1 has 1 entries, expected 2"},
      {"0,1;2,0", 2, "not symmetric: entry (0,1) is 1 but (1,0) is 2"},
      {"1,0;0,0", 2, "entry (0,0) is on the diagonal and must be 0, got 1"},
      {"0,0;0,3", 2, "entry (1,1) is on the diagonal"},
      {"0,-1;-1,0", 2, "entry (0,1) is negative (-1)"},
      {"0,256;256,0", 2, "entry (0,1) is 256, more than 255 links"},
      {"0,99999999999999999999999;1,0", 2, "more than 255 links"},
      {"0,a;a,0", 2, "entry (0,1) 'a' is not an integer"},
      {"0,;,0", 2, "entry (0,1) '' is not an integer"},
      {"0,1.5;1.5,0", 2, "'1.5' is not an integer"},
      {"0,+1;+1,0", 2, "'+1' is not an integer"},
      {"-", 1, "'-' is not an integer"},
  };
  for (const Case& c : cases) {
    StatusOr<GpuLinkMatrix> parsed = GpuLinkMatrix::Parse(c.spec, c.num_gpus);
    ASSERT_FALSE(parsed.ok()) << "'" << c.spec << "' parsed";
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << c.spec;
    EXPECT_NE(parsed.status().message().find(c.message_part), std::string::npos)
        << "'" << c.spec << "': " << parsed.status().message();
  }
}

}  // namespace
}  // namespace muster
