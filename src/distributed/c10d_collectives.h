// The trainer's Collectives (src/engine/collectives.h) on c10d: small sums as one all-reduce of
// float64 values, parameters broadcast from rank 0 (and verified), gradients summed in buckets that
// overlap the backward pass.
#pragma once

#include <memory>

#include "distributed/communicator.h"
#include "engine/collectives.h"

namespace bertpt::distributed {

class C10dCollectives final : public engine::Collectives {
 public:
  explicit C10dCollectives(std::shared_ptr<Communicator> comm, size_t bucket_bytes = size_t(25) << 20);
  int rank() const override { return comm_->rank(); }
  int world_size() const override { return comm_->world_size(); }
  void sum(std::vector<double>& values) override;
  void sum_on_device(std::vector<at::Tensor>& tensors) override;
  void attach_parameters(const std::vector<at::Tensor>& parameters) override;
  void begin_backward(bool last_micro_step) override;
  void finish_gradients() override;
  void barrier() override { comm_->barrier(); }

  Communicator& communicator() { return *comm_; }
  // Throws BadInput on every rank unless all ranks hold bit-identical parameters (checked at the
  // end of a run: data parallelism must keep the replicas in lockstep).
  void verify_parameters_in_sync();
  // Seconds finish_gradients() spent waiting on communication that the backward pass did not hide:
  // in the last call, and in all calls so far.
  double exposed_communication_seconds() const;
  double total_exposed_communication_seconds() const { return total_exposed_; }

 private:
  std::shared_ptr<Communicator> comm_;
  size_t bucket_bytes_;
  std::unique_ptr<GradientBucketer> buckets_;
  std::vector<at::Tensor> parameters_;
  double total_exposed_ = 0;
};

// A fingerprint of the parameters' values (for "identical on every rank" checks).
uint64_t parameter_fingerprint(const std::vector<at::Tensor>& parameters);

}  // namespace bertpt::distributed
