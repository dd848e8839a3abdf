#!/usr/bin/env bash
# Hostile text: invalid UTF-8, NUL bytes and a 6 MB line without a newline. `corpus stats`,
# `tokenizer train` and `prepare` read it without failing, repair and count what they changed
# (invalid sequences → U+FFFD, NULs removed, the long line cut at a character boundary), and the
# counts they report are those of the input.
source "$(dirname "$0")/lib.bash"

make_corpus "$T/corpus.txt" 3000
{
  cat "$T/corpus.txt"
  printf 'bad \xff\xfe bytes and a \xc3 cut sequence\n'
  printf 'a NUL \000 in the middle\n'
  head -c 6000000 /dev/zero | tr '\0' 'a'
  printf '\n'
} >"$T/bad.txt"
run "$BERTPT" corpus stats --json -i "$T/bad.txt"
[[ $RC == 0 ]] || fail "corpus stats failed: $ERR"
python3 -c '
import json, sys
t = json.loads(sys.argv[1])["total"]
assert t["invalid_utf8_repaired"] == 3, t
assert t["nul_removed"] == 1, t
assert t["long_lines_split"] == 1, t
assert t["documents"] >= 3002 + 5, t  # the 6 MB line is cut into 1 MiB pieces
' "$OUT" || fail "wrong counts: $OUT"
pass "corpus stats repairs and counts invalid UTF-8, NUL bytes and a 6 MB line"

run "$BERTPT" tokenizer train -q -i "$T/bad.txt" --vocab-size 200 --threads 1 -o "$T/tok"
[[ $RC == 0 && -f $T/tok/tokenizer.json ]] || fail "tokenizer train failed on hostile text: $ERR"
run "$BERTPT" prepare -q --json -i "$T/bad.txt" -t "$T/tok" --seq-len 64 --threads 1 -o "$T/data"
[[ $RC == 0 && -f $T/data/manifest.json ]] || fail "prepare failed on hostile text: $ERR"
python3 -c '
import json, sys
src = json.loads(sys.argv[1])["manifest"]["sources"][0]
assert src["invalid_utf8_repaired"] == 3 and src["documents"] >= 3002 + 5, src
' "$OUT" || fail "prepare does not report the repairs: $OUT"
pass "tokenizer train and prepare take hostile text, repairing and counting it"
