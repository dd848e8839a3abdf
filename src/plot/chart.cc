#include "plot/chart.h"

#include <cairo-svg.h>
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "common/atomic_file.h"
#include "common/error.h"

namespace bertpt::plot {

namespace {

struct Rgb {
  double r, g, b;
};
// Tableau 10, the palette matplotlib and TensorBoard users know.
constexpr Rgb kPalette[] = {{0.12, 0.47, 0.71}, {0.84, 0.15, 0.16}, {0.17, 0.63, 0.17}, {1.00, 0.50, 0.05},
                            {0.58, 0.40, 0.74}, {0.55, 0.34, 0.29}, {0.89, 0.47, 0.76}, {0.50, 0.50, 0.50}};
Rgb color_of(size_t run) { return kPalette[run % (sizeof kPalette / sizeof *kPalette)]; }

struct Curve {
  Rgb color;
  Points train, eval;
};

struct Panel {
  std::string title, y_label;
  std::vector<Curve> curves;
  bool smoothed = true;  // noisy measurements; a schedule (the learning rate) is drawn as it is
};

// Training series with at most this many points get a dot at each point.
constexpr size_t kDotsUpTo = 60;

using Box = PanelBox;

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(const Points& p, bool x) {
    for (auto [a, b] : p) lo = std::min(lo, x ? a : b), hi = std::max(hi, x ? a : b);
  }
  bool empty() const { return !(lo <= hi); }
};

// 1, 2 or 5 times a power of ten, about range/5: tick spacing people read easily.
double nice_step(double range) {
  if (!(range > 0) || !std::isfinite(range)) return 1;
  const double raw = range / 5, p = std::pow(10.0, std::floor(std::log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

void set_font(cairo_t* cr, double size, bool bold) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

// Draws `s` with its baseline at y, `align` of its width left of x (0 left, 0.5 centred, 1 right);
// returns its width.
double text(cairo_t* cr, double x, double y, const std::string& s, double size, double align, bool bold = false) {
  set_font(cr, size, bold);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s.c_str(), &e);
  cairo_move_to(cr, x - align * e.x_advance, y);
  cairo_show_text(cr, s.c_str());
  return e.x_advance;
}

// A dot at every point: a short run's few records (one record draws no line) stay visible.
void dots(cairo_t* cr, const Points& p, const Box& b, const Range& xr, const Range& yr) {
  for (const auto& [px, py] : p) {
    const double x = b.x + (px - xr.lo) / (xr.hi - xr.lo) * b.w, y = b.y + b.h - (py - yr.lo) / (yr.hi - yr.lo) * b.h;
    cairo_arc(cr, x, y, 2.5, 0, 2 * M_PI);
    cairo_fill(cr);
  }
}

void polyline(cairo_t* cr, const Points& p, const Box& b, const Range& xr, const Range& yr) {
  for (size_t i = 0; i < p.size(); ++i) {
    const double x = b.x + (p[i].first - xr.lo) / (xr.hi - xr.lo) * b.w;
    const double y = b.y + b.h - (p[i].second - yr.lo) / (yr.hi - yr.lo) * b.h;
    if (i == 0) cairo_move_to(cr, x, y);
    else cairo_line_to(cr, x, y);
  }
  cairo_stroke(cr);
}

// Grid, tick labels and axis titles of a panel whose data spans xr × yr (widened to whole ticks).
void draw_axes(cairo_t* cr, const Panel& p, const Box& b, Range& xr, Range& yr) {
  if (yr.hi == yr.lo)
    yr.hi += std::max(1e-9, std::fabs(yr.hi) * 0.05), yr.lo -= std::max(1e-9, std::fabs(yr.lo) * 0.05);
  const double ys = nice_step(yr.hi - yr.lo);
  yr.lo = std::floor(yr.lo / ys) * ys, yr.hi = std::ceil(yr.hi / ys) * ys;
  const StepAxis steps = step_axis(xr.lo, xr.hi);
  xr.lo = steps.lo, xr.hi = steps.hi;
  cairo_set_line_width(cr, 1);
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  double widest = 0;  // of the y tick labels
  for (double t = yr.lo; t <= yr.hi + ys / 2; t += ys) {
    const double y = b.y + b.h - (t - yr.lo) / (yr.hi - yr.lo) * b.h;
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, b.x, y), cairo_line_to(cr, b.x + b.w, y), cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    widest = std::max(widest, text(cr, b.x - 6, y + 4, tick_label(std::fabs(t) < ys * 1e-9 ? 0.0 : t, ys), 11, 1.0));
  }
  for (const double t : steps.ticks) {
    const double x = b.x + (t - xr.lo) / (xr.hi - xr.lo) * b.w;
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, x, b.y), cairo_line_to(cr, x, b.y + b.h), cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    text(cr, x, b.y + b.h + 16, tick_label(t, steps.step), 11, 0.5);
  }
  cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
  cairo_rectangle(cr, b.x, b.y, b.w, b.h), cairo_stroke(cr);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  text(cr, b.x, b.y - 10, p.title, 14, 0.0, true);
  text(cr, b.x + b.w / 2, b.y + b.h + 34, "step", 12, 0.5);
  // The y title, turned: its baseline 58 px left of the axis, or further left, clear of long tick
  // labels ("1.2345e-05"), with its descenders (to the right once turned) 6 px from them.
  set_font(cr, 12, false);
  cairo_font_extents_t fe;
  cairo_font_extents(cr, &fe);
  const double title_x = std::min(b.x - 58, b.x - 6 - widest - 6 - fe.descent);
  cairo_save(cr);
  cairo_translate(cr, title_x, b.y + b.h / 2);
  cairo_rotate(cr, -M_PI / 2);
  text(cr, 0, 0, p.y_label, 12, 0.5);
  cairo_restore(cr);
}

void draw_panel(cairo_t* cr, const Panel& p, const Box& b, double smoothing) {
  Range xr, yr;
  for (const auto& c : p.curves)
    xr.add(c.train, true), xr.add(c.eval, true), yr.add(c.train, false), yr.add(c.eval, false);
  if (xr.empty()) {
    cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
    cairo_rectangle(cr, b.x, b.y, b.w, b.h), cairo_stroke(cr);
    text(cr, b.x, b.y - 10, p.title, 14, 0.0, true);
    text(cr, b.x + b.w / 2, b.y + b.h / 2, "no data", 13, 0.5);
    return;
  }
  draw_axes(cr, p, b, xr, yr);
  cairo_save(cr);
  cairo_rectangle(cr, b.x - 7, b.y - 7, b.w + 14, b.h + 14), cairo_clip(cr);  // room for the edge's eval dots
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  for (const auto& c : p.curves) {
    const bool smoothed = p.smoothed && smoothing > 0 && c.train.size() > 2;
    cairo_set_source_rgba(cr, c.color.r, c.color.g, c.color.b, smoothed ? 0.25 : 1.0);
    cairo_set_line_width(cr, smoothed ? 1.0 : 1.8);
    polyline(cr, c.train, b, xr, yr);
    if (c.train.size() <= kDotsUpTo) dots(cr, c.train, b, xr, yr);
    if (smoothed) {
      cairo_set_source_rgb(cr, c.color.r, c.color.g, c.color.b);
      cairo_set_line_width(cr, 2.0);
      polyline(cr, smooth(c.train, smoothing), b, xr, yr);
    }
    for (auto [x, y] : c.eval) {  // eval: dots with a white ring, readable over the lines
      const double px = b.x + (x - xr.lo) / (xr.hi - xr.lo) * b.w, py = b.y + b.h - (y - yr.lo) / (yr.hi - yr.lo) * b.h;
      cairo_arc(cr, px, py, 5, 0, 2 * M_PI);
      cairo_set_source_rgb(cr, 1, 1, 1), cairo_fill_preserve(cr);
      cairo_set_source_rgb(cr, c.color.r, c.color.g, c.color.b), cairo_set_line_width(cr, 2.5), cairo_stroke(cr);
    }
  }
  cairo_restore(cr);
}

Panel make_panel(const std::vector<RunCurves>& runs, std::string title, std::string y_label, Points RunCurves::*train,
                 Points RunCurves::*eval, bool smoothed = true) {
  Panel p{std::move(title), std::move(y_label), {}, smoothed};
  for (size_t i = 0; i < runs.size(); ++i) {
    p.curves.push_back({color_of(i), train ? runs[i].*train : Points{}, eval ? runs[i].*eval : Points{}});
  }
  return p;
}

// The figure's title and one legend line per run: its colour, its label and where it comes from.
void draw_header(cairo_t* cr, const std::vector<RunCurves>& runs, const ChartOptions& o) {
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  text(cr, 24, 30, o.title, 18, 0.0, true);
  double y = 56;
  for (size_t i = 0; i < runs.size(); ++i, y += 20) {
    const Rgb c = color_of(i);
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    cairo_set_line_width(cr, 3);
    cairo_move_to(cr, 28, y - 4), cairo_line_to(cr, 52, y - 4), cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    text(cr, 60, y, runs[i].label + "  (" + runs[i].source + ")", 12, 0.0);
  }
  char note[96];
  std::snprintf(note, sizeof note, "lines: training (smoothing %.2f, raw faint)   dots: evaluation", o.smoothing);
  cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
  text(cr, o.width - 24.0, 30, note, 11, 1.0);
}

void draw(cairo_t* cr, const std::vector<RunCurves>& runs, const ChartOptions& o) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  draw_header(cr, runs, o);
  const Panel panels[] = {
      make_panel(runs, "Loss", "cross-entropy (nats)", &RunCurves::loss, &RunCurves::eval_loss),
      make_panel(runs, "Accuracy", "masked-token accuracy", &RunCurves::accuracy, &RunCurves::eval_accuracy),
      make_panel(runs, "Throughput", "tokens / s", &RunCurves::tokens_per_sec, nullptr),
      make_panel(runs, "Learning rate", "learning rate", &RunCurves::learning_rate, nullptr, false)};
  for (int i = 0; i < 4; ++i) draw_panel(cr, panels[i], panel_box(o, runs.size(), i), o.smoothing);
}

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

