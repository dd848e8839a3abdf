"""Hugging Face tokenizers (and sentencepiece, and transformers' converter), pinned in
requirements/hf-peer.txt, as the peer for bertpt's Unigram family: the Unigram model, Metaspace, the
Precompiled normalizer, the other normalizers and decoders such files carry. Run it with the
project's .venv:

  .venv/bin/python tests/peer/unigram_peer.py OUT_DIR [CORPUS_FILE...]

Trains on the corpus files (default: English Wikipedia and the four UDHR translations of
tests/fixtures/corpora) and writes one folder per tokenizer into OUT_DIR:
  NAME/tokenizer.json   written by HF itself
  NAME/expected.jsonl   one JSON record per input text: "text"; "normalized" (HF's normalize_str);
                        "words" (pre_tokenize_str of the normalized text); "word_ids" (the model's
                        ids of each word, tok.model.tokenize); "ids" and "tokens"
                        (tok.encode(text, add_special_tokens=False)); "special_ids" (tok.encode(text):
                        with the post-processor's special tokens); "decoded" (tok.decode(ids,
                        skip_special_tokens=False))
The tokenizers:
  unigram_metaspace        UnigramTrainer, NFKC + Replace(" {2,}" -> " "), Metaspace (always), Metaspace decoder
  unigram_byte_fallback    the same pieces with the 256 "<0xNN>" pieces and byte_fallback, Llama's pipeline: Prepend("▁") +
                           Replace(" " -> "▁") normalizers, no pre-tokenizer, decoders Replace("▁" -> " "),
                           ByteFallback, Fuse, Strip(" ", 1, 0)
  unigram_first_nosplit    the first model, Metaspace(prepend_scheme="first", split=False),
                           Lowercase + NFD + StripAccents + Strip normalizers
  unigram_never            the first model, Metaspace(prepend_scheme="never"), Nmt + NFKD normalizers
  spm_nmt_nfkc             sentencepiece (unigram, normalization_rule_name nmt_nfkc) converted by
                           transformers' XLMRobertaConverter, as XLM-R ships: Precompiled + Strip +
                           Replace(" {2,}" -> "▁"), Metaspace, XLM-R's vocabulary layout
  spm_nmt_nfkc_byte_fallback  sentencepiece with byte_fallback, converted by LlamaConverter (not
                           legacy: no normalizer, Metaspace(prepend_scheme="first", split=False))
The inputs: Latin, CJK, Cyrillic, Greek, Devanagari, Arabic, emoji (ZWJ sequences, flags, skin
tones), combining marks, compatibility characters, control characters, empty and blank lines, text
holding "▁", and two lines of 100,000 characters.
"""
import importlib
import json
import os
import sys
import tempfile
import types

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

HERE = os.path.dirname(os.path.abspath(__file__))
CORPORA = os.path.join(HERE, '..', 'fixtures', 'corpora')
DEFAULT_CORPUS = [
    os.path.join(CORPORA, 'wikipedia_en_wikiextractor', 'text', 'AA', 'wiki_00'),
    os.path.join(CORPORA, 'nltk_udhr_utf8', 'Chinese_Mandarin-UTF8'),
    os.path.join(CORPORA, 'nltk_udhr_utf8', 'Greek_Ellinika-UTF8'),
    os.path.join(CORPORA, 'nltk_udhr_utf8', 'Hindi-UTF8'),
    os.path.join(CORPORA, 'nltk_udhr_utf8', 'Russian_Russky-UTF8'),
]
SPECIALS = ['<unk>', '<s>', '</s>', '<pad>']


