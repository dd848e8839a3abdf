// Building a module tree whose parameter names are transformers' ("attention.self.query.weight"),
// from plain modules that only group their children: the model classes hold raw tensors and run
// functional ops, and the names still nest exactly as the checkpoints' keys.
#pragma once

#include <memory>
#include <string>

#include <ATen/ATen.h>
#include <torch/nn/module.h>

namespace bertpt::model {

// A child module named `name` that only groups parameters.
inline std::shared_ptr<torch::nn::Module> group(torch::nn::Module& parent, const std::string& name) {
  return parent.register_module(name, std::make_shared<torch::nn::Module>());
}

// Registers an uninitialised parameter `name` of `shape` (values come from an init function or a
// checkpoint).
inline at::Tensor add_param(torch::nn::Module& parent, const std::string& name, at::IntArrayRef shape) {
  return parent.register_parameter(name, at::empty(shape));
}

}  // namespace bertpt::model
