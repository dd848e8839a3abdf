#!/usr/bin/env python3
"""WikiExtractor output -> JSONL in the Hugging Face `wikipedia` dataset's row shape
({"id", "url", "title", "text"}; the repeated title line dropped from the text, empty pages
skipped), the shape the guide loads. bench/peers.sh --size full uses it to give both sides the same
one-file corpus; /work/shared/data's wikipedia_en_jsonl_derived/ was made the same way from the
first 6 of the 24 files.

  wikiextractor_to_jsonl.py OUT.jsonl FILE...
"""

import json
import re
import sys

DOC = re.compile(r'<doc id="([^"]*)" url="[^"]*" title="([^"]*)">\n(.*?)</doc>', re.S)


def main():
    out_path, files = sys.argv[1], sys.argv[2:]
    n = 0
    with open(out_path, "w", encoding="utf-8") as out:
        for path in files:
            with open(path, encoding="utf-8", errors="replace") as f:
                data = f.read()
            for doc_id, title, body in DOC.findall(data):
                lines = body.split("\n")
                if lines and lines[0].strip() == title.strip():
                    lines = lines[1:]
                text = "\n".join(l for l in lines if l.strip()).strip()
                if not text:
                    continue
                url = "https://en.wikipedia.org/wiki/" + title.replace(" ", "_")
                out.write(json.dumps({"id": doc_id, "url": url, "title": title, "text": text}, ensure_ascii=False) + "\n")
                n += 1
    print(f"{n} documents -> {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
