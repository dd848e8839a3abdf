#!/usr/bin/env bash
# A FIFO or a device given as input (it used to block forever): every command that reads inputs
# refuses it at once with one line naming it, and leaves its earlier outputs as they were.
source "$(dirname "$0")/lib.bash"

make_corpus "$T/corpus.txt" 2000
make_tokenizer "$T/tok"
"$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 32 -o "$T/data" || fail "prepare failed"
"$BERTPT" corpus merge -q -i "$T/corpus.txt" -o "$T/merged.jsonl" || fail "merge failed"
before_tok=$(digest "$T/tok")
before_data=$(digest "$T/data")
before_merged=$(digest "$T/merged.jsonl")
mkfifo "$T/stream"

for input in "$T/stream" /dev/zero; do
  run "$BERTPT" corpus stats -i "$input"
  expect_error 1 "$input is a " "not a regular file"
  run "$BERTPT" corpus merge -q -i "$input" -o "$T/merged.jsonl"
  expect_error 1 "$input is a " "not a regular file"
  run "$BERTPT" tokenizer train -q -i "$input" -o "$T/tok"
  expect_error 1 "$input is a " "not a regular file"
  run "$BERTPT" prepare -q -i "$input" -t "$T/tok" -o "$T/data" --overwrite
  expect_error 1 "$input is a " "not a regular file"
  run "$BERTPT" prepare -q -i "$input" -t "$T/tok" -o "$T/new-data"
  expect_error 1 "$input is a " "not a regular file"
  [[ ! -e $T/new-data ]] || fail "the refused prepare created its output"
  run "$BERTPT" tokenizer encode -t "$T/tok" -i "$input"
  expect_error 1 "$input is a " "not a regular file"
  run "$BERTPT" corpus stats -i "$T/str*"  # matched by a glob
  expect_error 1 "$T/stream is a FIFO"
done
[[ $(digest "$T/tok") == "$before_tok" ]] || fail "the tokenizer changed"
[[ $(digest "$T/data") == "$before_data" ]] || fail "the dataset changed"
[[ $(digest "$T/merged.jsonl") == "$before_merged" ]] || fail "the merged corpus changed"
pass "a FIFO or device as input is refused at once, earlier outputs unchanged"

# Standard input stays usable where a command takes `-`.
printf 'the cat sat\n' | "$BERTPT" tokenizer encode -t "$T/tok" -i - >/dev/null || fail "encode from - failed"
pass "- still reads standard input"
