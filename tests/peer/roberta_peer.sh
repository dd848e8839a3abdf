#!/usr/bin/env bash
# bertpt's RoBERTa and XLM-R against transformers' RobertaForMaskedLM / XLMRobertaForMaskedLM
# (tests/peer/roberta_peer.py): logits, fill-mask, eval loss, init-from -> HF, roberta-tiny -> HF, embed,
# finetune -> RobertaFor{Sequence,Token}Classification and XLMRobertaForSequenceClassification (regression),
# refused inputs. Usage: roberta_peer.sh BERTPT_BIN SOURCE_DIR. Corpora: $BERTPT_SHARED_DATA (default
# SOURCE_DIR/tests/fixtures/corpora). Exit 77 (CTest: skipped) when the peer is missing — except in CI.
set -euo pipefail
bin=$1
src=$2
source "$src/tests/peer/lib.bash"
data=${BERTPT_SHARED_DATA:-$src/tests/fixtures/corpora}
require_python torch transformers tokenizers safetensors numpy sentence_transformers
for f in wikipedia_en_jsonl_derived/wiki_00.jsonl nltk_udhr_utf8/Hindi-UTF8 sms_spam/SMSSpamCollection \
  glue_samples/STS-B/train.tsv scibert/ner/NCBI-disease/train.txt; do
  [[ -f $data/$f ]] || missing "corpus file $data/$f is missing (set BERTPT_SHARED_DATA)"
done
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
exec "$py" "$src/tests/peer/roberta_peer.py" --bertpt "$bin" --shared-data "$data" \
  --threads "${BERTPT_TEST_THREADS:-2}"
