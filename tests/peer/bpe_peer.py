"""Byte-level and character BPE tokenizers built and run by Hugging Face tokenizers itself (pinned in
requirements/hf-peer.txt), as the referee for bertpt's BPE model, ByteLevel pre-tokenizer and decoder,
Split / Whitespace pre-tokenizers. Run it with the project's .venv:

  .venv/bin/python tests/peer/bpe_peer.py build OUT_DIR [CORPORA_DIR]
      trains the tokenizers below on files of CORPORA_DIR (default tests/fixtures/corpora) and writes
      OUT_DIR/inputs.json      the nasty inputs (a JSON array of strings), and for each tokenizer NAME
      OUT_DIR/NAME/tokenizer.json   as HF saves it (some then edited, see VARIANTS)
      OUT_DIR/NAME/expected.jsonl   one line per input: {"ids": encode(text, add_special_tokens=False),
          "special_ids": encode(text) (post-processor applied), "tokens": the tokens of "ids",
          "words": the pre-tokenizer's words (pre_tokenize_str), "decoded": decode(ids, skip_special_tokens=False)}
      OUT_DIR/manifest.json    the tokenizer names with a line on what each exercises
  .venv/bin/python tests/peer/bpe_peer.py pretokenize TOKENIZER_JSON INPUT_JSON
      the pre-tokenizer's words of each string of INPUT_JSON (a JSON array), one JSON array a line

No input contains an added token, so "ids" is the pre-tokenizer then the model word by word, which is
what bertpt's Tokenizer does between added tokens.
"""
import copy
import json
import os
import random
import sys

import tokenizers
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, processors, trainers

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CORPORA = os.path.join(HERE, '..', 'fixtures', 'corpora')
CORPUS_FILES = [
    'nltk_gutenberg/austen-emma.txt',
    'wikipedia_en_wikiextractor/text/AA/wiki_00',
    'nltk_udhr_utf8/Chinese_Mandarin-UTF8',
    'nltk_udhr_utf8/Greek_Ellinika-UTF8',
    'nltk_udhr_utf8/Hindi-UTF8',
    'nltk_udhr_utf8/Russian_Russky-UTF8',
    'sms_spam/SMSSpamCollection',
]
# The pattern of Llama 3 / OLMo-style tokenizer.json files: Split(Regex) then ByteLevel(use_regex=false).
SPLIT_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                 r"|\s*[\r\n]+|\s+(?!\S)|\s+")


