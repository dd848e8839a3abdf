#!/usr/bin/env bash
# The guide's domain-adaptation claim, measured with bertpt (docs/domain-adaptation.md).
#
# Same model size, tokenizer recipe and pre-training budget for every arm; each arm is fine-tuned
# with several seeds on two labelled tasks from ../shared/data:
#   general    pre-trained on general English (Wikipedia + Gutenberg books), general tokenizer
#   in-domain  pre-trained on the task's domain text, with a tokenizer trained on that text
#   continued  general, then pre-trained further on the domain text for the same budget again (DAPT)
#   scratch    no pre-training (random init, general tokenizer): the floor
# Tasks:
#   sms        SMS spam (ham/spam); domain text = the training split's messages
#   sci-cite   citation intent (background/method/result); domain text = scientific and biomedical
#              text of ../shared/data/scibert (the PubMed sentences of the NER training splits,
#              ChemProt, MAG titles, ACL-ARC, SciERC, the SciCite training sentences) - never a
#              task's dev/test sentences
#   ncbi       NER: NCBI-disease (diseases, CoNLL BIO), entity-level F1 (seqeval); domain text = sci's
#   bc5cdr     NER: BC5CDR (chemicals and diseases as one "Entity" type in SciBERT's copy); sci's
#
# Every stage skips work whose output already exists, so a second run only redoes what is missing.
#   STAGES="data pretrain finetune report" (default: all)   QUICK=1: the reduced CI version
#   (report: OUT/summary.tsv, and OUT/ner-tables.md for NER tasks, the Markdown of docs/domain-adaptation.md)
#   MODEL, SEQ_LEN, FT_MAX_LEN, PRETRAIN_STEPS, PRETRAIN_BATCH, PRETRAIN_LR, VOCAB, FT_EPOCHS, FT_LR, FT_BATCH,
#   SEEDS, TASKS, PRECISION (bf16 | fp32), THREADS, OUT, BUILD_DIR, DATA_DIR; TRAIN_FLAGS / FT_FLAGS: extra flags for every
#   `bertpt train` / `bertpt finetune` (e.g. "--device cuda --nproc-per-node 8")
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build}
B=${BERTPT:-$BUILD/bertpt}
DATA=${DATA_DIR:-$(cd .. && pwd)/shared/data}
QUICK=${QUICK:-0}
if [[ $QUICK == 1 ]]; then
  OUT=${OUT:-runs/domain-adaptation-quick}
  MODEL=${MODEL:-bert-tiny} PRETRAIN_STEPS=${PRETRAIN_STEPS:-60} VOCAB=${VOCAB:-3000}
  SEEDS=${SEEDS:-1} TASKS=${TASKS:-sms} FT_EPOCHS=${FT_EPOCHS:-1} FT_LR=${FT_LR:-5e-4} ARMS=${ARMS:-general scratch}
  GENERAL_MAX_DOCS=${GENERAL_MAX_DOCS:-3000}
  # LibTorch's CPU bf16 matmuls are fast only with AVX-512 (bf16) units; the CI machine has none.
  PRECISION=${PRECISION:-fp32}
fi
OUT=${OUT:-runs/domain-adaptation}
MODEL=${MODEL:-bert-mini}
SEQ_LEN=${SEQ_LEN:-128}
FT_MAX_LEN=${FT_MAX_LEN:-64}
PRETRAIN_STEPS=${PRETRAIN_STEPS:-1000}
PRETRAIN_BATCH=${PRETRAIN_BATCH:-32}
PRETRAIN_LR=${PRETRAIN_LR:-1e-3}
VOCAB=${VOCAB:-8000}
FT_EPOCHS=${FT_EPOCHS:-2}
FT_LR=${FT_LR:-1e-4}
FT_BATCH=${FT_BATCH:-32}
SEEDS=${SEEDS:-1 2 3}
TASKS=${TASKS:-sms sci-cite}
ARMS=${ARMS:-general in-domain continued scratch}
THREADS=${THREADS:-0}
GENERAL_MAX_DOCS=${GENERAL_MAX_DOCS:-0}
PRECISION=${PRECISION:-bf16}
STAGES=${STAGES:-data pretrain finetune report}
TRAIN_FLAGS=${TRAIN_FLAGS:-}
FT_FLAGS=${FT_FLAGS:-}
mkdir -p "$OUT"
log() { echo "== $*" >&2; }
has_stage() { [[ " $STAGES " == *" $1 "* ]]; }
has_arm() { [[ " $ARMS " == *" $1 "* ]]; }
now() { date +%s; }
# Wall seconds of each long step, for the report.
timing() { printf '%s\t%s\n' "$1" "$2" >> "$OUT/timings.tsv"; }

