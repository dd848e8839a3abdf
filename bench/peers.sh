#!/usr/bin/env bash
# bertpt against the Hugging Face Python stack (transformers, tokenizers, datasets, torch: the
# versions pinned in requirements/hf-peer.txt, in .venv), side by side in one run: same input, same
# machine, same threads. Writes docs/peers.md itself (never edit it by hand): the tables, the exact
# commands, the versions, the machine and the date.
#
# Rows (each measured on both sides in this run; bench/peers/*.py are the HF sides):
#   1. tokenizer training, vocab 32,000: the guide's train_new_from_iterator vs `bertpt tokenizer train`
#   2. dataset preparation at 512: the guide's datasets recipe (load_dataset -> map(tokenize,
#      num_proc) -> map(group_texts)), with the guide's truncation and without it (run_mlm.py), vs
#      `bertpt prepare --packing guide` and `bertpt prepare` (concat)
#   3. training, seq 128, batch 32: Trainer + DataCollatorForLanguageModeling vs `bertpt train`,
#      bert-mini and bert-small, fp32 and bf16, on the same packed blocks (bertpt's prepared
#      dataset, which the HF side memory-maps); beside the stock HF arm, the peer's best
#      configuration: the MLM head on the masked rows only, eager and with torch.compile
#      (hf_train.py --sparse-head [--compile]; training only); then evaluation (trainer.evaluate vs
#      `bertpt eval`); and run-to-run noise: bert-mini bf16 once more on each side with another seed
#   4. resume: from process start to the first new step, Trainer(resume_from_checkpoint) vs
#      `bertpt train --resume auto`
#   5. the pipeline raw text -> trained bert-mini (tokenizer + prepare + K steps), end to end
#
# Usage: bench/peers.sh [--size tiny|small|full] [--out DIR] [--threads N] [--doc FILE]
#   --size small (default): the Wikipedia JSONL sample (5.7 MB); ~55 min on 2 cores with bf16 units
#     (avx512_bf16 or amx_bf16); without them LibTorch's bf16 matmuls run scalar code on both sides
#     and the bf16 runs take hours
#   --size full: all 24 WikiExtractor files (~24 MB) and 10x the training steps; hours
#   --size tiny: 300 documents, a few steps: checks that the script works (writes OUT/peers.md)
#   --out DIR: everything the run makes (default runs/peers-SIZE): results/*.json, logs/, the
#     tokenizers, datasets, the HF Trainer and bertpt run directories (loss curves: the HF runs'
#     trainer_state.json next to bertpt's metrics.jsonl), plots
#   --doc FILE: where the Markdown goes (default docs/peers.md; OUT/peers.md for --size tiny)
# Environment: BERTPT_BIN (default build/bertpt), PYTHON (default .venv/bin/python, with the packages
# of requirements/hf-peer.txt: scripts/setup-test-peers). Nothing reaches the Hugging Face hub.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BERTPT_BIN:-$ROOT/build/bertpt}
PY=${PYTHON:-$ROOT/.venv/bin/python}
HERE=$ROOT/bench/peers
DATA=/work/shared/data
[[ -d $DATA ]] || DATA=$ROOT/../shared/data

SIZE=small OUT="" THREADS=$(nproc) DOC=""
while (($#)); do
  case $1 in
    --size) SIZE=$2; shift 2 ;;
    --size=*) SIZE=${1#*=}; shift ;;
    --out) OUT=$2; shift 2 ;;
    --out=*) OUT=${1#*=}; shift ;;
    --threads) THREADS=$2; shift 2 ;;
    --threads=*) THREADS=${1#*=}; shift ;;
    --doc) DOC=$2; shift 2 ;;
    --doc=*) DOC=${1#*=}; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/peers.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

die() { echo "bench/peers.sh: $*" >&2; exit 1; }
[[ -x $BIN ]] || die "no bertpt binary at $BIN (build it, or set BERTPT_BIN)"
[[ -x $PY ]] || die "no Python at $PY (scripts/setup-test-peers makes .venv; or set PYTHON)"
"$PY" -c 'import torch, transformers, tokenizers, datasets, accelerate, psutil, numpy' 2>/dev/null ||
  die "$PY lacks torch/transformers/tokenizers/datasets/accelerate/psutil: run scripts/setup-test-peers"
[[ $THREADS =~ ^[1-9][0-9]*$ ]] || die "--threads must be a positive integer"

# Sizes: corpus, training steps per model, the pipeline's steps, the valid share of the training data.
case $SIZE in
  tiny) STEPS_MINI=6 STEPS_SMALL=4 STEPS_PIPE=4 VALID=0.05 ;;
  small) STEPS_MINI=40 STEPS_SMALL=10 STEPS_PIPE=30 VALID=0.02 ;;
  full) STEPS_MINI=400 STEPS_SMALL=100 STEPS_PIPE=400 VALID=0.01 ;;
  *) die "--size must be tiny, small or full" ;;