def nasty_inputs():
    long_words = ('Naïve café owners in Zürich 北京 Москва — ' * 3000)[:100000]
    long_word = ('abcdéfghij' * 10000)[:100000]
    return [
        'Hello world! This is a test.',
        'The quick brown fox jumps over the lazy dog.',
        '  leading and trailing spaces  ',
        'many     spaces   between\twords\tand\ttabs',
        '',
        ' ',
        '   ',
        '\n',
        'line one\nline two\r\nline three\rend',
        '北京欢迎你。人人生而自由，在尊严和权利上一律平等。',
        'Все люди рождаются свободными и равными в своем достоинстве и правах.',
        'Όλοι οι άνθρωποι γεννιούνται ελεύθεροι και ίσοι στην αξιοπρέπεια.',
        'सभी मनुष्यों को गौरव और अधिकारों के मामले में जन्मजात स्वतन्त्रता प्राप्त है। क्षत्रिय',
        'يولد جميع الناس أحرارًا متساوين في الكرامة والحقوق.',
        '한국어 텍스트와 자모 각',
        '日本語のテキスト、ｶﾀｶﾅ、ﾃｽﾄ。',
        'emoji 😀 👍🏽 👨‍👩‍👧‍👦 🇫🇷🇩🇪 ❤️ 🏳️‍🌈 end',
        'e\u0301 a\u0300\u0316 o\u0308\u0304 n\u0303 \u0301alone Å Å',
        'stacked: a\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308',
        'ﬁ ﬂ ﬀ ﬃ ½ ² ㎏ ℃ Ⅻ ①②③ ①\u0301 ｈｅｌｌｏ　ｗｏｒｌｄ',
        'controls:\x00\x01\x02\x07\x08\x0b\x0c\x0e\x1f\x7f\x85\x8f\x9f end',
        'zero\u200bwidth\u200cjoin\u200ders\ufeffbom\u2028ls\u2029ps\u00a0nbsp\u3000ideo',
        'replacement char \ufffd and private use \ue000\U000f0000 and noncharacters \uffff\U0010ffff',
        'unassigned \u0378\u0379 and new \U0001fae8 \U00011938 \u32ff \ua7f2',
        'already ▁metaspace▁ in ▁▁ text ▁',
        '▁leading metaspace',
        '<unk> literal and <s> </s>',
        'numbers 1234567890 3.14159 1,000,000 and symbols @#$%^&*()[]{}',
        'URL https://example.com/path?query=1&x=y#frag e-mail someone@example.org',
        'MiXeD CaSe İstanbul ΣΊΣΥΦΟΣ STRASSE ß ǅ',
        'tab\tseparated\tvalues',
        'a',
        '\u0301',
        'x' * 300,
        '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝐛𝐨𝐥𝐝 🅰🅱',
        long_words,
        long_word,
    ]


def read_corpus(files):
    lines = []
    for path in files:
        with open(path, encoding='utf-8', errors='replace') as f:
            lines.extend(line.rstrip('\n') for line in f)
    return [line for line in lines if line.strip()]


def train_unigram(lines):
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(' {2,}'), ' ')])
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=3000, special_tokens=SPECIALS, unk_token='<unk>',
                                      show_progress=False)
    tok.train_from_iterator(lines, trainer=trainer)
    tok.decoder = decoders.Metaspace()
    return tok


def with_byte_fallback(tok):
    # UnigramTrainer has no byte_fallback: the 256 byte pieces are added after the special tokens, as
    # sentencepiece lays them out (score 0), and the model rebuilt with byte_fallback on.
    model = json.loads(tok.to_str())['model']
    vocab = [tuple(p) for p in model['vocab']]
    specials = len(SPECIALS)
    vocab = vocab[:specials] + [(f'<0x{b:02X}>', 0.0) for b in range(256)] + vocab[specials:]
    out = Tokenizer(models.Unigram(vocab, unk_id=0, byte_fallback=True))
    out.add_special_tokens(SPECIALS)
    return out


def llama_pipeline(tok):
    tok.normalizer = normalizers.Sequence([normalizers.Prepend('▁'), normalizers.Replace(' ', '▁')])
    tok.pre_tokenizer = None
    tok.decoder = decoders.Sequence([decoders.Replace('▁', ' '), decoders.ByteFallback(), decoders.Fuse(),
                                     decoders.Strip(' ', 1, 0)])
    return tok


def with_pipeline(base, normalizer, pre_tokenizer, decoder):
    tok = Tokenizer.from_str(base.to_str())
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoder
    return tok


