#!/usr/bin/env bash
# The published peer tables compare bertpt with transformers' best configuration too: its MLM head on
# the masked rows only (ModernBERT's own sparse_prediction=True; BERT's model.cls on model.bert's
# labelled rows). That variant must compute the stock model's loss and gradients (fp32, bert-mini and
# modernbert-mini, eval and train mode, padded and not): bench/peers/check_sparse_head.py.
#   bash sparse_head_variant.sh BERTPT_BIN SOURCE_DIR   (exit 77: the peer is missing; a failure in CI)
src=${2:?usage: $0 BERTPT_BIN SOURCE_DIR}
py=$src/.venv/bin/python
if ! "$py" -c 'import torch, transformers' 2>/dev/null; then
  echo "no torch/transformers in $py (scripts/setup-test-peers installs them)" >&2
  [[ ${CI:-} == true ]] && exit 1
  exit 77
fi
cd "$src" && exec "$py" bench/peers/check_sparse_head.py --threads 1
