#!/usr/bin/env python3
"""The arithmetic and the page of bench/time-to-quality.sh (not meant to be run by hand, but both
subcommands can be re-run on an OUT directory).

  plan --arm ARM --calibration DIR --wall SEC --left SEC --safety S --out plan.json
      From a calibration run (bertpt: DIR/metrics.jsonl with a record per step; the Trainer:
      DIR/result.json of bench/peers/hf_train.py, its step_end_times): seconds per step, the median
      duration of steps n/3+1 .. n (the first steps are slower; the median ignores a step slowed by
      other work on the machine), and the run's fixed cost, the calibration's wall time minus n steps
      at that rate (start-up, the first steps' extra time, saving). Prints --max-steps for the main
      run: the steps that fill SAFETY of the seconds LEFT after the fixed cost.
  report --out OUT --doc DOC --png PNG --bertpt BIN --command CMD
      Writes DOC (Markdown) and PNG (the training-loss curves against wall-clock seconds, drawn with
      Pillow) from OUT/settings.json, OUT/arms/*, OUT/finetune/*.
"""

import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys

ARM_ORDER = ["hf-bert", "bertpt-bert", "bertpt-modernbert"]
COLORS = {"hf-bert": (214, 39, 40), "bertpt-bert": (31, 119, 180), "bertpt-modernbert": (44, 160, 44)}
# task -> (its name on the page, the results.json key of its test metric, the metric's name)
TASKS = {
    "sst2": ("SST-2", "test_accuracy", "test accuracy"),
    "ncbi-disease": ("NCBI-disease NER", "test_f1", "test entity F1"),
    "sci-cite": ("SciCite", "test_macro_f1", "test macro-F1"),
}
ALPHA = 0.05


def load(path):
    with open(path) as f:
        return json.load(f)


def number(path):
    with open(path) as f:
        return float(f.read().split()[0])


def jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def step_end_times(arm, run_dir):
    """{step: seconds} at the end of each step of a run (bertpt: training-loop time; the Trainer: epoch)."""
    if arm == "hf-bert":
        return {int(k): v for k, v in load(os.path.join(run_dir, "result.json"))["step_end_times"].items()}
    return {r["step"]: r["elapsed_sec"] for r in jsonl(os.path.join(run_dir, "metrics.jsonl")) if "loss" in r}


def plan(a):
    t = step_end_times(a.arm, a.calibration)
    n = max(t)
    k0 = max(1, n // 3)
    if n - k0 < 2 or k0 not in t:
        sys.exit(f"time_to_quality_report.py plan: {a.calibration} has too few steps ({n}) to time")
    per_step = statistics.median(t[k] - t[k - 1] for k in range(k0 + 1, n + 1) if k in t and k - 1 in t)
    fixed = max(0.0, a.wall - n * per_step)
    steps = math.floor((a.left - fixed) * a.safety / per_step)
    result = {"calibration_steps": n, "calibration_sec": a.wall, "sec_per_step": per_step, "fixed_sec": fixed,
              "left_sec": a.left, "safety": a.safety, "max_steps": steps}
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1)
    if steps < 10:
        sys.exit(f"time_to_quality_report.py plan: {a.arm}: {a.left:.0f} s left make only {steps} steps of "
                 f"{per_step:.2f} s: raise BUDGET_MIN")
    print(steps)


# ---- report


