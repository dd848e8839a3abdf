#!/usr/bin/env python3
"""One training step of bertpt and of its Hugging Face peer, operator by operator, side by side.

Reads two chrome traces of one step each, same model and shapes: bertpt's (`bertpt bench --profile
FILE`, train's own step under LibTorch's profiler; or `build/model_bench --profile FILE`, the model alone)
and the peer's (`bench/hf_train_step.py --profile FILE`,
torch.profiler). Each trace's complete events ("ph": "X") nest by thread; an event's self time is
its duration less its direct children's on the same thread, so the self times of a thread add up to
the time it spent in some event. Prints Markdown on stdout:

  * the step's time by category (GEMM, attention, elementwise, norm, optimizer, copy/alloc, compiled
    kernels, view/metadata, autograd/framework, other), bertpt and HF in ms and their difference;
    "untraced" is the step's wall span less every event's self time (time in no event at all);
  * the same by phase: forward, backward (under the autograd engine's ranges or hf_train_step.py's
    step.backward), optimizer (the step.optimizer range of both: AdamW, and the peer's clipping and
    zero_grad);
  * the top operators of each side by self time, with their calls.

The step's time is the wall span of its trace's events. Categories go by the operator's name, except
that everything under the optimizer phase is "optimizer" (AdamW's foreach kernels are not the
model's elementwise work). Without --compile, the peer's time between operators (Python) is the self
time of its step.* ranges: it shows as autograd/framework. With --compile, inductor's C++ kernels
(cpp_fused_*, when compiled with their profiler ranges: hf_train_step.py --profile does it) are
"compiled kernels", as is the self time of the compiled graphs' own ranges. The profiler adds a
little time per event, more to the side with more events: the profiled steps are somewhat slower
than the benchmark's. bench/profile-step.sh runs both and writes OUT/profile.md.

  bench/profile_step.py [--title T] [--top 25] [--command CMD ...] BERTPT_TRACE HF_TRACE
"""

import argparse
import json
import re
import sys

PROG = "profile_step.py"
SIDES = ("bertpt", "HF")
PHASES = ("forward", "backward", "optimizer")
UNTRACED = "untraced (in no event)"


def rx(*words):
    return re.compile("|".join(words))


# (category, pattern on the operator's name without "aten::" and a trailing "_"), first match wins.
CATEGORIES = [
    ("compiled kernels", rx(r"^cpp_", r"^triton_", r"(?i:compiled|dynamo|inductor)", r"^graph_\d")),
    ("GEMM", rx(r"^(mm|addmm|bmm|baddbmm|addbmm|matmul|linear|mv|addmv|dot|einsum|_addmm_activation)$",
                r"^mkldnn_.*(linear|matmul)", r"^_mkl_linear$", r"^_?linear_backward$")),
    ("attention", rx(r"scaled_dot_product", r"flash", r"attention", r"^_?softmax", r"^_softmax_backward")),
    ("norm", rx(r"layer_norm", r"rms_norm", r"group_norm", r"batch_norm")),
    ("optimizer", rx(r"(?i:adam)", r"^_foreach_", r"^Optimizer\.")),
    ("copy/alloc", rx(r"^(copy|empty|empty_like|empty_strided|zeros|zeros_like|zero|fill|ones|ones_like|full|"
                      r"full_like|to|_to_copy|contiguous|clone|resize|new_empty|new_empty_strided|new_zeros|"
                      r"new_ones|new_full|cat|stack|_copy_from|_copy_from_and_resize|set|lift_fresh_copy)$")),
    ("elementwise", rx(r"^(add|sub|rsub|mul|div|neg|exp|log|log1p|pow|sqrt|rsqrt|reciprocal|abs|sign|tanh|"
                       r"sigmoid|relu|threshold|threshold_backward|gelu|gelu_backward|silu|silu_backward|"
                       r"dropout|native_dropout|native_dropout_backward|bernoulli|feature_dropout|where|"
                       r"masked_fill|clamp|clamp_min|clamp_max|maximum|minimum|lerp|addcmul|addcdiv|"
                       r"eq|ne|lt|le|gt|ge|logical_not|logical_and|bitwise_not|cos|sin|"
                       r"sum|mean|amax|max|min|norm|linalg_vector_norm|square|erf|erfinv|tanh_backward|"
                       r"sigmoid_backward|_masked_scale|mul_scalar|div_scalar)$")),
    ("view/metadata", rx(r"^(view|_reshape_alias|reshape|t|transpose|permute|expand|expand_as|as_strided|slice|"
                         r"select|unsqueeze|squeeze|detach|alias|_unsafe_view|unflatten|flatten|split|"
                         r"split_with_sizes|chunk|narrow|unbind|numpy_T|resolve_conj|resolve_neg|view_as|"
                         r"is_nonzero|item|_local_scalar_dense|result_type|size|stride|"
                         r"_has_compatible_shallow_copy_type|lift_fresh)$")),
    ("autograd/framework", rx(r"^autograd::", r"Backward\d*$", r"^torch::autograd::", r"^step\.", r"^##",
                              r"^ProfilerStep", r"^record_param_comms")),
]
CATEGORY_NAMES = [c for c, _ in CATEGORIES] + ["other", UNTRACED]


