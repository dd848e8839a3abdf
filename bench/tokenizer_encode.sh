#!/usr/bin/env bash
# Encoding throughput: `bertpt tokenizer encode` against Hugging Face's encode_batch (Python
# tokenizers in .venv, pinned in requirements/hf-peer.txt; Rust core), side by side in one run,
# same text, same tokenizer.json (written by HF, trained by HF on all ~11 MB of the docs), and a
# check that the ids are identical.
#   text: the first ~2 MB of Python 3.11 docs sources (English technical prose), one line = one
#   sequence; bert-base-uncased pipeline.
# HF: encode_batch time measured inside Python (no file reading, no output), all cores (rayon).
# bertpt: the whole command (start-up, loading the tokenizer, reading, writing ids to a file).
# Usage: bench/tokenizer_encode.sh   (env: BERTPT_BIN=build/bertpt, RUNS=5, BYTES=2000000)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BERTPT_BIN:-$ROOT/build/bertpt}
RUNS=${RUNS:-5}
BYTES=${BYTES:-2000000}
PEER=$ROOT/tests/peer
PY=${BERTPT_PEER_PYTHON:-$ROOT/.venv/bin/python}
DOCS=/usr/share/doc/python3.11/html/_sources

die() { echo "bench/tokenizer_encode.sh: $*" >&2; exit 1; }
[[ -x $BIN ]] || die "no bertpt binary at $BIN (build it, or set BERTPT_BIN)"
"$PY" -c "import tokenizers" 2>/dev/null || die "HF peer missing (no tokenizers in $PY): run scripts/setup-test-peers"
[[ -d $DOCS ]] || die "python3.11-doc not installed: run scripts/setup"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

find "$DOCS" -name '*.txt' -type f -print0 | LC_ALL=C sort -z | xargs -0 cat > "$work/docs.txt"
head -c "$BYTES" "$work/docs.txt" > "$work/text.txt"
# The vocabulary: HF's trainer (30,000 tokens) on all the docs (~11 MB).
(cd "$PEER" && "$PY" peer.py train-bert "$work/tok" lowercase "$work/docs.txt" > /dev/null 2>&1)
echo "text: $(($(stat -c %s "$work/text.txt") / 1000)) kB, $(wc -l < "$work/text.txt") lines of python3.11-doc; tokenizer: HF-trained, $(wc -l < "$work/tok/vocab.txt") tokens"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%F)"
echo

median() { LC_ALL=C sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

hf=$(cd "$PEER" && "$PY" peer.py bench "$work/tok/tokenizer.json" "$work/text.txt" "$RUNS")
hf_secs=$(echo "$hf" | sed 's/.*"seconds_median":\([0-9.e+-]*\).*/\1/')
tokens=$(echo "$hf" | sed 's/.*"tokens":\([0-9]*\).*/\1/')

printf '%-48s %10s %10s %12s %9s\n' "system" "tokens" "seconds" "M tokens/s" "vs HF"
printf '%-48s %10s %10.3f %12.2f %9s\n' "HF encode_batch ($(nproc) threads, in-process)" "$tokens" "$hf_secs" \
  "$(awk -v t="$tokens" -v s="$hf_secs" 'BEGIN {print t / s / 1e6}')" "1.00x"

for threads in 1 2; do
  times=()
  for ((r = 0; r < RUNS; r++)); do
    t0=$(date +%s.%N)
    "$BIN" tokenizer encode --quiet --threads "$threads" -t "$work/tok" -i "$work/text.txt" -o "$work/ids$threads.txt"
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')")
  done
  secs=$(printf '%s\n' "${times[@]}" | median)
  printf '%-48s %10s %10.3f %12.2f %8.2fx\n' "bertpt tokenizer encode --threads $threads (CLI)" "$tokens" "$secs" \
    "$(awk -v t="$tokens" -v s="$secs" 'BEGIN {print t / s / 1e6}')" "$(awk -v h="$hf_secs" -v s="$secs" 'BEGIN {print h / s}')"
done
echo "(medians of $RUNS runs)"

(cd "$PEER" && "$PY" peer.py encode "$work/tok/tokenizer.json" "$work/text.txt") > "$work/hf_ids.txt"
if cmp -s "$work/hf_ids.txt" "$work/ids1.txt" && cmp -s "$work/ids1.txt" "$work/ids2.txt"; then
  echo "ids: identical to HF (and across thread counts)"
else
  echo "ids: DIFFER from HF"
  exit 1
fi
