// `bertpt plot RUN`: draws RUN/metrics.jsonl as RUN/curves.svg — loss, MLM accuracy and throughput
// against the step, training records as lines and evaluation records as dots. Hand-written SVG: no
// plotting library, plain C++ (works in builds without LibTorch too).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/train_commands.h"
#include "common/atomic_file.h"
#include "common/error.h"

namespace bertpt::cli {

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

}  // namespace

// The SVG of a metrics.jsonl text; `title` heads the picture.
static std::string render_curves_svg(const std::string& metrics_text, const std::string& title, size_t* records) {
  Series loss{"train loss", "#1f77b4", {}, false}, eval_loss{"eval loss", "#d62728", {}, true};
  Series acc{"train MLM accuracy", "#2ca02c", {}, false}, eval_acc{"eval accuracy", "#d62728", {}, true};
  Series tps{"tokens/s", "#9467bd", {}, false};
  std::istringstream in(metrics_text);
  std::string line;
  size_t n = 0, line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      continue;  // a line cut short by a crash: skip it, as the trainer does
    }
    if (!j.is_object() || !j.contains("step") || !j["step"].is_number()) continue;
    ++n;
    const double step = j["step"].get<double>();
    auto add = [&](Series& s, const char* key) {
      if (j.contains(key) && j[key].is_number()) s.points.emplace_back(step, j[key].get<double>());
    };
    add(loss, "loss");
    add(eval_loss, "eval_loss");
    add(acc, "mlm_accuracy");
    add(eval_acc, "eval_accuracy");
    add(tps, "tokens_per_sec");
  }
  if (records) *records = n;
  const double W = 900, PH = 220, left = 70, top = 50, gap = 70;
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << top + 3 * (PH + gap)
      << "' font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n";
  svg << "<text x='" << left << "' y='24' font-size='16'>" << xml_escape(title) << "</text>\n";
  const Panel panels[] = {
      {"MLM loss", {loss, eval_loss}}, {"MLM accuracy", {acc, eval_acc}}, {"throughput (tokens/s)", {tps}}};
  for (int i = 0; i < 3; ++i) draw_panel(svg, panels[i], left, top + 20 + i * (PH + gap), W - left - 30, PH);
  svg << "<text x='" << W / 2 << "' y='" << top + 3 * (PH + gap) - 12
      << "' font-size='12' text-anchor='middle'>step</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

void add_plot_command(CLI::App& app) {
  struct Opts {
    CommonFlags common;
    std::string run, out;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "plot", "Draw a run's loss, accuracy and throughput curves (RUN/metrics.jsonl -> RUN/curves.svg)");
  cmd->add_option("run", o->run, "Run directory (--output-dir of bertpt train) or a metrics.jsonl file")->required();
  cmd->add_option("-o,--out", o->out, "SVG file to write (default RUN/curves.svg)");
  add_common_flags(cmd, o->common);
  cmd->callback([o] {
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool is_dir = fs::is_directory(o->run, ec);
    const std::string metrics = is_dir ? (fs::path(o->run) / "metrics.jsonl").string() : o->run;
    if (!fs::exists(metrics, ec)) {
      throw BadInput(metrics + " does not exist",
                     "pass the --output-dir of a bertpt train run (it writes metrics.jsonl)");
    }
    const std::string out = !o->out.empty() ? o->out
                            : is_dir        ? (fs::path(o->run) / "curves.svg").string()
                                            : (fs::path(metrics).parent_path() / "curves.svg").string();
    size_t records = 0;
    std::string svg = render_curves_svg(read_file(metrics), "bertpt run " + o->run, &records);
    if (records == 0) throw BadInput(metrics + " has no metrics records yet", "plot after the first logged step");
    write_file_atomic(out, svg);
    if (!o->common.quiet) std::fprintf(stderr, "plot: %zu records -> %s\n", records, out.c_str());
    if (o->common.json) print_json({{"out", out}, {"records", records}});
  });
}

}  // namespace bertpt::cli
