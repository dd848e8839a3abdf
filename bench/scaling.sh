#!/usr/bin/env bash
# The data-parallel scaling model of `bertpt cost --scale-nodes` (src/perf/scaling.h) checked against
# a real 2-rank run on this machine, and writes docs/scaling.md:
#   1. `bertpt bench` on 1 rank x 1 thread: the compute step t (no communication);
#   2. `bertpt bench --nproc-per-node 2 --threads 1`: the measured 2-rank step, and the median time
#      of one all-reduce of all gradients over Gloo (loopback), which gives the bandwidth per rank
#      b = 2 (W - 1) / W x B / t_allreduce;
#   3. `bertpt cost --bench one.json --scale-nodes 1 --devices 2 --intra-node b`: the model's 2-rank
#      step, printed beside the measured one.
# Usage: bench/scaling.sh [MODEL (bert-mini)] [SEQ (128)] [BATCH (16)]; BERTPT_BIN, STEPS (10).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BERTPT=${BERTPT_BIN:-$here/build/bertpt}
MODEL=${1:-bert-mini} SEQ=${2:-128} BATCH=${3:-16} STEPS=${STEPS:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(bench --quiet --model "$MODEL" --seq-len "$SEQ" --per-device-batch-size "$BATCH" --precision fp32
  --threads 1 --steps "$STEPS" --warmup-steps 2)
"$BERTPT" "${common[@]}" --out "$work/one.json" >/dev/null
"$BERTPT" "${common[@]}" --nproc-per-node 2 --out "$work/two.json" >/dev/null
bandwidth=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["gradient_bytes"] / j["allreduce_sec"])' "$work/two.json")
"$BERTPT" cost --json --bench "$work/one.json" --seq-len "$SEQ" --scale-nodes 1 --devices 2 --price-per-hour 1 \
  --intra-node "${bandwidth}B/s" >"$work/model.json"
"$BERTPT" cost --bench "$work/one.json" --seq-len "$SEQ" --scale-nodes 1 --devices 2 --price-per-hour 1 \
  --intra-node "${bandwidth}B/s" >"$work/model.txt"
python3 - "$work" "$here/docs/scaling.md" "$MODEL" "$SEQ" "$BATCH" "$STEPS" "$("$BERTPT" --version | head -1)" <<'PY'
import json, os, platform, subprocess, sys, datetime
work, out, model, seq, batch, steps, version = sys.argv[1:]
one = json.load(open(f"{work}/one.json"))
two = json.load(open(f"{work}/two.json"))
proj = json.load(open(f"{work}/model.json"))["scaling"]
row = proj["hardware"][0]["rows"][0]
measured = two["rows"][0]["step_median_sec"]
compute = one["rows"][0]["step_median_sec"]
cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
lines = [
    "# The scaling model against a real 2-rank run",
    "",
    f"Written by `bench/scaling.sh {model} {seq} {batch}` (STEPS={steps}) on {datetime.date.today()}: {version}, "
    f"{os.cpu_count()} cores ({cpu}), load {open('/proc/loadavg').read().split()[0]} at the end.",
    "",
    "The model is `bertpt cost --scale-nodes` (src/perf/scaling.h, formula in docs/distributed.md). Its inputs here are",
    "measured: the one-rank compute step, the gradient bytes, and Gloo's all-reduce bandwidth on loopback (one",
    "all-reduce of all gradients, timed alone in the 2-rank bench).",
    "",
    "| quantity | value |",
    "|---|---|",
    f"| model, sequence length, batch per rank | {model}, {seq}, {batch} (fp32, 1 thread per rank) |",
    f"| gradient bytes per step | {one['gradient_bytes'] / 1e6:.2f} MB ({one['parameters']:,} parameters) |",
    f"| 1 rank: compute step (median of {steps}) | {compute:.4f} s |",
    f"| 2 ranks: one all-reduce of all gradients (Gloo, loopback) | {two['allreduce_sec']:.4f} s "
    f"→ {two['gradient_bytes'] / two['allreduce_sec'] / 1e9:.3f} GB/s per rank |",
    f"| model: all-reduce in the step, of it exposed | {row['allreduce_sec']:.4f} s, {row['exposed_sec']:.4f} s |",
    f"| **model: 2-rank step** | **{row['step_sec']:.4f} s** |",
    f"| **measured: 2-rank step (median of {steps})** | **{measured:.4f} s** |",
    f"| measured / model | {measured / row['step_sec']:.3f} |",
    "",
    "What the model leaves out on this machine: both ranks and Gloo's transfer threads share 2 cores, so",
    "communication is not free to overlap the backward pass as it is on GPUs (copy engines, NVLink); a",
    "ratio above 1 is that contention. On GPUs, bench one device (`bertpt bench --device cuda --out",
    "one.json`) and project with the machine's own figures (`--intra-node`, `--inter-node`).",
    "",
    "The projection as `bertpt cost` prints it:",
    "",
    "```",
    open(f"{work}/model.txt").read().rstrip(),
    "```",
]
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
