#!/usr/bin/env bash
# A stop signal ends a command that is still waiting for its input: a FIFO that no writer has opened,
# a stream that gives nothing (more). SIGTERM or SIGINT one second in ends every command that reads
# text within a few seconds, by that signal; `corpus merge`, which takes the first signal as "stop
# cleanly", says in one line what it was waiting for and leaves nothing beside its output — no
# temporary file, no lock, nothing that looks complete — and neither do the others.
source "$(dirname "$0")/lib.bash"

make_tokenizer "$T/tok"
mkfifo "$T/fifo"

# stop_waiting SIG WHAT CMD...: runs CMD in the background (SIGINT not ignored, stdin from $STDIN or
# /dev/null), sends SIG one second in, and expects CMD to end by SIG within 5 seconds; sets RC, ERR.
stop_waiting() {
  local sig=$1 what=$2 pid i
  shift 2
  (
    trap - INT
    exec "$@"
  ) <"${STDIN:-/dev/null}" >"$T/.out" 2>"$T/.err" &
  pid=$!
  BG_PIDS+=("$pid")
  sleep 1
  kill -0 "$pid" 2>/dev/null || fail "$what: ended before the signal: $(cat "$T/.err")"
  kill -"$sig" "$pid"
  for ((i = 0; i < 50; i++)); do  # up to 5 s for it to end (a zombie has ended: state Z)
    [[ $(ps -o stat= -p "$pid" 2>/dev/null) == Z* || -z $(ps -o stat= -p "$pid" 2>/dev/null) ]] && break
    sleep 0.1
  done
  ((i < 50)) || { kill -KILL "$pid"; wait "$pid"; fail "$what: still running 5 s after SIG$sig; stderr: $(cat "$T/.err")"; }
  wait "$pid"
  RC=$?
  ERR=$(cat "$T/.err")
  [[ $RC == $((128 + $(kill -l "$sig"))) ]] || fail "$what: exit $RC after SIG$sig, expected death by it; stderr: $ERR"
}

# expect_one_line NEEDLE...: stderr is one line holding every NEEDLE.
expect_one_line() {
  local needle
  [[ $(printf '%s\n' "$ERR" | grep -c .) == 1 ]] || fail "expected one line on stderr: $ERR"
  for needle in "$@"; do
    [[ $ERR == *"$needle"* ]] || fail "stderr does not say '$needle': $ERR"
  done
}

# nothing_left DIR: DIR is empty (no output, no temporary file, no lock).
nothing_left() {
  local left
  left=$(ls -A "$1")
  [[ -z $left ]] || fail "left in $1: $left"
}

mkdir -p "$T/out"
for sig in TERM INT; do
  for shuffle in "" --shuffle; do
    stop_waiting "$sig" "corpus merge $shuffle" "$BERTPT" corpus merge $shuffle -i "$T/fifo" -o "$T/out/merged.jsonl"
    expect_one_line "corpus merge interrupted (SIG$sig) while waiting for input from $T/fifo" "no writer"
    nothing_left "$T/out"
  done
done
pass "corpus merge (and --shuffle) waiting for a FIFO's writer ends at the first SIGTERM/SIGINT, saying so"

stop_waiting TERM "corpus stats" "$BERTPT" corpus stats -i "$T/fifo"
stop_waiting TERM "tokenizer train" "$BERTPT" tokenizer train -i "$T/fifo" --vocab-size 200 -o "$T/out/tok"
[[ ! -e $T/out/tok/tokenizer.json ]] || fail "a stopped tokenizer train left a tokenizer that looks complete"
stop_waiting INT "prepare" "$BERTPT" prepare -i "$T/fifo" -t "$T/tok" --seq-len 32 -o "$T/out/data"
[[ ! -e $T/out/data/manifest.json ]] || fail "a stopped prepare left a dataset that looks complete"
pass "corpus stats, tokenizer train and prepare waiting for a FIFO's writer end by the signal"

# A writer that is there but silent (this shell holds the FIFO open), through -i and through stdin;
# then one that wrote a little and went quiet: the wait for more input ends too.
rm -rf "$T/out" && mkdir -p "$T/out"
mkfifo "$T/silent"
exec 7<>"$T/silent"
stop_waiting TERM "merge of a silent stream" "$BERTPT" corpus merge -i "$T/silent" -o "$T/out/merged.jsonl"
expect_one_line "corpus merge interrupted (SIGTERM) while waiting for input from $T/silent"
STDIN=$T/silent stop_waiting TERM "merge of a silent stdin" "$BERTPT" corpus merge -i - -o "$T/out/merged.jsonl"
expect_one_line "corpus merge interrupted (SIGTERM) while waiting for input from /dev/stdin"
printf 'a document that never ends' >&7
stop_waiting TERM "merge of a stream gone quiet" "$BERTPT" corpus merge -i "$T/silent" -o "$T/out/merged.jsonl"
expect_one_line "corpus merge interrupted (SIGTERM) while waiting for more input from $T/silent"
exec 7>&-
nothing_left "$T/out"
pass "a silent stream, on -i or stdin, and one gone quiet end corpus merge at the first SIGTERM"