def die(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(1)


def load_events(path):
    """The complete events of a chrome trace (a {"traceEvents": [...]} object or a bare list), less
    the profiler's own span."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        die(f"{path}: not a readable chrome trace ({e})")
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    kept = [e for e in events if e.get("ph") == "X" and "dur" in e and not is_profiler_span(e)]
    if not kept:
        die(f"{path}: no complete (\"ph\": \"X\") events")
    for e in kept:
        e["ts"], e["dur"] = float(e["ts"]), float(e["dur"])
    return kept


def is_profiler_span(e):
    return e.get("cat") == "Trace" or e.get("pid") == "Spans" or str(e.get("name", "")).startswith("PyTorch Profiler")


def own_phase(name):
    """The phase an event's range starts, or None (it is in its parent's)."""
    if name == "step.optimizer" or name.startswith("Optimizer."):
        return "optimizer"
    if name == "step.backward" or name.startswith("autograd::engine::evaluate_function"):
        return "backward"
    if name == "step.forward":
        return "forward"
    return None


def nest(events):
    """Sets each event's "self" (µs, its duration less its direct children's on its thread) and
    "phase" (its own, else its parent's, else forward)."""
    threads = {}
    for e in events:
        threads.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(e)
    for evs in threads.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in evs:
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
                stack.pop()
            parent = stack[-1] if stack else None
            e["self"] = e["dur"]
            e["phase"] = own_phase(e["name"]) or (parent["phase"] if parent else "forward")
            if parent:
                parent["self"] -= min(e["dur"], parent["ts"] + parent["dur"] - e["ts"])
            stack.append(e)
    for e in events:
        e["self"] = max(e["self"], 0.0)


def category(e):
    if e["phase"] == "optimizer":
        return "optimizer"
    name = e["name"]
    base = name.removeprefix("aten::")
    base = base[:-1] if base.endswith("_") and not base.startswith("_") else base
    for cat, pattern in CATEGORIES:
        if pattern.search(base) or pattern.search(name):
            return cat
    return "other"


def summarize(path):
    """A trace's step: wall span, self time by category, by phase and by (operator, category), in µs."""
    events = load_events(path)
    nest(events)
    span = max(e["ts"] + e["dur"] for e in events) - min(e["ts"] for e in events)
    untraced = max(span - sum(e["self"] for e in events), 0.0)
    by_cat = dict.fromkeys(CATEGORY_NAMES, 0.0)
    by_phase = dict.fromkeys(PHASES + (UNTRACED,), 0.0)
    ops = {}
    for e in events:
        cat = category(e)
        by_cat[cat] += e["self"]
        by_phase[e["phase"]] += e["self"]
        t, n = ops.get((e["name"], cat), (0.0, 0))
        ops[(e["name"], cat)] = (t + e["self"], n + 1)
    by_cat[UNTRACED] = by_phase[UNTRACED] = untraced
    return {"path": path, "span": span, "events": len(events), "cat": by_cat, "phase": by_phase, "ops": ops}


def ms(us):
    return f"{us / 1000:.2f}"


def diff_table(label, keys, sides, field):
    out = [f"| {label} | bertpt ms | HF ms | bertpt − HF ms |", "|---|---:|---:|---:|"]
    for k in keys:
        b, h = sides[0][field][k], sides[1][field][k]
        if b or h:
            out.append(f"| {k} | {ms(b)} | {ms(h)} | {(b - h) / 1000:+.2f} |")
    return out


def step_rows(sides):
    """The step's wall span, and without the optimizer phase when only one side has one."""
    b, h = sides
    out = [f"| **step (wall span)** | **{ms(b['span'])}** | **{ms(h['span'])}** | "
           f"**{(b['span'] - h['span']) / 1000:+.2f}** |"]
    bo, ho = b["phase"]["optimizer"], h["phase"]["optimizer"]
    if bool(bo) != bool(ho):
        out.append(f"| step without the optimizer phase | {ms(b['span'] - bo)} | {ms(h['span'] - ho)} | "
                   f"{(b['span'] - bo - h['span'] + ho) / 1000:+.2f} |")
    return out


def top_ops(side, name, n):
    rows = sorted(side["ops"].items(), key=lambda kv: -kv[1][0])[:n]
    out = [f"### {name}: top {len(rows)} operators by self time", "",
           "| operator | category | self ms | % of step | calls |", "|---|---|---:|---:|---:|"]
    for (op, cat), (t, calls) in rows:
        out.append(f"| `{op}` | {cat} | {ms(t)} | {100 * t / side['span']:.1f}% | {calls} |")
    return out


def notes(sides):
    out = []
    for name, s in zip(SIDES, sides):
        if not s["phase"]["optimizer"]:
            out.append(f"- {name}'s trace has no optimizer phase (`model_bench --profile` without `--optimizer` "
                       "profiles the forward and backward only; `bertpt bench --profile` has one): the row "
                       "\"step without the optimizer phase\" "
                       "compares the model's work.")
    return out + [""] if out else []


def report(paths, title, top, commands):
    sides = [summarize(p) for p in paths]
    out = [f"# {title}", ""] + (["```sh"] + commands + ["```", ""] if commands else [])
    out += ["Traces: " + "; ".join(f"{n} `{s['path']}` ({s['events']} events)" for n, s in zip(SIDES, sides)), ""]
    out += diff_table("category (self time)", CATEGORY_NAMES, sides, "cat") + step_rows(sides) + [""]
    out += diff_table("phase (self time)", PHASES + (UNTRACED,), sides, "phase") + step_rows(sides) + [""]
    out += notes(sides)
    for name, s in zip(SIDES, sides):
        out += top_ops(s, name, top) + [""]
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description="Per-operator self time of one training step, bertpt "
                                 "against the HF peer, from two chrome traces; Markdown on stdout.")
    ap.add_argument("bertpt_trace", help="bertpt bench --profile's (or model_bench --profile's) trace")
    ap.add_argument("hf_trace", help="hf_train_step.py --profile's trace")
    ap.add_argument("--title", default="One training step, operator by operator: bertpt against transformers")
    ap.add_argument("--top", type=int, default=25, help="operators listed per side (default 25)")
    ap.add_argument("--command", action="append", default=[], help="a command that wrote a trace (printed)")
    a = ap.parse_args(argv)
    sys.stdout.write(report([a.bertpt_trace, a.hf_trace], a.title, a.top, a.command) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
