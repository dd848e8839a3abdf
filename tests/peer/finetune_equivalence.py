#!/usr/bin/env python3
"""Step-for-step equivalence of `bertpt finetune` with a plain PyTorch loop over transformers'
BertForSequenceClassification.

Both start from the same save_pretrained BertForSequenceClassification directory (a tiny random
BERT with its pooler and classifier head; every dropout 0, classifier_dropout included; fp32), so
the head is identical, and see exactly the same batches: bertpt writes every micro-batch with
--dump-batches (input_ids, token_type_ids, attention_mask, labels in bertpt's class ids) and the
Python loop reads them. The Python side is the HF Trainer's for one process: torch.optim.AdamW in
the Trainer's parameter groups (weight decay 0.1), transformers.get_linear_schedule_with_warmup
with the warmup steps TrainingArguments(warmup_steps=RATIO).get_warmup_steps(total) gives for
bertpt's --warmup-ratio, torch.nn.utils.clip_grad_norm_; the loss of a step is HF's mean
cross-entropy over the step's examples (the last batch of an epoch is smaller).

Checked: the class ids (bertpt's config.json id2label is the sorted label set, and the dumped
labels of an epoch have the training file's label counts under it), every step's loss and gradient
norm within 1e-4 relative, the learning rate of every step, the final weights (best/ = the last
epoch without --valid) within 1e-4, and the final models' logits.

Usage: finetune_equivalence.py --bertpt BIN --tokenizer-corpus TEXT --sms SMSSpamCollection --work DIR
"""

import argparse
import collections
import json
import math
import os
import re
import shutil
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import equivalence_lib as eq  # noqa: E402

