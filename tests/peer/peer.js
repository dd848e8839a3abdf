// Hugging Face tokenizers (npm tokenizers@0.23.2) as a command-line oracle for bertpt's tests and
// benchmarks. Each input line is one sequence (a final '\n' does not start another one).
//   node peer.js train-bert OUT_DIR lowercase|cased FILE...   HF trains a WordPiece vocabulary on
//        FILE... with the BERT pipeline; writes OUT_DIR/vocab.txt ([PAD] [UNK] [CLS] [SEP] [MASK]
//        first) and OUT_DIR/tokenizer.json written by HF itself.
//   node peer.js build OUT_DIR VOCAB_TXT lowercase|cased|lowercase-keep-accents|cased-strip-accents
//        HF builds a BERT tokenizer over VOCAB_TXT and saves OUT_DIR/tokenizer.json.
//   node peer.js encode TOKENIZER_JSON INPUT [--no-special-tokens] [--tokens] [--max-length N]
//        ids per line; with --max-length, truncated to N tokens (special tokens included)
//   node peer.js encode-pairs TOKENIZER_JSON INPUT [--max-length N]
//        line "a<TAB>b" -> "ids<TAB>type ids"; with --max-length, the pair is truncated to N tokens
//        (special tokens included) by the LongestFirst strategy, as transformers' truncation=True
//   node peer.js decode TOKENIZER_JSON INPUT [--skip-special-tokens]   ids per line -> text
//   node peer.js normalize MODE INPUT    normalized text of each line, JSON-quoted
//   node peer.js pretokenize INPUT       pre-tokenized words of each line, as a JSON array
//   node peer.js bench TOKENIZER_JSON INPUT [REPEATS]   encodeBatch throughput, JSON on stdout
'use strict';
const fs = require('fs');
const path = require('path');
const tk = require('tokenizers');

const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const MODES = {
  lowercase: [true, true],
  cased: [false, false],
  'lowercase-keep-accents': [true, false],
  'cased-strip-accents': [false, true],
};

function readLines(file) {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function normalizerFor(mode) {
  if (!(mode in MODES)) throw new Error('unknown mode ' + mode);
  const [lowercase, stripAccents] = MODES[mode];
  return tk.bertNormalizer({ cleanText: true, handleChineseChars: true, stripAccents, lowercase });
}

async function bertTokenizer(vocabFile, mode) {
  const model = await tk.WordPiece.fromFile(vocabFile, { unkToken: '[UNK]' });
  const t = new tk.Tokenizer(model);
  t.setNormalizer(normalizerFor(mode));
  t.setPreTokenizer(tk.bertPreTokenizer());
  const cls = t.tokenToId('[CLS]');
  const sep = t.tokenToId('[SEP]');
  t.setPostProcessor(
    tk.templateProcessing('[CLS] $A [SEP]', '[CLS] $A [SEP] $B:1 [SEP]:1', [['[CLS]', cls], ['[SEP]', sep]]),
  );
  t.setDecoder(tk.wordPieceDecoder('##', true));
  t.addSpecialTokens(SPECIALS);
  return t;
}

function write(lines) {
  process.stdout.write(lines.length ? lines.join('\n') + '\n' : '');
}

async function main() {
  const [cmd, ...argv] = process.argv.slice(2);
  // --max-length takes a value; every other flag stands alone.
  const args = [];
  let maxLength = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== '--max-length') args.push(argv[i]);
    else if (!/^[0-9]+$/.test(argv[++i] || '')) throw new Error('--max-length needs a number');
    else maxLength = Number(argv[i]);
  }
  const flags = new Set(args.filter((a) => a.startsWith('--')));
  const pos = args.filter((a) => !a.startsWith('--'));
  const load = (file) => {
    const t = tk.Tokenizer.fromFile(file);
    if (maxLength !== null) t.setTruncation(maxLength, { strategy: 'LongestFirst' });
    return t;
  };
  if (cmd === 'train-bert') {
    const [outDir, mode, ...files] = pos;
    const t = new tk.Tokenizer(tk.WordPiece.empty());
    t.setNormalizer(normalizerFor(mode));
    t.setPreTokenizer(tk.bertPreTokenizer());
    t.train(files);
    const vocab = t.getVocab(false);
    const trained = Object.keys(vocab).sort((a, b) => vocab[a] - vocab[b]).filter((s) => !SPECIALS.includes(s));
    fs.mkdirSync(outDir, { recursive: true });
    const vocabFile = path.join(outDir, 'vocab.txt');
    fs.writeFileSync(vocabFile, SPECIALS.concat(trained).join('\n') + '\n');
    const bert = await bertTokenizer(vocabFile, mode);
    bert.save(path.join(outDir, 'tokenizer.json'), true);
  } else if (cmd === 'build') {
    const [outDir, vocabFile, mode] = pos;
    const bert = await bertTokenizer(vocabFile, mode);
    fs.mkdirSync(outDir, { recursive: true });
    bert.save(path.join(outDir, 'tokenizer.json'), true);
  } else if (cmd === 'encode') {
    const t = load(pos[0]);
    const lines = readLines(pos[1]);
    const encs = await t.encodeBatch(lines, { addSpecialTokens: !flags.has('--no-special-tokens') });
    write(encs.map((e) => (flags.has('--tokens') ? e.getTokens() : e.getIds()).join(' ')));
  } else if (cmd === 'encode-pairs') {
    const t = load(pos[0]);
    const out = [];
    for (const line of readLines(pos[1])) {
      const [a, b] = line.split('\t');
      const e = await t.encode(a, b);
      out.push(e.getIds().join(' ') + '\t' + e.getTypeIds().join(' '));
    }
    write(out);
  } else if (cmd === 'decode') {
    const t = tk.Tokenizer.fromFile(pos[0]);
    const ids = readLines(pos[1]).map((l) => (l.trim() === '' ? [] : l.trim().split(/\s+/).map(Number)));
    write(await t.decodeBatch(ids, flags.has('--skip-special-tokens')));
  } else if (cmd === 'normalize') {
    const n = normalizerFor(pos[0]);
    write(readLines(pos[1]).map((l) => JSON.stringify(n.normalizeString(l))));
  } else if (cmd === 'pretokenize') {
    const p = tk.bertPreTokenizer();
    write(readLines(pos[1]).map((l) => JSON.stringify(p.preTokenizeString(l).map((x) => x[0]))));
  } else if (cmd === 'bench') {
    const t = tk.Tokenizer.fromFile(pos[0]);
    const lines = readLines(pos[1]);
    const repeats = Number(pos[2] || 3);
    const bytes = fs.statSync(pos[1]).size;
    await t.encodeBatch(lines.slice(0, 1000)); // warm-up
    const times = [];
    let tokens = 0;
    for (let r = 0; r < repeats; r++) {
      const t0 = process.hrtime.bigint();
      const encs = await t.encodeBatch(lines);
      times.push(Number(process.hrtime.bigint() - t0) / 1e9);
      tokens = encs.reduce((s, e) => s + e.getLength(), 0);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    console.log(JSON.stringify({ peer: 'tokenizers@0.23.2 encodeBatch', lines: lines.length, bytes, tokens,
      seconds_median: median, seconds_all: times, tokens_per_second: tokens / median }));
  } else {
    throw new Error('unknown command ' + cmd + ' (see the comment at the top of peer.js)');
  }
}

main().catch((e) => {
  console.error('peer.js: ' + (e && e.stack ? e.stack : e));
  process.exit(1);
});
