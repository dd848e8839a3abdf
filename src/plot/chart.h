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

// Writes the chart to `path`: PNG when it ends in ".png", else SVG. BadInput naming the file when it
// cannot be written.
void write_chart(const std::vector<RunCurves>& runs, const ChartOptions& options, const std::string& path);

}  // namespace bertpt::plot
