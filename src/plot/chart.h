// Pictures of training curves, drawn with cairo (the 2-D library behind GTK's and many plotting
// tools' output) into PNG or SVG: four panels — loss, accuracy, throughput, learning rate — against
// the step, every run in its own colour, training records as lines (smoothed like TensorBoard's
// slider, the raw curve faint behind), evaluation records as dots, one legend for the figure.
// Plain C++ (no LibTorch).
#pragma once

#include <string>
#include <vector>

#include "plot/run_curves.h"

namespace bertpt::plot {

struct ChartOptions {
  std::string title;
  double smoothing = 0.6;  // TensorBoard's default; 0 draws the raw curves only
  int width = 1200, height = 860;
};

// TensorBoard's smoothing: an exponential moving average, debiased at the start
// (smoothed_i = ema_i / (1 - w^(i+1))), so the first point is the raw value. w in [0, 1).
Points smooth(const Points& points, double weight);

// The label of tick `v` on an axis whose ticks are `step` apart: as many significant digits as tell
// neighbouring ticks apart ("1.2e-05" and "1.4e-05", not "1e-05" twice).
std::string tick_label(double v, double step);

// The step axis of a panel whose records span steps [lo, hi] (a single step: one step either side),
// and its ticks: 1, 2 or 5 x 10^k steps apart and never less than 1, so every tick is a whole step.
struct StepAxis {
  double lo = 0, hi = 0;      // the range drawn
  double step = 1;            // between ticks
  std::vector<double> ticks;  // the ticks in [lo, hi]
};
StepAxis step_axis(double lo, double hi);

// Where draw() puts panel `panel` (0 loss, 1 accuracy, 2 throughput, 3 learning rate) of a chart of
// `runs` runs: its plot area in pixels (the axes' labels and titles are outside it).
struct PanelBox {
  double x, y, w, h;
};
PanelBox panel_box(const ChartOptions& options, size_t runs, int panel);

// Writes the chart to `path`: PNG when it ends in ".png", else SVG. BadInput naming the file when it
// cannot be written.
void write_chart(const std::vector<RunCurves>& runs, const ChartOptions& options, const std::string& path);

}  // namespace bertpt::plot