RTOL_LOSS = 1e-4
ATOL_WEIGHTS = 1e-4


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bertpt", required=True)
    ap.add_argument("--tokenizer-corpus", required=True, help="plain text to train the vocabulary on")
    ap.add_argument("--sms", required=True, help="SMSSpamCollection: label<TAB>text per line")
    ap.add_argument("--work", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--examples", type=int, default=260, help="training examples (the first N lines)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--learning-rate", type=float, default=1e-3)
    ap.add_argument("--warmup-ratio", type=float, default=0.1)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--max-grad-norm", type=float, default=0.6)
    args = ap.parse_args()
    eq.set_threads(args.threads)

    from safetensors.torch import load_file
    from transformers import BertConfig, BertForSequenceClassification, TrainingArguments

    work = args.work
    os.makedirs(work, exist_ok=True)
    tok, init, out, dump = (os.path.join(work, d) for d in ("tok", "init-clf", "clf", "batches"))
    for d in (out, dump):
        shutil.rmtree(d, ignore_errors=True)
    train = os.path.join(work, "sms.jsonl")
    file_labels = []
    with open(args.sms, encoding="utf-8") as f, open(train, "w", encoding="utf-8") as w:
        for line in f:
            label, _, text = line.rstrip("\n").partition("\t")
            if not text.strip():
                continue
            w.write(json.dumps({"text": text, "label": label}) + "\n")
            file_labels.append(label)
            if len(file_labels) == args.examples:
                break
    n = len(file_labels)
    eq.check(n == args.examples and len(set(file_labels)) == 2,
             f"{n} labelled examples, labels {dict(collections.Counter(file_labels))}")

    if not os.path.exists(os.path.join(tok, "vocab.txt")):
        eq.run([args.bertpt, "tokenizer", "train", "-i", args.tokenizer_corpus, "--vocab-size", "2000", "--out", tok,
                "--threads", args.threads, "--quiet"])
    with open(os.path.join(tok, "vocab.txt"), encoding="utf-8") as f:
        vocab_size = sum(1 for _ in f)

    config = BertConfig(vocab_size=vocab_size, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=256, max_position_embeddings=128, hidden_dropout_prob=0.0,
                        attention_probs_dropout_prob=0.0, classifier_dropout=0.0, num_labels=2)
    torch.manual_seed(4321)
    BertForSequenceClassification(config).save_pretrained(init)

    ran = eq.run([args.bertpt, "finetune", "--model", init, "--tokenizer", tok, "--train", train, "--output-dir", out,
            "--overwrite-output-dir", "--epochs", args.epochs, "--per-device-batch-size", args.batch,
            "--max-seq-len", "64", "--learning-rate", args.learning_rate, "--warmup-ratio", args.warmup_ratio,
            "--weight-decay", args.weight_decay, "--max-grad-norm", args.max_grad_norm, "--precision", "fp32",
            "--threads", args.threads, "--logging-steps", "1", "--dump-batches", dump])
    records = eq.read_metrics(os.path.join(out, "metrics.jsonl"))

    steps_per_epoch = math.ceil(n / args.batch)
    total = steps_per_epoch * args.epochs
    steps = eq.load_dumped_steps(dump, ["input_ids", "token_type_ids", "attention_mask", "labels"])
    eq.check(len(steps) == total, f"bertpt dumped {len(steps)} steps (expected {args.epochs} x {steps_per_epoch})")
    sizes = [sum(len(m["labels"]) for m in s) for s in steps[:steps_per_epoch]]
    eq.check(sum(sizes) == n and sizes[-1] == n - (steps_per_epoch - 1) * args.batch,
             f"an epoch is every example once, the last batch smaller ({sizes[-1]} of {args.batch})")

    # bertpt's class ids: sorted labels (run_glue.py's sorted(label_list)), recorded in config.json.
    with open(os.path.join(out, "best", "config.json"), encoding="utf-8") as f:
        saved = json.load(f)
    id2label = {int(k): v for k, v in saved["id2label"].items()}
    eq.check([id2label[i] for i in sorted(id2label)] == sorted(set(file_labels)),
             f"id2label {id2label} is the sorted label set")
    label2id = {v: k for k, v in id2label.items()}
    dumped = collections.Counter(int(x) for s in steps[:steps_per_epoch] for m in s for x in m["labels"])
    expected = collections.Counter(label2id[label] for label in file_labels)
    eq.check(dumped == expected, f"the dumped labels of epoch 1 {dict(dumped)} are the file's under id2label "
             f"{dict(expected)}")

    # transformers' warmup for a ratio (TrainingArguments.get_warmup_steps: ceil(total x ratio)).
    hf_warmup = TrainingArguments(output_dir=os.path.join(work, "hf-args"), warmup_steps=args.warmup_ratio,
                                  report_to=[]).get_warmup_steps(total)
    eq.check(hf_warmup > 0, f"warmup: {hf_warmup} of {total} steps")
    # bertpt's own count, from its start line ("training: ... warmup N steps ..."), for a clear message
    # (the learning rates of metrics.jsonl are compared below either way).
    said = re.search(r"warmup (\d+) steps", ran.stderr)
    if said:
        eq.check(int(said.group(1)) == hf_warmup,
                 f"--warmup-ratio {args.warmup_ratio:g} of {total} steps: bertpt warms up {said.group(1)} steps, "
                 f"transformers {hf_warmup} (TrainingArguments.get_warmup_steps: ceil(total x ratio))")
    else:
        print("  (bertpt's start line names no warmup step count; the learning rates are compared below)")

    model = BertForSequenceClassification.from_pretrained(init, attn_implementation="eager")
    initial = {k: p.detach().clone() for k, p in model.named_parameters()}

    def micro_loss(model, m, step_micro):
        # HF's mean cross-entropy of the micro-batch, weighted by its share of the step's examples.
        n_step = sum(len(x["labels"]) for x in step_micro)
        out = model(input_ids=m["input_ids"], token_type_ids=m["token_type_ids"],
                    attention_mask=m["attention_mask"], labels=m["labels"])
        return out.loss * (len(m["labels"]) / n_step)

    py = eq.train_steps(model, steps, micro_loss, args.weight_decay, args.learning_rate, hf_warmup, total,
                        args.max_grad_norm)
    worst = eq.compare_steps(records, py, RTOL_LOSS, "finetune")
    eq.check_clipping(py, records, args.max_grad_norm, "finetune")
    eq.sanity_moved(initial, model, ATOL_WEIGHTS, "finetune")
    eq.check_decay_power(model, py, args.weight_decay, ATOL_WEIGHTS, "finetune")

    best = os.path.join(out, "best")
    w, wname = eq.compare_weights(load_file(os.path.join(best, "model.safetensors")), model, ATOL_WEIGHTS,
                                  "finetune")

    theirs = BertForSequenceClassification.from_pretrained(best, attn_implementation="eager").eval()
    model.eval()
    first = steps[0][0]
    inputs = {k: first[k] for k in ("input_ids", "token_type_ids", "attention_mask")}
    with torch.no_grad():
        a, b = theirs(**inputs).logits, model(**inputs).logits
    logit_dev = ((a - b).abs().max() / b.abs().max()).item()
    eq.check(logit_dev <= 1e-4, f"finetune: final models' logits within 1e-4 of their scale ({logit_dev:.2e})")
    print(f"finetune: max deviations: loss {worst['loss'][0]:.2e} (step {worst['loss'][1]}), grad_norm "
          f"{worst['grad_norm'][0]:.2e}, lr {worst['lr'][0]:.2e}, weights {w:.2e} ({wname}), logits {logit_dev:.2e}")
    eq.finish("finetune_equivalence")


if __name__ == "__main__":
    main()
