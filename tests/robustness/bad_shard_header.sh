#!/usr/bin/env bash
# A shard whose header claims 2^57 rows (with a manifest that agrees): 64 + 2^57 x 128 x 2 bytes
# wraps around to 64, the file's size. `data inspect` must refuse it with one line naming the shard
# (it used to pass the size check and crash), and leave the dataset as it was.
source "$(dirname "$0")/lib.bash"

make_corpus "$T/corpus.txt" 2000
make_tokenizer "$T/tok"
"$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 128 --valid-fraction 0 -o "$T/data" ||
  fail "prepare failed"
shard=$T/data/train-00000.bin
[[ -f $shard ]] || fail "no $shard"
head -c 64 "$shard" >"$T/header" && mv "$T/header" "$shard"
printf '\000\000\000\000\000\000\000\002' | dd of="$shard" bs=1 seek=24 conv=notrunc status=none  # rows = 2^57
python3 - "$T/data/manifest.json" <<'PY' || fail "cannot edit the manifest"
import json, sys
m = json.load(open(sys.argv[1]))
m["splits"]["train"]["shards"] = [{"file": "train-00000.bin", "rows": 2**57, "sha256": "0" * 64}]
m["splits"]["train"]["sequences"] = 2**57
json.dump(m, open(sys.argv[1], "w"), indent=2)
PY
before=$(digest "$T/data")
run "$BERTPT" data inspect "$T/data"
expect_error 1 "shard $shard: the header claims 144115188075855872 rows of 128 ids"
[[ $(digest "$T/data") == "$before" ]] || fail "data inspect changed the dataset"
pass "a shard header claiming 2^57 rows is one error naming the shard"

# A shard the size of its header that claims more real tokens than ids, and one replaced by a FIFO.
printf '\000\000\000\000\000\000\000\000' | dd of="$shard" bs=1 seek=24 conv=notrunc status=none  # rows = 0
printf '\005\000\000\000\000\000\000\000' | dd of="$shard" bs=1 seek=32 conv=notrunc status=none  # 5 real tokens
python3 - "$T/data/manifest.json" <<'PY' || fail "cannot edit the manifest"
import json, sys
m = json.load(open(sys.argv[1]))
m["splits"]["train"]["shards"][0]["rows"] = 0
json.dump(m, open(sys.argv[1], "w"), indent=2)
PY
run "$BERTPT" data inspect "$T/data"
expect_error 1 "shard $shard: the header counts 5 real tokens in 0 rows"
rm "$shard" && mkfifo "$shard"
run "$BERTPT" data inspect "$T/data"
expect_error 1 "shard $shard is not a regular file"
pass "impossible counts and a FIFO in a shard's place are one error naming the shard"
