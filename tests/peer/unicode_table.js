// Dumps Hugging Face's per-code-point behaviour of BertNormalizer and BertPreTokenizer, for the
// exhaustive conformance test (tests/tokenizer/peer_unicode_test.cc). Every scalar value c
// (U+0000..U+10FFFF, no surrogates) is run as 'a' + c + 'b'; only code points whose result differs
// from the identity are printed, one per line, so the C++ side can compare the whole table.
//   node unicode_table.js normalizer MODE   -> "HEX<TAB>HEX HEX ..." (normalized code points)
//     MODE: lowercase (lowercase + strip accents, bert-base-uncased), cased (neither),
//           lowercase-keep-accents, cased-strip-accents
//   node unicode_table.js pretokenizer           -> "HEX<TAB>space|punct"
'use strict';
const tk = require('tokenizers');

const [what, mode] = process.argv.slice(2);
const out = [];
const hex = (cp) => cp.toString(16).toUpperCase().padStart(4, '0');

if (what === 'normalizer') {
  const modes = {
    lowercase: [true, true],
    cased: [false, false],
    'lowercase-keep-accents': [true, false],
    'cased-strip-accents': [false, true],
  };
  if (!(mode in modes)) throw new Error('unknown normalizer mode ' + mode);
  const [lowercase, stripAccents] = modes[mode];
  const norm = tk.bertNormalizer({ cleanText: true, handleChineseChars: true, stripAccents, lowercase });
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const s = 'a' + String.fromCodePoint(cp) + 'b';
    const r = norm.normalizeString(s);
    if (r === s) continue;
    out.push(hex(cp) + '\t' + Array.from(r).map((ch) => hex(ch.codePointAt(0))).join(' '));
  }
} else if (what === 'pretokenizer') {
  const pre = tk.bertPreTokenizer();
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    const pieces = pre.preTokenizeString('a' + ch + 'b').map((p) => p[0]);
    if (pieces.length === 1 && pieces[0] === 'a' + ch + 'b') continue;
    if (pieces.length === 2 && pieces[0] === 'a' && pieces[1] === 'b') out.push(hex(cp) + '\tspace');
    else if (pieces.length === 3 && pieces[0] === 'a' && pieces[1] === ch && pieces[2] === 'b') out.push(hex(cp) + '\tpunct');
    else out.push(hex(cp) + '\tother ' + JSON.stringify(pieces));
  }
} else {
  throw new Error('usage: node unicode_table.js normalizer MODE | pretokenizer');
}
process.stdout.write(out.join('\n') + '\n');
