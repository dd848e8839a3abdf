#!/usr/bin/env python3
"""The Hugging Face side of bench/peers.sh, rows "training", "eval", "resume" and "pipeline": the
guide's training stack — transformers.Trainer + DataCollatorForLanguageModeling(mlm_probability=
0.15) over BertForMaskedLM — on CPU.

Data (one of):
  --bertpt-data DIR   the packed blocks `bertpt prepare` wrote (memory-mapped shards read with numpy,
                      docs/data-format.md): the very sequences `bertpt train` trains on. Each item is
                      {"input_ids", "special_tokens_mask"} — the mask marks [CLS]/[SEP]/[PAD], what
                      the guide's tokenizer(..., return_special_tokens_mask=True) marks — so the
                      collator masks exactly the positions bertpt may mask.
  --hf-data DIR       blocks written by hf_prepare.py --save-to-disk (datasets.load_from_disk).

Model: BertForMaskedLM(BertConfig.from_json_file(CONFIG)) with vocab_size set to the data's, e.g.
configs/bert-mini.json — the same file bertpt's preset is (src/model/bert_config.cc; a test there
checks they agree). Trainer options mirror `bertpt train`'s: AdamW (the Trainer's default,
adamw_torch_fused) with betas (0.9, 0.999), eps 1e-8, the given weight decay (not on biases and
LayerNorm weights, as in both), linear warmup + decay, clipping at 1.0, --seed (default 34, bertpt's
default: the model's initial weights via torch.manual_seed, and TrainingArguments(seed, data_seed):
sample order, masks, dropout), bf16 autocast (bf16=True) or fp32, CPU, torch.set_num_threads(--threads).
--no-checkpoint saves no checkpoint at all (save_strategy="no"; trainer_state.json is still written).

A wall-clock budget (bench/time-to-quality.sh):
  --time-limit SEC  TimeLimit callback: at the end of the first optimizer step that finishes SEC seconds
                    or more after this process started, training stops (control.should_training_stop);
                    the learning-rate schedule is still the one of --max-steps. The result JSON says
                    whether the limit stopped the run ("stopped_by_time_limit") and at which step.
  --save-final DIR  after training, model.save_pretrained(DIR) and tokenizer.save_pretrained(DIR): a
                    transformers directory that `bertpt eval` and `bertpt finetune` load.

The peer's best configuration (row 3's second HF arm; stock when neither option is given):
  --sparse-head  SparseHeadTrainer: the MLM head on the masked rows only, through BertForMaskedLM's
                 public modules as bench/hf_train_step.py --sparse-head does — model.bert(...) on the
                 batch the collator made, the hidden states of the positions whose label is not -100,
                 model.cls (transform + tied decoder) on those rows only, cross-entropy against their
                 labels: the stock dense head's loss (bench/peers/check_sparse_head.py checks it), with
                 the head's work on the ~15% masked positions. Model, collator, data, options and seed
                 are the stock arm's.
  --compile      (with --sparse-head) torch.compile, inductor, default mode: the encoder model.bert in
                 place (nn.Module.compile(): the checkpoints keep the stock parameter names) and the
                 head + cross-entropy as one compiled function whose row count is marked dynamic; the
                 gather of the masked rows between them runs eagerly. Both compile in the first step;
                 the result JSON records the graphs compiled and the graph breaks (torch._dynamo's
                 counters). A failed compile exits 1 with one line on stderr.

Timing: a callback records the wall clock at train begin and at every logging step; the result JSON
holds them, with Trainer's own train metrics, the final loss, trainer.evaluate()'s runtime (--eval),
and every logged record. --marker FILE gets one JSON line per finished optimizer step ({"step",
"loss": null, "time"}): bench/peers/measure.py --watch reads it to time the first step after a
resume. trainer.save_state() writes OUTPUT_DIR/trainer_state.json (for `bertpt plot`).
"""

import argparse
import json
import os
import sys
import time

