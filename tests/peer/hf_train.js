// Hugging Face's trainers as the peer for bertpt's WordPiece trainer (tests/tokenizer/trainer_test.cc,
// bench/tokenizer.sh).
//
//   node hf_train.js train MODEL PIPELINE OUT FILE...
//     Trains with Tokenizer.train(files), i.e. the model's default trainer: vocab 30,000, no special
//     tokens, min_frequency 0. MODEL: wordpiece (HF's WordPieceTrainer, "##" prefix) or bpe (its
//     BpeTrainer without a prefix: deterministic, so an exact oracle for the merge loop).
//     PIPELINE: lowercase | cased (BertNormalizer with those settings + BertPreTokenizer) or words
//     (no normalizer, split on whitespace: for files written by `words`).
//     Writes the vocabulary to OUT, one token per line in id order (tokens never contain
//     whitespace), and prints {"seconds": training time, "tokens": count} on stdout.
//
//   node hf_train.js words PIPELINE OUT FILE...
//     Writes, for every line of the files, HF's normalized and pre-tokenized words joined by single
//     spaces: the word stream HF's trainer counts, so bertpt's merge loop can be compared with HF's
//     independently of the normalizer.
//
// Threads: HF uses RAYON_NUM_THREADS (set it in the environment).
'use strict';
const fs = require('fs');
const tk = require('tokenizers');

function pipeline(name) {
  if (name === 'lowercase') return { norm: tk.bertNormalizer({ lowercase: true, stripAccents: true }), pre: tk.bertPreTokenizer() };
  if (name === 'cased') return { norm: tk.bertNormalizer({ lowercase: false, stripAccents: false }), pre: tk.bertPreTokenizer() };
  if (name === 'words') return { norm: null, pre: tk.whitespaceSplitPreTokenizer() };
  throw new Error('unknown pipeline ' + name + ' (lowercase, cased, words)');
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'train') {
  const [model, pipe, out, ...files] = args;
  if (!files.length) throw new Error('usage: train MODEL PIPELINE OUT FILE...');
  const m = model === 'bpe' ? tk.BPE.empty() : model === 'wordpiece' ? tk.WordPiece.empty() : null;
  if (!m) throw new Error('unknown model ' + model + ' (wordpiece, bpe)');
  const t = new tk.Tokenizer(m);
  const p = pipeline(pipe);
  if (p.norm) t.setNormalizer(p.norm);
  t.setPreTokenizer(p.pre);
  const t0 = process.hrtime.bigint();
  t.train(files);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const vocab = t.getVocab(false);
  const tokens = Object.keys(vocab).sort((a, b) => vocab[a] - vocab[b]);
  fs.writeFileSync(out, tokens.join('\n') + '\n');
  process.stdout.write(JSON.stringify({ seconds, tokens: tokens.length }) + '\n');
} else if (cmd === 'words') {
  const [pipe, out, ...files] = args;
  if (!files.length) throw new Error('usage: words PIPELINE OUT FILE...');
  const p = pipeline(pipe);
  const fd = fs.openSync(out, 'w');
  for (const f of files) {
    const lines = fs.readFileSync(f, 'utf8').split('\n');
    let buf = [];
    for (const line of lines) {
      const normalized = p.norm ? p.norm.normalizeString(line) : line;
      buf.push(p.pre.preTokenizeString(normalized).map((w) => w[0]).join(' '));
      if (buf.length >= 4096) {
        fs.writeSync(fd, buf.join('\n') + '\n');
        buf = [];
      }
    }
    if (buf.length) fs.writeSync(fd, buf.join('\n') + '\n');
  }
  fs.closeSync(fd);
} else {
  throw new Error('usage: node hf_train.js train|words ...');
}
