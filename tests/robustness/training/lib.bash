# Sourced by the robustness cases that train (tests/robustness/training/*.sh, registered only when
# bertpt is built with LibTorch): ../lib.bash, plus a small prepared dataset and a labelled set.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.bash"

# make_dataset DIR: a bert-tiny-sized dataset (vocabulary 120, 32-token blocks, a valid split).
make_dataset() {
  [[ -f $T/corpus.txt ]] || make_corpus "$T/corpus.txt" 3000
  [[ -d $T/tok ]] || make_tokenizer "$T/tok"
  "$BERTPT" prepare -q -i "$T/corpus.txt" -t "$T/tok" --seq-len 32 --valid-fraction 0.05 --threads 1 -o "$1" ||
    fail "cannot prepare $1"
}

# "${TINY_TRAIN[@]}" ARGS...: `train` on one thread, small batches, no TensorBoard files (an array,
# not a function, so that `run` and `&` start bertpt itself). The callers add --model bert-tiny.
TINY_TRAIN=("$BERTPT" train -q --threads 1 --per-device-batch-size 8 --logging-steps 1 --report-to none)

# make_labelled FILE N: N labelled examples (JSONL), two classes told apart by their words.
make_labelled() {
  awk -v n="$2" 'BEGIN {
    for (i = 0; i < n; i++) {
      if (i % 2) print "{\"text\": \"the cat sat on a mat " i "\", \"label\": \"cat\"}";
      else print "{\"text\": \"a dog ran far away from home " i "\", \"label\": \"dog\"}";
    }
  }' >"$1"
}
