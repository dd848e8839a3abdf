#!/usr/bin/env bash
# What the cheaper-BERT recipes buy, at equal compute on this machine, and on paper for the guide's
# 1M-step job (writes docs/recipes.md).
#
# Arms, all the same model (MODEL), tokenizer, corpus and training-FLOP budget — the budget of the
# baseline's BASE_STEPS steps x BATCH sequences of 512 tokens; FLOPs per sequence from `bertpt bench`
# (src/perf/flops.h: matmuls, attention scores, the MLM head at the masked positions):
#   baseline     AdamW, batch BATCH at 512 tokens, linear decay (the guide's recipe)
#   two-phase    AdamW, 90% of the steps at 128 tokens (4 x BATCH sequences: the same tokens per
#                step), 10% at 512 (BATCH) — more steps for the same FLOPs
#   lamb         LAMB at an 8x larger batch (BATCH x 8 accumulation) at 512, polynomial decay: 1/8 of
#                the steps
#   lamb-2phase  both: NVIDIA's recipe (LAMB, large batch, 90% at 128)
#   modernbert   the architecture instead of the recipe: MODERN_MODEL (transformers' ModernBERT layout,
#                src/model/modernbert.h) with the baseline's recipe (AdamW, BATCH at 512), as many steps
#                as its own FLOPs per sequence allow within the budget
# Each is evaluated on the same held-out 512-token split and fine-tuned on AG News (4 classes; its
# test.csv split 80/10/10 by line) with SEEDS seeds.
#
#   MODEL (bert-tiny) MODERN_MODEL (modernbert-tiny) BASE_STEPS (400) BATCH (32) LR (1e-3) LAMB_LR (4e-3)
#   VOCAB (8000) SEEDS ("1 2")
#   FT_EPOCHS (2) FT_LR (3e-4) THREADS (0) OUT (runs/recipes) BUILD_DIR (build) DATA_DIR (../shared/data)
#   DOC (docs/recipes.md; "-" for none)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BERTPT:-${BUILD_DIR:-build}/bertpt}
DATA=${DATA_DIR:-$(cd .. && pwd)/shared/data}
MODEL=${MODEL:-bert-tiny} MODERN_MODEL=${MODERN_MODEL:-modernbert-tiny} BASE_STEPS=${BASE_STEPS:-400} BATCH=${BATCH:-32} LR=${LR:-1e-3} LAMB_LR=${LAMB_LR:-4e-3}
VOCAB=${VOCAB:-8000} SEEDS=${SEEDS:-1 2} FT_EPOCHS=${FT_EPOCHS:-2} FT_LR=${FT_LR:-3e-4} THREADS=${THREADS:-0}
OUT=${OUT:-runs/recipes} DOC=${DOC:-docs/recipes.md}
mkdir -p "$OUT"
log() { echo "== $*" >&2; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"d": d}))' "$@"; }

# ---- data: one corpus (Wikipedia + Gutenberg paragraphs), one tokenizer, 128 and 512 in one pass
if [[ ! -s $OUT/data/seq-512/manifest.json ]]; then
  log "data: corpus, tokenizer ($VOCAB), prepare --seq-len 128,512"
  rm -rf "$OUT/corpus.jsonl.zst" "$OUT/tok"
  "$B" corpus merge -q -i "$DATA/wikipedia_en_wikiextractor" -i "$DATA/nltk_gutenberg/*.txt" --doc-per paragraph \
    --dedup --shuffle --seed 34 --out "$OUT/corpus.jsonl.zst"
  "$B" tokenizer train -q -i "$OUT/corpus.jsonl.zst" --vocab-size "$VOCAB" --limit-alphabet 1000 --out "$OUT/tok"
  "$B" prepare -q -i "$OUT/corpus.jsonl.zst" -t "$OUT/tok" --seq-len 128,512 --valid-fraction 0.02 \
    --out "$OUT/data" --overwrite
fi
if [[ ! -s $OUT/ag_news/test.csv ]]; then
  mkdir -p "$OUT/ag_news"
  awk -v dir="$OUT/ag_news" 'NR == 1 { print > (dir "/train.csv"); print > (dir "/valid.csv");
      print > (dir "/test.csv"); next }
    { f = (NR % 10 == 0) ? "test" : (NR % 10 == 1) ? "valid" : "train"; print > (dir "/" f ".csv") }' \
    "$DATA/ag_news/test.csv"
fi

# ---- the budget: FLOPs per sequence and this machine's throughput at both lengths (bertpt bench)
for len in 128 512; do
  bs=$BATCH; [[ $len == 128 ]] && bs=$((4 * BATCH))
  [[ -s $OUT/bench-$len.json ]] || "$B" bench -q --model "$MODEL" --vocab-size "$VOCAB" --seq-len "$len" \
    --per-device-batch-size "$bs" --steps 3 --warmup-steps 1 --threads "$THREADS" --out "$OUT/bench-$len.json" >/dev/null
done
[[ -s $OUT/bench-modern-512.json ]] || "$B" bench -q --model "$MODERN_MODEL" --vocab-size "$VOCAB" --seq-len 512 \
  --per-device-batch-size "$BATCH" --steps 3 --warmup-steps 1 --threads "$THREADS" --out "$OUT/bench-modern-512.json" \
  >/dev/null
# BERT-base's FLOPs at both lengths and ModernBERT-base's at 512 (one step of one sequence; only the FLOP
# count is used), for the projection of the guide's job.
for len in 128 512; do
  [[ -s $OUT/bench-base-$len.json ]] || "$B" bench -q --model bert-base --seq-len "$len" --per-device-batch-size 1 \
    --steps 1 --warmup-steps 0 --threads "$THREADS" --out "$OUT/bench-base-$len.json" >/dev/null
