// Prometheus' text exposition format (version 0.0.4), as GET /metrics serves it: a family's
// "# HELP" and "# TYPE" lines, then one line per series, `name{label="value",...} value`.
//
// Written here rather than with prometheus-cpp: Debian bookworm's prometheus-cpp-dev ships only
// shared libraries (libprometheus-cpp-core.so), and Muster's binaries need nothing but libc at run
// time. What the format asks (https://prometheus.io/docs/instrumenting/exposition_formats/):
//   - metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]* (not "__" first);
//   - in a label value, backslash, double quote and line feed are written \\, \" and \n;
//   - in HELP text, backslash and line feed are written \\ and \n (a quote stays as it is);
//   - values are Go floats: integers without a point, "NaN", "+Inf", "-Inf";
//   - every line ends with '\n', the last one too; a family's series follow its HELP/TYPE lines.
// Output is stable: families sorted by name, series by their label values in order (labels keep
// the order the caller gives, as exporters such as dcgm-exporter print them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace muster::prom {

inline constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

enum class MetricType { kGauge, kCounter, kHistogram };
const char* MetricTypeName(MetricType t);  // "gauge", "counter", "histogram"

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Series {
  Labels labels;
  double value = 0;
  // A histogram's series: "_bucket", "_sum" or "_count", written after the family's name.
  std::string suffix;
};

struct Family {
  std::string name;
  std::string help;
  MetricType type = MetricType::kGauge;
  std::vector<Series> series;
};

bool ValidMetricName(std::string_view name);
bool ValidLabelName(std::string_view name);
std::string EscapeLabelValue(std::string_view value);
std::string EscapeHelp(std::string_view help);
// 42 -> "42", 0.5 -> "0.5", 1e21 -> "1e+21", NaN -> "NaN", inf -> "+Inf".
std::string FormatValue(double v);

// Adds one label set's histogram to `family` (of type kHistogram): a `name_bucket{...,le="b"}` per
// bound with the cumulative count (`cumulative[i]`: observations <= bounds[i]), le="+Inf" with
// `count`, then `name_sum` and `name_count`. A histogram's series keep the order they were added.
void AddHistogram(Family& family, const Labels& labels, const std::vector<double>& bounds,
                  const std::vector<uint64_t>& cumulative, double sum, uint64_t count);

// The exposition of `families`. A family without series is left out (no HELP/TYPE line either).
// InvalidArgument naming the first invalid metric or label name, a family named twice, or a label
// named twice in one series.
StatusOr<std::string> WriteText(std::vector<Family> families);

}  // namespace muster::prom
