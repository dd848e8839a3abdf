#!/usr/bin/env python3
"""The corpus of bench/scale.sh: gigabytes of JSONL text with a vocabulary that keeps growing with
the size, made deterministically (seeded) from the real text of the shared data.

  scale_corpus.py --data SHARED_DATA --out DIR --bytes N [--files-wiki 6] [--files-books 2]
                  [--wiki-share 0.8] [--seed 34] [--jobs 2] [--result R.json]
  scale_corpus.py --prefix-of DIR --out DIR2 --bytes M     (the first M bytes of DIR's corpus)

Writes DIR/wiki-NN.jsonl and DIR/books-NN.jsonl, one {"text": ...} object per line (the row shape
of HF's wikipedia and bookcorpus exports), about N bytes in all, the wiki files 80% of the bytes
and the books 20% (the guide's Wikipedia 20220301.en + BookCorpus: about 20 GB + 4.85 GB by their
Hugging Face dataset cards). Every file is an independent seeded stream, so the first M bytes of each file of a big
corpus are exactly what a smaller run with the same seed writes: --prefix-of cuts them (at a line
end) instead of generating again, and the sizes of one bench/scale.sh run are nested corpora.

Seed text (the shared data, read-only):
  wiki:  wikipedia_en_wikiextractor/text/AA/wiki_* (13,812 non-empty articles, 21 MB; the title
         line dropped as in HF's wikipedia rows)
  books: nltk_gutenberg/*.txt (14 Project Gutenberg books, 6 MB), one paragraph per document with
         its hard line breaks joined (BookCorpus rows are short: about 74 M sentences)

Why the vocabulary grows realistically. Repeating the 27 MB of seed text would give a corpus whose
distinct words stop growing after the first copy (and that `corpus merge --dedup` shrinks back to
27 MB): the word-count table the tokenizer trainers keep would stay small whatever the size, which
is exactly what a scale test must not do. Real text follows Heaps' law, V(N) = k * N^b distinct
words after N words (Manning, Raghavan and Schuetze, Introduction to Information Retrieval, 5.1.1:
b about 0.5, k between 30 and 100; 44 and 0.49 for Reuters RCV1), and most of the words that keep
appearing in Wikipedia-sized text are names, rare and derived word forms and numbers. So every
output document is a randomly drawn seed document (uniformly, with replacement) with seeded
word-level perturbations of exactly those kinds:
  - names: each distinct capitalised word of the document (3+ letters; not one that the seed text
    also has in lowercase, such as a sentence's first "The") is, with probability
    --p-name, replaced everywhere in the document by one synthetic name (new entities recur
    within an article: burstiness, as in real text);
  - rare words: each word of 4+ letters is, with probability --p-word, replaced by a synthetic
    word (capitalised when the word was);
  - derived forms: each lowercase word of 5+ letters is, with probability --p-morph, given an
    English prefix or suffix (un-, re-, -ness, -ised, ...): forms such as "reharbour", "capitalness";
  - numbers: each number is, with probability 1/2, given new random digits in its second half
    (1966 -> 19xx: years stay years).
Synthetic names and words are pronounceable syllable strings ("tavesh", "Brolimard") indexed by a
rank drawn from a Zipf-Mandelbrot-like law: rank = BLOCK * (z - 1) + u, z ~ Zipf(--zipf-a)
(numpy's unbounded zeta distribution), u uniform in [0, BLOCK). Their number of distinct values
after m draws grows like m^(1/a) for large m (Heaps' exponent b = 1/a), so the corpus keeps
meeting new words at every size instead of saturating; frequent ranks recur like frequent words.
The defaults were chosen so that the distinct words counted by the tokenizer trainer follow
b ~ 0.5-0.6 between 0.5 and 2 GB; bench/scale.sh reports the counts it measured.

Text hygiene is left to bertpt as for any corpus: the output is valid UTF-8, one JSON object per
line. Stdlib + numpy only (the .venv of scripts/setup-test-peers has numpy).
"""

import argparse
import glob
import json
import multiprocessing as mp
import os
import random
import re
import sys
import time

