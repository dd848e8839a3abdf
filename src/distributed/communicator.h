// Collective communication between the ranks of a data-parallel job, on PyTorch's c10d process
// groups: ProcessGroupGloo for CPU tensors, ProcessGroupNCCL for CUDA tensors (when LibTorch has
// it), rendezvous through a c10d TCPStore at MASTER_ADDR:MASTER_PORT (rank 0 hosts it). With one
// process there is no process group and every call is a no-op.
#pragma once

#include <ATen/ATen.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distributed/dist_env.h"

namespace bertpt::distributed {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual std::string backend() const = 0;  // "none", "gloo", "nccl"

  // In-place sum over ranks. As in c10d, a list holds one tensor per local device (replicas of the
  // same shape), not a batch of different tensors: pass one tensor.
  virtual void all_reduce_sum(std::vector<at::Tensor>& tensors) = 0;
  // Starts an in-place sum; wait() on the handle before reading the tensors.
  class Pending {
   public:
    virtual ~Pending() = default;
    virtual void wait() = 0;
  };
  virtual std::unique_ptr<Pending> all_reduce_sum_async(std::vector<at::Tensor>& tensors) = 0;
  // Rank `root`'s values to every rank, in place.
  virtual void broadcast(std::vector<at::Tensor>& tensors, int root = 0) = 0;
  virtual void barrier() = 0;

  // Throws BadInput on every rank when ranks disagree on `value` (a config or data fingerprint),
  // naming `what` and the values seen.
  void check_same(const std::string& what, uint64_t value);
};

struct CommunicatorOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};  // a collective or rendezvous stuck longer fails
  bool use_cuda = false;                                       // NCCL for CUDA tensors
};

// The NCCL version c10d was built with ("2.30.7"), or "" when this LibTorch has no NCCL.
std::string nccl_version();

// A communicator for `env` (a no-op one when env.world_size == 1). Throws BadInput with the address
// tried when the rendezvous fails (port in use, master unreachable, timeout).
std::shared_ptr<Communicator> make_communicator(const DistEnv& env, const CommunicatorOptions& options);

// Sums gradients over ranks in buckets of about `bucket_bytes`, each launched as soon as the backward
// pass has produced all of its gradients, so communication overlaps the rest of the backward pass
// (as PyTorch DDP does). With gradient accumulation, only the last micro-step communicates.
//
//   GradientBucketer buckets(comm, model->parameters());
//   for each micro-step: buckets.begin_backward(last_micro_step); loss.backward();
//   buckets.finish();   // waits; every parameter's .grad now holds the sum over ranks
class GradientBucketer {
 public:
  GradientBucketer(std::shared_ptr<Communicator> comm, std::vector<at::Tensor> parameters,
                   size_t bucket_bytes = size_t(25) << 20);
  ~GradientBucketer();
  void begin_backward(bool communicate);
  void finish();
  size_t buckets() const;
  // Seconds finish() spent waiting for communication that the backward pass did not hide.
  double last_exposed_wait_seconds() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bertpt::distributed
