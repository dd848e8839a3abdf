#!/usr/bin/env bash
# The Hugging Face Python stack as the referee: a bertpt run made by this build (tokenizer, dataset,
# MLM checkpoint, fine-tuned classifier, a regression model, an NER tagger) checked by transformers itself with
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
# Regression (GLUE's STS-B sample of transformers' own tests, as JSONL pairs with numeric labels).
"$py" - "$src/tests/fixtures/corpora/glue_samples/STS-B" "$work/stsb" <<'PY'
import csv, json, os, sys
os.makedirs(sys.argv[2])
for split in ("train", "dev"):
    with open(os.path.join(sys.argv[1], split + ".tsv"), encoding="utf-8") as f, \
         open(os.path.join(sys.argv[2], split + ".jsonl"), "w", encoding="utf-8") as out:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            out.write(json.dumps({"text": row["sentence1"], "text_pair": row["sentence2"],
                                  "label": float(row["score"])}) + "\n")
PY
"$bin" finetune --model "$work/run/checkpoint-30" --train "$work/stsb/train.jsonl" --valid "$work/stsb/dev.jsonl" \
  --text-pair-field text_pair --output-dir "$work/reg" --epochs 2 --per-device-batch-size 4 --learning-rate 1e-3 \
  --precision fp32 --threads 2 --quiet
grep -q '"problem_type": "regression"' "$work/reg/best/config.json" || { echo "finetune: no regression" >&2; exit 1; }
# Token classification (NER): the repository's NCBI-disease excerpt, CoNLL.
ner=$src/tests/fixtures/corpora/scibert/ner/NCBI-disease
awk 'BEGIN { RS = ""; ORS = "\n\n" } NR <= 60' "$ner/train.txt" >"$work/ner-train.txt"  # 60 sentences
"$bin" finetune --task token-classification --model "$work/run/checkpoint-30" --train "$work/ner-train.txt" \
  --valid "$ner/dev.txt" --output-dir "$work/ner" --epochs 1 --per-device-batch-size 8 --learning-rate 1e-3 \
  --precision fp32 --threads 2 --quiet
grep -q '"BertForTokenClassification"' "$work/ner/best/config.json" || { echo "finetune: no tagger" >&2; exit 1; }
"$py" "$src/bench/verify-hf-python.py" --bertpt "$bin" --mlm "$work/run/checkpoint-30" --clf "$work/clf/best" \
  --predict-input "$work/labelled.jsonl" --reg "$work/reg/best" --reg-input "$work/stsb/dev.jsonl" \
  --ner "$work/ner/best" --ner-input "$ner/test.txt" --threads 2