import numpy as np

ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
          "br", "ch", "cl", "dr", "fr", "gl", "gr", "kr", "pl", "pr", "sh", "sk", "sl", "st", "th", "tr", "qu", ""]
NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "ie", "y"]
CODAS = ["", "", "", "n", "r", "l", "s", "m", "sh", "rd", "nt", "x"]
SYLLABLES = [o + n + c for o in ONSETS for n in NUCLEI for c in CODAS]
PREFIXES = ["un", "re", "pre", "non", "over", "under", "anti", "counter", "micro", "neo", "sub", "inter", "post"]
SUFFIXES = ["s", "es", "ed", "ing", "er", "ers", "ly", "ness", "less", "ful", "able", "ism", "ist", "ised",
            "ize", "ization", "ation", "al", "ity", "ish", "ship", "hood", "ment", "ian"]
NAME_ENDINGS = ["", "", "", "son", "ov", "ez", "ini", "berg", "ton", "ski", "ard", "ville", "ia", "stan"]

SPLIT = re.compile(r"(\s+)")
CORE = re.compile(r"^([^\w]*)([^\W\d_]+)(.*)$", re.S)  # punctuation, letters, the rest
CAPWORD = re.compile(r"^[^\w]*([A-Z][a-z]{2,})(?:[^\w].*)?$", re.S)
NUMBER = re.compile(r"\d+")
LOWERWORD = re.compile(r"(?<![\w])[a-z]{3,}(?![\w])")


def word_of(rank):
    """A pronounceable string for a rank >= 0: ranks [0, S^2) are the two-syllable words, the next
    S^3 the three-syllable ones, ... (S syllables), each block scrambled by an affine bijection so
    that neighbouring ranks share no syllable pattern. Distinct ranks give distinct sequences."""
    s = len(SYLLABLES)
    k, size = 2, s * s
    while rank >= size:
        rank -= size
        k += 1
        size *= s
    q = (rank * 1_000_003 + 12_345) % size  # 1,000,003 is prime, coprime to S = 2^5 * 3^3 * 5
    parts = []
    for _ in range(k):
        parts.append(SYLLABLES[q % s])
        q //= s
    return "".join(parts)


def other_number(py, digits):
    """The number with its second half of digits redrawn (1966 -> 19xx: years stay years)."""
    n = len(digits)
    keep = (n + 1) // 2
    return digits[:keep] + "".join(str(py.randrange(10)) for _ in range(n - keep))


def name_of(rank):
    return (word_of(rank + 7919) + NAME_ENDINGS[rank % len(NAME_ENDINGS)]).capitalize()


# --- seed documents ----------------------------------------------------------------------------

def load_wiki(data):
    docs = []
    for f in sorted(glob.glob(os.path.join(data, "wikipedia_en_wikiextractor/text/AA/wiki_*"))):
        text = open(f, encoding="utf-8").read()
        for m in re.finditer(r"<doc [^>]*>\n(.*?)</doc>", text, re.S):
            body = m.group(1)
            body = body.split("\n", 1)[1].strip() if "\n" in body else ""
            if body:
                docs.append(body)
    return docs


def load_books(data):
    docs = []
    for f in sorted(glob.glob(os.path.join(data, "nltk_gutenberg/*.txt"))):
        text = open(f, encoding="latin-1").read()
        for para in re.split(r"\n\s*\n", text):
            para = " ".join(para.split())
            if para:
                docs.append(para)
    return docs


class Seed:
    """A seed document split once: parts (words at even indices, whitespace at odd ones), and the
    positions of its capitalised words (by word) and of its numbers."""

    __slots__ = ("parts", "caps", "nums", "nwords")

    def __init__(self, text, common):
        parts = SPLIT.split(text)
        self.parts = parts
        caps = {}
        nums = []
        for i in range(0, len(parts), 2):
            w = parts[i]
            m = CAPWORD.match(w)
            if m and m.group(1).lower() not in common:
                caps.setdefault(m.group(1), []).append(i)
            if NUMBER.search(w):
                nums.append(i)
        self.caps = list(caps.items())
        self.nums = nums
        self.nwords = (len(parts) + 1) // 2


SEEDS = {}  # kind -> [Seed], loaded in the parent before the workers fork


