#!/usr/bin/env bash
# The Hugging Face Python stack as the referee: a bertpt run made by this build (tokenizer, dataset,
# MLM checkpoint, fine-tuned classifier) checked by transformers itself with
# bench/verify-hf-python.py — loading without missing/unexpected keys, tokenizer ids, fill-mask and
# classifier probabilities, and HF's save_pretrained read back by bertpt.
# Usage: hf_python_interop.sh BERTPT_BIN SOURCE_DIR. Exit 77 (CTest: skipped) when the peer
# environment is missing (scripts/setup-test-peers installs it) — except in CI, where that fails.
set -euo pipefail
bin=$1
src=$2
source "$src/tests/peer/lib.bash"
require_python torch transformers
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Text of the repository's own documentation; labelled lines: does a line show code (a backquote)?
cat "$src"/README.md "$src"/docs/*.md >"$work/corpus.txt"
"$py" - "$work/corpus.txt" "$work/labelled.jsonl" <<'PY'
import json, sys
lines = [l.strip() for l in open(sys.argv[1], encoding="utf-8") if len(l.strip()) > 20]
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for l in lines[:400]:
        out.write(json.dumps({"text": l, "label": "code" if "`" in l else "prose"}) + "\n")
PY
"$bin" tokenizer train -i "$work/corpus.txt" --vocab-size 3000 --out "$work/tok" --quiet
"$bin" prepare -i "$work/corpus.txt" --tokenizer "$work/tok" --seq-len 64 --out "$work/data" --quiet
"$bin" train --data "$work/data" --model bert-tiny --output-dir "$work/run" --max-steps 30 \
  --per-device-batch-size 8 --learning-rate 1e-3 --precision fp32 --threads 2 --quiet
"$bin" finetune --model "$work/run/checkpoint-30" --train "$work/labelled.jsonl" --output-dir "$work/clf" \
  --epochs 1 --per-device-batch-size 16 --max-seq-len 48 --learning-rate 1e-3 --precision fp32 --threads 2 --quiet
"$py" "$src/bench/verify-hf-python.py" --bertpt "$bin" --mlm "$work/run/checkpoint-30" --clf "$work/clf/best" \
  --predict-input "$work/labelled.jsonl" --threads 2
