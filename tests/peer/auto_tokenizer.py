"""transformers' AutoTokenizer on a tokenizer directory, as a user loads one: prints, for each line
of INPUT (UTF-8), a JSON record {"ids": input_ids with special tokens, "decoded": decode(ids,
skip_special_tokens=True)} and first a header record with the class and the special tokens.

  .venv/bin/python tests/peer/auto_tokenizer.py TOKENIZER_DIR INPUT
"""
import json
import sys

from transformers import AutoTokenizer


def main(directory, input_path):
    tok = AutoTokenizer.from_pretrained(directory)
    print(json.dumps({'class': type(tok).__name__, 'cls': tok.cls_token, 'sep': tok.sep_token, 'pad': tok.pad_token,
                      'mask': tok.mask_token, 'unk': tok.unk_token, 'vocab_size': len(tok)}))
    with open(input_path, encoding='utf-8') as f:
        for line in f.read().split('\n'):
            ids = tok(line)['input_ids']
            print(json.dumps({'ids': ids, 'decoded': tok.decode(ids, skip_special_tokens=True)}, ensure_ascii=False))


if __name__ == '__main__':
    main(*sys.argv[1:])
