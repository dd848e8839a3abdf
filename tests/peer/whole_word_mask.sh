#!/usr/bin/env bash
# bertpt's --whole-word-mask (data/masking.h) against transformers' whole-word collator
# (tests/peer/whole_word_mask.py). Usage: whole_word_mask.sh BERTPT_BIN SOURCE_DIR.
# Exit 77 (CTest: skipped) when the peer is missing — except in CI, where that fails.
set -euo pipefail
bin=$1
src=$2
source "$src/tests/peer/lib.bash"
require_python transformers torch
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Lowercase words only: the words of the collator (no gap between tokens) are then the WordPiece words.
cat "$src"/README.md "$src"/docs/*.md | tr 'A-Z' 'a-z' | tr -cs 'a-z\n' ' ' | grep -E '[a-z]{3}' >"$work/corpus.txt"
"$bin" tokenizer train -i "$work/corpus.txt" --vocab-size 400 --out "$work/tok" --quiet
"$bin" prepare -i "$work/corpus.txt" --tokenizer "$work/tok" --seq-len 64 --out "$work/data" --quiet
"$bin" train --data "$work/data" --output-dir "$work/run" --model bert-tiny --max-steps 6 --per-device-batch-size 32 \
  --whole-word-mask --dump-batches "$work/dump" --precision fp32 --threads 1 --report-to none --save-steps 0 --quiet
exec env HF_HUB_OFFLINE=1 "$py" "$src/tests/peer/whole_word_mask.py" "$bin" "$work/tok" "$work/dump"
