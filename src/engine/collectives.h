// What the trainer needs from the other ranks of a data-parallel job, as a small interface the
// distributed issue implements on c10d (src/distributed/communicator.h: all-reduce for the sums, a
// GradientBucketer for the gradients). The trainer itself never talks to a process group; with one
// process, SingleProcess makes every call a no-op.
//
// Contract, per optimizer step (every rank makes the same calls in the same order; the global
// masked count that every micro-batch loss is divided by comes from the loader, which counts the
// masks of the whole global batch itself):
//   for each micro-step m: begin_backward(m == last); loss.backward();
//   finish_gradients()                -> every parameter's .grad is the SUM over ranks (each rank's
//                                        loss is already divided by the global count: sum, not mean)
//   sum({loss_sum, correct, stop})    -> global metrics and an agreed stop (SIGINT on any rank); or,
//                                        when the step reads nothing back, sum_on_device({loss_sum,
//                                        correct}) every step and sum({stop}) at logging steps
// Rank 0 writes logs and checkpoints; barrier() keeps the others from running ahead of a save.
#pragma once

#include <vector>

#include <ATen/core/Tensor.h>

namespace bertpt::engine {

class Collectives {
 public:
  virtual ~Collectives() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  bool is_main() const { return rank() == 0; }

  // In-place sum over ranks of small host values (counts are exact up to 2^53).
  virtual void sum(std::vector<double>& values) = 0;
  // In-place sum over ranks of tensors on the training device, without a host synchronisation.
  virtual void sum_on_device(std::vector<at::Tensor>& tensors) = 0;
  // Called once with the model's parameters on their device, before the first step and after
  // --init-from / --resume loaded weights: make them equal to rank 0's (broadcast), and register
  // gradient hooks if the implementation overlaps communication with backward.
  virtual void attach_parameters(const std::vector<at::Tensor>& parameters) = 0;
  // Before each micro-step's backward; only the last micro-step of an optimizer step needs to
  // communicate (gradient accumulation).
  virtual void begin_backward(bool last_micro_step) = 0;
  // After the last micro-step's backward: waits until every gradient holds the sum over ranks.
  virtual void finish_gradients() = 0;
  virtual void barrier() = 0;
};

// One process: nothing to exchange.
class SingleProcess final : public Collectives {
 public:
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  void sum(std::vector<double>&) override {}
  void sum_on_device(std::vector<at::Tensor>&) override {}
  void attach_parameters(const std::vector<at::Tensor>&) override {}
  void begin_backward(bool) override {}
  void finish_gradients() override {}
  void barrier() override {}
};

}  // namespace bertpt::engine
