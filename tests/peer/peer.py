"""Hugging Face tokenizers (the Python binding of its Rust core, pinned in requirements/hf-peer.txt)
as a command-line oracle for bertpt's tests and benchmarks. Run it with the project's .venv:
.venv/bin/python tests/peer/peer.py COMMAND ... Each input line is one sequence (a final '\\n' does
not start another one); input files are read as UTF-8, invalid bytes replaced by U+FFFD.
  peer.py train-bert OUT_DIR lowercase|cased FILE...   HF trains a WordPiece vocabulary on
       FILE... with the BERT pipeline; writes OUT_DIR/vocab.txt ([PAD] [UNK] [CLS] [SEP] [MASK]
       first) and OUT_DIR/tokenizer.json written by HF itself.
  peer.py build OUT_DIR VOCAB_TXT lowercase|cased|lowercase-keep-accents|cased-strip-accents
       HF builds a BERT tokenizer over VOCAB_TXT and saves OUT_DIR/tokenizer.json.
  peer.py encode TOKENIZER_JSON INPUT [--no-special-tokens] [--tokens] [--max-length N]
       ids per line; with --max-length, truncated to N tokens (special tokens included)
  peer.py encode-pairs TOKENIZER_JSON INPUT [--max-length N]
       line "a<TAB>b" -> "ids<TAB>type ids"; with --max-length, the pair is truncated to N tokens
       (special tokens included) by the LongestFirst strategy, as transformers' truncation=True
  peer.py encode-words TOKENIZER_JSON INPUT [--max-length N]
       line "w1<TAB>w2..." (pre-tokenized words) -> "ids<TAB>word ids" (-1 for special tokens), as
       transformers' tokenizer(words, is_split_into_words=True, truncation=True)
  peer.py decode TOKENIZER_JSON INPUT [--skip-special-tokens]   ids per line -> text
  peer.py normalize MODE INPUT    normalized text of each line, JSON-quoted
  peer.py pretokenize INPUT       pre-tokenized words of each line, as a JSON array
  peer.py bench TOKENIZER_JSON INPUT [REPEATS]   encode_batch throughput, JSON on stdout
"""
import json
import os
import re
import sys
import time

import tokenizers
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
MODES = {  # mode -> (lowercase, strip_accents)
    'lowercase': (True, True),
    'cased': (False, False),
    'lowercase-keep-accents': (True, False),
    'cased-strip-accents': (False, True),
}


def read_text(file):
    with open(file, 'rb') as f:
        return f.read().decode('utf-8', errors='replace')


def read_lines(file):
    lines = read_text(file).split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    return lines


def json_str(value):
    """JSON as JavaScript's JSON.stringify writes it: no spaces, non-ASCII kept as is."""
    return json.dumps(value, ensure_ascii=False, separators=(',', ':'))


def normalizer_for(mode):
    if mode not in MODES:
        raise ValueError('unknown mode ' + str(mode))
    lowercase, strip_accents = MODES[mode]
    return normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=strip_accents,
                                      lowercase=lowercase)


def bert_tokenizer(vocab_file, mode):
    t = Tokenizer(models.WordPiece.from_file(vocab_file, unk_token='[UNK]'))
    t.normalizer = normalizer_for(mode)
    t.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    cls = t.token_to_id('[CLS]')
    sep = t.token_to_id('[SEP]')
    t.post_processor = processors.TemplateProcessing(single='[CLS] $A [SEP]', pair='[CLS] $A [SEP] $B:1 [SEP]:1',
                                                     special_tokens=[('[CLS]', cls), ('[SEP]', sep)])
    t.decoder = decoders.WordPiece(prefix='##', cleanup=True)
    t.add_special_tokens(SPECIALS)
    return t


def write(lines):
    sys.stdout.buffer.write(('\n'.join(lines) + '\n' if lines else '').encode('utf-8'))
    sys.stdout.buffer.flush()


