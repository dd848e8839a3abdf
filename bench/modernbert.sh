#!/usr/bin/env bash
# ModernBERT against BERT, bertpt against transformers: one training step of each, side by side on
# this machine (bertpt bench and bench/hf_train_step.py, one after the other, same shapes, threads and
# precision), written by bench/side_by_side.py to docs/modernbert-speed.md.
#
#   MODELS ("bert-mini modernbert-mini") SHAPES ("128:32 512:8", seq:batch) THREADS (2) PRECISION (bf16)
#   STEPS (5) OUT (runs/modernbert-speed) BUILD_DIR (build) DOC (docs/modernbert-speed.md; "-" for none)
#   PADDING (0; F > 0: padded batches, `--padding F` on both sides, as in docs/modernbert-padded.md:
#            PADDING=0.8 DOC=docs/modernbert-padded.md OUT=runs/modernbert-padded bash bench/modernbert.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BERTPT:-${BUILD_DIR:-build}/bertpt}
PY=${PYTHON:-.venv/bin/python}
MODELS=${MODELS:-bert-mini modernbert-mini} SHAPES=${SHAPES:-128:32 512:8} THREADS=${THREADS:-2}
PRECISION=${PRECISION:-bf16} STEPS=${STEPS:-5} OUT=${OUT:-runs/modernbert-speed} DOC=${DOC:-docs/modernbert-speed.md}
PADDING=${PADDING:-0}
mkdir -p "$OUT"
pairs=() commands=()
for model in $MODELS; do
  for shape in $SHAPES; do
    s=${shape%:*} b=${shape#*:} tag=$model-s$s-b$b
    bc=("$B" bench -q --model "$model" --seq-len "$s" --per-device-batch-size "$b" --precision "$PRECISION"
        --threads "$THREADS" --steps "$STEPS" --warmup-steps 2 --padding "$PADDING" --out "$OUT/bertpt-$tag.json")
    hc=("$PY" bench/hf_train_step.py --config "configs/$model.json" --device cpu --precision "$PRECISION"
        --seq-len "$s" --batch-size "$b" --threads "$THREADS" --steps "$STEPS" --warmup-steps 2 --padding "$PADDING")
    echo "== $tag" >&2
    "${bc[@]}" >/dev/null
    "${hc[@]}" >"$OUT/hf-$tag.json"
    pairs+=("$OUT/bertpt-$tag.json:$OUT/hf-$tag.json")
    commands+=("${bc[*]}" "${hc[*]} > hf.json")
  done
done
[[ $DOC == - ]] && exit 0
args=()
for c in "${commands[@]}"; do args+=(--command "$c"); done
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
title="ModernBERT and BERT training steps: bertpt against transformers (CPU)"
[[ $PADDING == 0 ]] || title="ModernBERT and BERT training steps on padded batches: bertpt against transformers (CPU)"
"$PY" bench/side_by_side.py --title "$title" \
  --machine "$(nproc) × $cpu, $THREADS threads" "${args[@]}" "${pairs[@]}" >"$DOC"
echo "wrote $DOC" >&2