# ---- data: corpora, labelled splits, tokenizers, packed datasets
task_domain() { case $1 in sms) echo sms ;; sci-cite | ncbi | bc5cdr) echo sci ;; *) echo "unknown task $1" >&2; exit 2 ;; esac; }
has_task() { [[ " $TASKS " == *" $1 "* ]]; }
uses_sci() { has_task sci-cite || has_task ncbi || has_task bc5cdr; }
ner_dir() { case $1 in ncbi) echo "$DATA/scibert/ner/NCBI-disease" ;; bc5cdr) echo "$DATA/scibert/ner/bc5cdr" ;; esac; }

make_task_files() {
  local t=$OUT/tasks
  mkdir -p "$t/sms" "$t/sci-cite"
  if [[ ! -s $t/sms/test.tsv ]]; then
    # SMSSpamCollection has no split: every 10th message (by line) is test, the next one valid.
    awk -F'\t' -v dir="$t/sms" 'BEGIN { OFS = "\t"
        print "label", "text" > (dir "/train.tsv.tmp"); print "label", "text" > (dir "/valid.tsv.tmp")
        print "label", "text" > (dir "/test.tsv.tmp") }
      { f = (NR % 10 == 0) ? "test" : (NR % 10 == 1) ? "valid" : "train"; print $1, $2 > (dir "/" f ".tsv.tmp") }' \
      "$DATA/sms_spam/SMSSpamCollection"
    for s in train valid test; do mv "$t/sms/$s.tsv.tmp" "$t/sms/$s.tsv"; done
  fi
  has_task sci-cite || return 0
  for s in train dev test; do
    local name=$s; [[ $s == dev ]] && name=valid
    [[ -s $t/sci-cite/$name.jsonl ]] || cp "$DATA/scibert/text_classification/sci-cite/$s.txt" "$t/sci-cite/$name.jsonl"
  done
}

