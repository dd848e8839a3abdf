#!/usr/bin/env python3
"""bertpt's Parquet/Arrow inputs against files written by pyarrow and by `datasets`:

  table_inputs.py BERTPT_BIN

The same rows are written as JSONL (the reference: bertpt has read JSONL since wave 1) and as
- Parquet from pyarrow: several row groups, every codec pyarrow offers (none, snappy — its default —,
  gzip, zstd, brotli, lz4), nulls, a large_string column under another name (--text-field);
- Arrow IPC from pyarrow, file and stream format, several record batches;
- `datasets`: Dataset.to_parquet, save_to_disk (a directory with dataset_info.json and state.json),
  and the *.arrow cache file that load_dataset writes.
Each must give the same documents (corpus merge: texts identical, in order), the same counts
(corpus stats: documents, characters, empty, repaired; nulls counted), the same tokenizer
(tokenizer train: identical files) and the same prepared shards (prepare: identical bytes).
Row groups decoded on 1 or 4 threads give the same output. Damaged inputs — a truncated Parquet
file, a damaged row group, a missing or non-text column, a text file named .parquet, a gzipped
Parquet file — fail with one line naming the file (and column), no trace; --skip-bad-files keeps
what was read before the damage and goes on.
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

FAILURES = []


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what + (f" ({detail})" if detail and not ok else ""))
    if not ok:
        FAILURES.append(what)


def rows():
    """Varied rows: the lines of the repository's docs, scripts, empty and blank cells, NUL, nulls."""
    here = os.path.dirname(os.path.abspath(__file__))
    docs = os.path.join(here, "..", "..", "docs")
    text = []
    for name in sorted(os.listdir(docs)):
        if name.endswith(".md"):
            with open(os.path.join(docs, name), encoding="utf-8") as f:
                text += [line.strip() for line in f if line.strip()]
    out = text[:1500]
    specials = ["", "   ", None, "naïve café — 日本語のテキスト, русский текст", "two\nlines", "a\x00NUL", None,
                "emoji 🙂 and combining e\u0301", "x" * 70000]
    for i, s in enumerate(specials):
        out.insert(37 * (i + 1), s)
    return out


def run(bin_, args, expect=0):
    r = subprocess.run([bin_] + args, capture_output=True, text=True)
    if r.returncode != expect:
        print(f"  `bertpt {' '.join(args)}` exited {r.returncode}: {r.stderr.strip()[:600]}")
    return r


def merged_texts(bin_, work, inputs, extra=(), name="m"):
    out = os.path.join(work, name + ".jsonl")
    args = ["corpus", "merge", "--quiet", "--out", out] + list(extra)
    for i in inputs:
        args += ["-i", i]
    r = run(bin_, args)
    if r.returncode != 0:
        return None
    with open(out, encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f]


def stats(bin_, inputs, extra=()):
    args = ["corpus", "stats", "--json"] + list(extra)
    for i in inputs:
        args += ["-i", i]
    r = run(bin_, args)
    return json.loads(r.stdout)["total"] if r.returncode == 0 else None


COUNTS = ["documents", "characters", "empty_skipped", "invalid_utf8_repaired", "nul_removed"]


