"""Writes docs/recipes.md from the runs of bench/recipes.sh: the equal-compute table measured on this
machine, and the guide's 1M-step job recomputed per recipe with `bertpt cost`."""
import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def records(run):
    with open(os.path.join(run, "metrics.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def window_total(recs, per_sec):
    """What the run spent of a per-second quantity (model FLOPs, tokens): each log record's rate x seconds
    per step x the steps it covers."""
    total, last = 0.0, 0
    for r in recs:
        if "loss" not in r:
            continue
        total += r[per_sec] * r["step_time_sec"] * (r["step"] - last)
        last = r["step"]
    return total


def arm_row(out, arm, seeds):
    run = os.path.join(out, "runs", arm)
    recs = records(run)
    train = [r for r in recs if "loss" in r]
    ev = load(os.path.join(run, "eval512.json"))
    accs = [load(os.path.join(out, "finetune", arm, f"seed-{s}", "results.json"))["test_accuracy"] for s in seeds]
    config = load(os.path.join(run, "run_config.json"))
    with open(os.path.join(run, "wall_seconds")) as f:
        wall = float(f.read())
    return {
        "arm": arm,
        "model": config["model"],
        "steps": train[-1]["step"],
        "batch": ", ".join(sorted({str(r.get("global_batch", config["per_device_batch_size"] * config["grad_accum"]))
                                   for r in train})),
        "optim": config["optim"],
        "tokens": window_total(train, "tokens_per_sec"),
        "flops": window_total(train, "model_flops_per_sec"),
        "wall": wall,
        "train_loss": train[-1]["loss"],
        "eval_loss": ev["eval_loss"],
        "eval_acc": ev["eval_accuracy"],
        "ft_mean": statistics.mean(accs),
        "ft_std": statistics.stdev(accs) if len(accs) > 1 else 0.0,
    }


def cost_rows(bertpt, out, f128, f512, modern_f512):
    """The guide's job per recipe on its Gaudi node: its measured 512-token rate (12.5 h per 100k steps of
    256), and at 128 tokens, and for ModernBERT-base, that rate scaled by the FLOP ratio (an assumption:
    the same MFU)."""
    rate512 = 100000 * 256 / (12.5 * 3600)
    benches = {}
    for length, rate in ((512, rate512), (128, rate512 * f512 / f128), ("modernbert-512", rate512 * f512 / modern_f512)):
        path = os.path.join(out, f"gaudi-{length}.json")
        with open(path, "w") as f:
            json.dump({"seq_len": 512 if length == "modernbert-512" else length, "seq_per_sec": rate}, f)
        benches[length] = path
    jobs = [
        ("guide (AdamW, 1M steps x 256 x 512)", ["--steps", "1000000", "--global-batch", "256", "--seq-len", "512",
                                                 "--bench", benches[512]]),
        ("two-phase (same steps: 90% at 128)", ["--steps", "1000000", "--global-batch", "256",
                                                "--phase-schedule", "128:0.9,512:0.1",
                                                "--bench", benches[128], "--bench", benches[512]]),
        ("NVIDIA LAMB (7,038 steps x 65,536 x 128, 1,563 x 32,768 x 512)",
         ["--steps", "8601", "--phase-schedule", "128:%.6f:65536,512:%.6f:32768" % (7038 / 8601, 1563 / 8601),
          "--bench", benches[128], "--bench", benches[512]]),
        ("ModernBERT-base (AdamW, 1M steps x 256 x 512)", ["--steps", "1000000", "--global-batch", "256", "--seq-len",
                                                           "512", "--bench", benches["modernbert-512"]]),
    ]
    rows = []
    for name, flags in jobs:
        r = subprocess.run([bertpt, "cost", "--json", "--instance", "dl1.24xlarge", *flags],
                           check=True, capture_output=True, text=True)
        j = json.loads(r.stdout)
        phases = j.get("phases") or [j["job"]]
        sequences = sum(p["steps"] * p["global_batch"] for p in phases)
        tokens = sum(p["steps"] * p["global_batch"] * p["seq_len"] for p in phases)
        per_seq = {128: f128, 512: modern_f512 if name.startswith("ModernBERT") else f512}
        flops = sum(p["steps"] * p["global_batch"] * per_seq[p["seq_len"]] for p in phases)
        rows.append((name, sequences, tokens, j["rows"][0]["hours"], j["rows"][0]["dollars"], flops,
                     " ".join(["bertpt cost --instance dl1.24xlarge", *flags]).replace(out + "/", "")))
    return rows


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--out", required=True)
    a.add_argument("--doc", required=True)
    a.add_argument("--arms", nargs="+", required=True)
    a.add_argument("--seeds", nargs="+", required=True)
    a.add_argument("--budget", type=float, required=True)
    a.add_argument("--f128", type=float, required=True)
    a.add_argument("--f512", type=float, required=True)
    a.add_argument("--base-f128", type=float, required=True)
    a.add_argument("--base-f512", type=float, required=True)
    a.add_argument("--modern-f512", type=float, required=True)
    a.add_argument("--modernbase-f512", type=float, required=True)
    a.add_argument("--bertpt", required=True)
    a.add_argument("--command", required=True)
    o = a.parse_args()
    rows = [arm_row(o.out, arm, o.seeds) for arm in o.arms]
    version = subprocess.run([o.bertpt, "--version"], capture_output=True, text=True).stdout.strip()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    bench512 = load(os.path.join(o.out, "bench-512.json"))
    L = []
    L.append("# What the cheaper-BERT recipes buy\n")
    L.append(f"Written by `{o.command}` on {datetime.date.today()}: {os.cpu_count()} × {cpu}, {platform.system()}, "
             f"{version.splitlines()[0] if version else 'bertpt'}. Model `{bench512['model']}`, "
             f"{bench512['precision']}, one corpus (Wikipedia + Gutenberg paragraphs from ../shared/data), one "
             "8k WordPiece tokenizer, `prepare --seq-len 128,512` in one pass.\n")
    L.append("## At equal compute on this machine\n")
    L.append(f"Every arm spends the same training FLOPs, {o.budget:.3g} (the baseline's steps × batch × "
             f"{o.f512:.3g} FLOP per 512-token sequence; {o.f128:.3g} per 128-token sequence; the ModernBERT "
             f"model's {o.modern_f512:.3g} per 512-token sequence, its sliding-window layers counted as such; from "
             "`bertpt bench`, src/perf/flops.h). *FLOPs spent* is what the runs' own metrics.jsonl records add up to. "
             "Held-out MLM: the same 512-token valid split for every arm (`bertpt eval`). AG News: "
             f"`bertpt finetune`, 4 classes, mean ± std of test accuracy over seeds {', '.join(o.seeds)}.\n")
    L.append("| recipe | model | optimizer | steps | global batch | tokens seen | FLOPs spent | wall | final train loss | "
             "held-out MLM loss (512) | held-out MLM accuracy | AG News test accuracy |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        L.append(f"| {r['arm']} | {r['model']} | {r['optim']} | {r['steps']:,} | {r['batch']} | {r['tokens'] / 1e6:.2f} M | "
                 f"{r['flops']:.3g} | {r['wall'] / 60:.1f} min | {r['train_loss']:.3f} | {r['eval_loss']:.3f} | "
                 f"{r['eval_acc']:.4f} | {r['ft_mean']:.4f} ± {r['ft_std']:.4f} |")
    L.append("")
    base = rows[0]
    for r in rows[1:]:
        better = "lower" if r["eval_loss"] < base["eval_loss"] else "higher"
        L.append(f"- {r['arm']}: held-out MLM loss {r['eval_loss']:.3f}, {better} than the baseline's "
                 f"{base['eval_loss']:.3f}, from {r['tokens'] / base['tokens']:.2f}× its tokens in "
                 f"{r['steps'] / base['steps']:.2f}× its steps.")
    vocab = load(os.path.join(o.out, "data", "seq-512", "manifest.json"))["vocab_size"]
    L.append(f"\nHow to read it: at this size and budget the MLM columns say what pre-training bought. AG News "
             f"accuracy after so little pre-training is mostly fine-tuning: a model still near the uniform loss "
             f"(ln {vocab} = {math.log(vocab):.2f}) can "
             "fine-tune as well as one that has learned token frequencies. LAMB's advantage is large batches on "
             "many devices (fewer, larger steps); at a few dozen steps on one CPU it has not caught up. ModernBERT's "
             "FLOPs count its sliding-window layers at the window (src/perf/flops.h); bertpt computes them, as "
             "transformers' SDPA path does, as dense attention under a band mask, so its wall time pays for the "
             "whole 512 × 512 scores there.\n")
    L.append("## The guide's 1M-step job, per recipe, on its hardware\n")
    L.append("One dl1.24xlarge (8 Gaudi, $13.11/h) as in docs/cost.md. Throughput at 512 tokens: the guide's "
             "measured 12.5 h per 100k steps of 256 sequences; at 128 tokens it is **assumed** to be that rate × "
             f"BERT-base's FLOP ratio ({o.base_f512 / o.base_f128:.2f}: {o.base_f512:.3g} vs {o.base_f128:.3g} FLOP "
             "per sequence, `bertpt bench --model bert-base`; the same MFU at both lengths), and ModernBERT-base's "
             f"rate is that 512-token rate × BERT-base's FLOPs over its own ({o.base_f512:.3g} / "
             f"{o.modernbase_f512:.3g}, `bertpt bench --model modernbert-base`, 32k vocabulary) — projections, not "
             "measurements. No GPU column: no GPU number here was measured on a GPU (no GPU was lent).\n")
    L.append("| job | sequences | tokens | training FLOPs | hours | dollars | command |")
    L.append("|---|---|---|---|---|---|---|")
    for name, seqs, toks, hours, dollars, flops, cmd in cost_rows(o.bertpt, o.out, o.base_f128, o.base_f512,
                                                                  o.modernbase_f512):
        L.append(f"| {name} | {seqs / 1e6:.0f} M | {toks / 1e9:.1f} B | {flops:.3g} | {hours:.1f} | ${dollars:,.0f} | "
                 f"`{cmd}` |")
    L.append("")
    with open(o.doc, "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    sys.exit(main())
