#!/usr/bin/env bash
# Text that is not UTF-8: UTF-16/UTF-32 files with a byte-order mark (plain text with CRLF as Windows
# Notepad saves it, JSONL, a MediaWiki dump whose declaration says UTF-16) give the documents of their
# UTF-8 twins; `--encoding` reads legacy files (Latin-1, Windows-1252, GB18030, Shift_JIS) to the text
# Python's own codecs give; a file that is mostly not UTF-8 is refused in one line naming it and the
# flag to use, never turned into silent noise.
source "$(dirname "$0")/lib.bash"

# texts JSONL: the merged documents' texts, one per line (the "source" field names the file).
texts() { python3 -c 'import json,sys; print("\n".join(json.loads(l)["text"] for l in open(sys.argv[1])))' "$1"; }
merged_texts() {  # merged_texts FILE [FLAGS...]
  local f=$1
  shift
  "$BERTPT" corpus merge -q -i "$f" -o "$T/out.jsonl" "$@" || fail "merge of $f failed"
  texts "$T/out.jsonl"
}

python3 - "$T" <<'PY' || fail "cannot write the fixtures"
import json, sys
t = sys.argv[1]
lines = [f"Ligne {i}: café, naïve, 中文, 😀, Straße." for i in range(2000)]
text = "\r\n".join(lines) + "\r\n"
open(f"{t}/plain.u8.txt", "w", encoding="utf-8", newline="").write(text)
open(f"{t}/plain.u16.txt", "w", encoding="utf-16", newline="").write(text)  # Notepad's "Unicode": BOM + LE
open(f"{t}/plain.u16be.txt", "wb").write(b"\xfe\xff" + text.encode("utf-16-be"))
open(f"{t}/plain.u32.txt", "w", encoding="utf-32", newline="").write(text)
jsonl = "".join(json.dumps({"text": l}, ensure_ascii=False) + "\n" for l in lines)
open(f"{t}/rows.u8.jsonl", "w", encoding="utf-8").write(jsonl)
open(f"{t}/rows.u16be.jsonl", "wb").write(b"\xfe\xff" + jsonl.encode("utf-16-be"))
pages = "".join(
    f"<page><title>Page {i}</title><ns>0</ns><id>{i + 1}</id><revision><id>{i + 100}</id>"
    f"<text>'''Page {i}''' is about [[café|cafés]] and 中文 &amp; more.\n\nA second paragraph {i}.</text>"
    f"</revision></page>\n" for i in range(200))
def dump(encoding):
    return f'<?xml version="1.0" encoding="{encoding}"?>\n<mediawiki>\n{pages}</mediawiki>\n'
open(f"{t}/dump.u8.xml", "w", encoding="utf-8").write(dump("UTF-8"))
open(f"{t}/dump.u16.xml", "w", encoding="utf-16").write(dump("UTF-16"))
open(f"{t}/dump.u16-nomark.xml", "wb").write(dump("UTF-16").encode("utf-16-le"))
open(f"{t}/dump.u32.xml", "w", encoding="utf-32").write(dump("UTF-32"))
legacy = {"latin1": "Le café à côté était fermé ; naïve façade.",
          "cp1252": "“Smart quotes” – the € sign and œuvre.",
          "gb18030": "中文测试，繁體字與標點。",
          "shift_jis": "日本語のテキスト、カタカナとひらがな。"}
for enc, line in legacy.items():
    body = "\n".join(f"{line} {i}" for i in range(3000)) + "\n"
    open(f"{t}/legacy.{enc}.txt", "wb").write(body.encode(enc))
    open(f"{t}/legacy.{enc}.want", "w", encoding="utf-8").write(body.encode(enc).decode(enc))
PY

want=$(merged_texts "$T/plain.u8.txt")
[[ $want != *$'\r'* ]] || fail "CRLF left a carriage return in the UTF-8 text"
for f in plain.u16 plain.u16be plain.u32; do
  [[ $(merged_texts "$T/$f.txt") == "$want" ]] || fail "$f.txt does not give the documents of its UTF-8 twin"
done
"$BERTPT" corpus stats --json -i "$T/plain.u16.txt" >"$T/stats.json" || fail "corpus stats failed"
python3 - "$T/stats.json" <<'PY' || fail "the decoded file is not counted as decoded, or counts repairs"
import json, sys
t = json.load(open(sys.argv[1]))["total"]
assert t["files_decoded"] == 1 and t["invalid_utf8_repaired"] == 0 and t["nul_removed"] == 0, t
assert t["documents"] == 2000, t
PY
[[ $(merged_texts "$T/rows.u16be.jsonl") == "$(merged_texts "$T/rows.u8.jsonl")" ]] || fail "UTF-16BE JSONL differs"
want=$(merged_texts "$T/dump.u8.xml")
[[ $(wc -l <"$T/out.jsonl") == 200 ]] || fail "the UTF-8 dump did not give its 200 pages"
for f in dump.u16 dump.u16-nomark dump.u32; do
  [[ $(merged_texts "$T/$f.xml") == "$want" ]] || fail "$f.xml does not give the pages of the UTF-8 dump"
