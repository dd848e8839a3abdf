#!/usr/bin/env bash
# WordPiece training, bertpt vs Hugging Face tokenizers (the Python binding in .venv, pinned in
# requirements/hf-peer.txt; Rust core), side by side in one run on the same ~29 MB corpus: Python
# 3.11 docs (English technical prose) + every fortunes file installed (several languages with the
# fortunes-* packages). Vocabulary 30,000, the bert-base-uncased pipeline (BertNormalizer lowercase
# + strip accents + CJK splitting, BertPreTokenizer), 2 threads each (HF: RAYON_NUM_THREADS=2;
# bertpt: --threads 2).
#
# HF's Tokenizer.train(files) has no special tokens, so bertpt trains 30,005 tokens with its five
# specials: both learn 30,000 non-special tokens, and the overlap compares those.
#
# Builds nothing. Usage: bench/tokenizer.sh   (env: BERTPT_BIN=build/bertpt, RUNS=3, THREADS=2,
# WORK=a scratch directory to keep the corpus and outputs in)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BERTPT_BIN:-$ROOT/build/bertpt}
RUNS=${RUNS:-3}
THREADS=${THREADS:-2}
PEER=$ROOT/tests/peer
PY=${BERTPT_PEER_PYTHON:-$ROOT/.venv/bin/python}
DOCS=/usr/share/doc/python3.11/html/_sources
FORTUNES=/usr/share/games/fortunes

die() { echo "bench/tokenizer.sh: $*" >&2; exit 1; }
[[ -x $BIN ]] || die "no bertpt binary at $BIN (build it, or set BERTPT_BIN)"
"$PY" -c "import tokenizers" 2>/dev/null || die "HF peer missing (no tokenizers in $PY): run scripts/setup-test-peers"
[[ -d $DOCS && -d $FORTUNES ]] || die "python3.11-doc / fortunes not installed: run scripts/setup"

if [[ -n ${WORK:-} ]]; then mkdir -p "$WORK"; else WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; fi
CORPUS=$WORK/corpus.txt

# The corpus: whole files in sorted order; files that are not valid UTF-8 are left out (HF's
# trainer aborts on them).
if [[ ! -s $CORPUS ]]; then
  {
    find "$DOCS" -name '*.txt' -type f | LC_ALL=C sort
    find "$FORTUNES" -type f ! -name '*.dat' ! -name '*.u8' | LC_ALL=C sort
  } | while IFS= read -r f; do
    if iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1; then cat "$f"; fi
  done >"$CORPUS"
fi
langs=$(find "$FORTUNES" -mindepth 1 -type d -printf '%f ' | tr -s ' ')
echo "corpus: $(($(stat -c %s "$CORPUS") / 1000000)) MB, $(wc -l <"$CORPUS") lines (fortune subdirectories: ${langs:-none})"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bertpt: $BIN   HF: tokenizers $("$PY" -c "import tokenizers; print(tokenizers.__version__)")   threads: $THREADS"
echo

now() { date +%s.%N; }
median() { LC_ALL=C sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# share A B: percentage of A's lines that are in B
share() {
  local common
  common=$(LC_ALL=C comm -12 <(LC_ALL=C sort -u "$1") <(LC_ALL=C sort -u "$2") | wc -l)
  awk -v c="$common" -v n="$(wc -l <"$1")" 'BEGIN {printf "%.3f", 100 * c / n}'
}

hf_times=() bt_times=()
printf '%-5s %12s %14s\n' run "HF (s)" "bertpt (s)"
for ((r = 1; r <= RUNS; r++)); do
  # HF: time of Tokenizer.train() as measured inside Python (file reading, counting, merging; not
  # Python's start-up). bertpt: the whole command, start-up and writing the four files included.
  hf=$(cd "$PEER" && RAYON_NUM_THREADS=$THREADS "$PY" hf_train.py train wordpiece lowercase "$WORK/hf$r.txt" "$CORPUS" 2>/dev/null |
    sed -n 's/.*"seconds":\([0-9.]*\).*/\1/p')
  t0=$(now)
  "$BIN" tokenizer train --input "$CORPUS" --vocab-size 30005 --threads "$THREADS" --out "$WORK/bertpt$r" --quiet
  t1=$(now)
  bt=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
  tail -n +6 "$WORK/bertpt$r/vocab.txt" >"$WORK/bertpt$r.txt"
  printf '%-5s %12.3f %14.3f\n' "$r" "$hf" "$bt"
  hf_times+=("$hf") bt_times+=("$bt")
done
hf_med=$(printf '%s\n' "${hf_times[@]}" | median)
bt_med=$(printf '%s\n' "${bt_times[@]}" | median)
printf '%-5s %12.3f %14.3f\n' median "$hf_med" "$bt_med"
echo
awk -v h="$hf_med" -v b="$bt_med" 'BEGIN {printf "speed: bertpt is %.2fx faster than HF (median of %d runs; target >= 2x)\n", h / b, '"$RUNS"'}'

# Overlap: HF's tokens found in ours, per HF run; HF run vs HF run for reference (its "##" ids come
# from hash-map order, so HF's own runs differ a little).
echo "overlap (% of HF's 30,000 tokens in bertpt's 30,000 learned; target >= 99.9):"
for ((r = 1; r <= RUNS; r++)); do echo "  HF run $r in bertpt run 1: $(share "$WORK/hf$r.txt" "$WORK/bertpt1.txt")"; done
for ((r = 2; r <= RUNS; r++)); do echo "  HF run 1 in HF run $r (reference): $(share "$WORK/hf1.txt" "$WORK/hf$r.txt")"; done

# Determinism: every bertpt run, and a single-threaded one, must give the same bytes.
"$BIN" tokenizer train --input "$CORPUS" --vocab-size 30005 --threads 1 --out "$WORK/bertpt_t1" --quiet
same=yes
for ((r = 2; r <= RUNS; r++)); do cmp -s "$WORK/bertpt1/vocab.txt" "$WORK/bertpt$r/vocab.txt" || same=no; done
cmp -s "$WORK/bertpt1/vocab.txt" "$WORK/bertpt_t1/vocab.txt" || same=no
echo "determinism: bertpt vocab.txt identical across $RUNS runs and --threads 1/$THREADS: $same"
