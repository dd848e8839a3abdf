// Prints the total number of ids Hugging Face's tokenizer produces for the lines of a file, each
// encoded with special tokens ([CLS] … [SEP]): the reference for bertpt prepare's token counts.
// Usage: node count_tokens.js TOKENIZER_JSON TEXT_FILE
const fs = require('fs');
const { Tokenizer } = require('tokenizers');

async function main() {
  const [tokenizerPath, textPath] = process.argv.slice(2);
  const tok = Tokenizer.fromFile(tokenizerPath);
  const lines = fs.readFileSync(textPath, 'utf8').split('\n').filter((l) => l.trim().length > 0);
  let total = 0;
  for (const line of lines) total += (await tok.encode(line)).getIds().length;
  process.stdout.write(`${total}\n`);
}
main().catch((e) => { console.error(e); process.exit(1); });
