#!/usr/bin/env python3
"""Hugging Face peer for bertpt's training-step benchmark.

Measures one training step of a stock `transformers` BertForMaskedLM (ModernBertForMaskedLM for a
ModernBERT config.json), run the way the HF/Habana BERT pre-training guide's stack runs it (the
Trainer's defaults, without the Trainer loop):

  * the model built from a BERT config.json (bertpt's presets in configs/*.json work as they are),
    attention through `attn_implementation="sdpa"`, train mode (dropout on);
  * masked-LM labels from the real DataCollatorForLanguageModeling (15% of positions chosen;
    80% -> [MASK], 10% random token, 10% unchanged; -100 elsewhere), over random token ids;
  * bf16 autocast (or fp32), loss.backward(), clip_grad_norm_(1.0), torch.optim.AdamW (fused where
    the device supports it, else foreach) with the Trainer's two parameter groups (no weight decay
    for biases and LayerNorm weights), zero_grad(set_to_none=True).

That is the "stock" variant. Two options, off by default and combinable, give the peer's best
configuration as well (the JSON's "variant": stock, sparse, compiled or sparse+compiled):

  --sparse-head  the MLM head (transform + decoder) only on the masked rows (labels != -100), as
                 the models' authors pre-train them. ModernBERT: the config's own
                 sparse_prediction=True (ModernBertForMaskedLM drops the rows labelled
                 sparse_pred_ignore_index = -100 before the head). BERT has no such flag, so the
                 loss goes through its public modules: model.bert(...), the hidden states of the
                 labelled positions (boolean indexing, flattened), model.cls(...) on those rows,
                 cross-entropy against their labels. Same loss as the dense head on the same
                 weights and batch (bench/peers/check_sparse_head.py checks it, fp32, 1e-5).
  --compile      torch.compile (default mode, inductor; on a CPU it needs a C++ compiler) of the
                 forward + loss; the backward goes through the compiled graphs as well. Compiling
                 happens in the untimed warm-up steps, at least 2 of them when compiling (the
                 sparse head's masked-row count changes between batches, so the second step
                 recompiles with dynamic shapes); a failed compile exits 1 with one line on stderr.

Everything else in the step (autocast, clipping, AdamW groups, batches) is the same in all variants.

  --profile FILE one more step after the warm-up (on the first timed step's batch), under torch.profiler
                 (CPU activities, no shapes), its chrome trace written to FILE; the timed steps follow
                 it and are measured as without it. The step's parts are record_function ranges named
                 step.forward, step.backward and step.optimizer (clipping, AdamW, zero_grad), which
                 bench/profile_step.py reads. With --compile, inductor's C++ kernels are compiled with
                 their profiler ranges (cpp.enable_kernel_profile), so the trace names each cpp_fused_*
                 kernel instead of leaving their time to the compiled graph's range.

Why: it is the peer in bertpt's side-by-side benchmarks. bench/gpu and scripts/gpu-check run it on
a GPU next to bertpt's CUDA build; on a CPU its numbers compare with `bertpt bench` (same seq-len,
batch and threads). FLOPs use bertpt's formula (src/perf/flops.h): the MLM head (H*H transform +
V*H decoder) is counted at every position for the dense (stock) head, which HF computes on all
positions, and at the masked positions only with --sparse-head, as bertpt counts its sparse head.

Prints one JSON object on stdout; warnings and errors go to stderr. Examples (CPU, one thread):

  python3 bench/hf_train_step.py --config configs/bert-mini.json --seq-len 128 --batch-size 8 \\
      --steps 3 --warmup-steps 1 --device cpu --threads 1
  python3 bench/hf_train_step.py --config configs/modernbert-mini.json --seq-len 128 --batch-size 8 \\
      --steps 3 --warmup-steps 2 --device cpu --threads 1 --sparse-head --compile

Needs python3 with `torch` and `transformers`; `scripts/setup-test-peers` installs them.
Nothing is downloaded: the tokenizer the collator needs is written to a temporary directory.
"""

import argparse
import contextlib
import json
import math
import os
import platform
import resource
import statistics
import sys
import tempfile
import time

PROG = "hf_train_step.py"
SETUP_HINT = "scripts/setup-test-peers installs them"


