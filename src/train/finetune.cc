#include "train/finetune.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/jsonl_log.h"
#include "finetune/encode.h"
#include "finetune/label_map.h"
#include "finetune/metrics.h"
#include "model/bert.h"
#include "model/checkpoint.h"
#include "model/torch_compat.h"
#include "tokenizer/hf_files.h"
#include "train/adamw.h"
#include "train/classify.h"
#include "train/collectives.h"
#include "train/device.h"
#include "train/lr_schedule.h"

namespace bertpt::train {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

nlohmann::json FinetuneOptions::to_json() const {
  return {{"model", model},
          {"tokenizer", tokenizer},
          {"train", train},
          {"valid", valid},
          {"test", test},
          {"format", data.format},
          {"text_field", data.text_field},
          {"text_pair_field", data.text_pair_field},
          {"label_field", data.label_field},
          {"header", data.header},
          {"output_dir", output_dir},
          {"epochs", epochs},
          {"learning_rate", learning_rate},
          {"per_device_batch_size", per_device_batch_size},
          {"max_seq_len", max_seq_len},
          {"warmup_ratio", warmup_ratio},
          {"weight_decay", weight_decay},
          {"max_grad_norm", max_grad_norm},
          {"seed", seed},
          {"metric_for_best", metric_for_best},
          {"precision", precision},
          {"device", device},
          {"threads", threads},
          {"eval_batch_size", eval_batch_size}};
}

void FinetuneOptions::validate() const {
  if (model.empty()) throw BadInput("--model is required", "a checkpoint directory, or a preset such as bert-mini with --tokenizer");
  if (train.empty()) throw BadInput("--train is required", "a JSONL, CSV or TSV file of labelled examples");
  if (output_dir.empty()) throw BadInput("--output-dir is required");
  if (epochs <= 0) throw BadInput("--epochs must be > 0");
  if (!(learning_rate > 0)) throw BadInput("--learning-rate must be > 0");
  if (per_device_batch_size <= 0) throw BadInput("--per-device-batch-size must be > 0");
  if (eval_batch_size <= 0) throw BadInput("--eval-batch-size must be > 0");
  if (max_seq_len < 3) throw BadInput("--max-seq-len must be at least 3 ([CLS], a token, [SEP])");
  if (warmup_ratio < 0 || warmup_ratio > 1) throw BadInput("--warmup-ratio must be in [0, 1]");
  if (weight_decay < 0) throw BadInput("--weight-decay must be >= 0");
  if (metric_for_best != "accuracy" && metric_for_best != "macro_f1") {
    throw BadInput("--metric-for-best must be accuracy or macro_f1, got '" + metric_for_best + "'");
  }
  if (precision != "bf16" && precision != "fp32") throw BadInput("--precision must be bf16 or fp32, got '" + precision + "'");
  if (logging_steps <= 0) throw BadInput("--logging-steps must be > 0");
}

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// One labelled split, read, mapped to class ids and encoded.
struct Split {
  std::string path;
  std::vector<finetune::Example> examples;
  std::vector<int64_t> labels;
  std::vector<finetune::EncodedExample> encoded;
  int64_t truncated = 0;
};

Split load_split(const std::string& path, const finetune::LabeledDataOptions& data, const finetune::LabelMap* labels,
                 const tokenizer::Tokenizer& tok, int64_t max_len) {
  Split s;
  s.path = path;
  s.examples = finetune::read_labeled_data(path, data, /*require_label=*/true);
  if (labels) s.labels = labels->ids_of(s.examples, path);
  s.encoded = finetune::encode_examples(tok, s.examples, !data.text_pair_field.empty(), size_t(max_len), &s.truncated);
  return s;
}

// A deterministic shuffle (the same on every rank and platform): Fisher-Yates driven by mix64.
std::vector<size_t> epoch_order(size_t n, uint64_t seed, int64_t epoch) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  uint64_t state = mix64(seed ^ 0x46494E4554554E45ull) ^ uint64_t(epoch);
  for (size_t i = n; i > 1; --i) {
    state = mix64(state + 0x9E3779B97F4A7C15ull);
    std::swap(order[i - 1], order[state % i]);
  }
  return order;
}

