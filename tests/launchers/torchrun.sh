#!/usr/bin/env bash
# torchrun, for real: the torch wheel's own launcher (.venv/bin/torchrun, what scripts/setup
# installs) starts `bertpt train` with --no-python, as docs/distributed.md shows. Its workers join the
# store torchrun's agent hosts (TORCHELASTIC_USE_AGENT_STORE) instead of starting a second one.
#   1. --standalone: 2 workers x batch 8 == 1 process x batch 16 (losses to 1e-5);
#   2. elastic (--rdzv-backend c10d --nnodes 1:2 --max-restarts 2): a worker killed with SIGKILL after
#      the first checkpoint; torchrun restarts the group, `--resume auto` continues from the last
#      complete checkpoint, the job exits 0 and its losses are the uninterrupted run's;
#   3. a failing worker's one-line error is the message of torchrun's failure summary
#      (TORCHELASTIC_ERROR_FILE), not `<N/A>`.
# Two namespaces as two torchrun nodes: torchrun_nodes.sh.
source "$(dirname "$0")/lib.bash"
TORCHRUN=$SOURCE_DIR/.venv/bin/torchrun
[[ -x $TORCHRUN ]] || skip "no torchrun in .venv (scripts/setup installs the torch wheel)"
make_dataset "$T/data"
no_dropout_config "$T/tiny.json"
port=$((21000 + $$ % 4000))

# 1. --standalone against one process.
train_args "$T/one" 8
"$BERTPT" "${ARGS[@]}" --per-device-batch-size 16 --save-steps 0 || fail "the 1-process run failed"
train_args "$T/standalone" 8
timeout 300 "$TORCHRUN" --standalone --nproc-per-node 2 --no-python "$BERTPT" "${ARGS[@]}" \
  --per-device-batch-size 8 --save-steps 0 2>"$T/standalone.err" ||
  fail "torchrun --standalone failed: $(tail -5 "$T/standalone.err")"
result=$(same_losses "$T/standalone" "$T/one" "torchrun --standalone 2 x 8 vs 1 x 16") || exit 1
pass "torchrun --standalone --nproc-per-node 2 trains as one process: $result"

# 2. Elastic: SIGKILL a worker after the first checkpoint; the job restarts and resumes exactly.
steps=300
train_args "$T/whole" $steps
"$BERTPT" "${ARGS[@]}" --per-device-batch-size 16 --save-steps 10 || fail "the uninterrupted run failed"
train_args "$T/elastic" $steps
LOGLEVEL=INFO "$TORCHRUN" --nnodes 1:2 --nproc-per-node 2 --max-restarts 2 --rdzv-backend c10d \
  --rdzv-endpoint "127.0.0.1:$port" --rdzv-id "bertpt-$$" --rdzv-conf last_call_timeout=1 \
  --no-python "$BERTPT" "${ARGS[@]}" --per-device-batch-size 8 --save-steps 10 --resume auto 2>"$T/elastic.err" &
torchrun=$!
BG_PIDS+=("$torchrun")
wait_for "$T/elastic/checkpoint-10/DONE" 120
victim=$(pgrep -P "$torchrun" | tail -1)
[[ -n $victim ]] || fail "no worker left to kill: the run ended before its first checkpoint was seen"
kill -KILL "$victim"
wait "$torchrun"
rc=$?
((rc == 0)) || fail "the elastic job exited $rc after a worker was killed: $(tail -5 "$T/elastic.err")"
grep -q "attempts left; will restart worker group" "$T/elastic.err" ||
  fail "torchrun did not restart the worker group: $(tail -5 "$T/elastic.err")"
[[ -f $T/elastic/checkpoint-$steps/DONE ]] || fail "the restarted job did not finish: $(ls "$T/elastic")"
result=$(same_losses "$T/elastic" "$T/whole" "killed and resumed vs uninterrupted") || exit 1
pass "a worker killed by SIGKILL: torchrun restarts, --resume auto continues exactly: $result"

# 3. A failing worker's error in torchrun's summary.
DATA=$T/no-such-dataset train_args "$T/failing" 4
timeout 120 "$TORCHRUN" --standalone --nproc-per-node 2 --no-python "$BERTPT" "${ARGS[@]}" >"$T/failing.out" \
  2>"$T/failing.err"
rc=$?
((rc != 0 && rc != 124)) || fail "torchrun exited $rc for a worker that cannot start"
grep -q "error_file: <N/A>" "$T/failing.err" && fail "torchrun's summary has no error file: $(cat "$T/failing.err")"
grep -q "traceback : bertpt: error: .*no-such-dataset" "$T/failing.err" ||
  fail "torchrun's summary does not show bertpt's error: $(grep -A12 'Failures:' "$T/failing.err")"
pass "torchrun's failure summary shows: $(grep -m1 'traceback : bertpt' "$T/failing.err" | sed 's/^ *//')"
