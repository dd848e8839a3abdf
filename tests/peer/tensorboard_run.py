#!/usr/bin/env python3
"""Checks a bertpt run directory's TensorBoard files against its metrics.jsonl, with TensorBoard's
own EventAccumulator (tests/peer/tensorboard_reader.py read_run):

  tensorboard_run.py RUN LAST_STEP

- every numeric field of every metrics.jsonl record is a scalar under the Trainer's tag
  (eval_x -> eval/x, valid_x -> eval/x, x -> train/x) at the record's step, equal to the float32 of
  the value, and no scalar is there that metrics.jsonl does not have;
- no (tag, step) twice (a resume purges the steps it trains again), wall times increase per tag;
- train/loss reaches LAST_STEP; the hyperparameters are in the text tab ("args").
"""
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorboard_reader import read_run  # noqa: E402


def tag_of(key):
    if key.startswith("eval_"):
        return "eval/" + key[5:]
    if key.startswith("valid_"):
        return "eval/" + key[6:]
    return "train/" + key


def main(run, last_step):
    expected = {}
    for line in open(os.path.join(run, "metrics.jsonl"), encoding="utf-8"):
        r = json.loads(line)
        for k, v in r.items():
            if k != "step" and isinstance(v, (int, float)) and not isinstance(v, bool):
                # the first value of a tag at a step (an epoch record repeats `epoch`)
                expected.setdefault(tag_of(k), {}).setdefault(r["step"], float(np.float32(v)))
    got = read_run(os.path.join(run, "runs"))
    failures = []
    for tag, by_step in expected.items():
        events = got["scalars"].get(tag, [])
        steps = [s for s, _, _ in events]
        if len(steps) != len(set(steps)):
            failures.append(f"{tag}: a step shows twice: {steps}")
        walls = [w for _, _, w in events]
        if walls != sorted(walls):
            failures.append(f"{tag}: wall times go back")
        values = {s: v for s, v, _ in events}
        if set(values) != set(by_step):
            failures.append(f"{tag}: steps {sorted(values)} in TensorBoard, {sorted(by_step)} in metrics.jsonl")
        for s, v in by_step.items():
            w = values.get(s)
            if w is not None and not (w == v or (math.isnan(w) and math.isnan(v))):
                failures.append(f"{tag} at step {s}: {w} in TensorBoard, {v} in metrics.jsonl")
    extra = set(got["scalars"]) - set(expected)
    if extra:
        failures.append(f"tags not in metrics.jsonl: {sorted(extra)}")
    losses = [s for s, _, _ in got["scalars"].get("train/loss", [])]
    if not losses or max(losses) != last_step:
        failures.append(f"train/loss ends at {max(losses) if losses else None}, expected {last_step}")
    if "args" not in got["texts"]:
        failures.append("no 'args' text (hyperparameters)")
    n = sum(len(v) for v in expected.values())
    for f in failures:
        print("FAIL:", f)
    print(f"{run}: {n} scalars in {len(expected)} tags compared with metrics.jsonl, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
