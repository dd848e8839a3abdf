#!/usr/bin/env bash
# `tokenizer train` over an existing tokenizer directory, killed with -9 at every point where it
# renames something (strace's syscall fault injection), and at random points: the directory is
# afterwards the old tokenizer or the new one, byte for byte, never a mix; it loads; and the next
# run cleans up and succeeds. Also a second `tokenizer train` into a directory in use fails at once.
source "$(dirname "$0")/lib.bash"

make_corpus "$T/corpus.txt" 20000
make_tokenizer "$T/old" 100
# (Background runs start bertpt directly, so that $! is its pid.)
train() { "$BERTPT" tokenizer train -q -i "$T/corpus.txt" --vocab-size 150 --threads 1 -o "$@"; }
train "$T/new" || fail "the reference run failed"
# canon DIR: the digest of a tokenizer directory but for bertpt_tokenizer_train.json (it holds timings).
canon() { (cd "$T" && rm -rf check && cp -r "$1" check && rm -f check/bertpt_tokenizer_train.json && digest check); }
old=$(canon "$T/old")
new=$(canon "$T/new")

# state DIR: "old" or "new", else fails.
state() {
  local d
  d=$(canon "$1")
  if [[ $d == "$old" ]]; then
    echo old
  elif [[ $d == "$new" ]]; then
    echo new
  else
    fail "$1 is neither the old tokenizer nor the new one: $(ls -a "$1")"
  fi
}

check_after_kill() {
  local what=$1 s
  s=$(state "$T/tok") || exit 1
  echo "$what: $s"
  printf 'the cat sat\n' | "$BERTPT" tokenizer encode -t "$T/tok" >/dev/null 2>"$T/enc.err" ||
    fail "$what: the directory does not load: $(cat "$T/enc.err")"
}

# kill_at SYSCALLS N: runs tokenizer train over a copy of the old tokenizer, killed with -9 on entry to
# the N-th call of each of SYSCALLS (strace counts each syscall apart); sets RC.
kill_at() {
  rm -rf "$T/tok" && cp -r "$T/old" "$T/tok"
  strace -f -qq -o /dev/null -e trace="$1" -e inject="$1":signal=SIGKILL:when="$2" \
    "$BERTPT" tokenizer train -q -i "$T/corpus.txt" --vocab-size 150 --threads 1 -o "$T/tok" 2>/dev/null
  RC=$?
}

if command -v strace >/dev/null && strace -f -qq -o /dev/null true 2>/dev/null; then
  # The renames of the files into the new directory, its exchange with the old one (or the renames
  # that move the old one aside), and the removals that follow.
  kills=0
  for syscalls in rename,renameat renameat2 unlink,unlinkat,rmdir; do
    for ((n = 1; n <= 40; n++)); do
      kill_at "$syscalls" "$n"
      check_after_kill "killed at $syscalls call $n (exit $RC)"
      if [[ $RC == 0 ]]; then
        [[ $(state "$T/tok") == new ]] || fail "a run that finished left the old tokenizer"
        break  # there is no call number $n: all were covered
      fi
      kills=$((kills + 1))
      # The next run replaces what the killed one left, and nothing stays beside the directory.
      train "$T/tok" || fail "the run after a kill at $syscalls call $n failed"
      [[ $(state "$T/tok") == new ]] || fail "the run after a kill did not write the new tokenizer"
      leftovers=$(cd "$T" && ls -A | grep -E '^\.tok\.' || true)
      [[ -z $leftovers ]] || fail "left beside the directory after a kill at $syscalls call $n: $leftovers"
    done
  done
  ((kills >= 6)) || fail "expected at least 6 kill points, saw $kills"
  pass "kill -9 at each of $kills renames and removals of tokenizer train leaves the old or the new tokenizer"
else
  [[ ${CI:-} == true ]] && fail "strace is needed (apt-get install strace) and must be able to trace"
  echo "note: no usable strace; the kill-at-each-rename part is skipped"
fi

# Killed at arbitrary moments.
for delay in 0.05 0.2 0.4 0.8; do
  rm -rf "$T/tok" && cp -r "$T/old" "$T/tok"
  "$BERTPT" tokenizer train -q -i "$T/corpus.txt" --vocab-size 150 --threads 1 -o "$T/tok" &
  pid=$!
  BG_PIDS+=("$pid")
  sleep "$delay"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  check_after_kill "killed after ${delay}s"
done
pass "kill -9 at arbitrary moments leaves the old or the new tokenizer"

# Concurrent runs.
rm -rf "$T/tok" && cp -r "$T/old" "$T/tok"
"$BERTPT" tokenizer train -q -i "$T/corpus.txt" --vocab-size 150 --threads 1 -o "$T/tok" &
first=$!
BG_PIDS+=("$first")
wait_for_lock "$T/.tok.bertpt.lock" "$first" || fail "the first run ended before the second could start"
kill -STOP "$first"
run "$BERTPT" tokenizer train -q -i "$T/corpus.txt" --vocab-size 150 -o "$T/tok"
expect_error 1 "$T/tok is in use by bertpt (pid $first)"
[[ $(state "$T/tok") == old ]] || fail "the refused run changed the directory"
kill -CONT "$first"
wait "$first" || fail "the first run failed"
[[ $(state "$T/tok") == new ]] || fail "the first run did not finish its tokenizer"
pass "a second tokenizer train into a directory in use fails at once"

# A directory mixed by hand (or by an older bertpt) is refused on load, naming both files.
cp "$T/new/vocab.txt" "$T/old/vocab.txt"
run "$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/old" -o "$T/data"
expect_error 1 "$T/old/vocab.txt disagrees with $T/old/tokenizer.json"
[[ ! -e $T/data ]] || fail "the refused prepare created its output"
run "$BERTPT" tokenizer encode -t "$T/old" -i "$T/corpus.txt"
expect_error 1 "$T/old/vocab.txt disagrees with $T/old/tokenizer.json"
pass "a vocab.txt that disagrees with tokenizer.json is refused naming both"
