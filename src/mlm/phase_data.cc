#include "mlm/phase_data.h"

#include <algorithm>
#include <filesystem>

#include "common/error.h"
#include "common/json_fields.h"
#include "data/verify.h"
#include "tokenizer/hf_files.h"

namespace bertpt::mlm {

namespace fs = std::filesystem;

nlohmann::json dataset_fingerprint(const data::Dataset& d) {
  nlohmann::json f;
  f["seq_len"] = d.seq_len();
  f["vocab_size"] = d.vocab_size();
  f["train_sequences"] = d.size();
  f["vocab_sha256"] = d.manifest().tokenizer.vocab_sha256;
  return f;
}

std::shared_ptr<const data::Dataset> open_train_split(const std::string& dir, bool verify) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw BadInput("--data " + dir + " does not exist", "create a dataset with bertpt prepare --out DIR");
  }
  const std::vector<uint32_t> lengths = fs::exists(fs::path(dir) / "manifest.json", ec) ? std::vector<uint32_t>{}
                                                                                        : data::lengths_in(dir);
  if (!lengths.empty()) {
    throw BadInput("--data " + dir + " holds datasets of several lengths (" + data::length_dir_names(lengths) + ")",
                   "train on them in phases with --phase-schedule " + std::to_string(lengths.front()) + ":0.9," +
                       std::to_string(lengths.back()) + ":0.1, or on one with --data " +
                       data::length_dir(dir, lengths.front()));
  }
  if (verify) {
    const data::VerifyResult v = data::verify_dataset(dir);
    if (!v.ok()) {
      throw BadInput("--verify-data: " + std::to_string(v.problems.size()) + " problem(s) in " + dir +
                         ", the first: " + v.problems.front(),
                     "bertpt data verify " + dir + " lists them all; re-run bertpt prepare");
    }
  }
  auto dataset = std::make_shared<const data::Dataset>(dir, "train");
  if (dataset->size() == 0)
    throw BadInput(dir + ": the train split is empty", "prepare more text or a shorter --seq-len");
  const tokenizer::Tokenizer tok = tokenizer::load_tokenizer(dataset->tokenizer_dir());
  if (uint64_t(tok.vocab_size()) != dataset->vocab_size()) {
    throw BadInput("vocabulary mismatch: the dataset's manifest says vocab_size " +
                       std::to_string(dataset->vocab_size()) + " but its tokenizer (" + dataset->tokenizer_dir() +
                       ") has " + std::to_string(tok.vocab_size()),
                   "the dataset was modified; re-run bertpt prepare");
  }
  return dataset;
}

PhaseData::PhaseData(const PretrainOptions& o)
    : data_(o.data),
      max_steps_(o.max_steps),
      per_device_batch_(o.per_device_batch_size),
      grad_accum_(o.grad_accum),
      phase_schedule_(o.phase_schedule),
      schedule_(data::parse_phase_schedule(o.phase_schedule, o.max_steps)) {
  if (!phased()) {
    train_.push_back(open_train_split(o.data, o.verify_data));
    return;
  }
  for (const data::TrainingPhase& p : schedule_.phases) {
    const std::string dir = data::length_dir(o.data, p.seq_len), len = std::to_string(p.seq_len);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      throw BadInput("--phase-schedule: " + dir + " does not exist (no dataset of " + len + " tokens in --data)",
                     "prepare every length of the schedule in one run: bertpt prepare --seq-len 128,512 --out " +
                         o.data);
    }
    train_.push_back(open_train_split(dir, o.verify_data));
    const data::Dataset& d = *train_.back();
    if (d.seq_len() != p.seq_len) {
      throw BadInput(dir + " holds sequences of " + std::to_string(d.seq_len()) + " tokens, not " + len,
                     "re-run bertpt prepare --seq-len with the schedule's lengths");
    }
    if (d.manifest().tokenizer.vocab_sha256 != train_.front()->manifest().tokenizer.vocab_sha256) {
      throw BadInput("--phase-schedule: " + dir + " was prepared with another tokenizer than " +
                         data::length_dir(o.data, schedule_.phases.front().seq_len),
                     "prepare all lengths in one run: bertpt prepare --seq-len 128,512");
    }
  }
}

std::shared_ptr<const data::Dataset> PhaseData::valid(size_t phase) const {
  if (train(phase)->manifest().valid.sequences > 0) return std::make_shared<const data::Dataset>(dir(phase), "valid");
  return nullptr;
}

