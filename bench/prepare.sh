#!/usr/bin/env bash
# bertpt prepare (tokenize + pack) against Hugging Face's encode_batch (Python tokenizers in .venv,
# pinned in requirements/hf-peer.txt; the Rust tokenizer) on the same text with the same
# tokenizer, side by side in one run; plus bertpt's peak memory, and its thread scaling.
#   bench/prepare.sh            ~12 MB of Python docs (python3.11-doc), one document per line
#   BIG_GB=1 bench/prepare.sh   also a ~1 GB corpus, to show that memory stays flat
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BERTPT=${BERTPT_BIN:-$here/build/bertpt}
PEER=$here/tests/peer
PY=${BERTPT_PEER_PYTHON:-$here/.venv/bin/python}
"$PY" -c "import tokenizers" 2>/dev/null || "$here/scripts/setup-test-peers"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

find /usr/share/doc/python3.11/html/_sources -name '*.txt' -print0 | sort -z | xargs -0 cat | grep -v '^\s*$' > "$work/corpus.txt"
size=$(stat -c %s "$work/corpus.txt")
echo "corpus: python3.11-doc sources, $(wc -l < "$work/corpus.txt") lines, $(numfmt --to=si "$size")B; $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%F)"

# One tokenizer for both: HF trains it (vocab 30,000, BERT uncased pipeline).
(cd "$PEER" && "$PY" peer.py train-bert "$work/tok" lowercase "$work/corpus.txt" >/dev/null)

hf=$(cd "$PEER" && RAYON_NUM_THREADS=$(nproc) "$PY" peer.py bench "$work/tok/tokenizer.json" "$work/corpus.txt" 3)
hf_tps=$(echo "$hf" | sed 's/.*"tokens_per_second":\([0-9.e+]*\).*/\1/')
hf_tokens=$(echo "$hf" | sed 's/.*"tokens":\([0-9]*\).*/\1/')
printf '%-44s %14s %10s %14s\n' "system" "tokens" "seconds" "M tokens/s"
printf '%-44s %14s %10.3f %14.2f\n' "HF encode_batch ($(nproc) threads)" "$hf_tokens" "$(echo "$hf_tokens/$hf_tps" | bc -l)" "$(echo "$hf_tps/1000000" | bc -l)"

run_prepare() {  # threads input out -> "tokens seconds peak_rss_kb"
  /usr/bin/time -f '%M' -o "$work/rss" "$BERTPT" prepare --quiet --json -i "$2" -t "$work/tok" -o "$3" \
    --seq-len 512 --threads "$1" --overwrite > "$work/out.json"
  python3 -c "import json,sys; j=json.load(open('$work/out.json')); m=j['manifest']['splits']; \
print(m['train']['input_tokens']+m['valid']['input_tokens'], j['seconds'], open('$work/rss').read().strip())"
}
for t in 1 2; do
  read -r tokens secs rss < <(run_prepare "$t" "$work/corpus.txt" "$work/data")
  printf '%-44s %14s %10.3f %14.2f   peak RSS %s MB, %.2fx HF\n' "bertpt prepare --threads $t (tokenize+pack+write)" "$tokens" "$secs" \
    "$(echo "$tokens/$secs/1000000" | bc -l)" "$((rss / 1024))" "$(echo "$tokens/$secs/$hf_tps" | bc -l)"
done
[[ $tokens == "$hf_tokens" ]] && echo "token counts agree: $tokens" || echo "TOKEN COUNTS DIFFER: bertpt $tokens vs HF $hf_tokens"

if [[ ${BIG_GB:-0} != 0 ]]; then
  reps=$(( BIG_GB * 1000000000 / size + 1 ))
  for ((i = 0; i < reps; i++)); do cat "$work/corpus.txt"; done | zstd -q -1 -T2 -o "$work/big.txt.zst"
  read -r tokens secs rss < <(run_prepare 2 "$work/big.txt.zst" "$work/big")
  printf '%-44s %14s %10.3f %14.2f   peak RSS %s MB\n' "bertpt prepare --threads 2, ${BIG_GB} GB (zstd)" "$tokens" "$secs" \
    "$(echo "$tokens/$secs/1000000" | bc -l)" "$((rss / 1024))"
fi
