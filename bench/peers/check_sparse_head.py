#!/usr/bin/env python3
"""Checks bench/hf_train_step.py --sparse-head: the MLM loss with the head on the masked rows only
equals the stock dense-head loss on the same weights and batch.

For each config (default: configs/bert-mini.json and configs/modernbert-mini.json), in fp32:

  * BERT: BertForMaskedLM's own forward (dense head, CrossEntropyLoss ignoring -100) against
    hf_train_step.bert_sparse_mlm_loss (model.bert, the labelled rows, model.cls, cross-entropy) on the
    same model;
  * ModernBERT: ModernBertForMaskedLM built with sparse_prediction=False against one built with the
    config's sparse_prediction=True (hf_train_step.build_model) holding the same weights (state_dict).

Both in eval mode (no dropout) and in train mode with the same seed before each forward (the heads
have no dropout, so the encoder draws the same dropout masks), on an unpadded and a padded batch
(hf_train_step's collator and --padding rule). The gradients are compared too. Exits 1 when a loss
differs by more than --tol (default 1e-5) or a gradient by more than --grad-tol (relative to the
largest dense gradient entry of its tensor, or to 1e-4 of the model's largest where that is more),
0 otherwise; prints one line per case. bf16-autocast differences are printed for information
(--bf16) and never fail the check.

  .venv/bin/python bench/peers/check_sparse_head.py [--config configs/bert-mini.json ...]
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import torch  # noqa: E402

import hf_train_step as hts  # noqa: E402

PROG = "check_sparse_head.py"


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--config", action="append", default=None,
                   help="a BERT or ModernBERT config.json (repeatable; default: configs/bert-mini.json and "
                        "configs/modernbert-mini.json)")
    p.add_argument("--vocab-size", type=int, default=32000)
    p.add_argument("--seq-len", type=int, default=64)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--tol", type=float, default=1e-5, help="largest |sparse - dense| fp32 loss difference allowed")
    p.add_argument("--grad-tol", type=float, default=1e-4,
                   help="largest fp32 gradient difference allowed, relative to the tensor's largest dense |gradient| "
                        "(at least 1e-4 of the model's largest)")
    p.add_argument("--bf16", action="store_true", help="also print (never check) the bf16-autocast differences")
    a = p.parse_args(argv)
    a.config = a.config or [os.path.join(ROOT, "configs", "bert-mini.json"),
                            os.path.join(ROOT, "configs", "modernbert-mini.json")]
    return a


def loss_and_grads(model, loss_fn, b, train, seed, bf16):
    model.train(train)
    model.zero_grad(set_to_none=True)
    torch.manual_seed(seed)  # the same dropout masks for both heads in train mode
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        loss = loss_fn(b["input_ids"], b["attention_mask"], b["labels"])
    loss.backward()
    grads = {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}
    return float(loss.detach()), grads


def grad_difference(dense, sparse):
    """The largest |dense - sparse| gradient entry relative to its tensor's largest |dense| entry, and its name.

    A tensor whose gradient is zero up to rounding is measured against 1e-4 of the model's largest
    gradient instead: BERT's attention key bias has a gradient of exactly zero in exact arithmetic
    (softmax ignores a constant added to a query's scores), ~1e-11 in fp32, and two head variants'
    rounding noise there is as large as the noise itself (it depends on the CPU's GEMM kernels)."""
    if dense.keys() != sparse.keys():
        return float("inf"), f"different parameters with gradients: {sorted(dense.keys() ^ sparse.keys())}"
    floor = 1e-4 * max((float(g.abs().max()) for g in dense.values()), default=0.0)
    worst, where = 0.0, ""
    for n, g in dense.items():
        d = float((g - sparse[n]).abs().max()) / max(float(g.abs().max()), floor, 1e-12)
        if d > worst:
            worst, where = d, n
    return worst, where


def check_config(path, a):
    config = hts.build_config(path, a.vocab_size, "sdpa")
    modern = config.model_type == "modernbert"
    torch.manual_seed(a.seed)
    dense_model = hts.build_model(config, sparse_head=False)
    if modern:
        sparse_config = hts.build_config(path, a.vocab_size, "sdpa")
        sparse_model = hts.build_model(sparse_config, sparse_head=True)
        sparse_model.load_state_dict(dense_model.state_dict(), strict=True)  # the same weights
        if not sparse_model.sparse_prediction or dense_model.sparse_prediction:
            raise SystemExit(f"{PROG}: {path}: sparse_prediction not set as built")
    else:
        sparse_model = dense_model  # BERT's sparse loss goes through the same model's public modules
    dense_fn = hts.make_loss_fn(dense_model, sparse_head=False)
    sparse_fn = hts.make_loss_fn(sparse_model, sparse_head=True)

    torch.manual_seed(a.seed + 1)
    batches, _ = hts.make_batches(2, a.batch_size, a.seq_len, config.vocab_size, 0.15)
    hts.pad_tails(batches[1], 0.5)
    name = os.path.basename(path)
    failures = 0
    precisions = [False, True] if a.bf16 else [False]
    for bf16 in precisions:
        for bi, b in enumerate(batches):
            masked = int((b["labels"] != hts.IGNORE_INDEX).sum())
            for train in (False, True):
                ld, gd = loss_and_grads(dense_model, dense_fn, b, train, a.seed, bf16)
                ls, gs = loss_and_grads(sparse_model, sparse_fn, b, train, a.seed, bf16)
                diff = abs(ld - ls)
                gdiff, gwhere = grad_difference(gd, gs)
                checked = not bf16
                ok = diff <= a.tol and gdiff <= a.grad_tol if checked else True
                failures += not ok
                status = ("ok" if ok else "FAIL") if checked else "info"
                print(f"{status:4} {name} {'bf16' if bf16 else 'fp32'} {'padded' if bi else 'unpadded'} "
                      f"{'train' if train else 'eval'} masked={masked}/{b['labels'].numel()}: dense loss {ld:.7f}, "
                      f"sparse {ls:.7f}, |diff| {diff:.2e} (tol {a.tol:g}); max relative grad diff {gdiff:.2e} "
                      f"({gwhere}; tol {a.grad_tol:g})")
    return failures


def main(argv=None):
    a = parse_args(argv)
    torch.set_num_threads(a.threads)
    failures = sum(check_config(path, a) for path in a.config)
    if failures:
        print(f"{PROG}: {failures} case(s) where the sparse head's loss or gradients differ from the dense head's",
              file=sys.stderr)
        return 1
    print(f"{PROG}: sparse and dense MLM heads agree (fp32 loss within {a.tol:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
