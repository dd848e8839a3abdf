#!/usr/bin/env bash
# JSON state files with a field of the wrong type — prepare's progress.json, the manifest, a
# tokenizer.json, a tokenizer's companion files — are one error line naming the file and the field
# (it used to be a raw JSON library exception naming neither), and nothing is written.
source "$(dirname "$0")/lib.bash"

make_corpus "$T/corpus.txt" 30000
make_tokenizer "$T/tok"

# An interrupted prepare: an input broken two thirds in, after some checkpoints.
gzip -c "$T/corpus.txt" >"$T/full.gz"
head -c $(($(stat -c %s "$T/full.gz") * 2 / 3)) "$T/full.gz" >"$T/c.gz"
prep() { "$BERTPT" prepare -q -i "$T/c.gz" -t "$T/tok" --seq-len 32 --shard-rows 200 -o "$T/data" "$@"; }
prep 2>/dev/null && fail "prepare of a truncated input succeeded"
[[ -f $T/data/progress.json ]] || fail "no checkpoint was written"
cp "$T/data/progress.json" "$T/progress.good"
cp "$T/full.gz" "$T/c.gz"
declare -A damage=(
  ['j["documents_done"] = "12"']='field "documents_done" is a string, expected an unsigned integer'
  ['j["splits"]["train"]["packer"]["carry"][0] = -4']='field "splits.train.packer.carry[0]" is -4'
  ['j["splits"]["valid"]["packer"]["stats"] = []']='field "splits.valid.packer.stats" is an array, expected an object'
  ['j["source_tokens"] = [1, 2]']='field "source_tokens" has 2 entries for 1 inputs'
  ['j["splits"]["train"]["shards"][0]["file"] = "../../x.bin"']='field "splits.train.shards[0].file" is "../../x.bin"'
)
for change in "${!damage[@]}"; do
  cp "$T/progress.good" "$T/data/progress.json"
  edit "$T/data/progress.json" "$change"
  before=$(digest "$T/data")
  run "$BERTPT" prepare -q -i "$T/c.gz" -t "$T/tok" --seq-len 32 --shard-rows 200 -o "$T/data" --resume
  expect_error 1 "$T/data/progress.json: ${damage[$change]}"
  [[ $(digest "$T/data") == "$before" ]] || fail "the refused resume changed the directory ($change)"
done
cp "$T/progress.good" "$T/data/progress.json"
prep --resume || fail "the resume with the checkpoint restored failed"
pass "a damaged progress.json is one error naming the file and the field"

before=$(digest "$T/data")
cp "$T/data/manifest.json" "$T/manifest.good"
edit "$T/data/manifest.json" 'j["splits"]["train"]["shards"][1]["rows"] = "many"'
run "$BERTPT" data inspect "$T/data"
expect_error 1 "$T/data/manifest.json: field \"splits.train.shards[1].rows\" is a string, expected an unsigned integer"
cp "$T/manifest.good" "$T/data/manifest.json"
[[ $(digest "$T/data") == "$before" ]] || fail "data inspect changed the dataset"
pass "a damaged manifest is one error naming the file and the field"

cp -r "$T/tok" "$T/tok2"
rm "$T/tok2/vocab.txt"
edit "$T/tok2/tokenizer.json" 'j["model"]["vocab"]["the"] = "7"'
run "$BERTPT" tokenizer encode -t "$T/tok2" -i "$T/corpus.txt"
expect_error 1 "$T/tok2/tokenizer.json: field \"model.vocab.the\" is a string, expected an unsigned integer"
cp "$T/tok/tokenizer.json" "$T/tok2/tokenizer.json"
edit "$T/tok2/special_tokens_map.json" 'j["mask_token"] = 4'
run "$BERTPT" tokenizer encode -t "$T/tok2" -i "$T/corpus.txt"
expect_error 1 "$T/tok2/special_tokens_map.json: field \"mask_token\" is an integer"
pass "a damaged tokenizer file is one error naming the file and the field"

# Ids outside the vocabulary: a special token's id in the post-processor, an added token's id.
cp "$T/tok/special_tokens_map.json" "$T/tok2/special_tokens_map.json"
edit "$T/tok2/tokenizer.json" 'j["post_processor"]["special_tokens"]["[CLS]"]["ids"] = [99999]'
run "$BERTPT" tokenizer encode -t "$T/tok2" -i "$T/corpus.txt"
expect_error 1 "$T/tok2/tokenizer.json: post_processor.special_tokens.[CLS].ids[0] is 99999, outside the vocabulary (ids 0 to 119)"
cp "$T/tok/tokenizer.json" "$T/tok2/tokenizer.json"
edit "$T/tok2/tokenizer.json" 'j["added_tokens"][0]["id"] = 4096'
run "$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok2" --seq-len 32 -o "$T/ids"
expect_error 1 "$T/tok2/tokenizer.json: added_tokens[0].id is 4096, outside the vocabulary"
[[ ! -e $T/ids ]] || fail "prepare with a bad tokenizer created its output"
pass "token ids outside the vocabulary in tokenizer.json are refused on load, naming the field"

# Ids that do not fit the vocabulary's size: one line naming the token and the id, at once (an id of
# 4e9 was "out of memory", one of 2e8 took 3.2 GB and 10 s to encode "hello").
for id in 4000000000 200000000 120; do
  cp "$T/tok/tokenizer.json" "$T/tok2/tokenizer.json"
  edit "$T/tok2/tokenizer.json" "j['model']['vocab']['[MASK]'] = $id"
  start=$SECONDS
  run "$BERTPT" tokenizer encode -t "$T/tok2" -i "$T/corpus.txt"
  expect_error 1 "$T/tok2/tokenizer.json: model.vocab: token '[MASK]' has id $id, but the vocabulary has 120 tokens"
  ((SECONDS - start <= 5)) || fail "refusing id $id took $((SECONDS - start)) s"
done
pass "a tokenizer.json id past the vocabulary's size names the token and the id"

# A manifest whose special ids are not tokens of the vocabulary (the mask id reached LibTorch's
# embedding: "internal error: index out of range in self").
cp "$T/manifest.good" "$T/data/manifest.json"
edit "$T/data/manifest.json" 'j["special_ids"]["mask"] = 60000'
run "$BERTPT" data inspect "$T/data"
expect_error 1 "$T/data/manifest.json: field \"special_ids.mask\" is 60000, not an id of the vocabulary"
cp "$T/manifest.good" "$T/data/manifest.json"
pass "a manifest's special id past the vocabulary is one error naming the field"