class Draws:
    """Batched random numbers of one stream (numpy is fast per batch, slow per call)."""

    def __init__(self, rng, a, block):
        self.rng, self.a, self.block = rng, a, block
        self.z = np.empty(0, dtype=np.int64)
        self.zi = 0

    def rank(self):
        if self.zi == len(self.z):
            z = self.rng.zipf(self.a, size=1 << 16)
            u = self.rng.integers(0, self.block, size=1 << 16)
            self.z = ((z - 1) * self.block + u).tolist()
            self.zi = 0
        r = self.z[self.zi]
        self.zi += 1
        return r


def write_file(job):
    kind, index, nbytes, seed, a, block, p_name, p_word, p_morph, path = job
    seeds = SEEDS[kind]
    rng = np.random.default_rng([seed, 0 if kind == "wiki" else 1, index])
    names = Draws(rng, a, block)
    words = Draws(rng, a, block)
    py = random.Random(int(rng.integers(1 << 62)))  # scalar draws (numbers), from the same seed
    written = 0
    docs = 0
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        while written < nbytes:
            batch = 256
            picks = rng.integers(0, len(seeds), size=batch).tolist()
            lines = []
            for k in picks:
                s = seeds[k]
                parts = s.parts[:]  # a copy; the seed stays as it is
                # names: consistently within the document
                if s.caps:
                    flips = (rng.random(len(s.caps)) < p_name).tolist()
                    for (word, positions), flip in zip(s.caps, flips):
                        if flip:
                            new = name_of(names.rank())
                            for i in positions:
                                parts[i] = parts[i].replace(word, new, 1)
                # numbers
                if s.nums:
                    flips = (rng.random(len(s.nums)) < 0.5).tolist()
                    for i, flip in zip(s.nums, flips):
                        if flip:
                            parts[i] = NUMBER.sub(lambda m: other_number(py, m.group()), parts[i])
                # rare words and derived forms at random positions
                n = s.nwords
                nw = rng.binomial(n, p_word)
                nm = rng.binomial(n, p_morph)
                if nw or nm:
                    pos = (rng.integers(0, n, size=nw + nm) * 2).tolist()
                    aff = rng.integers(0, 1 << 30, size=nm).tolist()
                    for j, i in enumerate(pos):
                        m = CORE.match(parts[i])
                        if not m:
                            continue
                        pre, core, post = m.groups()
                        if len(core) < 4 or (j >= nw and (len(core) < 5 or not core.islower())):
                            continue  # content words only; derived forms of lowercase words
                        if j < nw:
                            new = word_of(words.rank())
                            if core[0].isupper():
                                new = new.capitalize()
                        else:
                            x = aff[j - nw]
                            if x & 1:
                                new = core + SUFFIXES[(x >> 1) % len(SUFFIXES)]
                            else:
                                new = PREFIXES[(x >> 1) % len(PREFIXES)] + core
                        parts[i] = pre + new + post
                line = json.dumps({"text": "".join(parts)}, ensure_ascii=False) + "\n"
                lines.append(line)
            chunk = "".join(lines)
            out.write(chunk)
            written += len(chunk.encode("utf-8"))
            docs += len(lines)
    os.replace(tmp, path)
    return {"file": os.path.basename(path), "bytes": os.path.getsize(path), "documents": docs}


