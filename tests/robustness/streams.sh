#!/usr/bin/env bash
# Streams as inputs: `-i -` (standard input), process substitution `-i <(…)` and a named FIFO give
# every stage that reads front to back (corpus stats, corpus merge, tokenizer train, prepare) the same
# result as the file itself. What needs to seek (Parquet/Arrow) is refused in one line; an endless
# device of NUL bytes is refused as not text instead of being read forever; a glob never picks a FIFO.
source "$(dirname "$0")/lib.bash"

make_corpus "$T/corpus.txt" 3000
zstd -q "$T/corpus.txt" -o "$T/corpus.txt.zst" || fail "zstd failed"
make_tokenizer "$T/tok"

"$BERTPT" corpus stats --json -i "$T/corpus.txt" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"]["documents"])' >"$T/docs.want"
"$BERTPT" corpus merge -q -i "$T/corpus.txt" -o "$T/merged.file.jsonl" || fail "merge of the file failed"
"$BERTPT" tokenizer train -q -i "$T/corpus.txt" --vocab-size 200 --threads 1 -o "$T/tok.file" || fail "train failed"
"$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 32 -o "$T/data.file" || fail "prepare failed"
ls "$T/data.file"/*.bin >/dev/null || fail "prepare wrote no shards"

texts() { python3 -c 'import json,sys; print("\n".join(json.loads(l)["text"] for l in open(sys.argv[1])))' "$1"; }
dataset_ids() { cat "$1"/*.bin | sha256sum; }  # every shard, train and valid, in name order

for how in stdin substitution fifo compressed; do
  # via CMD...: runs CMD with the stream in place of "@IN@".
  via() {
    local args=() a
    case $how in
      stdin) for a in "$@"; do args+=("${a/@IN@/-}"); done; timeout 120 "${args[@]}" <"$T/corpus.txt" ;;
      substitution) for a in "$@"; do args+=("${a/@IN@//dev/fd/9}"); done; timeout 120 "${args[@]}" 9< <(cat "$T/corpus.txt") ;;
      fifo)
        rm -f "$T/fifo" && mkfifo "$T/fifo"
        (cat "$T/corpus.txt" >"$T/fifo" &)
        for a in "$@"; do args+=("${a/@IN@/$T/fifo}"); done
        timeout 120 "${args[@]}" </dev/null ;;
      compressed) for a in "$@"; do args+=("${a/@IN@/-}"); done; timeout 120 "${args[@]}" <"$T/corpus.txt.zst" ;;
    esac
  }
  got=$(via "$BERTPT" corpus stats --json -i @IN@ | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"]["documents"])')
  [[ $got == "$(cat "$T/docs.want")" ]] || fail "$how: corpus stats counted $got documents"
  via "$BERTPT" corpus merge -q -i @IN@ -o "$T/merged.$how.jsonl" || fail "$how: merge failed"
  [[ $(texts "$T/merged.$how.jsonl") == "$(texts "$T/merged.file.jsonl")" ]] || fail "$how: merged texts differ"
  via "$BERTPT" corpus merge -q --shuffle -i @IN@ -o "$T/shuffled.$how.jsonl" || fail "$how: shuffled merge failed"
  [[ $(wc -l <"$T/shuffled.$how.jsonl") == 3000 ]] || fail "$how: the shuffled merge lost documents"
  via "$BERTPT" tokenizer train -q -i @IN@ --vocab-size 200 --threads 1 -o "$T/tok.$how" || fail "$how: train failed"
  cmp -s "$T/tok.file/vocab.txt" "$T/tok.$how/vocab.txt" || fail "$how: the trained vocabulary differs"
  via "$BERTPT" prepare -q -i @IN@ -t "$T/tok" --seq-len 32 -o "$T/data.$how" || fail "$how: prepare failed"
  [[ $(dataset_ids "$T/data.$how") == "$(dataset_ids "$T/data.file")" ]] || fail "$how: the prepared ids differ"
done
pass "stdin, <(…), a FIFO and a compressed stdin give stats, merge, tokenizer train and prepare the file's results"

# A stream in a second place of the same command, and - twice.
"$BERTPT" corpus merge -q -i "$T/corpus.txt" -i - -o "$T/two.jsonl" <"$T/corpus.txt" || fail "file + stdin failed"
[[ $(wc -l <"$T/two.jsonl") == 6000 ]] || fail "file + stdin did not give both"
run "$BERTPT" corpus stats -i - -i -
expect_error 1 "standard input (-) is given twice"
pass "a file and stdin merge; - twice is refused"

# What a stream cannot be: a Parquet file piped in, and an endless run of NUL bytes.
"$SOURCE_DIR/.venv/bin/python" - "$T/t.parquet" <<'PY' || fail "pyarrow (scripts/setup's .venv) could not write the Parquet fixture"
import sys, pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({"text": ["a document", "another one"]}), sys.argv[1])
PY
"$BERTPT" corpus stats -q -i "$T/t.parquet" >/dev/null || fail "the Parquet file itself is not read"
run bash -c "cat '$T/t.parquet' | '$BERTPT' corpus stats -i -"
expect_error 1 "/dev/stdin is a Parquet file" "stream"
run "$BERTPT" corpus stats -i /dev/zero
expect_error 1 "/dev/zero: " "NUL bytes" "not UTF-8 text"
pass "a Parquet stream is refused (it needs to seek); /dev/zero is refused as not text, not read forever"

# A glob never picks up a FIFO; a directory skips it.
mkfifo "$T/dir-fifo"
run "$BERTPT" corpus stats -i "$T/dir-fi*"
expect_error 1 "$T/dir-fifo is a FIFO" "not a regular file"
pass "a FIFO matched by a glob is refused in one line"