esac
OUT=${OUT:-$ROOT/runs/peers-$SIZE}
if [[ -z $DOC ]]; then
  if [[ $SIZE == tiny ]]; then DOC=$OUT/peers.md; else DOC=$ROOT/docs/peers.md; fi
fi
VOCAB=32000 BATCH=32 SEQ=128 LR=5e-4 WD=0.01
SEED2=35 # row 3's second seed (the first is both sides' default, 34)

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# A fresh run every time: the datasets caches must be cold (load_dataset is part of the measured work).
rm -rf "$OUT"/{results,logs,cache,tok-*,prep-*,data128,train,resume,pipe-*,plots,hf-home,bin}
mkdir -p "$OUT"/{results,logs,cache,train,resume,plots}
R=$OUT/results

# A snapshot of the binary: a rebuild of build/ during the run must not change (or break) it.
BIN_SHOWN=${BIN#"$ROOT"/}
mkdir -p "$OUT/bin"
cp "$BIN" "$OUT/bin/bertpt"
BIN=$OUT/bin/bertpt
"$BIN" --version > /dev/null || die "the copy of $BIN_SHOWN does not run (was it being rebuilt? try again)"
REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$ROOT" diff --quiet HEAD -- src CMakeLists.txt 2>/dev/null || REV+=" with uncommitted changes to src/"
echo "$REV" > "$R/bertpt_rev.txt"

# The same threads everywhere; nothing from or to the hub; caches inside OUT.
export OMP_NUM_THREADS=$THREADS MKL_NUM_THREADS=$THREADS RAYON_NUM_THREADS=$THREADS TOKENIZERS_PARALLELISM=true
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HOME=$OUT/hf-home
export HF_DATASETS_DISABLE_PROGRESS_BARS=1 PYTHONWARNINGS=ignore
# torch.compile's kernel cache starts empty too: the compiled arm's first step always compiles.
export TORCHINDUCTOR_CACHE_DIR=$OUT/cache/inductor

grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo ||
  echo "bench/peers.sh: this CPU has no bf16 units (avx512_bf16, amx_bf16): the bf16 runs will be very slow" >&2
T_BEGIN=$(date +%s)
echo "$(date -u '+%F %T') start: size $SIZE, threads $THREADS, out $OUT, load $(cut -d' ' -f1-3 /proc/loadavg)"
cut -d' ' -f1-3 /proc/loadavg > "$R/load_start.txt"

# --- the corpus: one JSONL file in the HF wikipedia row shape, read by both sides
CORPUS=$OUT/corpus.jsonl
case $SIZE in
  tiny) head -n 300 "$DATA/wikipedia_en_jsonl_derived/wiki_00.jsonl" > "$CORPUS" ;;
  small) cat "$DATA"/wikipedia_en_jsonl_derived/wiki_0*.jsonl > "$CORPUS" ;;
  full) "$PY" "$HERE/wikiextractor_to_jsonl.py" "$CORPUS" "$DATA"/wikipedia_en_wikiextractor/text/AA/wiki_* 2>/dev/null ;;
esac
[[ -s $CORPUS ]] || die "empty corpus $CORPUS (is $DATA there?)"

