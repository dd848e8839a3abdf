#!/usr/bin/env python3
"""The Hugging Face side of bench/peers.sh, row "tokenizer training": the guide's recipe.

The guide ("Pre-training BERT with Hugging Face Transformers and Habana Gaudi") loads the corpus
with `datasets`, then trains a new vocabulary with
`AutoTokenizer.from_pretrained("bert-base-uncased").train_new_from_iterator(batch_iterator(),
vocab_size=32_000)` and `save_pretrained`s it. Nothing may reach the hub here, so the starting
tokenizer is a BertTokenizerFast built from a vocab.txt holding only the five special tokens, with
bert-base-uncased's settings (lowercase, strip accents, CJK splitting): train_new_from_iterator keeps
the pipeline and the special tokens and replaces the vocabulary, which is all it takes from the
starting tokenizer. The result is a BertTokenizerFast directory with [PAD]=0 [UNK]=1 [CLS]=2
[SEP]=3 [MASK]=4, like `bertpt tokenizer train`'s.

  hf_tokenizer.py --corpus corpus.jsonl --out TOKDIR --vocab-size 32000 --cache CACHE --result R.json

Threads: the Rust trainer uses RAYON_NUM_THREADS (bench/peers.sh sets it).
"""

import argparse
import json
import os
import time

T_START = time.perf_counter()

from datasets import load_dataset  # noqa: E402
from transformers import BertTokenizerFast  # noqa: E402

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True, help="JSONL with a 'text' field")
    ap.add_argument("--out", required=True)
    ap.add_argument("--vocab-size", type=int, default=32000)
    ap.add_argument("--cache", required=True, help="datasets cache_dir (fresh: load_dataset is part of the step)")
    ap.add_argument("--result", required=True)
    a = ap.parse_args()

    t_imported = time.perf_counter()
    raw = load_dataset("json", data_files=a.corpus, split="train", cache_dir=a.cache)
    t_loaded = time.perf_counter()

    def batch_iterator(batch_size=10000):  # the guide's
        for i in range(0, len(raw), batch_size):
            yield raw[i : i + batch_size]["text"]

    os.makedirs(a.out, exist_ok=True)
    base_vocab = os.path.join(a.out, "base-vocab.txt")
    with open(base_vocab, "w") as f:
        f.write("\n".join(SPECIALS) + "\n")
    base = BertTokenizerFast(vocab_file=base_vocab, do_lower_case=True, strip_accents=None, tokenize_chinese_chars=True)
    os.remove(base_vocab)
    tok = base.train_new_from_iterator(text_iterator=batch_iterator(), vocab_size=a.vocab_size)
    t_trained = time.perf_counter()
    tok.save_pretrained(a.out)
    t_saved = time.perf_counter()

    ids = tok.convert_tokens_to_ids(SPECIALS)
    if ids != list(range(len(SPECIALS))):
        raise SystemExit(f"hf_tokenizer.py: special token ids are {ids}, want 0..4")
    with open(a.result, "w") as f:
        json.dump({
            "vocab_size": len(tok),
            "documents": len(raw),
            "import_sec": t_imported - T_START,
            "load_dataset_sec": t_loaded - t_imported,
            "train_sec": t_trained - t_loaded,
            "save_sec": t_saved - t_trained,
        }, f, indent=1)


if __name__ == "__main__":
    main()
