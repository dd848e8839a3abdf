// SVG pictures of training curves: one panel per quantity (loss, accuracy, throughput), every run
// in its own colour (training records as lines, evaluation records as dots), the step on the x axis.
// Hand-written SVG, plain C++ (no LibTorch).
#pragma once

#include <string>
#include <vector>

#include "plot/run_curves.h"

namespace bertpt::plot {

// The whole picture; `title` heads it.
std::string render_svg(const std::vector<RunCurves>& runs, const std::string& title);

}  // namespace bertpt::plot
