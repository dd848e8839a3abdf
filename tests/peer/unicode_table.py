"""Dumps Hugging Face's per-code-point behaviour of BertNormalizer and BertPreTokenizer (the Python
binding of tokenizers, pinned in requirements/hf-peer.txt), for the exhaustive conformance test
(tests/tokenizer/peer_unicode_test.cc). Every scalar value c (U+0000..U+10FFFF, no surrogates) is
run as 'a' + c + 'b'; only code points whose result differs from the identity are printed, one per
line, so the C++ side can compare the whole table. Run it with the project's .venv:
  .venv/bin/python tests/peer/unicode_table.py normalizer MODE -> "HEX<TAB>HEX HEX ..." (normalized code points)
    MODE: lowercase (lowercase + strip accents, bert-base-uncased), cased (neither),
          lowercase-keep-accents, cased-strip-accents
  .venv/bin/python tests/peer/unicode_table.py pretokenizer    -> "HEX<TAB>space|punct"
"""
import json
import sys

from tokenizers import normalizers, pre_tokenizers

MODES = {  # mode -> (lowercase, strip_accents)
    'lowercase': (True, True),
    'cased': (False, False),
    'lowercase-keep-accents': (True, False),
    'cased-strip-accents': (False, True),
}


def scalar_values():
    return (cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)


def main(argv):
    what = argv[0] if argv else None
    out = []
    if what == 'normalizer':
        mode = argv[1] if len(argv) > 1 else None
        if mode not in MODES:
            raise ValueError('unknown normalizer mode ' + str(mode))
        lowercase, strip_accents = MODES[mode]
        norm = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=strip_accents,
                                          lowercase=lowercase)
        for cp in scalar_values():
            s = 'a' + chr(cp) + 'b'
            r = norm.normalize_str(s)
            if r != s:
                out.append('%04X\t%s' % (cp, ' '.join('%04X' % ord(ch) for ch in r)))
    elif what == 'pretokenizer':
        pre = pre_tokenizers.BertPreTokenizer()
        for cp in scalar_values():
            ch = chr(cp)
            pieces = [w for w, _ in pre.pre_tokenize_str('a' + ch + 'b')]
            if pieces == ['a' + ch + 'b']:
                continue
            if pieces == ['a', 'b']:
                out.append('%04X\tspace' % cp)
            elif pieces == ['a', ch, 'b']:
                out.append('%04X\tpunct' % cp)
            else:
                out.append('%04X\tother %s' % (cp, json.dumps(pieces, ensure_ascii=False, separators=(',', ':'))))
    else:
        raise ValueError('usage: unicode_table.py normalizer MODE | pretokenizer')
    sys.stdout.buffer.write(('\n'.join(out) + '\n').encode('utf-8'))


if __name__ == '__main__':
    main(sys.argv[1:])  # an error: a traceback on stderr and exit status 1