def train_sentencepiece(files, workdir, byte_fallback):
    import sentencepiece as spm
    prefix = os.path.join(workdir, 'spm_bf' if byte_fallback else 'spm')
    spm.SentencePieceTrainer.train(input=files, model_prefix=prefix, model_type='unigram', vocab_size=2000,
                                   normalization_rule_name='nmt_nfkc', character_coverage=0.9995,
                                   byte_fallback=byte_fallback, num_threads=2, minloglevel=2)
    return prefix + '.model'


def convert(model_file, converter_name, legacy):
    """`model_file` through transformers' converter, as from_pretrained runs it for a slow tokenizer
    whose `legacy` flag is given (XLM-R's default True: prepend_scheme "always"; False: "first")."""
    import sentencepiece as spm
    conv = importlib.import_module('transformers.convert_slow_tokenizer')
    sp = spm.SentencePieceProcessor(model_file=model_file)
    original = types.SimpleNamespace(vocab_file=model_file, add_prefix_space=True, legacy=legacy,
                                     convert_ids_to_tokens=sp.id_to_piece, convert_tokens_to_ids=None)
    converter = getattr(conv, converter_name)(original)
    ids = {piece: i for i, (piece, _) in reversed(list(enumerate(converter.vocab(converter.proto))))}
    original.convert_tokens_to_ids = ids.__getitem__
    return converter.converted()


def expected_records(tok, texts):
    for text in texts:
        normalized = tok.normalizer.normalize_str(text) if tok.normalizer else text
        words = [w for w, _ in tok.pre_tokenizer.pre_tokenize_str(normalized)] if tok.pre_tokenizer else [normalized]
        words = [w for w in words if w]
        word_ids = [[t.id for t in tok.model.tokenize(w)] for w in words]
        enc = tok.encode(text, add_special_tokens=False)
        yield {'text': text, 'normalized': normalized, 'words': words, 'word_ids': word_ids, 'ids': enc.ids,
               'special_ids': tok.encode(text).ids, 'tokens': enc.tokens,
               'decoded': tok.decode(enc.ids, skip_special_tokens=False)}


def write(out, name, tok, texts):
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    tok.save(os.path.join(folder, 'tokenizer.json'))
    with open(os.path.join(folder, 'expected.jsonl'), 'w', encoding='utf-8') as f:
        for record in expected_records(tok, texts):
            f.write(json.dumps(record, ensure_ascii=False) + '\n')


def main(argv):
    if not argv:
        raise SystemExit('usage: unigram_peer.py OUT_DIR [CORPUS_FILE...]')
    out, files = argv[0], argv[1:] or DEFAULT_CORPUS
    lines = read_corpus(files)
    texts = nasty_inputs() + lines[:200:7]
    plain = train_unigram(lines)
    write(out, 'unigram_metaspace', plain, texts)
    write(out, 'unigram_byte_fallback', llama_pipeline(with_byte_fallback(plain)), texts)
    write(out, 'unigram_first_nosplit', with_pipeline(
        plain,
        normalizers.Sequence([normalizers.Lowercase(), normalizers.NFD(), normalizers.StripAccents(),
                              normalizers.Strip()]),
        pre_tokenizers.Metaspace(prepend_scheme='first', split=False),
        decoders.Metaspace(prepend_scheme='first', split=False)), texts)
    write(out, 'unigram_never', with_pipeline(
        plain, normalizers.Sequence([normalizers.Nmt(), normalizers.NFKD()]),
        pre_tokenizers.Metaspace(prepend_scheme='never'), decoders.Metaspace(prepend_scheme='never')), texts)
    with tempfile.TemporaryDirectory() as workdir:
        corpus = os.path.join(workdir, 'corpus.txt')
        with open(corpus, 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines) + '\n')
        write(out, 'spm_nmt_nfkc', convert(train_sentencepiece(corpus, workdir, False), 'XLMRobertaConverter', True), texts)
        write(out, 'spm_nmt_nfkc_byte_fallback',
              convert(train_sentencepiece(corpus, workdir, True), 'LlamaConverter', False), texts)


if __name__ == '__main__':
    main(sys.argv[1:])