StepAxis step_axis(double lo, double hi) {
  StepAxis a{lo, hi, 1, {}};
  if (a.hi == a.lo) a.lo = std::max(0.0, lo - 1), a.hi = lo + 1;  // one step: in the middle when it can be
  a.step = std::max(1.0, nice_step(a.hi - a.lo));                 // whole steps only
  for (double t = std::ceil(a.lo / a.step) * a.step; t <= a.hi + a.step * 1e-6; t += a.step) a.ticks.push_back(t);
  return a;
}

PanelBox panel_box(const ChartOptions& o, size_t runs, int panel) {
  const double top = 56 + 20.0 * double(runs) + 20, left = 90, gap_x = 110, gap_y = 90;
  const double pw = (o.width - left - gap_x - 50) / 2, ph = (o.height - top - gap_y - 50) / 2;
  return {left + (panel % 2) * (pw + gap_x), top + (panel / 2) * (ph + gap_y), pw, ph};
}

std::string tick_label(double v, double step) {
  char b[32];
  const double a = std::fabs(v);
  const int digits = a > 0 && step > 0 ? std::max(0, int(std::floor(std::log10(a)) - std::floor(std::log10(step)))) : 0;
  if (a >= 1e6) std::snprintf(b, sizeof b, "%.*gM", std::max(3, digits + 1), v / 1e6);
  else if (a >= 1e4) std::snprintf(b, sizeof b, "%.*gk", std::max(3, digits + 1), v / 1e3);
  else if (a != 0 && a < 1e-3) std::snprintf(b, sizeof b, "%.*e", std::min(digits, 6), v);
  else std::snprintf(b, sizeof b, "%.*g", std::max(4, digits + 1), v);
  return b;
}

