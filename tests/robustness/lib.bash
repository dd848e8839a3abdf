# Sourced by every case of the robustness suite (tests/robustness/*.sh, docs/robustness.md):
#   bash CASE.sh BERTPT_BIN SOURCE_DIR
# Gives $BERTPT, a scratch directory $T (removed at exit), corpus and tokenizer makers, and the
# assertions every case makes: the exit code, a one-line error naming the file, and earlier outputs
# unchanged. Exit 0 = pass, 1 = fail, 77 = skipped (never in CI: CI=true turns a skip into a failure).
set -u -o pipefail

BERTPT=${1:?usage: $0 BERTPT_BIN SOURCE_DIR}
SOURCE_DIR=${2:?usage: $0 BERTPT_BIN SOURCE_DIR}
T=$(mktemp -d "${TMPDIR:-/tmp}/bertpt-robustness-XXXXXX")
BG_PIDS=()
cleanup() {
  local p
  for p in "${BG_PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
skip() {
  [[ ${CI:-} == true ]] && fail "$* (a skip is a failure in CI)"
  echo "SKIP: $*"
  exit 77
}
pass() { echo "ok: $*"; }

# make_corpus FILE LINES: deterministic English-like text, one document per line.
make_corpus() {
  awk -v n="$2" 'BEGIN {
    split("the cat sat on a mat and dog ran far away from home running quickly over zebra quiz jumps lazy brown fox", w, " ");
    x = 12345;
    for (i = 1; i <= n; i++) {
      x = (x * 75 + 74) % 65537; len = 4 + x % 14; line = "Doc " i ":";
      for (k = 0; k < len; k++) { x = (x * 75 + 74) % 65537; line = line " " w[1 + int(x / 7) % 22]; }
      print line ".";
    }
  }' >"$1"
}

# make_tokenizer DIR [VOCAB_SIZE]: a small BERT tokenizer trained by bertpt itself.
make_tokenizer() {
  [[ -f $T/tok-corpus.txt ]] || make_corpus "$T/tok-corpus.txt" 3000
  "$BERTPT" tokenizer train -q -i "$T/tok-corpus.txt" --vocab-size "${2:-120}" -o "$1" --threads 1 ||
    fail "cannot train a tokenizer into $1"
}

# digest PATH: one hash over the names and contents of every file under PATH (or of the file).
digest() {
  if [[ -d $1 ]]; then
    (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum) | sha256sum | cut -c1-64
  elif [[ -e $1 ]]; then
    sha256sum <"$1" | cut -c1-64
  else
    echo missing
  fi
}

# run CMD...: runs it with stdin from /dev/null, under a timeout (a blocked command fails, it does not
# hang the suite); sets RC, OUT, ERR.
run() {
  timeout 120 "$@" </dev/null >"$T/.out" 2>"$T/.err"
  RC=$?
  OUT=$(cat "$T/.out")
  ERR=$(cat "$T/.err")
}

# expect_error RC NEEDLE...: the last `run` exited RC with one error line,
# "bertpt: error: ...", that contains every NEEDLE; at most a hint line after it; no trace.
expect_error() {
  local want=$1
  shift
  [[ $RC == 124 ]] && fail "timed out (blocked?): $ERR"
  [[ $RC == "$want" ]] || fail "exit code $RC, expected $want; stderr: $ERR"
  local first rest n
  first=$(printf '%s\n' "$ERR" | grep -v '^bertpt: warning: ' | head -n1)
  rest=$(printf '%s\n' "$ERR" | grep -v '^bertpt: warning: ' | tail -n +2)
  [[ $first == "bertpt: error: "* ]] || fail "first line is not 'bertpt: error: ...': $ERR"
  n=$(printf '%s' "$rest" | grep -c '' || true)
  if ((n > 1)) || { ((n == 1)) && [[ $rest != "  hint: "* ]]; }; then
    fail "more than the error line and a hint: $ERR"
  fi
  local needle
  for needle in "$@"; do
    [[ $first == *"$needle"* ]] || fail "the error does not name '$needle': $first"
  done
}

# edit FILE PYTHON-STATEMENT: changes the JSON file `FILE` (as `j`) in place.
edit() {
  python3 - "$1" "$2" <<'PY' || fail "cannot edit $1"
import json, sys
j = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(j, open(sys.argv[1], "w"))
PY
}

# wait_for_lock FILE PID: waits until PID wrote itself into the lock file FILE (it holds the lock).
wait_for_lock() {
  local i
  for ((i = 0; i < 2000; i++)); do
    [[ -f $1 && $(cat "$1" 2>/dev/null) == "$2" ]] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.005
  done
  return 1
}