def nasty_inputs():
    """Strings that stress the GPT-2 regex, the byte map and the merges."""
    base = [
        '', ' ', '  ', '\n', '\n\n', '\t', ' \t\n ', 'a', ' a', 'a ', '  a  ', 'Hello world', 'Hello  world',
        'Hello   world!', 'Hello\nworld', 'Hello\n\nworld\n', 'Hello \n world', 'line one\r\nline two\r\n',
        "I'm sure they'll say you're right; we've seen it, don't you think? He'd.",
        "'s 's ''s '' 'S 'RE 're're 'll'll 'x", "rock 'n' roll", 'l\'amour d’été', "O'Neil's 'quote'",
        'The café naïve coöperate résumé, façade; Ærøskøbing.', 'ｆｕｌｌｗｉｄｔｈ １２３ ＡＢＣ',
        '中文字符测试，这是一个句子。汉字！', '日本語のテキスト、ひらがなとカタカナ。', '한국어 텍스트입니다.',
        'Привет, мир! Съешь же ещё этих мягких французских булок.', 'Ελληνικά κείμενα με τόνους.',
        'हिन्दी पाठ में मात्राएँ और संयुक्ताक्षर।', 'ภาษาไทยไม่มีช่องว่างระหว่างคำ', 'مرحبا بالعالم ١٢٣٤٥',
        'עברית עם ניקוד: שָׁלוֹם', 'e\u0301 a\u0300\u0316 Z\u0351\u0364\u0300a\u0337\u0353l\u035cg\u0358o\u0489',
        'n\u0303 \u0915\u094d\u0937 \u1100\u1161\u11a8', '😀 😃😄 👍🏽 👨‍👩‍👧‍👦 🇫🇷🇩🇪 ❤️ 🏳️‍🌈',
        'emoji😀inside😀words', '123 4567 89012 3.14159 -42 +7 1e10 0x1F 1,000,000', '٣٤٥ ४५६ ১২৩ ๑๒๓ ²³ ½ Ⅻ ⑦',
        'a\u00a0b\u00a0\u00a0c', 'a\u3000b\u3000\u3000c', 'a\u2028b\u2029c\u0085d', 'a\u200bb\u200cc\u200dd\ufeffe',
        '\x00\x01\x02\x1b[31mred\x1b[0m\x7f\x1c\x1d\x1e\x1f\x0b\x0c', 'tab\tseparated\tvalues\t\t',
        'trailing spaces   ', '   leading spaces', 'multi\n\n\n\nnewlines', ' \n \n ', '\t\t\tindented',
        'http://example.com/path?q=1&r=2#frag user@example.org', 'C++ && || != == <= >= -> => ::',
        'def f(x):\n    return x ** 2  # comment\n', '{"json": [1, 2, 3], "k": null}', '$$$ %%% ^^^ ~~~ ```',
        '...!!!???,,,;;;', '«guillemets» „quotes“ “curly” ‘single’', '—–- dashes … ellipsis',
        '\U000105c0\U000105c1 Todhri (Unicode 16)', '\U0001e5d0\U0001e5d1 Ol Onal', '\U00011f00 Kawi (15.0)',
        '\ue000\uf8ff private use', '\ufffd replacement \ufffe\uffff nonchars \U0010fffd',
        '\U0001d400\U0001d401 math letters 𝟎𝟏 digits', 'ǅungla ǈ titlecase', 'ⅰⅱⅲ ⅠⅡ roman', '〇一二三',
        'x' * 300, 'ab' * 200 + ' ' + 'é' * 150, ' ' * 300 + 'x', 'word ' * 100,
    ]
    rng = random.Random(20240607)
    alphabet = list("aeio ntrsh'\n\t.,!?0123") + ['é', '中', '😀', '\u0301', '\u00a0', '\u3000', 'ß', 'Ж', '٣']
    for _ in range(60):
        base.append(''.join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))))
    # a 100k-character line: corpus text repeated, and one 100k-letter word
    text = (('The quick brown fox — "jumps" over 13 lazy dogs; Ça va? 中文 😀 ') * 2000)[:100000]
    base.append(text)
    base.append('a' * 100000)
    return base


def read_corpus(root):
    texts = []
    for rel in CORPUS_FILES:
        with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as f:
            texts.extend(f.read().split('\n'))
    return texts


def byte_level_tokenizer(texts, add_prefix_space, vocab_size, special_tokens):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special_tokens, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)
    return tok


def roberta(texts):
    tok = byte_level_tokenizer(texts, False, 3000, ['<s>', '<pad>', '</s>', '<unk>', '<mask>'])
    tok.post_processor = processors.RobertaProcessing(('</s>', tok.token_to_id('</s>')),
                                                      ('<s>', tok.token_to_id('<s>')), trim_offsets=True,
                                                      add_prefix_space=False)
    return tok


def gpt2_prefix_space(texts):
    tok = byte_level_tokenizer(texts, True, 2500, ['<|endoftext|>'])
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    return tok


def modernbert(texts):
    tok = byte_level_tokenizer(texts, False, 3500, ['[UNK]', '[CLS]', '[SEP]', '[PAD]', '[MASK]'])
    cls, sep = tok.token_to_id('[CLS]'), tok.token_to_id('[SEP]')
    tok.post_processor = processors.TemplateProcessing(single='[CLS] $A [SEP]', pair='[CLS] $A [SEP] $B:1 [SEP]:1',
                                                       special_tokens=[('[CLS]', cls), ('[SEP]', sep)])
    return tok


def split_then_byte_level(texts):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(SPLIT_PATTERN), behavior='isolated', invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=3000, special_tokens=['<|endoftext|>'], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)
    return tok


def char_bpe(texts, byte_fallback, fuse_unk, prefix=None, suffix=None, byte_tokens=range(0x00, 0xE0)):
    """Character BPE on Whitespace words with a small alphabet, so unknown characters occur: they
    become <0xNN> tokens (byte_fallback; bytes E0..FF have none, so 3- and 4-byte characters still
    fall to <unk>) or <unk>."""
    affixes = {k: v for k, v in (('continuing_subword_prefix', prefix), ('end_of_word_suffix', suffix)) if v}
    tok = Tokenizer(models.BPE(unk_token='<unk>', byte_fallback=byte_fallback, fuse_unk=fuse_unk, **affixes))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    specials = ['<unk>'] + (['<0x%02X>' % b for b in byte_tokens] if byte_fallback else [])
    trainer = trainers.BpeTrainer(vocab_size=2500, special_tokens=specials, limit_alphabet=120, show_progress=False,
                                  **affixes)
    tok.train_from_iterator(texts, trainer)
    return tok


