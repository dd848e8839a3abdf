// The chart: TensorBoard's smoothing, and real PNG / SVG files that cairo reads back.
#include "plot/chart.h"

#include <cairo.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/test_util.h"

namespace bertpt::plot {
namespace {

using bertpt::testing::TempDir;

TEST(Chart, SmoothingIsTensorBoardsDebiasedMovingAverage) {
  const Points raw = {{1, 10}, {2, 0}, {3, 4}};
  const Points s = smooth(raw, 0.6);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_DOUBLE_EQ(s[0].second, 10.0);  // debiased: the first point is the raw value
  // ema1 = 0.4·10 = 4, ema2 = 0.6·4 + 0 = 2.4, ema3 = 0.6·2.4 + 0.4·4 = 3.04; debias 1 - 0.6^k
  EXPECT_NEAR(s[1].second, 2.4 / (1 - 0.36), 1e-12);
  EXPECT_NEAR(s[2].second, 3.04 / (1 - 0.216), 1e-12);
  EXPECT_EQ(s[2].first, 3.0);
  EXPECT_EQ(smooth(raw, 0.0), raw);
}

RunCurves run(const std::string& label, double scale) {
  RunCurves c;
  c.label = label;
  c.source = "bertpt";
  for (int i = 1; i <= 50; ++i) {
    c.loss.emplace_back(i * 10, scale * (10.0 / std::sqrt(i) + 0.1 * std::sin(i)));
    c.learning_rate.emplace_back(i * 10, 1e-4 * (1 - i / 50.0));
  }
  c.eval_loss = {{250, scale * 1.5}, {500, scale * 1.2}};
  c.records = 52;
  return c;
}

TEST(Chart, WritesAPngThatCairoReadsBack) {
  TempDir tmp;
  ChartOptions o;
  o.title = "two runs";
  write_chart({run("a", 1.0), run("b", 1.1)}, o, tmp.file("c.png"));
  const std::string bytes = bertpt::testing::slurp(tmp.file("c.png"));
  ASSERT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  cairo_surface_t* s = cairo_image_surface_create_from_png(tmp.file("c.png").c_str());
  ASSERT_EQ(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
  EXPECT_EQ(cairo_image_surface_get_width(s), o.width);
  EXPECT_EQ(cairo_image_surface_get_height(s), o.height);
  // Something was drawn in the run colours, not a blank page: count the non-white, non-grey pixels.
  const unsigned char* data = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  int coloured = 0;
  for (int y = 0; y < o.height; ++y) {
    for (int x = 0; x < o.width; ++x) {
      const unsigned char* px = data + y * stride + 4 * x;  // B, G, R, X
      coloured += std::abs(int(px[0]) - int(px[2])) > 60 ? 1 : 0;
    }
  }
  cairo_surface_destroy(s);
  EXPECT_GT(coloured, 1000);
}

// Pixels of the first run's colour (Tableau blue, 31 119 180) in a PNG.
int blue_pixels(const std::string& png) {
  cairo_surface_t* s = cairo_image_surface_create_from_png(png.c_str());
  EXPECT_EQ(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
  const unsigned char* data = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s), w = cairo_image_surface_get_width(s);
  int n = 0;
  for (int y = 0; y < cairo_image_surface_get_height(s); ++y) {
    for (int x = 0; x < w; ++x) {
      const unsigned char* px = data + y * stride + 4 * x;  // B, G, R, X
      n += std::abs(px[0] - 180) < 30 && std::abs(px[1] - 119) < 30 && std::abs(px[2] - 31) < 30 ? 1 : 0;
    }
  }
  cairo_surface_destroy(s);
  return n;
}

// A short run's single record draws no line, so it is drawn as a dot (every point is, up to 60).
TEST(Chart, ASeriesOfOnePointIsDrawn) {
  TempDir tmp;
  RunCurves one;
  one.label = "short";
  one.source = "bertpt";
  RunCurves none = one;
  one.loss = {{60, 6.5}};
  one.learning_rate = {{60, 1e-5}};
  write_chart({none}, ChartOptions{}, tmp.file("none.png"));
  write_chart({one}, ChartOptions{}, tmp.file("one.png"));
  EXPECT_GT(blue_pixels(tmp.file("one.png")), blue_pixels(tmp.file("none.png")) + 20);
}

TEST(Chart, NeighbouringTickLabelsDiffer) {
  for (double step : {2e-6, 5e-7, 0.02, 2.0, 500.0}) {
    for (double base : {1e-5, 0.1, 3.0, 12000.0}) {
      const std::string a = tick_label(base, step), b = tick_label(base + step, step);
      EXPECT_NE(a, b) << "base " << base << " step " << step;
    }
  }
  EXPECT_EQ(tick_label(1.2e-5, 2e-6), "1.2e-05");
  EXPECT_EQ(tick_label(0.5, 0.1), "0.5");
  EXPECT_EQ(tick_label(20000, 5000), "20k");
}

TEST(Chart, StepTicksAreWholeSteps) {
  // A run of one step (one record): the axis is around step 1, with whole steps as ticks.
  const StepAxis one = step_axis(1, 1);
  EXPECT_LE(one.lo, 1.0);
  EXPECT_GE(one.hi, 1.0);
  EXPECT_LT(one.lo, one.hi);
  ASSERT_GE(one.ticks.size(), 2u);
  for (double t : one.ticks) EXPECT_EQ(t, std::round(t)) << "a fractional step tick";
  EXPECT_NE(std::find(one.ticks.begin(), one.ticks.end(), 1.0), one.ticks.end());
  for (const auto& [lo, hi] : std::vector<std::pair<double, double>>{{1, 2}, {1, 3}, {0, 4}, {5, 7}}) {
    const StepAxis a = step_axis(lo, hi);
    EXPECT_GE(a.step, 1.0) << lo << ".." << hi;
    for (double t : a.ticks) EXPECT_EQ(t, std::round(t)) << lo << ".." << hi;
    EXPECT_FALSE(a.ticks.empty());
  }
  // Long runs keep their round ticks.
  const StepAxis long_run = step_axis(10, 1000);
  EXPECT_EQ(long_run.step, 200);
  EXPECT_EQ(long_run.ticks, (std::vector<double>{200, 400, 600, 800, 1000}));
}

// The columns left of panel `b`'s y axis that hold ink (dark grey pixels: text, not the curves' colours)
// between its top and bottom, grouped into runs of columns less than 4 apart (the gaps between glyphs):
// the tick labels (right-aligned next to the axis) and the rotated title.
std::vector<std::pair<int, int>> ink_left_of_axis(const std::string& png, const PanelBox& b) {
  cairo_surface_t* s = cairo_image_surface_create_from_png(png.c_str());
  EXPECT_EQ(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
  const unsigned char* data = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  std::vector<std::pair<int, int>> runs;  // [first, last] columns, right to left
  for (int x = int(b.x) - 4; x > int(b.x) - 100; --x) {
    bool ink = false;
    for (int y = int(b.y) - 6; y < int(b.y + b.h) + 6 && !ink; ++y) {
      const unsigned char* px = data + y * stride + 4 * x;  // B, G, R, X
      ink = (px[0] + px[1] + px[2]) / 3 < 160 && std::abs(px[0] - px[2]) < 30;
    }
    if (!ink) continue;
    if (!runs.empty() && runs.back().first - x < 4) runs.back().first = x;
    else runs.emplace_back(x, x);
  }
  cairo_surface_destroy(s);
  return runs;
}

TEST(Chart, LongLearningRateTickLabelsDoNotRunIntoTheAxisTitle) {
  TempDir tmp;
  RunCurves c;
  c.label = "lr";
  c.source = "bertpt";
  // Ticks 5e-9 apart around 1.2345e-05: labels of ten characters ("1.2345e-05").
  for (int i = 1; i <= 50; ++i) c.learning_rate.emplace_back(i, 1.2345e-5 + 4e-10 * i);
  ChartOptions o;
  write_chart({c}, o, tmp.file("lr.png"));
  EXPECT_EQ(tick_label(1.2345e-5, 5e-9), "1.2345e-05");
  const auto ink = ink_left_of_axis(tmp.file("lr.png"), panel_box(o, 1, 3));
  // Two separate runs of columns: the labels next to the axis, then a gap, then the title.
  ASSERT_GE(ink.size(), 2u) << "the tick labels and the axis title touch";
  EXPECT_GT(ink[0].second - ink[0].first, 45) << "the labels are long";
  // The title still fits in the chart's gap between panels.
  EXPECT_GT(ink.back().first, int(panel_box(o, 1, 2).x + panel_box(o, 1, 2).w) + 2);
}

TEST(Chart, WritesSvgAndRefusesBadSmoothing) {
  TempDir tmp;
  write_chart({run("a", 1.0)}, ChartOptions{}, tmp.file("c.svg"));
  const std::string svg = bertpt::testing::slurp(tmp.file("c.svg"));
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  ChartOptions bad;
  bad.smoothing = 1.0;
  EXPECT_THROW(write_chart({run("a", 1.0)}, bad, tmp.file("d.png")), BadInput);
}

}  // namespace
}  // namespace bertpt::plot
