"""The text and word counts the trainer peers (bpe_trainer_peer.py, unigram_trainer_peer.py) share."""
import collections
import json


def read_lines(files):
    """The files' lines (split on '\\n'); a .jsonl file gives the "text" field of each record, split
    into lines."""
    lines = []
    for file in files:
        with open(file, 'rb') as f:
            text = f.read().decode('utf-8', errors='replace')
        if file.endswith('.jsonl'):
            for record in text.split('\n'):
                if record.strip():
                    lines.extend(json.loads(record)['text'].split('\n'))
        else:
            lines.extend(text.split('\n'))
    return lines


def write_word_counts(path, pre_tokenizer, lines):
    """Counts the words `pre_tokenizer` cuts the lines into, as HF's trainers' feed does, and writes
    them to `path` as "COUNT<TAB>WORD" lines sorted by word."""
    counts = collections.Counter()
    for line in lines:
        counts.update(w for w, _ in pre_tokenizer.pre_tokenize_str(line))
    with open(path, 'w', encoding='utf-8', newline='') as f:
        for word in sorted(counts):
            f.write('%d\t%s\n' % (counts[word], word))
