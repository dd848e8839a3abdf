#!/usr/bin/env bash
# bertpt's learning-rate schedules (engine/lr_schedule.h) against transformers' get_scheduler, step by
# step (tests/peer/lr_schedules.py). Usage: lr_schedules.sh BERTPT_BIN SOURCE_DIR.
# Exit 77 (CTest: skipped) when the peer is missing — except in CI, where that fails.
set -euo pipefail
bin=$1
src=$2
source "$src/tests/peer/lib.bash"
require_python transformers torch
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat "$src"/README.md "$src"/docs/*.md >"$work/corpus.txt"
"$bin" tokenizer train -i "$work/corpus.txt" --vocab-size 1000 --out "$work/tok" --quiet
"$bin" prepare -i "$work/corpus.txt" --tokenizer "$work/tok" --seq-len 32 --out "$work/data" --quiet
exec env HF_HUB_OFFLINE=1 "$py" "$src/tests/peer/lr_schedules.py" "$bin" "$work/data" "$work"
