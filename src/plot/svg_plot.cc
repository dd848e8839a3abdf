#include "plot/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace bertpt::plot {

namespace {

struct Series {
  std::string label, color;
  std::vector<std::pair<double, double>> points;  // (step, value)
  bool dots = false;                              // eval records are sparse: draw markers
};

struct Panel {
  std::string title;
  std::vector<Series> series;
};

// 1, 2 or 5 times a power of ten, about range/5: tick spacing people read easily.
double nice_step(double range) {
  if (range <= 0 || !std::isfinite(range)) return 1;
  const double raw = range / 5, p = std::pow(10.0, std::floor(std::log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

std::string fmt(double v) {
  char b[32];
  const double a = std::fabs(v);
  if (a >= 1e6) std::snprintf(b, sizeof b, "%.3gM", v / 1e6);
  else if (a >= 1e4) std::snprintf(b, sizeof b, "%.3gk", v / 1e3);
  else std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else o += c;
  }
  return o;
}

void draw_panel(std::ostringstream& svg, const Panel& p, double x0, double y0, double w, double h) {
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymin = xmin, ymax = -xmin;
  for (const auto& s : p.series) {
    for (auto [x, y] : s.points) {
      xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    }
  }
  svg << "<text x='" << x0 << "' y='" << y0 - 8 << "' font-size='14' font-weight='bold'>" << xml_escape(p.title)
      << "</text>\n";
  svg << "<rect x='" << x0 << "' y='" << y0 << "' width='" << w << "' height='" << h
      << "' fill='none' stroke='#999'/>\n";
  if (!std::isfinite(xmin)) {
    svg << "<text x='" << x0 + w / 2 << "' y='" << y0 + h / 2 << "' text-anchor='middle' fill='#999'>no data</text>\n";
    return;
  }
  if (xmax == xmin) xmax = xmin + 1;
  if (ymax == ymin) ymax = ymin + 1, ymin -= 1;
  const double ys = nice_step(ymax - ymin);
  ymin = std::floor(ymin / ys) * ys, ymax = std::ceil(ymax / ys) * ys;
  auto X = [&](double x) { return x0 + (x - xmin) / (xmax - xmin) * w; };
  auto Y = [&](double y) { return y0 + h - (y - ymin) / (ymax - ymin) * h; };
  for (double t = ymin; t <= ymax + ys / 2; t += ys) {
    svg << "<line x1='" << x0 << "' x2='" << x0 + w << "' y1='" << Y(t) << "' y2='" << Y(t) << "' stroke='#eee'/>"
        << "<text x='" << x0 - 6 << "' y='" << Y(t) + 4 << "' font-size='11' text-anchor='end'>" << fmt(t)
        << "</text>\n";
  }
  const double xs = nice_step(xmax - xmin);
  for (double t = std::ceil(xmin / xs) * xs; t <= xmax + xs / 1e6; t += xs) {
    svg << "<line x1='" << X(t) << "' x2='" << X(t) << "' y1='" << y0 << "' y2='" << y0 + h << "' stroke='#eee'/>"
        << "<text x='" << X(t) << "' y='" << y0 + h + 14 << "' font-size='11' text-anchor='middle'>" << fmt(t)
        << "</text>\n";
  }
  double lx = x0 + 10;
  for (const auto& s : p.series) {
    if (s.points.empty()) continue;
    if (s.dots) {
      for (auto [x, y] : s.points) {
        svg << "<circle cx='" << X(x) << "' cy='" << Y(y) << "' r='3.5' fill='" << s.color << "'/>\n";
      }
    } else {
      svg << "<polyline fill='none' stroke-width='1.5' stroke='" << s.color << "' points='";
      for (auto [x, y] : s.points) svg << X(x) << "," << Y(y) << " ";
      svg << "'/>\n";
    }
    svg << "<rect x='" << lx << "' y='" << y0 + 8 << "' width='10' height='10' fill='" << s.color << "'/>"
        << "<text x='" << lx + 14 << "' y='" << y0 + 17 << "' font-size='11'>" << xml_escape(s.label) << "</text>\n";
    lx += 24 + 7.0 * double(s.label.size());
  }
}

const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"};

// The series of one quantity over every run: the train curve as a line, its eval points as dots.
Panel make_panel(const std::vector<RunCurves>& runs, const std::string& title, Points RunCurves::*train,
                 Points RunCurves::*eval) {
  Panel p{title, {}};
  const bool many = runs.size() > 1;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string color = kPalette[i % (sizeof kPalette / sizeof *kPalette)];
    const std::string prefix = many ? runs[i].label + ": " : "";
    if (train) p.series.push_back({prefix + "train", color, runs[i].*train, false});
    if (eval) p.series.push_back({prefix + "eval", many ? color : "#d62728", runs[i].*eval, true});
  }
  return p;
}

}  // namespace

std::string render_svg(const std::vector<RunCurves>& runs, const std::string& title) {
  const Panel panels[] = {make_panel(runs, "MLM loss", &RunCurves::loss, &RunCurves::eval_loss),
                          make_panel(runs, "MLM accuracy", &RunCurves::accuracy, &RunCurves::eval_accuracy),
                          make_panel(runs, "throughput (tokens/s)", &RunCurves::tokens_per_sec, nullptr)};
  const double W = 900, PH = 220, left = 70, top = 50, gap = 70;
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << top + 3 * (PH + gap)
      << "' font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n";
  svg << "<text x='" << left << "' y='24' font-size='16'>" << xml_escape(title) << "</text>\n";
  for (int i = 0; i < 3; ++i) draw_panel(svg, panels[i], left, top + 20 + i * (PH + gap), W - left - 30, PH);
  svg << "<text x='" << W / 2 << "' y='" << top + 3 * (PH + gap) - 12
      << "' font-size='12' text-anchor='middle'>step</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace bertpt::plot
