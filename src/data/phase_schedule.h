// Training in phases of different sequence lengths (NVIDIA's and DeepSpeed's BERT recipe: 90% of the
// steps at 128 tokens, the rest at 512). `bertpt prepare --seq-len 128,512` writes one dataset per
// length, DATA/seq-128 and DATA/seq-512, in one pass; `bertpt train --phase-schedule 128:0.9,512:0.1`
// trains each share of --max-steps on the dataset of that length, optionally with its own batch:
//
//   LEN:SHARE[:PER_DEVICE_BATCH[:GRAD_ACCUM]],...     e.g. 128:0.9:64,512:0.1:16:4
//
// The shares add up to 1; phase i covers optimizer steps [begin_step, end_step), with
// end_step = round(cumulative share × max_steps) and the last phase ending at max_steps. Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bertpt::data {

struct TrainingPhase {
  uint32_t seq_len = 0;
  double share = 0;              // of --max-steps
  int64_t per_device_batch = 0;  // 0: the run's --per-device-batch-size
  int64_t grad_accum = 0;        // 0: the run's --grad-accum
  int64_t begin_step = 0, end_step = 0;
  int64_t steps() const { return end_step - begin_step; }
};

struct PhaseSchedule {
  std::vector<TrainingPhase> phases;  // empty: one phase, the run's own --data and batch
  bool empty() const { return phases.empty(); }
  // The phase that optimizer step `step` (0-based) belongs to; steps past the end belong to the last.
  size_t phase_at(int64_t step) const;
  uint32_t max_seq_len() const;
};

// Parses `text` (the format above; "" gives an empty schedule) for a run of `max_steps` steps.
// BadInput naming --phase-schedule and the faulty part.
PhaseSchedule parse_phase_schedule(const std::string& text, int64_t max_steps);

// "seq-128": the folder of DATA that holds the dataset of one length.
std::string length_dir_name(uint32_t seq_len);
// DATA/seq-LEN.
std::string length_dir(const std::string& data, uint32_t seq_len);
// The lengths DATA holds as DATA/seq-LEN folders with a manifest, ascending (empty for a plain dataset).
std::vector<uint32_t> lengths_in(const std::string& data);
// "seq-128, seq-512": the folder names of `lengths`, for messages.
std::string length_dir_names(const std::vector<uint32_t>& lengths);

}  // namespace bertpt::data