def write_inputs(work, data):
    """The same rows in every format; returns {label: (path, extra flags)}."""
    import datasets

    files = {}
    jsonl = os.path.join(work, "rows.jsonl")
    with open(jsonl, "w", encoding="utf-8") as f:
        for t in data:
            if t is not None:  # a JSON null is not text: the JSONL reference leaves the row out
                f.write(json.dumps({"id": 0, "text": t}, ensure_ascii=False) + "\n")
    files["jsonl"] = (jsonl, [])
    table = pa.table({"id": pa.array(range(len(data)), pa.int64()), "text": pa.array(data, pa.string())})
    for codec in ["none", "snappy", "gzip", "zstd", "brotli", "lz4"]:
        p = os.path.join(work, f"rows-{codec}.parquet")
        pq.write_table(table, p, compression=codec, row_group_size=400)
        files[f"parquet {codec} ({pq.ParquetFile(p).num_row_groups} row groups)"] = (p, [])
    p = os.path.join(work, "rows-default.parquet")
    pq.write_table(table, p)  # pyarrow's defaults: snappy, one row group
    files["parquet (pyarrow defaults)"] = (p, [])
    large = pa.table({"content": pa.array(data, pa.large_string()), "n": pa.array(range(len(data)))})
    p = os.path.join(work, "rows-large.parquet")
    pq.write_table(large, p, row_group_size=250)
    files["parquet large_string, --text-field content"] = (p, ["--text-field", "content"])
    for kind, new in [("file", ipc.new_file), ("stream", ipc.new_stream)]:
        p = os.path.join(work, f"rows-{kind}.arrow")
        with pa.OSFile(p, "wb") as sink, new(sink, table.schema) as w:
            for batch in table.to_batches(max_chunksize=300):
                w.write_batch(batch)
        files[f"Arrow IPC {kind}"] = (p, [])
    ds = datasets.Dataset.from_dict({"text": data, "id": list(range(len(data)))})
    p = os.path.join(work, "datasets.parquet")
    ds.to_parquet(p)
    files["datasets to_parquet"] = (p, [])
    p = os.path.join(work, "saved")
    ds.save_to_disk(p)
    files["datasets save_to_disk (directory)"] = (p, [])
    cached = datasets.load_dataset("json", data_files=jsonl, cache_dir=os.path.join(work, "hf-cache"), split="train")
    files["datasets load_dataset cache .arrow"] = (cached.cache_files[0]["filename"], [])
    return files


def check_same_as_jsonl(bin_, work, files, data):
    ref_texts = merged_texts(bin_, work, [files["jsonl"][0]], name="ref")
    ref_stats = stats(bin_, [files["jsonl"][0]])
    nulls = sum(t is None for t in data)
    check(ref_texts is not None and len(ref_texts) > 1000, "JSONL reference merged", f"{ref_texts and len(ref_texts)}")
    for i, (label, (path, extra)) in enumerate(files.items()):
        if label == "jsonl":
            continue
        texts = merged_texts(bin_, work, [path], extra, name=f"t{i}")
        same = texts == ref_texts
        check(same, f"{label}: corpus merge gives the JSONL's documents",
              f"{len(texts or [])} vs {len(ref_texts)} documents")
        st = stats(bin_, [path], extra)
        diff = {k: (st.get(k), ref_stats.get(k)) for k in COUNTS if st is None or st.get(k) != ref_stats.get(k)}
        check(st is not None and not diff, f"{label}: corpus stats counts equal the JSONL's", str(diff))
        want = 0 if "load_dataset" in label else nulls  # that cache was made from the JSONL, which has no nulls
        check(st is not None and st.get("nulls_skipped", 0) == want, f"{label}: {want} nulls counted",
              str(st and st.get("nulls_skipped")))
        check(st is not None and st.get("bytes") == sum(len(t.encode()) for t in data if t is not None),
              f"{label}: bytes are the text cells' bytes", str(st and st.get("bytes")))


def check_tokenizer_and_prepare(bin_, work, files):
    outs = {}
    for label in ["jsonl", "parquet zstd", "Arrow IPC stream"]:
        path, extra = next(v for k, v in files.items() if k.startswith(label))
        d = os.path.join(work, "prep-" + label.split()[0].lower() + str(len(outs)))
        tok = d + "-tok"
        r1 = run(bin_, ["tokenizer", "train", "-i", path, "--vocab-size", "600", "--out", tok, "--quiet"] + extra)
        r2 = run(bin_, ["prepare", "-i", path, "--tokenizer", tok, "--seq-len", "64", "--out", d, "--quiet"] + extra)
        outs[label] = (tok, d) if r1.returncode == 0 and r2.returncode == 0 else None
    ref = outs["jsonl"]
    for label, got in outs.items():
        if label == "jsonl":
            continue
        ok = ref is not None and got is not None
        for sub, names in [(0, ["tokenizer.json", "vocab.txt"]), (1, None)]:
            if not ok:
                break
            names = names or sorted(n for n in os.listdir(ref[1]) if n.endswith(".bin"))
            for n in names:
                a, b = os.path.join(ref[sub], n), os.path.join(got[sub], n)
                ok = ok and os.path.exists(b) and open(a, "rb").read() == open(b, "rb").read()
        check(ok and any(n.endswith(".bin") for n in os.listdir(ref[1])),
              f"{label}: tokenizer train and prepare write the JSONL's tokenizer and shards, byte for byte")


