#!/usr/bin/env bash
# Time to quality: what one wall-clock budget per arm buys on this machine, from the same raw corpus
# (writes docs/time-to-quality.md and docs/time-to-quality.png).
#
# Arms, each given BUDGET_MIN minutes of wall clock for tokenizer training + data preparation +
# pre-training (the common merged corpus and the held-out split are made once, outside the budget):
#   hf-bert            the guide's Hugging Face stack, as bench/peers/*.py run it: `tokenizers` WordPiece
#                      (train_new_from_iterator), `datasets` load/map(tokenize)/map(group_texts) into
#                      SEQ_LEN blocks, transformers Trainer + DataCollatorForLanguageModeling(0.15) +
#                      BertForMaskedLM(configs/MODEL.json)
#   bertpt-bert        the same recipe with bertpt: `tokenizer train`, `prepare`, `train --model MODEL`
#   bertpt-modernbert  bertpt's cheapest recipe in docs/recipes.md (the ModernBERT architecture, lowest
#                      held-out loss there): `train --model MODERN_MODEL`, on bertpt-bert's tokenizer and
#                      blocks (the same bytes: its data stages are charged bertpt-bert's measured times)
# One schedule rule for every arm: a short timed calibration run (CAL_STEPS steps) gives the seconds per
# step and the fixed cost of a run (start-up, saving); the main run gets --max-steps = what fills SAFETY
# of the budget left after the data stages and the calibration, with WARMUP_RATIO warmup and linear decay
# to 0 at --max-steps, so the schedule completes within the budget. The deadline is also a hard cap:
# bertpt train under `timeout -s INT` (it finishes the step, saves a checkpoint and exits), the Trainer
# with hf_train.py --time-limit (a TrainerCallback that stops it) and --save-final (save_pretrained).
# Then, for every arm: held-out MLM loss (`bertpt eval` on the held-out documents, prepared with the
# arm's own tokenizer) and `bertpt finetune` on each task of TASKS with each seed of SEEDS:
#   sst2          SST-2 (nlpdatasets_sentence_cls/SST2): train.tsv minus every 10th line -> train
#                 (first FT_TRAIN), every 10th line -> valid (first FT_VALID), dev.tsv -> test; accuracy
#   ncbi-disease  NCBI-disease NER (scibert/ner, CoNLL): train/dev/test.txt, the first FT_TRAIN / FT_VALID
#                 sentences of train/dev; entity-level F1 (`finetune --task token-classification`; skipped
#                 with a notice while `bertpt finetune --help` lacks --task)
#   sci-cite      SciCite citation intent (scibert/text_classification/sci-cite, JSONL): the first
#                 FT_TRAIN / FT_VALID lines of train/dev, test; macro-F1
# Every stage skips work whose output already exists, so a second run only redoes what is missing; what
# a redone stage feeds is redone too (a new corpus: everything; a pipeline's data: its arms; an arm's
# pre-training: its evaluation and fine-tuning). A changed knob redoes nothing by itself: delete what it
# affects (OUT/arms/ARM for pre-training, OUT/tasks and OUT/finetune for the FT_* knobs) or use a new OUT.
#
#   BUDGET_MIN (10) MODEL (bert-mini) MODERN_MODEL (modernbert-mini) SEQ_LEN (128) BATCH (32) LR (1e-3)
#   WARMUP_RATIO (0.1) WEIGHT_DECAY (0.01) VOCAB (8000) PRECISION (fp32; bf16 is slow on CPUs without
#   bf16 units) CAL_STEPS (15) SAFETY (0.95) HELDOUT_EVERY (50: every 50th document of the merged corpus
#   is held out)
#   TASKS ("sst2 ncbi-disease sci-cite") SEEDS ("1 2 3") FT_TRAIN (1000; 0: all) FT_VALID (500; 0: all)
#   FT_TEST (0: all) FT_EPOCHS (3) FT_LR (3e-4) FT_BATCH (32) FT_MAX_LEN (64) NER_MAX_LEN (128)
#   ARMS ("hf-bert bertpt-bert bertpt-modernbert") STAGES ("data pretrain eval finetune report")
#   THREADS (all cores) OUT (runs/time-to-quality) DOC (docs/time-to-quality.md, the PNG beside it;
#   "-": no report) DATA_DIR (../shared/data: the corpus, and the tasks unless TASK_DATA_DIR)
#   TASK_DATA_DIR BUILD_DIR (build) BERTPT PYTHON (.venv/bin/python: scripts/setup-test-peers)
# The defaults take about an hour on the 2-core machine (an estimate; not yet run in full): 3 x BUDGET_MIN
# of data stages and pre-training, 27 fine-tuning runs of roughly 40 s (18 while NER is skipped), ~2 min
# of corpus, held-out evaluation and report.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
B_SRC=${BERTPT:-${BUILD_DIR:-build}/bertpt}
PY=${PYTHON:-.venv/bin/python}
DATA=${DATA_DIR:-$(cd .. && pwd)/shared/data}
TASK_DATA=${TASK_DATA_DIR:-$DATA}
BUDGET_MIN=${BUDGET_MIN:-10}
MODEL=${MODEL:-bert-mini} MODERN_MODEL=${MODERN_MODEL:-modernbert-mini}
SEQ_LEN=${SEQ_LEN:-128} BATCH=${BATCH:-32} LR=${LR:-1e-3} WARMUP_RATIO=${WARMUP_RATIO:-0.1}
WEIGHT_DECAY=${WEIGHT_DECAY:-0.01} VOCAB=${VOCAB:-8000} PRECISION=${PRECISION:-fp32}
CAL_STEPS=${CAL_STEPS:-15} SAFETY=${SAFETY:-0.95} HELDOUT_EVERY=${HELDOUT_EVERY:-50}
TASKS=${TASKS:-sst2 ncbi-disease sci-cite} SEEDS=${SEEDS:-1 2 3}
FT_TRAIN=${FT_TRAIN:-1000} FT_VALID=${FT_VALID:-500} FT_TEST=${FT_TEST:-0}
FT_EPOCHS=${FT_EPOCHS:-3} FT_LR=${FT_LR:-3e-4} FT_BATCH=${FT_BATCH:-32} FT_MAX_LEN=${FT_MAX_LEN:-64}
NER_MAX_LEN=${NER_MAX_LEN:-128}
ARMS=${ARMS:-hf-bert bertpt-bert bertpt-modernbert}
STAGES=${STAGES:-data pretrain eval finetune report}
THREADS=${THREADS:-$(nproc)}
OUT=${OUT:-runs/time-to-quality} DOC=${DOC:-docs/time-to-quality.md}
BUDGET_SEC=$(awk -v m="$BUDGET_MIN" 'BEGIN { print m * 60 }')