make_corpora() {
  local c=$OUT/corpora
  mkdir -p "$c"
  if [[ ! -s $c/general.jsonl.zst ]]; then
    local max=()
    [[ $GENERAL_MAX_DOCS != 0 ]] && max=(--max-docs "$GENERAL_MAX_DOCS")
    "$B" corpus merge -q -i "$DATA/wikipedia_en_wikiextractor" -i "$DATA/nltk_gutenberg/*.txt" --doc-per paragraph \
      "${max[@]}" --dedup --shuffle --seed 34 --out "$c/general.jsonl.zst"
  fi
  if [[ ! -s $c/sms.jsonl.zst ]]; then
    tail -n +2 "$OUT/tasks/sms/train.tsv" | cut -f2 > "$c/sms-train.txt"
    "$B" corpus merge -q -i "$c/sms-train.txt" --dedup --shuffle --seed 34 --out "$c/sms.jsonl.zst"
  fi
  if uses_sci && [[ ! -s $c/sci.jsonl.zst ]]; then
    # CoNLL NER training files (one token per line, blank line between sentences) -> one sentence per
    # line; their dev/test sentences are the NER tasks' held-out text, never pre-trained on.
    awk -F'\t' 'NF == 0 { if (s != "") print s; s = ""; next } { s = s == "" ? $1 : s " " $1 } END { if (s != "") print s }' \
      "$DATA"/scibert/ner/*/train.txt > "$c/sci-ner.txt"
    local tc=$DATA/scibert/text_classification inputs=(-i "$c/sci-ner.txt") p
    for p in chemprot mag citation_intent sciie-relation-extraction sci-cite/train.txt; do
      [[ -e $tc/$p ]] && inputs+=(-i "$tc/$p")  # a smaller copy of the data (tests/fixtures) may lack some
    done
    "$B" corpus merge -q "${inputs[@]}" --format auto --text-field text --dedup --shuffle --seed 34 \
      --out "$c/sci.jsonl.zst"
  fi
}

make_tokenizer() {  # NAME CORPUS
  [[ -s $OUT/tokenizers/$1/tokenizer.json ]] && return 0
  "$B" tokenizer train -q -i "$2" --vocab-size "$VOCAB" --limit-alphabet 1000 --out "$OUT/tokenizers/$1"
}

make_dataset() {  # NAME CORPUS TOKENIZER
  [[ -s $OUT/datasets/$1/manifest.json ]] && return 0
  "$B" prepare -q -i "$2" --tokenizer "$OUT/tokenizers/$3" --seq-len "$SEQ_LEN" --valid-fraction 0.02 \
    --out "$OUT/datasets/$1" --overwrite
}

if has_stage data; then
  log "data: task splits, corpora, tokenizers ($VOCAB), datasets (seq $SEQ_LEN)"
  make_task_files
  make_corpora
  make_tokenizer general "$OUT/corpora/general.jsonl.zst"
  make_dataset general "$OUT/corpora/general.jsonl.zst" general
  for task in $TASKS; do
    d=$(task_domain "$task")
    make_tokenizer "$d" "$OUT/corpora/$d.jsonl.zst"
    make_dataset "$d" "$OUT/corpora/$d.jsonl.zst" "$d"                   # in-domain: own tokenizer
    make_dataset "$d-general-vocab" "$OUT/corpora/$d.jsonl.zst" general  # continued: the general one's
  done
  for d in "$OUT"/datasets/*; do
    "$B" data inspect "$d" --json 2>/dev/null | head -c 300 >&2 || true; echo >&2
  done
fi

# ---- pretrain: one MLM run per (arm, domain); the same steps x batch for each
pretrain() {  # NAME DATASET [extra train flags...]
  local name=$1 data=$2; shift 2
  local run=$OUT/pretrain/$name
  if ls -d "$run"/checkpoint-"$PRETRAIN_STEPS" >/dev/null 2>&1; then return 0; fi
  log "pretrain $name: $MODEL, $PRETRAIN_STEPS steps x $PRETRAIN_BATCH sequences on $data"
  local t0; t0=$(now)
  "$B" train --model "$MODEL" --data "$OUT/datasets/$data" --output-dir "$run" --max-steps "$PRETRAIN_STEPS" \
    --per-device-batch-size "$PRETRAIN_BATCH" --learning-rate "$PRETRAIN_LR" --warmup-steps $((PRETRAIN_STEPS / 10)) \
    --weight-decay 0.01 --logging-steps $((PRETRAIN_STEPS / 10 > 0 ? PRETRAIN_STEPS / 10 : 1)) --eval-max-batches 20 \
    --save-steps 0 --save-total-limit 1 --precision "$PRECISION" --threads "$THREADS" --resume auto $TRAIN_FLAGS "$@"
  timing "pretrain/$name" $(( $(now) - t0 ))
}
checkpoint_of() { echo "$OUT/pretrain/$1/checkpoint-$PRETRAIN_STEPS"; }

if has_stage pretrain; then
  has_arm general || has_arm continued && pretrain general general
  for task in $TASKS; do
    d=$(task_domain "$task")
    has_arm in-domain && pretrain "$d" "$d"
    has_arm continued && pretrain "$d-continued" "$d-general-vocab" --init-from "$(checkpoint_of general)"
  done
fi

# ---- finetune: every (task, arm, seed)
task_flags() {
  case $1 in
    sms) echo "--train $OUT/tasks/sms/train.tsv --valid $OUT/tasks/sms/valid.tsv --test $OUT/tasks/sms/test.tsv --text-field text --label-field label" ;;
    sci-cite) echo "--train $OUT/tasks/sci-cite/train.jsonl --valid $OUT/tasks/sci-cite/valid.jsonl --test $OUT/tasks/sci-cite/test.jsonl --text-field text --label-field label" ;;
    ncbi | bc5cdr) local d; d=$(ner_dir "$1")
      echo "--task token-classification --train $d/train.txt --valid $d/dev.txt --test $d/test.txt --metric-for-best f1" ;;
  esac
}
# A task's flags that override the common fine-tuning ones (given last: the last of a repeated flag wins).
# The best epoch: by macro-F1 (classification) or entity F1 (NER: --metric-for-best f1 above); NER
# sentences get 128 tokens (PubMed sentences are long; words cut off would not be scored).
task_overrides() { case $1 in ncbi | bc5cdr) echo "--max-seq-len $((FT_MAX_LEN > 128 ? FT_MAX_LEN : 128))" ;; *) echo "--metric-for-best macro_f1" ;; esac; }
arm_model_flags() {  # ARM TASK
  local d; d=$(task_domain "$2")
  case $1 in
    general) echo "--model $(checkpoint_of general)" ;;
    in-domain) echo "--model $(checkpoint_of "$d")" ;;
    continued) echo "--model $(checkpoint_of "$d-continued")" ;;
    scratch) echo "--model $MODEL --tokenizer $OUT/tokenizers/general" ;;
  esac
}

if has_stage finetune; then
  for task in $TASKS; do
    for arm in $ARMS; do
      for seed in $SEEDS; do
        dir=$OUT/finetune/$task/$arm/seed-$seed
        [[ -s $dir/results.json ]] && continue
        log "finetune $task / $arm / seed $seed"
        t0=$(now)
        # shellcheck disable=SC2046
        "$B" finetune $(arm_model_flags "$arm" "$task") $(task_flags "$task") --output-dir "$dir" --overwrite-output-dir \
          --epochs "$FT_EPOCHS" --learning-rate "$FT_LR" --per-device-batch-size "$FT_BATCH" --max-seq-len "$FT_MAX_LEN" \
          --warmup-ratio 0.1 --seed "$seed" $(task_overrides "$task") --precision "$PRECISION" --threads "$THREADS" --quiet $FT_FLAGS
        timing "finetune/$task/$arm/seed-$seed" $(( $(now) - t0 ))
      done
    done
  done
fi

# A NER task's Markdown table: per arm, the test entity F1, precision, recall and word accuracy as mean
# ± sample standard deviation over the seeds' results.json, and the mean valid entity F1.
ner_table() {
  local task=$1 arm r
  echo "| task | arm | seeds | test entity F1 | precision | recall | word accuracy | valid entity F1 (mean) |"
  echo "|---|---|---|---|---|---|---|---|"
  for arm in $ARMS; do
    for r in "$OUT"/finetune/"$task"/"$arm"/seed-*/results.json; do
      [[ -s $r ]] || continue
      awk 'function val() { v = $0; sub(/^[^:]*: */, "", v); sub(/,$/, "", v); return v }
        /^  "test_f1":/ { f = val() } /^  "test_precision":/ { p = val() } /^  "test_recall":/ { r = val() }
        /^  "test_accuracy":/ { a = val() } /^  "valid_f1":/ { v = val() }
        END { print f "\t" p "\t" r "\t" a "\t" v }' "$r"
    done | awk -F'\t' -v task="$task" -v arm="$arm" '
      { n++; for (i = 1; i <= 4; i++) { s[i] += $i; q[i] += $i * $i }; sv += $5 }
      function cell(i) { v = n > 1 ? (q[i] - s[i] * s[i] / n) / (n - 1) : 0
        return sprintf("%.4f ± %.4f", s[i] / n, v > 0 ? sqrt(v) : 0) }
      END { if (n) printf "| %s | %s | %d | %s | %s | %s | %s | %.4f |\n", task, arm, n, cell(1), cell(2), cell(3), cell(4), sv / n }'
  done
  echo
}

