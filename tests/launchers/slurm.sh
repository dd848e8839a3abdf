#!/usr/bin/env bash
# Slurm, for real: a one-node cluster (slurmctld + slurmd + munge from Debian's slurm-wlm, started by
# scripts/slurm-up; needs root) runs bertpt with nothing exported by hand:
#   1. `srun -n 2` x batch 8 == 1 process x batch 16 (rendezvous from SLURM_JOB_NODELIST/SLURM_JOB_ID);
#   2. examples/slurm/bertpt-train.sbatch (the template docs/distributed.md documents; only its GPU
#      line is dropped, this machine has none) submitted with 2 tasks, requeued twice after
#      checkpoints — once by USR1 to the batch script (what `--signal=B:USR1@300` sends before the
#      time limit; the template requeues itself), once by `scontrol requeue` — ends with the losses of
#      the uninterrupted one-process run.
source "$(dirname "$0")/lib.bash"
[[ $(id -u) == 0 ]] || skip "needs root to start Slurm's daemons (scripts/slurm-up)"
"$SOURCE_DIR/scripts/slurm-up" >"$T/slurm-up.log" 2>&1 || fail "scripts/slurm-up failed: $(tail -3 "$T/slurm-up.log")"
unset MASTER_ADDR MASTER_PORT
make_dataset "$T/data"
no_dropout_config "$T/tiny.json"

# 1. srun -n 2 against one process.
train_args "$T/one" 8
"$BERTPT" "${ARGS[@]}" --per-device-batch-size 16 --save-steps 0 || fail "the 1-process run failed"
train_args "$T/srun" 8
timeout 300 srun -n 2 --cpus-per-task 1 "$BERTPT" "${ARGS[@]}" --per-device-batch-size 8 --save-steps 0 \
  2>"$T/srun.err" || fail "srun -n 2 failed: $(tail -5 "$T/srun.err")"
result=$(same_losses "$T/srun" "$T/one" "srun -n 2 x 8 vs 1 x 16") || exit 1
pass "srun -n 2 trains as one process, nothing exported: $result"

# 2. The sbatch template, requeued twice.
steps=400
train_args "$T/whole" $steps
"$BERTPT" "${ARGS[@]}" --per-device-batch-size 16 --save-steps 10 || fail "the uninterrupted run failed"
sed '/--gpus-per-node/d' "$SOURCE_DIR/examples/slurm/bertpt-train.sbatch" >"$T/job.sbatch"
train_args "$T/requeued" $steps
job=$(BERTPT=$BERTPT sbatch --parsable --ntasks-per-node 2 --cpus-per-task 1 --time 10 --output "$T/job.out" \
  --chdir "$T" "$T/job.sbatch" "${ARGS[@]:1}" --per-device-batch-size 8 --save-steps 10) || fail "sbatch failed"
trap 'scancel "$job" 2>/dev/null; cleanup' EXIT

# started N: waits (120 s at most) until the job log says start N began.
started() {
  local i
  for ((i = 0; i < 2400; i++)); do
    grep -q "start $1\$" "$T/job.out" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "the job's start $1 did not begin: $(cat "$T/job.out" 2>/dev/null)"
}
# next_checkpoint: waits until the next --save-steps checkpoint after the newest one now in the run
# appears (a stop by a signal also saves one, at the step where it stopped).
next_checkpoint() {
  local newest
  newest=$(ls -d "$T/requeued"/checkpoint-*/DONE 2>/dev/null | sed 's/.*checkpoint-\([0-9]*\).*/\1/' | sort -n | tail -1)
  local want=$T/requeued/checkpoint-$(((${newest:-0} / 10 + 1) * 10))/DONE i
  for ((i = 0; i < 2400; i++)); do
    [[ -e $want ]] && return 0
    sleep 0.05
  done
  fail "$want did not appear within 120 s; the job's log: $(cat "$T/job.out")"
}
started 1
next_checkpoint
scancel --batch --signal=USR1 "$job" || fail "scancel --signal=USR1 failed"
started 2
next_checkpoint
scontrol requeue "$job" || fail "scontrol requeue failed"
started 3
wait_for "$T/requeued/checkpoint-$steps/DONE" 300
for ((i = 0; i < 600; i++)); do squeue -h -j "$job" 2>/dev/null | grep -q . || break; sleep 0.1; done
grep -q "USR1, requeueing job $job" "$T/job.out" || fail "the template's USR1 trap did not run: $(cat "$T/job.out")"
grep -q "bertpt exited with status 0" "$T/job.out" || fail "the last start did not end with 0: $(cat "$T/job.out")"
result=$(same_losses "$T/requeued" "$T/whole" "sbatch requeued twice vs uninterrupted") || exit 1
pass "sbatch template requeued by USR1 and by scontrol requeue resumes exactly: $result"
