#include "classify/glue.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "classify/predict.h"
#include "common/atomic_file.h"
#include "common/error.h"

namespace bertpt::classify {

namespace fs = std::filesystem;

namespace {

// One GLUE task: its folder names, the columns of its TSV files, and its metrics (report keys).
struct TaskSpec {
  const char* name;
  std::vector<const char*> folders;  // the official name first
  const char* text;
  const char* pair;  // "" for single-sentence tasks
  const char* label;
  const char* problem_type;
  std::vector<const char*> metrics;  // "mcc", "binary_f1", "accuracy", "pearson", "spearman"
  const char* dev = "dev.tsv";
  const char* dev_mismatched = "";  // MNLI's second dev set
};

const std::vector<TaskSpec>& glue_tasks() {
  static const std::vector<TaskSpec> tasks = {
      {"CoLA", {"CoLA"}, "sentence", "", "label", "single_label_classification", {"mcc"}},
      {"SST-2", {"SST-2", "SST2"}, "sentence", "", "label", "single_label_classification", {"accuracy"}},
      {"MRPC", {"MRPC"}, "#1 String", "#2 String", "Quality", "single_label_classification", {"binary_f1", "accuracy"}},
      {"STS-B", {"STS-B", "STSB"}, "sentence1", "sentence2", "score", "regression", {"pearson", "spearman"}},
      {"QQP",
       {"QQP"},
       "question1",
       "question2",
       "is_duplicate",
       "single_label_classification",
       {"binary_f1", "accuracy"}},
      {"MNLI",
       {"MNLI"},
       "sentence1",
       "sentence2",
       "gold_label",
       "single_label_classification",
       {"accuracy"},
       "dev_matched.tsv",
       "dev_mismatched.tsv"},
      {"QNLI", {"QNLI"}, "question", "sentence", "label", "single_label_classification", {"accuracy"}},
      {"RTE", {"RTE"}, "sentence1", "sentence2", "label", "single_label_classification", {"accuracy"}},
      {"WNLI", {"WNLI"}, "sentence1", "sentence2", "label", "single_label_classification", {"accuracy"}},
  };
  return tasks;
}

struct FoundTask {
  const TaskSpec* spec;
  fs::path dir;
};

bool same_name(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

// The tasks under `data_dirs` (the first folder of a name wins), in GLUE's order.
std::vector<FoundTask> find_tasks(const std::vector<std::string>& data_dirs) {
  std::vector<FoundTask> found;
  for (const TaskSpec& spec : glue_tasks()) {
    for (const std::string& root : data_dirs) {
      std::error_code ec;
      const fs::path* hit = nullptr;
      fs::path dir;
      for (const char* folder : spec.folders) {
        dir = fs::path(root) / folder;
        if (fs::exists(dir / "train.tsv", ec) && fs::exists(dir / spec.dev, ec)) {
          hit = &dir;
          break;
        }
      }
      if (hit) {
        found.push_back({&spec, dir});
        break;
      }
    }
  }
  return found;
}

std::vector<std::string> tab_fields(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == '\t') out.emplace_back();
    else if (c != '\r') out.back() += c;
  }
  return out;
}

bool is_integer(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() < 6;
}

// The columns of a task's files, from the first line of train.tsv: GLUE's header; CoLA's four
// columns without one; or two columns without one (label and sentence, in either order).
LabeledDataOptions columns_of(const TaskSpec& spec, const fs::path& train) {
  std::ifstream in(train);
  std::string first;
  std::getline(in, first);
  const std::vector<std::string> fields = tab_fields(first);
  LabeledDataOptions d;
  d.format = "tsv";
  for (const std::string& f : fields) {
    if (f == spec.label) {  // a header with the task's own names
      d.text_field = spec.text;
      d.text_pair_field = spec.pair;
      d.label_field = spec.label;
      return d;
    }
  }
  d.header = false;
  if (std::string(spec.name) == "CoLA" && fields.size() == 4) {  // source, label, original label, sentence
    d.text_field = "3";
    d.label_field = "1";
    return d;
  }
  if (fields.size() == 2 && std::string(spec.pair).empty()) {
    const bool label_first = is_integer(fields[0]);
    d.text_field = label_first ? "1" : "0";
    d.label_field = label_first ? "0" : "1";
    return d;
  }
  throw BadInput(train.string() + ":1: not a " + spec.name + " file: no column '" + spec.label + "' in its header",
                 std::string("GLUE's ") + spec.name + " files name their columns " + spec.text +
                     (*spec.pair ? std::string(", ") + spec.pair : std::string()) + ", " + spec.label);
}

// "RTE.epochs=10" -> the options of RTE get epochs 10 (a JSON value, else a string).
void apply_overrides(FinetuneOptions& o, const std::string& task, const std::vector<std::string>& overrides) {
  for (const std::string& spec : overrides) {
    const size_t dot = spec.find('.'), eq = spec.find('=');
    if (dot == std::string::npos || eq == std::string::npos || eq < dot) {
      throw BadInput("--override '" + spec + "': expected TASK.OPTION=VALUE", "e.g. --override RTE.epochs=10");
    }
    if (!same_name(spec.substr(0, dot), task)) continue;
    const std::string key = spec.substr(dot + 1, eq - dot - 1), text = spec.substr(eq + 1);
    nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) value = text;
    o.apply_json({{key, value}}, "--override " + spec);
  }
}