done
[[ -s $OUT/bench-modernbase-512.json ]] || "$B" bench -q --model modernbert-base --seq-len 512 \
  --per-device-batch-size 1 --steps 1 --warmup-steps 0 --threads "$THREADS" --out "$OUT/bench-modernbase-512.json" \
  >/dev/null
FMB512=$(json "$OUT/bench-modernbase-512.json" "d['rows'][0]['flops_per_step']")
FM512=$(json "$OUT/bench-modern-512.json" "d['rows'][0]['flops_per_step'] / d['rows'][0]['batch']")
FB128=$(json "$OUT/bench-base-128.json" "d['rows'][0]['flops_per_step']")
FB512=$(json "$OUT/bench-base-512.json" "d['rows'][0]['flops_per_step']")
F128=$(json "$OUT/bench-128.json" "d['rows'][0]['flops_per_step'] / d['rows'][0]['batch']")
F512=$(json "$OUT/bench-512.json" "d['rows'][0]['flops_per_step'] / d['rows'][0]['batch']")
BUDGET=$(python3 -c "print($BASE_STEPS * $BATCH * $F512)")
# Steps of a two-phase arm of global batches G128 (at 128) and G512 (at 512) that spend the budget.
two_phase_steps() { python3 -c "print(round($BUDGET / (0.9 * $1 * $F128 + 0.1 * $2 * $F512)))"; }
TP_STEPS=$(two_phase_steps $((4 * BATCH)) "$BATCH")
LAMB_STEPS=$((BASE_STEPS / 8))
LTP_STEPS=$(two_phase_steps $((32 * BATCH)) $((8 * BATCH)))
MODERN_STEPS=$(python3 -c "print(round($BUDGET / ($BATCH * $FM512)))")

pretrain() {  # NAME STEPS FLAGS... (the model: $ARM_MODEL, default MODEL)
  local name=$1 steps=$2; shift 2
  [[ -d $OUT/runs/$name/checkpoint-$steps ]] && return 0
  log "pretrain $name: $steps steps"
  local t0; t0=$(date +%s.%N)
  "$B" train --model "${ARM_MODEL:-$MODEL}" --output-dir "$OUT/runs/$name" --max-steps "$steps" --warmup-steps $((steps / 10)) \
    --weight-decay 0.01 --logging-steps $((steps / 20 > 0 ? steps / 20 : 1)) --eval-max-batches 0 --save-steps 0 \
    --save-total-limit 1 --threads "$THREADS" --overwrite-output-dir --quiet "$@"
  python3 -c "import time; print(time.time() - $t0)" > "$OUT/runs/$name/wall_seconds"
}
pretrain baseline "$BASE_STEPS" --data "$OUT/data/seq-512" --per-device-batch-size "$BATCH" --learning-rate "$LR"
pretrain two-phase "$TP_STEPS" --data "$OUT/data" --phase-schedule "128:0.9:$((4 * BATCH)),512:0.1:$BATCH" \
  --learning-rate "$LR"
pretrain lamb "$LAMB_STEPS" --data "$OUT/data/seq-512" --per-device-batch-size "$BATCH" --grad-accum 8 \
  --optim lamb --learning-rate "$LAMB_LR" --lr-scheduler polynomial --lr-end 0
pretrain lamb-2phase "$LTP_STEPS" --data "$OUT/data" --phase-schedule "128:0.9:$((4 * BATCH)):8,512:0.1:$BATCH:8" \
  --optim lamb --learning-rate "$LAMB_LR" --lr-scheduler polynomial --lr-end 0
ARM_MODEL=$MODERN_MODEL pretrain modernbert "$MODERN_STEPS" --data "$OUT/data/seq-512" --per-device-batch-size "$BATCH" \
  --learning-rate "$LR"

ARMS="baseline two-phase lamb lamb-2phase modernbert"
for arm in $ARMS; do
  ckpt=$(ls -d "$OUT/runs/$arm"/checkpoint-* | tail -1)
  [[ -s $OUT/runs/$arm/eval512.json ]] || "$B" eval --model "$ckpt" --data "$OUT/data/seq-512" --threads "$THREADS" \
    --json > "$OUT/runs/$arm/eval512.json"
  for seed in $SEEDS; do
    dir=$OUT/finetune/$arm/seed-$seed
    [[ -s $dir/results.json ]] && continue
    log "finetune $arm / seed $seed"
    "$B" finetune --model "$ckpt" --train "$OUT/ag_news/train.csv" --valid "$OUT/ag_news/valid.csv" \
      --test "$OUT/ag_news/test.csv" --text-field description --label-field label --output-dir "$dir" \
      --overwrite-output-dir --epochs "$FT_EPOCHS" --learning-rate "$FT_LR" --max-seq-len 64 --warmup-ratio 0.1 \
      --seed "$seed" --threads "$THREADS" --quiet
  done
done

[[ $DOC == - ]] && exit 0
python3 bench/recipes_report.py --out "$OUT" --doc "$DOC" --arms $ARMS --seeds $SEEDS --budget "$BUDGET" \
  --f128 "$F128" --f512 "$F512" --base-f128 "$FB128" --base-f512 "$FB512" --modern-f512 "$FM512" \
  --modernbase-f512 "$FMB512" --bertpt "$B" \
  --command "bench/recipes.sh (MODEL=$MODEL MODERN_MODEL=$MODERN_MODEL BASE_STEPS=$BASE_STEPS BATCH=$BATCH LR=$LR LAMB_LR=$LAMB_LR VOCAB=$VOCAB SEEDS='$SEEDS' FT_EPOCHS=$FT_EPOCHS FT_LR=$FT_LR)"
log "wrote $DOC"