def edited(tok, edit):
    """The tokenizer after `edit(model_json)` on its tokenizer.json's model."""
    data = json.loads(tok.to_str())
    edit(data['model'])
    return Tokenizer.from_str(json.dumps(data))


def legacy_merges(model):
    model['merges'] = [' '.join(pair) for pair in model['merges']]


def ignore_merges(model):
    model['ignore_merges'] = True


def whitespace_split(tok):
    data = json.loads(tok.to_str())
    data['pre_tokenizer'] = {'type': 'WhitespaceSplit'}
    return Tokenizer.from_str(json.dumps(data))


def build(out_dir, corpora):
    texts = read_corpus(corpora)
    base_roberta = roberta(texts)
    char_fallback = char_bpe(texts, True, False)
    made = {
        'roberta': (base_roberta, 'ByteLevel(add_prefix_space=false), RobertaProcessing'),
        'gpt2_prefix_space': (gpt2_prefix_space(texts), 'ByteLevel(add_prefix_space=true)'),
        'modernbert': (modernbert(texts), 'ByteLevel, TemplateProcessing [CLS] $A [SEP]'),
        'split_byte_level': (split_then_byte_level(texts), 'Sequence[Split(Regex llama3), ByteLevel(use_regex=false)]'),
        'roberta_legacy_merges': (edited(base_roberta, legacy_merges), 'merges as "a b" strings'),
        'roberta_ignore_merges': (edited(base_roberta, ignore_merges), 'ignore_merges=true'),
        'char_byte_fallback': (char_fallback, 'Whitespace, byte_fallback with <0x00>..<0xDF>, unk'),
        'char_byte_fallback_fused': (char_bpe(texts, True, True), 'byte_fallback and fuse_unk'),
        'char_unk_fused': (char_bpe(texts, False, True), 'no byte_fallback, fuse_unk'),
        'char_unk': (char_bpe(texts, False, False), 'no byte_fallback, unk per character'),
        'char_prefix': (char_bpe(texts, True, True, prefix='##'), 'continuing_subword_prefix ##'),
        'char_suffix': (char_bpe(texts, False, True, suffix='</w>'), 'end_of_word_suffix </w>'),
        'char_whitespace_split': (whitespace_split(char_fallback), 'WhitespaceSplit'),
    }
    inputs = nasty_inputs()
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, 'inputs.json'), 'w', encoding='utf-8') as f:
        json.dump(inputs, f, ensure_ascii=False)
    manifest = {}
    for name, (tok, what) in made.items():
        folder = os.path.join(out_dir, name)
        os.makedirs(folder, exist_ok=True)
        tok.save(os.path.join(folder, 'tokenizer.json'))
        tok = Tokenizer.from_file(os.path.join(folder, 'tokenizer.json'))
        with open(os.path.join(folder, 'expected.jsonl'), 'w', encoding='utf-8') as f:
            for text in inputs:
                plain = tok.encode(text, add_special_tokens=False)
                record = {
                    'ids': plain.ids,
                    'special_ids': tok.encode(text).ids,
                    'tokens': plain.tokens,
                    'words': [w for w, _ in tok.pre_tokenizer.pre_tokenize_str(text)],
                    'decoded': tok.decode(plain.ids, skip_special_tokens=False),
                }
                f.write(json.dumps(record, ensure_ascii=False) + '\n')
        manifest[name] = what
    with open(os.path.join(out_dir, 'manifest.json'), 'w', encoding='utf-8') as f:
        json.dump({'tokenizers': tokenizers.__version__, 'made': manifest}, f, indent=1)


def pretokenize(tokenizer_json, input_json):
    tok = Tokenizer.from_file(tokenizer_json)
    with open(input_json, encoding='utf-8') as f:
        texts = json.load(f)
    for text in texts:
        print(json.dumps([w for w, _ in tok.pre_tokenizer.pre_tokenize_str(text)], ensure_ascii=False))


def main(argv):
    if len(argv) >= 2 and argv[0] == 'build':
        build(argv[1], argv[2] if len(argv) > 2 else DEFAULT_CORPORA)
    elif len(argv) == 3 and argv[0] == 'pretokenize':
        pretokenize(argv[1], argv[2])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv[1:])
