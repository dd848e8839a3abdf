#!/usr/bin/env bash
# Non-finite and out-of-range numbers: hyperparameters refused at parse time naming the flag; sizes
# in a config.json bounded (naming the file, field and value) before anything is allocated; a
# checkpoint with NaN weights refused on load (unless BERTPT_ALLOW_NON_FINITE_WEIGHTS=1), and never
# written: a run whose weights went non-finite stops instead of saving them.
source "$(dirname "$0")/lib.bash"

make_dataset "$T/data"
base=(--model bert-tiny --data "$T/data" --output-dir "$T/run")  # every case fails before training
declare -A bad=(
  ['--learning-rate inf']='--learning-rate must be in [0, 10]'
  ['--learning-rate nan']='--learning-rate must be in [0, 10]'
  ['--learning-rate 1e30']='--learning-rate must be in [0, 10]'
  ['--max-steps -5']='--max-steps must be > 0'
  ['--weight-decay inf']='--weight-decay must be in [0, 1000]'
  ['--adam-epsilon 0']='--adam-epsilon must be in (0, 1]'
  ['--max-grad-norm nan']='--max-grad-norm must be a finite number'
  ['--price-per-hour inf']='--price-per-hour must be a finite number'
  ['--master-port 70000']='--master-port'
  ['--master-port -1']='--master-port'
)
for flags in "${!bad[@]}"; do
  # shellcheck disable=SC2086
  run "${TINY_TRAIN[@]}" "${base[@]}" $flags
  expect_error 1 "${bad[$flags]}"
  [[ ! -e $T/run ]] || fail "train $flags created its output directory"
done
make_labelled "$T/labelled.jsonl" 16
for flags in "--learning-rate inf" "--weight-decay nan" "--warmup-ratio nan"; do
  # shellcheck disable=SC2086
  run "$BERTPT" finetune -q --model bert-tiny --tokenizer "$T/tok" --train "$T/labelled.jsonl" --output-dir "$T/ft" $flags
  expect_error 1 "${flags%% *}"
  [[ ! -e $T/ft ]] || fail "finetune $flags created its output directory"
done
run "$BERTPT" corpus merge -q -i "$T/corpus.txt" --weight 1e30 -o "$T/merged.jsonl"
expect_error 1 "--weight for $T/corpus.txt is 1e+30, must be in [0, 1000]"
run "$BERTPT" corpus stats -q -i "$T/corpus.txt" --max-line-bytes 1099511627776
expect_error 1 "--max-line-bytes 1099511627776 is more than"
pass "non-finite and out-of-range hyperparameters are refused naming the flag"

# config.json sizes: bounded, naming the file and the field.
python3 - "$SOURCE_DIR/configs/bert-tiny.json" "$T" <<'PY' || fail "cannot write the configs"
import json, sys
base = json.load(open(sys.argv[1]))
for name, change in {"wide": {"hidden_size": 1 << 30, "num_attention_heads": 2},
                     "deep": {"num_hidden_layers": 100000},
                     "huge": {"vocab_size": 4000000, "hidden_size": 16384, "num_attention_heads": 128,
                              "intermediate_size": 65536, "num_hidden_layers": 500}}.items():
    j = dict(base, **change)
    json.dump(j, open(f"{sys.argv[2]}/{name}.json", "w"))
PY
run "${TINY_TRAIN[@]}" --data "$T/data" --max-steps 2 --output-dir "$T/run" --model "$T/wide.json"
expect_error 1 "$T/wide.json: field 'hidden_size' is 1073741824, more than bertpt accepts (16384)"
run "${TINY_TRAIN[@]}" --data "$T/data" --max-steps 2 --output-dir "$T/run" --model "$T/deep.json"
expect_error 1 "$T/deep.json: field 'num_hidden_layers' is 100000"
run "${TINY_TRAIN[@]}" --data "$T/data" --max-steps 2 --output-dir "$T/run" --model "$T/huge.json"
expect_error 1 "$T/huge.json: " "more than this machine's"
pass "absurd sizes in a config.json are refused naming the file and the field"

# A checkpoint whose weights hold a NaN (one float of the word embeddings).
"${TINY_TRAIN[@]}" --model bert-tiny --data "$T/data" --max-steps 2 --output-dir "$T/good" || fail "the reference run failed"
cp -r "$T/good/checkpoint-2" "$T/nan"
python3 - "$T/nan/model.safetensors" <<'PY' || fail "cannot poison the checkpoint"
import json, struct, sys
path = sys.argv[1]
b = bytearray(open(path, "rb").read())
n = struct.unpack_from("<Q", b, 0)[0]
header = json.loads(b[8:8 + n])
start = header["bert.embeddings.word_embeddings.weight"]["data_offsets"][0]
struct.pack_into("<f", b, 8 + n + start + 4 * 7, float("nan"))
open(path, "wb").write(b)
PY
run "$BERTPT" fill-mask --model "$T/nan" --threads 1 "the cat [MASK] on a mat"
expect_error 1 "$T/nan/model.safetensors: tensor 'bert.embeddings.word_embeddings.weight' holds NaN or infinite values"
BERTPT_ALLOW_NON_FINITE_WEIGHTS=1 run "$BERTPT" fill-mask --model "$T/nan" --threads 1 "the cat [MASK] on a mat"
[[ $RC == 0 ]] || fail "BERTPT_ALLOW_NON_FINITE_WEIGHTS=1 did not allow loading: $ERR"
pass "a checkpoint with NaN weights is refused on load unless explicitly allowed"

# Training from it (allowed): every step is non-finite and skipped, the weights stay NaN, and the
# final save refuses to write them; nothing that looks like a checkpoint is left.
BERTPT_ALLOW_NON_FINITE_WEIGHTS=1 run "${TINY_TRAIN[@]}" --data "$T/data" --max-steps 2 --max-nan-steps 100 \
  --model bert-tiny --init-from "$T/nan" --output-dir "$T/poisoned"
expect_error 1 "refusing to write" "holds NaN or infinite values"
ls "$T/poisoned" | grep -q '^checkpoint-' && fail "a checkpoint of NaN weights was written"
pass "a checkpoint with non-finite weights is never written"
