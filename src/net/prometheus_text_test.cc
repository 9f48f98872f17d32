#include "net/prometheus_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace muster::prom {
namespace {

TEST(PrometheusTextTest, NamesFollowTheFormat) {
  EXPECT_TRUE(ValidMetricName("DCGM_FI_DEV_GPU_UTIL"));
  EXPECT_TRUE(ValidMetricName("job:cpu_seconds:rate5m"));  // colons: recording rules' names
  EXPECT_TRUE(ValidMetricName("_x9"));
  EXPECT_FALSE(ValidMetricName(""));
  EXPECT_FALSE(ValidMetricName("9lives"));
  EXPECT_FALSE(ValidMetricName("gpu-util"));
  EXPECT_FALSE(ValidMetricName("gpu util"));
  EXPECT_TRUE(ValidLabelName("UUID"));
  EXPECT_TRUE(ValidLabelName("hpc_job"));
  EXPECT_FALSE(ValidLabelName("a:b"));      // no colon in label names
  EXPECT_FALSE(ValidLabelName("__name__"));  // reserved for Prometheus' own
  EXPECT_FALSE(ValidLabelName("0gpu"));
  EXPECT_FALSE(ValidLabelName(""));
}

TEST(PrometheusTextTest, EscapesLabelValuesAndHelp) {
  EXPECT_EQ(EscapeLabelValue(R"(a\b"c)" "\n" "d"), R"(a\\b\"c\nd)");
  EXPECT_EQ(EscapeLabelValue("plain ünïcode"), "plain ünïcode");  // UTF-8 passes as it is
  EXPECT_EQ(EscapeHelp(R"(say "hi" \ )" "\n" "more"), R"(say "hi" \\ \nmore)");  // quotes stay in HELP
}

TEST(PrometheusTextTest, FormatsValuesAsPrometheusReadsThem) {
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(42), "42");
  EXPECT_EQ(FormatValue(-3), "-3");
  EXPECT_EQ(FormatValue(85899345920.0), "85899345920");  // bytes stay whole
  EXPECT_EQ(FormatValue(0.5), "0.5");
  EXPECT_EQ(FormatValue(60.077), "60.077");
  EXPECT_EQ(FormatValue(1e21), "1e+21");
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
}

TEST(PrometheusTextTest, WritesFamiliesSortedWithHelpTypeAndSeries) {
  std::vector<Family> families;
  families.push_back(Family{"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", MetricType::kGauge,
                            {Series{{{"gpu", "1"}, {"UUID", "GPU-b"}}, 10},
                             Series{{{"gpu", "0"}, {"UUID", "GPU-a"}}, 55}}});
  families.push_back(Family{"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "Total number of double-bit volatile ECC errors.",
                            MetricType::kCounter, {Series{{{"gpu", "0"}}, 2}}});
  families.push_back(Family{"muster_up", "no series", MetricType::kGauge, {}});
  families.push_back(Family{"bare", "A series without labels.", MetricType::kGauge, {Series{{}, 1.25}}});
  StatusOr<std::string> text = WriteText(families);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(*text,
            "# HELP DCGM_FI_DEV_ECC_DBE_VOL_TOTAL Total number of double-bit volatile ECC errors.\n"
            "# TYPE DCGM_FI_DEV_ECC_DBE_VOL_TOTAL counter\n"
            "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{gpu=\"0\"} 2\n"
            "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
            "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
            "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\"} 55\n"
            "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-b\"} 10\n"
            "# HELP bare A series without labels.\n"
            "# TYPE bare gauge\n"
            "bare 1.25\n");
  // The same families in another order give the same text.
  std::reverse(families.begin(), families.end());
  EXPECT_EQ(*WriteText(families), *text);
}

TEST(PrometheusTextTest, WritesHistogramsWithCumulativeBucketsSumAndCount) {
  Family f{"muster_x_seconds", "x", MetricType::kHistogram, {}};
  AddHistogram(f, {{"route", "/v1/jobs"}}, {0.1, 1}, {2, 3}, 1.5, 4);
  StatusOr<std::string> text = WriteText({f});
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text,
            "# HELP muster_x_seconds x\n"
            "# TYPE muster_x_seconds histogram\n"
            "muster_x_seconds_bucket{route=\"/v1/jobs\",le=\"0.1\"} 2\n"
            "muster_x_seconds_bucket{route=\"/v1/jobs\",le=\"1\"} 3\n"
            "muster_x_seconds_bucket{route=\"/v1/jobs\",le=\"+Inf\"} 4\n"
            "muster_x_seconds_sum{route=\"/v1/jobs\"} 1.5\n"
            "muster_x_seconds_count{route=\"/v1/jobs\"} 4\n");
}

TEST(PrometheusTextTest, EscapesInsideSeriesLines) {
  StatusOr<std::string> text = WriteText({Family{"m", "line one\nline two \\ end", MetricType::kGauge,
                                                 {Series{{{"user", "a\"b\\c\nd"}}, 1}}}});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "# HELP m line one\\nline two \\\\ end\n"
            "# TYPE m gauge\n"
            "m{user=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(PrometheusTextTest, RefusesInvalidNamesAndDuplicates) {
  EXPECT_FALSE(WriteText({Family{"bad-name", "", MetricType::kGauge, {Series{{}, 1}}}}).ok());
  EXPECT_FALSE(WriteText({Family{"m", "", MetricType::kGauge, {Series{{{"bad-label", "x"}}, 1}}}}).ok());
  EXPECT_FALSE(WriteText({Family{"m", "", MetricType::kGauge, {Series{{{"a", "x"}, {"a", "y"}}, 1}}}}).ok());
  StatusOr<std::string> twice = WriteText({Family{"m", "", MetricType::kGauge, {Series{{}, 1}}},
                                           Family{"m", "", MetricType::kCounter, {Series{{}, 2}}}});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("m given twice"), std::string::npos) << twice.status().message();
}

}  // namespace
}  // namespace muster::prom
