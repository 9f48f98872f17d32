// The SVG line chart: one polyline per series with every point mapped into the plot area, the
// axis range from the data unless given, labels escaped.
#include "sim/svg_plot.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(SvgPlot, SeriesAxesAndLegend) {
  LinePlot p;
  p.title = "GPU allocation <openb & default>";
  p.x_label = "arrived GPU demand (%)";
  p.y_label = "allocated (%)";
  p.series = {{"fgd", {{0, 0}, {50, 50}, {100, 95}}}, {"random", {{0, 0}, {100, 86}}}};
  p.x_lo = 0;
  p.x_hi = 100;
  p.y_lo = 0;
  p.y_hi = 100;
  const std::string svg = RenderSvg(p, 800, 500);
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_EQ(Count(svg, "<polyline"), 2u);
  // The plot area is x 70..630, y 40..445: (0,0) is the bottom left, (100,95) near the top right.
  EXPECT_NE(svg.find("points=\"70.0,445.0 350.0,242.5 630.0,60.2\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("GPU allocation &lt;openb &amp; default&gt;"), std::string::npos);
  EXPECT_NE(svg.find(">fgd</text>"), std::string::npos);
  EXPECT_NE(svg.find(">random</text>"), std::string::npos);
  EXPECT_NE(svg.find(">100</text>"), std::string::npos);  // a tick label
  // Without a range: the data's.
  LinePlot q;
  q.series = {{"a", {{10, 5}, {20, 7}}}};
  const std::string auto_range = RenderSvg(q, 800, 500);
  EXPECT_NE(auto_range.find("points=\"70.0,445.0 630.0,40.0\""), std::string::npos) << auto_range;
}

}  // namespace
}  // namespace muster