struct SplitEval {
  finetune::ClassificationMetrics metrics;
  double majority_accuracy = 0;  // predicting the most frequent training label for everything
};

// Sharded evaluation: rank r classifies examples r, r + world, ...; the confusion matrices are summed.
SplitEval evaluate_split(model::BertForSequenceClassificationImpl& model, const Split& split,
                         const finetune::LabelMap& labels, int64_t majority, const ClassifyOptions& co,
                         Collectives& coll) {
  std::vector<size_t> mine;
  for (size_t i = size_t(coll.rank()); i < split.encoded.size(); i += size_t(coll.world_size())) mine.push_back(i);
  const size_t k = labels.size();
  std::vector<double> counts(k * k, 0.0);
  if (!mine.empty()) {
    at::Tensor predicted = classify(model, split.encoded, mine, co).argmax(1);
    const int64_t* p = predicted.data_ptr<int64_t>();
    for (size_t i = 0; i < mine.size(); ++i) counts[size_t(split.labels[mine[i]]) * k + size_t(p[i])] += 1;
  }
  coll.sum(counts);
  finetune::ConfusionMatrix cm(k);
  int64_t hits = 0;
  for (size_t g = 0; g < k; ++g) {
    for (size_t q = 0; q < k; ++q) cm.add(int64_t(g), int64_t(q), int64_t(counts[g * k + q]));
  }
  for (int64_t l : split.labels) hits += l == majority ? 1 : 0;
  SplitEval e;
  e.metrics = cm.metrics(labels.labels());
  e.majority_accuracy = split.labels.empty() ? 0.0 : double(hits) / double(split.labels.size());
  return e;
}

nlohmann::json eval_json(const SplitEval& e) {
  nlohmann::json j = e.metrics.to_json();
  j["majority_accuracy"] = e.majority_accuracy;
  return j;
}

uint64_t dropout_seed(uint64_t seed, int64_t step, int rank) {
  return mix64(mix64(seed ^ 0x434C4153534946ull) ^ uint64_t(step)) ^ (uint64_t(rank) << 40);
}

}  // namespace

std::string format_finetune_log(const nlohmann::json& r) {
  char buf[512];
  if (r.contains("train_loss")) {  // an epoch record
    std::string line = "epoch " + std::to_string(r.value("epoch", int64_t(0)));
    std::snprintf(buf, sizeof buf, " | train loss %.4f", r["train_loss"].get<double>());
    line += buf;
    if (r.contains("valid_accuracy")) {
      std::snprintf(buf, sizeof buf, " | valid accuracy %.4f | macro-F1 %.4f", r["valid_accuracy"].get<double>(),
                    r["valid_macro_f1"].get<double>());
      line += buf;
    }
    return line + (r.value("best", false) && r.contains("valid_accuracy") ? " | best so far" : "");
  }
  std::snprintf(buf, sizeof buf, "step %lld/%lld | epoch %.2f | loss %.4f | lr %.3g | %.1f examples/s",
                (long long)r.value("step", int64_t(0)), (long long)r.value("max_steps", int64_t(0)), r.value("epoch", 0.0),
                r.value("loss", 0.0), r.value("learning_rate", 0.0), r.value("examples_per_sec", 0.0));
  return buf;
}

