#!/usr/bin/env python3
"""TensorBoard's own reader as the referee of bertpt's event files (src/io/tfevents.h).

  tensorboard_reader.py dump PATH           PATH (a directory of event files, or one file) as JSON:
                                            {"scalars": {tag: [[step, value, wall_time], ...]},
                                             "texts": {tag: [[step, markdown], ...]}}, read by
                                            EventAccumulator (resumes purged as TensorBoard shows them)
  tensorboard_reader.py selftest WRITER     the peer check: event files written by WRITER
                                            (tests/io/tfevents_fixture_writer.cc) read back by
                                            EventAccumulator and by the data provider behind
                                            TensorBoard's web UI, every scalar and text compared;
                                            files cut inside their last record or killed with
                                            SIGKILL still open with every complete record; a run
                                            resumed with purge_step shows no step twice.

read_run() is meant for other tests too (e.g. comparing a run's event files with its metrics.jsonl).
Needs the tensorboard package (requirements/hf-peer.txt; tensorboard 2.21 in .venv) and numpy.
"""

import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.compat.proto import event_pb2
from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c
from tensorboard.util import tensor_util

KEEP_ALL = {"scalars": 0, "tensors": 0}  # size_guidance 0: keep every event (the default samples)


def read_run(path):
    """Scalars and texts of an event file or a directory of them, as EventAccumulator reads them."""
    acc = EventAccumulator(path, size_guidance=KEEP_ALL)
    acc.Reload()
    tags = acc.Tags()
    scalars = {t: [(e.step, e.value, e.wall_time) for e in acc.Scalars(t)] for t in tags["scalars"]}
    try:
        text_tags = acc.PluginTagToContent("text")  # tag -> content of the text plugin's metadata
    except KeyError:
        text_tags = {}
    texts = {}
    for t in text_tags:
        texts[t] = [(e.step, tensor_util.make_ndarray(e.tensor_proto).item().decode("utf-8")) for e in acc.Tensors(t)]
    return {"scalars": scalars, "texts": texts}


def raw_records(path):
    """(offset, data) of every complete record, each CRC checked here (the reader only stops at a
    bad one), and the number of bytes after the last complete record."""
    blob = open(path, "rb").read()
    out, pos = [], 0
    while len(blob) - pos >= 12:
        (length,) = struct.unpack_from("<Q", blob, pos)
        (length_crc,) = struct.unpack_from("<I", blob, pos + 8)
        assert length_crc == masked_crc32c(blob[pos : pos + 8]), f"{path}: length CRC at byte {pos}"
        if len(blob) - pos - 12 < length + 4:
            break
        data = blob[pos + 12 : pos + 12 + length]
        (data_crc,) = struct.unpack_from("<I", blob, pos + 12 + length)
        assert data_crc == masked_crc32c(data), f"{path}: data CRC at byte {pos}"
        out.append((pos, data))
        pos += 12 + length + 4
    return out, len(blob) - pos


# ---- the self-test ---------------------------------------------------------------------------

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def f32(v):
    with np.errstate(over="ignore"):
        return float(np.float32(v))


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


def rows_same(a, b):
    """Rows of (step, value, ...) equal, NaN equal to NaN."""
    return len(a) == len(b) and all(
        len(x) == len(y) and all(same(u, v) if isinstance(u, float) else u == v for u, v in zip(x, y))
        for x, y in zip(a, b))


def run_writer(writer, spec, work, expect_kill=False):
    spec_path = os.path.join(work, "spec.json")
    with open(spec_path, "w", encoding="utf-8") as f:
        json.dump(spec, f)
    r = subprocess.run([writer, spec_path], capture_output=True, text=True)
    if expect_kill:
        check(r.returncode == -9, f"writer killed by SIGKILL (exit {r.returncode}: {r.stderr.strip()})")
    elif r.returncode != 0:
        raise SystemExit(f"{writer} failed ({r.returncode}): {r.stderr}")
    return r.stdout.split()


SCALAR_TAGS = ["train/loss", "train/learning_rate", "train/grad_norm", "train/tokens_per_sec", "eval/loss",
               "eval/accuracy", "train/cost_usd — ü €"]
SPECIAL = [0.0, -0.0, 1e-8, -3.5, 1e30, 1e39, "nan", "inf", "-inf", 123456.789, 2**-149]


