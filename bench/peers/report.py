#!/usr/bin/env python3
"""Writes docs/peers.md from the results of one bench/peers.sh run (OUT/results/*.json): the
tables, what each row measures, the exact commands, the versions, the machine and the date.
Called by bench/peers.sh; not meant to be run by hand, but it can be re-run on an OUT directory.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def jsonl(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                out.append(json.loads(line))
    return out


def mib(b):
    return f"{b / 2**20:,.0f} MiB"


def mb(b):
    return f"{b / 1e6:,.1f} MB"


def secs(s):
    return f"{s:,.1f} s" if s >= 10 else f"{s:,.2f} s"


def ratio(r):
    """bertpt / HF speed; below 1 the table says that bertpt is slower."""
    if r is None:
        return "—"
    s = f"{r:.2f}×"
    return f"**{s}**" if r >= 1 else f"{s} (bertpt slower)"


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def bf16_units():
    """The CPU's bf16 matmul units as /proc/cpuinfo names them (LibTorch's fast bf16 kernels need one)."""
    with open("/proc/cpuinfo") as f:
        flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    return [x for x in ("avx512_bf16", "amx_bf16") if x in flags]


def mem_total():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                return int(line.split()[1]) * 1024
    return 0


def versions(python):
    code = ("import json, platform, torch, transformers, tokenizers, datasets, accelerate, numpy, pyarrow;"
            "print(json.dumps({'python': platform.python_version(), 'torch': torch.__version__,"
            "'transformers': transformers.__version__, 'tokenizers': tokenizers.__version__,"
            "'datasets': datasets.__version__, 'accelerate': accelerate.__version__,"
            "'numpy': numpy.__version__, 'pyarrow': pyarrow.__version__,"
            "'torch_threads_default': torch.get_num_threads(), 'torch_blas': torch.backends.mkl.is_available()}))")
    return json.loads(subprocess.check_output([python, "-c", code], text=True))


class Run:
    def __init__(self, out):
        self.out = out
        self.res = os.path.join(out, "results")
        self.commands = {}
        with open(os.path.join(self.res, "commands.tsv")) as f:
            for line in f:
                name, cmd = line.rstrip("\n").split("\t", 1)
                self.commands[name] = cmd

    def m(self, name):
        return load(os.path.join(self.res, f"{name}.measure.json"))

    def j(self, name):
        return load(os.path.join(self.res, f"{name}.json"))


# Row 3's HF arms in the peer's best configuration (bench/peers/hf_train.py --sparse-head [--compile]):
# the name between train_hf_ and the model tag in the results, and how the tables call it.
BEST_ARMS = (("sparse_compiled", "sparse head + torch.compile"), ("sparse", "sparse head, eager"))


def steady_rate_hf(r):
    """Steps/s between the first and the last logging step (Trainer callback's wall clock)."""
    logs = [x for x in r["logs"] if "loss" in x]
    a, b = logs[0], logs[-1]
    return (b["step"] - a["step"]) / (b["time"] - a["time"]), a["step"], b["step"]


def steady_rate_bertpt(run_dir):
    recs = [x for x in jsonl(os.path.join(run_dir, "metrics.jsonl")) if "loss" in x and "eval_loss" not in x]
    a, b = recs[0], recs[-1]
    return (b["step"] - a["step"]) / (b["elapsed_sec"] - a["elapsed_sec"]), a["step"], b["step"], recs


def first_step_hf(r):
    """Seconds from the Trainer's on_train_begin to the end of step 1 (where torch.compile compiles)."""
    return r["step_end_times"]["1"] - r["t_train_begin"]


def best_arms(run, tag):
    """{arm: (result, steps/s)} of the best-configuration HF arms that ran for `tag`, and the fastest arm."""
    arms = {}
    for arm, _ in BEST_ARMS:
        if os.path.exists(os.path.join(run.res, f"train_hf_{arm}_{tag}.json")):
            r = run.j(f"train_hf_{arm}_{tag}")
            arms[arm] = (r, steady_rate_hf(r)[0])
    return arms, max(arms, key=lambda k: arms[k][1]) if arms else None


def final_loss_bertpt(run_dir):
    """The last logged training loss of a bertpt run, and the run's seed."""
    recs = [x for x in jsonl(os.path.join(run_dir, "metrics.jsonl")) if "loss" in x and "eval_loss" not in x]
    return recs[-1]["loss"], load(os.path.join(run_dir, "run_config.json"))["seed"]


def best_config_section(run, bestrows):
    """Row 3's second table: the HF stock arm, the best-configuration arms and bertpt, side by side."""
    names = dict(BEST_ARMS)
    ran = [arm for arm, _ in BEST_ARMS if any(arm in r[7] for r in bestrows)]
    if not ran:
        return []
    L = []
    s = L.append
    s("**The peer's best configuration.** The table above is the guide's stack as it comes. Beside it, "
      "the same HF training — same Trainer, collator, `BertForMaskedLM`, data, options, seed, threads and "
      "steps, in the same run — with the two speed-ups the peer has for it "
      "(`bench/peers/hf_train.py --sparse-head [--compile]`):")
    s("")
    s("- **sparse head**: a `Trainer` subclass (`SparseHeadTrainer`) whose `compute_loss` runs "
      "`model.bert(...)` on the collator's batch, keeps the hidden states of the positions whose label is "
      "not −100 (the ~15% masked ones), applies `model.cls` (transform + tied decoder) to those rows only "
      "and takes the cross-entropy against their labels — the stock head's loss (`bench/peers/"
      "check_sparse_head.py` checks the two agree), with the vocabulary projection on the masked rows "
      "only, as bertpt's head; the way `bench/hf_train_step.py --sparse-head` runs it;")
    s("- **torch.compile** (inductor, default mode; g++ compiles its C++ kernels): the encoder `model.bert` "
      "in place (`nn.Module.compile()`) and the head + cross-entropy as one compiled function whose row "
      "count is marked dynamic (one graph for every masked-row count); the gather of the masked rows "
      "between the two runs eagerly, as do the optimizer (`adamw_torch_fused`), clipping and the Trainer "
      "loop. Both graphs compile in step 1, which steps/s leaves out (it starts at the first log record, "
      "after step 1); the first-step column shows what compiling costs, from an empty kernel cache "
      "(`TORCHINDUCTOR_CACHE_DIR` inside the run's output directory).")
    s("")
    s("Both are measured: " + " and ".join(f"*{names[arm]}*" for arm in ran) + "; **HF best** is the faster of "
      "them in each row. These arms train only (no evaluation afterwards); they save their checkpoints at "
      "half way and at the end, as the stock arm does.")
    s("")
    cols = " | ".join(f"HF {names[arm]} steps/s" for arm in ran)
    firsts = " / ".join(["stock"] + [names[arm] for arm in ran])
    s(f"| model | precision | steps | HF stock steps/s | {cols} | bertpt steps/s | bertpt / HF stock | "
      f"bertpt / HF best | HF first step: {firsts} | HF best peak memory | HF best whole command | "
      "final loss HF stock / HF best / bertpt |")
    s("|" + "---|" * (11 + len(ran)))
    compile_counts = []
    for model, prec, steps, h, hr, br, bloss, arms, best in bestrows:
        if not best:
            continue
        rb, rate_b = arms[best]
        mb_ = run.m(f"train_hf_{best}_{model[5:]}_{prec}")
        rates = " | ".join(f"{arms[arm][1]:.3f}" + (" (best)" if arm == best else "") if arm in arms else "—"
                           for arm in ran)
        first = " / ".join([secs(first_step_hf(h))] + [secs(first_step_hf(arms[arm][0])) if arm in arms else "—"
                                                       for arm in ran])
        s(f"| {model} | {prec} | {steps} | {hr:.3f} | {rates} | {br:.3f} | {ratio(br / hr)} | {ratio(br / rate_b)} | "
          f"{first} | {mib(mb_['peak_mem_bytes'])} | "
          f"{secs(mb_['wall_sec'])} | {h['final_loss']:.3f} / {rb['final_loss']:.3f} / {bloss:.3f} |")
        if "sparse_compiled" in arms:
            compile_counts.append((model, prec, arms["sparse_compiled"][0].get("dynamo", {})))
    s("")
    if compile_counts:
        seen = {(c.get("graphs"), c.get("graph_breaks")) for _, _, c in compile_counts}
        if len(seen) == 1:
            g, b = seen.pop()
            s(f"torch.compile compiled {g} graphs with {b} graph breaks in each compiled run (torch._dynamo's "
              "counters at the end of training).")
        else:
            s("torch.compile's graphs and graph breaks (torch._dynamo's counters at the end of training): "
              + "; ".join(f"{m} {p}: {c.get('graphs')} graphs, {c.get('graph_breaks')} breaks"
                          for m, p, c in compile_counts) + ".")
    if {"sparse", "sparse_compiled"} <= set(ran):
        faster = [f"{m} {p}" for m, p, _, _, _, _, _, arms, _ in bestrows
                  if {"sparse", "sparse_compiled"} <= set(arms) and arms["sparse_compiled"][1] > arms["sparse"][1]]
        total = sum(1 for r in bestrows if {"sparse", "sparse_compiled"} <= set(r[7]))
        s(f"torch.compile made the sparse-head arm faster in {len(faster)} of {total} rows"
          + (f" ({', '.join(faster)})" if faster and len(faster) < total else "")
          + ("" if len(faster) == total else "; where it did not, HF best is the eager sparse head") + ". "
          "The compiled graphs draw their dropout masks with inductor's own generator, so the compiled arm's "
          "losses differ slightly from the eager arms' at the same seed.")
    s("")
    return L


def signed(x):
    return f"{x:+.3f}".replace("-", "−")


def main():
    ap = argparse.ArgumentParser()
    for k in ("out", "size", "bertpt", "corpus", "doc", "lr", "weight_decay", "valid"):
        ap.add_argument("--" + k.replace("_", "-"), required=True)
    for k in ("threads", "seconds", "steps_mini", "steps_small", "steps_pipe", "seq", "batch", "vocab", "seed2"):
        ap.add_argument("--" + k.replace("_", "-"), type=int, required=True)
    ap.add_argument("--plot")
    ap.add_argument("--python", default=sys.executable)
    a = ap.parse_args()
    run = Run(a.out)
    doc_dir = os.path.dirname(os.path.abspath(a.doc))

    v = versions(a.python)
    bertpt_version = subprocess.check_output([a.bertpt, "--version"], text=True).strip().splitlines()
    load_start = open(os.path.join(run.res, "load_start.txt")).read().split()
    load_end = open(os.path.join(run.res, "load_end.txt")).read().split()
    corpus_bytes = os.path.getsize(a.corpus)
    with open(a.corpus) as f:
        corpus_docs = sum(1 for _ in f)
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    T = a.threads

    L = []
    w = L.append
    w("# bertpt against the Hugging Face Python stack")
    w("")
    w(f"<!-- Written by bench/peers.sh (bench/peers/report.py) on {today}. Do not edit: rerun the script. -->")
    w("")
    w(f"Written by `bench/peers.sh --size {a.size}` on {today}; the whole run took {a.seconds // 60} min "
      f"{a.seconds % 60} s. Every row ran both sides in that one run, one after the other, on the same "
      f"input, on the same machine, with the same number of threads ({T}: `OMP_NUM_THREADS`, "
      f"`torch.set_num_threads`, `RAYON_NUM_THREADS`, datasets' `num_proc` on the Hugging Face side; "
      f"`--threads {T}` for bertpt).")
    w("")
    w("- **Machine**: " + f"{cpu_model()}, {os.cpu_count()} cores (`nproc` = {len(os.sched_getaffinity(0))}), "
      f"{mem_total() / 2**30:.0f} GiB memory, no GPU; {platform.system()} {platform.release()}; bf16 units: "
      + (", ".join(bf16_units()) if bf16_units() else "none (no avx512_bf16 or amx_bf16: LibTorch's bf16 matmuls "
         "run scalar code, on both sides, so the bf16 rows measure that fallback)") + ". "
      f"Load average {load_start[0]} at the start and {load_end[0]} at the end (1 min; the machine may be "
      f"shared: read the ratios, measured minutes apart, rather than the absolute numbers).")
    rev = open(os.path.join(run.res, "bertpt_rev.txt")).read().strip()
    w("- **bertpt**: " + "; ".join(bertpt_version) + f" (commit {rev}; Release build).")
    w(f"- **Hugging Face**: transformers {v['transformers']}, tokenizers {v['tokenizers']}, datasets "
      f"{v['datasets']}, accelerate {v['accelerate']}, torch {v['torch']}, numpy {v['numpy']}, pyarrow "
      f"{v['pyarrow']}, Python {v['python']} (`requirements/hf-peer.txt`, installed in `.venv` by "
      f"`scripts/setup-test-peers`). Offline: `HF_HUB_OFFLINE=1`, nothing is downloaded.")
    w(f"- **Corpus**: {corpus_docs:,} English Wikipedia articles in the HF `wikipedia` row shape "
      f"(`{{\"id\", \"url\", \"title\", \"text\"}}`, one JSON object per line), {mb(corpus_bytes)} — "
      + {"tiny": "the first 300 rows of `wikipedia_en_jsonl_derived/wiki_00.jsonl`",
         "small": "`wikipedia_en_jsonl_derived/*.jsonl` of the shared data directory",
         "full": "all 24 files of `wikipedia_en_wikiextractor/` converted by `bench/peers/wikiextractor_to_jsonl.py`"}[a.size]
      + ". Both sides read the same file.")
    w("- **Memory** is the peak resident set of the command (`getrusage`, what `/usr/bin/time -v` "
      "reports), or, when larger, the peak of the summed proportional set sizes of its process tree "
      "(sampled every 0.25 s while the command has child processes: datasets' `num_proc` workers). "
      "Times are wall-clock times of the whole command (start-up, imports and writing the output "
      "included) unless a row says otherwise.")
    w("- **bertpt / HF** is a speed ratio: HF's time divided by bertpt's (or bertpt's throughput "
      "divided by HF's). Above 1 bertpt is faster; below 1 the table says *bertpt slower*.")
    w("")

    # ---------------------------------------------------------------- summary
    summary = []

    # ---------------------------------------------------------------- 1. tokenizer
    th_m, tb_m = run.m("tok_hf"), run.m("tok_bertpt")
    th, tb = run.j("tok_hf"), run.j("tok_bertpt")
    hf_vocab = load(os.path.join(a.out, "tok-hf", "tokenizer.json"))["model"]["vocab"]
    with open(os.path.join(a.out, "tok-bertpt", "vocab.txt"), encoding="utf-8") as f:
        bt_vocab = [x.rstrip("\n") for x in f]
    shared = len(set(hf_vocab) & set(bt_vocab))
    r1 = th_m["wall_sec"] / tb_m["wall_sec"]
    summary.append(("1. Tokenizer training, vocab 32,000", secs(th_m["wall_sec"]), secs(tb_m["wall_sec"]), ratio(r1)))
    sec1 = []
    s = sec1.append
    s("## 1. Tokenizer training")
    s("")
    s("HF: the guide's step — `load_dataset(\"json\", …)`, then `train_new_from_iterator(batch_iterator(), "
      "vocab_size=32_000)` on a BertTokenizerFast with bert-base-uncased's pipeline (lowercase, strip accents, "
      "CJK split; built from a 5-token vocab.txt because nothing may be downloaded: the method keeps only the "
      "pipeline and the special tokens of the starting tokenizer), then `save_pretrained` "
      "(`bench/peers/hf_tokenizer.py`). bertpt: `bertpt tokenizer train`. Both write a BertTokenizerFast "
      "directory with `[PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 [MASK]=4`.")
    s("")
    s("| | HF | bertpt | bertpt / HF |")
    s("|---|---|---|---|")
    s(f"| wall time (whole command) | {secs(th_m['wall_sec'])} | {secs(tb_m['wall_sec'])} | {ratio(r1)} |")
    s(f"| of which: Python imports | {secs(th['import_sec'])} | — | |")
    s(f"| of which: training (HF: load_dataset + train_new_from_iterator; bertpt: its own `seconds`) | "
      f"{secs(th['load_dataset_sec'] + th['train_sec'])} | {secs(tb['seconds'])} | "
      f"{ratio((th['load_dataset_sec'] + th['train_sec']) / tb['seconds'])} |")
    s(f"| peak memory | {mib(th_m['peak_mem_bytes'])} | {mib(tb_m['peak_mem_bytes'])} | |")
    s(f"| vocabulary size | {len(hf_vocab):,} | {len(bt_vocab):,} | |")
    s(f"| tokens in both vocabularies | {shared:,} ({100 * shared / len(hf_vocab):.2f}% of HF's) | | |")
    s("")
    s("```sh")
    s(run.commands["tok_hf"])
    s(run.commands["tok_bertpt"])
    s("```")
    s("")
    s("HF's WordPiece trainer breaks ties between equally frequent pairs in hash-map order, so its own "
      "runs differ slightly from one another (docs/benchmarks.md, \"Tokenizer training\"); bertpt's is "
      "deterministic.")
    s("")

    # ---------------------------------------------------------------- 2. prepare
    disk = {}
    with open(os.path.join(run.res, "disk_bytes.tsv")) as f:
        for line in f:
            k, b = line.split("\t")
            disk[k] = int(b)
    pg_h, pg_b = run.j("prep_hf_guide"), run.j("prep_bertpt_guide")
    pr_h, pc_b = run.j("prep_hf_runmlm"), run.j("prep_bertpt_concat")
    sec2 = []
    s = sec2.append
    s("## 2. Dataset preparation (tokenize + pack into 512-token blocks)")
    s("")
    s("Both sides use the tokenizer HF trained in row 1 (bertpt reads its `tokenizer.json`). HF: the "
      "guide's `datasets` recipe (`bench/peers/hf_prepare.py`): `load_dataset(\"json\", data_files=…, "
      f"cache_dir=…)` → `map(tokenize, batched=True, num_proc={T}, remove_columns=…)` → `map(group_texts, "
      f"batched=True, num_proc={T})`, group_texts being run_mlm.py's (each map batch of 1,000 documents "
      "concatenated and cut into 512-token blocks, the batch's remainder dropped), with a cold cache. Two "
      "variants: **guide** — `tokenizer(..., return_special_tokens_mask=True, truncation=True, "
      "max_length=512)`, the guide's, which keeps only the first 512 tokens of each article; bertpt's "
      "`--packing guide` implements the same rule — and **run_mlm** — no truncation, as in run_mlm.py; "
      "bertpt's default `--packing concat` keeps every token but the final partial block. bertpt runs "
      "with `--valid-fraction 0` (no held-out split, like the recipe). Disk: the datasets cache directory "
      "(the Arrow copy of the corpus + the tokenized + the grouped dataset: what the recipe leaves "
      "behind; the grouped dataset alone in brackets) against bertpt's output directory (shards, "
      "manifest, tokenizer copy).")
    s("")
    s("| packing | system | wall time | bertpt / HF | peak memory | on disk | blocks | tokens kept (blocks × 512) |")
    s("|---|---|---|---|---|---|---|---|")
    rows2 = [
        ("guide (truncate to 512)", "HF datasets", "prep_hf_guide", pg_h["blocks"], disk["cache/prep-guide"], pg_h["final_blocks_bytes"]),
        ("guide (truncate to 512)", "bertpt `--packing guide`", "prep_bertpt_guide", pg_b["manifest"]["splits"]["train"]["sequences"], disk["prep-bertpt-guide"], None),
        ("keep everything", "HF datasets (run_mlm)", "prep_hf_runmlm", pr_h["blocks"], disk["cache/prep-runmlm"], pr_h["final_blocks_bytes"]),
        ("keep everything", "bertpt (concat)", "prep_bertpt_concat", pc_b["manifest"]["splits"]["train"]["sequences"], disk["prep-bertpt-concat"], None),
    ]
    walls = {name: run.m(name)["wall_sec"] for _, _, name, _, _, _ in rows2}
    for i, (mode, system, name, blocks, dbytes, final) in enumerate(rows2):
        mm = run.m(name)
        rr = ""
        if i % 2 == 1:
            rr = ratio(walls[rows2[i - 1][2]] / walls[name])
        d = mb(dbytes) + (f" ({mb(final)})" if final else "")
        s(f"| {mode} | {system} | {secs(mm['wall_sec'])} | {rr} | {mib(mm['peak_mem_bytes'])} | {d} | {blocks:,} | {blocks * 512:,} |")
    s("")
    in_tok = pc_b["manifest"]["splits"]["train"]["input_tokens"]
    s(f"The corpus is {in_tok:,} tokens (`[CLS]`/`[SEP]` included; bertpt's manifest `input_tokens`"
      + (f", HF's run_mlm count {pr_h['input_tokens']:,}" if pr_h.get("input_tokens") else "") + "). "
      f"In-process time of the HF recipe (without Python's imports, {secs(pg_h['import_sec'])} and "
      f"{secs(pr_h['import_sec'])}): guide {secs(pg_h['in_process_sec'])}, run_mlm {secs(pr_h['in_process_sec'])}; "
      f"bertpt's own `seconds`: guide {secs(pg_b['seconds'])}, concat {secs(pc_b['seconds'])}.")
    if pg_h["blocks"] != pg_b["manifest"]["splits"]["train"]["sequences"]:
        s(f"The guide rows differ by {abs(pg_h['blocks'] - pg_b['manifest']['splits']['train']['sequences'])} "
          f"block(s): with `num_proc={T}` datasets splits the corpus into {T} contiguous shards before "
          "batching, so the groups of 1,000 documents (and the remainders dropped) are not the same as one "
          "pass over the corpus, which is what bertpt's `--packing guide` reproduces (run_mlm.py with "
          "`num_proc=1`).")
    s("")
    s("```sh")
    for name in ("prep_hf_guide", "prep_bertpt_guide", "prep_hf_runmlm", "prep_bertpt_concat"):
        s(run.commands[name])
    s("```")
    s("")
    summary.append(("2. Dataset preparation, seq 512, guide recipe", secs(walls["prep_hf_guide"]),
                    secs(walls["prep_bertpt_guide"]), ratio(walls["prep_hf_guide"] / walls["prep_bertpt_guide"])))
    summary.append(("2. Dataset preparation, seq 512, keep everything", secs(walls["prep_hf_runmlm"]),
                    secs(walls["prep_bertpt_concat"]), ratio(walls["prep_hf_runmlm"] / walls["prep_bertpt_concat"])))

    # ---------------------------------------------------------------- 3. training
    man128 = load(os.path.join(a.out, "data128", "manifest.json"))
    # Run-to-run noise: the bert-mini bf16 runs at their (default) seed and again at --seed2.
    noise = {}
    for side, name in (("HF Trainer", "hf"), ("bertpt", "bertpt")):
        for tag in ("mini_bf16", f"mini_bf16_seed{a.seed2}"):
            if name == "hf":
                h = run.j(f"train_hf_{tag}")
                noise[side, tag] = (h["final_loss"], h["seed"])
            else:
                noise[side, tag] = final_loss_bertpt(os.path.join(a.out, "train", f"bertpt-{tag}"))
    seed1, seed2 = noise["bertpt", "mini_bf16"][1], noise["bertpt", f"mini_bf16_seed{a.seed2}"][1]
    if (noise["HF Trainer", "mini_bf16"][1], noise["HF Trainer", f"mini_bf16_seed{a.seed2}"][1]) != (seed1, seed2) \
            or seed1 == seed2:
        raise SystemExit(f"report.py: the bert-mini bf16 runs' seeds: {[(k, v[1]) for k, v in noise.items()]}; "
                         "want one seed for both sides' row-3 runs and another for both noise runs")
    sec3 = []
    s = sec3.append
    s(f"## 3. Training (seq {a.seq}, batch {a.batch}) and evaluation")
    s("")
    s(f"Data: both sides train on the same packed blocks — the dataset `bertpt prepare --seq-len {a.seq}` "
      f"wrote from the corpus with bertpt's row-1 tokenizer ({man128['splits']['train']['sequences']:,} "
      f"training and {man128['splits']['valid']['sequences']:,} held-out sequences, vocabulary "
      f"{man128['vocab_size']:,}). The HF side memory-maps its shards with numpy (docs/data-format.md) "
      "and hands the Trainer `{input_ids, special_tokens_mask}` items (`[CLS]`/`[SEP]`/`[PAD]` marked, "
      "what the guide's tokenizer call marks), so both mask the same kind of positions; each side draws "
      "its own sample order and masks. HF: `Trainer` + `DataCollatorForLanguageModeling(mlm_probability=0.15)` "
      "over `BertForMaskedLM(BertConfig.from_json_file(\"configs/bert-….json\"))` — the same files bertpt's "
      "presets are — on CPU (`use_cpu=True`; `bench/peers/hf_train.py`). Same options on both sides: "
      f"AdamW lr {a.lr}, linear warmup over the first 10% of the steps then linear decay to 0, weight decay "
      f"{a.weight_decay} (not on biases and LayerNorm weights), betas (0.9, 0.999), eps 1e-8, clipping at 1.0, "
      f"seed {seed1}, a log record every 10% of the steps, a checkpoint at half way and at the end, then one "
      "evaluation over the whole held-out split. Precision: fp32, or bf16 autocast "
      "(Trainer `bf16=True`; bertpt `--precision bf16`). The bert-mini bf16 runs are repeated with seed "
      f"{seed2} to measure the run-to-run noise (below the loss curves).")
    s("")
    s("**steps/s** is measured between the first and the last log record (the first 10% of the steps, "
      "with the first step's allocations, left out; the mid-run checkpoint included): HF from a "
      "`TrainerCallback`'s wall clock at `on_log`, bertpt from `elapsed_sec` in `metrics.jsonl`. "
      f"tokens/s = steps/s × {a.batch} × {a.seq}. The whole command (start-up, model building, training, "
      "checkpoints, the final evaluation) is given too.")
    s("")
    s("| model | precision | steps | HF steps/s | bertpt steps/s | bertpt / HF | HF tokens/s | bertpt tokens/s | "
      "HF peak memory | bertpt peak memory | HF whole command | bertpt whole command | final loss HF / bertpt |")
    s("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    evrows = []
    bestrows = []
    hf_info = None
    for model, steps in (("bert-mini", a.steps_mini), ("bert-small", a.steps_small)):
        for prec in ("fp32", "bf16"):
            tag = f"{model[5:]}_{prec}"
            h = run.j(f"train_hf_{tag}")
            hf_info = h
            hm, bm = run.m(f"train_hf_{tag}"), run.m(f"train_bertpt_{tag}")
            hr, h0, h1 = steady_rate_hf(h)
            br, b0, b1, brecs = steady_rate_bertpt(os.path.join(a.out, "train", f"bertpt-{tag}"))
            tok = a.batch * a.seq
            s(f"| {model} | {prec} | {steps} | {hr:.3f} | {br:.3f} | {ratio(br / hr)} | {hr * tok:,.0f} | {br * tok:,.0f} | "
              f"{mib(hm['peak_mem_bytes'])} | {mib(bm['peak_mem_bytes'])} | {secs(hm['wall_sec'])} | "
              f"{secs(bm['wall_sec'])} | {h['final_loss']:.3f} / {brecs[-1]['loss']:.3f} |")
            arms, best = best_arms(run, tag)
            bestrows.append((model, prec, steps, h, hr, br, brecs[-1]["loss"], arms, best))
            if best:
                summary.append((f"3. Training {model} {prec}, steps/s", f"{hr:.3f}",
                                f"{arms[best][1]:.3f} ({dict(BEST_ARMS)[best]})", f"{br:.3f}", ratio(br / hr),
                                ratio(br / arms[best][1])))
            else:
                summary.append((f"3. Training {model} {prec}, steps/s", f"{hr:.3f}", f"{br:.3f}", ratio(br / hr)))
            be, bem = run.j(f"eval_bertpt_{tag}"), run.m(f"eval_bertpt_{tag}")
            ev = h["eval"]
            evrows.append((model, prec, h["eval_sequences"], ev, be, bem))
    s("")
    s(f"HF ran with `optim={hf_info['optim'].split('.')[-1].lower()}` (the Trainer's default) and "
      f"`attn_implementation={hf_info['attn_implementation']}`. bertpt's MLM head runs at the masked "
      "positions only, HF's at every position (a difference of design: the same loss, less work). "
      "The fp32 and bf16 runs of one side see the same samples, masks and dropout (same seed), so their "
      "losses agree to about 1e-3; the two sides draw different ones, so theirs differ more (by how much "
      "against two seeds of one side: the run-to-run noise below the loss curves).")
    s("")
    sec3 += best_config_section(run, bestrows)
    s("**Evaluation** of the final checkpoint on the held-out split: HF `trainer.evaluate()` (in the "
      "training process, so no start-up: its `eval_runtime`), bertpt `bertpt eval` (its own `seconds`, "
      "and the whole command with loading the checkpoint). Each side masks 15% of the positions its own "
      "way (HF: fresh random masks; bertpt: a fixed evaluation mask), so the losses compare only roughly.")
    s("")
    s("| model | precision | sequences | HF evaluate() | bertpt eval | bertpt / HF | bertpt eval, whole command | "
      "eval loss HF / bertpt |")
    s("|---|---|---|---|---|---|---|---|")
    for model, prec, nseq, ev, be, bem in evrows:
        r = ev["eval_runtime"] / be["seconds"]
        s(f"| {model} | {prec} | {nseq:,} | {secs(ev['eval_runtime'])} | {secs(be['seconds'])} | {ratio(r)} | "
          f"{secs(bem['wall_sec'])} | {ev['eval_loss']:.3f} / {be['eval_loss']:.3f} |")
        summary.append((f"3. Evaluation {model} {prec}", secs(ev["eval_runtime"]), secs(be["seconds"]), ratio(r)))
    s("")
    if a.plot:
        rel = os.path.relpath(a.plot, doc_dir)
        s(f"The loss curves of the bert-mini bf16 runs, seeds {seed1} and {seed2} on each side, drawn together "
          f"by `bertpt plot` from bertpt's `metrics.jsonl` and the Trainer's `trainer_state.json` (all kept "
          f"under the run's output directory, `OUT/train/`):")
        s("")
        s(f"![bert-mini bf16: bertpt and HF Trainer loss curves, two seeds each]({rel})")
        s("")
    log_mini = max(a.steps_mini // 10, 1)
    s(f"**Run-to-run noise.** The bert-mini bf16 runs once more on each side with seed {seed2} instead of "
      f"{seed1} (other initial weights, sample order, masks and dropout; the same options otherwise, without "
      "the mid-run checkpoint and HF's evaluation, which do not touch the training losses; bertpt's "
      "end-of-run evaluation, which it always runs, limited to one batch). Final loss: the last logged "
      + (f"training loss, the mean over steps {a.steps_mini - log_mini + 1}–{a.steps_mini}." if log_mini > 1
         else f"training loss, that of step {a.steps_mini}."))
    s("")
    s(f"| final loss, bert-mini bf16 | seed {seed1} | seed {seed2} | between seeds (seed {seed2} − seed {seed1}) |")
    s("|---|---|---|---|")
    gaps = {}
    for side in ("HF Trainer", "bertpt"):
        l1, l2 = noise[side, "mini_bf16"][0], noise[side, f"mini_bf16_seed{a.seed2}"][0]
        gaps[side] = l2 - l1
        s(f"| {side} | {l1:.3f} | {l2:.3f} | {signed(gaps[side])} |")
    between = {tag: noise["bertpt", tag][0] - noise["HF Trainer", tag][0] for tag in ("mini_bf16", f"mini_bf16_seed{a.seed2}")}
    s(f"| between sides (bertpt − HF) | {signed(between['mini_bf16'])} | {signed(between[f'mini_bf16_seed{a.seed2}'])} | |")
    s("")
    noisiest = max(gaps, key=lambda k: abs(gaps[k]))
    d, n = abs(between["mini_bf16"]), abs(gaps[noisiest])
    s(f"At seed {seed1} the two sides' final losses differ by {d:.3f}, "
      + (f"within the run-to-run noise measured here: the larger of the two between-seed differences is "
         f"{n:.3f} ({noisiest})." if d <= n else
         f"more than the run-to-run noise measured here: the larger of the two between-seed differences is "
         f"only {n:.3f} ({noisiest}).")
      + " Two seeds per side make a rough measure of that noise, not a confidence interval.")
    s("")
    s("```sh")
    s(run.commands["data128"])
    for model in ("mini", "small"):
        for prec in ("fp32", "bf16"):
            s(run.commands[f"train_hf_{model}_{prec}"])
            for arm, _ in BEST_ARMS:
                if f"train_hf_{arm}_{model}_{prec}" in run.commands:
                    s(run.commands[f"train_hf_{arm}_{model}_{prec}"])
            s(run.commands[f"train_bertpt_{model}_{prec}"])
            s(run.commands[f"eval_bertpt_{model}_{prec}"])
    s(run.commands[f"train_hf_mini_bf16_seed{a.seed2}"])
    s(run.commands[f"train_bertpt_mini_bf16_seed{a.seed2}"])
    if "plot" in run.commands:
        s(run.commands["plot"])
    s("```")
    s("")

    # ---------------------------------------------------------------- 4. resume
    rh, rb = run.m("resume_hf"), run.m("resume_bertpt")
    half = a.steps_mini // 2
    sec4 = []
    s = sec4.append
    s("## 4. Resuming a run")
    s("")
    s(f"The bert-mini bf16 runs of row 3, copied, their final checkpoint removed, continued from "
      f"`checkpoint-{half}` with the same options: HF `trainer.train(resume_from_checkpoint=True)` "
      "(model, optimizer, scheduler and RNG states restored, the data loader fast-forwarded past the "
      "batches already seen) against `bertpt train --resume auto` (the sample position is part of the "
      "trainer state: nothing is replayed). Measured: from starting the process to the first new step "
      "being recorded (HF: a callback's `on_step_end` line; bertpt: its `metrics.jsonl` record, "
      "`--logging-steps 1`); the process is then killed.")
    s("")
    s("| | HF | bertpt | bertpt / HF |")
    s("|---|---|---|---|")
    r4 = rh["first_step_sec"] / rb["first_step_sec"]
    s(f"| process start → step {half + 1} recorded | {secs(rh['first_step_sec'])} | {secs(rb['first_step_sec'])} | {ratio(r4)} |")
    s(f"| peak memory until then | {mib(rh['peak_mem_bytes'])} | {mib(rb['peak_mem_bytes'])} | |")
    s("")
    s("```sh")
    s(run.commands["resume_hf"])
    s(run.commands["resume_bertpt"])
    s("```")
    s("")
    summary.append((f"4. Resume: start → first new step", secs(rh["first_step_sec"]), secs(rb["first_step_sec"]), ratio(r4)))

    # ---------------------------------------------------------------- 5. pipeline
    stages = [("tokenizer training", "pipe_hf_tok", "pipe_bertpt_tok"),
              (f"prepare (seq {a.seq})", "pipe_hf_prep", "pipe_bertpt_prep"),
              (f"train bert-mini bf16, {a.steps_pipe} steps", "pipe_hf_train", "pipe_bertpt_train")]
    sec5 = []
    s = sec5.append
    s("## 5. The whole pipeline: raw text → trained bert-mini")
    s("")
    s(f"Each side on its own: its tokenizer (vocab {a.vocab:,}), its preparation at seq {a.seq} (HF: the "
      "run_mlm recipe of row 2 plus `save_to_disk`; bertpt: `prepare`, concat, no held-out split), then "
      f"{a.steps_pipe} training steps of bert-mini in bf16 with row 3's options, ending with a saved "
      "checkpoint. Three commands on each side; the sum of their wall times.")
    s("")
    s("| stage | HF | bertpt | bertpt / HF | HF peak memory | bertpt peak memory |")
    s("|---|---|---|---|---|---|")
    th_sum = tb_sum = 0.0
    for label, hn, bn in stages:
        hm_, bm_ = run.m(hn), run.m(bn)
        th_sum += hm_["wall_sec"]
        tb_sum += bm_["wall_sec"]
        s(f"| {label} | {secs(hm_['wall_sec'])} | {secs(bm_['wall_sec'])} | {ratio(hm_['wall_sec'] / bm_['wall_sec'])} | "
          f"{mib(hm_['peak_mem_bytes'])} | {mib(bm_['peak_mem_bytes'])} |")
    s(f"| **total** | **{secs(th_sum)}** | **{secs(tb_sum)}** | {ratio(th_sum / tb_sum)} | | |")
    s("")
    s("```sh")
    for _, hn, bn in stages:
        s(run.commands[hn])
    for _, hn, bn in stages:
        s(run.commands[bn])
    s("```")
    s("")
    summary.append((f"5. Pipeline raw text → bert-mini ({a.steps_pipe} steps)", secs(th_sum), secs(tb_sum), ratio(th_sum / tb_sum)))

    # ---------------------------------------------------------------- assemble
    w("## Summary")
    w("")
    w("| row | HF | HF best configuration | bertpt | bertpt / HF | bertpt / HF best |")
    w("|---|---|---|---|---|---|")
    for row in summary:
        if len(row) == 4:  # no best-configuration arm in this row
            row = (row[0], row[1], "", row[2], row[3], "")
        w("| " + " | ".join(row) + " |")
    w("")
    w("Times in seconds (whole commands, except evaluation: in-process), training in optimizer steps per second. "
      "**HF** is the guide's stack as it comes; **HF best configuration** (training rows only) is the same "
      "Trainer with the MLM head on the masked rows only, with torch.compile or without (the faster of the "
      "two, named), as row 3 describes.")
    w("")
    L += sec1 + sec2 + sec3 + sec4 + sec5
    w("## Rerunning")
    w("")
    w("```sh")
    w("bench/peers.sh                 # --size small (the default): this page, ~55 min on 2 cores with bf16 units")
    w("bench/peers.sh --size full     # all 24 Wikipedia files (~24 MB), 10x the training steps: hours")
    w("bench/peers.sh --size tiny     # a smoke test of the script (writes OUT/peers.md, not this page)")
    w("```")
    w("")
    w(f"Options: `--out DIR` (default `runs/peers-SIZE`: every result JSON, log, tokenizer, dataset, "
      f"the HF `trainer_state.json` files and bertpt run directories), `--threads N` (default `nproc`), "
      f"`--doc FILE`. `BERTPT_BIN` and `PYTHON` choose the binary and the Python with the HF stack. In "
      f"the commands above, `OUT` is the output directory. Size `{a.size}`: bert-mini {a.steps_mini} "
      f"steps, bert-small {a.steps_small} steps, pipeline {a.steps_pipe} steps, {100 * float(a.valid):g}% "
      f"of the documents held out for evaluation; seeds {seed1} and {seed2} for the run-to-run noise.")
    w("")
    with open(a.doc, "w") as f:
        f.write("\n".join(L))


if __name__ == "__main__":
    main()
