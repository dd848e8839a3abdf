#!/usr/bin/env bash
# Damaged model.safetensors of a checkpoint — cut short, a header length past the file, a header that
# is not JSON, a tensor whose offsets leave the data, a dtype that is not a float, a wrong shape —
# each one error line naming the file (and the tensor where there is one), for `fill-mask` and for
# `train --init-from`; the checkpoint directory is left as it was.
source "$(dirname "$0")/lib.bash"

make_dataset "$T/data"
"${TINY_TRAIN[@]}" --model bert-tiny --data "$T/data" --max-steps 1 --output-dir "$T/run" || fail "the reference run failed"
good="$T/run/checkpoint-1"
# damage NAME PYTHON: a copy of the checkpoint whose model.safetensors bytes `b` (a bytearray, with
# header length `n` and parsed header `h`) are changed by PYTHON.
damage() {
  cp -r "$good" "$T/$1"
  python3 - "$T/$1/model.safetensors" "$2" <<'PY' || fail "cannot damage $1"
import json, struct, sys
path = sys.argv[1]
b = bytearray(open(path, "rb").read())
n = struct.unpack_from("<Q", b, 0)[0]
h = json.loads(b[8:8 + n])
exec(sys.argv[2])
open(path, "wb").write(b)
PY
}
set_header() { echo 'raw = json.dumps(h).encode(); b = bytearray(struct.pack("<Q", len(raw))) + raw + b[8 + n:]'; }
damage cut 'del b[len(b) // 2:]'
damage length 'struct.pack_into("<Q", b, 0, 10**12)'
damage notjson 'b[8:8 + n] = b"{" * n'
damage offsets "h['bert.embeddings.word_embeddings.weight']['data_offsets'][1] += 10**9; $(set_header)"
damage dtype "h['bert.embeddings.word_embeddings.weight']['dtype'] = 'I64'; $(set_header)"
damage shape "h['bert.embeddings.word_embeddings.weight']['shape'] = [7, 7]; $(set_header)"
declare -A want=(
  [cut]="model.safetensors"
  [length]="model.safetensors"
  [notjson]="model.safetensors"
  [offsets]="model.safetensors"
  [dtype]="bert.embeddings.word_embeddings.weight"
  [shape]="bert.embeddings.word_embeddings.weight"
)
for name in "${!want[@]}"; do
  before=$(digest "$T/$name")
  run "$BERTPT" fill-mask --model "$T/$name" --threads 1 "the cat [MASK] on a mat"
  expect_error 1 "$T/$name/model.safetensors" "${want[$name]}"
  run "${TINY_TRAIN[@]}" --model bert-tiny --data "$T/data" --max-steps 1 --init-from "$T/$name" --output-dir "$T/init-$name"
  expect_error 1 "$T/$name/model.safetensors"
  [[ $(digest "$T/$name") == "$before" ]] || fail "reading the damaged $name checkpoint changed it"
done
pass "damaged safetensors files are one error naming the file (and the tensor)"
