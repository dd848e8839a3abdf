#!/usr/bin/env python3
"""One table from a side-by-side training-step benchmark: bertpt against transformers.

Reads pairs of result files measured in the same run on the same device, at the same sequence
length, batch and precision: `bertpt bench --json` output and `bench/hf_train_step.py` output. One
bertpt result may be paired with several peer results, one per peer variant (hf_train_step.py's
"variant": stock, sparse, compiled or sparse+compiled; results without it are stock). Prints a
Markdown document on stdout: machine, versions, date, the commands, one row per pair (model, shape,
precision, peer variant: tokens/s, TFLOP/s, MFU and bertpt/HF), and under the table, for each model,
shape and precision, whether bertpt is faster than the peer's best variant (the most tokens/s of its
variants) and by what ratio. bench/modernbert.sh writes it to docs/modernbert-speed.md;
scripts/gpu-check to $OUT/gpu.md, which becomes docs/gpu.md.

  bench/side_by_side.py --title "..." --command "..." [--note "..."] [--keep-earlier DOC] \\
      BERTPT.json:HF.json [BERTPT.json:HF-sparse.json ...]

--keep-earlier DOC appends DOC's part from its first "## Earlier measurement" heading to its end,
verbatim (a measurement of another machine that a rewrite of DOC keeps); nothing when DOC has none.

Throughput is compared in tokens/s, the work a user gets done. TFLOP/s and MFU use bertpt's FLOP
formula (src/perf/flops.h) for both, each counting what it computes: bertpt's MLM head runs at the
masked positions only; the peer's stock and compiled variants run it at every position (credited with
more FLOPs per token), its sparse variants at the masked positions only, as bertpt.
"""

import argparse
import datetime
import json
import os
import re
import sys

EARLIER_HEADING = re.compile(r"^## Earlier measurement", re.M)
VARIANT_TEXT = {
    "stock": "HF's stock forward, eager: the MLM head (transform + decoder) at every position",
    "sparse": "`--sparse-head`: the MLM head on the masked rows only (ModernBERT's own `sparse_prediction=True`; "
              "BERT's `model.cls` on `model.bert`'s labelled rows), eager",
    "compiled": "`--compile`: the stock forward + loss under `torch.compile` (default mode, inductor)",
    "sparse+compiled": "`--sparse-head --compile`: both",
}


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


