"""Shared parts of the step-for-step training equivalence checks (tests/peer/train_equivalence.py,
finetune_equivalence.py): bertpt runs a task with --dump-batches, and a plain PyTorch loop over the
transformers model consumes exactly the micro-batches bertpt dumped, with torch.optim.AdamW in the
HF Trainer's parameter groups, transformers.get_linear_schedule_with_warmup and
torch.nn.utils.clip_grad_norm_. Both must then agree step by step (loss, gradient norm, learning
rate) and in the final weights.

The dump (src/engine/batch_dump.h): DIR/step-00000001/rank-0/micro-0/NAME.npy, one directory per
optimizer step (1-based, the "step" of metrics.jsonl), per rank, per micro-batch; little-endian
int64 .npy files.
"""

import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import torch

FAILURES = []


def check(ok, what):
    """Records a failed check (the run goes on, so that one run reports every deviation)."""
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILURES.append(what)
    return ok


def finish(name):
    if FAILURES:
        print(f"{name}: {len(FAILURES)} check(s) failed:", file=sys.stderr)
        for f in FAILURES:
            print("  " + f, file=sys.stderr)
        sys.exit(1)
    print(f"{name}: all checks passed")


def run(cmd, **kw):
    """Runs a command, echoing it; its failure fails the test with its output."""
    print("+ " + " ".join(str(c) for c in cmd), flush=True)
    t0 = time.time()
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"command failed with exit {p.returncode}: {' '.join(str(c) for c in cmd)}")
    print(f"  ({time.time() - t0:.1f} s)", flush=True)
    return p


def read_metrics(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# ---- the dumped batches


def load_npy_int64(path):
    """A dumped tensor: must be a standard .npy (format version 1.0) of little-endian int64 in C order."""
    with open(path, "rb") as f:
        head = f.read(8)
    if head[:6] != b"\x93NUMPY" or head[6:8] != b"\x01\x00":
        raise SystemExit(f"{path}: not a NumPy .npy file of format version 1.0 (starts {head!r})")
    a = np.load(path, allow_pickle=False)
    if a.dtype != np.dtype("<i8"):
        raise SystemExit(f"{path}: dtype {a.dtype}, expected little-endian int64 ('<i8')")
    if not a.flags["C_CONTIGUOUS"]:
        raise SystemExit(f"{path}: not C order")
    return a


def load_dumped_steps(root, names):
    """[[{name: LongTensor}, ...micro-batches], ...steps] from a --dump-batches directory of one
    rank; the step directories must be step-00000001 ... step-N without gaps."""
    step_dirs = sorted(d for d in os.listdir(root) if re.fullmatch(r"step-\d{8}", d))
    numbers = [int(d[5:]) for d in step_dirs]
    if numbers != list(range(1, len(numbers) + 1)):
        raise SystemExit(f"{root}: step directories are not step-00000001 ... without gaps: {step_dirs[:5]} ...")
    steps = []
    for d in step_dirs:
        ranks = sorted(os.listdir(os.path.join(root, d)))
        if ranks != ["rank-0"]:
            raise SystemExit(f"{root}/{d}: expected only rank-0, found {ranks}")
        rank_dir = os.path.join(root, d, "rank-0")
        micro_dirs = os.listdir(rank_dir)
        micro_dirs = sorted(micro_dirs, key=lambda m: (len(m), m))
        if micro_dirs != [f"micro-{i}" for i in range(len(micro_dirs))] or not micro_dirs:
            raise SystemExit(f"{rank_dir}: micro-batch directories are not micro-0 ...: {micro_dirs}")
        micro = []
        for m in micro_dirs:
            files = sorted(os.listdir(os.path.join(rank_dir, m)))
            if files != sorted(n + ".npy" for n in names):
                raise SystemExit(f"{rank_dir}/{m}: files {files}, expected {sorted(n + '.npy' for n in names)}")
            micro.append({n: torch.from_numpy(load_npy_int64(os.path.join(rank_dir, m, n + ".npy"))) for n in names})
        steps.append(micro)
    return steps


# ---- the optimizer as the HF Trainer sets it up


def bertpt_no_decay(name):
    """bertpt's rule (src/engine/adamw.cc is_no_decay_parameter): no decay for a name containing
    "bias" or "LayerNorm." (BERT), or a norm as ModernBERT and RoBERTa's lm_head name it ("norm." at the
    start, ".norm.", "_norm.": "lm_head.layer_norm.weight")."""
    return ("bias" in name or "LayerNorm." in name or name.startswith("norm.") or ".norm." in name
            or "_norm." in name)


def trainer_param_groups(model, weight_decay):
    """torch.optim.AdamW parameter groups as transformers.Trainer.create_optimizer builds them
    (Trainer.get_decay_parameter_names), checked to be the groups bertpt's rule gives."""
    from transformers import Trainer

    decay_names = set(Trainer.get_decay_parameter_names(None, model))
    named = list(model.named_parameters())  # each (tied) tensor once, as the Trainer iterates them
    hf_no_decay = sorted(n for n, _ in named if n not in decay_names)
    ours_no_decay = sorted(n for n, _ in named if bertpt_no_decay(n))
    check(
        hf_no_decay == ours_no_decay,
        f"no-decay group: HF Trainer's {len(hf_no_decay)} parameters == bertpt's rule's {len(ours_no_decay)}"
        + ("" if hf_no_decay == ours_no_decay else f" (HF only: {sorted(set(hf_no_decay) - set(ours_no_decay))}, "
           f"bertpt only: {sorted(set(ours_no_decay) - set(hf_no_decay))})"),
    )
    check(len(hf_no_decay) > 0 and len(named) - len(hf_no_decay) > 0, "both parameter groups are non-empty")
    return [
        {"params": [p for n, p in named if n in decay_names], "weight_decay": weight_decay},
        {"params": [p for n, p in named if n not in decay_names], "weight_decay": 0.0},
    ]


def train_steps(model, steps, micro_loss, weight_decay, lr, warmup, total, max_grad_norm, on_step=None):
    """The plain PyTorch loop. `steps`: the dumped micro-batches of every step; `micro_loss(model,
    micro, step_micro)`: the micro-batch's share of the step's loss (its gradient is accumulated).
    Returns per step {loss, grad_norm, lr}."""
    from transformers import get_linear_schedule_with_warmup

    opt = torch.optim.AdamW(trainer_param_groups(model, weight_decay), lr=lr, betas=(0.9, 0.999), eps=1e-8)
    sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=warmup, num_training_steps=total)
    model.train()
    records = []
    for k, micro in enumerate(steps):
        opt.zero_grad(set_to_none=True)
        used_lr = opt.param_groups[0]["lr"]
        loss = 0.0
        for m in micro:
            part = micro_loss(model, m, micro)
            part.backward()
            loss += part.item()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm).item()
        opt.step()
        sched.step()
        records.append({"step": k + 1, "loss": loss, "grad_norm": norm, "lr": used_lr})
        if on_step:
            on_step(k + 1, records[-1])
    return records


