#!/usr/bin/env bash
# Wikipedia dump to prose: `bertpt corpus merge --format mediawiki` against WikiExtractor 3.1.0
# (PyPI, in .venv: `python -m wikiextractor.WikiExtractor --json`), side by side in one run: same
# dump, same machine, same number of workers (WikiExtractor's --processes P; bertpt's --read-threads P
# when its `corpus merge` converts pages on several threads, else one thread and the section says so).
# Writes its section of docs/corpora.md itself (between the markers
# <!-- wikiextractor-bench:start --> and <!-- wikiextractor-bench:end -->, appended at the end when
# absent; the rest of the file is left as it is): date, machine, load average, versions, the dump,
# the table and the exact commands. Never edit that section by hand.
#
# The dump: the real enwiki-10k.xml of the shared data (196 pages, 664 KB) with its <page> blocks
# repeated K times (each copy's titles get " (copy N)", page ids are renumbered 1, 2, ...: every
# title and id is unique), written plain and bzip2-compressed (bzip2 -k). Both inputs are measured.
# Per input and side: wall time (one run, after the dump has been read once into the page cache),
# peak RSS (GNU /usr/bin/time -v: the largest single process; WikiExtractor's workers are separate
# processes, so its total is larger), articles written (lines of the JSON output), pages/s (pages in
# the dump / wall seconds), and bertpt / WikiExtractor (the speed ratio: WikiExtractor's time /
# bertpt's; > 1: bertpt is faster).
#
# Usage: bench/wikiextractor.sh [--copies K] [--threads P] [--out DIR] [--doc FILE]
#   --copies K: copies of enwiki-10k.xml's pages in the dump (default 40: 7,840 pages, ~26 MB)
#   --threads P: WikiExtractor's --processes and bertpt's --read-threads (default: nproc)
#   --out DIR: the dump, the outputs, logs/ and results/ (default runs/wikiextractor)
#   --doc FILE: where the Markdown section goes (default docs/corpora.md)
# Environment: BERTPT_BIN (default build/bertpt), PYTHON (default .venv/bin/python, with
# wikiextractor 3.1.0: scripts/setup-test-peers), SHARED_DATA (default ../shared/data beside the
# repository). The dump is generated with the system python3.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BERTPT_BIN:-$ROOT/build/bertpt}
PY=${PYTHON:-$ROOT/.venv/bin/python}
DATA=${SHARED_DATA:-$ROOT/../shared/data}
SRC_DUMP=$DATA/mediawiki_xml_dumps/enwiki-10k.xml