log() { echo "== $*" >&2; }
die() { echo "bench/time-to-quality.sh: $*" >&2; exit 1; }
has_stage() { [[ " $STAGES " == *" $1 "* ]]; }
calc() { awk "BEGIN { print $* }"; }
now() { date +%s.%N; }
[[ -x $B_SRC ]] || die "no bertpt binary at $B_SRC (build it, or set BERTPT / BUILD_DIR)"
[[ -x $PY ]] || die "no Python at $PY (scripts/setup-test-peers makes .venv; or set PYTHON)"
"$PY" -c 'import torch, transformers, tokenizers, datasets, accelerate, PIL, scipy' 2>/dev/null ||
  die "$PY lacks torch/transformers/tokenizers/datasets/accelerate/pillow/scipy: run scripts/setup-test-peers"
for arm in $ARMS; do
  case $arm in hf-bert | bertpt-bert | bertpt-modernbert) ;; *) die "unknown arm '$arm'" ;; esac
done

mkdir -p "$OUT"/{bin,logs,commands}
OUT=$(cd "$OUT" && pwd)
# A snapshot of the binary: a rebuild of build/ during the run must not change (or break) it.
cp "$B_SRC" "$OUT/bin/bertpt"
B=$OUT/bin/bertpt
"$B" --version > /dev/null || die "the copy of $B_SRC does not run (was it being rebuilt? try again)"
# `bertpt finetune --task token-classification` (NER) is used where this binary has it.
NER=0
grep -q -- '--task' <<< "$("$B" finetune --help 2>/dev/null)" && NER=1

