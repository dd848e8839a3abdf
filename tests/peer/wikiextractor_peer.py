"""bertpt's MediaWiki dump reader against WikiExtractor 3.1.0 on the same dumps.

For each dump: WikiExtractor (--json, 1 process) and `bertpt corpus merge --format mediawiki` (no
shuffle, so in page order) must keep the same articles — namespace 0, no redirects, a non-empty text
— and per article the word multisets (\\w+ tokens) must agree with an F1 of at least 0.95 on average
and 0.80 for every article. Prints the mean, the worst articles and both tools' times.

Usage: wikiextractor_peer.py BERTPT_BIN DUMP [DUMP ...]
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time

WORD = re.compile(r"\w+")


def words(text):
    return collections.Counter(WORD.findall(text))


def f1(a, b):
    common = sum((a & b).values())
    if common == 0:
        return 1.0 if not a and not b else 0.0
    p, r = common / sum(b.values()), common / sum(a.values())
    return 2 * p * r / (p + r)


def wikiextractor(dump, out):
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-m", "wikiextractor.WikiExtractor", dump, "--json", "--processes", "1", "-q",
                    "-o", out], check=True)
    seconds = time.monotonic() - t0
    docs = []
    for root, _, files in sorted(os.walk(out)):
        for name in sorted(files):
            with open(os.path.join(root, name), encoding="utf-8") as f:
                docs += [json.loads(line) for line in f]
    # bertpt skips a document without words (and counts it); so do we here.
    return [d for d in docs if WORD.search(d["text"])], seconds


def bertpt(binary, dump, out):
    t0 = time.monotonic()
    subprocess.run([binary, "corpus", "merge", "-i", dump, "--format", "mediawiki", "-o", out, "--quiet"], check=True)
    seconds = time.monotonic() - t0
    with open(out, encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f], seconds


def main():
    binary, dumps = sys.argv[1], sys.argv[2:]
    failures = []
    for dump in dumps:
        with tempfile.TemporaryDirectory() as work:
            ref, we_s = wikiextractor(dump, os.path.join(work, "we"))
            ours, bp_s = bertpt(binary, dump, os.path.join(work, "bertpt.jsonl"))
        name = os.path.basename(dump)
        print(f"{name}: WikiExtractor {len(ref)} articles in {we_s:.2f} s, bertpt {len(ours)} in {bp_s:.2f} s")
        if len(ref) != len(ours):
            failures.append(f"{name}: WikiExtractor kept {len(ref)} articles, bertpt {len(ours)}")
            continue
        scores = sorted((f1(words(r["text"]), words(o)), r["title"]) for r, o in zip(ref, ours))
        mean = sum(s for s, _ in scores) / len(scores)
        print(f"  word F1 per article: mean {mean:.4f}, lowest " +
              ", ".join(f"{t!r} {s:.3f}" for s, t in scores[:3]))
        if mean < 0.95:
            failures.append(f"{name}: mean word F1 {mean:.4f} < 0.95")
        if scores[0][0] < 0.80:
            failures.append(f"{name}: article {scores[0][1]!r} has word F1 {scores[0][0]:.3f} < 0.80")
    if failures:
        print("FAIL: " + "; ".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
