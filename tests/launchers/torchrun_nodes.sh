#!/usr/bin/env bash
# torchrun across two nodes, for real: two network namespaces joined by a veth pair, one torchrun
# agent in each (1 worker each), meeting through the c10d rendezvous at node 0's address
# (--rdzv-endpoint, --local-addr: the address each node's agent advertises).
#   1. 2 nodes x batch 8 == 1 process x batch 16 (losses to 1e-5);
#   2. a node lost: with --nnodes 1:2 and --global-batch-size 16, node 1 is killed (agent and worker)
#      after the first checkpoint; node 0's agent restarts its worker in a world of one, which resumes
#      the checkpoint with twice the accumulation, and the job ends with the uninterrupted run's losses.
source "$(dirname "$0")/lib.bash"
TORCHRUN=$SOURCE_DIR/.venv/bin/torchrun
[[ -x $TORCHRUN ]] || skip "no torchrun in .venv (scripts/setup installs the torch wheel)"
make_two_nodes
make_dataset "$T/data"
no_dropout_config "$T/tiny.json"
port=$((25000 + $$ % 4000))

# node N NNODES RDZV_ID ARGS...: torchrun as node N (namespace N, 1 worker) of the job RDZV_ID.
node() {
  local n=$1 nnodes=$2 id=$3 ns=$ns0 addr=$a0 host=true
  shift 3
  ((n == 1)) && ns=$ns1 addr=$a1 host=false
  ip netns exec "$ns" env LOGLEVEL=INFO "$TORCHRUN" --nnodes "$nnodes" --nproc-per-node 1 --max-restarts 1 --rdzv-backend c10d \
    --rdzv-endpoint "$a0:$port" --rdzv-id "$id" --local-addr "$addr" \
    --rdzv-conf "is_host=$host,last_call_timeout=1,join_timeout=120" --no-python "$BERTPT" "$@"
}

# 1. Two nodes against one process.
train_args "$T/one" 8
"$BERTPT" "${ARGS[@]}" --per-device-batch-size 16 --save-steps 0 || fail "the 1-process run failed"
train_args "$T/two" 8
node 0 2 "static-$$" "${ARGS[@]}" --per-device-batch-size 8 --save-steps 0 2>"$T/n0.err" &
n0=$!
node 1 2 "static-$$" "${ARGS[@]}" --per-device-batch-size 8 --save-steps 0 2>"$T/n1.err" &
n1=$!
wait "$n0" || fail "node 0 failed: $(tail -5 "$T/n0.err")"
wait "$n1" || fail "node 1 failed: $(tail -5 "$T/n1.err")"
result=$(same_losses "$T/two" "$T/one" "2 torchrun nodes x 8 vs 1 x 16") || exit 1
pass "two torchrun nodes (c10d rendezvous across namespaces) train as one process: $result"

# 2. Node 1 lost after the first checkpoint; node 0 goes on alone at the same global batch.
steps=300
train_args "$T/whole" $steps
"$BERTPT" "${ARGS[@]}" --per-device-batch-size 8 --global-batch-size 16 --save-steps 10 ||
  fail "the uninterrupted run failed"
port=$((port + 1))
train_args "$T/elastic" $steps
elastic=("${ARGS[@]}" --per-device-batch-size 8 --global-batch-size 16 --save-steps 10 --resume auto)
node 0 1:2 "elastic-$$" "${elastic[@]}" 2>"$T/e0.err" &
e0=$!
node 1 1:2 "elastic-$$" "${elastic[@]}" 2>"$T/e1.err" &
e1=$!
BG_PIDS+=("$e0" "$e1")
wait_for "$T/elastic/checkpoint-10/DONE" 180
kill -0 "$e1" 2>/dev/null || fail "node 1 ended before it could be killed: $(tail -5 "$T/e1.err")"
kill_node "$ns1"
wait "$e1" 2>/dev/null
timeout 300 tail --pid="$e0" -f /dev/null
wait "$e0" || fail "node 0 failed after node 1 was lost: $(tail -5 "$T/e0.err")"
[[ -f $T/elastic/checkpoint-$steps/DONE ]] || fail "node 0 did not finish the run: $(ls "$T/elastic")"
grep -q "will restart worker group" "$T/e0.err" || fail "node 0's agent did not restart: $(tail -5 "$T/e0.err")"
result=$(same_losses "$T/elastic" "$T/whole" "2 nodes, then node 0 alone, vs 1 process throughout") || exit 1
pass "node 1 lost after a checkpoint: node 0 resumes alone at global batch 16 (accumulation 2): $result"
