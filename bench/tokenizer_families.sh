#!/usr/bin/env bash
# Byte-level BPE (RoBERTa style) and Unigram (XLM-R style): bertpt against Hugging Face tokenizers
# (the Python binding in .venv, pinned in requirements/hf-peer.txt; Rust core), side by side in one
# run, same text, 2 threads each (HF: RAYON_NUM_THREADS=2; bertpt: --threads). For each family:
#   encoding  a tokenizer trained by HF (tests/peer/families_bench.py train: vocab 32,000, the
#             family's whole pipeline) encodes the text: HF's encode_batch (timed inside Python,
#             as tests/peer/peer.py bench does) against `bertpt tokenizer encode --threads 1|2`
#             (the whole command: start-up, loading, reading, writing the ids); the ids must be
#             identical, or the script fails;
#   training  HF's trainer against `bertpt tokenizer train --model FAMILY`, same training text,
#             vocab 32,000: wall time (median of RUNS), CPU time, peak memory; the share of HF's
#             tokens in bertpt's vocabulary; BPE: whether the merges are identical; Unigram: tokens
#             per word of each trained tokenizer on the held-out lines. Skipped, with a message,
#             when the binary's `tokenizer train` has no --model.
# Text: Python 3.11 docs sources (~11 MB, English technical prose) + the ru de es it pl cs fortunes
# (~12.6 MB; files that are not valid UTF-8 left out), each of these 7 sources cut to the same
# share so that the whole is about BYTES; one line = one sequence. Every tenth line (the 1st,
# 11th, ...) is held out: the trainers see the other nine tenths; encoding reads all the lines.
# Peak memory: /usr/bin/time's maximum resident set of the process (HF: the whole Python process).
#
# Builds nothing. Writes the results as markdown to OUT and prints them; when the ids differ, OUT is
# left as it was and the exit status is 1.
# Usage: bench/tokenizer_families.sh   (env: BERTPT_BIN=build/bertpt, else build-core/bertpt;
#   RUNS=3; FAMILIES="bpe unigram"; BYTES=12000000; OUT=docs/tokenizer-families.md; WORK=a scratch
#   directory to keep the text and outputs in)
set -euo pipefail

command=bench/tokenizer_families.sh  # as run, for the report: the settings given in the environment first
for v in OUT BYTES FAMILIES RUNS BERTPT_BIN; do [[ -z ${!v:-} ]] || command="$v=$(printf '%q' "${!v}") $command"; done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BERTPT_BIN:-$ROOT/build/bertpt}
[[ -n ${BERTPT_BIN:-} || -x $BIN ]] || BIN=$ROOT/build-core/bertpt
RUNS=${RUNS:-3}
FAMILIES=${FAMILIES:-bpe unigram}
BYTES=${BYTES:-12000000}
OUT=${OUT:-$ROOT/docs/tokenizer-families.md}
THREADS=2
VOCAB=32000
PEER=$ROOT/tests/peer
PY=${BERTPT_PEER_PYTHON:-$ROOT/.venv/bin/python}
DOCS=/usr/share/doc/python3.11/html/_sources
FORTUNES=/usr/share/games/fortunes
LANGS="ru de es it pl cs"

die() { echo "bench/tokenizer_families.sh: $*" >&2; exit 1; }
log() { echo "[families] $*" >&2; }
[[ -x $BIN ]] || die "no bertpt binary at $BIN (build it, or set BERTPT_BIN)"
"$PY" -c "import tokenizers" 2>/dev/null || die "HF peer missing (no tokenizers in $PY): run scripts/setup-test-peers"
[[ -d $DOCS && -d $FORTUNES ]] || die "python3.11-doc / fortunes not installed: run scripts/setup"
[[ -x /usr/bin/time ]] || die "/usr/bin/time missing (apt-get install time)"
for fam in $FAMILIES; do [[ $fam == bpe || $fam == unigram ]] || die "unknown family '$fam' (bpe, unigram)"; done
if [[ -n ${WORK:-} ]]; then mkdir -p "$WORK"; else WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; fi

