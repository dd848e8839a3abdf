#!/usr/bin/env python3
"""bertpt's learning-rate schedules against transformers' own get_scheduler:

  lr_schedules.py BERTPT_BIN DATA WORK

For each schedule (linear, cosine, polynomial with lr_end and power, warmup_stable_decay with each
decay type and a floor) `bertpt train` runs a few steps of bert-tiny on DATA logging every step; the
learning rate of every metrics.jsonl record (the one its last update used) must equal the lr that
transformers' scheduler gives a torch optimizer for that update (relative 1e-9).
"""
import json
import os
import subprocess
import sys

import torch
from transformers import get_scheduler

STEPS, WARMUP, PEAK = 24, 4, 1e-3
CASES = [
    ("linear", [], {}),
    ("cosine", [], {}),
    ("polynomial", ["--lr-end", "1e-5", "--lr-power", "2"], {"lr_end": 1e-5, "power": 2.0}),
    ("warmup_stable_decay", ["--decay-steps", "8", "--decay-type", "linear"],
     {"num_decay_steps": 8, "decay_type": "linear"}),
    ("warmup_stable_decay", ["--decay-steps", "10", "--decay-type", "cosine", "--min-lr-ratio", "0.1"],
     {"num_decay_steps": 10, "decay_type": "cosine", "min_lr_ratio": 0.1}),
    ("warmup_stable_decay", ["--decay-steps", "6", "--decay-type", "1-sqrt"], {"num_decay_steps": 6, "decay_type": "1-sqrt"}),
]


def hf_lrs(name, kwargs):
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=PEAK)
    sched = get_scheduler(name, opt, num_warmup_steps=WARMUP, num_training_steps=STEPS, scheduler_specific_kwargs=kwargs)
    lrs = []
    for _ in range(STEPS):
        lrs.append(opt.param_groups[0]["lr"])  # the lr of this update
        opt.step()
        sched.step()
    return lrs


def main(bertpt, data, work):
    failures = 0
    for i, (name, flags, kwargs) in enumerate(CASES):
        run = os.path.join(work, f"run-{i}")
        cmd = [bertpt, "train", "--data", data, "--output-dir", run, "--model", "bert-tiny", "--max-steps", str(STEPS),
               "--warmup-steps", str(WARMUP), "--learning-rate", str(PEAK), "--lr-scheduler", name, "--logging-steps", "1",
               "--per-device-batch-size", "4", "--save-steps", "0", "--precision", "fp32", "--threads", "1",
               "--report-to", "none", "--quiet"] + flags
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL {name} {flags}: bertpt train exited {r.returncode}: {r.stderr.strip()[:400]}")
            failures += 1
            continue
        want = hf_lrs(name, kwargs)
        got = {rec["step"]: rec["learning_rate"] for rec in map(json.loads, open(os.path.join(run, "metrics.jsonl")))
               if "learning_rate" in rec}
        bad = [(s, lr, want[s - 1]) for s, lr in sorted(got.items())
               if abs(lr - want[s - 1]) > 1e-9 * max(abs(want[s - 1]), 1e-12)]
        ok = len(got) == STEPS and not bad
        failures += not ok
        print(("ok   " if ok else "FAIL ") + f"{name} {' '.join(flags)}: {len(got)} steps equal to transformers'"
              + ("" if ok else f" — first differences (step, bertpt, transformers): {bad[:3]}"))
    print(f"lr_schedules: {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
