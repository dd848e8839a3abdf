#!/usr/bin/env bash
# A disk that fills during training, for real (a 3 MiB tmpfs; CI runs as root): the failed write of
# metrics.jsonl stops the run at once with one line naming the file and "No space left on device"
# (it used to go on training with a log cut mid-line), and the log still ends with a whole record.
source "$(dirname "$0")/lib.bash"

[[ $(id -u) == 0 ]] || skip "needs root to mount a small tmpfs"
small=$T/small
mkdir -p "$small"
mount -t tmpfs -o size=3m tmpfs "$small" || fail "cannot mount a tmpfs"
trap 'umount "$small" 2>/dev/null; cleanup' EXIT
make_dataset "$T/data"

"${TINY_TRAIN[@]}" --model bert-tiny --data "$T/data" --max-steps 5000 --save-steps 0 --output-dir "$small/run" \
  2>"$T/err" &
pid=$!
BG_PIDS+=("$pid")
for ((i = 0; i < 400; i++)); do
  [[ -s $small/run/metrics.jsonl ]] && break
  sleep 0.05
done
[[ -s $small/run/metrics.jsonl ]] || fail "the run logged nothing: $(cat "$T/err")"
dd if=/dev/zero of="$small/fill" bs=64k 2>/dev/null  # until the disk is full
timeout 60 tail --pid="$pid" -f /dev/null
wait "$pid"
RC=$? ERR=$(cat "$T/err")
expect_error 1 "cannot write $small/run/metrics.jsonl" "No space left on device"
python3 - "$small/run/metrics.jsonl" <<'PY' || fail "metrics.jsonl does not end with a whole record"
import json, sys
data = open(sys.argv[1]).read()
assert data.endswith("\n"), repr(data[-80:])
records = [json.loads(line) for line in data.splitlines()]
assert records and records[-1]["step"] < 5000, records[-1:]
PY
pass "a full disk stops training at once with one line; metrics.jsonl ends with a whole record"