# --- the text -------------------------------------------------------------------------------------
# Each source: its files in sorted order, valid UTF-8 only (HF's readers would replace the bad bytes,
# bertpt's would refuse the file).
for src in docs $LANGS; do
  [[ -s $WORK/src_$src.txt ]] && continue
  if [[ $src == docs ]]; then find "$DOCS" -name '*.txt' -type f; else find "$FORTUNES/$src" -type f ! -name '*.dat'; fi |
    LC_ALL=C sort | while IFS= read -r f; do
      if iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1; then cat "$f"; fi
    done >"$WORK/src_$src.txt"
done
total=$(cat "$WORK"/src_*.txt | wc -c)
: >"$WORK/text.txt"
for src in docs $LANGS; do  # the first BYTES/total of each source, whole lines
  size=$(stat -c %s "$WORK/src_$src.txt")
  LC_ALL=C awk -v n="$((BYTES >= total ? size : size * BYTES / total))" '{ b += length($0) + 1; if (b > n) exit; print }' \
    "$WORK/src_$src.txt" >>"$WORK/text.txt"
  [[ $src != docs ]] || stat -c %s "$WORK/text.txt" >"$WORK/docs_bytes"
done
awk 'NR % 10 != 1' "$WORK/text.txt" >"$WORK/train.txt"
awk 'NR % 10 == 1' "$WORK/text.txt" >"$WORK/held_out.txt"

