#!/usr/bin/env bash
# Corpus reading speed: `bertpt corpus stats` (decompress + split + UTF-8 check + count) against the
# plain decompressors `zcat` / `zstdcat` / `xzcat` on the same files, side by side, median of N runs.
# Usage: bench/corpus.sh [TEXT_SOURCE ...]   (default: ../shared/data Wikipedia, else python docs)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BERTPT=${BERTPT_BIN:-$here/build/bertpt}
RUNS=${RUNS:-3}
COPIES=${COPIES:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sources=("$@")
if ((${#sources[@]} == 0)); then
  if [[ -d $here/../shared/data/wikipedia_en_wikiextractor ]]; then
    sources=("$here/../shared/data/wikipedia_en_wikiextractor")
  else
    sources=(/usr/share/doc/python3.11/html/_sources)
  fi
fi
for ((i = 0; i < COPIES; i++)); do find "${sources[@]}" -type f -print0 | sort -z | xargs -0 cat; done > "$work/corpus.txt"
size=$(stat -c %s "$work/corpus.txt")
gzip -6 -k -c "$work/corpus.txt" > "$work/corpus.txt.gz"
zstd -q -3 -c "$work/corpus.txt" > "$work/corpus.txt.zst"
xz -1 -T1 -c "$work/corpus.txt" > "$work/corpus.txt.xz"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_cmd() {  # prints the median wall seconds of RUNS runs of "$@"
  for ((r = 0; r < RUNS; r++)); do
    local t0=$(date +%s.%N); "$@" > /dev/null 2>&1; local t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
  done | median
}

echo "corpus: ${sources[*]} x$COPIES = $(numfmt --to=si "$size")B; $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%F)"
printf '%-6s %-22s %10s %12s %-22s %10s %12s %8s\n' codec peer seconds "MB/s" bertpt seconds "MB/s" ratio
for codec in gz zst xz; do
  case $codec in gz) peer=(zcat);; zst) peer=(zstdcat);; xz) peer=(xzcat -T1);; esac
  f="$work/corpus.txt.$codec"
  tp=$(time_cmd "${peer[@]}" "$f")
  tb=$(time_cmd "$BERTPT" corpus stats --quiet --json -i "$f")
  printf '%-6s %-22s %10.3f %12.1f %-22s %10.3f %12.1f %8.2f\n' "$codec" "${peer[*]}" "$tp" "$(echo "$size/$tp/1000000" | bc -l)" \
    "corpus stats" "$tb" "$(echo "$size/$tb/1000000" | bc -l)" "$(echo "$tp/$tb" | bc -l)"
done
tp=$(time_cmd cat "$work/corpus.txt")
tb=$(time_cmd "$BERTPT" corpus stats --quiet --json -i "$work/corpus.txt")
printf '%-6s %-22s %10.3f %12.1f %-22s %10.3f %12.1f %8.2f\n' none cat "$tp" "$(echo "$size/$tp/1000000" | bc -l)" \
  "corpus stats" "$tb" "$(echo "$size/$tb/1000000" | bc -l)" "$(echo "$tp/$tb" | bc -l)"
echo "(ratio = peer time / bertpt time; >= 1 means bertpt keeps up with plain decompression)"