T_START = time.perf_counter()
T_START_WALL = time.time()

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import (  # noqa: E402
    AutoTokenizer,
    BertConfig,
    BertForMaskedLM,
    DataCollatorForLanguageModeling,
    Trainer,
    TrainerCallback,
    TrainingArguments,
)

HEADER = 64  # bytes before the ids in a bertpt shard
IGNORE_INDEX = -100  # the collator's label for positions not predicted
PROG = "hf_train.py"


class BertptBlocks(torch.utils.data.Dataset):
    """One split of a bertpt dataset: rows of seq_len ids, memory-mapped."""

    def __init__(self, data_dir, split):
        with open(os.path.join(data_dir, "manifest.json")) as f:
            self.manifest = json.load(f)
        dtype = {"uint16": np.uint16, "uint32": np.uint32}[self.manifest["dtype"]]
        self.seq_len = self.manifest["seq_len"]
        special = self.manifest["special_ids"]
        self.special = np.array([special["cls"], special["sep"], special["pad"]], dtype=np.int64)
        self.shards = []
        for shard in self.manifest["splits"][split]["shards"]:
            m = np.memmap(os.path.join(data_dir, shard["file"]), dtype=dtype, mode="r", offset=HEADER)
            m = m.reshape(-1, self.seq_len)
            assert m.shape[0] == shard["rows"], (shard, m.shape)
            self.shards.append(m)
        self.offsets = np.cumsum([0] + [s.shape[0] for s in self.shards])

    def __len__(self):
        return int(self.offsets[-1])

    def __getitem__(self, i):
        k = int(np.searchsorted(self.offsets, i, side="right")) - 1
        ids = self.shards[k][i - self.offsets[k]].astype(np.int64)
        return {"input_ids": torch.from_numpy(ids),
                "special_tokens_mask": torch.from_numpy(np.isin(ids, self.special).astype(np.int64))}


class Clock(TrainerCallback):
    def __init__(self):
        self.t_train_begin = None
        self.t_step_end = {}
        self.logs = []

    def on_train_begin(self, args, state, control, **kw):
        self.t_train_begin = time.time()

    def on_step_end(self, args, state, control, **kw):
        self.t_step_end[state.global_step] = time.time()

    def on_log(self, args, state, control, logs=None, **kw):
        now = time.time()
        rec = dict(logs or {})
        rec["step"] = state.global_step
        rec["time"] = now
        self.logs.append(rec)


class FirstStepMarker(TrainerCallback):
    """Writes every finished step to the marker file right away (for the resume timing)."""

    def __init__(self, marker):
        self.marker = open(marker, "a")

    def on_step_end(self, args, state, control, **kw):
        self.marker.write(json.dumps({"step": state.global_step, "loss": None, "time": time.time()}) + "\n")
        self.marker.flush()