done
pass "UTF-16/32 text (CRLF), JSONL and MediaWiki dumps give the documents of their UTF-8 twins"

"$BERTPT" tokenizer train -q -i "$T/plain.u8.txt" --vocab-size 300 --threads 1 -o "$T/tok8" || fail "train failed"
"$BERTPT" tokenizer train -q -i "$T/plain.u16.txt" --vocab-size 300 --threads 1 -o "$T/tok16" || fail "train failed"
cmp -s "$T/tok8/vocab.txt" "$T/tok16/vocab.txt" || fail "the tokenizer trained on UTF-16 differs"
pass "a tokenizer trained on the UTF-16 file equals the one trained on its UTF-8 twin"

for enc in latin1 cp1252 gb18030 shift_jis; do
  f=$T/legacy.$enc.txt
  [[ $(merged_texts "$f" --encoding "$enc") == "$(cat "$T/legacy.$enc.want")" ]] ||
    fail "--encoding $enc does not give Python's decoding"
  [[ $(merged_texts "$f" --encoding "$enc") == "$(iconv -f "$enc" -t UTF-8 "$f")" ]] ||
    fail "--encoding $enc does not give iconv's decoding"
  run "$BERTPT" corpus stats -i "$f"
  expect_error 1 "$f: " "invalid sequences" "not UTF-8 text"
  [[ $ERR == *"--encoding"* && $ERR == *"--repair-invalid-utf8"* ]] || fail "the hint does not name the flags: $ERR"
done
# Per source: SOURCE=NAME, the other sources stay UTF-8.
"$BERTPT" corpus merge -q -i "$T/plain.u8.txt" -i "$T/legacy.latin1.txt" --encoding 2=latin1 -o "$T/mixed.jsonl" ||
  fail "--encoding 2=latin1 failed"
[[ $(texts "$T/mixed.jsonl" | tail -n 3000) == "$(cat "$T/legacy.latin1.want")" ]] || fail "the per-source encoding differs"
pass "--encoding latin1, cp1252, gb18030, shift_jis equal Python's codecs and iconv; without it the files are refused"

run "$BERTPT" corpus stats -i "$T/dump.u16-nomark.xml" --format text --encoding utf-8
expect_error 1 "dump.u16-nomark.xml: " "NUL bytes" "not UTF-8 text"
[[ $ERR == *"UTF-16"* ]] || fail "the hint for NUL-laden text does not name UTF-16: $ERR"
"$BERTPT" corpus stats --json -i "$T/legacy.latin1.txt" --repair-invalid-utf8 >"$T/stats.json" ||
  fail "--repair-invalid-utf8 did not keep the file"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["total"]; assert t["invalid_utf8_repaired"] > 3000, t' \
  "$T/stats.json" || fail "the repairs are not counted"
run "$BERTPT" prepare -i "$T/legacy.latin1.txt" -t "$T/tok8" -o "$T/data"
expect_error 1 "legacy.latin1.txt: " "not UTF-8 text"
[[ ! -e $T/data/manifest.json ]] || fail "a refused prepare left a dataset that looks complete"
run "$BERTPT" corpus stats -i "$T/plain.u8.txt" --encoding klingon-8
expect_error 1 "--encoding 'klingon-8': no such encoding"
pass "mostly-invalid text is refused in one line (prepare leaves no dataset); --repair-invalid-utf8 keeps it, counted"

"$BERTPT" prepare -q -i "$T/legacy.latin1.txt" --encoding latin1 -t "$T/tok8" --seq-len 32 -o "$T/data" ||
  fail "prepare --encoding latin1 failed"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["config"]; assert c["encodings"] == ["latin1"], c' \
  "$T/data/manifest.json" || fail "the dataset does not record the encoding it was read in"
pass "prepare records --encoding in the dataset's content config"

# A binary file (an executable) is refused as one, naming where and what was found; the hint does not
# send the user round the encodings, and with --encoding the message speaks of that encoding.
bin=$(command -v ls)
run "$BERTPT" corpus stats -i "$bin"
expect_error 1 "$bin: this looks like a binary file, not UTF-8 text: an ELF executable header (7f 45 4c 46) at byte 0"
[[ $ERR != *"--encoding"* && $ERR != *"UTF-16"* ]] || fail "the hint for a binary file names encodings: $ERR"
for enc in UTF-16LE latin1; do
  run "$BERTPT" corpus merge -i "$bin" --encoding "$enc" -o "$T/bin.jsonl"
  expect_error 1 "$bin: this looks like a binary file, not $enc text: an ELF executable header" "decoded from $enc"
  [[ $ERR != *"UTF-8"* ]] || fail "--encoding $enc: the error speaks of UTF-8: $ERR"
  [[ ! -e $T/bin.jsonl ]] || fail "a refused merge left its output"
done
pass "an executable is refused as a binary file, in the encoding it was read in"
