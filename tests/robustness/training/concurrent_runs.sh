#!/usr/bin/env bash
# Two `bertpt train` (or two `finetune`) into the same run directory at once: the second fails at
# once with one line, "RUN is in use by bertpt (pid N)", whatever its flags (--resume auto,
# --overwrite-output-dir); the first finishes undisturbed, its checkpoint identical to an undisturbed
# run's. A lock left by a run killed with -9 does not block its resume.
source "$(dirname "$0")/lib.bash"

make_dataset "$T/data"
args=(--model bert-tiny --data "$T/data" --max-steps 4 --save-steps 2)
"${TINY_TRAIN[@]}" "${args[@]}" --output-dir "$T/reference" || fail "the reference run failed"

"${TINY_TRAIN[@]}" "${args[@]}" --output-dir "$T/run" &
first=$!
BG_PIDS+=("$first")
wait_for_lock "$T/run/.bertpt.lock" "$first" || fail "the first train ended before the second could start"
kill -STOP "$first"
for flags in "" "--resume auto" "--overwrite-output-dir"; do
  # shellcheck disable=SC2086
  run "${TINY_TRAIN[@]}" "${args[@]}" --output-dir "$T/run" $flags
  expect_error 1 "$T/run is in use by bertpt (pid $first)"
done
kill -CONT "$first"
wait "$first" || fail "the first train failed after the second was refused"
for f in model.safetensors optimizer.safetensors; do
  [[ $(digest "$T/run/checkpoint-4/$f") == $(digest "$T/reference/checkpoint-4/$f") ]] ||
    fail "checkpoint-4/$f differs from an undisturbed run's"
done
[[ ! -e $T/run/.bertpt.lock ]] || fail "the lock file stayed behind"
pass "a second train into a run directory in use fails at once; the first's checkpoints are intact"

# kill -9 while training: the stale lock file does not block --resume auto.
"${TINY_TRAIN[@]}" --model bert-tiny --data "$T/data" --max-steps 400 --save-steps 2 --output-dir "$T/killed" &
victim=$!
BG_PIDS+=("$victim")
for ((i = 0; i < 3000; i++)); do [[ -d $T/killed/checkpoint-2 ]] && break; sleep 0.01; done
kill -KILL "$victim"
wait "$victim" 2>/dev/null
[[ -e $T/killed/.bertpt.lock ]] || fail "expected the killed run's lock file"
run "${TINY_TRAIN[@]}" --model bert-tiny --data "$T/data" --max-steps 4 --save-steps 2 --output-dir "$T/killed" --resume auto
[[ $RC == 0 ]] || fail "resume after kill -9 failed: $ERR"
pass "the lock of a killed train does not block its resume"

# finetune: the same lock on its output directory.
make_labelled "$T/labelled.jsonl" 64
FT=("$BERTPT" finetune -q --model "$T/reference/checkpoint-4" --train "$T/labelled.jsonl" --epochs 2
  --per-device-batch-size 8 --threads 1 --report-to none)
"${FT[@]}" --output-dir "$T/ft" &
first=$!
BG_PIDS+=("$first")
wait_for_lock "$T/ft/.bertpt.lock" "$first" || fail "the first finetune ended before the second could start"
kill -STOP "$first"
run "${FT[@]}" --output-dir "$T/ft" --overwrite-output-dir
expect_error 1 "$T/ft is in use by bertpt (pid $first)"
kill -CONT "$first"
wait "$first" || fail "the first finetune failed after the second was refused"
[[ -f $T/ft/best/model.safetensors && -f $T/ft/results.json ]] || fail "the first finetune's output is incomplete"
pass "a second finetune into an output directory in use fails at once"
