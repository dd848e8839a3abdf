"""Hugging Face's BpeTrainer (the Python binding of tokenizers, pinned in requirements/hf-peer.txt) as
the peer for bertpt's byte-level BPE training (tests/tokenizer/bpe_trainer_test.cc).
Run it with the project's .venv: .venv/bin/python tests/peer/bpe_trainer_peer.py ...

  bpe_trainer_peer.py OUT_DIR VOCAB_SIZE FILE...
    Reads the files as text lines (a .jsonl file: the "text" field of each record, split into
    lines), pre-tokenizes every line with HF's ByteLevel pre-tokenizer (its defaults:
    add_prefix_space, the GPT-2 regex) and trains HF's BpeTrainer on the same lines
    (train_from_iterator) with the byte-level initial alphabet (ByteLevel.alphabet(), all 256
    characters) and the special tokens <s> <pad> </s> <unk> <mask>. Writes into OUT_DIR:
      words.tsv   the counted words HF's trainer saw: "COUNT<TAB>WORD" per line, sorted by word
      vocab.txt   HF's vocabulary, one token per line in id order (byte-level tokens hold no
                  whitespace)
      merges.txt  HF's merges as its tokenizer.json lists them, "LEFT RIGHT" per line
    and prints {"seconds": training time, "tokens": vocabulary size, "merges": merges} on stdout.

Threads: HF uses RAYON_NUM_THREADS (set it in the environment).
"""
import json
import os
import sys
import time

from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from trainer_corpus import read_lines, write_word_counts

SPECIAL_TOKENS = ['<s>', '<pad>', '</s>', '<unk>', '<mask>']


def main(argv):
    if len(argv) < 3:
        raise ValueError('usage: bpe_trainer_peer.py OUT_DIR VOCAB_SIZE FILE...')
    out, vocab_size, files = argv[0], int(argv[1]), argv[2:]
    os.makedirs(out, exist_ok=True)
    lines = read_lines(files)
    pre_tokenizer = pre_tokenizers.ByteLevel()
    write_word_counts(os.path.join(out, 'words.tsv'), pre_tokenizer, lines)

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizer
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, show_progress=False, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    t0 = time.perf_counter()
    tokenizer.train_from_iterator(lines, trainer)
    seconds = time.perf_counter() - t0

    model = json.loads(tokenizer.to_str())['model']
    vocab = model['vocab']
    tokens = sorted(vocab, key=vocab.get)
    with open(os.path.join(out, 'vocab.txt'), 'w', encoding='utf-8', newline='') as f:
        f.write(''.join(t + '\n' for t in tokens))
    merges = [m if isinstance(m, list) else m.split(' ') for m in model['merges']]
    with open(os.path.join(out, 'merges.txt'), 'w', encoding='utf-8', newline='') as f:
        f.write(''.join(a + ' ' + b + '\n' for a, b in merges))
    sys.stdout.write(json.dumps({'seconds': seconds, 'tokens': len(tokens), 'merges': len(merges)}) + '\n')


if __name__ == '__main__':
    main(sys.argv[1:])  # an error: a traceback on stderr and exit status 1