def value_of(tag_index, step):
    if step % 7 == 0 and tag_index == 0:
        return SPECIAL[(step // 7) % len(SPECIAL)]
    return (tag_index + 1) * 10.0 / (step + 1) + step * 1e-3


def known_spec(dir_):
    """Scalars at 200 logging steps (eval every 20), texts at steps 0 and 100, a large step; a flush
    after every logging step, as the trainer does."""
    ops, expected_scalars, expected_texts = [], {}, {}
    markdown = ("| argument | value |\n|---|---|\n| learning_rate | 0.0001 |\n| model | bert-tiny |\n\n"
                "Ünïcödé ✓ — 中文, and `code`, **bold**\n")
    for step, text in [(0, markdown), (100, "second text at step 100")]:
        for tag in ["args", "model_config"]:
            ops.append({"op": "text", "tag": tag, "markdown": text + tag, "step": step, "wall_time": 1.7e9 + step})
            expected_texts.setdefault(tag, []).append((step, text + tag))
    ops.append({"op": "flush"})
    steps = list(range(1, 201)) + [2**40]
    for step in steps:
        for i, tag in enumerate(SCALAR_TAGS):
            if tag.startswith("eval/") and step % 20 != 0:
                continue
            v = value_of(i, step)
            wall = 1.7e9 + step * 0.25 + i * 1e-6
            ops.append({"op": "scalar", "tag": tag, "value": v, "step": step, "wall_time": wall})
            expected_scalars.setdefault(tag, []).append((step, f32(float(v)), wall))
        ops.append({"op": "flush"})
    return {"dir": dir_, "writers": [{"ops": ops}]}, expected_scalars, expected_texts


def compare(got, expected_scalars, expected_texts, what):
    check(sorted(got["scalars"]) == sorted(expected_scalars), f"{what}: scalar tags {sorted(got['scalars'])}")
    n = 0
    for tag, rows in expected_scalars.items():
        have = got["scalars"].get(tag, [])
        check(len(have) == len(rows), f"{what}: {tag}: {len(have)} scalars, expected {len(rows)}")
        for (step, value, wall), (gstep, gvalue, gwall) in zip(rows, have):
            n += 1
            ok = step == gstep and same(value, gvalue) and (wall is None or wall == gwall)
            check(ok, f"{what}: {tag}: got ({gstep}, {gvalue}, {gwall}), expected ({step}, {value}, {wall})")
    check(got["texts"] == expected_texts, f"{what}: texts {got['texts']} != {expected_texts}")
    return n


def check_known_file(writer, work):
    d = os.path.join(work, "known")
    spec, scalars, texts = known_spec(d)
    (path,) = run_writer(writer, spec, work)
    n = compare(read_run(d), scalars, texts, "EventAccumulator")
    print(f"EventAccumulator: {n} scalars in {len(scalars)} tags and {sum(map(len, texts.values()))} texts equal")

    # Every record's CRCs; the first is the file version; the text summaries are byte for byte what
    # tensorboard.summary.text writes (tensorboard.plugins.text.summary_v2.text_pb).
    from tensorboard.plugins.text.summary_v2 import text_pb

    records, tail = raw_records(path)
    check(tail == 0, f"known file: {tail} trailing bytes")
    events = [event_pb2.Event.FromString(data) for _, data in records]
    check(events[0].file_version == "brain.Event:2", f"first record: {events[0]}")
    text_events = [e for e in events if e.HasField("summary") and e.summary.value[0].HasField("tensor")]
    for e in text_events:
        v = e.summary.value[0]
        ref = text_pb(v.tag, tensor_util.make_ndarray(v.tensor).item().decode("utf-8"))
        check(e.summary.SerializeToString() == ref.SerializeToString(), f"text summary differs from text_pb: {e}")
    print(f"raw records: {len(records)} with good CRCs; {len(text_events)} text summaries equal to text_pb's bytes")
    check_data_provider(d, scalars, texts)
    return path, records


def check_data_provider(logdir, expected_scalars, expected_texts):
    """What TensorBoard's web UI reads: the plugin multiplexer (simple_value migrated to the scalars
    plugin's tensors) behind MultiplexerDataProvider."""
    from tensorboard import context
    from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer

    mux = plugin_event_multiplexer.EventMultiplexer(tensor_size_guidance={"scalars": 0, "text": 0})
    mux.AddRunsFromDirectory(logdir)
    mux.Reload()
    provider = data_provider.MultiplexerDataProvider(mux, logdir)
    ctx = context.RequestContext()
    runs = provider.read_scalars(ctx, experiment_id="", plugin_name="scalars", downsample=10**9)
    check(list(runs) == ["."], f"data provider: runs {list(runs)}")
    got = {"scalars": {t: [(d.step, d.value, d.wall_time) for d in rows] for t, rows in runs.get(".", {}).items()}}
    tensors = provider.read_tensors(ctx, experiment_id="", plugin_name="text", downsample=10**9)
    got["texts"] = {t: [(d.step, d.numpy.item().decode("utf-8")) for d in rows]
                    for t, rows in tensors.get(".", {}).items()}
    n = compare(got, expected_scalars, expected_texts, "data provider")
    print(f"data provider (the web UI's path): {n} scalars and the texts equal")


def check_truncated(path, records, work):
    """A file cut inside its last record, and one cut right after any complete record, opens with
    every complete record."""
    blob = open(path, "rb").read()
    last = records[-1][0]
    full = read_run(path)
    last_event = event_pb2.Event.FromString(records[-1][1])
    tag = last_event.summary.value[0].tag
    cuts = [last + k for k in (1, 8, 11, 12, 13, len(records[-1][1]) // 2 + 12, len(blob) - last - 1)]
    for cut in cuts:
        d = os.path.join(work, f"cut{cut}")
        os.makedirs(d)
        with open(os.path.join(d, os.path.basename(path)), "wb") as f:
            f.write(blob[:cut])
        got = read_run(d)
        want = {t: (rows[:-1] if t == tag else rows) for t, rows in full["scalars"].items()}
        ok = sorted(got["scalars"]) == sorted(want) and all(rows_same(got["scalars"][t], want[t]) for t in want)
        check(ok and got["texts"] == full["texts"],
              f"cut at byte {cut} (last record at {last}): not every complete record read")
    boundaries = [off for off, _ in records[1:]][::37] + [len(blob)]
    for cut in boundaries:
        d = os.path.join(work, f"boundary{cut}")
        os.makedirs(d)
        with open(os.path.join(d, os.path.basename(path)), "wb") as f:
            f.write(blob[:cut])
        n_events = len([1 for off, _ in records if off < cut])
        acc = EventAccumulator(d, size_guidance=KEEP_ALL)
        acc.Reload()
        got = sum(len(acc.Scalars(t)) for t in acc.Tags()["scalars"]) + sum(
            len(acc.Tensors(t)) for t in acc.Tags()["tensors"])
        check(got == n_events - 1, f"cut after record at byte {cut}: {got} events read, expected {n_events - 1}")
    print(f"truncated files: {len(cuts)} cuts inside the last record, {len(boundaries)} at record boundaries")


def check_kill(writer, work):
    """SIGKILL after 30 flushed steps and with one step pending: the 30 are read, nothing else."""
    d = os.path.join(work, "killed")
    ops = []
    for step in range(1, 31):
        ops += [{"op": "scalar", "tag": "train/loss", "value": 1.0 / step, "step": step, "wall_time": 10.0 + step},
                {"op": "text", "tag": "note", "markdown": "x" * 5000, "step": step, "wall_time": 10.0 + step},
                {"op": "flush"}]
    ops += [{"op": "scalar", "tag": "train/loss", "value": 0.0, "step": 31, "wall_time": 41.0}, {"op": "kill"}]
    run_writer(writer, {"dir": d, "writers": [{"ops": ops}]}, work, expect_kill=True)
    got = read_run(d)
    want = [(s, f32(1.0 / s), 10.0 + s) for s in range(1, 31)]
    check(got["scalars"].get("train/loss") == want, f"killed writer: {got['scalars'].get('train/loss')}")
    check(len(got["texts"].get("note", [])) == 30, "killed writer: texts")
    print("kill -9: the 30 flushed steps read back, the pending one absent")


def check_resume(writer, work):
    """A run of steps 1..100 resumed from its checkpoint at step 50: the second file starts with
    purge_step 51, and TensorBoard shows 1..50 from the first file and 51..120 from the second."""
    d = os.path.join(work, "resumed")
    first = [{"op": "scalar", "tag": "train/loss", "value": 1000 + s, "step": s, "wall_time": 100.0 + s}
             for s in range(1, 101)]
    second = [{"op": "scalar", "tag": "train/loss", "value": 2000 + s, "step": s, "wall_time": 500.0 + s}
              for s in range(51, 121)]
    paths = run_writer(writer, {"dir": d, "writers": [{"ops": first}, {"purge_step": 51, "ops": second}]}, work)
    check(sorted(paths) == paths, f"file names sort in writing order: {paths}")
    got = read_run(d)["scalars"]["train/loss"]
    want = [(s, 1000.0 + s, 100.0 + s) for s in range(1, 51)] + [(s, 2000.0 + s, 500.0 + s) for s in range(51, 121)]
    check(got == want, f"resumed run: steps {[s for s, _, _ in got]}")
    print("resume: purge_step hides the replayed steps of the first file (120 steps, none twice)")


def selftest(writer):
    work = tempfile.mkdtemp(prefix="bertpt-tb-")
    try:
        path, records = check_known_file(writer, work)
        check_truncated(path, records, work)
        check_kill(writer, work)
        check_resume(writer, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"tensorboard_reader: {len(failures)} failures", file=sys.stderr)
        return 1
    print("tensorboard_reader: all checks passed")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "dump":
        json.dump(read_run(argv[2]), sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0
    if len(argv) == 3 and argv[1] == "selftest":
        return selftest(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