mb() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1e6}'; }
median() { LC_ALL=C sort -g | awk '{a[NR]=$1} END {printf "%.3f\n", (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
max() { LC_ALL=C sort -g | awk 'END {printf "%.0f\n", $1}'; }
json_field() { sed -n "s/.*\"$2\":\([^,}]*\).*/\1/p" <<<"$1"; }
# timed FILE CMD...: runs CMD under /usr/bin/time, appends "wall_s cpu_s max_rss_mb" to FILE
timed() {
  local file=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  /usr/bin/time -f '%U %S %M' -o "$WORK/rusage" "$@"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" '{printf "%.3f %.3f %.1f\n", b - a, $1 + $2, $3 / 1024}' "$WORK/rusage" >>"$file"
}
col() { awk -v c="$1" '{print $c}' "$2"; }

has_model=no
# (the help is read whole first: grep -q would end the pipe early, and pipefail would count that)
help_text=$("$BIN" tokenizer train --help 2>/dev/null || true)
grep -q -- '--model' <<<"$help_text" && has_model=yes
hf_version=$("$PY" -c "import tokenizers; print(tokenizers.__version__)")
bertpt_version=$("$BIN" --version | head -n1)
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[[ -z $(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null) ]] || commit="$commit (with uncommitted changes)"
# the fortunes' share of the text
fortunes_bytes=$(($(stat -c %s "$WORK/text.txt") - $(cat "$WORK/docs_bytes")))

report=$WORK/report.md
{
  echo "# Tokenizer families: byte-level BPE and Unigram, bertpt vs Hugging Face"
  echo
  echo "Command: \`$command\` ($(date -u '+%F %H:%M UTC'))"
  echo
  echo "- tokenizers $hf_version (Python binding, \`.venv\`); $bertpt_version, \`${BIN#"$ROOT"/}\` at commit $commit"
  echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
  echo "- text: $(mb "$(stat -c %s "$WORK/text.txt")") MB, $(wc -l <"$WORK/text.txt") lines: Python 3.11 docs sources + fortunes ($LANGS, about $(mb "$fortunes_bytes") MB), each source cut to the same share; training on $(mb "$(stat -c %s "$WORK/train.txt")") MB (every tenth line held out), encoding all of it"
  echo "- $THREADS threads (HF: RAYON_NUM_THREADS=$THREADS); vocabulary $VOCAB; medians of $RUNS run(s); peak memory: maximum resident set of the process"
  echo
} >"$report"
log "text: $(mb "$(stat -c %s "$WORK/text.txt")") MB; bertpt: $BIN; training part: $([[ $has_model == yes ]] && echo on || echo skipped)"

failed=no
for fam in $FAMILIES; do
  F=$WORK/$fam
  rm -rf "$F"
  mkdir -p "$F"
  [[ $fam == bpe ]] && title="Byte-level BPE (RoBERTa: ByteLevel, RobertaProcessing)" ||
    title="Unigram (XLM-R-like: Nmt + NFKC + spaces folded, Metaspace, \`<s> \$A </s>\`)"

  # Training runs (HF's first one is also the tokenizer of the encoding part). HF's time: reading
  # the file + Tokenizer.train_from_iterator, measured inside Python; bertpt's: the whole command.
  runs=$([[ $has_model == yes ]] && echo "$RUNS" || echo 1)
  for ((r = 1; r <= runs; r++)); do
    log "$fam: training, run $r/$runs: HF"
    hf=$(cd "$PEER" && RAYON_NUM_THREADS=$THREADS /usr/bin/time -f '%M' -o "$F/hf_rss" \
      "$PY" families_bench.py train "$fam" "$F/hf$r" "$VOCAB" "$WORK/train.txt")
    awk -v s="$(json_field "$hf" seconds)" -v c="$(json_field "$hf" cpu_seconds)" '{printf "%.3f %.3f %.1f\n", s, c, $1 / 1024}' \
      "$F/hf_rss" >>"$F/hf_train"
    if [[ $has_model == yes ]]; then
      log "$fam: training, run $r/$runs: bertpt"
      timed "$F/bt_train" "$BIN" tokenizer train --model "$fam" -i "$WORK/train.txt" --vocab-size "$VOCAB" \
        --threads "$THREADS" --out "$F/bt$r" --quiet
    fi
  done
  tok=$F/hf1/tokenizer.json

  # Encoding.
  log "$fam: encoding: HF"
  hf=$(cd "$PEER" && RAYON_NUM_THREADS=$THREADS /usr/bin/time -f '%M' -o "$F/hf_rss" "$PY" peer.py bench "$tok" "$WORK/text.txt" "$RUNS")
  hf_secs=$(json_field "$hf" seconds_median)
  tokens=$(json_field "$hf" tokens)
  hf_rss=$(awk '{printf "%.1f", $1 / 1024}' "$F/hf_rss")
  for threads in 1 2; do
    for ((r = 1; r <= RUNS; r++)); do
      log "$fam: encoding: bertpt --threads $threads, run $r/$RUNS"
      timed "$F/bt_encode$threads" "$BIN" tokenizer encode --quiet --threads "$threads" -t "$tok" -i "$WORK/text.txt" \
        -o "$F/ids$threads.txt"
    done
  done
  (cd "$PEER" && "$PY" peer.py encode "$tok" "$WORK/text.txt") >"$F/hf_ids.txt"
  if cmp -s "$F/hf_ids.txt" "$F/ids1.txt" && cmp -s "$F/ids1.txt" "$F/ids2.txt"; then
    ids="ids: identical to HF's ($tokens tokens, $(wc -l <"$WORK/text.txt") lines; and across thread counts)"
  else
    failed=yes
    # lines where HF and --threads 1 differ (or --threads 1 and 2): their count and the first one
    differ=$(paste -d'\t' "$F/hf_ids.txt" "$F/ids1.txt" "$F/ids2.txt" | awk -F'\t' '$1 != $2 || $2 != $3 {print NR}')
    line=$(head -n1 <<<"$differ")
    differ=$(wc -l <<<"$differ")
    ids="ids: **DIFFER from HF's** on $differ of $(wc -l <"$WORK/text.txt") lines; the first, line $line: \`$(sed -n "${line}p" "$WORK/text.txt" | cut -c1-80)\` HF \`$(sed -n "${line}p" "$F/hf_ids.txt" | cut -c1-80)\`, bertpt \`$(sed -n "${line}p" "$F/ids1.txt" | cut -c1-80)\`"
  fi

  {
    echo "## $title"
    echo
    echo "### Encoding"
    echo
    echo "Tokenizer: trained by HF on the training text, $VOCAB tokens. HF: encode_batch timed inside Python (no file reading, no output); bertpt: the whole command."
    echo
    echo "| system | seconds | M tokens/s | vs HF | peak memory |"
    echo "|---|---|---|---|---|"
    awk -v t="$tokens" -v s="$hf_secs" -v m="$hf_rss" -v n="$THREADS" \
      'BEGIN {printf "| HF `encode_batch` (%d threads, in-process) | %.3f | %.2f | 1.00× | %.0f MB |\n", n, s, t / s / 1e6, m}'
    for threads in 1 2; do
      awk -v t="$tokens" -v h="$hf_secs" -v s="$(col 1 "$F/bt_encode$threads" | median)" -v m="$(col 3 "$F/bt_encode$threads" | max)" \
        -v n="$threads" 'BEGIN {printf "| `bertpt tokenizer encode --threads %d` (whole command) | %.3f | %.2f | %.2f× | %.0f MB |\n", n, s, t / s / 1e6, h / s, m}'
    done
    echo
    echo "$ids"
    echo
    echo "### Training"
    echo
    if [[ $has_model != yes ]]; then
      echo "Skipped: \`$(basename "$BIN") tokenizer train\` has no \`--model\` yet. HF's trainer alone: $(awk '{printf "%.2f s wall, %.2f s CPU, %.0f MB", $1, $2, $3}' "$F/hf_train") (one run)."
    else
      cmp=$(cd "$PEER" && "$PY" families_bench.py compare "$tok" "$F/bt1/tokenizer.json" "$WORK/held_out.txt")
      echo "HF: reading the file + \`train_from_iterator\`, timed inside Python; bertpt: \`tokenizer train --model $fam --threads $THREADS\`, the whole command (reading, saving included)."
      echo
      echo "| | HF | bertpt |"
      echo "|---|---|---|"
      hf_wall=$(col 1 "$F/hf_train" | median) bt_wall=$(col 1 "$F/bt_train" | median)
      echo "| median wall time | $hf_wall s | $bt_wall s ($(awk -v h="$hf_wall" -v b="$bt_wall" 'BEGIN {printf "%.2f", h / b}')× HF's speed) |"
      echo "| CPU time (user + sys, median) | $(col 2 "$F/hf_train" | median) s | $(col 2 "$F/bt_train" | median) s |"
      echo "| peak memory | $(col 3 "$F/hf_train" | max) MB | $(col 3 "$F/bt_train" | max) MB |"
      echo "| vocabulary | $(json_field "$cmp" hf_tokens) | $(json_field "$cmp" bertpt_tokens) |"
      echo "| share of HF's tokens in bertpt's | — | $(awk -v o="$(json_field "$cmp" overlap)" 'BEGIN {printf "%.3f%%", o}') |"
      if [[ $fam == bpe ]]; then
        echo "| merges identical to HF's | — | $([[ $(json_field "$cmp" merges_identical) == true ]] && echo yes || echo no) |"
      else
        echo "| tokens per word, held-out lines (own tokenizer) | $(awk -v x="$(json_field "$cmp" tokens_per_word_hf)" 'BEGIN {printf "%.4f", x}') | $(awk -v x="$(json_field "$cmp" tokens_per_word_bertpt)" 'BEGIN {printf "%.4f", x}') |"
      fi
      echo
      echo "Wall times (s), run by run: HF $(col 1 "$F/hf_train" | paste -sd' '), bertpt $(col 1 "$F/bt_train" | paste -sd' ')."
    fi
    echo
  } >>"$report"
done

cat "$report"
if [[ $failed == yes ]]; then
  log "ids differ: $OUT left as it was"
  exit 1
fi
cp "$report" "$OUT"
log "written to $OUT"