FinetuneResult run_finetune(const FinetuneOptions& options, const FinetuneHooks& hooks) {
  const auto t_start = Clock::now();
  FinetuneOptions o = options;
  o.validate();
  SingleProcess single;
  Collectives& coll = hooks.collectives ? *hooks.collectives : single;
  const bool main = coll.is_main();
  const int rank = coll.rank(), world = coll.world_size();
  auto message = [&](const std::string& m) {
    if (main && hooks.on_message) hooks.on_message(m);
  };
  setup_cpu_runtime(o.threads);
  const at::Device device(normalize_device(o.device));
  const bool bf16 = o.precision == "bf16";
  std::error_code ec;
  const bool model_is_dir = fs::is_directory(o.model, ec);

  // ---- tokenizer: --tokenizer, else the model directory's
  std::string tok_dir = o.tokenizer;
  if (tok_dir.empty()) {
    if (!model_is_dir) {
      throw BadInput("--model " + o.model + " is not a checkpoint directory, so it has no tokenizer",
                     "for a randomly initialised model (a preset), pass --tokenizer DIR");
    }
    if (!tokenizer::has_tokenizer_files(o.model)) {
      throw BadInput("model directory " + o.model + " has no tokenizer (tokenizer.json or vocab.txt)",
                     "pass --tokenizer DIR with the tokenizer the model was pre-trained with");
    }
    tok_dir = o.model;
  }
  const tokenizer::Tokenizer tok = tokenizer::load_tokenizer(tok_dir);
  const int64_t pad_id = std::max<int64_t>(0, tok.special_ids().pad);

  // ---- data
  Split train = load_split(o.train, o.data, nullptr, tok, o.max_seq_len);
  const finetune::LabelMap labels = finetune::LabelMap::from_examples(train.examples, o.train);
  train.labels = labels.ids_of(train.examples, o.train);
  std::optional<Split> valid, test;
  if (!o.valid.empty()) valid = load_split(o.valid, o.data, &labels, tok, o.max_seq_len);
  if (!o.test.empty()) test = load_split(o.test, o.data, &labels, tok, o.max_seq_len);
  std::vector<int64_t> per_class(labels.size(), 0);
  for (int64_t l : train.labels) per_class[size_t(l)]++;
  const int64_t majority = int64_t(std::max_element(per_class.begin(), per_class.end()) - per_class.begin());
  {
    std::string m = "data: " + std::to_string(train.examples.size()) + " train";
    if (valid) m += ", " + std::to_string(valid->examples.size()) + " valid";
    if (test) m += ", " + std::to_string(test->examples.size()) + " test";
    m += " examples; " + std::to_string(labels.size()) + " labels:";
    for (size_t i = 0; i < labels.size(); ++i) m += " " + labels.label(int64_t(i)) + " (" + std::to_string(per_class[i]) + ")";
    const int64_t cut = train.truncated + (valid ? valid->truncated : 0) + (test ? test->truncated : 0);
    if (cut > 0) m += "; " + std::to_string(cut) + " examples truncated to --max-seq-len " + std::to_string(o.max_seq_len);
    message(m);
  }

  // ---- model: a checkpoint's encoder (+ a new head), or a random init from a preset
  at::manual_seed(o.seed);
  model::BertConfig config;
  std::unique_ptr<model::BertForSequenceClassification> model_holder;
  if (model_is_dir) {
    model::LoadReport report;
    model_holder = std::make_unique<model::BertForSequenceClassification>(
        model::load_sequence_classifier(o.model, int64_t(labels.size()), &config, &report));
    if (!report.missing.empty()) {
      message("initialised a new classification head (" + std::to_string(report.missing.size()) +
              " tensors not in the checkpoint, e.g. " + report.missing.front() + ")");
    }
  } else {
    config = model::resolve_model_config(o.model);
    config.vocab_size = int64_t(tok.vocab_size());
    model_holder = std::make_unique<model::BertForSequenceClassification>(config, int64_t(labels.size()));
    message("random initialisation from " + o.model + " (no pre-training)");
  }
  model::BertForSequenceClassification& model = *model_holder;
  if (config.vocab_size != int64_t(tok.vocab_size())) {
    throw BadInput("vocabulary mismatch: the model has vocab_size " + std::to_string(config.vocab_size) + " but the tokenizer " +
                       tok_dir + " has " + std::to_string(tok.vocab_size()),
                   "fine-tune with the tokenizer the model was pre-trained with");
  }
  if (o.max_seq_len > config.max_position_embeddings) {
    throw BadInput("--max-seq-len " + std::to_string(o.max_seq_len) + " exceeds the model's max_position_embeddings " +
                   std::to_string(config.max_position_embeddings));
  }
  config.architectures = {"BertForSequenceClassification"};
  config.extra["id2label"] = labels.id2label_json().dump();
  config.extra["label2id"] = labels.label2id_json().dump();
  config.extra["problem_type"] = "\"single_label_classification\"";
  model->to(device);
  model->train();
  const std::vector<std::pair<std::string, at::Tensor>> named = model::named_parameter_list(*model);
  const std::vector<at::Tensor> params = model->parameters();  // the same tensors, in the same order
  coll.attach_parameters(params);
  AdamW optimizer(named, AdamWOptions{0.9, 0.999, 1e-8, o.weight_decay});

  // ---- schedule: every epoch is ceil(N / global batch) steps; with several ranks the last
  // batch is filled up from the epoch's start (as torch's DistributedSampler pads), so every rank
  // has the same number of examples.
  const int64_t b = o.per_device_batch_size, G = b * world;
  const int64_t n = int64_t(train.examples.size());
  const int64_t steps_per_epoch = (n + G - 1) / G;
  const int64_t total_steps = steps_per_epoch * o.epochs;
  const LrSchedule schedule{LrScheduleKind::Linear, o.learning_rate, int64_t(std::llround(o.warmup_ratio * double(total_steps))),
                            total_steps};

  // ---- output directory
  const fs::path out(o.output_dir);
  const fs::path best_dir = out / "best";
  if (main) {
    if ((fs::exists(best_dir, ec) || fs::exists(out / "results.json", ec)) && !o.overwrite_output_dir) {
      throw BadInput(o.output_dir + " already holds a fine-tuned model", "pass --overwrite-output-dir, or another --output-dir");
    }
    fs::create_directories(out, ec);
    if (ec) throw BadInput("cannot create --output-dir " + o.output_dir + ": " + ec.message());
    fs::remove_all(best_dir, ec);
    fs::remove(out / "results.json", ec);
    write_file_atomic((out / "run_config.json").string(), o.to_json().dump(2) + "\n");
    write_file_atomic((out / "metrics.jsonl").string(), "");
  }
  coll.barrier();
  JsonlLog metrics((out / "metrics.jsonl").string(), main);
  auto log = [&](const nlohmann::json& r) {
    if (!main) return;
    metrics.write(r);
    if (hooks.on_log) hooks.on_log(r);
  };
  message("training: " + std::to_string(o.epochs) + " epochs x " + std::to_string(steps_per_epoch) + " steps, global batch " +
          std::to_string(G) + " (" + std::to_string(b) + " x " + std::to_string(world) + " ranks), lr " +
          std::to_string(o.learning_rate) + ", warmup " + std::to_string(schedule.warmup) + " steps, " + o.precision + " on " +
          device.str());

  ClassifyOptions co;
  co.batch_size = o.eval_batch_size;
  co.device = device.str();
  co.bf16 = bf16;
  co.pad_id = pad_id;

  nlohmann::json history = nlohmann::json::array();
  double best_score = -1;
  int64_t best_epoch = 0, step = 0;
  double iv_loss = 0, iv_examples = 0, iv_seconds = 0;
  for (int64_t epoch = 1; epoch <= o.epochs; ++epoch) {
    const auto t_epoch = Clock::now();
    const std::vector<size_t> order = epoch_order(size_t(n), o.seed, epoch);
    double epoch_loss = 0;
    for (int64_t s = 0; s < steps_per_epoch; ++s) {
      const auto t_step = Clock::now();
      const int64_t first = s * G;
      const int64_t global_count = world > 1 ? G : std::min(G, n - first);
      std::vector<size_t> mine;
      for (int64_t i = rank * b; i < std::min(global_count, (rank + 1) * b); ++i) mine.push_back(order[size_t((first + i) % n)]);
      ClassifierBatch batch = make_classifier_batch(train.encoded, mine, pad_id);
      at::Tensor gold = at::empty({int64_t(mine.size())}, at::kLong);
      for (size_t i = 0; i < mine.size(); ++i) gold.data_ptr<int64_t>()[i] = train.labels[mine[i]];
      optimizer.zero_grad();
      at::manual_seed(dropout_seed(o.seed, step, rank));
      at::Tensor loss_sum;
      {
        torch_compat::AutocastGuard autocast(device.type(), at::kBFloat16, bf16);
        at::Tensor mask = batch.attention_mask.defined() ? batch.attention_mask.to(device) : at::Tensor();
        at::Tensor logits = model->forward(batch.input_ids.to(device), mask, batch.token_type_ids.to(device));
        loss_sum = at::cross_entropy_loss(logits.to(at::kFloat), gold.to(device), {}, at::Reduction::Sum);
      }
      at::Tensor loss = loss_sum * (1.0 / double(global_count));
      coll.begin_backward(true);
      loss.backward();
      coll.finish_gradients();
      at::Tensor norm = global_grad_norm(params);
      clip_grads(params, norm, o.max_grad_norm);
      optimizer.step(schedule.at(step));
      ++step;
      const double local_loss = loss_sum.item<double>();
      epoch_loss += local_loss;
      iv_loss += local_loss;
      iv_examples += double(global_count);
      iv_seconds += seconds_since(t_step);
      if (step % o.logging_steps == 0 || s == steps_per_epoch - 1) {
        std::vector<double> sums = {iv_loss};
        coll.sum(sums);
        log({{"step", step},
             {"max_steps", total_steps},
             {"epoch", double(epoch - 1) + double(s + 1) / double(steps_per_epoch)},
             {"loss", sums[0] / std::max(1.0, iv_examples)},
             {"learning_rate", schedule.at(step - 1)},
             {"grad_norm", norm.item<double>()},
             {"examples_per_sec", iv_examples / std::max(1e-9, iv_seconds)}});
        iv_loss = iv_examples = iv_seconds = 0;
      }
    }
    std::vector<double> sums = {epoch_loss};
    coll.sum(sums);
    nlohmann::json record = {{"epoch", epoch},
                             {"step", step},
                             {"train_loss", sums[0] / double(world > 1 ? steps_per_epoch * G : n)},
                             {"train_seconds", seconds_since(t_epoch)}};
    bool best = !valid;  // without a valid split the last epoch is the result
    if (valid) {
      SplitEval e = evaluate_split(*model, *valid, labels, majority, co, coll);
      const double score = e.metrics.get(o.metric_for_best);
      best = score > best_score;
      record["valid_accuracy"] = e.metrics.accuracy;
      record["valid_macro_f1"] = e.metrics.macro_f1;
      if (best) best_score = score;
    }
    record["best"] = best;
    if (best) {
      best_epoch = epoch;
      if (main) model::save_pretrained(best_dir.string(), *model, config, at::kFloat, tok_dir);
      coll.barrier();
    }
    history.push_back(record);
    log(record);
  }

  // ---- the report: the best epoch's weights on valid and test
  {
    at::NoGradGuard no_grad;
    model::load_safetensors(*model, (best_dir / "model.safetensors").string());
  }
  FinetuneResult result;
  result.best_dir = best_dir.string();
  nlohmann::json& r = result.report;
  r["model"] = o.model;
  r["tokenizer"] = tok_dir;
  r["labels"] = labels.labels();
  r["train_examples"] = n;
  r["train_label_counts"] = per_class;
  r["majority_label"] = labels.label(majority);
  r["epochs"] = history;
  r["best_epoch"] = best_epoch;
  r["metric_for_best"] = valid ? o.metric_for_best : "last epoch (no --valid)";
  r["best_dir"] = best_dir.string();
  r["global_batch"] = G;
  r["world_size"] = world;
  r["steps"] = step;
  r["truncated_examples"] = train.truncated + (valid ? valid->truncated : 0) + (test ? test->truncated : 0);
  r["options"] = o.to_json();
  for (auto* split : {&valid, &test}) {
    if (!*split) continue;
    const std::string name = split == &valid ? "valid" : "test";
    SplitEval e = evaluate_split(*model, **split, labels, majority, co, coll);
    result.splits.push_back({name, int64_t((*split)->examples.size()), e.metrics, e.majority_accuracy});
    r[name] = eval_json(e);
    r[name]["examples"] = (*split)->examples.size();
    r[name + "_accuracy"] = e.metrics.accuracy;
    r[name + "_macro_f1"] = e.metrics.macro_f1;
    r[name + "_majority_accuracy"] = e.majority_accuracy;
  }
  r["seconds"] = seconds_since(t_start);
  if (main) write_file_atomic((out / "results.json").string(), r.dump(2) + "\n");
  coll.barrier();
  return result;
}

}  // namespace bertpt::train
