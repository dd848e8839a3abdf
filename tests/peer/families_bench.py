"""Hugging Face tokenizers (the Python binding, pinned in requirements/hf-peer.txt) as the peer for
bench/tokenizer_families.sh: trains a byte-level BPE or a Unigram tokenizer as bertpt's
`tokenizer train --model bpe|unigram` does, and compares two trained tokenizers.
Run it with the project's .venv: .venv/bin/python tests/peer/families_bench.py ...

  families_bench.py train bpe|unigram OUT_DIR VOCAB_SIZE FILE
    Trains on FILE's lines (one line = one sequence, the '\\n' not part of it) and saves
    OUT_DIR/tokenizer.json, a whole tokenizer:
      bpe      RoBERTa's: ByteLevel pre-tokenizer (add_prefix_space false), BpeTrainer with the
               byte-level initial alphabet, RobertaProcessing, ByteLevel decoder
      unigram  XLM-R-like: Nmt + NFKC + spaces folded, Metaspace, UnigramTrainer (unk <unk>), "<s> $A </s>" template
    Special tokens <s> <pad> </s> <unk> <mask>, ids 0-4. Prints {"seconds": wall time of reading
    FILE and training, "cpu_seconds": the process's user + system time over the same span (all
    threads), "max_rss_mb": the process's peak resident memory, "tokens"} on stdout.

  families_bench.py compare HF_JSON BERTPT_JSON [HELD_OUT]
    Prints {"hf_tokens", "bertpt_tokens", "overlap": % of HF's tokens in bertpt's vocabulary,
    "merges_identical": whether the BPE merges are the same list (null for Unigram), and with
    HELD_OUT "tokens_per_word_hf" / "tokens_per_word_bertpt": tokens each tokenizer gives the
    lines of HELD_OUT (no special tokens; HF encodes with both files) over their number of
    whitespace-separated words}.

Threads: HF uses RAYON_NUM_THREADS (set it in the environment).
"""
import json
import os
import resource
import sys
import time

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

SPECIALS = ['<s>', '<pad>', '</s>', '<unk>', '<mask>']


def read_lines(file):
    with open(file, 'rb') as f:
        lines = f.read().decode('utf-8', errors='replace').split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    return lines


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def bpe(vocab_size):
    t = Tokenizer(models.BPE())
    t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    t.decoder = decoders.ByteLevel()
    t.post_processor = processors.RobertaProcessing(('</s>', 2), ('<s>', 0), trim_offsets=True,
                                                    add_prefix_space=False)
    return t, trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())


def unigram(vocab_size):
    t = Tokenizer(models.Unigram())
    # bertpt's unigram family (src/tokenizer/family.h): XLM-R's normalization as tokenizers' own
    # SentencePieceUnigramTokenizer writes it.
    t.normalizer = normalizers.Sequence([normalizers.Nmt(), normalizers.NFKC(),
                                         normalizers.Replace(Regex(' {2,}'), ' ')])
    t.pre_tokenizer = pre_tokenizers.Metaspace()
    t.decoder = decoders.Metaspace()
    t.post_processor = processors.TemplateProcessing(single='<s> $A </s>', pair='<s> $A </s> </s> $B </s>',
                                                     special_tokens=[('<s>', 0), ('</s>', 2)])
    return t, trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=SPECIALS, unk_token='<unk>',
                                      show_progress=False)


def model_of(file):
    with open(file, encoding='utf-8') as f:
        return json.load(f)['model']


def vocab_of(model):
    if model['type'] == 'Unigram':
        return [piece for piece, _ in model['vocab']]
    return sorted(model['vocab'], key=model['vocab'].get)


def merges_of(model):
    return [' '.join(m) if isinstance(m, list) else m for m in model.get('merges', [])]


def tokens_per_word(file, lines):
    t = Tokenizer.from_file(file)
    tokens = sum(len(e.ids) for e in t.encode_batch(lines, add_special_tokens=False))
    return tokens / sum(len(line.split()) for line in lines)


def main(argv):
    cmd, args = (argv[0], argv[1:]) if argv else (None, [])
    if cmd == 'train' and len(args) == 4:
        family, out, vocab_size, file = args[0], args[1], int(args[2]), args[3]
        if family not in ('bpe', 'unigram'):
            raise ValueError('unknown family ' + family + ' (bpe, unigram)')
        t, trainer = (bpe if family == 'bpe' else unigram)(vocab_size)
        t0, c0 = time.perf_counter(), cpu_seconds()
        t.train_from_iterator(read_lines(file), trainer)
        seconds, cpu = time.perf_counter() - t0, cpu_seconds() - c0
        os.makedirs(out, exist_ok=True)
        t.save(os.path.join(out, 'tokenizer.json'))
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps({'seconds': seconds, 'cpu_seconds': cpu, 'max_rss_mb': rss_mb,
                          'tokens': t.get_vocab_size()}, separators=(',', ':')))
    elif cmd == 'compare' and len(args) in (2, 3):
        hf, ours = model_of(args[0]), model_of(args[1])
        hf_vocab, our_vocab = vocab_of(hf), vocab_of(ours)
        mine = set(our_vocab)
        result = {'hf_tokens': len(hf_vocab), 'bertpt_tokens': len(our_vocab),
                  'overlap': 100 * sum(tok in mine for tok in hf_vocab) / len(hf_vocab),
                  'merges_identical': merges_of(hf) == merges_of(ours) if hf['type'] == 'BPE' else None}
        if len(args) == 3:
            lines = read_lines(args[2])
            result['tokens_per_word_hf'] = tokens_per_word(args[0], lines)
            result['tokens_per_word_bertpt'] = tokens_per_word(args[1], lines)
        print(json.dumps(result, separators=(',', ':')))
    else:
        raise ValueError('usage: families_bench.py train bpe|unigram OUT_DIR VOCAB_SIZE FILE | '
                         'compare HF_JSON BERTPT_JSON [HELD_OUT]')


if __name__ == '__main__':
    main(sys.argv[1:])  # an error: a traceback on stderr and exit status 1
