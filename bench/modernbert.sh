#!/usr/bin/env bash
# ModernBERT against BERT, bertpt against transformers: one training step of each, side by side on
# this machine (bertpt bench and bench/hf_train_step.py, one after the other, same shapes, threads and
# precision), written by bench/side_by_side.py to docs/modernbert-speed.md. For every model, shape and
# precision, bertpt bench runs once and the peer once per variant: stock (HF's dense MLM head, eager),
# sparse (--sparse-head: the head on the masked rows only), compiled (--compile: torch.compile) and
# sparse+compiled, so that the table compares bertpt with the peer's best configuration as well as
# its stock one. With ROUNDS=N all of that is repeated N times in turn (bertpt, then each variant, round
# after round), and each side's row is its median run: on a shared VM a slow spell of a few seconds
# then moves one run, not the table. OUT/rounds.tsv lists every run.
#
#   MODELS ("bert-mini modernbert-mini") SHAPES ("128:8", seq:batch; "128:8 512:8" adds the seq 512 rows)
#   PRECISIONS ("fp32"; "fp32 bf16" on a CPU with AVX-512: without it LibTorch has no fast bf16 matmul,
#              bf16 steps run tens of times slower than fp32 and measure only that; PRECISION, the
#              older name, is read when PRECISIONS is unset)
#   VARIANTS ("stock sparse compiled sparse+compiled"; stock = no flag, sparse = --sparse-head,
#            compiled = --compile, sparse+compiled = both)
#   ROUNDS (1; 5 for a table whose ratios near 1 decide something)
#   THREADS (2) STEPS (5) WARMUP (2 untimed steps on both sides; hf_train_step.py compiles in them,
#   and takes at least 2 when compiling) OUT (runs/modernbert-speed) BUILD_DIR (build) BERTPT, PYTHON
#   DOC (docs/modernbert-speed.md, rewritten whole except its part from a "## Earlier measurement"
#        heading on, which is carried over verbatim; "-" for none)
#   PADDING (0; F > 0: padded batches, `--padding F` on both sides, as in docs/modernbert-padded.md:
#            PADDING=0.8 DOC=docs/modernbert-padded.md OUT=runs/modernbert-padded bash bench/modernbert.sh)
#
# Duration on 2 cores (AVX2 EPYC, fp32, the defaults: 2 models × 1 shape × (1 bertpt + 4 peer runs)):
# about 5–8 minutes, most of it the 4 compiled runs' torch.compile warm-ups (30–80 s each); the
# eager runs take 5–20 s each, mostly Python start-up. SHAPES="128:8 512:8" adds about 6–9 minutes.
# Smoke test of the plumbing (about 20 s):
#   MODELS=modernbert-mini SHAPES=16:2 STEPS=1 THREADS=1 VARIANTS="stock sparse" OUT=/tmp/mb DOC=/tmp/mb/doc.md \
#     bash bench/modernbert.sh
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BERTPT:-${BUILD_DIR:-build}/bertpt}
PY=${PYTHON:-.venv/bin/python}
MODELS=${MODELS:-bert-mini modernbert-mini} SHAPES=${SHAPES:-128:8} THREADS=${THREADS:-2}
PRECISIONS=${PRECISIONS:-${PRECISION:-fp32}} VARIANTS=${VARIANTS:-stock sparse compiled sparse+compiled}
STEPS=${STEPS:-5} WARMUP=${WARMUP:-2} OUT=${OUT:-runs/modernbert-speed} DOC=${DOC:-docs/modernbert-speed.md}
PADDING=${PADDING:-0} ROUNDS=${ROUNDS:-1}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "modernbert.sh: ROUNDS: a positive whole number, not '$ROUNDS'" >&2; exit 2; }

variant_flags() {  # variant -> hf_train_step.py flags, on stdout
  case $1 in
    stock) ;;
    sparse) echo --sparse-head ;;
    compiled) echo --compile ;;
    sparse+compiled | compiled+sparse) echo --sparse-head --compile ;;
    *) return 1 ;;
  esac
}
for v in $VARIANTS; do
  variant_flags "$v" >/dev/null ||
    { echo "modernbert.sh: VARIANTS: unknown variant '$v' (stock, sparse, compiled, sparse+compiled)" >&2; exit 2; }
done
for p in $PRECISIONS; do
  [[ $p == fp32 || $p == bf16 ]] || { echo "modernbert.sh: PRECISIONS: unknown precision '$p' (fp32, bf16)" >&2; exit 2; }
done
avx512=0
grep -q avx512f /proc/cpuinfo 2>/dev/null && avx512=1
notes=()
if ((!avx512)); then
  if [[ " $PRECISIONS " == *" bf16 "* ]]; then
    echo "modernbert.sh: warning: this CPU has no AVX-512; bf16 matmuls run tens of times slower than fp32 here" >&2
  else
    notes+=("fp32 only: this CPU has no AVX-512, without which LibTorch has no fast bf16 matrix multiply (bf16 steps run tens of times slower than fp32 here and would measure only that). \`PRECISIONS=\"fp32 bf16\"\` adds bf16 rows on a CPU that has it.")
  fi
