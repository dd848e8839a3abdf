#!/usr/bin/env python3
"""The Hugging Face side of bench/peers.sh, row "dataset preparation": the guide's `datasets`
recipe, which is run_mlm.py's.

  raw = load_dataset("json", data_files=CORPUS, split="train", cache_dir=CACHE)
  tokenized = raw.map(tokenize, batched=True, num_proc=N, remove_columns=raw.column_names)
  blocks = tokenized.map(group_texts, batched=True, num_proc=N)

tokenize = tokenizer(examples["text"], return_special_tokens_mask=True[, truncation=True,
max_length=BLOCK]) — with --truncate as in the guide (each document cut to BLOCK tokens), without it
as in run_mlm.py; group_texts is run_mlm.py's: each map batch (1,000 documents) concatenated and
cut into BLOCK-token blocks, the batch's remainder dropped.

Writes a JSON result: documents, blocks, tokens kept (blocks x BLOCK), the bytes of the datasets
cache directory (the raw Arrow copy of the corpus plus the two map results: what the recipe leaves
on disk) and of the final blocks' Arrow files alone, and the time of each stage. --save-to-disk DIR
also writes the blocks with save_to_disk (the pipeline row trains on them; not timed in this row).
"""

import argparse
import json
import os
import time
from itertools import chain

T_START = time.perf_counter()

from datasets import load_dataset  # noqa: E402
from transformers import AutoTokenizer  # noqa: E402


def dir_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            p = os.path.join(root, name)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--block", type=int, default=512)
    ap.add_argument("--truncate", action="store_true", help="the guide's truncation=True, max_length=BLOCK")
    ap.add_argument("--num-proc", type=int, default=2)
    ap.add_argument("--cache", required=True, help="a fresh datasets cache_dir")
    ap.add_argument("--save-to-disk")
    ap.add_argument("--result", required=True)
    a = ap.parse_args()

    t_imported = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(a.tokenizer)
    raw = load_dataset("json", data_files=a.corpus, split="train", cache_dir=a.cache)
    t_loaded = time.perf_counter()

    def tokenize(examples):
        if a.truncate:
            return tokenizer(examples["text"], return_special_tokens_mask=True, truncation=True, max_length=a.block)
        return tokenizer(examples["text"], return_special_tokens_mask=True)

    tokenized = raw.map(tokenize, batched=True, num_proc=a.num_proc, remove_columns=raw.column_names)
    t_tokenized = time.perf_counter()

    block = a.block

    def group_texts(examples):  # run_mlm.py's
        concatenated = {k: list(chain(*examples[k])) for k in examples.keys()}
        total_length = len(concatenated[list(examples.keys())[0]])
        total_length = (total_length // block) * block
        return {k: [t[i : i + block] for i in range(0, total_length, block)] for k, t in concatenated.items()}

    blocks = tokenized.map(group_texts, batched=True, num_proc=a.num_proc)
    t_grouped = time.perf_counter()

    final_bytes = sum(os.path.getsize(c["filename"]) for c in blocks.cache_files)
    n_tokens_in = sum(len(x) for x in tokenized["input_ids"]) if not a.truncate else None
    result = {
        "documents": len(raw),
        "blocks": len(blocks),
        "block": block,
        "tokens_kept": len(blocks) * block,
        "truncate": a.truncate,
        "num_proc": a.num_proc,
        "cache_bytes": dir_bytes(a.cache),
        "final_blocks_bytes": final_bytes,
        "import_sec": t_imported - T_START,
        "load_sec": t_loaded - t_imported,
        "tokenize_sec": t_tokenized - t_loaded,
        "group_sec": t_grouped - t_tokenized,
        "in_process_sec": t_grouped - t_imported,
    }
    if a.save_to_disk:
        blocks.save_to_disk(a.save_to_disk)
    with open(a.result, "w") as f:
        json.dump(result, f, indent=1)
    if n_tokens_in is not None:
        # computed after the timed part; kept out of the timings on purpose
        result["input_tokens"] = n_tokens_in
        with open(a.result, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
