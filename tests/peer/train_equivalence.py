#!/usr/bin/env python3
"""Step-for-step equivalence of `bertpt train` (MLM pre-training) with a plain PyTorch loop over
transformers' BertForMaskedLM (--family bert: a WordPiece tokenizer) or RobertaForMaskedLM (--family
roberta: a byte-level BPE tokenizer with <s> </s> <pad>, positions counted from the pad id + 1, the
lm_head with its LayerNorm).

Both start from the same save_pretrained checkpoint of a tiny random BERT (dropout 0, fp32) and see
exactly the same masked batches: bertpt writes every micro-batch with --dump-batches and the Python
loop reads them. The Python side is what the HF Trainer does for one process: torch.optim.AdamW in
the Trainer's two parameter groups (Trainer.get_decay_parameter_names; weight decay 0.1, strong
enough that a LayerNorm weight in the wrong group fails the weight comparison),
transformers.get_linear_schedule_with_warmup with warmup, and torch.nn.utils.clip_grad_norm_ at a
max norm that clips in some steps and not in others. Gradient
accumulation (2 micro-batches) with the loss of the step = cross-entropy summed over the labelled
positions of the whole step / their number: each micro-batch contributes its HF mean loss times its
share of the labelled positions.

Checked: every step's loss and gradient norm within 1e-4 relative (metrics.jsonl, --logging-steps
1), every step's learning rate equal to the schedule's, the final weights (bertpt's last
checkpoint) within 1e-4 (equivalence_lib.compare_weights), and the two final models' MLM logits on
a batch within 1e-4 of their scale.

Usage: train_equivalence.py --bertpt BIN --corpus TEXT --work DIR [--family bert|roberta] [--threads N] [--steps 50]
"""

import argparse
import os
import shutil
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import equivalence_lib as eq  # noqa: E402

RTOL_LOSS = 1e-4
ATOL_WEIGHTS = 1e-4