Points smooth(const Points& points, double weight) {
  Points out;
  out.reserve(points.size());
  double ema = 0, w_power = 1;
  for (const auto& [x, y] : points) {
    ema = ema * weight + (1 - weight) * y;
    w_power *= weight;
    out.emplace_back(x, weight > 0 ? ema / (1 - w_power) : y);
  }
  return out;
}

void write_chart(const std::vector<RunCurves>& runs, const ChartOptions& o, const std::string& path) {
  if (!(o.smoothing >= 0 && o.smoothing < 1)) throw BadInput("--smoothing must be in [0, 1)");
  const bool png = path.size() >= 4 && path.compare(path.size() - 4, 4, ".png") == 0;
  std::string bytes;
  cairo_surface_t* surface = png ? cairo_image_surface_create(CAIRO_FORMAT_RGB24, o.width, o.height)
                                 : cairo_svg_surface_create_for_stream(append, &bytes, o.width, o.height);
  cairo_t* cr = cairo_create(surface);
  draw(cr, runs, o);
  cairo_status_t status = cairo_status(cr);
  cairo_destroy(cr);
  if (png && status == CAIRO_STATUS_SUCCESS) status = cairo_surface_write_to_png_stream(surface, append, &bytes);
  cairo_surface_finish(surface);  // an SVG surface writes its last bytes here
  if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS) {
    throw Error(Error::Kind::Internal, path + ": cairo could not draw the chart: " + cairo_status_to_string(status));
  }
  write_file_atomic(path, bytes);
}

}  // namespace bertpt::plot
