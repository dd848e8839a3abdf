#!/usr/bin/env python3
"""Run one command and measure it, for bench/peers.sh: wall time, peak memory, and optionally the
time until a JSON-lines file shows a training step after a given one.

  measure.py --result R.json [--watch FILE --after-step N [--kill]] -- CMD ARGS...

Peak memory ("peak_mem_bytes") is the larger of (a) getrusage(RUSAGE_CHILDREN).ru_maxrss, the
peak RSS of the largest single process (what /usr/bin/time -v reports; exact), and (b) the sum of
the proportional set sizes (PSS: shared pages split among the processes sharing them) of the whole
process tree, sampled every 0.25 s while the command has child processes. (b) matters only for
datasets' num_proc workers, which are separate processes forked from the main one: their summed
RSS would count the pages they share with it several times, their summed PSS does not. For a single
process (a) >= (b), so nothing is sampled then: reading a big process's memory map costs
milliseconds of CPU, which a 2-core machine would take from the command measured. Both are written
to the result.

--watch FILE --after-step N: FILE is a JSON-lines log (bertpt's metrics.jsonl, or the marker file
bench/peers/hf_train.py writes); "first_step_sec" is the time from starting the command until a
record with "step" > N and a "loss" first appears in it. --kill then ends the command (SIGKILL)
right away: what follows is not measured.

The command's exit status is measure.py's; the result is written either way.
"""

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import time

import psutil


def tree_pss(proc):
    """Summed PSS of proc and its descendants; 0 while it has none (see the module doc)."""
    total = 0
    try:
        children = proc.children(recursive=True)
    except psutil.Error:
        return 0
    if not children:
        return 0
    for p in [proc] + children:
        try:
            total += p.memory_full_info().pss
        except psutil.Error:
            pass
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--result", required=True)
    ap.add_argument("--watch")
    ap.add_argument("--after-step", type=int, default=0)
    ap.add_argument("--kill", action="store_true")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command")

    t0 = time.monotonic()
    child = subprocess.Popen(cmd)
    proc = psutil.Process(child.pid)
    peak_tree = 0
    first_step = None
    pos = 0
    buf = ""
    killed = False
    next_sample = 0.0
    while True:
        rc = child.poll()
        if rc is None and time.monotonic() >= next_sample:
            peak_tree = max(peak_tree, tree_pss(proc))
            next_sample = time.monotonic() + 0.25
        if a.watch and first_step is None and os.path.exists(a.watch):
            with open(a.watch) as f:
                f.seek(pos)
                buf += f.read()
                pos = f.tell()
            lines = buf.split("\n")
            buf = lines.pop()  # an incomplete last line waits for the next read
            for line in lines:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if isinstance(rec, dict) and rec.get("step", -1) > a.after_step and "loss" in rec:
                    first_step = time.monotonic() - t0
                    break
            if first_step is not None and a.kill and rc is None:
                child.send_signal(signal.SIGKILL)
                killed = True
        if rc is not None:
            break
        try:  # wakes up as soon as the command ends
            child.wait(timeout=0.02 if a.watch else 0.1)
        except subprocess.TimeoutExpired:
            pass
    wall = time.monotonic() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    ru_max = ru.ru_maxrss * 1024  # KiB on Linux
    out = {
        "cmd": cmd,
        "rc": rc if not killed else 0,
        "killed_after_first_step": killed,
        "wall_sec": wall,
        "cpu_sec": ru.ru_utime + ru.ru_stime,
        "peak_mem_bytes": max(peak_tree, ru_max),
        "peak_pss_tree_sampled_bytes": peak_tree,
        "ru_maxrss_bytes": ru_max,
    }
    if a.watch:
        out["first_step_sec"] = first_step
    with open(a.result, "w") as f:
        json.dump(out, f, indent=1)
    return out["rc"]


if __name__ == "__main__":
    sys.exit(main())
