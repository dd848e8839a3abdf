#!/usr/bin/env bash
# bertpt's Parquet and Arrow inputs (src/text/table_reader.h) on files written by pyarrow and by
# `datasets` (PyPI, pinned in requirements/hf-peer.txt): the same documents, bytes and prepared shards
# as the same rows given as JSONL, and one-line errors naming file and column for damaged inputs
# (tests/peer/table_inputs.py). Usage: table_inputs.sh BERTPT_BIN SOURCE_DIR.
# Exit 77 (CTest: skipped) when the peer is missing — except in CI, where that fails.
set -euo pipefail
bin=$1
src=$2
source "$src/tests/peer/lib.bash"
require_python pyarrow datasets
exec env HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 "$py" "$src/tests/peer/table_inputs.py" "$bin"
