#!/usr/bin/env python3
"""The median round of a repeated benchmark (bench/modernbert.sh with ROUNDS=N).

Each PREFIX names one side of one row, run N times: PREFIX.r1.json ... PREFIX.rN.json (`bertpt bench
--out` or bench/hf_train_step.py output; both carry "tokens_per_sec"). The run with the median
tokens/s (the upper one of an even N) is copied whole to PREFIX.json, so that its every field comes
from one run. Every run is appended to --tsv (tag, side, round, tokens/s, whether it is the median).
The first PREFIX is bertpt, the others the peer's variants: stdout gets one line with bertpt's
tokens/s over the best variant's of the same round, lowest to highest and median.

  bench/median_round.py --rounds N --tsv FILE --tag TAG PREFIX [PREFIX ...]
"""

import argparse
import json
import os
import shutil
import statistics
import sys


def runs_of(prefix, rounds):
    out = []
    for r in range(1, rounds + 1):
        path = f"{prefix}.r{r}.json"
        with open(path) as f:
            out.append((r, path, float(json.load(f)["tokens_per_sec"])))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="median_round.py", description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, required=True)
    ap.add_argument("--tsv", required=True, help="every run is appended here")
    ap.add_argument("--tag", required=True, help="the row's name (model-seq-batch-precision)")
    ap.add_argument("prefixes", nargs="+", help="bertpt's first, then the peer's variants")
    a = ap.parse_args(argv)
    sides = [runs_of(p, a.rounds) for p in a.prefixes]
    new_file = not os.path.exists(a.tsv)
    with open(a.tsv, "a") as tsv:
        if new_file:
            tsv.write("tag\tside\tround\ttokens_per_sec\tmedian\n")
        for prefix, runs in zip(a.prefixes, sides):
            median = sorted(runs, key=lambda run: run[2])[len(runs) // 2]
            shutil.copyfile(median[1], prefix + ".json")
            for r, _, tps in runs:
                tsv.write(f"{a.tag}\t{os.path.basename(prefix)}\t{r}\t{tps:.1f}\t{int(r == median[0])}\n")
    if len(sides) > 1:
        ratios = sorted(sides[0][i][2] / max(side[i][2] for side in sides[1:]) for i in range(a.rounds))
        print(f"{a.tag}: bertpt / the peer's best variant of the same round {ratios[0]:.2f}–{ratios[-1]:.2f}× "
              f"over {a.rounds} rounds (median {statistics.median(ratios):.2f}×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