std::string PhaseData::dir(size_t phase) const {
  return phased() ? data::length_dir(data_, schedule_.phases[phase].seq_len) : data_;
}

int64_t PhaseData::per_device_batch(size_t phase) const {
  const int64_t b = phased() ? schedule_.phases[phase].per_device_batch : 0;
  return b > 0 ? b : per_device_batch_;
}

int64_t PhaseData::grad_accum(size_t phase) const {
  const int64_t a = phased() ? schedule_.phases[phase].grad_accum : 0;
  return a > 0 ? a : grad_accum_;
}

nlohmann::json PhaseData::fingerprint() const {
  if (!phased()) return dataset_fingerprint(*train_.front());
  nlohmann::json f = nlohmann::json::array();
  for (const auto& d : train_) f.push_back(dataset_fingerprint(*d));
  return f;
}

const data::Dataset& PhaseData::longest() const {
  const data::Dataset* longest = train_.front().get();
  for (const auto& d : train_) {
    if (d->seq_len() > longest->seq_len()) longest = d.get();
  }
  return *longest;
}

PhaseData::Seen PhaseData::seen(int64_t step, int world) const {
  Seen seen;
  if (!phased()) {
    seen.sequences = double(step) * double(global_batch(0, world));
    seen.tokens = seen.sequences * double(train_.front()->seq_len());
    return seen;
  }
  for (size_t i = 0; i < schedule_.phases.size(); ++i) {
    const data::TrainingPhase& p = schedule_.phases[i];
    const double sequences = double(std::clamp<int64_t>(step - p.begin_step, 0, p.steps())) *
                             double(global_batch(i, world));
    seen.sequences += sequences;
    seen.tokens += sequences * double(p.seq_len);
  }
  return seen;
}

nlohmann::json PhaseData::phases_json(int world) const {
  nlohmann::json j;
  for (size_t i = 0; i < schedule_.phases.size(); ++i) {
    const data::TrainingPhase& p = schedule_.phases[i];
    j.push_back({{"phase", i + 1},
                 {"seq_len", p.seq_len},
                 {"first_step", p.begin_step + 1},
                 {"last_step", p.end_step},
                 {"global_batch", global_batch(i, world)},
                 {"train_sequences", train_[i]->size()}});
  }
  return j;
}

void PhaseData::check_resume(const nlohmann::json& state, const nlohmann::json& saved_options, const std::string& dir,
                             int world) const {
  const nlohmann::json now = fingerprint();
  if (state.contains("dataset") && state["dataset"] != now) {
    throw BadInput("cannot resume " + dir + " on different data: the checkpoint was trained on " +
                       state["dataset"].dump() + ", --data has " + now.dump(),
                   "resume with the run's own --data, or start a new run from the weights with --init-from " + dir);
  }
  // A field of the wrong type names the file and the field (common/json_fields.h).
  const JsonFields f(state, dir + "/trainer_state.json", "", "the checkpoint is corrupt; resume from another");
  size_t phase = 0;
  if (phased()) {
    // The phase boundaries are shares of --max-steps: both must be those of the checkpoint's run.
    const JsonFields config(saved_options, dir + "/trainer_state.json", "options");
    if (config.str("phase_schedule") != phase_schedule_ || config.i64("max_steps") != max_steps_) {
      throw BadInput("cannot resume " + dir + " with another --phase-schedule or --max-steps: it was " +
                         config.str("phase_schedule") + " over " + std::to_string(config.i64("max_steps")) + " steps",
                     "resume with the run's own --phase-schedule and --max-steps");
    }
    phase = size_t(f.u64("phase"));
    if (phase >= schedule_.phases.size()) {
      f.fail("phase", "is not a phase of --phase-schedule " + phase_schedule_);
    }
  }
  // The global batch defines the run; how it is split (per-device batch, accumulation, ranks) may change.
  const int64_t global = global_batch(phase, world);
  if (f.has("global_batch") && f.i64("global_batch") != global) {
    throw BadInput("cannot resume " + dir + " with a global batch of " + std::to_string(global) + " sequences (" +
                       std::to_string(per_device_batch(phase)) + " per device x " + std::to_string(grad_accum(phase)) +
                       " accumulation x " + std::to_string(world) + " ranks): the run's is " +
                       std::to_string(f.i64("global_batch")),
                   "split the same global batch over the ranks there are now, or pass --global-batch-size " +
                       std::to_string(f.i64("global_batch")));
  }
}

}  // namespace bertpt::mlm
