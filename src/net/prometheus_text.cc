// Prometheus' text exposition format: see prometheus_text.h.
#include "net/prometheus_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

namespace muster::prom {
namespace {

bool NameChar(char c, bool first, bool colon) {
  const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
  return letter || (!first && c >= '0' && c <= '9');
}

bool ValidName(std::string_view name, bool colon) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!NameChar(name[i], i == 0, colon)) return false;
  }
  return true;
}

// Escapes backslash and line feed, and the double quote when `quote`.
std::string Escape(std::string_view s, bool quote) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

bool SeriesLess(const Series& a, const Series& b) {
  const size_t n = std::min(a.labels.size(), b.labels.size());
  for (size_t i = 0; i < n; ++i) {
    if (a.labels[i] != b.labels[i]) return a.labels[i] < b.labels[i];
  }
  return a.labels.size() < b.labels.size();
}

}  // namespace

const char* MetricTypeName(MetricType t) {
  return t == MetricType::kCounter ? "counter" : t == MetricType::kHistogram ? "histogram" : "gauge";
}

void AddHistogram(Family& family, const Labels& labels, const std::vector<double>& bounds,
                  const std::vector<uint64_t>& cumulative, double sum, uint64_t count) {
  for (size_t i = 0; i < bounds.size() && i < cumulative.size(); ++i) {
    Labels l = labels;
    l.emplace_back("le", FormatValue(bounds[i]));
    family.series.push_back(Series{std::move(l), static_cast<double>(cumulative[i]), "_bucket"});
  }
  Labels inf = labels;
  inf.emplace_back("le", "+Inf");
  family.series.push_back(Series{std::move(inf), static_cast<double>(count), "_bucket"});
  family.series.push_back(Series{labels, sum, "_sum"});
  family.series.push_back(Series{labels, static_cast<double>(count), "_count"});
}

bool ValidMetricName(std::string_view name) { return ValidName(name, true); }

bool ValidLabelName(std::string_view name) { return ValidName(name, false) && !name.starts_with("__"); }

std::string EscapeLabelValue(std::string_view value) { return Escape(value, true); }

std::string EscapeHelp(std::string_view help) { return Escape(help, false); }

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  constexpr double kExact = 9007199254740992.0;  // 2^53: every integer below is a double exactly
  if (v == std::trunc(v) && std::fabs(v) < kExact) return std::to_string(static_cast<int64_t>(v));
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest form that reads back the same
  return ec == std::errc() ? std::string(buf, end) : "NaN";
}

StatusOr<std::string> WriteText(std::vector<Family> families) {
  std::sort(families.begin(), families.end(), [](const Family& a, const Family& b) { return a.name < b.name; });
  std::string out;
  for (size_t f = 0; f < families.size(); ++f) {
    Family& family = families[f];
    if (!ValidMetricName(family.name)) return InvalidArgument("invalid metric name \"" + family.name + "\"");
    if (f > 0 && families[f - 1].name == family.name) return InvalidArgument("metric " + family.name + " given twice");
    if (family.series.empty()) continue;
    if (family.type != MetricType::kHistogram) std::stable_sort(family.series.begin(), family.series.end(), SeriesLess);
    out += "# HELP " + family.name + " " + EscapeHelp(family.help) + "\n";
    out += "# TYPE " + family.name + " " + MetricTypeName(family.type) + "\n";
    for (const Series& s : family.series) {
      out += family.name + s.suffix;
      std::set<std::string_view> seen;
      for (size_t i = 0; i < s.labels.size(); ++i) {
        const auto& [name, value] = s.labels[i];
        if (!ValidLabelName(name)) return InvalidArgument("invalid label name \"" + name + "\" in " + family.name);
        if (!seen.insert(name).second) return InvalidArgument("label " + name + " given twice in " + family.name);
        out += i == 0 ? "{" : ",";
        out += name + "=\"" + EscapeLabelValue(value) + "\"";
      }
      if (!s.labels.empty()) out += "}";
      out += " " + FormatValue(s.value) + "\n";
    }
  }
  return out;
}

}  // namespace muster::prom