COPIES=40 OUT="" THREADS=$(nproc) DOC=""
while (($#)); do
  case $1 in
    --copies) COPIES=$2; shift 2 ;;
    --copies=*) COPIES=${1#*=}; shift ;;
    --out) OUT=$2; shift 2 ;;
    --out=*) OUT=${1#*=}; shift ;;
    --threads) THREADS=$2; shift 2 ;;
    --threads=*) THREADS=${1#*=}; shift ;;
    --doc) DOC=$2; shift 2 ;;
    --doc=*) DOC=${1#*=}; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/wikiextractor.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

die() { echo "bench/wikiextractor.sh: $*" >&2; exit 1; }
[[ -x $BIN ]] || die "no bertpt binary at $BIN (build it, or set BERTPT_BIN)"
[[ -x $PY ]] || die "no Python at $PY (scripts/setup-test-peers makes .venv; or set PYTHON)"
"$PY" -c 'import wikiextractor.WikiExtractor' 2>/dev/null ||
  die "$PY lacks wikiextractor: run scripts/setup-test-peers"
command -v python3 > /dev/null || die "no python3 on PATH (it generates the dump)"
command -v bzip2 > /dev/null || die "no bzip2 on PATH"
[[ -r $SRC_DUMP ]] || die "no $SRC_DUMP (the shared data)"
[[ $THREADS =~ ^[1-9][0-9]*$ ]] || die "--threads must be a positive integer"
[[ $COPIES =~ ^[1-9][0-9]*$ ]] || die "--copies must be a positive integer"
OUT=${OUT:-$ROOT/runs/wikiextractor}
DOC=${DOC:-$ROOT/docs/corpora.md}
[[ -f $DOC || ! -e $DOC ]] || die "--doc $DOC is not a regular file"
TIME_V=""
[[ -x /usr/bin/time ]] && /usr/bin/time -v true > /dev/null 2>&1 && TIME_V=/usr/bin/time

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -rf "$OUT"/{results,logs,bin,wx-*,bertpt-*.jsonl,dump.xml,dump.xml.bz2}
mkdir -p "$OUT"/{results,logs,bin}
R=$OUT/results

# A snapshot of the binary: a rebuild of build/ during the run must not change (or break) it.
BIN_SHOWN=${BIN#"$ROOT"/}
cp "$BIN" "$OUT/bin/bertpt"
BIN=$OUT/bin/bertpt
"$BIN" --version > /dev/null || die "the copy of $BIN_SHOWN does not run (was it being rebuilt? try again)"
"$BIN" corpus merge --help 2>&1 | grep -q mediawiki || die "$BIN_SHOWN's corpus merge cannot read MediaWiki dumps"
BERTPT_THREADS=()
# --read-threads: the threads that turn the dump's wikitext into text (text/wiki_pages.h); one thread at a
# time parses the XML, a compressed dump is decompressed on a thread of its own.
if "$BIN" corpus merge --help 2>&1 | grep -A1 -- '--read-threads' | grep -q MediaWiki; then
  BERTPT_THREADS=(--read-threads "$THREADS")
  BERTPT_WORKERS="--read-threads $THREADS (wikitext conversion; the XML parsed by one thread at a time)"
else
  BERTPT_WORKERS="1 thread (its corpus merge converts a dump's pages on one thread)"
fi
REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$ROOT" diff --quiet HEAD -- src CMakeLists.txt 2>/dev/null || REV+=" with uncommitted changes to src/"

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
DATE=$(date -u '+%F %H:%M UTC')
echo "$(date -u '+%F %T') start: copies $COPIES, threads $THREADS, out $OUT, load $LOAD_START"

# --- the dump: header, K copies of the pages, footer; streamed (the source is read once per copy).
DUMP=$OUT/dump.xml
python3 - "$SRC_DUMP" "$DUMP" "$COPIES" "$R/dump.json" <<'PY'
import json, re, sys

src, dst, copies, result = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
title_re = re.compile(r"^(\s*<title>)(.*)(</title>.*)$", re.S)
id_re = re.compile(r"^(\s*<id>)(\d+)(</id>.*)$", re.S)
st = {"pages": 0, "ns0": 0, "ns0_redirects": 0}
page_id = 0
with open(dst, "w", encoding="utf-8", newline="") as out:
    for n in range(1, copies + 1):
        first, last = n == 1, n == copies
        state = "head"  # head | between (pages) | meta (page, before its <id>) | page | tail
        pages_this = 0
        with open(src, encoding="utf-8", newline="") as f:
            for line in f:
                s = line.strip()
                if state in ("head", "between") and s == "<page>":
                    state, title_done, ns, redirect = "meta", False, None, False
                    pages_this += 1
                elif state == "head":
                    if first:
                        out.write(line)
                    continue
                elif state == "between" and s.startswith("</mediawiki"):
                    state = "tail"
                elif state == "meta":
                    m = title_re.match(line)
                    if m and not title_done:
                        line = f"{m.group(1)}{m.group(2)} (copy {n}){m.group(3)}"
                        title_done = True
                    elif s.startswith("<ns>"):
                        ns = s[len("<ns>"):].split("<", 1)[0]
                    elif (m := id_re.match(line)):
                        if not title_done:
                            sys.exit(f"{src}: a page whose <id> comes before its <title>")
                        page_id += 1
                        line = f"{m.group(1)}{page_id}{m.group(3)}"
                        state = "page"
                    elif s == "</page>" or s.startswith("<revision"):
                        sys.exit(f"{src}: a page without <title> and <id> before its <revision>")
                elif state == "page":
                    if s.startswith("<redirect"):
                        redirect = True
                    elif s == "</page>":
                        state = "between"
                        st["pages"] += 1
                        if ns == "0":
                            st["ns0"] += 1
                            st["ns0_redirects"] += redirect
                if state == "tail" and not last:
                    continue
                out.write(line)
        if pages_this == 0 or state != "tail":
            sys.exit(f"{src}: no <page> lines, or no </mediawiki> line after the last </page>")
st["copies"] = copies
st["pages_per_copy"] = st["pages"] // copies
json.dump(st, open(result, "w"))
PY
bzip2 -k -f "$DUMP"
# As Wikipedia's *-multistream.xml.bz2: the header, then one bzip2 stream per 100 pages, then the footer.
MSDUMP=$OUT/dump-multistream.xml.bz2
python3 - "$DUMP" "$MSDUMP" <<'PY'
import bz2, sys

src, dst = sys.argv[1], sys.argv[2]
with open(src, "rb") as f, open(dst, "wb") as out:
    chunk, pages = [], 0
    for line in f:
        if line.strip() == b"<page>" and (pages == 0 or pages % 100 == 0) and chunk:
            out.write(bz2.compress(b"".join(chunk), 9))
            chunk = []
        if line.strip() == b"<page>":
            pages += 1
        elif line.strip().startswith(b"</mediawiki") and chunk:
            out.write(bz2.compress(b"".join(chunk), 9))
            chunk = []
        chunk.append(line)
    out.write(bz2.compress(b"".join(chunk), 9))
PY
jget() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$R/$1.json" "$2"; }
PAGES=$(jget dump pages)
PAGES_COPY=$(jget dump pages_per_copy)
NS0=$(jget dump ns0)
NS0_REDIR=$(jget dump ns0_redirects)
SIZE_XML=$(stat -c %s "$DUMP")
SIZE_BZ2=$(stat -c %s "$DUMP.bz2")
SIZE_MSBZ2=$(stat -c %s "$MSDUMP")
echo "dump: $PAGES pages ($NS0 in namespace 0, $NS0_REDIR of them redirects), $SIZE_XML bytes plain, $SIZE_BZ2 bz2," \
  "$SIZE_MSBZ2 multistream bz2"

# A command as the docs show it: OUT and the repository root abbreviated.
show() {
  local s="" a
  for a in "$@"; do
    a=${a//$BIN/$BIN_SHOWN} a=${a//$PY/${PY#"$ROOT"/}} a=${a//$OUT/OUT} a=${a//$ROOT\//}
    [[ $a =~ [[:space:]] ]] && a="'$a'"
    s+="${s:+ }$a"
  done
  echo "$s"
}

# m NAME -- CMD...: run CMD (stdout+stderr -> logs/NAME.log) under /usr/bin/time -v when there is
# one; wall seconds -> results/NAME.wall, peak RSS in KiB -> results/NAME.rss ("" without time -v),
# the command line -> results/commands.tsv. Fails the script with the log's tail when CMD fails.
m() {
  local name=$1; shift 2
  printf '%s\t%s\n' "$name" "$(show "$@")" >> "$R/commands.tsv"
  printf '  %-18s' "$name"
  local pre=() t0 t1 rc=0
  [[ -n $TIME_V ]] && pre=("$TIME_V" -v -o "$R/$name.time")
  t0=$(date +%s.%N)
  "${pre[@]}" "$@" > "$OUT/logs/$name.log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  if ((rc != 0)); then
    echo "FAILED (exit $rc)"
    tail -n 30 "$OUT/logs/$name.log" >&2
    die "$name failed (log: $OUT/logs/$name.log)"
  fi
  echo "$t1 - $t0" | bc -l > "$R/$name.wall"
  if [[ -n $TIME_V ]]; then
    sed -n 's/^\s*Maximum resident set size (kbytes): //p' "$R/$name.time" > "$R/$name.rss"
  else
    : > "$R/$name.rss"
  fi
  printf '%8.2f s  %s\n' "$(cat "$R/$name.wall")" "$( [[ -s $R/$name.rss ]] && echo "$(($(cat "$R/$name.rss") / 1024)) MiB")"
}

for input in xml bz2 msbz2; do
  f=$DUMP
  [[ $input == bz2 ]] && f=$DUMP.bz2
  [[ $input == msbz2 ]] && f=$MSDUMP
  cat "$f" > /dev/null # into the page cache: both sides read it warm
  echo "input dump.$input"
  m "wx_$input" -- "$PY" -m wikiextractor.WikiExtractor "$f" --json --processes "$THREADS" -q -o "$OUT/wx-$input"
  find "$OUT/wx-$input" -type f -name 'wiki_*' -exec cat {} + | wc -l > "$R/wx_$input.articles"
  m "bertpt_$input" -- "$BIN" corpus merge -i "$f" --format mediawiki "${BERTPT_THREADS[@]}" \
    -o "$OUT/bertpt-$input.jsonl" --quiet
  wc -l < "$OUT/bertpt-$input.jsonl" > "$R/bertpt_$input.articles"
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- the Markdown section
CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs || true)
MEM_KB=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
BERTPT_VERSION=$("$BIN" --version 2>&1 | head -n 1)
WX_VERSION=$("$PY" -m pip show wikiextractor 2>/dev/null | sed -n 's/^Version: //p' || true)
[[ -n $WX_VERSION ]] ||
  WX_VERSION=$("$PY" -c 'import importlib.metadata as m; print(m.version("wikiextractor"))')
PY_VERSION=$("$PY" -c 'import platform; print(platform.python_version())')
SECTION=$OUT/section.md
# The values travel in the environment (a quoted heredoc: nothing in them is read as code).
W_DATE=$DATE W_CPU=$CPU W_NPROC=$(nproc) W_MEM_KB=$MEM_KB W_LOAD_START=$LOAD_START W_LOAD_END=$LOAD_END \
  W_BERTPT_VERSION=$BERTPT_VERSION W_REV=$REV W_WX_VERSION=$WX_VERSION W_PY_VERSION=$PY_VERSION \
  W_WORKERS=$BERTPT_WORKERS W_THREADS=$THREADS W_COPIES=$COPIES W_PAGES=$PAGES W_PAGES_COPY=$PAGES_COPY \
  W_NS0=$NS0 W_NS0_REDIR=$NS0_REDIR W_SIZE_XML=$SIZE_XML W_SIZE_BZ2=$SIZE_BZ2 W_SIZE_MSBZ2=$SIZE_MSBZ2 \
  python3 - "$R" "$SECTION" <<'PY'
import os, sys

R, section = sys.argv[1], sys.argv[2]
E = os.environ
def read(name):
    with open(os.path.join(R, name)) as f:
        return f.read().strip()
def mib(b):
    return f"{int(b) / 2**20:.1f} MiB"
def rss(name):
    kb = read(name + ".rss")
    return f"{int(kb) / 1024:.0f} MiB" if kb else "n/a"

pages, threads, copies = int(E["W_PAGES"]), E["W_THREADS"], E["W_COPIES"]
rows = []
for inp, label, size in (("xml", "plain .xml", E["W_SIZE_XML"]), ("bz2", ".xml.bz2", E["W_SIZE_BZ2"]),
                         ("msbz2", "multistream .xml.bz2", E["W_SIZE_MSBZ2"])):
    wx, bp = float(read(f"wx_{inp}.wall")), float(read(f"bertpt_{inp}.wall"))
    rows.append(
        f"| {label} ({mib(size)}) "
        f"| {wx:.2f} s | {pages / wx:,.0f} | {rss('wx_' + inp)} | {int(read(f'wx_{inp}.articles')):,} "
        f"| {bp:.2f} s | {pages / bp:,.0f} | {rss('bertpt_' + inp)} | {int(read(f'bertpt_{inp}.articles')):,} "
        f"| **{wx / bp:.1f}x** |")
commands = [line.split("\t", 1)[1] for line in read("commands.tsv").splitlines()]

text = f"""### Speed against WikiExtractor

Written by `bench/wikiextractor.sh --copies {copies} --threads {threads}` on {E["W_DATE"]} (do not
edit it by hand: rerun the script).

- **Machine**: {E["W_CPU"] or "unknown CPU"}, nproc {E["W_NPROC"]}, {int(E["W_MEM_KB"]) / 2**20:.1f} GiB memory;
  load average (1, 5, 15 min) {E["W_LOAD_START"]} before the run, {E["W_LOAD_END"]} after it.
- **Versions**: {E["W_BERTPT_VERSION"]} (commit {E["W_REV"]}); WikiExtractor {E["W_WX_VERSION"]} (PyPI)
  on Python {E["W_PY_VERSION"]}.
- **Workers**: WikiExtractor `--processes {threads}`; bertpt {E["W_WORKERS"]}.
- **The dump**: the shared `mediawiki_xml_dumps/enwiki-10k.xml` ({int(E["W_PAGES_COPY"]):,} pages) with its
  `<page>` blocks repeated {copies} times (titles suffixed " (copy N)", page ids renumbered; header
  and footer kept once): {pages:,} pages, {int(E["W_NS0"]):,} of them in namespace 0
  ({int(E["W_NS0_REDIR"]):,} of those redirects); {mib(E["W_SIZE_XML"])} plain, {mib(E["W_SIZE_BZ2"])} after `bzip2 -k`
  (one stream), {mib(E["W_SIZE_MSBZ2"])} as Wikipedia's multistream files (one bzip2 stream per 100 pages).
- **Measured**: one run per cell, the dump already in the page cache; wall time from start to exit;
  pages/s = pages in the dump / wall seconds; peak RSS from GNU `/usr/bin/time -v` (the largest
  single process: WikiExtractor's workers are separate processes, so its total memory is larger);
  articles = JSON lines written. bertpt / WikiExtractor = WikiExtractor's time / bertpt's (above 1:
  bertpt is faster).

| input | WikiExtractor time | pages/s | peak RSS | articles | bertpt time | pages/s | peak RSS | articles | bertpt / WikiExtractor |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
""" + "\n".join(rows) + f"""

Commands (OUT: the run's directory; the run uses a copy of the bertpt binary, taken at its start):

```sh
""" + "\n".join(commands) + """
```
"""
with open(section, "w", encoding="utf-8") as f:
    f.write(text)
PY

# --- into the doc: between the markers (appended when absent); nothing else in the file changes.
python3 - "$DOC" "$SECTION" <<'PY'
import os, sys

doc, section = sys.argv[1], sys.argv[2]
START, END = "<!-- wikiextractor-bench:start -->", "<!-- wikiextractor-bench:end -->"
body = open(section, encoding="utf-8").read()
text = open(doc, encoding="utf-8").read() if os.path.exists(doc) else ""
ns, ne = text.count(START), text.count(END)
if ns == 0 and ne == 0:
    if text and not text.endswith("\n"):
        text += "\n"
    if text and not text.endswith("\n\n"):
        text += "\n"  # a blank line before the section
    text = f"{text}{START}\n{body}{END}\n"
elif ns == 1 and ne == 1 and text.index(START) < text.index(END):
    i = text.index(START) + len(START)
    j = text.index(END)
    text = f"{text[:i]}\n{body}{text[j:]}"
else:
    sys.exit(f"{doc}: the markers {START} / {END} are not one pair in order; fix them by hand")
tmp = doc + ".tmp.wikiextractor"
with open(tmp, "w", encoding="utf-8") as f:
    f.write(text)
os.replace(tmp, doc)
PY
cp "$SECTION" "$R/section.md"
echo "$(date -u '+%F %T') done: $(show "$DOC") updated; load $LOAD_END"
cat "$SECTION"