def main(argv):
    cmd = argv[0] if argv else None
    # --max-length takes a value; every other flag stands alone.
    args = []
    max_length = None
    i = 1
    while i < len(argv):
        if argv[i] != '--max-length':
            args.append(argv[i])
        else:
            i += 1
            if i >= len(argv) or not re.fullmatch('[0-9]+', argv[i]):
                raise ValueError('--max-length needs a number')
            max_length = int(argv[i])
        i += 1
    flags = {a for a in args if a.startswith('--')}
    pos = [a for a in args if not a.startswith('--')]

    def load(file):
        t = Tokenizer.from_file(file)
        if max_length is not None:
            t.enable_truncation(max_length, strategy='longest_first')
        return t

    if cmd == 'train-bert':
        out_dir, mode, files = pos[0], pos[1], pos[2:]
        t = Tokenizer(models.WordPiece())
        t.normalizer = normalizer_for(mode)
        t.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        t.train(files)  # the model's default trainer (WordPieceTrainer: vocab 30,000, no special tokens)
        vocab = t.get_vocab(with_added_tokens=False)
        trained = [s for s in sorted(vocab, key=vocab.get) if s not in SPECIALS]
        os.makedirs(out_dir, exist_ok=True)
        vocab_file = os.path.join(out_dir, 'vocab.txt')
        with open(vocab_file, 'w', encoding='utf-8', newline='') as f:
            f.write('\n'.join(SPECIALS + trained) + '\n')
        bert_tokenizer(vocab_file, mode).save(os.path.join(out_dir, 'tokenizer.json'), pretty=True)
    elif cmd == 'build':
        out_dir, vocab_file, mode = pos[0], pos[1], pos[2]
        bert = bert_tokenizer(vocab_file, mode)
        os.makedirs(out_dir, exist_ok=True)
        bert.save(os.path.join(out_dir, 'tokenizer.json'), pretty=True)
    elif cmd == 'encode':
        t = load(pos[0])
        lines = read_lines(pos[1])
        encs = t.encode_batch(lines, add_special_tokens='--no-special-tokens' not in flags)
        tokens = '--tokens' in flags
        write([' '.join(e.tokens) if tokens else ' '.join(map(str, e.ids)) for e in encs])
    elif cmd == 'encode-pairs':
        t = load(pos[0])
        out = []
        for line in read_lines(pos[1]):
            parts = line.split('\t')
            e = t.encode(parts[0], parts[1] if len(parts) > 1 else None)
            out.append(' '.join(map(str, e.ids)) + '\t' + ' '.join(map(str, e.type_ids)))
        write(out)
    elif cmd == 'encode-words':  # one pre-tokenized sentence per line, words split at tabs
        t = load(pos[0])
        out = []
        for line in read_lines(pos[1]):
            e = t.encode(line.split('\t'), is_pretokenized=True)
            words = ['-1' if w is None else str(w) for w in e.word_ids]
            out.append(' '.join(map(str, e.ids)) + '\t' + ' '.join(words))
        write(out)
    elif cmd == 'decode':
        t = Tokenizer.from_file(pos[0])
        ids = [[int(x) for x in line.split()] for line in read_lines(pos[1])]
        write(t.decode_batch(ids, skip_special_tokens='--skip-special-tokens' in flags))
    elif cmd == 'normalize':
        n = normalizer_for(pos[0])
        write([json_str(n.normalize_str(line)) for line in read_lines(pos[1])])
    elif cmd == 'pretokenize':
        p = pre_tokenizers.BertPreTokenizer()
        write([json_str([w for w, _ in p.pre_tokenize_str(line)]) for line in read_lines(pos[0])])
    elif cmd == 'bench':
        t = Tokenizer.from_file(pos[0])
        lines = read_lines(pos[1])
        repeats = int(pos[2]) if len(pos) > 2 else 3
        size = os.path.getsize(pos[1])
        t.encode_batch(lines[:1000])  # warm-up
        times = []
        tokens = 0
        for _ in range(repeats):
            t0 = time.perf_counter()
            encs = t.encode_batch(lines)
            times.append(time.perf_counter() - t0)
            tokens = sum(len(e) for e in encs)
        times.sort()
        median = times[len(times) // 2]
        print(json_str({'peer': 'tokenizers@' + tokenizers.__version__ + ' encode_batch', 'lines': len(lines),
                        'bytes': size, 'tokens': tokens, 'seconds_median': median, 'seconds_all': times,
                        'tokens_per_second': tokens / median}))
    else:
        raise ValueError('unknown command ' + str(cmd) + ' (see the comment at the top of peer.py)')


if __name__ == '__main__':
    main(sys.argv[1:])  # an error: a traceback on stderr and exit status 1
