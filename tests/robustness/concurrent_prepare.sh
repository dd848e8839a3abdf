#!/usr/bin/env bash
# Two `bertpt prepare` into the same directory at once: the second fails at once with one line,
# "DATA is in use by bertpt (pid N)" naming the first, whatever its flags (--resume, --overwrite);
# the first finishes undisturbed, its dataset identical to an undisturbed run's. Then the same for
# `corpus merge` into one output file.
source "$(dirname "$0")/lib.bash"

make_corpus "$T/corpus.txt" 200000
make_tokenizer "$T/tok"
# Started in the background directly (not through a shell function), so that $! is bertpt's pid.
prep() { "$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 64 --threads 1 "$@"; }

prep -o "$T/reference" || fail "the reference prepare failed"

"$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 64 --threads 1 -o "$T/data" &
first=$!
BG_PIDS+=("$first")
wait_for_lock "$T/data/.bertpt.lock" "$first" || fail "the first prepare ended before the second could start"
kill -STOP "$first"  # held mid-run, lock taken
for flags in "" "--resume" "--overwrite"; do
  # shellcheck disable=SC2086
  run "$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 64 -o "$T/data" $flags
  expect_error 1 "$T/data is in use by bertpt (pid $first)"
done
kill -CONT "$first"
wait "$first" || fail "the first prepare failed after the second was refused"
[[ $(digest "$T/data") == $(digest "$T/reference") ]] || fail "the first prepare's dataset differs from an undisturbed run's"
[[ ! -e $T/data/.bertpt.lock ]] || fail "the lock file stayed behind"
pass "a second prepare into a directory in use fails at once; the first's output is intact"

# A stale lock file (the first run killed with -9) does not block a resume.
"$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 64 --threads 1 -o "$T/killed" &
victim=$!
wait_for_lock "$T/killed/.bertpt.lock" "$victim" || fail "prepare ended too soon"
kill -KILL "$victim"
wait "$victim" 2>/dev/null
[[ -e $T/killed/.bertpt.lock ]] || fail "expected the killed run's lock file"
run "$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 64 --threads 1 -o "$T/killed" --resume
[[ $RC == 0 ]] || fail "resume after kill -9 failed: $ERR"
[[ $(digest "$T/killed") == $(digest "$T/reference") ]] || fail "the resumed dataset differs"
pass "the lock of a killed prepare does not block its resume"

# corpus merge: the output file's lock lies beside it.
printf '{"text": "earlier output"}\n' >"$T/merged.jsonl"
before=$(digest "$T/merged.jsonl")
"$BERTPT" corpus merge -q -i "$T/corpus.txt" --shuffle -o "$T/merged.jsonl" &
first=$!
BG_PIDS+=("$first")
wait_for_lock "$T/.merged.jsonl.bertpt.lock" "$first" || fail "the first merge ended before the second could start"
kill -STOP "$first"
run "$BERTPT" corpus merge -q -i "$T/corpus.txt" -o "$T/merged.jsonl"
expect_error 1 "$T/merged.jsonl is in use by bertpt (pid $first)"
[[ $(digest "$T/merged.jsonl") == "$before" ]] || fail "the refused merge changed the output"
kill -CONT "$first"
wait "$first" || fail "the first merge failed"
[[ $(wc -l <"$T/merged.jsonl") == 200000 ]] || fail "the first merge's output is incomplete"
pass "a second corpus merge into an output in use fails at once"
