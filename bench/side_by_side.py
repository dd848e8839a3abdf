#!/usr/bin/env python3
"""One table from a side-by-side training-step benchmark: bertpt against transformers.

Reads pairs of result files measured in the same run on the same device, at the same sequence
length and batch: `bertpt bench --json` output and `bench/hf_train_step.py` output. Prints a
Markdown document (machine, versions, date, the commands, and one row per pair: tokens/s, TFLOP/s,
MFU and bertpt/HF) on stdout; scripts/gpu-check writes it to $OUT/gpu.md, which becomes docs/gpu.md.

  bench/side_by_side.py --title "..." --command "..." BERTPT.json:HF.json [...]

Throughput is compared in tokens/s, the work a user gets done. TFLOP/s and MFU use bertpt's FLOP
formula (src/perf/flops.h) for both, each counting what it computes: bertpt's MLM decoder runs at
the masked positions only, HF's at every position, so HF is credited with more FLOPs per token.
"""

import argparse
import datetime
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def bertpt_row(j):
    rows = [r for r in j.get("rows", []) if "tokens_per_sec" in r]
    if not rows:
        raise SystemExit(f"side_by_side.py: no measured row in bertpt's result ({j.get('rows')})")
    r = max(rows, key=lambda r: r["tokens_per_sec"])
    return {"seq_len": r["seq_len"], "batch": r["batch"], "tokens_per_sec": r["tokens_per_sec"],
            "tflops": r["flops_per_sec"] / 1e12, "mfu": r["mfu"], "peak": j.get("peak_flops", 0) / 1e12}


def hf_row(j, peak_tflops):
    tflops = j["tflops_per_sec"]
    return {"seq_len": j["seq_len"], "batch": j["batch_size"], "tokens_per_sec": j["tokens_per_sec"],
            "tflops": tflops, "mfu": tflops / peak_tflops if peak_tflops else 0.0}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--title", required=True)
    ap.add_argument("--command", action="append", default=[], help="a command that produced the results")
    ap.add_argument("--machine", default="", help="the machine, in words")
    ap.add_argument("pairs", nargs="+", help="BERTPT_JSON:HF_JSON")
    a = ap.parse_args()

    lines, versions, paddings = [], set(), set()
    for pair in a.pairs:
        bp, hp = pair.split(":", 1)
        bj, hj = load(bp), load(hp)
        b = bertpt_row(bj)
        h = hf_row(hj, b["peak"])
        if (b["seq_len"], b["batch"]) != (h["seq_len"], h["batch"]):
            raise SystemExit(f"side_by_side.py: {pair} compares different shapes: {b} vs {h}")
        if bj.get("padding", 0) != hj.get("padding", 0):
            raise SystemExit(f"side_by_side.py: {pair} compares different padding: {bj.get('padding')} vs {hj.get('padding')}")
        paddings.add(bj.get("padding", 0))
        versions.add(f"transformers {hj['transformers']}, torch {hj['torch']}, {hj['attn_implementation']} attention, "
                     f"{hj['optimizer']} AdamW, {hj['precision']}")
        device = hj.get("device_name", "")
        model = os.path.basename(hj.get("config", "")).removesuffix(".json")
        if bj.get("padding", 0) > 0:
            model += f", padding {bj['padding']:g}"
        lines.append(f"| {device} | {model} | {b['seq_len']} | {b['batch']} | {b['tokens_per_sec']:,.0f} | {h['tokens_per_sec']:,.0f} | "
                     f"**{b['tokens_per_sec'] / h['tokens_per_sec']:.2f}×** | {b['tflops']:.1f} | {h['tflops']:.1f} | "
                     f"{100 * b['mfu']:.1f}% | {100 * h['mfu']:.1f}% |")
    out = [f"# {a.title}", "",
           f"Measured {datetime.date.today().isoformat()}" + (f" on {a.machine}" if a.machine else "") +
           " by `bench/side_by_side.py` from results of the same run.", ""]
    out += ["Peer: " + "; ".join(sorted(versions)) + ".", ""]
    if a.command:
        out += ["```sh"] + a.command + ["```", ""]
    out += ["| device | model | seq | batch | bertpt tokens/s | HF tokens/s | bertpt / HF | bertpt TFLOP/s | "
            "HF TFLOP/s | bertpt MFU | HF MFU |", "|---|---|---|---|---|---|---|---|---|---|---|"] + lines + [""]
    out += ["TFLOP/s and MFU count each implementation's own work with bertpt's formula (src/perf/flops.h): "
            "bertpt's MLM decoder runs only at the masked positions, HF's at every position. MFU is over the "
            "device's dense bf16 peak (the table in src/perf/flops.cc; on a CPU, the GEMM rate bertpt bench "
            "measured). A ModernBERT's sliding-window layers are counted at about local_attention + 1 keys per "
            "query, whatever the implementation computes."]
    padded = sorted(p for p in paddings if p > 0)
    if padded:
        out += ["", "Padded batches (`--padding " + ", ".join(f"{p:g}" for p in padded) + "`, the same rule on both "
                "sides): row r of B ends in ⌊F·T·r/(B−1)⌋ pad tokens, F/2 of the positions on average, masked out. "
                "Tokens/s and FLOPs count every position, padding included, on both sides: the columns compare step "
                "times."]
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