def arm_row(out, arm, s):
    d = os.path.join(out, "arms", arm)
    run = os.path.join(d, "run")
    p = load(os.path.join(d, "plan.json"))
    row = {"arm": arm, "tokenizer": number(os.path.join(d, "tokenizer.sec")),
           "data": number(os.path.join(d, "data.sec")),
           "calibration": number(os.path.join(d, "calibration.sec")), "run": number(os.path.join(d, "pretrain.sec")),
           "planned": p["max_steps"], "sec_per_step": p["sec_per_step"]}
    row["pretrain"] = row["calibration"] + row["run"]
    row["total"] = row["tokenizer"] + row["data"] + row["pretrain"]
    base = row["tokenizer"] + row["data"] + row["calibration"]  # where the main run's process starts
    if arm == "hf-bert":
        r = load(os.path.join(run, "result.json"))
        row["model"] = s["MODEL"]
        row["steps"] = r["global_step"]
        logs = [x for x in r["logs"] if "loss" in x]
        row["curve"] = [(base + x["time"] - r["t_start"], x["loss"]) for x in logs]
        row["start"] = base + r["t_train_begin"] - r["t_start"]
    else:
        summary = load(os.path.join(run, "summary.json"))
        row["model"] = s["MODERN_MODEL"] if arm == "bertpt-modernbert" else s["MODEL"]
        row["steps"] = summary["final_step"]
        logs = [x for x in jsonl(os.path.join(run, "metrics.jsonl")) if "loss" in x]
        # metrics.jsonl's elapsed_sec is training-loop time; the run's last step is placed at the end of
        # its process (the final save, well under a second, is ignored).
        last = logs[-1]
        end_elapsed = last["elapsed_sec"] + (row["steps"] - last["step"]) * row["sec_per_step"]
        row["curve"] = [(base + row["run"] - (end_elapsed - x["elapsed_sec"]), x["loss"]) for x in logs]
        row["start"] = base + row["run"] - end_elapsed
    row["capped"] = row["steps"] < row["planned"]  # the deadline stopped it before its last step
    row["final_loss"] = logs[-1]["loss"]
    row["tokens"] = row["steps"] * int(s["BATCH"]) * int(s["SEQ_LEN"])
    ev = load(os.path.join(d, "heldout.json"))
    row["heldout_loss"], row["heldout_acc"] = ev["eval_loss"], ev["eval_accuracy"]
    row["heldout_sequences"] = ev["eval_sequences"]
    row["load"] = [open(os.path.join(d, f)).read().strip() for f in ("load_start.txt", "load_end.txt")
                   if os.path.exists(os.path.join(d, f))]
    return row