def generate(a):
    t0 = time.monotonic()
    texts = {"wiki": load_wiki(a.data), "books": load_books(a.data)}
    # Words seen in lowercase somewhere in the seed text are common words ("The", "This" at the
    # start of a sentence): only the other capitalised words are names.
    common = set()
    for docs in texts.values():
        for t in docs:
            common.update(w for w in LOWERWORD.findall(t))
    SEEDS["wiki"] = [Seed(t, common) for t in texts["wiki"]]
    SEEDS["books"] = [Seed(t, common) for t in texts["books"]]
    del texts, common
    if not SEEDS["wiki"] or not SEEDS["books"]:
        sys.exit(f"scale_corpus.py: no seed text under {a.data} (wikipedia_en_wikiextractor, nltk_gutenberg)")
    t_loaded = time.monotonic()
    os.makedirs(a.out, exist_ok=True)
    per_wiki = int(a.bytes * a.wiki_share) // a.files_wiki
    per_books = (a.bytes - per_wiki * a.files_wiki) // a.files_books
    jobs = [("wiki", i, per_wiki, a.seed, a.zipf_a, a.block, a.p_name, a.p_word, a.p_morph,
             os.path.join(a.out, f"wiki-{i:02d}.jsonl")) for i in range(a.files_wiki)]
    jobs += [("books", i, per_books, a.seed, a.zipf_a, a.block, a.p_name, a.p_word, a.p_morph,
              os.path.join(a.out, f"books-{i:02d}.jsonl")) for i in range(a.files_books)]
    jobs.sort(key=lambda j: -j[2])  # the biggest first: the workers end together
    with mp.get_context("fork").Pool(a.jobs) as pool:
        files = pool.map(write_file, jobs, chunksize=1)
    files.sort(key=lambda f: f["file"])
    return {
        "seed_documents": {k: len(v) for k, v in SEEDS.items()},
        "seed_bytes": {k: sum(len("".join(s.parts).encode()) for s in v) for k, v in SEEDS.items()},
        "load_sec": t_loaded - t0,
        "generate_sec": time.monotonic() - t_loaded,
        "files": files,
    }


def prefix(a):
    """The first --bytes of the corpus in --prefix-of, cut at line ends, in the same proportion per file."""
    src = a.prefix_of
    names = sorted(f for f in os.listdir(src) if f.endswith(".jsonl"))
    total = sum(os.path.getsize(os.path.join(src, f)) for f in names)
    if a.bytes > total:
        sys.exit(f"scale_corpus.py: {src} holds {total} bytes, fewer than --bytes {a.bytes}")
    os.makedirs(a.out, exist_ok=True)
    files = []
    for f in names:
        want = os.path.getsize(os.path.join(src, f)) * a.bytes // total
        done = docs = 0
        with open(os.path.join(src, f), "rb") as i, open(os.path.join(a.out, f), "wb") as o:
            for line in i:
                if done >= want:
                    break
                o.write(line)
                done += len(line)
                docs += 1
        files.append({"file": f, "bytes": done, "documents": docs})
    return {"prefix_of": os.path.abspath(src), "files": files}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="the shared data folder")
    ap.add_argument("--prefix-of", help="cut the first --bytes of this corpus instead of generating")
    ap.add_argument("--out", required=True)
    ap.add_argument("--bytes", required=True, help="total size: bytes, or with K/M/G (powers of 1024)")
    ap.add_argument("--files-wiki", type=int, default=6)
    ap.add_argument("--wiki-share", type=float, default=0.8, help="the wiki files' share of the bytes")
    ap.add_argument("--files-books", type=int, default=2)
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--zipf-a", type=float, default=1.6)
    ap.add_argument("--block", type=int, default=2048)
    ap.add_argument("--p-name", type=float, default=0.25)
    ap.add_argument("--p-word", type=float, default=0.02)
    ap.add_argument("--p-morph", type=float, default=0.02)
    ap.add_argument("--result", help="write a JSON summary here")
    a = ap.parse_args()
    a.bytes = parse_size(a.bytes)
    r = prefix(a) if a.prefix_of else generate(a) if a.data else ap.error("--data or --prefix-of")
    r["bytes"] = sum(f["bytes"] for f in r["files"])
    r["documents"] = sum(f["documents"] for f in r["files"])
    r["options"] = {k: v for k, v in vars(a).items() if k not in ("result",)}
    if a.result:
        with open(a.result, "w") as f:
            json.dump(r, f, indent=1)
    print(f"scale_corpus.py: {r['documents']:,} documents, {r['bytes']:,} bytes in {len(r['files'])} files -> {a.out}")


def parse_size(s):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?)", s.strip(), re.I)
    if not m:
        raise SystemExit(f"scale_corpus.py: bad size '{s}' (e.g. 64M, 2G)")
    return int(float(m.group(1)) * 1024 ** " KMG".index((m.group(2) or " ").upper()))


if __name__ == "__main__":
    main()
