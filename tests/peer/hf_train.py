"""Hugging Face's trainers (the Python binding of tokenizers, pinned in requirements/hf-peer.txt) as
the peer for bertpt's WordPiece trainer (tests/tokenizer/trainer_test.cc, bench/tokenizer.sh).
Run it with the project's .venv: .venv/bin/python tests/peer/hf_train.py ...

  hf_train.py train MODEL PIPELINE OUT FILE...
    Trains with Tokenizer.train(files), i.e. the model's default trainer: vocab 30,000, no special
    tokens, min_frequency 0. MODEL: wordpiece (HF's WordPieceTrainer, "##" prefix) or bpe (its
    BpeTrainer without a prefix: deterministic, so an exact oracle for the merge loop).
    PIPELINE: lowercase | cased (BertNormalizer with those settings + BertPreTokenizer) or words
    (no normalizer, split on whitespace: for files written by `words`).
    Writes the vocabulary to OUT, one token per line in id order (tokens never contain
    whitespace), and prints {"seconds": training time, "tokens": count} on stdout.

  hf_train.py words PIPELINE OUT FILE...
    Writes, for every line of the files, HF's normalized and pre-tokenized words joined by single
    spaces: the word stream HF's trainer counts, so bertpt's merge loop can be compared with HF's
    independently of the normalizer.

Threads: HF uses RAYON_NUM_THREADS (set it in the environment).
"""
import json
import sys
import time

from tokenizers import Tokenizer, models, normalizers, pre_tokenizers


def pipeline(name):
    if name == 'lowercase':
        return normalizers.BertNormalizer(lowercase=True, strip_accents=True), pre_tokenizers.BertPreTokenizer()
    if name == 'cased':
        return normalizers.BertNormalizer(lowercase=False, strip_accents=False), pre_tokenizers.BertPreTokenizer()
    if name == 'words':
        return None, pre_tokenizers.WhitespaceSplit()
    raise ValueError('unknown pipeline ' + str(name) + ' (lowercase, cased, words)')


def main(argv):
    cmd, args = (argv[0], argv[1:]) if argv else (None, [])
    if cmd == 'train':
        if len(args) < 4:
            raise ValueError('usage: train MODEL PIPELINE OUT FILE...')
        model, pipe, out, files = args[0], args[1], args[2], args[3:]
        if model not in ('bpe', 'wordpiece'):
            raise ValueError('unknown model ' + model + ' (wordpiece, bpe)')
        t = Tokenizer(models.BPE() if model == 'bpe' else models.WordPiece())
        norm, pre = pipeline(pipe)
        if norm is not None:
            t.normalizer = norm
        t.pre_tokenizer = pre
        t0 = time.perf_counter()
        t.train(files)
        seconds = time.perf_counter() - t0
        vocab = t.get_vocab(with_added_tokens=False)
        tokens = sorted(vocab, key=vocab.get)
        with open(out, 'w', encoding='utf-8', newline='') as f:
            f.write('\n'.join(tokens) + '\n')
        sys.stdout.write(json.dumps({'seconds': seconds, 'tokens': len(tokens)}, separators=(',', ':')) + '\n')
    elif cmd == 'words':
        if len(args) < 3:
            raise ValueError('usage: words PIPELINE OUT FILE...')
        pipe, out, files = args[0], args[1], args[2:]
        norm, pre = pipeline(pipe)
        with open(out, 'w', encoding='utf-8', newline='') as f:
            for file in files:
                with open(file, 'rb') as inp:
                    text = inp.read().decode('utf-8', errors='replace')
                # Every piece of the split, the empty one after a final '\n' included.
                for line in text.split('\n'):
                    normalized = norm.normalize_str(line) if norm is not None else line
                    f.write(' '.join(w for w, _ in pre.pre_tokenize_str(normalized)) + '\n')
    else:
        raise ValueError('usage: hf_train.py train|words ...')


if __name__ == '__main__':
    main(sys.argv[1:])  # an error: a traceback on stderr and exit status 1