# The same threads everywhere; nothing from or to the hub; caches inside OUT.
export OMP_NUM_THREADS=$THREADS MKL_NUM_THREADS=$THREADS RAYON_NUM_THREADS=$THREADS TOKENIZERS_PARALLELISM=true
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HOME=$OUT/hf-home
export HF_DATASETS_DISABLE_PROGRESS_BARS=1 PYTHONWARNINGS=ignore

# timed NAME CMD...: runs CMD (stdout -> logs/NAME.out, stderr -> logs/NAME.err), writes the command
# line to commands/NAME (OUT and the repository root abbreviated) and prints its wall seconds. Exit
# statuses other than those in OK_RC (default 0) fail the script with the end of the log.
timed() {
  local name=$1; shift
  local s="" a rc=0 t0 t1
  for a in "$@"; do
    a=${a//$B/bertpt} a=${a//$OUT/OUT} a=${a//$ROOT\//}
    [[ $a =~ [[:space:]*?] ]] && a="'$a'"
    s+="${s:+ }$a"
  done
  echo "$s" > "$OUT/commands/$name"
  t0=$(now)
  "$@" > "$OUT/logs/$name.out" 2> "$OUT/logs/$name.err" || rc=$?
  t1=$(now)
  if [[ " ${OK_RC:-0} " != *" $rc "* ]]; then
    tail -n 30 "$OUT/logs/$name.err" >&2
    die "$name failed with status $rc (logs: $OUT/logs/$name.err)"
  fi
  calc "$t1 - $t0"
}

pipeline_of() { [[ $1 == hf-bert ]] && echo hf || echo bertpt; }
# forget_arm ARM: drops what was made from an arm's pre-trained model (held-out loss, fine-tuning).
forget_arm() { rm -rf "$OUT/arms/$1" "$OUT"/finetune/*/"$1"; }
# forget_pipeline P: drops what was made from a pipeline's tokenizer and blocks.
forget_pipeline() {
  local arm
  rm -rf "$OUT/heldout/$1"
  for arm in hf-bert bertpt-bert bertpt-modernbert; do
    [[ $(pipeline_of "$arm") == "$1" ]] && forget_arm "$arm"
  done
  return 0
}
needed_pipelines() {
  local p="" arm
  for arm in $ARMS; do
    [[ " $p " == *" $(pipeline_of "$arm") "* ]] || p+=" $(pipeline_of "$arm")"
  done
  echo $p
}

# ---- data: the merged corpus and its held-out documents (once, outside the budget), each pipeline's
# tokenizer and training blocks (timed, inside the budget), the fine-tuning tasks
make_corpus() {
  local c=$OUT/corpus
  [[ -s $c/train.jsonl && -s $c/heldout.jsonl ]] && return 0
  rm -rf "$c" "$OUT"/{hf,bertpt,heldout,arms,finetune}
  mkdir -p "$c"
  log "corpus: Wikipedia (WikiExtractor) + Gutenberg paragraphs from $DATA; every ${HELDOUT_EVERY}th document held out"
  timed corpus-merge "$B" corpus merge -i "$DATA/wikipedia_en_wikiextractor" -i "$DATA/nltk_gutenberg/*.txt" \
    --doc-per paragraph --dedup --shuffle --seed 34 --out "$c/all.jsonl" > "$c/merge.sec"
  # The merge is shuffled, so every Nth line is a random sample of documents.
  awk -v every="$HELDOUT_EVERY" -v dir="$c" \
    '{ print > (dir "/" (NR % every == 0 ? "heldout" : "train") ".jsonl.tmp") }' "$c/all.jsonl"
  mv "$c/heldout.jsonl.tmp" "$c/heldout.jsonl"
  mv "$c/train.jsonl.tmp" "$c/train.jsonl"
}

data_hf() {
  local d=$OUT/hf
  [[ -s $d/data.sec ]] && return 0
  log "data hf: tokenizers WordPiece ($VOCAB), datasets map into $SEQ_LEN-token blocks"
  rm -rf "$d" && mkdir -p "$d"
  forget_pipeline hf
  # One datasets cache for both steps, as one script of the guide's would have: the tokenizer step's
  # load_dataset makes the Arrow copy of the corpus that the prepare step's load_dataset reuses.
  timed hf-tokenizer "$PY" bench/peers/hf_tokenizer.py --corpus "$OUT/corpus/train.jsonl" --out "$d/tok" \
    --vocab-size "$VOCAB" --cache "$d/cache" --result "$d/tokenizer.json" > "$d/tokenizer.sec"
  timed hf-prepare "$PY" bench/peers/hf_prepare.py --corpus "$OUT/corpus/train.jsonl" --tokenizer "$d/tok" \
    --block "$SEQ_LEN" --num-proc "$THREADS" --cache "$d/cache" --save-to-disk "$d/blocks" \
    --result "$d/prepare.json" > "$d/data.sec.tmp"
  mv "$d/data.sec.tmp" "$d/data.sec"
}

data_bertpt() {
  local d=$OUT/bertpt
  [[ -s $d/data.sec ]] && return 0
  log "data bertpt: tokenizer train ($VOCAB), prepare into $SEQ_LEN-token blocks"
  rm -rf "$d" && mkdir -p "$d"
  forget_pipeline bertpt
  timed bertpt-tokenizer "$B" tokenizer train -q -i "$OUT/corpus/train.jsonl" --vocab-size "$VOCAB" \
    --threads "$THREADS" --out "$d/tok" > "$d/tokenizer.sec"
  timed bertpt-prepare "$B" prepare -q -i "$OUT/corpus/train.jsonl" -t "$d/tok" --seq-len "$SEQ_LEN" \
    --valid-fraction 0 --threads "$THREADS" --out "$d/data" --json > "$d/data.sec.tmp"
  mv "$d/data.sec.tmp" "$d/data.sec"
}

# head_n N FILE: the first N lines (all for 0).
head_n() { if [[ $1 == 0 ]]; then cat "$2"; else head -n "$1" "$2"; fi; }
# conll_head N FILE: the first N sentences (blank-line separated; all for 0).
conll_head() { awk -v n="$1" 'n && k >= n { exit } { print } NF == 0 { k++ }' "$2"; }

# The first FT_TRAIN / FT_VALID / FT_TEST records (HEAD: head_n lines, conll_head sentences) of SRC's
# train.txt / dev.txt / test.txt into DST/{train,valid,test}.EXT; test last, written whole then renamed
# (its presence marks the task done).
cut_splits() {  # HEAD SRC DST EXT
  "$1" "$FT_TRAIN" "$2/train.txt" > "$3/train.$4"
  "$1" "$FT_VALID" "$2/dev.txt" > "$3/valid.$4"
  "$1" "$FT_TEST" "$2/test.txt" > "$3/test.$4.tmp"
  mv "$3/test.$4.tmp" "$3/test.$4"
}

make_tasks() {
  local t=$OUT/tasks task src
  for task in $TASKS; do
    mkdir -p "$t/$task"
    case $task in
      sst2)
        [[ -s $t/sst2/test.tsv ]] && continue
        src=$TASK_DATA/nlpdatasets_sentence_cls/SST2
        [[ -s $src/train.tsv ]] || die "no $src/train.tsv (TASK_DATA_DIR)"
        # label<TAB>sentence without a header -> a header, so the fields go by name.
        awk -F'\t' -v dir="$t/sst2" -v ntrain="$FT_TRAIN" -v nvalid="$FT_VALID" 'BEGIN { OFS = "\t"
            print "label", "text" > (dir "/train.tsv"); print "label", "text" > (dir "/valid.tsv") }
          NR % 10 == 0 { if (!nvalid || v < nvalid) { print $1, $2 > (dir "/valid.tsv"); v++ } next }
          !ntrain || n < ntrain { print $1, $2 > (dir "/train.tsv"); n++ }' "$src/train.tsv"
        { printf 'label\ttext\n'; head_n "$FT_TEST" "$src/dev.tsv"; } > "$t/sst2/test.tsv.tmp"
        mv "$t/sst2/test.tsv.tmp" "$t/sst2/test.tsv"
        ;;
      ncbi-disease)
        [[ -s $t/ncbi-disease/test.txt ]] && continue
        src=$TASK_DATA/scibert/ner/NCBI-disease
        [[ -s $src/train.txt ]] || die "no $src/train.txt (TASK_DATA_DIR)"
        cut_splits conll_head "$src" "$t/ncbi-disease" txt
        ;;
      sci-cite)
        [[ -s $t/sci-cite/test.jsonl ]] && continue
        src=$TASK_DATA/scibert/text_classification/sci-cite
        [[ -s $src/train.txt ]] || die "no $src/train.txt (TASK_DATA_DIR)"
        cut_splits head_n "$src" "$t/sci-cite" jsonl
        ;;
      *) die "unknown task '$task' (sst2, ncbi-disease, sci-cite)" ;;
    esac
  done
}

if has_stage data; then
  make_corpus
  for p in $(needed_pipelines); do "data_$p"; done
  make_tasks
fi

# ---- pretrain: per arm, a calibration run, then the main run with the steps that fill the budget left
hf_config() { if [[ -f $MODEL ]]; then echo "$MODEL"; else echo "configs/$MODEL.json"; fi; }

# train_run ARM NAME DIR STEPS LIMIT_SEC LOGGING_STEPS: one pre-training run of ARM into DIR; prints its
# wall seconds.
train_run() {
  local arm=$1 name=$2 dir=$3 steps=$4 limit=$5 logging=$6 warm model
  warm=$(awk -v s="$steps" -v r="$WARMUP_RATIO" 'BEGIN { printf "%d", s * r + 0.5 }')
  if [[ $arm == hf-bert ]]; then
    timed "$arm-$name" "$PY" bench/peers/hf_train.py --hf-data "$OUT/hf/blocks" --tokenizer "$OUT/hf/tok" \
      --config "$(hf_config)" --output-dir "$dir" --precision "$PRECISION" --threads "$THREADS" --batch "$BATCH" \
      --max-steps "$steps" --warmup-steps "$warm" --learning-rate "$LR" --weight-decay "$WEIGHT_DECAY" \
      --logging-steps "$logging" --no-checkpoint --time-limit "$limit" --save-final "$dir/final" \
      --result "$dir/result.json"
  else
    model=$MODEL
    [[ $arm == bertpt-modernbert ]] && model=$MODERN_MODEL
    OK_RC="0 124" timed "$arm-$name" timeout -s INT -k 120 "$limit" "$B" train --model "$model" \
      --data "$OUT/bertpt/data" --output-dir "$dir" --max-steps "$steps" --warmup-steps "$warm" \
      --per-device-batch-size "$BATCH" --learning-rate "$LR" --weight-decay "$WEIGHT_DECAY" \
      --logging-steps "$logging" --save-steps 0 --save-total-limit 1 --precision "$PRECISION" \
      --threads "$THREADS" --report-to none --json
    cp "$OUT/logs/$arm-$name.out" "$dir/summary.json"
  fi
}

pretrain() {  # ARM
  local arm=$1 d=$OUT/arms/$1 p spent left cal steps logging
  [[ -s $d/pretrain.sec ]] && return 0
  p=$(pipeline_of "$arm")
  [[ -s $OUT/$p/data.sec ]] || die "$arm: no data stage output in $OUT/$p (run STAGES=data first)"
  forget_arm "$arm"
  mkdir -p "$d"
  cp "$OUT/$p/tokenizer.sec" "$d/tokenizer.sec"
  cp "$OUT/$p/data.sec" "$d/data.sec"
  spent=$(calc "$(cat "$d/tokenizer.sec") + $(cat "$d/data.sec")")
  left=$(calc "$BUDGET_SEC - $spent")
  awk -v l="$left" 'BEGIN { exit !(l > 0) }' || die "$arm: the data stages took ${spent} s, the whole budget"
  cut -d' ' -f1-3 /proc/loadavg > "$d/load_start.txt"
  log "pretrain $arm: calibration, $CAL_STEPS steps ($spent s of ${BUDGET_SEC} s spent on the data stages)"
  cal=$(train_run "$arm" calibration "$d/calibration" "$CAL_STEPS" "$left" 1)
  echo "$cal" > "$d/calibration.sec"
  left=$(calc "$left - $cal")
  steps=$("$PY" bench/time_to_quality_report.py plan --arm "$arm" --calibration "$d/calibration" \
    --wall "$cal" --left "$left" --safety "$SAFETY" --out "$d/plan.json")
  logging=$((steps / 40 > 0 ? steps / 40 : 1))
  log "pretrain $arm: $steps steps in the ${left} s left"
  train_run "$arm" run "$d/run" "$steps" "$left" "$logging" > "$d/pretrain.sec.tmp"
  cut -d' ' -f1-3 /proc/loadavg > "$d/load_end.txt"
  mv "$d/pretrain.sec.tmp" "$d/pretrain.sec"
}

if has_stage pretrain; then
  for arm in $ARMS; do pretrain "$arm"; done
fi

# The pre-trained model of an arm: the Trainer's save_pretrained directory, or bertpt's last complete
# checkpoint (at --max-steps, or where the hard cap stopped the run).
checkpoint_of() {
  local run=$OUT/arms/$1/run c
  if [[ $1 == hf-bert ]]; then echo "$run/final"; return 0; fi
  c=$(ls -d "$run"/checkpoint-* 2>/dev/null | sort -t- -k2 -n | tail -n 1)
  [[ -n $c && -e $c/DONE ]] || die "$1: no complete checkpoint in $run"
  echo "$c"
}

# ---- eval: held-out MLM loss, each arm on the held-out documents in its own tokenizer's blocks
if has_stage eval; then
  for p in $(needed_pipelines); do
    h=$OUT/heldout/$p
    [[ -s $h/manifest.json ]] && continue
    tok=$OUT/$p/tok
    timed "heldout-$p" "$B" prepare -q -i "$OUT/corpus/heldout.jsonl" -t "$tok" --seq-len "$SEQ_LEN" \
      --valid-fraction 0 --threads "$THREADS" --out "$h" --overwrite > /dev/null
  done
  for arm in $ARMS; do
    e=$OUT/arms/$arm/heldout.json
    [[ -s $e ]] && continue
    log "eval $arm: held-out MLM loss"
    ckpt=$(checkpoint_of "$arm")
    timed "eval-$arm" "$B" eval --model "$ckpt" --data "$OUT/heldout/$(pipeline_of "$arm")" --split train \
      --threads "$THREADS" --json -q > /dev/null
    cp "$OUT/logs/eval-$arm.out" "$e"
  done
fi

# ---- finetune: every (task, arm, seed) with the same fine-tuner
task_flags() {
  local t=$OUT/tasks/$1
  case $1 in
    sst2) echo "--train $t/train.tsv --valid $t/valid.tsv --test $t/test.tsv --text-field text --label-field label
      --metric-for-best accuracy --max-seq-len $FT_MAX_LEN" ;;
    ncbi-disease) echo "--task token-classification --train $t/train.txt --valid $t/valid.txt --test $t/test.txt
      --max-seq-len $NER_MAX_LEN" ;;
    sci-cite) echo "--train $t/train.jsonl --valid $t/valid.jsonl --test $t/test.jsonl --text-field text
      --label-field label --metric-for-best macro_f1 --max-seq-len $FT_MAX_LEN" ;;
  esac
}

if has_stage finetune; then
  for task in $TASKS; do
    if [[ $task == ncbi-disease && $NER == 0 ]]; then
      echo "bench/time-to-quality.sh: skipping ncbi-disease: this bertpt has no 'finetune --task' (token" \
        "classification) yet; rerun once it has (finished tasks are kept)" >&2
      continue
    fi
    for arm in $ARMS; do
      ckpt=$(checkpoint_of "$arm")
      for seed in $SEEDS; do
        dir=$OUT/finetune/$task/$arm/seed-$seed
        [[ -s $dir/results.json ]] && continue
        log "finetune $task / $arm / seed $seed"
        # shellcheck disable=SC2046
        timed "finetune-$task-$arm-$seed" "$B" finetune --model "$ckpt" $(task_flags "$task") --output-dir "$dir" \
          --overwrite-output-dir --epochs "$FT_EPOCHS" --learning-rate "$FT_LR" --per-device-batch-size "$FT_BATCH" \
          --warmup-ratio 0.1 --seed "$seed" --precision "$PRECISION" --threads "$THREADS" --report-to none --quiet \
          > "$OUT/logs/finetune-$task-$arm-$seed.sec"
      done
    done
  done
fi

# ---- report
if has_stage report && [[ $DOC != - ]]; then
  "$PY" - "$OUT/settings.json" BUDGET_MIN "$BUDGET_MIN" MODEL "$MODEL" MODERN_MODEL "$MODERN_MODEL" \
    SEQ_LEN "$SEQ_LEN" BATCH "$BATCH" LR "$LR" WARMUP_RATIO "$WARMUP_RATIO" WEIGHT_DECAY "$WEIGHT_DECAY" \
    VOCAB "$VOCAB" PRECISION "$PRECISION" CAL_STEPS "$CAL_STEPS" SAFETY "$SAFETY" HELDOUT_EVERY "$HELDOUT_EVERY" \
    TASKS "$TASKS" SEEDS "$SEEDS" FT_TRAIN "$FT_TRAIN" FT_VALID "$FT_VALID" FT_TEST "$FT_TEST" \
    FT_EPOCHS "$FT_EPOCHS" FT_LR "$FT_LR" FT_BATCH "$FT_BATCH" FT_MAX_LEN "$FT_MAX_LEN" NER_MAX_LEN "$NER_MAX_LEN" \
    ARMS "$ARMS" THREADS "$THREADS" NER "$NER" DATA_DIR "$DATA" TASK_DATA_DIR "$TASK_DATA" <<'PY'
import json, sys
a = sys.argv[2:]
json.dump(dict(zip(a[::2], a[1::2])), open(sys.argv[1], "w"), indent=1)
PY
  cmd="bench/time-to-quality.sh (BUDGET_MIN=$BUDGET_MIN MODEL=$MODEL MODERN_MODEL=$MODERN_MODEL SEQ_LEN=$SEQ_LEN"
  cmd+=" BATCH=$BATCH LR=$LR VOCAB=$VOCAB PRECISION=$PRECISION SEEDS='$SEEDS' FT_TRAIN=$FT_TRAIN FT_EPOCHS=$FT_EPOCHS"
  cmd+=" FT_LR=$FT_LR THREADS=$THREADS)"
  "$PY" bench/time_to_quality_report.py report --out "$OUT" --doc "$DOC" --png "${DOC%.md}.png" --bertpt "$B" \
    --command "$cmd"
  log "wrote $DOC and ${DOC%.md}.png"
fi
