#!/usr/bin/env bash
# One training step of bertpt and of transformers, operator by operator, side by side: where bertpt's
# step loses time to the peer's (by default its best CPU configuration, sparse head + torch.compile).
# Profiles one step of each, same model, shapes, precision and threads, one after the other:
# build/model_bench --profile --optimizer (LibTorch's profiler; forward, backward and LibTorch's
# AdamW) and bench/hf_train_step.py --profile (torch.profiler; forward, backward, then clipping +
# AdamW + zero_grad in a range of their own). bench/profile_step.py reads both traces
# and writes OUT/profile.md (self time by category and phase, then each side's top operators), which
# is printed too.
#
#   MODEL (modernbert-mini: a configs/*.json preset) BATCH (8) SEQ (128) THREADS (2) PRECISION (fp32)
#   VARIANT (the peer's: stock | sparse | compiled | sparse+compiled, default sparse+compiled)
#   STEPS (1 timed step on both sides after the profiled one, their times in OUT/*.txt|json for
#   reference) WARMUP (2 peer steps before the profiled one; compiling happens in them; model_bench
#   always runs 2) TOP (25 operators per side) OUT (runs/profile-step) BUILD_DIR (build) PYTHON
#
# Builds model_bench first when BUILD_DIR has none (cmake --build BUILD_DIR --target model_bench).
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
if [[ ! -x $BUILD_DIR/model_bench ]]; then
  echo "== building $BUILD_DIR/model_bench" >&2
  cmake --build "$BUILD_DIR" --target model_bench
fi

mkdir -p "$OUT"
bc=("$BUILD_DIR/model_bench" --model "$MODEL" --batch "$BATCH" --seq "$SEQ" --precision "$PRECISION"
    --threads "$THREADS" --steps "$STEPS" --warmup 1 --head sparse --optimizer --profile "$OUT/bertpt-trace.json")
hc=("$PY" bench/hf_train_step.py --config "configs/$MODEL.json" --device cpu --precision "$PRECISION"
    --seq-len "$SEQ" --batch-size "$BATCH" --threads "$THREADS" --steps "$STEPS" --warmup-steps "$WARMUP"
    --padding 0 "${vf[@]}" --profile "$OUT/hf-trace.json")
echo "== bertpt: ${bc[*]}" >&2
"${bc[@]}" >"$OUT/bertpt.txt"
echo "== transformers, $VARIANT: ${hc[*]}" >&2
"${hc[@]}" >"$OUT/hf.json"

shape="$MODEL, seq $SEQ, batch $BATCH, $PRECISION, $THREADS thread$([[ $THREADS == 1 ]] || echo s)"
"$PY" bench/profile_step.py --top "$TOP" \
  --title "One training step, operator by operator: bertpt against transformers ($VARIANT), $shape" \
  --command "${bc[*]}" --command "${hc[*]} > $OUT/hf.json" \
  "$OUT/bertpt-trace.json" "$OUT/hf-trace.json" >"$OUT/profile.md.tmp"
mv "$OUT/profile.md.tmp" "$OUT/profile.md"
cat "$OUT/profile.md"
echo "wrote $OUT/profile.md" >&2
