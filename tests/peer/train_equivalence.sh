#!/usr/bin/env bash
# Step-for-step training equivalence with transformers as the referee: `bertpt train` against a plain
# PyTorch loop over BertForMaskedLM and RobertaForMaskedLM (tests/peer/train_equivalence.py) and `bertpt finetune` against
# one over BertForSequenceClassification (tests/peer/finetune_equivalence.py). Dropout 0, fp32, the
# same starting checkpoint and exactly the batches bertpt dumped with --dump-batches: every step's
# loss and gradient norm within 1e-4 relative, the learning rate of every step, the final weights
# within 1e-4 (helpers in tests/peer/equivalence_lib.py).
# Usage: train_equivalence.sh BERTPT_BIN SOURCE_DIR. Corpora: $BERTPT_SHARED_DATA (default
# SOURCE_DIR/tests/fixtures/corpora). Threads: $BERTPT_TEST_THREADS (default 1) on both sides.
# Exit 77 (CTest: skipped) when the peer environment or the corpora are missing (scripts/setup-test-peers
# installs the peer) — except in CI (CI=true), where that fails.
set -euo pipefail
bin=$1
src=$2
source "$src/tests/peer/lib.bash"
data=${BERTPT_SHARED_DATA:-$src/tests/fixtures/corpora}
threads=${BERTPT_TEST_THREADS:-1}


if ! "$py" -c 'import torch, transformers, accelerate, safetensors, numpy' 2>/dev/null; then
  missing "no transformers / accelerate / safetensors / numpy in $py (requirements/hf-peer.txt)"
fi
for f in nltk_gutenberg/austen-emma.txt sms_spam/SMSSpamCollection; do
  [[ -f $data/$f ]] || missing "corpus file $data/$f is missing (set BERTPT_SHARED_DATA)"
done

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false OMP_NUM_THREADS=$threads
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Both run (one report for both); either failing fails the test.
rc=0
for family in bert roberta; do
  "$py" "$src/tests/peer/train_equivalence.py" --bertpt "$bin" --corpus "$data/nltk_gutenberg/austen-emma.txt" \
    --work "$work" --threads "$threads" --family "$family" || rc=1
done
"$py" "$src/tests/peer/finetune_equivalence.py" --bertpt "$bin" \
  --tokenizer-corpus "$data/nltk_gutenberg/austen-emma.txt" --sms "$data/sms_spam/SMSSpamCollection" \
  --work "$work" --threads "$threads" || rc=1
exit $rc