def earlier_part(path):
    """DOC's text from its first "## Earlier measurement" heading to its end, verbatim ("" if none)."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return ""
    m = EARLIER_HEADING.search(text)
    if not m:
        if "| bertpt tokens/s |" in text:
            print(f"side_by_side.py: {path} has no '## Earlier measurement' section: its table is replaced",
                  file=sys.stderr)
        return ""
    return text[m.start():]


def tflops_text(x):
    return f"{x:.3g}" if x < 10 else f"{x:.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--title", required=True)
    ap.add_argument("--command", action="append", default=[], help="a command that produced the results")
    ap.add_argument("--machine", default="", help="the machine, in words")
    ap.add_argument("--note", action="append", default=[], help="a paragraph printed after the footnotes")
    ap.add_argument("--keep-earlier", metavar="DOC", default=None,
                    help="append DOC's part from its first '## Earlier measurement' heading on, verbatim")
    ap.add_argument("pairs", nargs="+", help="BERTPT_JSON:HF_JSON")
    a = ap.parse_args()

    rows, versions, paddings = [], set(), set()
    for pair in a.pairs:
        bp, hp = pair.split(":", 1)
        bj, hj = load(bp), load(hp)
        b = bertpt_row(bj)
        h = hf_row(hj, b["peak"])
        if (b["seq_len"], b["batch"]) != (h["seq_len"], h["batch"]):
            raise SystemExit(f"side_by_side.py: {pair} compares different shapes: {b} vs {h}")
        if bj.get("padding", 0) != hj.get("padding", 0):
            raise SystemExit(f"side_by_side.py: {pair} compares different padding: {bj.get('padding')} vs {hj.get('padding')}")
        precision = hj["precision"]
        if bj.get("precision", precision) != precision:
            raise SystemExit(f"side_by_side.py: {pair} compares different precisions: {bj.get('precision')} vs {precision}")
        paddings.add(bj.get("padding", 0))
        versions.add(f"transformers {hj['transformers']}, torch {hj['torch']}, {hj['attn_implementation']} attention, "
                     f"{hj['optimizer']} AdamW")
        model = os.path.basename(hj.get("config", "")).removesuffix(".json")
        if bj.get("padding", 0) > 0:
            model += f", padding {bj['padding']:g}"
        tc = hj.get("torch_compile") or {}
        rows.append({"device": hj.get("device_name", ""), "model": model, "precision": precision,
                     "variant": hj.get("variant", "stock"), "b": b, "h": h,
                     "ratio": b["tokens_per_sec"] / h["tokens_per_sec"],
                     "recompiled": bool(tc.get("graphs_compiled_in_timed_steps")),
                     "warmup_sec": hj.get("warmup_time_sec") if hj.get("compile") else None})

    # Groups: one model, shape and precision on one device, in the order given; the peer's best
    # variant is the one with the most tokens/s.
    groups = {}
    for r in rows:
        groups.setdefault((r["device"], r["model"], r["b"]["seq_len"], r["b"]["batch"], r["precision"]), []).append(r)
    best = {key: max(g, key=lambda r: r["h"]["tokens_per_sec"]) for key, g in groups.items()}
    best_ids = {id(r) for r in best.values()}

    lines = []
    for r in rows:
        b, h = r["b"], r["h"]
        ratio = f"{r['ratio']:.2f}×"
        if id(r) in best_ids:
            ratio = f"**{ratio}**"
        variant = r["variant"] + (" †" if r["recompiled"] else "")
        lines.append(f"| {r['device']} | {r['model']} | {b['seq_len']} | {b['batch']} | {r['precision']} | {variant} | "
                     f"{b['tokens_per_sec']:,.0f} | {h['tokens_per_sec']:,.0f} | {ratio} | {tflops_text(b['tflops'])} | "
                     f"{tflops_text(h['tflops'])} | {100 * b['mfu']:.1f}% | {100 * h['mfu']:.1f}% |")

    verdicts = []
    for key, g in groups.items():
        _, model, seq, batch, precision = key
        r = best[key]
        n = len(g)
        of = f"the fastest of its {n} variants here" if n > 1 else "the only variant measured here"
        faster = r["ratio"] > 1
        even = " (about even: within 5%)" if abs(r["ratio"] - 1) < 0.05 else ""
        verdicts.append(
            f"- {model}, seq {seq}, batch {batch}, {precision}: bertpt ({r['b']['tokens_per_sec']:,.0f} tokens/s) "
            f"**is {'faster' if faster else 'not faster'}** than the peer's best variant, {r['variant']} "
            f"({r['h']['tokens_per_sec']:,.0f} tokens/s, {of}): **{r['ratio']:.2f}×**{even}.")

    out = [f"# {a.title}", "",
           f"Measured {datetime.date.today().isoformat()}" + (f" on {a.machine}" if a.machine else "") +
           " by `bench/side_by_side.py` from results of the same run.", ""]
    out += ["Peer: " + "; ".join(sorted(versions)) + ".", ""]
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    out += ["Peer variants (`bench/hf_train_step.py`; the rest of the step, autocast, clipping, AdamW groups and "
            "batches, is the same in all of them):", ""]
    out += [f"- {v}: {VARIANT_TEXT.get(v, '(described in its JSON)')}" for v in variants] + [""]
    if a.command:
        out += ["```sh"] + a.command + ["```", ""]
    out += ["| device | model | seq | batch | precision | peer variant | bertpt tokens/s | HF tokens/s | bertpt / HF | "
            "bertpt TFLOP/s | HF TFLOP/s | bertpt MFU | HF MFU |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + lines + [""]
    out += ["bertpt against the peer's best variant (the most tokens/s of its variants; its ratio is in bold above):",
            ""] + verdicts + [""]
    out += ["TFLOP/s and MFU count each implementation's own work with bertpt's formula (src/perf/flops.h): "
            "bertpt's MLM head (transform and decoder) runs only at the masked positions; the peer's stock and "
            "compiled variants run it at every position and are credited with those FLOPs, its sparse variants "
            "(sparse, sparse+compiled) only at the masked positions, as bertpt. MFU is over the device's dense peak "
            "at the row's precision (the table in src/perf/flops.cc; on a CPU, the GEMM rate bertpt bench measured "
            "in its run). A ModernBERT's sliding-window layers are counted at about local_attention + 1 keys per "
            "query, whatever the implementation computes."]
    warmups = [r["warmup_sec"] for r in rows if r["warmup_sec"] is not None]
    if warmups:
        out += ["", f"The compiled variants compile in their untimed warm-up steps: {min(warmups):.0f}–"
                f"{max(warmups):.0f} s per run here, not counted in the tokens/s."]
    if any(r["recompiled"] for r in rows):
        out += ["", "† graphs were still compiled during the timed steps: that row's time includes compilation "
                "(more warm-up steps would avoid it)."]
    padded = sorted(p for p in paddings if p > 0)
    if padded:
        out += ["", "Padded batches (`--padding " + ", ".join(f"{p:g}" for p in padded) + "`, the same rule on both "
                "sides): row r of B ends in ⌊F·T·r/(B−1)⌋ pad tokens, F/2 of the positions on average, masked out. "
                "Tokens/s and FLOPs count every position, padding included, on both sides: the columns compare step "
                "times."]
    for note in a.note:
        out += ["", note]
    text = "\n".join(out) + "\n"
    if a.keep_earlier:
        earlier = earlier_part(a.keep_earlier)
        if earlier:
            text += "\n" + earlier
    sys.stdout.write(text)


if __name__ == "__main__":
    sys.exit(main())