def check_threads(bin_, work, files):
    path = os.path.join(work, "many-groups.parquet")
    pq.write_table(pq.read_table(os.path.join(work, "rows-none.parquet")), path, row_group_size=37)
    one = merged_texts(bin_, work, [path], ["--read-threads", "1"], name="th1")
    four = merged_texts(bin_, work, [path], ["--read-threads", "4"], name="th4")
    check(one is not None and one == four and len(one) > 1000,
          f"{pq.ParquetFile(path).num_row_groups} row groups on 1 and 4 threads: the same documents in the same order")


def one_line_error(r, *needles):
    err = r.stderr.strip()
    first = err.splitlines()[0] if err else ""
    return r.returncode == 1 and all(n in first for n in needles) and "Traceback" not in err and \
        "terminate called" not in err and len(err.splitlines()) <= 2


def check_errors(bin_, work, files):
    good = os.path.join(work, "rows-snappy.parquet")
    raw = open(good, "rb").read()
    trunc = os.path.join(work, "cut.parquet")
    open(trunc, "wb").write(raw[: len(raw) * 2 // 3])
    r = run(bin_, ["corpus", "stats", "-i", trunc], expect=1)
    check(one_line_error(r, "cut.parquet"), "truncated Parquet: one line naming the file", r.stderr.strip()[:300])

    r = run(bin_, ["corpus", "stats", "-i", good, "--text-field", "body"], expect=1)
    check(one_line_error(r, "rows-snappy.parquet", 'no column "body"', "id, text"),
          "missing column: names file, column and the columns there", r.stderr.strip()[:300])
    r = run(bin_, ["corpus", "stats", "-i", good, "--text-field", "id"], expect=1)
    check(one_line_error(r, "rows-snappy.parquet", '"id"', "int64"), "a non-text column: names file, column, type",
          r.stderr.strip()[:300])
    fake = os.path.join(work, "page.parquet")
    open(fake, "w").write("<html>404 Not Found</html>\n")
    r = run(bin_, ["corpus", "stats", "-i", fake], expect=1)
    check(one_line_error(r, "page.parquet"), "text named .parquet: refused, naming the file", r.stderr.strip()[:300])
    gz = os.path.join(work, "rows.parquet.gz")
    open(gz, "wb").write(gzip.compress(raw))
    r = run(bin_, ["corpus", "stats", "-i", gz], expect=1)
    check(one_line_error(r, "rows.parquet.gz", "compressed"), "gzipped Parquet: refused, naming the file",
          r.stderr.strip()[:300])

    # A damaged second row group: the first row group's documents come out, then the error.
    meta = pq.ParquetFile(good).metadata
    offset = meta.row_group(1).column(1).data_page_offset
    damaged = bytearray(raw)
    damaged[offset:offset + 64] = b"\xee" * 64
    bad = os.path.join(work, "damaged.parquet")
    open(bad, "wb").write(bytes(damaged))
    r = run(bin_, ["corpus", "stats", "-i", bad], expect=1)
    check(one_line_error(r, "damaged.parquet", "row group 1"), "damaged row group: names file and row group",
          r.stderr.strip()[:300])
    first_group = sum(1 for t in pq.read_table(good).column("text").to_pylist()[:400] if t and t.strip())
    jsonl = files["jsonl"][0]
    n_jsonl = len(merged_texts(bin_, work, [jsonl], name="j"))
    texts = merged_texts(bin_, work, [bad, trunc, jsonl], ["--skip-bad-files"], name="skip")
    check(texts is not None and len(texts) == first_group + n_jsonl,
          "--skip-bad-files: the documents before the damage kept, the damaged files skipped, the next file read",
          f"{len(texts or [])} documents, expected {first_group} + {n_jsonl}")
    st = stats(bin_, [bad, trunc, jsonl], ["--skip-bad-files"])
    check(st is not None and st.get("bad_files_skipped") == 2, "--skip-bad-files: 2 files counted as skipped",
          str(st and st.get("bad_files_skipped")))


def main(bin_):
    data = rows()
    with tempfile.TemporaryDirectory() as work:
        files = write_inputs(work, data)
        check_same_as_jsonl(bin_, work, files, data)
        check_tokenizer_and_prepare(bin_, work, files)
        check_threads(bin_, work, files)
        check_errors(bin_, work, files)
    print(f"table_inputs: {len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