# ---- report: mean ± std over seeds of the test metrics of each arm's best (by valid macro-F1) model
if has_stage report; then
  {
    printf 'task\tarm\tseeds\ttest_accuracy_mean\ttest_accuracy_std\ttest_macro_f1_mean\ttest_macro_f1_std\tmajority_accuracy\tvalid_macro_f1_mean\ttest_entity_f1_mean\ttest_entity_f1_std\tvalid_entity_f1_mean\n'
    for task in $TASKS; do
      for arm in $ARMS; do
        for r in "$OUT"/finetune/"$task"/"$arm"/seed-*/results.json; do
          [[ -s $r ]] || continue
          # results.json (bertpt finetune) has flat keys for scripts, one per line.
          awk -v task="$task" -v arm="$arm" '
            function val() { v = $0; sub(/^[^:]*: */, "", v); sub(/,$/, "", v); return v }
            /^  "test_accuracy":/ { acc = val() } /^  "test_macro_f1":/ { f1 = val() }
            /^  "test_majority_accuracy":/ { maj = val() } /^  "valid_macro_f1":/ { vf1 = val() }
            /^  "test_f1":/ { ef1 = val() } /^  "valid_f1":/ { vef1 = val() }
            END { print task "\t" arm "\t" acc "\t" f1 "\t" maj "\t" vf1 "\t" ef1 "\t" vef1 }' "$r"
        done
      done
    done | awk -F'\t' '
      { k = $1 "\t" $2; if (!(k in n)) order[++m] = k; n[k]++; sa[k] += $3; qa[k] += $3 * $3; sf[k] += $4; qf[k] += $4 * $4; maj[k] = $5; sv[k] += $6
        se[k] += $7; qe[k] += $7 * $7; sve[k] += $8 }
      function sd(s, q, c) { v = c > 1 ? (q - s * s / c) / (c - 1) : 0; return v > 0 ? sqrt(v) : 0 }
      END { for (i = 1; i <= m; i++) { k = order[i]; c = n[k]
              printf "%s\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n", k, c, sa[k] / c, sd(sa[k], qa[k], c), sf[k] / c, sd(sf[k], qf[k], c), maj[k], sv[k] / c,
                se[k] / c, sd(se[k], qe[k], c), sve[k] / c } }'
  } > "$OUT/summary.tsv"
  log "summary ($OUT/summary.tsv; wall seconds per step in $OUT/timings.tsv)"
  column -t -s $'\t' "$OUT/summary.tsv" 2>/dev/null || cat "$OUT/summary.tsv"
  ner_tables=$(for task in $TASKS; do case $task in ncbi | bc5cdr) ner_table "$task" ;; esac; done)
  if [[ -n $ner_tables ]]; then
    printf '%s\n' "$ner_tables" > "$OUT/ner-tables.md"
    log "NER, test split, mean ± standard deviation over the seeds ($OUT/ner-tables.md, as in docs/domain-adaptation.md)"
    cat "$OUT/ner-tables.md"
  fi
fi