class TimeLimit(TrainerCallback):
    """Stops training at the end of the first step finished --time-limit seconds after process start."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.stopped_at = None

    def on_step_end(self, args, state, control, **kw):
        if self.stopped_at is None and time.perf_counter() - T_START >= self.seconds:
            self.stopped_at = state.global_step
            control.should_training_stop = True


class SparseHeadTrainer(Trainer):
    """A Trainer whose loss runs the MLM head on the masked rows only (see the module doc). The loss
    is this batch's mean over its masked positions, as the stock head's."""

    loss_is_scaled_for_ga = False  # a per-batch mean: the Trainer divides by the accumulation steps

    def __init__(self, *args, compiled=False, **kw):
        super().__init__(*args, **kw)
        cls = self.model.cls

        def head_loss(rows, targets):
            return torch.nn.functional.cross_entropy(cls(rows), targets)

        self.compiled = compiled
        self.head_loss = head_loss
        if compiled:
            self.model.bert.compile()
            self.head_loss = torch.compile(head_loss)

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        if return_outputs:
            raise NotImplementedError(f"{PROG}: --sparse-head computes the training loss only (no evaluate())")
        # accelerate puts bf16 autocast around model.forward only; this loss does not call forward.
        with self.accelerator.autocast():
            labels = inputs["labels"].reshape(-1)
            hidden = model.bert(**{k: v for k, v in inputs.items() if k != "labels"}).last_hidden_state
            keep = labels != IGNORE_INDEX
            rows, targets = hidden.reshape(-1, hidden.shape[-1])[keep], labels[keep]
            if self.compiled:  # the masked-row count changes from batch to batch: one graph for all
                torch._dynamo.mark_dynamic(rows, 0)
                torch._dynamo.mark_dynamic(targets, 0)
            return self.head_loss(rows, targets)


def dynamo_counts():
    """Graphs compiled and graph breaks so far (torch._dynamo's counters)."""
    from torch._dynamo.utils import counters
    return {"graphs": int(counters["stats"]["unique_graphs"]),
            "graph_breaks": int(sum(counters["graph_break"].values()))}


def error_cause(e):
    """One line naming the innermost cause of `e` (torch.compile wraps the backend's exception)."""
    while (inner := getattr(e, "inner_exception", None) or e.__cause__) is not None and inner is not e:
        e = inner
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return f"{type(e).__name__}: {(lines[0] if lines else '(no message)')[:400]}"


def main():
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--bertpt-data")
    g.add_argument("--hf-data")
    ap.add_argument("--tokenizer", help="for --hf-data (the bertpt dataset carries its own)")
    ap.add_argument("--config", required=True, help="BERT config.json, e.g. configs/bert-mini.json")
    ap.add_argument("--output-dir", required=True)
    ap.add_argument("--precision", choices=["fp32", "bf16"], default="bf16")
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--max-steps", type=int, required=True)
    ap.add_argument("--learning-rate", type=float, default=5e-4)
    ap.add_argument("--warmup-steps", type=int, default=0)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--logging-steps", type=int, default=10)
    ap.add_argument("--save-steps", type=int, default=0, help="0: one checkpoint at the end")
    ap.add_argument("--no-checkpoint", action="store_true", help="no checkpoint at all (save_strategy=\"no\")")
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--eval", action="store_true", help="trainer.evaluate() on the valid split after training")
    ap.add_argument("--resume", action="store_true", help="resume_from_checkpoint=True (the latest in --output-dir)")
    ap.add_argument("--marker", help="JSON lines, one per finished step (see the module doc)")
    ap.add_argument("--time-limit", type=float, help="stop after the first step that ends SEC seconds after start")
    ap.add_argument("--save-final", help="save_pretrained the model and tokenizer here after training")
    ap.add_argument("--sparse-head", action="store_true", help="the MLM head on the masked rows only (module doc)")
    ap.add_argument("--compile", action="store_true", help="with --sparse-head: torch.compile the encoder and the head")
    ap.add_argument("--result", required=True)
    a = ap.parse_args()
    if a.compile and not a.sparse_head:
        ap.error("--compile goes with --sparse-head (the peer's best configuration)")
    if a.sparse_head and a.eval:
        ap.error("--sparse-head measures training only: no --eval")

    torch.set_num_threads(a.threads)
    t_imported = time.perf_counter()

    if a.bertpt_data:
        train = BertptBlocks(a.bertpt_data, "train")
        valid = BertptBlocks(a.bertpt_data, "valid")
        seq_len = train.seq_len
        tokenizer = AutoTokenizer.from_pretrained(os.path.join(a.bertpt_data, "tokenizer"))
        vocab_size = train.manifest["vocab_size"]
    else:
        from datasets import load_from_disk
        train = load_from_disk(a.hf_data)
        valid = None
        seq_len = len(train[0]["input_ids"])
        tokenizer = AutoTokenizer.from_pretrained(a.tokenizer)
        vocab_size = len(tokenizer)
    if a.eval and (valid is None or len(valid) == 0):
        raise SystemExit("hf_train.py: --eval needs a bertpt dataset with a valid split")

    config = BertConfig.from_json_file(a.config)
    config.vocab_size = vocab_size
    torch.manual_seed(a.seed)
    model = BertForMaskedLM(config)
    collator = DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm=True, mlm_probability=0.15)

    args = TrainingArguments(
        output_dir=a.output_dir,
        max_steps=a.max_steps,
        per_device_train_batch_size=a.batch,
        per_device_eval_batch_size=a.batch,
        learning_rate=a.learning_rate,
        warmup_steps=a.warmup_steps,
        lr_scheduler_type="linear",
        weight_decay=a.weight_decay,
        adam_beta1=0.9, adam_beta2=0.999, adam_epsilon=1e-8,
        max_grad_norm=1.0,
        bf16=a.precision == "bf16",
        use_cpu=True,
        seed=a.seed,
        data_seed=a.seed,
        logging_steps=a.logging_steps,
        save_strategy="no" if a.no_checkpoint else "steps",
        save_steps=a.save_steps if a.save_steps > 0 else a.max_steps,
        save_total_limit=2,
        eval_strategy="no",
        report_to="none",
        disable_tqdm=True,
        dataloader_num_workers=0,
    )
    clock = Clock()
    callbacks = [clock] + ([FirstStepMarker(a.marker)] if a.marker else [])
    time_limit = TimeLimit(a.time_limit) if a.time_limit is not None else None
    if time_limit:
        callbacks.append(time_limit)
    kw = dict(model=model, args=args, data_collator=collator, train_dataset=train,
              eval_dataset=valid if a.eval else None, callbacks=callbacks)
    trainer = SparseHeadTrainer(compiled=a.compile, **kw) if a.sparse_head else Trainer(**kw)
    t_ready = time.perf_counter()
    try:
        out = trainer.train(resume_from_checkpoint=True if a.resume else None)
    except Exception as e:
        if not a.compile:
            raise
        sys.exit(f"{PROG}: --compile: torch.compile failed ({error_cause(e)})")
    t_trained = time.perf_counter()
    if a.save_final:
        model.save_pretrained(a.save_final)
        tokenizer.save_pretrained(a.save_final)
    t_saved = time.perf_counter()

    logs = [r for r in clock.logs if "loss" in r]
    result = {
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "optim": str(args.optim),
        "attn_implementation": getattr(model.config, "_attn_implementation", None),
        "threads": torch.get_num_threads(),
        "seq_len": seq_len,
        "batch": a.batch,
        "vocab_size": vocab_size,
        "parameters": sum(p.numel() for p in model.parameters()),
        "train_sequences": len(train),
        "max_steps": a.max_steps,
        "seed": a.seed,
        "variant": "+".join(n for n, on in (("sparse", a.sparse_head), ("compiled", a.compile)) if on) or "stock",
        "import_sec": t_imported - T_START,
        "setup_sec": t_ready - t_imported,
        "train_call_sec": t_trained - t_ready,
        "save_final_sec": t_saved - t_trained,
        "t_start": T_START_WALL,
        "global_step": trainer.state.global_step,
        "stopped_by_time_limit": bool(time_limit and time_limit.stopped_at is not None),
        "train_metrics": out.metrics,
        "t_train_begin": clock.t_train_begin,
        "step_end_times": {str(k): v for k, v in sorted(clock.t_step_end.items())},
        "logs": logs,
        "final_loss": logs[-1]["loss"] if logs else None,
    }
    if a.compile:
        result["dynamo"] = dynamo_counts()
    if a.eval:
        ev = trainer.evaluate()
        result["eval"] = ev
        result["eval_sequences"] = len(valid)
    os.makedirs(a.output_dir, exist_ok=True)  # not made by the Trainer when nothing is saved
    trainer.save_state()  # after evaluate(): its record goes into log_history too
    with open(a.result, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
