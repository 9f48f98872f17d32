#include "sim/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace muster {

namespace {

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// A "nice" tick step for a range: 1, 2 or 5 times a power of ten, about 5 ticks.
double TickStep(double range) {
  if (range <= 0) return 1;
  const double raw = range / 5;
  const double p = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * p) return m * p;
  }
  return 10 * p;
}

std::string TickLabel(double v, double step) {
  char buf[32];
  const int digits = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step)));
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

std::string RenderSvg(const LinePlot& plot, int width, int height) {
  static const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
  double x_lo = plot.x_lo, x_hi = plot.x_hi, y_lo = plot.y_lo, y_hi = plot.y_hi;
  if (x_lo >= x_hi || y_lo >= y_hi) {
    double ax = std::numeric_limits<double>::max(), bx = -ax, ay = ax, by = -ax;
    for (const PlotSeries& s : plot.series) {
      for (const auto& [x, y] : s.points) {
        ax = std::min(ax, x);
        bx = std::max(bx, x);
        ay = std::min(ay, y);
        by = std::max(by, y);
      }
    }
    if (ax > bx) ax = 0, bx = 1, ay = 0, by = 1;  // no data
    if (x_lo >= x_hi) x_lo = ax, x_hi = bx > ax ? bx : ax + 1;
    if (y_lo >= y_hi) y_lo = ay, y_hi = by > ay ? by : ay + 1;
  }
  const double left = 70, right = width - 170.0, top = 40, bottom = height - 55.0;
  auto px = [&](double x) { return left + (x - x_lo) / (x_hi - x_lo) * (right - left); };
  auto py = [&](double y) { return bottom - (y - y_lo) / (y_hi - y_lo) * (bottom - top); };
  std::string o;
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
       std::to_string(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  o += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o += "<text x=\"" + Num(width / 2.0) + "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" + Escape(plot.title) +
       "</text>\n";
  // Grid, ticks and tick labels.
  const double xs = TickStep(x_hi - x_lo), ys = TickStep(y_hi - y_lo);
  for (double x = std::ceil(x_lo / xs) * xs; x <= x_hi + xs * 1e-9; x += xs) {
    o += "<line x1=\"" + Num(px(x)) + "\" y1=\"" + Num(top) + "\" x2=\"" + Num(px(x)) + "\" y2=\"" + Num(bottom) +
         "\" stroke=\"#e0e0e0\"/>\n";
    o += "<text x=\"" + Num(px(x)) + "\" y=\"" + Num(bottom + 16) + "\" text-anchor=\"middle\">" + TickLabel(x, xs) +
         "</text>\n";
  }
  for (double y = std::ceil(y_lo / ys) * ys; y <= y_hi + ys * 1e-9; y += ys) {
    o += "<line x1=\"" + Num(left) + "\" y1=\"" + Num(py(y)) + "\" x2=\"" + Num(right) + "\" y2=\"" + Num(py(y)) +
         "\" stroke=\"#e0e0e0\"/>\n";
    o += "<text x=\"" + Num(left - 6) + "\" y=\"" + Num(py(y) + 4) + "\" text-anchor=\"end\">" + TickLabel(y, ys) +
         "</text>\n";
  }
  o += "<rect x=\"" + Num(left) + "\" y=\"" + Num(top) + "\" width=\"" + Num(right - left) + "\" height=\"" +
       Num(bottom - top) + "\" fill=\"none\" stroke=\"black\"/>\n";
  o += "<text x=\"" + Num((left + right) / 2) + "\" y=\"" + Num(height - 15.0) + "\" text-anchor=\"middle\">" +
       Escape(plot.x_label) + "</text>\n";
  o += "<text transform=\"translate(18," + Num((top + bottom) / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
       Escape(plot.y_label) + "</text>\n";
  // Series and legend.
  for (size_t k = 0; k < plot.series.size(); ++k) {
    const PlotSeries& s = plot.series[k];
    const char* color = kPalette[k % (sizeof kPalette / sizeof kPalette[0])];
    o += "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"2\" points=\"";
    for (size_t i = 0; i < s.points.size(); ++i) {
      const double x = std::clamp(s.points[i].first, x_lo, x_hi), y = std::clamp(s.points[i].second, y_lo, y_hi);
      o += (i ? " " : "") + Num(px(x)) + "," + Num(py(y));
    }
    o += "\"/>\n";
    const double ly = top + 10 + 20.0 * static_cast<double>(k);
    o += "<line x1=\"" + Num(right + 15) + "\" y1=\"" + Num(ly) + "\" x2=\"" + Num(right + 40) + "\" y2=\"" + Num(ly) +
         "\" stroke=\"" + color + "\" stroke-width=\"3\"/>\n";
    o += "<text x=\"" + Num(right + 46) + "\" y=\"" + Num(ly + 4) + "\">" + Escape(s.name) + "</text>\n";
  }
  o += "</svg>\n";
  return o;
}

}  // namespace muster
