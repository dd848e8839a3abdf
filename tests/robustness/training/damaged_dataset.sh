#!/usr/bin/env bash
# A shard whose ids were damaged after prepare (token ids past the vocabulary, the manifest unchanged):
# `train` and `eval` stop with one line naming the shard, row and id (it used to be exit 2 and a
# 25-line LibTorch stack trace from the embedding lookup); `data verify` lists every problem (the
# SHA-256 and the ids) and exits 1; `train --verify-data` refuses before creating anything. An intact
# dataset verifies.
source "$(dirname "$0")/lib.bash"

make_dataset "$T/data"
run "$BERTPT" data verify "$T/data"
[[ $RC == 0 && $ERR == *"$T/data: ok, "*" shards, "* ]] || fail "an intact dataset does not verify: $RC $ERR"
"${TINY_TRAIN[@]}" --model bert-tiny --data "$T/data" --max-steps 2 --output-dir "$T/reference" || fail "the reference run failed"
pass "an intact dataset verifies"

cp -r "$T/data" "$T/damaged"
shard="$T/damaged/train-00000.bin"
[[ -f $shard ]] || fail "no $shard"
# Every row's 6th id becomes 65535 (ids are uint16 here: a vocabulary of 120).
python3 - "$shard" <<'PY' || fail "cannot damage $shard"
import struct, sys
path = sys.argv[1]
b = bytearray(open(path, "rb").read())
seq_len, rows = struct.unpack_from("<I", b, 16)[0], struct.unpack_from("<Q", b, 24)[0]
assert struct.unpack_from("<I", b, 12)[0] == 2
for r in range(rows):
    struct.pack_into("<H", b, 64 + 2 * (r * seq_len + 5), 65535)
open(path, "wb").write(b)
PY
run "${TINY_TRAIN[@]}" --model bert-tiny --data "$T/damaged" --max-steps 2 --output-dir "$T/run"
expect_error 1 "shard $shard row " " position 5 holds token id 65535 but the vocabulary has 120 tokens"
[[ $ERR != *"Exception raised from"* ]] || fail "a LibTorch trace reached the user"
pass "train names the shard, row and id of a damaged shard"

run "$BERTPT" eval --model "$T/reference/checkpoint-2" --data "$T/damaged" --split train --threads 1
expect_error 1 "shard $shard row " "holds token id 65535"
pass "eval names the damaged shard"

run "$BERTPT" data verify "$T/damaged"
expect_error 1 "$T/damaged: 2 problem(s) found"
[[ $OUT == *"shard $shard: SHA-256 "*" but the manifest records "* ]] || fail "verify does not list the hash: $OUT"
[[ $OUT == *"shard $shard row 0 position 5 holds token id 65535"* ]] || fail "verify does not list the ids: $OUT"
run "$BERTPT" data verify --json -q "$T/damaged"
[[ $RC == 1 ]] || fail "verify --json exit code $RC"
python3 -c 'import json,sys; j=json.loads(sys.argv[1]); assert not j["ok"] and len(j["problems"]) == 2, j' "$OUT" ||
  fail "verify --json: $OUT"
pass "data verify lists the hash and the ids of the damaged shard"

run "${TINY_TRAIN[@]}" --model bert-tiny --data "$T/damaged" --verify-data --max-steps 2 --output-dir "$T/verified"
expect_error 1 "--verify-data: 2 problem(s) in $T/damaged"
[[ ! -e $T/verified ]] || fail "train --verify-data created its output directory before refusing"
pass "train --verify-data refuses a damaged dataset before writing anything"
