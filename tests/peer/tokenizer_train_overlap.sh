#!/usr/bin/env bash
# `bertpt tokenizer train` against Hugging Face's WordPieceTrainer (tokenizers in .venv, through
# tests/peer/hf_train.py) on a multilingual corpus rich in Cyrillic: the Russian and Bulgarian
# fortunes plus a slice of each Latin-script fortunes language (fortunes-* packages, scripts/setup).
# HF numbers its "##" forms in the order of a randomly seeded hash map, so its own runs differ a
# little; bertpt passes when its mean overlap with HF's runs is no worse than HF's mean overlap with
# itself by more than MARGIN (overlap: shared learned tokens / learned tokens; the alphabet and the
# "##" forms left out). Vocabulary 30,000 learned tokens, bert-base-uncased pipeline, 2 threads.
#
# Usage: tokenizer_train_overlap.sh BERTPT_BIN SOURCE_DIR
# Env: HF_RUNS (default 6), MARGIN (default 0.0003), KEEP=DIR keeps the corpus and vocabularies.
# Exit 77 (CTest: skipped) when the peer or the fortunes are missing — except in CI, where that fails.
set -euo pipefail
bin=$1
src=$2
source "$src/tests/peer/lib.bash"
require_python tokenizers
FORTUNES=/usr/share/games/fortunes
[[ -d $FORTUNES/ru ]] || missing "no Russian fortunes in $FORTUNES/ru (fortunes-ru; scripts/setup)"
HF_RUNS=${HF_RUNS:-6}
MARGIN=${MARGIN:-0.0003}

if [[ -n ${KEEP:-} ]]; then
  work=$KEEP
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

# Whole files in sorted order; files that are not valid UTF-8 are left out (HF's trainer aborts on them).
valid_files() {
  find "$@" -type f ! -name '*.dat' ! -name '*.u8' 2>/dev/null | LC_ALL=C sort | while IFS= read -r f; do
    if iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1; then cat "$f"; fi
  done
}
{
  valid_files "$FORTUNES/ru" "$FORTUNES/bg"
  for lang in cs de eo es ga it pl; do
    # head closes the pipe early: that SIGPIPE is expected.
    if [[ -d $FORTUNES/$lang ]]; then (set +o pipefail; valid_files "$FORTUNES/$lang" | head -c 150000); fi
  done
} >"$work/corpus.txt"
echo "corpus: $(stat -c %s "$work/corpus.txt") bytes"

for ((r = 1; r <= HF_RUNS; r++)); do
  (cd "$src/tests/peer" && RAYON_NUM_THREADS=2 "$py" hf_train.py train wordpiece lowercase "$work/hf$r.txt" \
    "$work/corpus.txt" >/dev/null)
done
# HF's trainer has no special tokens here: bertpt learns 30,000 tokens beside its five.
"$bin" tokenizer train --input "$work/corpus.txt" --vocab-size 30005 --threads 2 --out "$work/bertpt" --quiet

exec "$py" - "$work" "$HF_RUNS" "$MARGIN" <<'EOF'
import itertools, statistics, sys

work, runs, margin = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])


def learned(path, skip=0):
    with open(path, encoding='utf-8') as f:
        tokens = [line.rstrip('\n') for line in f][skip:]
    return {t for t in tokens if len(t[2:] if t.startswith('##') else t) > 1}


hf = [learned(f'{work}/hf{r}.txt') for r in range(1, runs + 1)]
ours = learned(f'{work}/bertpt/vocab.txt', 5)
if any(len(h) != len(ours) for h in hf):
    sys.exit(f'learned token counts differ: bertpt {len(ours)}, HF {[len(h) for h in hf]}')
hf_hf = [len(a & b) / len(a) for a, b in itertools.combinations(hf, 2)]
ours_hf = [len(ours & h) / len(h) for h in hf]
print(f'learned tokens: {len(ours)}')
print(f'HF vs HF     ({len(hf_hf)} pairs): mean {statistics.mean(hf_hf):.5f}, {min(hf_hf):.5f} .. {max(hf_hf):.5f}')
print(f'bertpt vs HF ({len(ours_hf)} runs):  mean {statistics.mean(ours_hf):.5f}, {min(ours_hf):.5f} .. {max(ours_hf):.5f}')
if statistics.mean(ours_hf) < statistics.mean(hf_hf) - margin:
    sys.exit(f'FAIL: bertpt agrees with HF less than HF agrees with itself (margin {margin})')
print('ok')
EOF
