#!/usr/bin/env bash
# `corpus merge --shuffle` spills the whole input to bucket files beside its output. Interrupted by
# SIGINT or SIGTERM it removes them (and its unfinished output) and ends by that signal; killed with
# -9 it cannot, and the next merge into the same output removes what it left, saying so.
source "$(dirname "$0")/lib.bash"

make_corpus "$T/corpus.txt" 400000
mkdir -p "$T/out"
printf '{"text": "earlier output"}\n' >"$T/out/merged.jsonl"
before=$(digest "$T/out/merged.jsonl")

# wait_for_buckets PID: until the merge's bucket directory exists.
wait_for_buckets() {
  local i
  for ((i = 0; i < 2000; i++)); do
    compgen -G "$T/out/merged.jsonl.buckets.*" >/dev/null && return 0
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.005
  done
  return 1
}

# (trap - INT: a script starts background jobs with SIGINT ignored, and bertpt keeps a signal ignored
# that was ignored when it started.)
for sig in INT TERM; do
  (
    trap - INT
    exec "$BERTPT" corpus merge -q -i "$T/corpus.txt" --shuffle --shuffle-memory-mb 1 -o "$T/out/merged.jsonl"
  ) &
  pid=$!
  BG_PIDS+=("$pid")
  wait_for_buckets "$pid" || fail "the merge ended before it could be interrupted"
  kill -STOP "$pid"  # held while spilling; the signal is handled when it goes on
  kill -"$sig" "$pid"
  kill -CONT "$pid"
  wait "$pid"
  rc=$?
  [[ $rc == $((128 + $(kill -l "$sig"))) ]] || fail "SIG$sig: exit $rc, expected death by the signal"
  left=$(cd "$T/out" && ls -A | grep -v '^merged.jsonl$' || true)
  [[ -z $left ]] || fail "SIG$sig left: $left"
  [[ $(digest "$T/out/merged.jsonl") == "$before" ]] || fail "SIG$sig: the earlier output changed"
done
pass "SIGINT/SIGTERM during a shuffle remove its buckets and unfinished output"

"$BERTPT" corpus merge -q -i "$T/corpus.txt" --shuffle --shuffle-memory-mb 1 -o "$T/out/merged.jsonl" &
pid=$!
BG_PIDS+=("$pid")
wait_for_buckets "$pid" || fail "the merge ended before it could be killed"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
compgen -G "$T/out/merged.jsonl.buckets.*" >/dev/null || fail "expected the killed merge's buckets"
[[ $(digest "$T/out/merged.jsonl") == "$before" ]] || fail "kill -9: the earlier output changed"
run "$BERTPT" corpus merge -i "$T/corpus.txt" --shuffle --shuffle-memory-mb 1 -o "$T/out/merged.jsonl"
[[ $RC == 0 ]] || fail "the merge after a kill failed: $ERR"
[[ $ERR == *"removed "*" temporary file(s) of an interrupted merge"* ]] || fail "no word of the leftovers: $ERR"
left=$(cd "$T/out" && ls -A | grep -v '^merged.jsonl$' || true)
[[ -z $left ]] || fail "left after the next merge: $left"
[[ $(wc -l <"$T/out/merged.jsonl") == 400000 ]] || fail "the merge after a kill is incomplete"
pass "the next merge removes what a killed one left"