def initial_model(family, tok, init):
    """Saves a tiny random model of `family` for the tokenizer in `tok` to `init` (dropout 0); returns its
    transformers class."""
    from tokenizers import Tokenizer
    from transformers import BertConfig, BertForMaskedLM, RobertaConfig, RobertaForMaskedLM

    shape = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=256,
                 hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    torch.manual_seed(1234)
    if family == "roberta":
        t = Tokenizer.from_file(os.path.join(tok, "tokenizer.json"))
        pad = t.token_to_id("<pad>")
        eq.check(pad is not None, "the byte-level BPE tokenizer has <pad>")
        # RoBERTa's positions start at pad + 1: 64 tokens need pad + 65 of them.
        config = RobertaConfig(vocab_size=t.get_vocab_size(), max_position_embeddings=pad + 1 + 128,
                               pad_token_id=pad, bos_token_id=t.token_to_id("<s>"), eos_token_id=t.token_to_id("</s>"),
                               type_vocab_size=1, layer_norm_eps=1e-5, **shape)
        RobertaForMaskedLM(config).save_pretrained(init)
        return RobertaForMaskedLM
    with open(os.path.join(tok, "vocab.txt"), encoding="utf-8") as f:
        vocab_size = sum(1 for _ in f)
    BertForMaskedLM(BertConfig(vocab_size=vocab_size, max_position_embeddings=128, **shape)).save_pretrained(init)
    return BertForMaskedLM


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bertpt", required=True)
    ap.add_argument("--corpus", required=True, help="plain text, paragraphs separated by blank lines")
    ap.add_argument("--work", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--learning-rate", type=float, default=1e-3)
    ap.add_argument("--warmup-steps", type=int, default=8)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--max-grad-norm", type=float, default=1.2)
    ap.add_argument("--batch", type=int, default=8, help="per micro-batch")
    ap.add_argument("--grad-accum", type=int, default=2)
    ap.add_argument("--family", choices=["bert", "roberta"], default="bert")
    args = ap.parse_args()
    eq.set_threads(args.threads)

    from safetensors.torch import load_file

    work = os.path.join(args.work, args.family)
    os.makedirs(work, exist_ok=True)
    tok, data, init, run, dump = (os.path.join(work, d) for d in ("tok", "data", "init", "run", "batches"))
    for d in (run, dump):
        shutil.rmtree(d, ignore_errors=True)

    # A small vocabulary and one document per paragraph, packed one document per block: blocks
    # carry [PAD] tails, so the attention mask matters.
    model_flag = ["--model", "bpe"] if args.family == "roberta" else []
    eq.run([args.bertpt, "tokenizer", "train", "-i", args.corpus, "--vocab-size", "2000", "--out", tok,
            "--threads", args.threads, "--quiet"] + model_flag)
    eq.run([args.bertpt, "prepare", "-i", args.corpus, "--doc-per", "paragraph", "--packing", "document",
            "--tokenizer", tok, "--seq-len", "64", "--out", data, "--valid-fraction", "0", "--threads",
            args.threads, "--overwrite", "--quiet"])
    model_class = initial_model(args.family, tok, init)

    eq.run([args.bertpt, "train", "--data", data, "--model", init, "--init-from", init, "--output-dir", run,
            "--overwrite-output-dir", "--precision", "fp32", "--threads", args.threads,
            "--max-steps", args.steps, "--logging-steps", "1", "--save-steps", "0",
            "--per-device-batch-size", args.batch, "--grad-accum", args.grad_accum,
            "--learning-rate", args.learning_rate, "--warmup-steps", args.warmup_steps, "--lr-scheduler", "linear",
            "--weight-decay", args.weight_decay, "--max-grad-norm", args.max_grad_norm,
            "--dump-batches", dump, "--quiet"])
    records = eq.read_metrics(os.path.join(run, "metrics.jsonl"))

    steps = eq.load_dumped_steps(dump, ["input_ids", "attention_mask", "labels"])
    eq.check(len(steps) == args.steps, f"bertpt dumped {len(steps)} steps (expected {args.steps})")
    eq.check(all(len(s) == args.grad_accum for s in steps), f"every step has {args.grad_accum} micro-batches")
    first = steps[0][0]
    eq.check(tuple(first["input_ids"].shape) == (args.batch, 64),
             f"micro-batch shape {tuple(first['input_ids'].shape)} is [batch, seq-len]")
    padded = sum(int((m["attention_mask"] == 0).sum()) for s in steps for m in s)
    eq.check(padded > 0, f"the batches have padding ({padded} [PAD] positions), so the attention mask is exercised")
    labelled_pad = sum(int(((m["attention_mask"] == 0) & (m["labels"] != -100)).sum()) for s in steps for m in s)
    eq.check(labelled_pad == 0, "no labels at [PAD] positions")

    model = model_class.from_pretrained(init, attn_implementation="eager")
    initial = {n: p.detach().clone() for n, p in model.named_parameters()}

    def micro_loss(model, m, step_micro):
        # HF's own loss (mean over the micro-batch's labelled positions) weighted by the micro-batch's
        # share of the step's labelled positions = sum over the step / labelled positions of the step.
        n_step = sum(int((x["labels"] != -100).sum()) for x in step_micro)
        n_micro = int((m["labels"] != -100).sum())
        if n_micro == 0:
            return torch.zeros((), requires_grad=True)
        out = model(input_ids=m["input_ids"], attention_mask=m["attention_mask"], labels=m["labels"])
        return out.loss * (n_micro / n_step)

    py = eq.train_steps(model, steps, micro_loss, args.weight_decay, args.learning_rate, args.warmup_steps,
                        args.steps, args.max_grad_norm)
    worst = eq.compare_steps(records, py, RTOL_LOSS, "train")
    eq.check_clipping(py, records, args.max_grad_norm, "train")
    eq.check(py[-1]["loss"] < py[0]["loss"] - 0.5,
             f"the loss fell during the run ({py[0]['loss']:.3f} -> {py[-1]['loss']:.3f})")
    eq.sanity_moved(initial, model, ATOL_WEIGHTS, "train")
    eq.check_decay_power(model, py, args.weight_decay, ATOL_WEIGHTS, "train")

    final = os.path.join(run, f"checkpoint-{args.steps}")
    bertpt_final = load_file(os.path.join(final, "model.safetensors"))
    w, wname = eq.compare_weights(bertpt_final, model, ATOL_WEIGHTS, "train")

    # The two final models as functions: bertpt's checkpoint loaded by transformers against the
    # Python loop's model, on the first dumped batch.
    theirs = model_class.from_pretrained(final, attn_implementation="eager").eval()
    model.eval()
    with torch.no_grad():
        a = theirs(input_ids=first["input_ids"], attention_mask=first["attention_mask"]).logits
        b = model(input_ids=first["input_ids"], attention_mask=first["attention_mask"]).logits
    logit_dev = ((a - b).abs().max() / b.abs().max()).item()
    eq.check(logit_dev <= 1e-4, f"train: final models' MLM logits within 1e-4 of their scale ({logit_dev:.2e})")
    print(f"train: max deviations: loss {worst['loss'][0]:.2e} (step {worst['loss'][1]}), grad_norm "
          f"{worst['grad_norm'][0]:.2e}, lr {worst['lr'][0]:.2e}, weights {w:.2e} ({wname}), logits {logit_dev:.2e}")
    eq.finish(f"train_equivalence ({args.family})")


if __name__ == "__main__":
    main()