# A command as the docs show it: OUT and the repository root abbreviated.
show() {
  local s="" a
  for a in "$@"; do
    a=${a//$BIN/$BIN_SHOWN} a=${a//$OUT/OUT} a=${a//$ROOT\//}
    [[ $a =~ [[:space:]] ]] && a="'$a'"
    s+="${s:+ }$a"
  done
  echo "$s"
}

# m NAME [measure.py options] -- CMD...: run CMD under bench/peers/measure.py (wall time, peak
# memory) -> results/NAME.measure.json, stdout+stderr -> logs/NAME.log; the command line ->
# results/commands.tsv. Fails the script with the log's tail when the command fails.
m() {
  local name=$1; shift
  local opts=()
  while [[ $1 != -- ]]; do opts+=("$1"); shift; done
  shift
  printf '%s\t%s\n' "$name" "$(show "$@")" >> "$R/commands.tsv"
  printf '  %-38s' "$name"
  if ! "$PY" "$HERE/measure.py" --result "$R/$name.measure.json" "${opts[@]}" -- "$@" > "$OUT/logs/$name.log" 2>&1; then
    echo "FAILED"
    tail -n 30 "$OUT/logs/$name.log" >&2
    die "$name failed (log: $OUT/logs/$name.log)"
  fi
  "$PY" - "$R/$name.measure.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
first = j.get("first_step_sec")
print(f"{j['wall_sec']:8.1f} s  {j['peak_mem_bytes'] / 2**20:7.0f} MiB" + (f"  first new step after {first:.1f} s" if first else ""))
PY
}
# bertpt's --json summary is the last line of its stdout (progress goes to stderr).
json_of() { grep '^{' "$OUT/logs/$1.log" | tail -n 1 > "$R/$1.json" || die "$1: no JSON summary in logs/$1.log"; }

# --- 1. tokenizer training
echo "1. tokenizer training (vocab $VOCAB)"
m tok_hf -- "$PY" "$HERE/hf_tokenizer.py" --corpus "$CORPUS" --out "$OUT/tok-hf" --vocab-size "$VOCAB" \
  --cache "$OUT/cache/tok" --result "$R/tok_hf.json"
m tok_bertpt -- "$BIN" tokenizer train -i "$CORPUS" --vocab-size "$VOCAB" --threads "$THREADS" --out "$OUT/tok-bertpt" --json --quiet
json_of tok_bertpt

# --- 2. dataset preparation at 512, with HF's tokenizer on both sides
echo "2. dataset preparation (seq 512, tokenizer of row 1's HF side)"
m prep_hf_guide -- "$PY" "$HERE/hf_prepare.py" --corpus "$CORPUS" --tokenizer "$OUT/tok-hf" --block 512 --truncate \
  --num-proc "$THREADS" --cache "$OUT/cache/prep-guide" --result "$R/prep_hf_guide.json"
m prep_bertpt_guide -- "$BIN" prepare -i "$CORPUS" -t "$OUT/tok-hf" --seq-len 512 --packing guide --valid-fraction 0 \
  --threads "$THREADS" -o "$OUT/prep-bertpt-guide" --json --quiet
json_of prep_bertpt_guide
m prep_hf_runmlm -- "$PY" "$HERE/hf_prepare.py" --corpus "$CORPUS" --tokenizer "$OUT/tok-hf" --block 512 \
  --num-proc "$THREADS" --cache "$OUT/cache/prep-runmlm" --result "$R/prep_hf_runmlm.json"
m prep_bertpt_concat -- "$BIN" prepare -i "$CORPUS" -t "$OUT/tok-hf" --seq-len 512 --valid-fraction 0 \
  --threads "$THREADS" -o "$OUT/prep-bertpt-concat" --json --quiet
json_of prep_bertpt_concat
for d in cache/prep-guide cache/prep-runmlm prep-bertpt-guide prep-bertpt-concat; do
  printf '%s\t%s\n' "$d" "$(du -sb "$OUT/$d" | cut -f1)"
done > "$R/disk_bytes.tsv"

# --- 3. training + eval, on bertpt's packed blocks at seq 128 (bertpt's tokenizer of row 1)
echo "3. training (seq $SEQ, batch $BATCH, $THREADS threads) and evaluation"
"$BIN" prepare -i "$CORPUS" -t "$OUT/tok-bertpt" --seq-len "$SEQ" --valid-fraction "$VALID" --threads "$THREADS" \
  -o "$OUT/data128" --quiet
printf '%s\t%s\n' data128 "$(show "$BIN" prepare -i "$CORPUS" -t "$OUT/tok-bertpt" --seq-len "$SEQ" --valid-fraction "$VALID" \
  --threads "$THREADS" -o "$OUT/data128")" >> "$R/commands.tsv"
for model in bert-mini bert-small; do
  steps=$STEPS_MINI
  [[ $model == bert-small ]] && steps=$STEPS_SMALL
  log=$((steps / 10)) half=$((steps / 2)) warm=$((steps / 10))
  ((log >= 1)) || log=1
  for prec in fp32 bf16; do
    tag=${model#bert-}_$prec
    m "train_hf_$tag" -- "$PY" "$HERE/hf_train.py" --bertpt-data "$OUT/data128" --config "$ROOT/configs/$model.json" \
      --output-dir "$OUT/train/hf-$tag" --precision "$prec" --threads "$THREADS" --batch "$BATCH" --max-steps "$steps" \
      --warmup-steps "$warm" --learning-rate "$LR" --weight-decay "$WD" --logging-steps "$log" --save-steps "$half" \
      --eval --result "$R/train_hf_$tag.json"
    # The peer's best configuration: the same run with the sparse head, eager and compiled (no eval).
    for arm in sparse sparse_compiled; do
      flags=(--sparse-head)
      [[ $arm == sparse_compiled ]] && flags+=(--compile)
      m "train_hf_${arm}_$tag" -- "$PY" "$HERE/hf_train.py" --bertpt-data "$OUT/data128" --config "$ROOT/configs/$model.json" \
        --output-dir "$OUT/train/hf-${arm}-$tag" --precision "$prec" --threads "$THREADS" --batch "$BATCH" \
        --max-steps "$steps" --warmup-steps "$warm" --learning-rate "$LR" --weight-decay "$WD" --logging-steps "$log" \
        --save-steps "$half" "${flags[@]}" --result "$R/train_hf_${arm}_$tag.json"
    done
    m "train_bertpt_$tag" -- "$BIN" train --data "$OUT/data128" --model "$model" --output-dir "$OUT/train/bertpt-$tag" \
      --precision "$prec" --threads "$THREADS" --per-device-batch-size "$BATCH" --max-steps "$steps" \
      --warmup-steps "$warm" --learning-rate "$LR" --weight-decay "$WD" --logging-steps "$log" --save-steps "$half" \
      --json
    json_of "train_bertpt_$tag"
    m "eval_bertpt_$tag" -- "$BIN" eval --model "$OUT/train/bertpt-$tag/checkpoint-$steps" --data "$OUT/data128" \
      --precision "$prec" --threads "$THREADS" --batch-size "$BATCH" --json --quiet
    json_of "eval_bertpt_$tag"
  done
done

# Run-to-run noise: the bert-mini bf16 runs again with seed $SEED2 (other initial weights, sample
# order, masks and dropout), to set the gap between the two sides' loss curves against the gap
# between two seeds of one side. Only their training losses are read: no mid-run checkpoint, no
# HF evaluation (bertpt evaluates at the end whenever there is a held-out split: one batch of it).
echo "   run-to-run noise: bert-mini bf16 again with seed $SEED2"
log=$((STEPS_MINI / 10)) warm=$((STEPS_MINI / 10))
((log >= 1)) || log=1
tag=mini_bf16_seed$SEED2
m "train_hf_$tag" -- "$PY" "$HERE/hf_train.py" --bertpt-data "$OUT/data128" --config "$ROOT/configs/bert-mini.json" \
  --output-dir "$OUT/train/hf-$tag" --precision bf16 --threads "$THREADS" --batch "$BATCH" --max-steps "$STEPS_MINI" \
  --warmup-steps "$warm" --learning-rate "$LR" --weight-decay "$WD" --logging-steps "$log" --no-checkpoint \
  --seed "$SEED2" --result "$R/train_hf_$tag.json"
m "train_bertpt_$tag" -- "$BIN" train --data "$OUT/data128" --model bert-mini --output-dir "$OUT/train/bertpt-$tag" \
  --precision bf16 --threads "$THREADS" --per-device-batch-size "$BATCH" --max-steps "$STEPS_MINI" \
  --warmup-steps "$warm" --learning-rate "$LR" --weight-decay "$WD" --logging-steps "$log" --save-steps 0 \
  --eval-max-batches 1 --seed "$SEED2" --json
json_of "train_bertpt_$tag"

# --- 4. resume at the middle checkpoint of the bert-mini bf16 runs (copies; the final checkpoint
# removed, as after a crash in the second half), timed until the first new step is recorded; the
# process is then killed.
echo "4. resume (bert-mini bf16, from step $((STEPS_MINI / 2)))"
half=$((STEPS_MINI / 2)) warm=$((STEPS_MINI / 10)) log=$((STEPS_MINI / 10))
((log >= 1)) || log=1
cp -r "$OUT/train/hf-mini_bf16" "$OUT/resume/hf" && rm -rf "$OUT/resume/hf/checkpoint-$STEPS_MINI"
cp -r "$OUT/train/bertpt-mini_bf16" "$OUT/resume/bertpt" && rm -rf "$OUT/resume/bertpt/checkpoint-$STEPS_MINI"
[[ -d $OUT/resume/hf/checkpoint-$half && -d $OUT/resume/bertpt/checkpoint-$half ]] || die "no checkpoint-$half to resume from"
# bertpt drops metrics.jsonl records after the checkpoint on resume; do it beforehand so that the
# watch below cannot see the old run's records.
"$PY" -c 'import json,sys; p=sys.argv[1]; n=int(sys.argv[2]); L=[l for l in open(p) if json.loads(l).get("step",0)<=n]; open(p,"w").writelines(L)' \
  "$OUT/resume/bertpt/metrics.jsonl" "$half"
m resume_hf --watch "$OUT/resume/hf-marker.jsonl" --after-step "$half" --kill -- "$PY" "$HERE/hf_train.py" \
  --bertpt-data "$OUT/data128" --config "$ROOT/configs/bert-mini.json" --output-dir "$OUT/resume/hf" --precision bf16 \
  --threads "$THREADS" --batch "$BATCH" --max-steps "$STEPS_MINI" --warmup-steps "$warm" --learning-rate "$LR" \
  --weight-decay "$WD" --logging-steps "$log" --save-steps "$half" --resume --marker "$OUT/resume/hf-marker.jsonl" \
  --result "$R/resume_hf.json"
m resume_bertpt --watch "$OUT/resume/bertpt/metrics.jsonl" --after-step "$half" --kill -- "$BIN" train \
  --data "$OUT/data128" --model bert-mini --output-dir "$OUT/resume/bertpt" --resume auto --precision bf16 \
  --threads "$THREADS" --per-device-batch-size "$BATCH" --max-steps "$STEPS_MINI" --warmup-steps "$warm" \
  --learning-rate "$LR" --weight-decay "$WD" --logging-steps 1 --save-steps "$half"

# --- 5. the pipeline, raw text -> trained bert-mini (bf16, K steps, a saved checkpoint), each side
# with its own tokenizer and its own prepared blocks at seq 128 (HF: run_mlm.py's recipe, saved
# with save_to_disk; bertpt: prepare, concat)
echo "5. pipeline: raw text -> bert-mini, $STEPS_PIPE steps"
m pipe_hf_tok -- "$PY" "$HERE/hf_tokenizer.py" --corpus "$CORPUS" --out "$OUT/pipe-hf/tok" --vocab-size "$VOCAB" \
  --cache "$OUT/cache/pipe-tok" --result "$R/pipe_hf_tok.json"
m pipe_hf_prep -- "$PY" "$HERE/hf_prepare.py" --corpus "$CORPUS" --tokenizer "$OUT/pipe-hf/tok" --block "$SEQ" \
  --num-proc "$THREADS" --cache "$OUT/cache/pipe-prep" --save-to-disk "$OUT/pipe-hf/blocks" --result "$R/pipe_hf_prep.json"
m pipe_hf_train -- "$PY" "$HERE/hf_train.py" --hf-data "$OUT/pipe-hf/blocks" --tokenizer "$OUT/pipe-hf/tok" \
  --config "$ROOT/configs/bert-mini.json" --output-dir "$OUT/pipe-hf/run" --precision bf16 --threads "$THREADS" \
  --batch "$BATCH" --max-steps "$STEPS_PIPE" --warmup-steps "$((STEPS_PIPE / 10))" --learning-rate "$LR" \
  --weight-decay "$WD" --logging-steps "$((STEPS_PIPE / 10 > 0 ? STEPS_PIPE / 10 : 1))" --result "$R/pipe_hf_train.json"
m pipe_bertpt_tok -- "$BIN" tokenizer train -i "$CORPUS" --vocab-size "$VOCAB" --threads "$THREADS" --out "$OUT/pipe-bertpt/tok" --quiet
m pipe_bertpt_prep -- "$BIN" prepare -i "$CORPUS" -t "$OUT/pipe-bertpt/tok" --seq-len "$SEQ" --valid-fraction 0 \
  --threads "$THREADS" -o "$OUT/pipe-bertpt/data" --quiet
m pipe_bertpt_train -- "$BIN" train --data "$OUT/pipe-bertpt/data" --model bert-mini --output-dir "$OUT/pipe-bertpt/run" \
  --precision bf16 --threads "$THREADS" --per-device-batch-size "$BATCH" --max-steps "$STEPS_PIPE" \
  --warmup-steps "$((STEPS_PIPE / 10))" --learning-rate "$LR" --weight-decay "$WD" \
  --logging-steps "$((STEPS_PIPE / 10 > 0 ? STEPS_PIPE / 10 : 1))" --save-steps 0 --quiet

# --- the loss curves of the bert-mini bf16 runs (both seeds), drawn together by bertpt plot
echo "plot"
PLOT=$OUT/plots/loss-bert-mini-bf16.svg
if "$BIN" plot --help 2>&1 | grep -q -- '--overlay'; then
  plot_cmd=("$BIN" plot "$OUT/train/bertpt-mini_bf16" "$OUT/train/bertpt-mini_bf16_seed$SEED2"
    --overlay "$OUT/train/hf-mini_bf16/trainer_state.json" --overlay "$OUT/train/hf-mini_bf16_seed$SEED2/trainer_state.json"
    -o "$PLOT" --title "bert-mini bf16, seq $SEQ, batch $BATCH: bertpt vs HF Trainer, two seeds each" --quiet)
else
  # TODO(peers): switch to `bertpt plot RUN --overlay trainer_state.json` once `bertpt plot --help`
  # lists --overlay (the branch above takes it automatically); until then, plot's positional runs
  # accept a Trainer's trainer_state.json and draw them all.
  plot_cmd=("$BIN" plot "$OUT/train/bertpt-mini_bf16" "$OUT/train/bertpt-mini_bf16_seed$SEED2"
    "$OUT/train/hf-mini_bf16/trainer_state.json" "$OUT/train/hf-mini_bf16_seed$SEED2/trainer_state.json"
    -o "$PLOT" --title "bert-mini bf16, seq $SEQ, batch $BATCH: bertpt vs HF Trainer, two seeds each" --quiet)
fi
if "${plot_cmd[@]}" > "$OUT/logs/plot.log" 2>&1; then
  printf '%s\t%s\n' plot "$(show "${plot_cmd[@]}")" >> "$R/commands.tsv"
else
  echo "  bertpt plot failed (logs/plot.log); the page goes without the picture" >&2
  PLOT=""
fi

cut -d' ' -f1-3 /proc/loadavg > "$R/load_end.txt"
T_END=$(date +%s)
echo "$(date -u '+%F %T') done in $((T_END - T_BEGIN)) s; load $(cat "$R/load_end.txt")"

# --- the page
PLOT_DOC=""
if [[ -n $PLOT ]]; then
  PLOT_DOC=$(dirname "$DOC")/peers-loss-bert-mini-bf16.svg
  cp "$PLOT" "$PLOT_DOC"
fi
"$PY" "$HERE/report.py" --out "$OUT" --size "$SIZE" --threads "$THREADS" --bertpt "$BIN" --corpus "$CORPUS" \
  --seconds "$((T_END - T_BEGIN))" --steps-mini "$STEPS_MINI" --steps-small "$STEPS_SMALL" --steps-pipe "$STEPS_PIPE" \
  --seq "$SEQ" --batch "$BATCH" --lr "$LR" --weight-decay "$WD" --valid "$VALID" --vocab "$VOCAB" --seed2 "$SEED2" \
  ${PLOT_DOC:+--plot "$PLOT_DOC"} --doc "$DOC"
echo "wrote $DOC"
