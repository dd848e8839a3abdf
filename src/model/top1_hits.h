// How many rows of a logits matrix predict their label: the MLM accuracy's numerator, without the
// argmax. Row r is a hit when argmax(logits[r]) == target[r], argmax as ATen's (the first maximum;
// a NaN counts as the maximum, so the first NaN wins); a target outside [0, V) (e.g. -100, ignored)
// is never a hit. On the CPU one scan per row checks the label's logit against the others and stops
// at the first that beats it (early in training, within a few elements), instead of a full argmax
// over V; elsewhere it is argmax(-1).eq(target).sum().
#pragma once

#include <ATen/core/Tensor.h>

namespace bertpt::model {

// logits: [M, V] fp32 or fp64; target: [M] int64. A 0-dimensional int64 tensor on logits' device.
at::Tensor top1_hits(const at::Tensor& logits, const at::Tensor& target);

}  // namespace bertpt::model