// The task's row(s) from finetune's report on dev ("test_*" keys: dev is the run's --test split).
GlueScore score_of(const std::string& name, const TaskSpec& spec, const nlohmann::json& report) {
  GlueScore s;
  s.task = name;
  for (const char* metric : spec.metrics) {
    const nlohmann::json& v = report.value("test_" + std::string(metric), nlohmann::json());
    s.metrics.emplace_back(metric == std::string("binary_f1") ? "f1" : metric,
                           v.is_number() ? v.get<double>() : std::nan(""));
  }
  for (const auto& [_, v] : s.metrics) s.score += v / double(s.metrics.size());
  s.train_examples = report.value("train_examples", int64_t(0));
  s.dev_examples = report.contains("test") ? report["test"].value("examples", int64_t(0)) : 0;
  return s;
}

// MNLI-mm: the fine-tuned model's accuracy on dev_mismatched.
GlueScore mismatched_score(const FinetuneOptions& o, const fs::path& file, const std::string& best_dir) {
  PredictOptions p;
  p.model = best_dir;
  p.input = file.string();
  p.output = (fs::path(o.output_dir) / "dev_mismatched_predictions.jsonl").string();
  p.data = o.data;
  p.max_seq_len = o.max_seq_len;
  p.batch_size = o.eval_batch_size;
  p.precision = o.precision;
  p.device = o.device;
  p.threads = o.threads;
  const PredictSummary summary = run_predict(p);
  GlueScore s;
  s.task = "MNLI-mm";
  s.metrics = {{"accuracy", summary.metrics ? summary.metrics->accuracy : std::nan("")}};
  s.score = s.metrics[0].second;
  s.dev_examples = summary.examples;
  return s;
}