def shown_path(path):
    """A path as the page shows it: relative to the repository root."""
    return os.path.relpath(path, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def model_shape(name):
    """'hidden H, L layers, A heads' of a preset (configs/NAME.json) or a config.json path."""
    path = name if os.path.isfile(name) else os.path.join(os.path.dirname(__file__), "..", "configs", name + ".json")
    try:
        c = load(path)
    except OSError:
        return name
    return (f"hidden {c['hidden_size']}, {c['num_hidden_layers']} layers, {c['num_attention_heads']} heads, "
            f"intermediate {c['intermediate_size']}")


def task_scores(out, task, arm, seeds):
    """The test metric of every seed that finished, and the majority-class accuracy (classification)."""
    key = TASKS[task][1]
    vals, majority = [], None
    for seed in seeds:
        path = os.path.join(out, "finetune", task, arm, f"seed-{seed}", "results.json")
        if os.path.exists(path):
            r = load(path)
            vals.append(r[key])
            majority = r.get("test_majority_accuracy", majority)
    return vals, majority


def mean_std(v):
    return statistics.mean(v), (statistics.stdev(v) if len(v) > 1 else 0.0)


def fmt_ms(v):
    if not v:
        return "—"
    m, sd = mean_std(v)
    return f"{m:.4f} ± {sd:.4f}" + ("" if len(v) > 1 else " (1 seed)")


def welch(x, y):
    """Two-sided Welch t test p-value; None when it cannot be computed (fewer than 2 seeds, no variance)."""
    from scipy import stats
    if len(x) < 2 or len(y) < 2 or (statistics.pvariance(x) == 0 and statistics.pvariance(y) == 0):
        return None
    return float(stats.ttest_ind(x, y, equal_var=False).pvalue)


def noise_lines(rows, scores, tasks):
    """Per task, every pair of arms: the difference of means and Welch's p."""
    lines, same = [], []
    for task in tasks:
        name, _, metric = TASKS[task]
        arms = [r["arm"] for r in rows if scores[task].get(r["arm"])]
        for i in range(len(arms)):
            for j in range(i + 1, len(arms)):
                x, y = scores[task][arms[i]], scores[task][arms[j]]
                diff = statistics.mean(x) - statistics.mean(y)
                p = welch(x, y)
                larger_sd = max(mean_std(x)[1], mean_std(y)[1])
                if diff == 0 and larger_sd == 0:
                    verdict = "**identical scores**"
                    same.append(f"{arms[i]} and {arms[j]} on {name} (identical)")
                elif p is None:
                    verdict = "not tested (one seed, or no spread)"
                elif p >= ALPHA:
                    verdict = "**not different beyond noise**"
                    same.append(f"{arms[i]} and {arms[j]} on {name}")
                else:
                    verdict = "different"
                p_text = "—" if p is None else f"{p:.3f}"
                lines.append(f"| {name} ({metric}) | {arms[i]} − {arms[j]} | {diff:+.4f} | {larger_sd:.4f} | "
                             f"{p_text} | {verdict} |")
    return lines, same


def versions(bertpt):
    v = subprocess.run([bertpt, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    import datasets
    import tokenizers
    import torch
    import transformers
    py = {"transformers": transformers.__version__, "torch": torch.__version__, "tokenizers": tokenizers.__version__,
          "datasets": datasets.__version__}
    return v, py


def machine():
    model = "?"
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    return model, os.cpu_count()


# ---- the picture (Pillow: the .venv has no matplotlib)


def nice_ticks(lo, hi, n=6):
    span = hi - lo
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    ticks = []
    t = first
    while t <= hi + 1e-9:
        ticks.append(round(t, 10))
        t += step
    return ticks


def dashed(draw, p0, p1, fill, width=1, dash=8):
    (x0, y0), (x1, y1) = p0, p1
    length = math.hypot(x1 - x0, y1 - y0)
    k = 0.0
    while k < length:
        a, b = k / length, min(k + dash, length) / length
        draw.line([(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a), (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)], fill=fill,
                  width=width)
        k += 2 * dash


def draw_png(path, rows, budget, title):
    from PIL import Image, ImageDraw, ImageFont
    W, H, L, R, T, Bm = 1200, 720, 90, 30, 60, 80
    img = Image.new("RGB", (W, H), "white")
    g = ImageDraw.Draw(img)
    font, small = ImageFont.load_default(size=16), ImageFont.load_default(size=13)
    xs = [x for r in rows for x, _ in r["curve"]]
    ys = [y for r in rows for _, y in r["curve"]]
    x_hi = max([budget] + xs) * 1.03
    y_lo, y_hi = min(ys), max(ys)
    pad = (y_hi - y_lo) * 0.05 or 0.5
    y_lo, y_hi = y_lo - pad, y_hi + pad

    def px(x, y):
        return L + (W - L - R) * x / x_hi, T + (H - T - Bm) * (y_hi - y) / (y_hi - y_lo)

    for t in nice_ticks(0, x_hi):
        x, _ = px(t, y_lo)
        g.line([(x, T), (x, H - Bm)], fill=(232, 232, 232))
        g.text((x, H - Bm + 8), f"{t:g}", fill="black", font=small, anchor="mt")
    for t in nice_ticks(y_lo, y_hi):
        _, y = px(0, t)
        g.line([(L, y), (W - R, y)], fill=(232, 232, 232))
        g.text((L - 8, y), f"{t:g}", fill="black", font=small, anchor="rm")
    g.rectangle([L, T, W - R, H - Bm], outline="black")
    bx, _ = px(budget, y_lo)
    dashed(g, (bx, T), (bx, H - Bm), (90, 90, 90), width=2)
    g.text((bx - 6, H - Bm - 6), f"budget {budget:g} s", fill=(90, 90, 90), font=small, anchor="rb")
    for r in rows:
        c = COLORS.get(r["arm"], (0, 0, 0))
        sx, _ = px(r["start"], y_lo)
        dashed(g, (sx, T), (sx, H - Bm), c, width=1, dash=4)
        pts = [px(x, y) for x, y in r["curve"]]
        if len(pts) > 1:
            g.line(pts, fill=c, width=3, joint="curve")
        for x, y in pts:
            g.ellipse([x - 3, y - 3, x + 3, y + 3], fill=c)
    labels = [f"{r['arm']} ({r['model']})" for r in rows]
    note = "thin dashed: where each main run's training starts"
    box_w = max([g.textlength(x, font=font) + 50 for x in labels] + [g.textlength(note, font=small)]) + 20
    box_h = 24 * len(rows) + 34
    x0, y0 = W - R - 12 - box_w, T + 12
    g.rectangle([x0, y0, x0 + box_w, y0 + box_h], fill="white", outline=(160, 160, 160))
    ly = y0 + 18
    for r, text in zip(rows, labels):
        c = COLORS.get(r["arm"], (0, 0, 0))
        g.line([(x0 + 10, ly), (x0 + 40, ly)], fill=c, width=3)
        g.text((x0 + 50, ly), text, fill="black", font=font, anchor="lm")
        ly += 24
    g.text((x0 + 10, ly), note, fill=(90, 90, 90), font=small, anchor="lm")
    g.text((W / 2, 20), title, fill="black", font=font, anchor="mt")
    g.text(((L + W - R) / 2, H - 30), "wall-clock seconds since the arm started (tokenizer, data, calibration, "
           "pre-training)", fill="black", font=font, anchor="mt")
    label = Image.new("RGB", (300, 30), "white")
    ImageDraw.Draw(label).text((150, 15), "MLM training loss", fill="black", font=font, anchor="mm")
    img.paste(label.rotate(90, expand=True), (8, int((T + H - Bm) / 2 - 150)))
    img.save(path)


def report(a):
    s = load(os.path.join(a.out, "settings.json"))
    arms = [x for x in ARM_ORDER if x in s["ARMS"].split()]
    tasks = [t for t in s["TASKS"].split() if t in TASKS]
    seeds = s["SEEDS"].split()
    budget = float(s["BUDGET_MIN"]) * 60
    rows = [arm_row(a.out, arm, s) for arm in arms]
    scores, majority = {}, {}
    for task in tasks:
        scores[task] = {}
        for arm in arms:
            scores[task][arm], maj = task_scores(a.out, task, arm, seeds)
            majority[task] = maj if maj is not None else majority.get(task)
    bertpt_v, py_v = versions(a.bertpt)
    cpu, cores = machine()
    vocab = {p: load(os.path.join(a.out, "heldout", p, "manifest.json"))["vocab_size"] for p in ("hf", "bertpt")
             if os.path.exists(os.path.join(a.out, "heldout", p, "manifest.json"))}
    png_rel = os.path.relpath(a.png, os.path.dirname(os.path.abspath(a.doc)))

    L = ["# Time to quality: the guide's Hugging Face stack and bertpt at the same wall-clock budget\n"]
    L.append(f"Written by `{a.command}` on {datetime.date.today()}: {cores} × {cpu} (`lscpu`), {platform.system()}, "
             f"{s['THREADS']} threads; {'; '.join(bertpt_v[:2])}; the Hugging Face side in .venv: transformers "
             f"{py_v['transformers']}, torch {py_v['torch']}, tokenizers {py_v['tokenizers']}, datasets "
             f"{py_v['datasets']}. Precision {s['PRECISION']}. Machine load (1/5/15-min averages) at the start and the "
             "end of each arm's pre-training: " +
             "; ".join(f"{r['arm']} {' → '.join(r['load'])}" for r in rows) + ".\n")
    L.append("## What was compared\n")
    L.append(f"Every arm starts from the same raw text: Wikipedia (WikiExtractor output) and Gutenberg books from "
             f"`{shown_path(s['DATA_DIR'])}`, merged by paragraph, deduplicated and shuffled (`bertpt corpus merge`, "
             f"once, outside the budget); every {s['HELDOUT_EVERY']}th document of it is held out and no arm "
             f"trains on it. Each arm then has **{float(s['BUDGET_MIN']):g} minutes of wall clock** for tokenizer "
             f"training (vocabulary {s['VOCAB']}), data preparation ({s['SEQ_LEN']}-token blocks) and pre-training, "
             "the stages run one at a time on this machine:\n")
    L.append(f"- **hf-bert**: the guide's stack, as `bench/peers/*.py` run it — `tokenizers` WordPiece "
             "(`train_new_from_iterator`), `datasets` `load_dataset` → `map(tokenize)` → `map(group_texts)` "
             f"(run_mlm.py's, num_proc={s['THREADS']}, `save_to_disk`), transformers `Trainer` + "
             f"`DataCollatorForLanguageModeling(mlm_probability=0.15)` + `BertForMaskedLM` ({s['MODEL']}).")
    L.append(f"- **bertpt-bert**: the same recipe with bertpt — `bertpt tokenizer train`, `bertpt prepare`, "
             f"`bertpt train --model {s['MODEL']}`: the same model config, sequence length, batch, learning rate, "
             "schedule and vocabulary size.")
    L.append(f"- **bertpt-modernbert**: bertpt's best recipe — docs/recipes.md compared the cheaper recipes at equal "
             "compute, and its ModernBERT arm (the architecture, with the baseline's AdamW recipe) had the lowest "
             f"held-out loss; here `--model {s['MODERN_MODEL']}` ({model_shape(s['MODERN_MODEL'])}; GeGLU), the "
             f"ModernBERT preset of {s['MODEL']}'s size ({model_shape(s['MODEL'])}), with everything else as "
             "bertpt-bert. It trains on bertpt-bert's tokenizer and "
             "blocks (the same bytes: both are deterministic), and its tokenizer and data times are bertpt-bert's "
             "measured ones.\n")
    L.append(f"Pre-training, every arm: batch {s['BATCH']}, AdamW lr {s['LR']}, weight decay {s['WEIGHT_DECAY']}, "
             f"linear warmup over {float(s['WARMUP_RATIO']):.0%} of the steps and linear decay to 0 at the last "
             "step, 15% masking (80/10/10), seed 34. **The schedule rule, the same for all arms:** after the data "
             f"stages, a calibration run of {s['CAL_STEPS']} steps times the arm's step (seconds per step: the "
             "median duration of the steps after the first third; and the fixed cost of a run: start-up, the first "
             "steps' extra time, saving); the main run then gets the `--max-steps` that fill "
             f"{float(s['SAFETY']):.0%} of what is left of the budget, so its learning-rate schedule runs to the end "
             "within the budget. The calibration counts against the budget (it is in the pre-training column). The "
             "deadline is also a hard cap: `bertpt train` runs under `timeout -s INT` (on SIGINT it finishes the "
             "step, saves a checkpoint and exits), the Trainer under `bench/peers/hf_train.py --time-limit` (a "
             "TrainerCallback that stops training at the first step ending after the deadline, then "
             "`save_pretrained`). *capped* in the table says the cap stopped a run before its planned steps.\n")
    L.append("Evaluation, the same for all: the held-out MLM loss is `bertpt eval` (fixed mask seed, 15%) on the "
             f"held-out documents packed into {s['SEQ_LEN']}-token blocks by `bertpt prepare` with **the arm's own "
             "tokenizer**. The vocabularies differ: the HF arm's is trained by `tokenizers`, the bertpt arms' by "
             "`bertpt tokenizer train` (the same algorithm and size; bertpt's shares 99.97–99.99% of HF's tokens on "
             "this kind of text, README), so the losses are per token of slightly different tokenizations" +
             (f" (uniform guessing: ln {vocab.get('bertpt', int(s['VOCAB']))} = "
              f"{math.log(vocab.get('bertpt', int(s['VOCAB']))):.2f})" if vocab else "") + ". "
             "Every pre-trained model is fine-tuned by the same fine-tuner, `bertpt finetune` (it loads the Trainer's "
             f"`save_pretrained` directory and bertpt's checkpoints alike): {s['FT_EPOCHS']} "
             f"epoch{'' if s['FT_EPOCHS'] == '1' else 's'}, lr {s['FT_LR']}, "
             f"batch {s['FT_BATCH']}, warmup 10%, the best epoch on valid, then scored once on test; seeds "
             f"{', '.join(seeds)} (the head's initialisation, example order and dropout).\n")
    L.append("| task | labels | train / valid / test | metric |")
    L.append("|---|---|---|---|")
    sub = f"first {s['FT_TRAIN']}" if s["FT_TRAIN"] != "0" else "all"
    subv = f"first {s['FT_VALID']}" if s["FT_VALID"] != "0" else "all"
    subt = f"first {s['FT_TEST']}" if s["FT_TEST"] != "0" else "all"
    desc = {
        "sst2": f"| SST-2 (GLUE; nlpdatasets_sentence_cls/SST2) | negative, positive | train.tsv without every 10th "
                f"line ({sub}) / every 10th line ({subv}) / dev.tsv ({subt}) | accuracy, max {s['FT_MAX_LEN']} "
                "tokens |",
        "ncbi-disease": f"| NCBI-disease NER (scibert/ner, CoNLL) | B/I-Disease, O | train.txt ({sub} sentences) / "
                        f"dev.txt ({subv}) / test.txt ({subt}) | entity-level F1 (seqeval), max {s['NER_MAX_LEN']} "
                        "tokens |",
        "sci-cite": f"| SciCite citation intent (scibert/text_classification/sci-cite) | background, method, result | "
                    f"train ({sub}) / dev ({subv}) / test ({subt}) | macro-F1, max {s['FT_MAX_LEN']} tokens |",
    }
    for t in tasks:
        L.append(desc[t])
    L.append("")

    L.append("## Results\n")
    head = ("| arm | model | budget | tokenizer | data | pre-training (calibration + run) | total | steps (planned) | "
            "tokens seen | final train loss | held-out MLM loss | held-out MLM accuracy |")
    sep = "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for t in tasks:
        head += f" {TASKS[t][0]} {TASKS[t][2]} |"
        sep += "---|"
    L.append(head)
    L.append(sep)
    for r in rows:
        line = (f"| {r['arm']} | {r['model']} | {budget:g} s | {r['tokenizer']:.1f} s | {r['data']:.1f} s | "
                f"{r['pretrain']:.1f} s ({r['calibration']:.1f} + {r['run']:.1f}) | {r['total']:.1f} s | "
                f"{r['steps']:,} ({r['planned']:,}){' capped' if r['capped'] else ''} | {r['tokens'] / 1e6:.2f} M | "
                f"{r['final_loss']:.3f} | {r['heldout_loss']:.3f} | {r['heldout_acc']:.4f} |")
        for t in tasks:
            line += f" {fmt_ms(scores[t][r['arm']])} |"
        L.append(line)
    L.append("")
    notes = ["*total* can pass the budget by the last step and the final save: the cap acts at step ends.",
             "Steps: the steps run (the planned `--max-steps` in brackets); tokens seen = steps × batch × sequence "
             "length (every block is full). *final train loss*: the last logged training loss (the mean over its "
             "logging window). Held-out: "
             + ", ".join(f"{r['arm']} {r['heldout_sequences']} blocks" for r in rows) + "; one pre-training run per "
             "arm, so the held-out loss has no seed spread to compare against."]
    for t in tasks:
        if not any(scores[t].values()):
            if t == "ncbi-disease" and s.get("NER") == "0":
                notes.append("NCBI-disease NER: not run — this bertpt has no `finetune --task token-classification` "
                             "yet (the script skips the task with a notice; rerunning it later adds the column).")
            else:
                notes.append(f"{TASKS[t][0]}: no finished fine-tuning run.")
        elif majority.get(t) is not None and t != "ncbi-disease":
            notes.append(f"{TASKS[t][0]}: the majority class gets test accuracy {majority[t]:.4f}.")
    L += [f"- {n}" for n in notes]
    L.append("")

    lines, same = noise_lines(rows, scores, tasks)
    L.append("### Beyond noise?\n")
    L.append(f"Test: two-sided Welch t test on the {len(seeds)} fine-tuning seeds of each arm, α = {ALPHA}; the "
             "larger of the two standard deviations is shown beside the difference of the means. With few seeds the "
             "test has little power: *not different* means that these runs cannot tell the arms apart, not that "
             "they are equal.\n")
    if same:
        L.append("**Not different beyond noise:** " + "; ".join(same) + ".\n")
    elif lines:
        L.append("**Not different beyond noise:** no pair (every tested difference has p < 0.05, or none was "
                 "testable).\n")
    if lines:
        L.append("| task | arms | difference of means | larger std | Welch p | verdict |")
        L.append("|---|---|---|---|---|---|")
        L += lines
        L.append("")

    L.append("## Training loss against wall-clock time\n")
    L.append(f"![training loss vs wall-clock seconds]({png_rel})\n")
    L.append("Each curve starts where its arm's main run began training, after its tokenizer, data and calibration "
             "time (the thin dashed line in its colour); the thick grey dashed line is the budget. The Trainer's "
             "points are its logged losses at the wall-clock time `hf_train.py` recorded for them (the same records "
             "as its trainer_state.json log_history); bertpt's are its metrics.jsonl records, placed by their "
             "`elapsed_sec` (training-loop time) with the run's last step at the end of its process.\n")

    L.append("## Commands\n")
    L.append("What each measured stage ran (OUT = the run's output directory; `bertpt` = a copy of the binary):\n")
    L.append("```sh")
    cmd_dir = os.path.join(a.out, "commands")
    order = ["corpus-merge", "hf-tokenizer", "hf-prepare", "bertpt-tokenizer", "bertpt-prepare"]
    for arm in arms:
        order += [f"{arm}-calibration", f"{arm}-run"]
    order += [f"heldout-{p}" for p in ("hf", "bertpt")] + [f"eval-{arm}" for arm in arms]
    first_ft = sorted(n for n in os.listdir(cmd_dir) if n.startswith("finetune-")) if os.path.isdir(cmd_dir) else []
    order += [n for n in first_ft if n.endswith("-" + seeds[0])][:len(tasks) * len(arms)]
    for name in order:
        p = os.path.join(cmd_dir, name)
        if os.path.exists(p):
            L.append(open(p).read().strip())
    L.append("```\n")
    L.append("(The fine-tuning commands are shown for the first seed; the others differ only in `--seed` and the "
             "output directory.)\n")
    with open(a.doc, "w") as f:
        f.write("\n".join(L) + "\n")
    draw_png(a.png, rows, budget, f"Time to quality: {budget / 60:g} min per arm, {s['THREADS']} threads, "
             f"{s['PRECISION']}, seq {s['SEQ_LEN']}, batch {s['BATCH']}")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan")
    p.add_argument("--arm", required=True)
    p.add_argument("--calibration", required=True)
    p.add_argument("--wall", type=float, required=True)
    p.add_argument("--left", type=float, required=True)
    p.add_argument("--safety", type=float, required=True)
    p.add_argument("--out", required=True)
    r = sub.add_parser("report")
    r.add_argument("--out", required=True)
    r.add_argument("--doc", required=True)
    r.add_argument("--png", required=True)
    r.add_argument("--bertpt", required=True)
    r.add_argument("--command", required=True)
    a = ap.parse_args()
    plan(a) if a.cmd == "plan" else report(a)


if __name__ == "__main__":
    main()
