#!/usr/bin/env bash
# One training step of bertpt and of transformers, operator by operator, side by side: where bertpt's
# step loses time to the peer's (by default its best CPU configuration, sparse head + torch.compile).
# Profiles one step of each, same model, shapes, precision and threads, one after the other:
# `bertpt bench --profile` (train's own step: StepRunner, forward, backward, then the gradient norm,
# clipping and bertpt's AdamW in the step.optimizer range; LibTorch's Kineto profiler) and
# bench/hf_train_step.py --profile (torch.profiler; forward, backward, then clipping + AdamW +
# zero_grad in a range of their own). bench/profile_step.py reads both traces and writes
# OUT/profile.md (self time by category and phase, then each side's top operators), which is
# printed too.
#
#   MODEL (modernbert-mini: a configs/*.json preset) BATCH (8) SEQ (128) THREADS (2) PRECISION (fp32)
#   VARIANT (the peer's: stock | sparse | compiled | sparse+compiled, default sparse+compiled)
#   STEPS (1 timed step on both sides before the profiled one, their times in OUT/bertpt.json and
#   OUT/hf.json for reference) WARMUP (2 steps before those on both sides; the peer compiles in them)
#   TOP (25 operators per side) OUT (runs/profile-step) BUILD_DIR (build) PYTHON
#
# Full profile on 2 cores (fp32, the defaults): about 1–2 minutes, most of it the peer's torch.compile.
#   bash bench/profile-step.sh
# Smoke test of the plumbing (about 10 s with VARIANT=sparse, a minute or more compiled):
#   BATCH=2 SEQ=32 STEPS=1 WARMUP=1 THREADS=1 VARIANT=sparse OUT=/tmp/profile-step bash bench/profile-step.sh
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${MODEL:-modernbert-mini} BATCH=${BATCH:-8} SEQ=${SEQ:-128} THREADS=${THREADS:-2} PRECISION=${PRECISION:-fp32}
VARIANT=${VARIANT:-sparse+compiled} STEPS=${STEPS:-1} WARMUP=${WARMUP:-2} TOP=${TOP:-25}
OUT=${OUT:-runs/profile-step} BUILD_DIR=${BUILD_DIR:-build} PY=${PYTHON:-.venv/bin/python}

case $VARIANT in
  stock) vf=() ;;
  sparse) vf=(--sparse-head) ;;
  compiled) vf=(--compile) ;;
  sparse+compiled | compiled+sparse) vf=(--sparse-head --compile) ;;
  *)
    echo "profile-step.sh: VARIANT: unknown variant '$VARIANT' (stock, sparse, compiled, sparse+compiled)" >&2
    exit 2
    ;;
esac
[[ -f configs/$MODEL.json ]] || { echo "profile-step.sh: MODEL: no configs/$MODEL.json" >&2; exit 2; }
[[ -x $BUILD_DIR/bertpt ]] || { echo "profile-step.sh: no $BUILD_DIR/bertpt (scripts/setup builds it)" >&2; exit 2; }

mkdir -p "$OUT"
bc=("$BUILD_DIR/bertpt" bench -q --json --model "$MODEL" --seq-len "$SEQ" --per-device-batch-size "$BATCH"
    --precision "$PRECISION" --threads "$THREADS" --steps "$STEPS" --warmup-steps "$WARMUP" --padding 0
    --profile "$OUT/bertpt-trace.json")
hc=("$PY" bench/hf_train_step.py --config "configs/$MODEL.json" --device cpu --precision "$PRECISION"
    --seq-len "$SEQ" --batch-size "$BATCH" --threads "$THREADS" --steps "$STEPS" --warmup-steps "$WARMUP"
    --padding 0 "${vf[@]}" --profile "$OUT/hf-trace.json")
echo "== bertpt: ${bc[*]}" >&2
"${bc[@]}" >"$OUT/bertpt.json"
echo "== transformers, $VARIANT: ${hc[*]}" >&2
"${hc[@]}" >"$OUT/hf.json"

shape="$MODEL, seq $SEQ, batch $BATCH, $PRECISION, $THREADS thread$([[ $THREADS == 1 ]] || echo s)"
"$PY" bench/profile_step.py --top "$TOP" \
  --title "One training step, operator by operator: bertpt against transformers ($VARIANT), $shape" \
  --command "${bc[*]} > $OUT/bertpt.json" --command "${hc[*]} > $OUT/hf.json" \
  "$OUT/bertpt-trace.json" "$OUT/hf-trace.json" >"$OUT/profile.md.tmp"
mv "$OUT/profile.md.tmp" "$OUT/profile.md"
cat "$OUT/profile.md"
echo "wrote $OUT/profile.md" >&2