std::vector<GlueScore> run_task(const GlueOptions& g, const FoundTask& t, const FinetuneHooks& hooks) {
  const TaskSpec& spec = *t.spec;
  FinetuneOptions o = g.finetune;
  o.train = (t.dir / "train.tsv").string();
  o.valid.clear();  // as run_glue.py: the last epoch's model, evaluated on dev
  o.test = (t.dir / spec.dev).string();
  o.test_name = "dev";
  o.data = columns_of(spec, t.dir / "train.tsv");
  o.problem_type = spec.problem_type;
  o.metric_for_best = "auto";
  o.output_dir = (fs::path(g.finetune.output_dir) / spec.name).string();
  apply_overrides(o, spec.name, g.overrides);
  if (hooks.on_message) hooks.on_message(std::string(spec.name) + ": fine-tuning on " + o.train);
  const auto t0 = std::chrono::steady_clock::now();
  const FinetuneResult r = run_finetune(o, hooks);
  if (r.interrupted) throw BadInput(std::string(spec.name) + ": stopped by a signal; rerun to start it again");
  std::vector<GlueScore> rows = {score_of(*spec.dev_mismatched ? "MNLI-m" : spec.name, spec, r.report)};
  if (*spec.dev_mismatched && fs::exists(t.dir / spec.dev_mismatched)) {
    rows.push_back(mismatched_score(o, t.dir / spec.dev_mismatched, r.best_dir));
    rows.back().train_examples = rows.front().train_examples;
  }
  for (GlueScore& s : rows) s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rows;
}

}  // namespace

nlohmann::json GlueResult::to_json() const {
  nlohmann::json tasks = nlohmann::json::array();
  for (const GlueScore& s : rows) {
    nlohmann::json m = nlohmann::json::object();
    for (const auto& [name, v] : s.metrics) m[name] = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
    tasks.push_back({{"task", s.task},
                     {"metrics", m},
                     {"score", std::isfinite(s.score) ? nlohmann::json(s.score) : nlohmann::json()},
                     {"train_examples", s.train_examples},
                     {"dev_examples", s.dev_examples},
                     {"seconds", s.seconds}});
  }
  return {{"tasks", tasks}, {"average", std::isfinite(average) ? nlohmann::json(average) : nlohmann::json()}};
}

GlueResult run_glue(const GlueOptions& g, const FinetuneHooks& hooks) {
  std::vector<FoundTask> found = find_tasks(g.data_dirs);
  if (!g.tasks.empty()) {
    std::vector<FoundTask> chosen;
    for (const std::string& want : g.tasks) {
      auto it = std::find_if(found.begin(), found.end(),
                             [&](const FoundTask& t) { return same_name(t.spec->name, want); });
      if (it == found.end()) {
        throw BadInput("--tasks " + want +
                           ": no such task folder (with train.tsv and its dev file) in the --data folders",
                       "GLUE's folders are CoLA, SST-2, MRPC, STS-B, QQP, MNLI, QNLI, RTE, WNLI");
      }
      chosen.push_back(*it);
    }
    found = chosen;
  }
  if (found.empty()) {
    throw BadInput("no GLUE task folder in the --data folders",
                   "pass the folder that holds CoLA/, SST-2/, MRPC/, STS-B/, QQP/, MNLI/, QNLI/, RTE/, WNLI/");
  }
  fs::create_directories(g.finetune.output_dir);
  GlueResult result;
  for (const FoundTask& t : found) {
    for (GlueScore& s : run_task(g, t, hooks)) result.rows.push_back(std::move(s));
    result.average = 0;
    for (const GlueScore& s : result.rows) result.average += s.score / double(result.rows.size());
    // After every task, so that a stopped run keeps what it finished.
    write_file_atomic((fs::path(g.finetune.output_dir) / "glue_results.json").string(),
                      result.to_json().dump(2) + "\n");
  }
  return result;
}

std::string format_glue_table(const GlueResult& r) {
  std::string out = "task      metrics                                score    train     dev\n";
  char buf[256];
  for (const GlueScore& s : r.rows) {
    std::string metrics;
    for (const auto& [name, v] : s.metrics) {
      std::snprintf(buf, sizeof buf, "%s%s %.2f", metrics.empty() ? "" : " / ", name.c_str(), 100 * v);
      metrics += buf;
    }
    std::snprintf(buf, sizeof buf, "%-9s %-38s %6.2f %7lld %7lld\n", s.task.c_str(), metrics.c_str(), 100 * s.score,
                  (long long)s.train_examples, (long long)s.dev_examples);
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "%-9s %-38s %6.2f\n", "average", "", 100 * r.average);
  return out + buf;
}

}  // namespace bertpt::classify
