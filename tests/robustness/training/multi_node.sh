#!/usr/bin/env bash
# Multi-node for real: two network namespaces joined by a veth pair (iproute2; CI runs as root), one
# bertpt node in each (--nnodes 2 --node-rank N --master-addr the first namespace's address). The
# 2-node run logs the losses of the 1-node run with the same ranks; killing one node makes the other
# exit non-zero within --dist-timeout, naming the lost peer; nodes started for different world sizes
# fail with a message naming both sizes; rank 0's rendezvous listens on --master-addr only.
source "$(dirname "$0")/lib.bash"

make_two_nodes

make_dataset "$T/data"
common=(--model bert-tiny --data "$T/data" --max-steps 6 --save-steps 6 --dist-timeout 30)
"${TINY_TRAIN[@]}" "${common[@]}" --nproc-per-node 2 --output-dir "$T/one" || fail "the 1-node, 2-process run failed"

# node N ARGS...: bertpt train as node N of a 2-node job (1 process each) in namespace N.
node() {
  local n=$1 ns
  shift
  ns=$ns0
  ((n == 1)) && ns=$ns1
  ip netns exec "$ns" "${TINY_TRAIN[@]}" --nnodes 2 --node-rank "$n" --nproc-per-node 1 --master-addr "$a0" "$@"
}
node 0 "${common[@]}" --master-port 29611 --output-dir "$T/two" 2>"$T/n0.err" &
n0=$!
node 1 "${common[@]}" --master-port 29611 --output-dir "$T/two" 2>"$T/n1.err" &
n1=$!
wait "$n0" || fail "node 0 failed: $(cat "$T/n0.err")"
wait "$n1" || fail "node 1 failed: $(cat "$T/n1.err")"
python3 - "$T/one/metrics.jsonl" "$T/two/metrics.jsonl" <<'PY' || fail "the 2-node run differs from the 1-node run"
import json, sys
def losses(path):
    return {r["step"]: r["loss"] for r in map(json.loads, open(path)) if "loss" in r}
one, two = losses(sys.argv[1]), losses(sys.argv[2])
assert len(one) == 6 and one.keys() == two.keys(), (one, two)
for step in one:
    assert abs(one[step] - two[step]) <= 1e-6 * abs(one[step]), (step, one[step], two[step])
PY
pass "2 nodes x 1 process train as 1 node x 2 processes (6 steps, losses to 1e-6)"

# Rank 0's store listens on the master address only: not on the namespace's loopback.
node 0 --model bert-tiny --data "$T/data" --max-steps 400 --dist-timeout 20 --master-port 29612 \
  --output-dir "$T/kill" 2>"$T/k0.err" &
k0=$!
for ((i = 0; i < 500; i++)); do
  ip netns exec "$ns0" ss -Hltn "sport = :29612" 2>/dev/null | grep -q . && break
  sleep 0.02
done
listening=$(ip netns exec "$ns0" ss -Hltn "sport = :29612" | awk '{print $4}')
[[ $listening == "$a0:29612" ]] || fail "rank 0 listens on '$listening', expected $a0:29612 only"
pass "the rendezvous listens on --master-addr only ($listening)"

node 1 --model bert-tiny --data "$T/data" --max-steps 400 --dist-timeout 20 --master-port 29612 \
  --output-dir "$T/kill" 2>"$T/k1.err" &
k1=$!
for ((i = 0; i < 6000; i++)); do [[ -s $T/kill/metrics.jsonl ]] && break; sleep 0.01; done
[[ -s $T/kill/metrics.jsonl ]] || fail "the 2-node run did not start training: $(cat "$T/k0.err" "$T/k1.err")"
kill_node "$ns1"
start=$SECONDS
wait "$k0"
rc=$?
took=$((SECONDS - start))
wait "$k1" 2>/dev/null
((rc != 0)) || fail "node 0 exited 0 after node 1 was killed"
((took <= 25)) || fail "node 0 took ${took}s to notice (--dist-timeout 20)"
grep -q "$a1\|rank 1" "$T/k0.err" || fail "node 0's error does not name the lost node: $(cat "$T/k0.err")"
pass "killing node 1 ends node 0 in ${took}s with: $(grep -m1 'error' "$T/k0.err")"

# Nodes started for different world sizes: 2 (node 0) against 4 (node 1, two processes).
node 0 --model bert-tiny --data "$T/data" --max-steps 4 --dist-timeout 10 --master-port 29613 \
  --output-dir "$T/mismatch" 2>"$T/m0.err" &
m0=$!
ip netns exec "$ns1" "${TINY_TRAIN[@]}" --nnodes 2 --node-rank 1 --nproc-per-node 2 --master-addr "$a0" \
  --model bert-tiny --data "$T/data" --max-steps 4 --dist-timeout 10 --master-port 29613 \
  --output-dir "$T/mismatch" 2>"$T/m1.err"
rc=$?
kill -KILL "$m0" 2>/dev/null
wait "$m0" 2>/dev/null
((rc != 0)) || fail "a world-size mismatch was not noticed"
grep -q "was started for a world of 4 processes, rank 0 for 2" "$T/m1.err" ||
  fail "the mismatch error does not name both sizes: $(cat "$T/m1.err")"
(($(grep -c "bertpt: error:" "$T/m1.err") == 1)) || fail "node 1's two ranks repeat the error: $(cat "$T/m1.err")"
pass "a world-size mismatch names both sizes, once"
