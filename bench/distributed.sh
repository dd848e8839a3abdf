#!/usr/bin/env bash
# Data-parallel scaling on this machine: the same bert-mini training run as 1 rank x 2 threads and
# as 2 ranks x 1 thread (c10d Gloo over loopback), side by side; prints sequences/s of each and the
# share of the step spent in gradient communication that the backward pass did not hide.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BERTPT=${BERTPT_BIN:-$here/build/bertpt}
STEPS=${STEPS:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

find /usr/share/doc/python3.11/html/_sources -name '*.txt' -print0 | sort -z | xargs -0 cat > "$work/corpus.txt"
"$BERTPT" tokenizer train --quiet -i "$work/corpus.txt" --vocab-size 8000 --out "$work/tok"
"$BERTPT" prepare --quiet -i "$work/corpus.txt" -t "$work/tok" --seq-len 128 -o "$work/data"
echo "bert-mini, bf16, seq 128, global batch 32, $STEPS steps; $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load $(cut -d' ' -f1 /proc/loadavg); $(date -u +%F)"
run() {  # label, extra args
  local label=$1; shift
  "$BERTPT" train --quiet --json --model bert-mini --data "$work/data" --output-dir "$work/$label" --max-steps "$STEPS" \
    --learning-rate 1e-3 --logging-steps "$STEPS" --save-steps 0 --eval-steps 0 --eval-max-batches 1 --precision bf16 "$@" \
    > "$work/$label.json"
  python3 - "$work/$label.json" "$label" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
log = j["last_log"]
share = 100 * j.get("exposed_communication_seconds", 0) / j["seconds"] if j["seconds"] else 0
print(f"{sys.argv[2]:<28} {log['seq_per_sec']:>10.2f} seq/s   MFU {100*log['mfu']:5.1f}%   exposed communication {share:5.1f}% of the run")
PY
}
run "1 rank x 2 threads" --per-device-batch-size 32 --threads 2
run "2 ranks x 1 thread" --per-device-batch-size 16 --threads 1 --nproc-per-node 2
