#include "distributed/c10d_collectives.h"

#include <ATen/core/grad_mode.h>

#include "common/error.h"
#include "common/hash.h"

namespace bertpt::distributed {

C10dCollectives::C10dCollectives(std::shared_ptr<Communicator> comm, size_t bucket_bytes)
    : comm_(std::move(comm)), bucket_bytes_(bucket_bytes) {}

void C10dCollectives::sum(std::vector<double>& values) {
  if (comm_->world_size() == 1 || values.empty()) return;
  at::Tensor t = at::tensor(at::ArrayRef<double>(values), at::kDouble);
  if (comm_->backend() == "nccl") t = t.to(at::kCUDA);
  std::vector<at::Tensor> ts = {t};
  comm_->all_reduce_sum(ts);
  at::Tensor host = ts[0].cpu().contiguous();
  const double* p = host.data_ptr<double>();
  for (size_t i = 0; i < values.size(); ++i) values[i] = p[i];
}

void C10dCollectives::sum_on_device(std::vector<at::Tensor>& tensors) {
  if (comm_->world_size() == 1) return;
  // One tensor per collective (a c10d list means per-device replicas); few and tiny here.
  for (auto& t : tensors) {
    std::vector<at::Tensor> one = {t};
    comm_->all_reduce_sum(one);
    t = one[0];
  }
}

uint64_t parameter_fingerprint(const std::vector<at::Tensor>& parameters) {
  uint64_t h = 0x5eed;
  for (const auto& p : parameters) {
    at::Tensor c = p.detach().to(at::kCPU).contiguous();
    h = mix64(h ^
              hash64(std::string_view(static_cast<const char*>(c.data_ptr()), size_t(c.numel()) * c.element_size())));
  }
  return h;
}

void C10dCollectives::attach_parameters(const std::vector<at::Tensor>& parameters) {
  if (comm_->world_size() == 1) return;
  {
    // Rank 0's weights everywhere (random init, --init-from or --resume), then a check that it worked.
    // One tensor per collective: c10d's tensor lists mean per-device replicas, not a batch.
    at::NoGradGuard no_grad;
    for (const auto& p : parameters) {
      std::vector<at::Tensor> one = {p.detach()};
      comm_->broadcast(one, 0);
    }
  }
  comm_->check_same("the model parameters after the broadcast from rank 0", parameter_fingerprint(parameters));
  buckets_ = std::make_unique<GradientBucketer>(comm_, parameters, bucket_bytes_);
  parameters_ = parameters;
}

void C10dCollectives::verify_parameters_in_sync() {
  if (comm_->world_size() == 1 || parameters_.empty()) return;
  comm_->check_same("the model parameters at the end of the run", parameter_fingerprint(parameters_));
}

void C10dCollectives::begin_backward(bool last_micro_step) {
  if (!buckets_) {
    if (comm_->world_size() > 1) throw Error(Error::Kind::Internal, "begin_backward before attach_parameters");
    return;
  }
  buckets_->begin_backward(last_micro_step);
}

void C10dCollectives::finish_gradients() {
  if (!buckets_) return;
  buckets_->finish();
  total_exposed_ += buckets_->last_exposed_wait_seconds();
}

double C10dCollectives::exposed_communication_seconds() const {
  return buckets_ ? buckets_->last_exposed_wait_seconds() : 0.0;
}

}  // namespace bertpt::distributed
