#!/usr/bin/env bash
# `bertpt bench` times the step `bertpt train` runs (mlm/mlm_step.h: the same StepRunner, head, clipping,
# optimizer): on the same shapes their tokens/s agree within 10% on this machine. Measured in one run,
# bench before and after train (the mean of the two), and printed. Registered RUN_SERIAL: a timing needs
# the machine to itself.
#   bash bench_train_agreement.sh BERTPT_BIN SOURCE_DIR
source "$(dirname "$0")/../robustness/lib.bash"

make_corpus "$T/corpus.txt" 20000
make_tokenizer "$T/tok" 500
"$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 128 --valid-fraction 0 -o "$T/data" ||
  fail "prepare failed"
shape=(--model bert-mini --per-device-batch-size 8 --precision fp32 --threads 2)

bench() {
  "$BERTPT" bench "${shape[@]}" --data "$T/data" --seq-len 128 --warmup-steps 3 --steps 12 --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["tokens_per_sec"])' || fail "bench failed"
}
before=$(bench)
"$BERTPT" train -q "${shape[@]}" --data "$T/data" --output-dir "$T/run" --max-steps 36 --logging-steps 6 \
  --save-steps 0 --report-to none || fail "train failed"
after=$(bench)
python3 - "$T/run/metrics.jsonl" "$before" "$after" <<'PY' || fail "bench and train disagree by more than 10%"
import json, statistics, sys
records = [json.loads(l) for l in open(sys.argv[1]) if '"tokens_per_sec"' in l]
train = statistics.median(r["tokens_per_sec"] for r in records[1:])  # the first window holds the warm-up
bench = (float(sys.argv[2]) + float(sys.argv[3])) / 2
ratio = train / bench
print(f"bert-mini fp32, 8 x 128, 2 threads: train {train:,.0f} tokens/s (median of {len(records) - 1} windows), "
      f"bench {bench:,.0f} (before {float(sys.argv[2]):,.0f}, after {float(sys.argv[3]):,.0f}): train/bench {ratio:.3f}")
sys.exit(0 if 0.9 <= ratio <= 1.1 else 1)
PY
pass "bench's tokens/s and train's agree within 10% on the same shapes"
