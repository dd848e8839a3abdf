#!/usr/bin/env bash
# A bertpt run's TensorBoard event files (RUN/runs, engine/run_log.h) read by TensorBoard's own reader:
# every number of metrics.jsonl under the Trainer's tag, at its step; after a resume from an earlier
# checkpoint no step shows twice and the values are the resumed run's; fine-tuning too; --report-to
# none writes no event file. Usage: tensorboard_run.sh BERTPT_BIN SOURCE_DIR. Exit 77 (CTest:
# skipped) when the peer is missing — except in CI, where that fails.
set -euo pipefail
bin=$1
src=$2
source "$src/tests/peer/lib.bash"
require_python tensorboard numpy
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat "$src"/README.md "$src"/docs/*.md >"$work/corpus.txt"
"$py" - "$work/corpus.txt" "$work/labelled.jsonl" <<'PY'
import json, sys
lines = [l.strip() for l in open(sys.argv[1], encoding="utf-8") if len(l.strip()) > 20]
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for l in lines[:200]:
        out.write(json.dumps({"text": l, "label": "code" if "`" in l else "prose"}) + "\n")
PY
"$bin" tokenizer train -i "$work/corpus.txt" --vocab-size 1000 --out "$work/tok" --quiet
"$bin" prepare -i "$work/corpus.txt" --tokenizer "$work/tok" --seq-len 32 --out "$work/data" --quiet
train=("$bin" train --data "$work/data" --model bert-tiny --max-steps 8 --save-steps 4
  --eval-steps 4 --logging-steps 1 --per-device-batch-size 8 --precision fp32 --threads 1 --quiet)
"${train[@]}" --output-dir "$work/run"
"$py" "$src/tests/peer/tensorboard_run.py" "$work/run" 8
# Resumed from step 4 of the finished run: steps 5..8 are trained again and must replace the old ones.
cp "$work/run/metrics.jsonl" "$work/first.jsonl"
"${train[@]}" --output-dir "$work/run" --resume "$work/run/checkpoint-4"
"$py" "$src/tests/peer/tensorboard_run.py" "$work/run" 8
"$bin" finetune --model "$work/run/checkpoint-8" --train "$work/labelled.jsonl" --output-dir "$work/clf" \
  --epochs 2 --per-device-batch-size 16 --max-seq-len 32 --logging-steps 2 --precision fp32 --threads 1 --quiet
"$py" "$src/tests/peer/tensorboard_run.py" "$work/clf" 26
# kill -9 in the middle of a run: TensorBoard's reader still opens what was written, every train/loss
# record logged in metrics.jsonl before the kill that reached the event file reads back equal.
"$bin" train --data "$work/data" --model bert-tiny --max-steps 100000 --logging-steps 1 --per-device-batch-size 8 \
  --precision fp32 --threads 1 --quiet --output-dir "$work/killed" &
pid=$!
for _ in $(seq 600); do
  [[ -f $work/killed/metrics.jsonl ]] && (($(wc -l <"$work/killed/metrics.jsonl") >= 5)) && break
  sleep 0.1
done
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
"$py" - "$work/killed" "$src/tests/peer" <<'PY'
import json, os, sys
sys.path.insert(0, sys.argv[2])
from tensorboard_reader import read_run
run = sys.argv[1]
logged = {r["step"]: r["loss"] for r in map(json.loads, open(os.path.join(run, "metrics.jsonl"))) if "loss" in r}
got = {s: v for s, v, _ in read_run(os.path.join(run, "runs"))["scalars"].get("train/loss", [])}
bad = [s for s, v in got.items() if s not in logged or abs(v - logged[s]) > 1e-6 * max(1.0, abs(v))]
if len(logged) < 5 or len(got) < 1 or bad:
    sys.exit(f"FAIL: killed run: {len(logged)} losses logged, {len(got)} read back by TensorBoard, mismatched steps {bad}")
print(f"killed run: TensorBoard reads {len(got)} train/loss points of the {len(logged)} logged, all equal")
PY
"${train[@]}" --output-dir "$work/none" --report-to none
if [[ -e $work/none/runs ]]; then
  echo "FAIL: --report-to none wrote $work/none/runs" >&2
  exit 1
fi
echo "tensorboard_run: ok"
