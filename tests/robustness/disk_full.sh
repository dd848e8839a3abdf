#!/usr/bin/env bash
# A full disk, for real: a 512 KiB tmpfs (CI runs as root). `prepare`, `corpus merge` and
# `tokenizer train` writing into it fail with one line naming the file and "No space left on device",
# leave nothing that looks complete (no manifest.json, no merged file, no tokenizer directory), and
# leave an earlier output beside them unchanged; `prepare --resume` finishes the dataset once there is
# room, identical to an undisturbed run's.
source "$(dirname "$0")/lib.bash"

[[ $(id -u) == 0 ]] || skip "needs root to mount a small tmpfs"
small=$T/small
mkdir -p "$small"
mount -t tmpfs -o size=512k tmpfs "$small" || fail "cannot mount a tmpfs"
unmount() { umount "$small" 2>/dev/null; }
trap 'unmount; cleanup' EXIT

make_corpus "$T/corpus.txt" 40000  # ~2.5 MB of text: a dataset of several MB at seq 32
make_tokenizer "$T/tok"
"$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 32 --shard-rows 200 --threads 1 -o "$T/reference" ||
  fail "the reference prepare failed"

printf 'earlier output\n' >"$small/keep.txt"
run "$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 32 --shard-rows 200 --threads 1 -o "$small/data"
expect_error 1 "$small/data/" "No space left on device"
[[ ! -e $small/data/manifest.json ]] || fail "a dataset that ran out of disk has a manifest"
[[ $(cat "$small/keep.txt") == "earlier output" ]] || fail "the earlier file changed"
pass "prepare on a full disk fails naming the file, with no manifest"

# Room again: the same dataset moved to a larger disk resumes from its last checkpoint (a shard of
# 200 rows is 12.8 KB: the disk fills after several checkpoints).
[[ -f $small/data/progress.json ]] || fail "no checkpoint was written before the disk filled"
cp -r "$small/data" "$T/resumed"
run "$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 32 --shard-rows 200 --threads 1 -o "$T/resumed" \
  --resume
[[ $RC == 0 ]] || fail "the resume after the disk filled failed: $ERR"
[[ $(digest "$T/resumed") == $(digest "$T/reference") ]] || fail "the resumed dataset differs"
pass "the interrupted dataset resumes elsewhere to the undisturbed run's bytes"
rm -rf "$small/data"

run "$BERTPT" corpus merge -q -i "$T/corpus.txt" -o "$small/merged.jsonl"
expect_error 1 "No space left on device"
[[ ! -e $small/merged.jsonl ]] || fail "a merge that ran out of disk left its output"
[[ -z $(ls "$small" | grep -v '^keep.txt$') ]] || fail "the failed merge left files: $(ls "$small")"
pass "corpus merge on a full disk fails and leaves no output"

head -c 300000 /dev/urandom >"$small/filler"  # leave too little room for a tokenizer's files
run "$BERTPT" tokenizer train -q -i "$T/corpus.txt" --vocab-size 20000 --threads 1 -o "$small/tok"
expect_error 1 "No space left on device"
[[ ! -e $small/tok ]] || fail "a tokenizer that ran out of disk left a directory"
pass "tokenizer train on a full disk fails and leaves no tokenizer directory"
