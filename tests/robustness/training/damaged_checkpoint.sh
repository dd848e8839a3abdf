#!/usr/bin/env bash
# A checkpoint's JSON files with a field of the wrong type — trainer_state.json of `train` and of
# `finetune`, config.json — are one error line naming the file and the field (they used to be a raw
# JSON library exception naming neither, exit 2), and the run directory is left as it was.
source "$(dirname "$0")/lib.bash"

make_dataset "$T/data"
"${TINY_TRAIN[@]}" --model bert-tiny --data "$T/data" --max-steps 2 --save-steps 1 --save-total-limit 0 \
  --output-dir "$T/run" || fail "the reference run failed"
state="$T/run/checkpoint-1/trainer_state.json"
cp "$state" "$T/state.good"
declare -A damage=(
  ['j["data_position"] = "12"']='field "data_position" is a string'
  ['j["step"] = 1.5']='field "step" is missing or not an integer'
  ['j["step"] = -5']='field "step" is -5, a count of steps cannot be negative'
  ['j["format"] = 7']='not a bertpt trainer state'
  ['j["log_window"]["loss_sum"] = "x"']='field "log_window.loss_sum" is a string'
)
for change in "${!damage[@]}"; do
  cp "$T/state.good" "$state"
  edit "$state" "$change"
  rm -rf "$T/run/checkpoint-2"
  before=$(digest "$T/run")
  run "${TINY_TRAIN[@]}" --model bert-tiny --data "$T/data" --max-steps 2 --output-dir "$T/run" \
    --resume "$T/run/checkpoint-1"
  expect_error 1 "$state: ${damage[$change]}"
  [[ $(digest "$T/run") == "$before" ]] || fail "the refused resume changed the run directory ($change)"
done
cp "$T/state.good" "$state"
pass "a damaged trainer_state.json is one error naming the file and the field"

cp -r "$T/run/checkpoint-1" "$T/model"
edit "$T/model/config.json" 'j["hidden_size"] = "128"'
run "$BERTPT" fill-mask --model "$T/model" --threads 1 "the cat [MASK] on a mat"
expect_error 1 "$T/model/config.json: field \"hidden_size\" is a string, expected an integer"
pass "a damaged config.json is one error naming the file and the field"

make_labelled "$T/labelled.jsonl" 64
FT=("$BERTPT" finetune -q --model "$T/run/checkpoint-1" --train "$T/labelled.jsonl" --epochs 2
  --per-device-batch-size 8 --threads 1 --report-to none --output-dir "$T/ft")
# Stopped by SIGTERM after its first logged step: it saves a checkpoint to resume from.
"${FT[@]}" --logging-steps 1 2>/dev/null &
pid=$!
BG_PIDS+=("$pid")
for ((i = 0; i < 3000; i++)); do [[ -s $T/ft/metrics.jsonl ]] && break; sleep 0.01; done
kill -TERM "$pid"
wait "$pid" 2>/dev/null
ck=$(ls -d "$T"/ft/checkpoint-* 2>/dev/null | head -n1)
[[ -n $ck ]] || fail "finetune left no checkpoint to resume"
edit "$ck/trainer_state.json" 'j["best_score"] = "high"'
run "${FT[@]}" --logging-steps 1 --resume auto
expect_error 1 "$ck/trainer_state.json: field \"best_score\" is a string"
pass "a damaged fine-tuning trainer_state.json is one error naming the file and the field"