def die(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(1)


try:
    import torch
except ImportError as e:
    die(f"needs the Python package torch ({e}); {SETUP_HINT}")
try:
    import transformers
    from transformers import BertConfig, BertForMaskedLM, ModernBertConfig, ModernBertForMaskedLM
except ImportError as e:
    die(f"needs the Python package transformers ({e}); {SETUP_HINT}")

SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]  # ids 0..4, as bertpt's tokenizer
MASK_ID = 4
FIRST_ORDINARY_ID = len(SPECIAL_TOKENS)
IGNORE_INDEX = -100  # the collator's label for positions not predicted
PHASES = ("step.forward", "step.backward", "step.optimizer")  # --profile's ranges (bench/profile_step.py)
COMPILE_MIN_WARMUP = 2  # --compile: the first warm-up step compiles, the second recompiles for dynamic shapes


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Time a stock transformers BertForMaskedLM training step (bertpt's benchmark peer); prints JSON.",
    )
    p.add_argument("--config", required=True, help="a Hugging Face BERT config.json (e.g. configs/bert-base.json)")
    p.add_argument("--vocab-size", type=int, default=32000,
                   help="overrides the config's vocab_size (default 32000, bertpt bench's synthetic vocabulary)")
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--steps", type=int, default=10, help="timed steps")
    p.add_argument("--warmup-steps", type=int, default=3, help="untimed steps before them")
    default_device = "cuda" if torch.cuda.is_available() else "cpu"
    p.add_argument("--device", choices=["cpu", "cuda"], default=default_device,
                   help=f"default: cuda when available, else cpu (here: {default_device})")
    p.add_argument("--precision", choices=["bf16", "fp32"], default="bf16",
                   help="bf16: torch.autocast(bfloat16) over fp32 weights; fp32: no autocast")
    p.add_argument("--threads", type=int, default=None, help="CPU threads (torch.set_num_threads); default: torch's")
    p.add_argument("--mlm-probability", type=float, default=0.15)
    p.add_argument("--padding", type=float, default=0.0,
                   help="padded batches, bertpt bench's rule: row r of B ends in floor(F*T*r/(B-1)) pad tokens")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--attn-implementation", default="sdpa", help="sdpa (default, the guide's) or eager")
    p.add_argument("--peak-tflops", type=float, default=None,
                   help="the device's peak TFLOP/s for this precision; adds \"mfu\" to the output")
    p.add_argument("--sparse-head", action="store_true",
                   help="the MLM head only on the masked rows (labels != -100), as the models' authors train them: "
                        "ModernBERT's sparse_prediction=True; BERT through model.bert + model.cls on the kept rows "
                        "(default: off, HF's dense head on every position)")
    p.add_argument("--compile", action="store_true",
                   help=f"torch.compile the forward + loss (default mode); compiles in the untimed warm-up, which is "
                        f"then at least {COMPILE_MIN_WARMUP} steps (default: off, eager)")
    p.add_argument("--profile", metavar="FILE", default=None,
                   help="after the warm-up, one more step under torch.profiler (CPU), its chrome trace written to "
                        "FILE (bench/profile_step.py reads it); the timed steps follow it (default: none)")
    a = p.parse_args(argv)
    if a.steps < 1 or a.warmup_steps < 0:
        p.error("--steps must be at least 1 and --warmup-steps at least 0")
    if a.seq_len < 1 or a.batch_size < 1:
        p.error("--seq-len and --batch-size must be positive")
    if a.vocab_size <= FIRST_ORDINARY_ID + 1:
        p.error(f"--vocab-size must be more than {FIRST_ORDINARY_ID + 1}")
    if a.threads is not None and a.threads < 1:
        p.error("--threads must be at least 1")
    if not 0.0 <= a.mlm_probability <= 1.0:
        p.error("--mlm-probability must be in [0, 1]")
    if a.peak_tflops is not None and a.peak_tflops <= 0:
        p.error("--peak-tflops must be positive")
    return a


def cpu_model_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def build_config(path, vocab_size, attn_implementation):
    """A BertConfig, or a ModernBertConfig when the file's model_type is "modernbert"."""
    if not os.path.isfile(path):
        die(f"--config {path}: no such file")
    try:
        with open(path) as f:
            modern = json.load(f).get("model_type") == "modernbert"
        config = (ModernBertConfig if modern else BertConfig).from_json_file(path)
    except Exception as e:  # malformed JSON or fields the config class rejects
        die(f"--config {path}: not a BERT or ModernBERT config.json ({e})")
    config.vocab_size = vocab_size
    # transformers 4.x: BertForMaskedLM.__init__(config) takes no attn_implementation keyword, so the
    # choice goes on the config (a property with a setter in 4.36+ and 5.x), and PreTrainedModel's
    # __init__ validates it (it falls back or raises when the choice is not supported).
    config._attn_implementation = attn_implementation
    return config


def build_model(config, sparse_head):
    """The stock MaskedLM model for `config`. With `sparse_head`, a ModernBERT gets its config's own
    sparse_prediction=True (its forward then runs the head on the rows labelled other than
    sparse_pred_ignore_index only); BERT has no such flag: make_loss_fn does it for BERT."""
    if config.model_type == "modernbert":
        config.sparse_prediction = bool(sparse_head)
        config.sparse_pred_ignore_index = IGNORE_INDEX
        return ModernBertForMaskedLM(config)
    return BertForMaskedLM(config)


def bert_sparse_mlm_loss(model, input_ids, attention_mask, labels):
    """A BertForMaskedLM's MLM loss with the head on the labelled rows only, through its public
    modules: the encoder, then model.cls (transform + tied decoder) on the hidden states of the
    positions whose label is not -100, then cross-entropy against those labels (the mean over the
    same positions as the dense head's CrossEntropyLoss, which ignores -100)."""
    hidden = model.bert(input_ids, attention_mask=attention_mask, return_dict=True).last_hidden_state
    flat_labels = labels.reshape(-1)
    keep = flat_labels != IGNORE_INDEX
    rows = hidden.reshape(-1, hidden.shape[-1])[keep]
    scores = model.cls(rows)
    return torch.nn.functional.cross_entropy(scores.view(-1, model.config.vocab_size), flat_labels[keep])


def make_loss_fn(model, sparse_head):
    """loss(input_ids, attention_mask, labels) -> the scalar MLM loss of one forward. Dense: the stock
    model's own loss. Sparse: ModernBERT's own (built with sparse_prediction=True by build_model), BERT's
    through bert_sparse_mlm_loss."""
    if sparse_head and model.config.model_type != "modernbert":
        return lambda input_ids, attention_mask, labels: bert_sparse_mlm_loss(model, input_ids, attention_mask, labels)
    if model.config.model_type == "modernbert" and bool(getattr(model, "sparse_prediction", False)) != bool(sparse_head):
        raise RuntimeError(f"ModernBertForMaskedLM built with sparse_prediction={model.sparse_prediction}, want {sparse_head}")

    def loss(input_ids, attention_mask, labels):
        return model(input_ids=input_ids, attention_mask=attention_mask, labels=labels).loss

    return loss


def variant_name(sparse_head, compiled):
    return "+".join(n for n, on in (("sparse", sparse_head), ("compiled", compiled)) if on) or "stock"


def error_cause(e):
    """One line naming the innermost cause of `e` (torch.compile wraps the backend's exception)."""
    while True:
        inner = getattr(e, "inner_exception", None) or e.__cause__
        if inner is None or inner is e:
            break
        e = inner
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    text = lines[0] if lines else "(no message)"
    return f"{type(e).__name__}: {text[:400]}"


def make_tokenizer(vocab_size, tmpdir):
    """A BertTokenizerFast over a vocab.txt with [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 [MASK]=4 and filler
    tokens up to vocab_size, so that DataCollatorForLanguageModeling can run with no hub download."""
    path = os.path.join(tmpdir, "vocab.txt")
    with open(path, "w") as f:
        for tok in SPECIAL_TOKENS:
            f.write(tok + "\n")
        for i in range(FIRST_ORDINARY_ID, vocab_size):
            f.write(f"tok{i}\n")
    try:
        from transformers import BertTokenizerFast as Tok
    except ImportError:  # a transformers without the Fast alias
        from transformers import BertTokenizer as Tok
    import inspect
    if "vocab" in inspect.signature(Tok.__init__).parameters:  # transformers 5: vocab= (a dict), no vocab_file
        with open(path) as f:
            tok = Tok(vocab={line.rstrip("\n"): i for i, line in enumerate(f)}, do_lower_case=False)
    else:
        tok = Tok(vocab_file=path, do_lower_case=False)
    ids = tok.convert_tokens_to_ids(SPECIAL_TOKENS)
    if ids != list(range(FIRST_ORDINARY_ID)) or len(tok) != vocab_size or tok.mask_token_id != MASK_ID:
        raise RuntimeError(f"tokenizer built with special ids {ids} and {len(tok)} tokens, want 0..4 and {vocab_size}")
    return tok


def mask_tokens_torch(input_ids, vocab_size, p):
    """DataCollatorForLanguageModeling.torch_mask_tokens's rules, for when the real collator cannot be
    built: no special tokens in the input, so every position may be chosen."""
    labels = input_ids.clone()
    masked = torch.bernoulli(torch.full(labels.shape, p)).bool()
    labels[~masked] = -100
    replaced = torch.bernoulli(torch.full(labels.shape, 0.8)).bool() & masked
    input_ids[replaced] = MASK_ID
    randomized = torch.bernoulli(torch.full(labels.shape, 0.5)).bool() & masked & ~replaced
    words = torch.randint(vocab_size, labels.shape, dtype=torch.long)
    input_ids[randomized] = words[randomized]
    return input_ids, labels


def make_batches(n, batch, seq_len, vocab_size, mlm_probability):
    """n MLM batches: random token ids in [5, vocab) and labels by DataCollatorForLanguageModeling.
    Returns (batches, collator name)."""
    def raw():
        return torch.randint(FIRST_ORDINARY_ID, vocab_size, (batch, seq_len), dtype=torch.long)

    collator = None
    why = None
    with tempfile.TemporaryDirectory(prefix="hf_train_step.") as tmp:
        try:
            from transformers import DataCollatorForLanguageModeling
            tok = make_tokenizer(vocab_size, tmp)
            collator = DataCollatorForLanguageModeling(tokenizer=tok, mlm=True, mlm_probability=mlm_probability)
        except Exception as e:
            why = f"{type(e).__name__}: {e}"
        out = []
        for _ in range(n):
            ids = raw()
            if collator is not None:
                # As run_mlm's tokenized dataset hands them over: ids, attention mask, special-tokens mask.
                examples = [
                    {"input_ids": row, "attention_mask": [1] * seq_len, "special_tokens_mask": [0] * seq_len}
                    for row in ids.tolist()
                ]
                b = collator(examples)
                out.append({"input_ids": b["input_ids"], "attention_mask": b["attention_mask"], "labels": b["labels"]})
            else:
                ids, labels = mask_tokens_torch(ids, vocab_size, mlm_probability)
                out.append({"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": labels})
    if collator is not None:
        return out, "transformers.DataCollatorForLanguageModeling"
    print(f"{PROG}: DataCollatorForLanguageModeling unusable ({why}); using the same rules in torch", file=sys.stderr)
    return out, "torch (DataCollatorForLanguageModeling's rules)"


def pad_tails(b, padding):
    """bertpt bench --padding's rule (src/mlm/bench.cc): row r of B ends in int(padding*T*r/(B-1)) pad
    tokens (id 0), unattended and unlabelled."""
    rows, seq_len = b["input_ids"].shape
    for r in range(rows):
        pad = int(padding * seq_len * r / max(rows - 1, 1))
        if pad:
            b["input_ids"][r, seq_len - pad:] = 0
            b["attention_mask"][r, seq_len - pad:] = 0
            b["labels"][r, seq_len - pad:] = -100


def trainer_param_groups(model, weight_decay):
    """HF Trainer.create_optimizer's groups: decay for all but biases and LayerNorm weights."""
    try:
        from transformers.trainer_pt_utils import get_parameter_names

        forbidden = [r"bias", r"layernorm", r"rmsnorm", r"(?:^|\.)norm(?:$|\.)", r"_norm(?:$|\.)"]
        decay = set(get_parameter_names(model, [torch.nn.LayerNorm], forbidden))
    except Exception:  # the same rule by hand
        norm_params = {id(p) for m in model.modules() if isinstance(m, torch.nn.LayerNorm) for p in m.parameters()}
        decay = {n for n, p in model.named_parameters() if "bias" not in n and id(p) not in norm_params}
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    return [
        {"params": [p for n, p in named if n in decay], "weight_decay": weight_decay},
        {"params": [p for n, p in named if n not in decay], "weight_decay": 0.0},
    ]


def make_optimizer(model):
    kw = dict(lr=5e-5, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)
    try:
        return torch.optim.AdamW(trainer_param_groups(model, 0.0), fused=True, **kw), "fused"
    except (RuntimeError, ValueError, TypeError) as e:
        print(f"{PROG}: fused AdamW unavailable here ({e}); using foreach", file=sys.stderr)
        return torch.optim.AdamW(trainer_param_groups(model, 0.0), foreach=True, **kw), "foreach"


def mean_keys(seq_len, half_window):
    """Keys per query of a sliding-window layer, averaged over the positions (src/perf/flops.cc)."""
    if half_window >= seq_len - 1:
        return seq_len
    return (2 * half_window + 1) - half_window * (half_window + 1) / seq_len


def train_matmul_flops(config, batch, seq_len, predicted=None):
    """bertpt's formula (src/perf/flops.h, BertFlops::train_flops):
    6 * N_encoder * tokens + 12 * H * keys * tokens + 6 * N_head * predicted, N_encoder =
    L * (4*H*H + 2*H*I), N_head = H*H + V*H (the head's transform and decoder), keys = L * T for BERT;
    ModernBERT's GeGLU MLP has 3 * H * I weights per layer and its sliding-window layers attend to
    about local_attention + 1 keys. `predicted`: the positions through the MLM head, None for every
    position (the dense head; bertpt's train_flops_dense_head)."""
    L, H, I, V = config.num_hidden_layers, config.hidden_size, config.intermediate_size, config.vocab_size
    modern = config.model_type == "modernbert"
    n_encoder = L * (4 * H * H + (3 if modern else 2) * H * I)
    n_head = H * H + V * H
    keys = L * seq_len
    if modern:
        sliding = sum(t == "sliding_attention" for t in config.layer_types)
        keys = (L - sliding) * seq_len + sliding * mean_keys(seq_len, config.local_attention // 2)
    tokens = batch * seq_len
    if predicted is None:
        predicted = tokens
    return 6 * n_encoder * tokens + 12 * H * keys * tokens + 6 * n_head * predicted


def profile_step(step, batch, path):
    """`step(batch, phase)` once under torch.profiler (CPU activities, no shapes), its parts in
    record_function ranges (PHASES); the chrome trace is written to `path`."""
    from torch.profiler import ProfilerActivity, profile, record_function

    try:
        with profile(activities=[ProfilerActivity.CPU], record_shapes=False) as prof:
            step(batch, record_function)
        prof.export_chrome_trace(path)
    except (OSError, RuntimeError) as e:
        die(f"--profile {path}: {e}")
    print(f"{PROG}: --profile: one step's trace written to {path}", file=sys.stderr)


def main(argv=None):
    a = parse_args(argv)
    if a.device == "cuda" and not torch.cuda.is_available():
        die("--device cuda: torch sees no CUDA device (torch " + torch.__version__ + ")")
    if a.threads is not None:
        torch.set_num_threads(a.threads)
    device = torch.device(a.device)
    bf16 = a.precision == "bf16"

    config = build_config(a.config, a.vocab_size, a.attn_implementation)
    if a.seq_len > config.max_position_embeddings:
        die(f"--seq-len {a.seq_len} is more than the model's max_position_embeddings {config.max_position_embeddings}")

    torch.manual_seed(a.seed)
    if a.device == "cuda":
        torch.cuda.manual_seed_all(a.seed)
    try:
        model = build_model(config, a.sparse_head)
    except (ValueError, ImportError) as e:
        die(f"{config.model_type} MaskedLM with attn_implementation={a.attn_implementation!r}: {e}")
    model.to(device)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    opt, opt_kind = make_optimizer(model)

    warmup_steps = a.warmup_steps
    if a.compile and warmup_steps < COMPILE_MIN_WARMUP:
        print(f"{PROG}: --compile: {COMPILE_MIN_WARMUP} warm-up steps instead of {a.warmup_steps} (compiling happens "
              "in them)", file=sys.stderr)
        warmup_steps = COMPILE_MIN_WARMUP
    total = warmup_steps + a.steps
    batches, collator_name = make_batches(total, a.batch_size, a.seq_len, config.vocab_size, a.mlm_probability)
    if not 0 <= a.padding < 1:
        die(f"--padding {a.padding} is outside [0, 1)")
    for b in batches:
        pad_tails(b, a.padding)
    batches = [{k: v.to(device, non_blocking=False) for k, v in b.items()} for b in batches]
    masked_per_step = statistics.mean(float((b["labels"] != -100).sum()) for b in batches)

    loss_fn = make_loss_fn(model, a.sparse_head)
    if a.compile and a.profile:
        import torch._inductor.config as inductor_config
        inductor_config.cpp.enable_kernel_profile = True  # each cpp_fused_* kernel a range in the trace
    if a.compile:
        try:
            loss_fn = torch.compile(loss_fn)  # default mode; the graphs compile at the first calls
        except Exception as e:
            die(f"--compile: torch.compile failed ({error_cause(e)})")

    def step(b, phase=contextlib.nullcontext):  # phase: record_function under --profile
        forward, backward, optimizer = PHASES
        with phase(forward), torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
            loss = loss_fn(b["input_ids"], b["attention_mask"], b["labels"])
        with phase(backward):
            loss.backward()
        with phase(optimizer):
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
        return loss

    cuda = a.device == "cuda"
    if cuda:
        torch.cuda.reset_peak_memory_stats(device)

    def dynamo_counts():
        if not a.compile:
            return {}
        from torch._dynamo.utils import counters
        return {"graphs": int(counters["stats"]["unique_graphs"]),
                "graph_breaks": int(sum(counters["graph_break"].values()))}

    w0 = time.perf_counter()
    try:
        for b in batches[:warmup_steps]:
            step(b)
        if cuda:
            torch.cuda.synchronize(device)
    except Exception as e:
        if not a.compile:
            raise
        die(f"--compile: torch.compile failed in the warm-up steps ({error_cause(e)})")
    warmup_time = time.perf_counter() - w0
    if a.profile:
        profile_step(step, batches[warmup_steps], a.profile)
    compiled_before = dynamo_counts()

    # Per-step times: CUDA events on the GPU (no host synchronization inside the loop beyond what
    # the step itself does), wall clock on the CPU. The loop as a whole is bracketed by synchronize.
    losses = []
    times = []
    if cuda:
        torch.cuda.synchronize(device)
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(a.steps)]
    t0 = time.perf_counter()
    for i, b in enumerate(batches[warmup_steps:]):
        if cuda:
            events[i][0].record()
            losses.append(step(b))
            events[i][1].record()
        else:
            s = time.perf_counter()
            losses.append(step(b))
            times.append(time.perf_counter() - s)
    if cuda:
        torch.cuda.synchronize(device)
    wall = time.perf_counter() - t0
    if cuda:
        times = [s.elapsed_time(e) / 1000.0 for s, e in events]
    final_loss = float(losses[-1].detach().float().cpu())
    compiled_after = dynamo_counts()
    recompiled = compiled_after.get("graphs", 0) - compiled_before.get("graphs", 0)
    if recompiled:
        print(f"{PROG}: --compile: {recompiled} graph(s) compiled during the timed steps; their times include it "
              "(more --warmup-steps avoid it)", file=sys.stderr)

    step_time = statistics.median(times)
    # The MLM head's rows: every position for the dense head; the labelled ones (the mean over the
    # batches) for the sparse head, as bertpt bench counts its own sparse head.
    head_rows = masked_per_step if a.sparse_head else a.batch_size * a.seq_len
    flops = train_matmul_flops(config, a.batch_size, a.seq_len, head_rows)
    achieved = flops / step_time
    if cuda:
        peak_mem = int(torch.cuda.max_memory_allocated(device))
        device_name = torch.cuda.get_device_name(device)
    else:
        peak_mem = int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024  # Linux reports KiB
        device_name = cpu_model_name()

    out = {
        "peer": f"transformers {type(model).__name__}",
        "variant": variant_name(a.sparse_head, a.compile),
        "sparse_head": a.sparse_head,
        "mlm_head": ("sparse: " + ("ModernBertForMaskedLM's sparse_prediction=True" if config.model_type == "modernbert"
                                   else "model.cls on model.bert's labelled rows (boolean indexing)")
                     + ", labels != -100 only") if a.sparse_head else "dense: every position (the stock forward)",
        "compile": a.compile,
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "device": a.device,
        "device_name": device_name,
        "precision": a.precision,
        "config": a.config,
        "layers": config.num_hidden_layers,
        "hidden": config.hidden_size,
        "intermediate": config.intermediate_size,
        "vocab_size": config.vocab_size,
        "parameters": sum(p.numel() for p in params),
        "seq_len": a.seq_len,
        "batch_size": a.batch_size,
        "steps": a.steps,
        "warmup_steps": warmup_steps,
        "warmup_time_sec": warmup_time,
        "threads": torch.get_num_threads(),
        "attn_implementation": model.config._attn_implementation,
        "optimizer": opt_kind,
        "mlm_collator": collator_name,
        "masked_per_step": masked_per_step,
        "padding": a.padding,
        "timing": "median of per-step CUDA event times" if cuda else "median of per-step wall times",
        "step_time_sec": step_time,
        "step_time_min_sec": min(times),
        "step_time_max_sec": max(times),
        "step_time_mean_sec": wall / a.steps,  # the synchronized loop's wall time / steps
        "sequences_per_sec": a.batch_size / step_time,
        "tokens_per_sec": a.batch_size * a.seq_len / step_time,
        "peak_memory_bytes": peak_mem,
        "peak_memory_kind": "torch.cuda.max_memory_allocated" if cuda else "process peak RSS (getrusage ru_maxrss)",
        "loss": final_loss,
        "train_flops_per_step": flops,
        "tflops_per_sec": achieved / 1e12,
        "mlm_head_rows_per_step": head_rows,
        "flops_note": (
            "bertpt's formula (src/perf/flops.h): 6 * N_encoder * tokens + 12 * H * keys * tokens + 6 * (H*H + V*H) "
            "* head_rows, N_encoder = layers * (4*H*H + 2*H*I) (ModernBERT 3*H*I), keys = layers * seq_len (ModernBERT's "
            "sliding-window layers about local_attention + 1); the MLM head (transform H*H + decoder V*H) is counted "
            + ("at the masked positions only (mlm_head_rows_per_step, the mean over the batches), as bertpt counts its "
               "sparse head, since --sparse-head computes it there only" if a.sparse_head else
               "at every position because HF's stock forward computes it densely on all positions (bertpt's sparse "
               "head only at the masked ones)")
        ),
    }
    if a.compile:
        out["torch_compile"] = {
            "mode": "default",
            "backend": "inductor",
            "compiled": "the forward + MLM loss (torch.compile of the loss function; the backward through AOTAutograd)",
            "warmup_steps_requested": a.warmup_steps,
            "warmup_note": (f"compiling happens in the untimed warm-up steps, at least {COMPILE_MIN_WARMUP} when compiling "
                            "(warmup_time_sec includes it)"),
            "graphs_after_warmup": compiled_before.get("graphs"),
            "graphs_compiled_in_timed_steps": recompiled,
            "graph_breaks": compiled_after.get("graph_breaks"),
        }
    if a.profile:
        out["profile_trace"] = a.profile
    if cuda:
        out["float32_matmul_precision"] = torch.get_float32_matmul_precision()
    if a.peak_tflops is not None:
        out["peak_tflops"] = a.peak_tflops
        out["mfu"] = achieved / (a.peak_tflops * 1e12)
    print(json.dumps(out, indent=2))
    if not math.isfinite(final_loss):
        print(f"{PROG}: the final loss is not finite ({final_loss})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
