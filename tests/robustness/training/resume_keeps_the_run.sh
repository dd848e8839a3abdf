#!/usr/bin/env bash
# Resuming continues the run that was (docs/training.md, "Resume"): `train --output-dir RUN --data DATA
# --resume auto` — the documented short form, and what a restarted worker or a requeued Slurm job runs —
# takes every option it is not given from the checkpoint (not the defaults), ends with the weights of the
# uninterrupted run, and refuses in one line an option given with another value than the run's. Also:
# --resume auto beside a checkpoint without its DONE marker starts anew instead of failing.
source "$(dirname "$0")/lib.bash"

make_dataset "$T/data"
# A run whose options are all far from the defaults (lr 1e-3, fp32, batch 8, 12 steps, its own schedule).
run_args=(--data "$T/data" --model bert-tiny --learning-rate 1e-3 --precision fp32 --max-steps 12 --save-steps 6
  --warmup-steps 2 --lr-scheduler cosine --seed 7)
"${TINY_TRAIN[@]}" "${run_args[@]}" --output-dir "$T/straight" || fail "the uninterrupted run failed"
"${TINY_TRAIN[@]}" "${run_args[@]}" --output-dir "$T/run" || fail "the run failed"
rm -rf "$T/run/checkpoint-12"  # as if stopped after step 6
run "$BERTPT" train -q --threads 1 --report-to none --data "$T/data" --output-dir "$T/run" --resume auto
[[ $RC == 0 ]] || fail "the short form did not resume: $ERR"
python3 - "$T/straight/run_config.json" "$T/run/run_config.json" <<'PY' || fail "the resumed run's options are not the run's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("resume", "output_dir"):
    a.pop(k), b.pop(k)
assert a == b, {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)}
assert b["learning_rate"] == 1e-3 and b["precision"] == "fp32" and b["max_steps"] == 12, b
PY
cmp -s "$T/straight/checkpoint-12/model.safetensors" "$T/run/checkpoint-12/model.safetensors" ||
  fail "the resumed run's weights differ from the uninterrupted run's"
pass "train --output-dir RUN --data DATA --resume auto continues the run with its own options, bit for bit"

rm -rf "$T/run/checkpoint-12"
run "$BERTPT" train -q --threads 1 --data "$T/data" --output-dir "$T/run" --resume auto --learning-rate 5e-4
expect_error 1 "--learning-rate 0.0005 differs from the run being resumed, which has 0.001" "checkpoint-6"
run "$BERTPT" train -q --threads 1 --data "$T/data" --output-dir "$T/run" --resume auto --precision bf16
expect_error 1 "--precision bf16 differs from the run being resumed, which has 'fp32'"
"${TINY_TRAIN[@]}" --data "$T/data" --output-dir "$T/run" --resume auto --max-steps 14 --logging-steps 2 ||
  fail "--max-steps and --logging-steps may change on resume"
[[ -d $T/run/checkpoint-14 ]] || fail "--max-steps 14 did not extend the run"
pass "an option given with another value is refused in one line; --max-steps and logging may change"

# A checkpoint whose writing was cut short (no DONE) and nothing else: --resume auto starts anew.
mkdir -p "$T/cut" && cp -r "$T/straight/checkpoint-6" "$T/cut/" && rm "$T/cut/checkpoint-6/DONE"
run "${TINY_TRAIN[@]}" --data "$T/data" --model bert-tiny --max-steps 2 --output-dir "$T/cut" --resume auto
[[ $RC == 0 ]] || fail "--resume auto beside an incomplete checkpoint failed: $ERR"
[[ -d $T/cut/checkpoint-2 && ! -d $T/cut/checkpoint-6 ]] || fail "the new run did not replace the incomplete checkpoint"
pass "--resume auto beside a checkpoint without DONE starts a new run"
