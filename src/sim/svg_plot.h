// Line charts as SVG text, for the simulator's plots (allocation over arrived demand, JCT CDFs):
// axes with ticks and labels, one polyline per series in a fixed palette, a legend. Pure.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace muster {

struct PlotSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in this order
};

struct LinePlot {
  std::string title, x_label, y_label;
  std::vector<PlotSeries> series;
  // Axis ranges; when lo >= hi the data's range is used.
  double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
};

std::string RenderSvg(const LinePlot& plot, int width = 800, int height = 500);

}  // namespace muster
