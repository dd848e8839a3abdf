// What a pre-training run trains on: --data's train split, or with --phase-schedule the train split
// of each phase's DATA/seq-LEN (all of one tokenizer), with each phase's batch. Without a schedule
// the run is one phase on --data, with the run's own batch.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "data/phase_schedule.h"
#include "mlm/pretrain_options.h"

namespace bertpt::mlm {

// DATA's train split, checked against the tokenizer it was prepared with; with `verify`, every
// shard of DATA is hashed and scanned first (data/verify.h).
std::shared_ptr<const data::Dataset> open_train_split(const std::string& dir, bool verify);

// What identifies a dataset, for refusing a resume on different data.
nlohmann::json dataset_fingerprint(const data::Dataset& d);

class PhaseData {
 public:
  // Opens and checks every phase's train split (BadInput naming the directory and a remedy).
  explicit PhaseData(const PretrainOptions& o);

  bool phased() const { return !schedule_.empty(); }
  const data::PhaseSchedule& schedule() const { return schedule_; }
  size_t phase_at(int64_t step) const { return phased() ? schedule_.phase_at(step) : 0; }
  // The step a phase ends at (exclusive).
  int64_t end_step(size_t phase) const { return phased() ? schedule_.phases[phase].end_step : max_steps_; }
  const std::shared_ptr<const data::Dataset>& train(size_t phase) const { return train_[phased() ? phase : 0]; }
  // The phase's valid split, when it has sequences (nullptr otherwise).
  std::shared_ptr<const data::Dataset> valid(size_t phase) const;
  std::string dir(size_t phase) const;
  // A phase's batch (where the schedule names none: the run's own).
  int64_t per_device_batch(size_t phase) const;
  int64_t grad_accum(size_t phase) const;
  int64_t global_batch(size_t phase, int world) const { return per_device_batch(phase) * grad_accum(phase) * world; }

  // Refuses (BadInput) to resume the checkpoint `dir` (its trainer state and saved options) on other
  // data, another phase schedule or --max-steps, or another global batch over `world` ranks.
  void check_resume(const nlohmann::json& state, const nlohmann::json& saved_options, const std::string& dir,
                    int world) const;
  // What the run trains on: the dataset's fingerprint, or every phase's.
  nlohmann::json fingerprint() const;
  // The dataset with the longest sequences: the model's positions must cover it.
  const data::Dataset& longest() const;
  // The sequences and tokens trained on after `step` steps (each phase's steps × its global batch, × its length).
  struct Seen {
    double sequences = 0, tokens = 0;
  };
  Seen seen(int64_t step, int world) const;
  // The phases as the run summary and the model card show them (null without --phase-schedule).
  nlohmann::json phases_json(int world) const;

 private:
  std::string data_;
  int64_t max_steps_, per_device_batch_, grad_accum_;
  std::string phase_schedule_;
  data::PhaseSchedule schedule_;
  std::vector<std::shared_ptr<const data::Dataset>> train_;  // one per phase (one without a schedule)
};

}  // namespace bertpt::mlm