fi

mkdir -p "$OUT"
rm -f "$OUT/rounds.tsv"
pairs=() commands=() failed=() spreads=()
for model in $MODELS; do
  for shape in $SHAPES; do
    s=${shape%:*} b=${shape#*:}
    for prec in $PRECISIONS; do
      tag=$model-s$s-b$b-$prec
      bc=("$B" bench -q --model "$model" --seq-len "$s" --per-device-batch-size "$b" --precision "$prec"
          --threads "$THREADS" --steps "$STEPS" --warmup-steps "$WARMUP" --padding "$PADDING" --out "$OUT/bertpt-$tag.json")
      commands+=("${bc[*]}")
      ok=()  # the variants whose every round ran
      for v in $VARIANTS; do ok+=("$v"); done
      for ((r = 1; r <= ROUNDS; r++)); do
        echo "== $tag: bertpt (round $r of $ROUNDS)" >&2
        "${bc[@]:0:${#bc[@]}-1}" "$OUT/bertpt-$tag.r$r.json" >/dev/null
        for v in "${ok[@]}"; do
          read -r -a vf <<<"$(variant_flags "$v")"
          hc=("$PY" bench/hf_train_step.py --config "configs/$model.json" --device cpu --precision "$prec"
              --seq-len "$s" --batch-size "$b" --threads "$THREADS" --steps "$STEPS" --warmup-steps "$WARMUP"
              --padding "$PADDING" "${vf[@]}")
          echo "== $tag: transformers, $v (round $r of $ROUNDS)" >&2
          start=$SECONDS
          if ! "${hc[@]}" >"$OUT/hf-$tag-${v//+/-}.r$r.json"; then  # e.g. torch.compile failing: the other rows still count
            echo "modernbert.sh: warning: the peer's $v run failed for $tag; its row is left out" >&2
            failed+=("$model seq $s batch $b $prec $v")
            kept=()
            for k in "${ok[@]}"; do [[ $k == "$v" ]] || kept+=("$k"); done
            ok=("${kept[@]}")
            continue
          fi
          ((r > 1)) || commands+=("${hc[*]} > hf.json")
          echo "   $((SECONDS - start)) s" >&2
        done
      done
      # Each side's row: its median round (the whole JSON of that run).
      sides=("$OUT/bertpt-$tag")
      for v in "${ok[@]}"; do sides+=("$OUT/hf-$tag-${v//+/-}"); done
      spread=$("$PY" bench/median_round.py --rounds "$ROUNDS" --tsv "$OUT/rounds.tsv" --tag "$tag" "${sides[@]}")
      [[ -z $spread ]] || spreads+=("$spread")
      for v in "${ok[@]}"; do pairs+=("$OUT/bertpt-$tag.json:$OUT/hf-$tag-${v//+/-}.json"); done
    done
  done
done
if ((ROUNDS > 1)); then
  printf -v joined '%s; ' "${spreads[@]}"
  notes+=("Each row is the median of $ROUNDS runs of its side, bertpt and the peer's variants taking turns round after round (every run: \`$OUT/rounds.tsv\`). Round by round: ${joined%; }.")
fi
if ((${#failed[@]})); then
  printf -v joined '%s; ' "${failed[@]}"
  notes+=("Left out: the peer's runs that exited with an error (their stderr says why): ${joined%; }.")
fi
[[ $DOC == - ]] && exit 0
((${#pairs[@]})) || { echo "modernbert.sh: no peer run succeeded; $DOC left as it was" >&2; exit 1; }
args=()
for c in "${commands[@]}"; do args+=(--command "$c"); done
for n in "${notes[@]}"; do args+=(--note "$n"); done
[[ -f $DOC ]] && args+=(--keep-earlier "$DOC")
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
((avx512)) && cpu+=" (AVX-512)" || cpu+=" (AVX2, no AVX-512)"
title="ModernBERT and BERT training steps: bertpt against transformers (CPU)"
[[ $PADDING == 0 ]] || title="ModernBERT and BERT training steps on padded batches: bertpt against transformers (CPU)"
# The whole file is rewritten (through a temporary file, so that a failure leaves it as it was).
"$PY" bench/side_by_side.py --title "$title" \
  --machine "$(nproc) × $cpu, $THREADS thread$([[ $THREADS == 1 ]] || echo s)" "${args[@]}" "${pairs[@]}" >"$DOC.tmp" ||
  { rm -f "$DOC.tmp"; echo "modernbert.sh: bench/side_by_side.py failed; $DOC left as it was" >&2; exit 1; }
mv "$DOC.tmp" "$DOC"
echo "wrote $DOC" >&2