# ---- comparisons


def rel_diff(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


def compare_steps(bertpt_records, py_records, rtol, what):
    """Per-step loss, gradient norm (before clipping) and learning rate of metrics.jsonl against the
    Python loop. Returns the maximum relative loss deviation."""
    by_step = {r["step"]: r for r in bertpt_records if "loss" in r and "grad_norm" in r}
    check(
        sorted(by_step) == [r["step"] for r in py_records],
        f"{what}: metrics.jsonl has a record for every step 1..{len(py_records)} (found {len(by_step)})",
    )
    worst = {"loss": (0.0, 0), "grad_norm": (0.0, 0), "lr": (0.0, 0)}
    for r in py_records:
        b = by_step.get(r["step"])
        if b is None:
            continue
        for key, bkey in (("loss", "loss"), ("grad_norm", "grad_norm"), ("lr", "learning_rate")):
            d = rel_diff(b[bkey], r[key]) if r[key] != 0 or b[bkey] != 0 else 0.0
            if d > worst[key][0]:
                worst[key] = (d, r["step"])
    for r in py_records[:3] + py_records[-2:]:
        b = by_step.get(r["step"], {})
        print(f"  step {r['step']:3d}: loss bertpt {b.get('loss', float('nan')):.7f} HF {r['loss']:.7f} | "
              f"grad_norm bertpt {b.get('grad_norm', float('nan')):.6f} HF {r['grad_norm']:.6f} | "
              f"lr bertpt {b.get('learning_rate', float('nan')):.4e} HF {r['lr']:.4e}")
    check(worst["loss"][0] <= rtol, f"{what}: every step's loss within {rtol:g} relative "
          f"(max {worst['loss'][0]:.2e} at step {worst['loss'][1]})")
    check(worst["grad_norm"][0] <= rtol, f"{what}: every step's gradient norm within {rtol:g} relative "
          f"(max {worst['grad_norm'][0]:.2e} at step {worst['grad_norm'][1]})")
    check(worst["lr"][0] <= 1e-6, f"{what}: every step's learning rate equals get_linear_schedule_with_warmup's "
          f"(max relative difference {worst['lr'][0]:.2e} at step {worst['lr'][1]})")
    return worst


def check_clipping(py_records, bertpt_records, max_grad_norm, what):
    """Clipping must have been exercised: some steps above max_grad_norm (clipped), some below."""
    clipped = [r["step"] for r in py_records if r["grad_norm"] > max_grad_norm]
    check(0 < len(clipped) < len(py_records),
          f"{what}: clipping at --max-grad-norm {max_grad_norm:g} happened in some steps but not all "
          f"(HF: {len(clipped)} of {len(py_records)} steps clipped)")
    # The same steps on both sides (a norm within rounding of the threshold may go either way).
    bertpt_norm = {r["step"]: r["grad_norm"] for r in bertpt_records if "grad_norm" in r}
    differ = [r["step"] for r in py_records
              if r["step"] in bertpt_norm and abs(r["grad_norm"] - max_grad_norm) > 1e-5 * max_grad_norm
              and (bertpt_norm[r["step"]] > max_grad_norm) != (r["grad_norm"] > max_grad_norm)]
    check(not differ, f"{what}: bertpt clipped the same steps (differing: {differ})")


def compare_weights(bertpt_tensors, model, atol, what):
    """Final weights: bertpt's model.safetensors against the Python model's parameters.

    Tolerance: max |bertpt - HF| <= atol * max(1, max |HF|) per tensor, i.e. 1e-4 absolute for
    tensors of scale <= 1 (every Linear/Embedding weight, ~N(0, 0.02) plus updates of at most
    lr per step) and 1e-4 relative to the largest element for larger ones (LayerNorm weights ~1).
    Every parameter is compared, attention.self.key.bias too: its true gradient is 0 (softmax is
    invariant to it), but Adam's epsilon (1e-8) keeps the rounding noise of such a gradient from
    becoming lr-sized steps.
    """
    named = dict(model.named_parameters())
    state = model.state_dict()
    extra = sorted(k for k in bertpt_tensors if k not in state)
    check(not extra, f"{what}: bertpt's checkpoint has no tensors transformers' model lacks {extra[:5]}")
    missing = sorted(n for n in named if n not in bertpt_tensors)
    check(not missing, f"{what}: bertpt's checkpoint has every parameter {missing[:5]}")
    worst_name, worst = None, 0.0
    over = []
    for name, p in named.items():
        if name not in bertpt_tensors:
            continue
        b = bertpt_tensors[name].to(torch.float32)
        h = p.detach().to(torch.float32)
        if b.shape != h.shape:
            check(False, f"{what}: {name} shape bertpt {tuple(b.shape)} HF {tuple(h.shape)}")
            continue
        scale = max(1.0, h.abs().max().item())
        d = (b - h).abs().max().item() / scale
        if d > worst:
            worst_name, worst = name, d
        if d > atol:
            over.append(f"{name} {d:.1e}")
    check(worst <= atol, f"{what}: final weights within {atol:g} (max scaled |diff| {worst:.2e} in {worst_name})"
          + (f"; {len(over)} of {len(named)} tensors over: {', '.join(over[:4])}" if over else ""))
    return worst, worst_name


def check_decay_power(model, py_records, weight_decay, atol, what):
    """The weight decay must be strong enough that a LayerNorm weight put in the wrong group would
    fail the weight comparison: decay shrinks p by lr_k * wd * p in every step k, i.e. by about
    wd * sum(lr) * |p| over the run, with |p| ~ 1 for LayerNorm weights."""
    sum_lr = sum(r["lr"] for r in py_records)
    ln = [p.detach().abs().max().item() for n, p in model.named_parameters() if n.endswith("LayerNorm.weight")]
    effect = weight_decay * sum_lr * min(ln)
    check(effect > 10 * atol, f"{what}: weight decay {weight_decay:g} would move a wrongly decayed LayerNorm weight by "
          f"~{effect:.1e} (> 10 x the weight tolerance {atol:g}), so the groups are tested")


def sanity_moved(initial, model, atol, what):
    """The weights must have moved far more than the tolerance (else the comparison proves nothing)."""
    moved = max((p.detach() - initial[n]).abs().max().item() for n, p in model.named_parameters())
    check(moved > 20 * atol, f"{what}: training moved the weights (max |change| {moved:.3g} > 20 x {atol:g})")
    return moved


def set_threads(n):
    torch.set_num_threads(n)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
