#!/usr/bin/env bash
# The data stages at scale: `bertpt corpus merge` -> `tokenizer train` -> `prepare` on gigabytes of
# text whose vocabulary keeps growing, with Hugging Face `tokenizers` training on the same text beside
# it; wall time and peak memory of every stage, at two or more corpus sizes. Writes docs/scale.md
# itself (never edit it by hand) and the projection table of docs/guide-corpus.md (between
# <!-- scale.sh:begin --> and <!-- scale.sh:end -->; the rest of that page is prose).
#
# The corpus (bench/scale_corpus.py, seeded): documents drawn from the real text of the shared data
# (Wikipedia articles, Gutenberg paragraphs) with seeded word-level perturbations (synthetic names,
# rare words from a Zipf-distributed vocabulary, derived forms, numbers) so that its distinct words
# keep growing with its size as real text's do (Heaps' law); 6 wiki-NN.jsonl + 2 books-NN.jsonl
# files, 80% / 20% of the bytes. The largest size is generated once (and reused by later runs with
# the same generator, size and seed); each smaller size is the first bytes of every file of it.
#
# Per size, one run each, the input in the page cache:
#   merge     bertpt corpus merge -i 'wiki-*.jsonl' -i 'books-*.jsonl' --dedup --shuffle --seed 34
#   tok       bertpt tokenizer train --vocab-size 32000 --threads T        (on the merged JSONL)
#   prepare   bertpt prepare --seq-len 512 --threads T                     (idem, bertpt's tokenizer)
#   tok_hf    the guide's recipe as bench/peers.sh runs it (bench/peers/hf_tokenizer.py):
#             datasets load_dataset("json") + BertTokenizerFast.train_new_from_iterator(32000),
#             RAYON_NUM_THREADS=T
# and once: the shared enwiki-10k.xml's pages repeated into a ~25 MB dump, bzip2-compressed, read by
# `bertpt corpus merge` (the rate at which a MediaWiki dump becomes text, for the projection).
# Measured: wall time (start to exit), user + system CPU seconds and peak RSS (GNU /usr/bin/time -v:
# the largest single process), and the peak of the anonymous memory (RssAnon of the process tree,
# sampled every 0.5 s: RSS also counts file pages mapped in, such as the Arrow files of datasets).
# Checks (PASS/FAIL lines, in the page too): prepare's peak RSS at the largest size is at most 10%
# above the smallest size's; bertpt's tokenizer training peak RSS is below HF's at every size.
#
# Usage: bench/scale.sh [--sizes 512M,2G] [--work DIR] [--threads T] [--doc FILE] [--guide FILE]
#                       [--no-docs] [--seed N]
#   --sizes LIST: corpus sizes, K/M/G = KiB/MiB/GiB (default 512M,2G: ~70 min on 2 cores); 64M
#     is a smoke test (~3 min)
#   --work DIR: the corpora, outputs, logs/ and results/ (default /tmp/bertpt-scale; 2G needs ~12 GB)
#   --threads T: bertpt's --threads and HF's RAYON_NUM_THREADS (default: nproc)
#   --doc FILE: the page (default docs/scale.md); --guide FILE: the page with the projection table
#     (default docs/guide-corpus.md; left alone when it lacks the markers); --no-docs: neither
#   --seed N: the corpus generator's and the shuffle's seed (default 34)
# Environment: BERTPT_BIN (default build/bertpt; the run uses a copy taken at its start), PYTHON
# (default .venv/bin/python, with tokenizers, transformers, datasets, numpy: scripts/setup-test-peers),
# SHARED_DATA (default ../shared/data beside the repository). Needs GNU time (/usr/bin/time, Debian
# package `time`) and bzip2. Nothing reaches the Hugging Face hub.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BERTPT_BIN:-$ROOT/build/bertpt}
PY=${PYTHON:-$ROOT/.venv/bin/python}
DATA=${SHARED_DATA:-$ROOT/../shared/data}
[[ -d $DATA ]] || DATA=/work/shared/data

