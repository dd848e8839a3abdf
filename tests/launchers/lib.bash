# Sourced by the launcher cases (tests/launchers/*.sh): bertpt started by the real launchers users
# run — the torch wheel's torchrun, Slurm's srun/sbatch — and compared with one process.
# Gives what ../robustness/training/lib.bash gives ($BERTPT, $T, make_dataset, fail/skip/pass), plus:
source "$(dirname "${BASH_SOURCE[0]}")/../robustness/training/lib.bash"
BERTPT=$(realpath "$BERTPT")  # jobs run in other directories

# no_dropout_config FILE: bert-tiny without dropout, with make_dataset's vocabulary (120), so that N
# ranks and one rank train alike.
no_dropout_config() {
  sed -e 's/"attention_probs_dropout_prob": 0.1/"attention_probs_dropout_prob": 0.0/' \
    -e 's/"hidden_dropout_prob": 0.1/"hidden_dropout_prob": 0.0/' -e 's/"vocab_size": 32000/"vocab_size": 120/' \
    "$SOURCE_DIR/configs/bert-tiny.json" >"$1"
  grep -q '"hidden_dropout_prob": 0.0' "$1" || fail "cannot write a no-dropout config from configs/bert-tiny.json"
}

# train_args OUT STEPS: sets ARGS to the options of every run of a case (fp32, no dropout, one thread
# per rank; DATA=DIR for another dataset); the callers add the batch, the checkpoints and the
# launcher's flags.
train_args() {
  ARGS=(train -q --data "${DATA:-$T/data}" --model "$T/tiny.json" --output-dir "$1" --max-steps "$2" --precision fp32
    --threads 1 --learning-rate 1e-3 --logging-steps 1 --eval-steps 0 --report-to none --dist-timeout 60)
}

# same_losses A B WHAT: the runs' metrics.jsonl hold the same steps with losses within 1e-5 relative
# (the launchers must give exactly one rank's run; 1e-5 leaves room for the order of float sums).
same_losses() {
  python3 - "$1/metrics.jsonl" "$2/metrics.jsonl" <<'PY' || fail "$3: the losses differ"
import json, sys
def losses(path):
    return {r["step"]: r["loss"] for r in map(json.loads, open(path)) if "loss" in r and "eval_loss" not in r}
a, b = losses(sys.argv[1]), losses(sys.argv[2])
assert a and a.keys() == b.keys(), f"steps {sorted(a)} vs {sorted(b)}"
worst = max(abs(a[s] - b[s]) / abs(b[s]) for s in a)
assert worst <= 1e-5, f"largest relative difference {worst:.3g}: " + str([(s, a[s], b[s]) for s in sorted(a)][:5])
print(f"{len(a)} steps, largest relative difference {worst:.2g}")
PY
}

# wait_for PATH SECONDS: until PATH exists; fails naming it otherwise.
wait_for() {
  local i
  for ((i = 0; i < $2 * 20; i++)); do
    [[ -e $1 ]] && return 0
    sleep 0.05
  done
  fail "$1 did not appear within $2 s"
}
