#!/usr/bin/env bash
# bertpt's MediaWiki dump reader against WikiExtractor 3.1.0 (PyPI, pinned in requirements/hf-peer.txt)
# on real dumps, two of them bzip2-compressed (tests/fixtures/corpora/mediawiki_xml_dumps, or those of
# $BERTPT_SHARED_DATA): same articles, word F1 >= 0.95 on
# average (tests/peer/wikiextractor_peer.py). Usage: wikiextractor_peer.sh BERTPT_BIN SOURCE_DIR.
# Exit 77 (CTest: skipped) when the peer or the data is missing — except in CI, where that fails.
set -euo pipefail
bin=$1
src=$2
source "$src/tests/peer/lib.bash"
data=${BERTPT_SHARED_DATA:-$src/tests/fixtures/corpora}/mediawiki_xml_dumps
"$py" -c 'import wikiextractor' 2>/dev/null || missing "no wikiextractor in $py (scripts/setup-test-peers installs it)"
[[ -d $data ]] || missing "no $data (set BERTPT_SHARED_DATA to a folder of the shared corpora' layout)"
exec "$py" "$src/tests/peer/wikiextractor_peer.py" "$bin" "$data/enwiki-10k.xml.bz2" "$data/enwiki-articles-partial.xml" \
  "$data/simplewiki.xml.bz2"