SIZES=512M,2G WORK=/tmp/bertpt-scale THREADS=$(nproc) DOC="" GUIDE="" DOCS=1 SEED=34
VOCAB=32000 SEQ=512
while (($#)); do
  case $1 in
    --sizes) SIZES=$2; shift 2 ;;
    --sizes=*) SIZES=${1#*=}; shift ;;
    --work) WORK=$2; shift 2 ;;
    --work=*) WORK=${1#*=}; shift ;;
    --threads) THREADS=$2; shift 2 ;;
    --threads=*) THREADS=${1#*=}; shift ;;
    --doc) DOC=$2; shift 2 ;;
    --doc=*) DOC=${1#*=}; shift ;;
    --guide) GUIDE=$2; shift 2 ;;
    --guide=*) GUIDE=${1#*=}; shift ;;
    --no-docs) DOCS=0; shift ;;
    --seed) SEED=$2; shift 2 ;;
    --seed=*) SEED=${1#*=}; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/scale.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

die() { echo "bench/scale.sh: $*" >&2; exit 1; }
[[ -x $BIN ]] || die "no bertpt binary at $BIN (build it, or set BERTPT_BIN)"
[[ -x $PY ]] || die "no Python at $PY (scripts/setup-test-peers makes .venv; or set PYTHON)"
"$PY" -c 'import tokenizers, transformers, datasets, numpy' 2>/dev/null ||
  die "$PY lacks tokenizers/transformers/datasets/numpy: run scripts/setup-test-peers"
[[ -x /usr/bin/time ]] && /usr/bin/time -v true > /dev/null 2>&1 ||
  die "no GNU time at /usr/bin/time (Debian: apt-get install time)"
command -v bzip2 > /dev/null || die "no bzip2 on PATH"
[[ -d $DATA/wikipedia_en_wikiextractor && -d $DATA/nltk_gutenberg ]] || die "no shared data at $DATA (set SHARED_DATA)"
[[ -r $DATA/mediawiki_xml_dumps/enwiki-10k.xml ]] || die "no $DATA/mediawiki_xml_dumps/enwiki-10k.xml"
[[ $THREADS =~ ^[1-9][0-9]*$ ]] || die "--threads must be a positive integer"
[[ $SEED =~ ^[0-9]+$ ]] || die "--seed must be a non-negative integer"
DOC=${DOC:-$ROOT/docs/scale.md}
GUIDE=${GUIDE:-$ROOT/docs/guide-corpus.md}

# Sizes: "label bytes" lines, smallest first.
to_bytes() {
  [[ $1 =~ ^([0-9]+)([KMG]?)$ ]] || die "bad size '$1' in --sizes (e.g. 64M, 512M, 2G)"
  local n=${BASH_REMATCH[1]}
  case ${BASH_REMATCH[2]} in K) n=$((n << 10)) ;; M) n=$((n << 20)) ;; G) n=$((n << 30)) ;; esac
  ((n > 0)) || die "size '$1' is zero"
  echo "$n"
}
for s in ${SIZES//,/ }; do to_bytes "$s" > /dev/null; done # dies here on a bad size
mapfile -t SIZE_ROWS < <(for s in ${SIZES//,/ }; do echo "$s $(to_bytes "$s")"; done | sort -n -k2 -u)
((${#SIZE_ROWS[@]} > 0)) || die "--sizes is empty"
LARGEST=${SIZE_ROWS[-1]%% *}
LARGEST_BYTES=${SIZE_ROWS[-1]##* }

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
R=$WORK/results
rm -rf "$R" "$WORK"/logs "$WORK"/bin "$WORK"/run-* "$WORK"/xml "$WORK"/hf-home
mkdir -p "$R" "$WORK"/logs "$WORK"/bin

# A snapshot of the binary: a rebuild of build/ during the run must not change (or break) it.
BIN_SHOWN=${BIN#"$ROOT"/}
cp "$BIN" "$WORK/bin/bertpt"
BIN=$WORK/bin/bertpt
"$BIN" --version > /dev/null || die "the copy of $BIN_SHOWN does not run (was it being rebuilt? try again)"
MERGE_THREADS=()
"$BIN" corpus merge --help 2>&1 | grep -q -- '--threads' && MERGE_THREADS=(--threads "$THREADS")
REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$ROOT" diff --quiet HEAD -- src CMakeLists.txt 2>/dev/null || REV+=" with uncommitted changes to src/"

export OMP_NUM_THREADS=$THREADS MKL_NUM_THREADS=$THREADS RAYON_NUM_THREADS=$THREADS TOKENIZERS_PARALLELISM=true
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HOME=$WORK/hf-home
export HF_DATASETS_DISABLE_PROGRESS_BARS=1 PYTHONWARNINGS=ignore

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
DATE=$(date -u '+%F %H:%M UTC')
T0=$(date +%s)
echo "$(date -u '+%F %T') start: sizes ${SIZES}, threads $THREADS, work $WORK, load $LOAD_START"

# The anonymous-memory sampler: peak over time of the summed RssAnon (and VmRSS) of a process tree.
cat > "$WORK/bin/rss_sampler.py" <<'PY'
import json, os, sys, time
root, out = int(sys.argv[1]), sys.argv[2]
def tree(pid):
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        pids.append(p)
        try:
            for t in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{t}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return pids
def status(pid):
    v = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, rest = line.partition(":")
                if k in ("RssAnon", "VmRSS"):
                    v[k] = int(rest.split()[0])
    except OSError:
        pass
    return v
peak_anon = peak_rss = 0
while os.path.exists(f"/proc/{root}"):
    anon = rss = 0
    for p in tree(root):
        s = status(p)
        anon += s.get("RssAnon", 0)
        rss += s.get("VmRSS", 0)
    peak_anon, peak_rss = max(peak_anon, anon), max(peak_rss, rss)
    time.sleep(0.5)
json.dump({"peak_anon_kib": peak_anon, "peak_tree_rss_kib": peak_rss}, open(out, "w"))
PY

# A command as the page shows it: the work directory and the repository root abbreviated.
show() {
  local s="" a
  for a in "$@"; do
    a=${a//$BIN/$BIN_SHOWN} a=${a//$PY/${PY#"$ROOT"/}} a=${a//$WORK/WORK} a=${a//$ROOT\//}
    [[ $a =~ [[:space:]*] ]] && a="'$a'"
    s+="${s:+ }$a"
  done
  echo "$s"
}

# m NAME -- CMD...: run CMD (stdout+stderr -> logs/NAME.log) under /usr/bin/time -v, with the
# sampler watching it. Results: NAME.wall (s), NAME.time (time -v), NAME.sampled.json; the command
# line -> commands.tsv. Fails the script with the log's tail when CMD fails.
m() {
  local name=$1; shift 2
  printf '%s\t%s\n' "$name" "$(show "$@")" >> "$R/commands.tsv"
  printf '  %-22s' "$name"
  local t0 t1 rc=0 pid
  t0=$(date +%s.%N)
  /usr/bin/time -v -o "$R/$name.time" "$@" > "$WORK/logs/$name.log" 2>&1 &
  pid=$!
  python3 "$WORK/bin/rss_sampler.py" "$pid" "$R/$name.sampled.json" &
  wait "$pid" || rc=$?
  t1=$(date +%s.%N)
  wait || true
  if ((rc != 0)); then
    echo "FAILED (exit $rc)"
    tail -n 30 "$WORK/logs/$name.log" >&2
    die "$name failed (log: $WORK/logs/$name.log)"
  fi
  echo "$t1 - $t0" | bc -l > "$R/$name.wall"
  local rss cpu
  rss=$(sed -n 's/^\s*Maximum resident set size (kbytes): //p' "$R/$name.time")
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.1f", s}' "$R/$name.time")
  printf '%8.1f s  %6.1f s CPU  %6d MiB peak RSS\n' "$(cat "$R/$name.wall")" "$cpu" "$((rss / 1024))"
}
# bertpt's --json summary is the last line of its stdout that starts with '{'.
json_of() { grep '^{' "$WORK/logs/$1.log" | tail -n 1 > "$R/$1.json" || die "$1: no JSON summary in logs/$1.log"; }

# --- the corpora: the largest generated (or reused), the others cut from it
GEN=$WORK/corpus-$LARGEST
KEY="$(sha256sum "$ROOT/bench/scale_corpus.py" | cut -c1-16) bytes=$LARGEST_BYTES seed=$SEED"
if [[ -s $GEN/key.txt && $(cat "$GEN/key.txt") == "$KEY" && -s $GEN/corpus.json ]]; then
  echo "corpus $LARGEST: reusing $GEN (same generator, size and seed)"
else
  rm -rf "$GEN"
  echo "corpus $LARGEST: generating (bench/scale_corpus.py, seed $SEED) ..."
  t0=$(date +%s)
  "$PY" "$ROOT/bench/scale_corpus.py" --data "$DATA" --out "$GEN" --bytes "$LARGEST_BYTES" --seed "$SEED" \
    --jobs "$THREADS" --result "$GEN/corpus.json.tmp"
  mv "$GEN/corpus.json.tmp" "$GEN/corpus.json"
  echo "$KEY" > "$GEN/key.txt"
  echo "  generated in $(($(date +%s) - t0)) s"
fi
cp "$GEN/corpus.json" "$R/corpus-$LARGEST.json"
for row in "${SIZE_ROWS[@]}"; do
  label=${row%% *} bytes=${row##* }
  [[ $label == "$LARGEST" ]] && continue
  rm -rf "$WORK/corpus-$label"
  "$PY" "$ROOT/bench/scale_corpus.py" --prefix-of "$GEN" --out "$WORK/corpus-$label" --bytes "$bytes" \
    --result "$R/corpus-$label.json"
done

# --- once: how fast a MediaWiki dump becomes text (the shared enwiki-10k.xml's <page> blocks
# repeated 40 times between its header and footer: ~25 MB; bzip2-compressed)
mkdir -p "$WORK/xml"
python3 - "$DATA/mediawiki_xml_dumps/enwiki-10k.xml" "$WORK/xml/dump.xml" 40 <<'PY'
import sys
src, dst, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(src, encoding="utf-8").read()
head, rest = text.split("<page>", 1)
body, tail = ("<page>" + rest).rsplit("</page>", 1)
with open(dst, "w", encoding="utf-8") as f:
    f.write(head)
    for _ in range(copies):
        f.write(body + "</page>")
    f.write(tail)
PY
bzip2 -f "$WORK/xml/dump.xml"
cat "$WORK/xml/dump.xml.bz2" > /dev/null
echo "MediaWiki dump ($(($(stat -c %s "$WORK/xml/dump.xml.bz2") >> 20)) MiB bz2)"
m xml_merge -- "$BIN" corpus merge -i "$WORK/xml/dump.xml.bz2" "${MERGE_THREADS[@]}" -o "$WORK/xml/text.jsonl" --json --quiet
json_of xml_merge
stat -c %s "$WORK/xml/dump.xml.bz2" > "$R/xml_merge.in_bytes"
stat -c %s "$WORK/xml/text.jsonl" > "$R/xml_merge.out_bytes"
rm -f "$WORK/xml/text.jsonl"

# --- per size
for row in "${SIZE_ROWS[@]}"; do
  label=${row%% *}
  C=$WORK/corpus-$label O=$WORK/run-$label
  mkdir -p "$O"
  find "$C" -name '*.jsonl' -exec cat {} + > /dev/null # into the page cache
  du -cb "$C"/*.jsonl | tail -n 1 | cut -f1 > "$R/$label.corpus_bytes"
  echo "size $label ($(($(cat "$R/$label.corpus_bytes") >> 20)) MiB in $C)"
  m "${label}_merge" -- "$BIN" corpus merge -i "$C/wiki-*.jsonl" -i "$C/books-*.jsonl" --dedup --shuffle \
    --seed "$SEED" "${MERGE_THREADS[@]}" -o "$O/merged.jsonl" --json --quiet
  json_of "${label}_merge"
  stat -c %s "$O/merged.jsonl" > "$R/$label.merged_bytes"
  m "${label}_tok" -- "$BIN" tokenizer train -i "$O/merged.jsonl" --vocab-size "$VOCAB" --threads "$THREADS" \
    -o "$O/tok" --json --quiet
  json_of "${label}_tok"
  m "${label}_prepare" -- "$BIN" prepare -i "$O/merged.jsonl" --tokenizer "$O/tok" --seq-len "$SEQ" \
    --threads "$THREADS" -o "$O/data" --json --quiet
  json_of "${label}_prepare"
  m "${label}_tok_hf" -- "$PY" "$ROOT/bench/peers/hf_tokenizer.py" --corpus "$O/merged.jsonl" --out "$O/tok-hf" \
    --vocab-size "$VOCAB" --cache "$O/hf-cache" --result "$R/${label}_tok_hf.json"
  du -sb "$O/hf-cache" | cut -f1 > "$R/$label.hf_cache_bytes"
  du -sb "$O/data" | cut -f1 > "$R/$label.data_bytes"
  rm -rf "$O/hf-cache" # the Arrow copy of the corpus: as big as the corpus
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
echo "$(date -u '+%F %T') measured in $(($(date +%s) - T0)) s; load $LOAD_END"

# --- the report: the console summary, docs/scale.md, the guide's projection table
CPU=$(lscpu 2>/dev/null | sed -n 's/^Model name:\s*//p' | head -n 1)
[[ -n $CPU ]] || CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs || true)
S_DATE=$DATE S_CPU=$CPU S_NPROC=$(nproc) S_MEM_KB=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo) \
  S_LOAD_START=$LOAD_START S_LOAD_END=$LOAD_END S_REV=$REV S_THREADS=$THREADS S_SEED=$SEED \
  S_SIZES="$(printf '%s\n' "${SIZE_ROWS[@]}")" S_ARGS="$SIZES" S_VOCAB=$VOCAB S_SEQ=$SEQ \
  S_BERTPT_VERSION="$("$BIN" --version 2>&1 | head -n 1)" S_MERGE_THREADS="${MERGE_THREADS[*]}" \
  S_VERSIONS="$("$PY" -c 'import platform, tokenizers, transformers, datasets; print(f"tokenizers {tokenizers.__version__}, transformers {transformers.__version__}, datasets {datasets.__version__}, Python {platform.python_version()}")')" \
  "$PY" - "$R" "$DOC" "$GUIDE" "$DOCS" <<'PY'
import json, math, os, sys

R, DOC, GUIDE, DOCS = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
E = os.environ
THREADS = int(E["S_THREADS"])
sizes = [line.split() for line in E["S_SIZES"].splitlines() if line.strip()]

def read(name):
    with open(os.path.join(R, name)) as f:
        return f.read().strip()
def jload(name):
    with open(os.path.join(R, name)) as f:
        return json.load(f)
def timev(name):
    out = {}
    for line in read(name + ".time").splitlines():
        k, _, v = line.strip().rpartition(": ")
        out[k] = v
    return {"rss_kib": int(out["Maximum resident set size (kbytes)"]),
            "cpu_s": float(out["User time (seconds)"]) + float(out["System time (seconds)"])}
def stage(name, in_bytes):
    t = timev(name)
    s = jload(name + ".sampled.json")
    wall = float(read(name + ".wall"))
    return {"wall": wall, "cpu": t["cpu_s"], "rss": t["rss_kib"] * 1024, "anon": s["peak_anon_kib"] * 1024,
            "in": in_bytes}
def mib(b):
    return f"{b / 2**20:,.0f} MiB"
def secs(s):
    if s >= 3600:
        return f"{s / 3600:.1f} h"
    if s >= 600:
        return f"{s / 60:.0f} min"
    return f"{s:,.1f} s"
def mbs(b, s):
    return f"{b / 1e6 / s:,.1f}" if s > 0 else "—"

res = {}
for label, nbytes in sizes:
    corpus = int(read(f"{label}.corpus_bytes"))
    merged = int(read(f"{label}.merged_bytes"))
    tokj = jload(f"{label}_tok.json")
    prepj = jload(f"{label}_prepare.json")
    mergej = jload(f"{label}_merge.json")
    hfj = jload(f"{label}_tok_hf.json")
    res[label] = {
        "corpus": corpus, "merged": merged, "tokj": tokj, "prepj": prepj, "mergej": mergej, "hfj": hfj,
        "merge": stage(f"{label}_merge", corpus), "tok": stage(f"{label}_tok", merged),
        "prepare": stage(f"{label}_prepare", merged), "tok_hf": stage(f"{label}_tok_hf", merged),
        "data_bytes": int(read(f"{label}.data_bytes")), "hf_cache_bytes": int(read(f"{label}.hf_cache_bytes")),
    }
labels = [l for l, _ in sizes]
xml = stage("xml_merge", int(read("xml_merge.in_bytes")))
xmlj = jload("xml_merge.json")
xml_out = xmlj["total"]["bytes"]  # UTF-8 bytes of the articles' text

def find(j, *keys):
    """The first of keys present in the JSON object j (searched one level down too)."""
    for k in keys:
        if k in j:
            return j[k]
    for v in j.values():
        if isinstance(v, dict):
            for k in keys:
                if k in v:
                    return v[k]
    return None

# distinct words, as the trainer counts them (BERT-normalised, pre-tokenised)
words = {l: (find(res[l]["tokj"], "words"), find(res[l]["tokj"], "distinct_words")) for l in labels}
def tokens_of(j):
    splits = j["manifest"]["splits"]
    return sum(s.get("input_tokens", 0) for s in splits.values())

# --- checks
checks = []
if len(labels) >= 2:
    a, b = res[labels[0]]["prepare"]["rss"], res[labels[-1]]["prepare"]["rss"]
    ok = b <= a * 1.10
    checks.append((ok, f"prepare peak RSS does not grow with the corpus: {mib(a)} at {labels[0]}, {mib(b)} at "
                       f"{labels[-1]} ({b / a:.2f}x for {res[labels[-1]]['merged'] / res[labels[0]]['merged']:.1f}x the text; "
                       f"limit 1.10x)"))
else:
    checks.append((None, "prepare peak RSS against the corpus size: needs two sizes (--sizes A,B)"))
for l in labels:
    bp, hf = res[l]["tok"], res[l]["tok_hf"]
    ok = bp["rss"] < hf["rss"]
    checks.append((ok, f"tokenizer training peak RSS at {l}: bertpt {mib(bp['rss'])} < HF {mib(hf['rss'])} "
                       f"(anonymous memory: bertpt {mib(bp['anon'])}, HF {mib(hf['anon'])})"))
def verdict(ok):
    return "n/a " if ok is None else ("PASS" if ok else "FAIL")
for ok, text in checks:
    print(f"{verdict(ok)} {text}")

# --- docs/scale.md
rows = []
for l in labels:
    r = res[l]
    def cell(s):
        return f"{secs(s['wall'])} | {mib(s['rss'])} ({mib(s['anon'])})"
    rows.append(f"| {l} | corpus merge --dedup --shuffle | {cell(r['merge'])} | | |")
    rows.append(f"| {l} | tokenizer training, vocab {E['S_VOCAB']} | {cell(r['tok'])} | {cell(r['tok_hf'])} |")
    rows.append(f"| {l} | prepare --seq-len {E['S_SEQ']} | {cell(r['prepare'])} | | |")
rate_rows = []
for l in labels:
    r = res[l]
    for key, what, thr in (("merge", "corpus merge", E["S_MERGE_THREADS"] or "1 thread (no --threads)"),
                           ("tok", "bertpt tokenizer train", f"--threads {THREADS}"),
                           ("prepare", "bertpt prepare", f"--threads {THREADS}"),
                           ("tok_hf", "HF train_new_from_iterator", f"RAYON_NUM_THREADS={THREADS}")):
        s = r[key]
        rate_rows.append(f"| {l} | {what} | {s['in'] / 1e6:,.0f} MB | {thr} | {secs(s['wall'])} | {mbs(s['in'], s['wall'])} "
                         f"| {s['cpu']:,.0f} s | {mbs(s['in'], s['cpu'])} |")
word_rows = []
prev = None
for l in labels:
    r = res[l]
    w, d = words[l]
    heaps = "—"
    if prev and w and d and prev[0] and prev[1]:
        heaps = f"{math.log(d / prev[1]) / math.log(w / prev[0]):.2f}"
    md = r["mergej"]
    word_rows.append(f"| {l} | {r['corpus']:,} | {md['total']['documents']:,} | {md['duplicates']:,} | "
                     f"{r['merged']:,} | "
                     f"{w:,} | {d:,} | {heaps} | {tokens_of(r['prepj']):,} |")
    prev = (w, d)
commands = {}
for line in read("commands.tsv").splitlines():
    name, cmd = line.split("\t", 1)
    commands[name] = cmd
gen = jload(f"corpus-{labels[-1]}.json")
check_lines = "\n".join(f"- **{verdict(ok)}** {text}" for ok, text in checks)

page = f"""# Scale: the data stages on gigabytes

Written by `bench/scale.sh --sizes {E['S_ARGS']} --threads {THREADS}` on {E['S_DATE']} (do not edit it by
hand: rerun the script). The corpus generator is `bench/scale_corpus.py`; the projection of these
rates onto the guide's corpus is in [guide-corpus.md](guide-corpus.md).

- **Machine**: {E['S_CPU'] or 'unknown CPU'}, nproc {E['S_NPROC']}, {int(E['S_MEM_KB']) / 2**20:.1f} GiB memory; load average
  (1, 5, 15 min) {E['S_LOAD_START']} before the run, {E['S_LOAD_END']} after it.
- **Versions**: {E['S_BERTPT_VERSION']} (commit {E['S_REV']}); {E['S_VERSIONS']}.
- **Corpus**: `bench/scale_corpus.py --seed {E['S_SEED']}`: documents drawn from the shared data's Wikipedia
  articles ({gen['seed_documents']['wiki']:,}) and Gutenberg paragraphs ({gen['seed_documents']['books']:,}), {gen['seed_bytes']['wiki'] + gen['seed_bytes']['books']:,} bytes of real
  text, each with seeded word-level perturbations (synthetic names, rare words from a Zipf-distributed
  vocabulary, derived forms, numbers) so that the vocabulary keeps growing with the size (its
  docstring says how and why); 6 `wiki-NN.jsonl` + 2 `books-NN.jsonl` files, 80% / 20% of the bytes.
  Each smaller size is the first bytes of every file of the largest. Generated in {secs(gen.get('generate_sec', 0))}.
- **Measured**: one run per cell, the input in the page cache; wall time from start to exit; peak RSS
  from GNU `/usr/bin/time -v` (the largest single process); in brackets the peak anonymous memory
  (RssAnon of the process tree sampled every 0.5 s: RSS also counts file pages mapped in, such as
  the Arrow cache that `datasets` memory-maps). HF = the guide's recipe as `bench/peers.sh` runs it:
  `load_dataset("json")` of the merged JSONL, then `train_new_from_iterator(vocab_size={E['S_VOCAB']})`
  (`bench/peers/hf_tokenizer.py`), `RAYON_NUM_THREADS={THREADS}`. bertpt's tokenizer is trained on the
  same merged JSONL; prepare uses bertpt's tokenizer.

## Wall time and peak memory

| size | stage | bertpt wall | bertpt peak RSS (anon) | HF wall | HF peak RSS (anon) |
|---|---|---:|---:|---:|---:|
""" + "\n".join(rows) + f"""

{check_lines}

## The corpora

Words and distinct words as `bertpt tokenizer train` counts them (after BERT normalisation and
pre-tokenisation); Heaps' exponent b = ln(V2/V1) / ln(N2/N1) from the previous size (Manning,
Raghavan and Schütze, *Introduction to Information Retrieval* 5.1.1: b ≈ 0.5 is typical of English).

| size | generated bytes | documents | duplicates dropped | merged bytes | words | distinct words | Heaps' b | tokens (prepare) |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
""" + "\n".join(word_rows) + f"""

## Throughput per stage

MB/s = input MB (10^6 bytes: the generated files for merge, the merged JSONL for the others) / wall
seconds; per CPU-second = input MB / (user + system CPU seconds), the rate one core sustains when
the stage's threads keep it busy (the basis of the projection in guide-corpus.md).

| size | stage | input | threads | wall | MB/s | CPU | MB per CPU-second |
|---|---|---:|---|---:|---:|---:|---:|
""" + "\n".join(rate_rows) + f"""

MediaWiki dump → text (`corpus merge` of the shared `enwiki-10k.xml`'s pages repeated 40 times,
bzip2): {xml['in'] / 1e6:,.1f} MB of bz2 → {xmlj['total']['documents']:,} articles, {xml_out / 1e6:,.1f} MB of text, in {secs(xml['wall'])}
({xml['cpu']:,.1f} s CPU): {mbs(xml_out, xml['cpu'])} MB of article text per CPU-second, peak RSS {mib(xml['rss'])}.

Disk: the prepared dataset at {labels[-1]} is {res[labels[-1]]['data_bytes'] / 2**20:,.0f} MiB; the `datasets` cache that HF's side makes
of the merged JSONL is {res[labels[-1]]['hf_cache_bytes'] / 2**20:,.0f} MiB (deleted after the run).

## Commands

WORK: the run's directory; the run uses a copy of the bertpt binary, taken at its start.

```sh
""" + "\n".join(commands.values()) + """
```
"""

# --- the guide's projection: the largest size's rates, onto Wikipedia 20220301.en + BookCorpus
big = res[labels[-1]]
CORES = 48
WIKI_TEXT, BOOK_TEXT = 20.0e9, 4.85e9  # bytes of text, the HF dataset cards (see the page)
TOTAL = WIKI_TEXT + BOOK_TEXT
merge_rate = big["merge"]["in"] / big["merge"]["cpu"]
xml_rate = xml_out / xml["cpu"]
tokj = big["tokj"]
# tokenizer train = counting (on --threads threads; scales with the text) + the merge loop (one
# thread; its time grows with the distinct words, not with the bytes) + saving
tok_single = tokj["seconds_merging"] + tokj["seconds_saving"]
tok_rate = big["tok"]["in"] / max(big["tok"]["cpu"] - tok_single, 1e-9)
prep_rate = big["prepare"]["in"] / big["prepare"]["cpu"]
merge_parallel = bool(E["S_MERGE_THREADS"])
def proj(total, rate, parallel):
    return total / (rate * (CORES if parallel else 1))
t_xml = proj(WIKI_TEXT, xml_rate, merge_parallel)
t_merge = proj(TOTAL, merge_rate, merge_parallel)
t_tok = proj(TOTAL, tok_rate, True) + tok_single
t_prep = proj(TOTAL, prep_rate, True)
prow = [
    f"| enwiki dump → text (MediaWiki XML, bz2) | 20 GB of text out (assumed) | {xml_rate / 1e6:,.1f} MB/CPU-s (text written) | "
    f"{'threads' if merge_parallel else '1 thread'} | {secs(t_xml)} |",
    f"| corpus merge --dedup --shuffle (JSONL) | {TOTAL / 1e9:.2f} GB | {merge_rate / 1e6:,.1f} MB/CPU-s | "
    f"{'threads' if merge_parallel else '1 thread'} | {secs(t_merge)} |",
    f"| tokenizer train --vocab-size {E['S_VOCAB']}: counting | {TOTAL / 1e9:.2f} GB | {tok_rate / 1e6:,.1f} MB/CPU-s | {CORES} threads | "
    f"{secs(t_tok - tok_single)} |",
    f"| tokenizer train: merge loop + saving | {words[labels[-1]][1]:,} distinct words at {labels[-1]} | {secs(tok_single)} measured | "
    f"1 thread | ≥ {secs(tok_single)} |",
    f"| prepare --seq-len {E['S_SEQ']} | {TOTAL / 1e9:.2f} GB | {prep_rate / 1e6:,.1f} MB/CPU-s | {CORES} threads | {secs(t_prep)} |",
    f"| **all four** | | | | **{secs(t_xml + t_merge + t_tok + t_prep)}** |",
]
projection = f"""
Projected by `bench/scale.sh --sizes {E['S_ARGS']}` on {E['S_DATE']} from its {labels[-1]} run on this project's
{E['S_NPROC']}-core machine ({E['S_CPU'] or 'unknown CPU'}; [scale.md](scale.md) has the measurements): time =
text size / (rate per CPU-second × threads), threads = {CORES} for a multi-threaded stage and 1 for a
single-threaded one.

| stage | input | measured rate | threads | projected time, 48 vCPUs |
|---|---|---:|---|---:|
""" + "\n".join(prow) + "\n"

if DOCS:
    tmp = DOC + ".tmp.scale"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, DOC)
    print(f"wrote {DOC}")
    BEGIN, END = "<!-- scale.sh:begin -->", "<!-- scale.sh:end -->"
    if os.path.exists(GUIDE):
        text = open(GUIDE, encoding="utf-8").read()
        if text.count(BEGIN) == 1 and text.count(END) == 1 and text.index(BEGIN) < text.index(END):
            i, j = text.index(BEGIN) + len(BEGIN), text.index(END)
            tmp = GUIDE + ".tmp.scale"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text[:i] + "\n" + projection + text[j:])
            os.replace(tmp, GUIDE)
            print(f"wrote the projection into {GUIDE}")
        else:
            print(f"{GUIDE}: no single {BEGIN} ... {END} pair; its projection table is left as it is")
    else:
        print(f"{GUIDE}: absent; no projection table written")
with open(os.path.join(R, "scale.md"), "w", encoding="utf-8") as f:
    f.write(page)
with open(os.path.join(R, "projection.md"), "w", encoding="utf-8") as f:
    f.write(projection)
PY
echo "$(date -u '+%F %T') done in $(($(date +%s) - T0)) s; results in $R"
