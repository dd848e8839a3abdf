"""Hugging Face's UnigramTrainer (the Python binding of tokenizers, pinned in requirements/hf-peer.txt)
as the peer for bertpt's Unigram trainer (tests/tokenizer/unigram_trainer_test.cc).
Run it with the project's .venv: .venv/bin/python tests/peer/unigram_trainer_peer.py ...

The text: the files' lines (a .jsonl file: the "text" field of each record, split into lines); every
tenth line (the 1st, 11th, ...) is held out, the others are for training. Words come from HF's
Metaspace pre-tokenizer with its defaults ("▁" for spaces, prepended always, split on it).

  unigram_trainer_peer.py train OUT_DIR VOCAB_SIZE FILE...
    Trains HF's UnigramTrainer (train_from_iterator on the training lines; special tokens <s> <pad>
    </s> <unk> <mask>, unk_token <unk>, the other options HF's defaults) and writes into OUT_DIR:
      words.tsv   the counted training words: "COUNT<TAB>WORD" per line, sorted by word
      vocab.tsv   HF's pieces in id order: "PIECE<TAB>SCORE" per line (the last tab splits)
    Prints {"seconds", "tokens", "unk_id", "tokens_per_word"} on stdout: tokens_per_word is the
    number of tokens HF's trained tokenizer gives the held-out lines over their number of words.

  unigram_trainer_peer.py encode VOCAB_TSV UNK_ID FILE...
    Loads the pieces and scores of VOCAB_TSV (the format above) into HF's Unigram model (UNK_ID: the
    unk piece's id, or -1 for none) behind the same pre-tokenizer and prints {"tokens_per_word"} for
    the held-out lines of FILE...

Threads: HF uses RAYON_NUM_THREADS (set it in the environment).
"""
import json
import os
import sys
import time

from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from trainer_corpus import read_lines, write_word_counts

SPECIAL_TOKENS = ['<s>', '<pad>', '</s>', '<unk>', '<mask>']


def split_lines(files):
    """The training lines and the held-out ones (every tenth, from the first)."""
    lines = read_lines(files)
    return [l for i, l in enumerate(lines) if i % 10 != 0], [l for i, l in enumerate(lines) if i % 10 == 0]


def tokens_per_word(tokenizer, lines):
    words = sum(len(tokenizer.pre_tokenizer.pre_tokenize_str(l)) for l in lines)
    tokens = sum(len(e.tokens) for e in tokenizer.encode_batch(lines, add_special_tokens=False))
    return tokens / words


def train(out, vocab_size, files):
    os.makedirs(out, exist_ok=True)
    lines, held_out = split_lines(files)
    pre_tokenizer = pre_tokenizers.Metaspace()
    write_word_counts(os.path.join(out, 'words.tsv'), pre_tokenizer, lines)
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizer
    trainer = trainers.UnigramTrainer(vocab_size=vocab_size, show_progress=False, special_tokens=SPECIAL_TOKENS,
                                      unk_token='<unk>')
    t0 = time.perf_counter()
    tokenizer.train_from_iterator(lines, trainer)
    seconds = time.perf_counter() - t0
    model = json.loads(tokenizer.to_str())['model']
    with open(os.path.join(out, 'vocab.tsv'), 'w', encoding='utf-8', newline='') as f:
        f.write(''.join('%s\t%r\n' % (piece, score) for piece, score in model['vocab']))
    result = {'seconds': seconds, 'tokens': len(model['vocab']), 'unk_id': model['unk_id'],
              'tokens_per_word': tokens_per_word(tokenizer, held_out)}
    sys.stdout.write(json.dumps(result) + '\n')


def encode(vocab_tsv, unk_id, files):
    vocab = []
    with open(vocab_tsv, encoding='utf-8', newline='') as f:
        for line in f.read().split('\n'):
            if line:
                piece, score = line.rsplit('\t', 1)
                vocab.append((piece, float(score)))
    tokenizer = Tokenizer(models.Unigram(vocab, unk_id if unk_id >= 0 else None, False))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    _, held_out = split_lines(files)
    sys.stdout.write(json.dumps({'tokens_per_word': tokens_per_word(tokenizer, held_out)}) + '\n')


def main(argv):
    if len(argv) >= 4 and argv[0] == 'train':
        train(argv[1], int(argv[2]), argv[3:])
    elif len(argv) >= 4 and argv[0] == 'encode':
        encode(argv[1], int(argv[2]), argv[3:])
    else:
        raise ValueError('usage: unigram_trainer_peer.py train OUT_DIR VOCAB_SIZE FILE... | encode VOCAB_TSV UNK_ID FILE...')


if __name__ == '__main__':
    main(sys.argv[1:])  # an error: a traceback on stderr and exit status 1
