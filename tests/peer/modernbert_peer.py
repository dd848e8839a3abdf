#!/usr/bin/env python3
"""bertpt's ModernBERT (src/model/modernbert.h) with the real `transformers` as the referee.

HF -> bertpt: random ModernBertForMaskedLM checkpoints written by transformers' save_pretrained
(weights spread out so that outputs are far from uniform; a sliding window shorter than the texts,
so that the local layers' mask matters; biases and mean pooling; an untied decoder; bf16), read by

  * `bertpt fill-mask --save-logits`: the logits at every position equal transformers'
    model(**enc).logits within --tol (1e-4) relative to their scale, and the top-k tokens and
    probabilities equal pipeline("fill-mask")'s;
  * `bertpt eval`: loss and accuracy equal transformers' on the very same masked batches;
  * `bertpt train --init-from`: every weight starts from the HF checkpoint.

bertpt -> HF: `bertpt train --model CONFIG` (a ModernBERT config with a 16-token window) writes a
checkpoint that AutoModelForMaskedLM loads as ModernBertForMaskedLM with no missing/unexpected keys,
with equal logits; `bertpt finetune` on it (and on the HF checkpoint with mean pooling and biases, as a
classifier and as a regression model)
writes best/ that AutoModelForSequenceClassification loads as ModernBertForSequenceClassification,
and `bertpt predict` probabilities equal transformers' on it (padded batches in bertpt, one example at
a time in transformers); `bertpt embed` equals ModernBertModel's mean-pooled hidden states.

Usage: modernbert_peer.py --bertpt BIN --shared-data DIR. Exit 0 when every check passes, else 1.
"""

import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_to_bertpt import (start_model_peer, check_mlm_logits, guarded, hf_mlm_eval,  # noqa: E402
                          load_hf, make_corpus, max_param_delta, sms_spam, spread_weights, write_jsonl)

# Longer than the windows below (8 and 16 tokens), with masks near both ends.
TEXTS = [
    "The history of [MASK] began in the early years of the century, when several families moved to the city "
    "and built their houses near the river, which is still [MASK] today.",
    "In [MASK] the council decided that the new bridge would be built of stone.",
    "Music and art were taught in every school of the region, and the [MASK] of the students grew each year "
    "until the university opened a second faculty for them in the old market hall near the [MASK].",
]

SPECS = {
    # name: ModernBertConfig overrides, save dtype
    "l4-h64-win8": (dict(num_hidden_layers=4, hidden_size=64, num_attention_heads=4, intermediate_size=96,
                         local_attention=8), "float32"),
    "l3-h64-bias-mean-tanh": (dict(num_hidden_layers=3, hidden_size=64, num_attention_heads=2, intermediate_size=128,
                                   local_attention=16, norm_bias=True, attention_bias=True, mlp_bias=True,
                                   classifier_bias=True, classifier_pooling="mean",
                                   hidden_activation="gelu_pytorch_tanh", global_attn_every_n_layers=2,
                                   global_rope_theta=5000.0, local_rope_theta=500.0), "float32"),
    "l3-h64-untied-bf16": (dict(num_hidden_layers=3, hidden_size=64, num_attention_heads=4, intermediate_size=96,
                                local_attention=8, tie_word_embeddings=False), "bfloat16"),
}


def make_hf_checkpoints(work, tok_dir, ck):
    import torch
    from transformers import AutoTokenizer, ModernBertConfig, ModernBertForMaskedLM

    tok = AutoTokenizer.from_pretrained(tok_dir)
    out = {}
    for i, (name, (over, dtype)) in enumerate(SPECS.items()):
        cfg = ModernBertConfig(vocab_size=len(tok), pad_token_id=tok.pad_token_id, bos_token_id=None,
                               eos_token_id=None, cls_token_id=None, sep_token_id=None, **over)
        torch.manual_seed(200 + i)
        model = ModernBertForMaskedLM(cfg)
        spread_weights(model, 200 + i)
        tied = model.decoder.weight is model.model.embeddings.tok_embeddings.weight
        ck.check(tied == over.get("tie_word_embeddings", True), f"{name}: transformers built the decoder as configured")
        d = os.path.join(work, "hf", name)
        model.to(getattr(torch, dtype)).save_pretrained(d)
        tok.save_pretrained(d)
        out[name] = d
    return out


def check_logits(bertpt, d, label, tol, ck):
    """fill-mask --save-logits vs transformers' logits, and the pipeline's top-5 (hf_to_bertpt.py)."""
    return check_mlm_logits(bertpt, d, label, "ModernBertForMaskedLM", TEXTS, tol, ck)


def check_eval(bertpt, d, data_dir, label, model, ck):
    seed = 20261205
    bp = bertpt.json(["eval", "--model", d, "--data", data_dir, "--split", "valid", "--mask-seed", str(seed),
                      "--batch-size", "16", "--max-batches", "4", "--precision", "fp32"])
    hf = hf_mlm_eval(model, data_dir, "valid", seed, 64)
    bl, ba = bp.get("eval_loss"), bp.get("eval_accuracy")
    ok = (bl is not None and math.isfinite(bl) and abs(bl - hf["loss"]) <= 1e-4 * max(1.0, abs(hf["loss"]))
          and abs(ba - hf["accuracy"]) <= 1.5 / hf["masked"] and bp.get("eval_masked_tokens") == hf["masked"])
    ck.check(ok, f"{label}: bertpt eval loss/accuracy == transformers on the same masked batches",
             f"bertpt loss {bl} acc {ba}; HF loss {hf['loss']:.6f} acc {hf['accuracy']:.6f} masked {hf['masked']}")


def state_of(d):
    import torch
    from transformers import AutoModelForMaskedLM

    m = AutoModelForMaskedLM.from_pretrained(d, dtype=torch.float32)
    return {k: v.detach().clone() for k, v in m.state_dict().items()}


def check_init_from(bertpt, d, data_dir, work, tol, ck, steps=3, lr=1e-3):
    name = os.path.basename(d)
    out = os.path.join(work, "init-" + name)
    bertpt.run(["train", "--data", data_dir, "--init-from", d, "--output-dir", out, "--max-steps", str(steps),
                "--save-steps", str(steps), "--per-device-batch-size", "8", "--learning-rate", str(lr),
                "--precision", "fp32", "--report-to", "none", "-q"])
    cdir = os.path.join(out, f"checkpoint-{steps}")
    after = state_of(cdir)
    max_param_delta(state_of(d), after, ck, f"train --init-from {name}", 3 * steps * lr)
    check_logits(bertpt, cdir, f"train --init-from {name} -> checkpoint-{steps}", tol, ck)


def check_trained(bertpt, data_dir, work, tol, ck):
    """bertpt -> HF: a ModernBERT trained from scratch by bertpt."""
    cfg = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "configs", "modernbert-tiny.json")))
    vocab = json.load(open(os.path.join(data_dir, "manifest.json")))["vocab_size"]
    cfg.update(vocab_size=vocab, local_attention=16, num_hidden_layers=4,
               layer_types=["full_attention", "sliding_attention", "sliding_attention", "full_attention"])
    path = os.path.join(work, "modernbert-win16.json")
    json.dump(cfg, open(path, "w"))
    out = os.path.join(work, "trained")
    bertpt.run(["train", "--data", data_dir, "--model", path, "--output-dir", out, "--max-steps", "20",
                "--save-steps", "20", "--per-device-batch-size", "16", "--learning-rate", "2e-3", "--warmup-steps", "2",
                "--logging-steps", "5", "--precision", "fp32", "--report-to", "none", "-q"])
    metrics = [json.loads(l) for l in open(os.path.join(out, "metrics.jsonl")) if l.strip()]
    losses = [m["loss"] for m in metrics if "loss" in m]
    ck.check(len(losses) >= 2 and losses[-1] < losses[0], "bertpt train --model ModernBERT: the MLM loss falls",
             str([round(x, 3) for x in losses]))
    cdir = os.path.join(out, "checkpoint-20")
    check_logits(bertpt, cdir, "bertpt-trained ModernBERT checkpoint-20", tol, ck)
    return cdir


def check_finetune(bertpt, d, train, valid, work, tol, ck, label):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    out = os.path.join(work, "ft-" + label)
    bertpt.run(["finetune", "--model", d, "--train", train, "--valid", valid, "--text-field", "text", "--label-field",
                "label", "--epochs", "1", "--per-device-batch-size", "16", "--max-seq-len", "48", "--learning-rate",
                "1e-4", "--precision", "fp32", "--output-dir", out, "-q"])
    best = os.path.join(out, "best")
    clf = load_hf(AutoModelForSequenceClassification, best, ck, f"finetune {label} -> best/")
    ck.check(type(clf).__name__ == "ModernBertForSequenceClassification",
             f"finetune {label}: transformers reads best/ as ModernBertForSequenceClassification", type(clf).__name__)
    pred = os.path.join(out, "pred.jsonl")
    bertpt.run(["predict", "--model", best, "--input", valid, "--output", pred, "--max-seq-len", "48", "-q"])
    preds = [json.loads(l) for l in open(pred, encoding="utf-8") if l.strip()]
    rows = [json.loads(l) for l in open(valid, encoding="utf-8") if l.strip()]
    tok = AutoTokenizer.from_pretrained(best)
    worst, spread_p = 0.0, 0.0
    with torch.no_grad():
        for r, p in zip(rows, preds):
            probs = torch.softmax(clf(**tok(r["text"], truncation=True, max_length=48,
                                             return_tensors="pt")).logits[0].double(), -1)
            for j, lab in clf.config.id2label.items():
                worst = max(worst, abs(float(probs[j]) - p["probabilities"][lab]))
            spread_p = max(spread_p, float(probs.max() - probs.min()))
    ck.check(len(preds) == len(rows) and worst <= tol,
             f"finetune {label}: bertpt predict == transformers on best/ ({len(preds)} examples, max |dp| {worst:.1e})")
    ck.check(spread_p > 0.05, f"finetune {label}: the classifier's probabilities are not uniform", f"{spread_p:.3f}")


def check_regression(bertpt, d, train, valid, work, tol, ck):
    """`finetune --problem-type regression` of a ModernBERT: transformers reads problem_type and one
    output, and its outputs equal `bertpt predict`'s scores."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    out = os.path.join(work, "ft-regression")
    bertpt.run(["finetune", "--model", d, "--train", train, "--valid", valid, "--problem-type", "regression",
                "--epochs", "1", "--per-device-batch-size", "16", "--max-seq-len", "48", "--learning-rate", "1e-4",
                "--precision", "fp32", "--output-dir", out, "-q"])
    best = os.path.join(out, "best")
    reg = load_hf(AutoModelForSequenceClassification, best, ck, "finetune regression -> best/")
    ck.check(type(reg).__name__ == "ModernBertForSequenceClassification" and reg.config.problem_type == "regression"
             and reg.config.num_labels == 1, "finetune regression: transformers reads a one-output regression model",
             f"{type(reg).__name__} {reg.config.problem_type} {reg.config.num_labels}")
    pred = os.path.join(out, "pred.jsonl")
    bertpt.run(["predict", "--model", best, "--input", valid, "--output", pred, "--max-seq-len", "48", "-q"])
    preds = [json.loads(l) for l in open(pred, encoding="utf-8") if l.strip()]
    rows = [json.loads(l) for l in open(valid, encoding="utf-8") if l.strip()]
    tok = AutoTokenizer.from_pretrained(best)
    worst = 0.0
    with torch.no_grad():
        for r, p in zip(rows, preds):
            v = float(reg(**tok(r["text"], truncation=True, max_length=48, return_tensors="pt")).logits[0, 0])
            worst = max(worst, abs(v - p["score"]) / max(1.0, abs(v)))
    ck.check(len(preds) == len(rows) and worst <= tol,
             f"finetune regression: bertpt predict == transformers on best/ ({len(preds)} examples, max {worst:.1e})")


def check_ner(bertpt, d, conll_dir, work, tol, ck):
    """`finetune --task token-classification` of a ModernBERT on CoNLL sentences: transformers reads
    best/ as ModernBertForTokenClassification with every tensor, and its tag per word equals `bertpt
    predict`'s (bench/verify-hf-python.py's comparison: each word's first sub-token)."""
    import importlib.util
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    spec = importlib.util.spec_from_file_location(
        "verify_hf", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "verify-hf-python.py"))
    verify = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(verify)
    sentences = verify.read_conll(os.path.join(conll_dir, "train.txt"))
    train, valid = os.path.join(work, "ner-train.txt"), os.path.join(work, "ner-valid.txt")
    for path, part in ((train, sentences[:60]), (valid, sentences[60:90])):
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join("".join(f"{w}\t{t}\n" for w, t in zip(ws, ts)) + "\n" for ws, ts in part))
    out = os.path.join(work, "ft-ner")
    bertpt.run(["finetune", "--task", "token-classification", "--model", d, "--train", train, "--valid", valid,
                "--epochs", "1", "--per-device-batch-size", "8", "--max-seq-len", "64", "--learning-rate", "1e-3",
                "--precision", "fp32", "--output-dir", out, "-q"])
    best = os.path.join(out, "best")
    model = load_hf(AutoModelForTokenClassification, best, ck, "finetune NER -> best/")
    ck.check(type(model).__name__ == "ModernBertForTokenClassification",
             "finetune NER: transformers reads best/ as ModernBertForTokenClassification", type(model).__name__)
    pred = os.path.join(out, "pred.jsonl")
    bertpt.run(["predict", "--model", best, "--input", valid, "--output", pred, "--max-seq-len", "64", "-q"])
    preds = [json.loads(l) for l in open(pred, encoding="utf-8") if l.strip()]
    worst, bad, words = verify.tagger_differences(model, AutoTokenizer.from_pretrained(best), sentences[60:90], preds,
                                                  64, tol)
    ck.check(len(preds) == 30 and words > 0 and not bad,
             f"finetune NER: bertpt predict == transformers on best/ ({words} words, max |dp| {worst:.1e})",
             "; ".join(bad[:3]))


def check_embed(bertpt, d, work, ck):
    """bertpt embed on a ModernBERT: ModernBertModel's last hidden states, mean-pooled over the tokens."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    path = os.path.join(work, "embed-modernbert.npy")
    bertpt.run(["embed", "--model", d, "--pooling", "mean", "--no-normalize", "--output", path, "-q"] + TEXTS)
    tok = AutoTokenizer.from_pretrained(d)
    model = AutoModel.from_pretrained(d, dtype=torch.float32).eval()
    with torch.no_grad():
        want = np.stack([model(**tok(t, return_tensors="pt")).last_hidden_state[0].double().mean(0).numpy()
                         for t in TEXTS])
    got = np.load(path)
    diff = float(np.abs(got - want).max()) if got.shape == want.shape else float("inf")
    ck.check(diff <= 1e-4, f"bertpt embed on a ModernBERT == ModernBertModel's mean-pooled last hidden states "
                           f"({type(model).__name__}, max |d| {diff:.1e})")


def main():
    args, ck, work, bertpt, tmp = start_model_peer(__doc__.split("\n\n")[0], "modernbert-peer-")  # noqa: F841 (tmp: keeps work)

    corpus = make_corpus(args.shared_data, work, wiki_bytes=200_000)
    tok_dir, data = os.path.join(work, "tok"), os.path.join(work, "data")
    bertpt.run(["tokenizer", "train", "-i", corpus, "--vocab-size", "1500", "--out", tok_dir, "-q"])
    bertpt.run(["prepare", "-i", corpus, "--tokenizer", tok_dir, "--seq-len", "64", "--valid-fraction", "0.15",
                "--out", data, "-q"])
    ckpts = make_hf_checkpoints(work, tok_dir, ck)
    for name, d in ckpts.items():
        model = guarded(ck, f"{name}: logits", check_logits, bertpt, d, name, args.tol, ck)
        if model is not None:
            guarded(ck, f"{name}: eval", check_eval, bertpt, d, data, name, model, ck)
    guarded(ck, "embed", check_embed, bertpt, ckpts["l4-h64-win8"], work, ck)
    guarded(ck, "train --init-from", check_init_from, bertpt, ckpts["l4-h64-win8"], data, work, args.tol, ck)
    trained = guarded(ck, "train --model modernbert", check_trained, bertpt, data, work, args.tol, ck)

    tr, va = sms_spam(args.shared_data, 160, 64)
    train, valid = os.path.join(work, "sms-train.jsonl"), os.path.join(work, "sms-valid.jsonl")
    write_jsonl(train, tr)
    write_jsonl(valid, va)
    if trained:
        guarded(ck, "finetune trained", check_finetune, bertpt, trained, train, valid, work, args.tol, ck, "bertpt-trained")
    guarded(ck, "finetune mean pooling", check_finetune, bertpt, ckpts["l3-h64-bias-mean-tanh"], train, valid, work,
            args.tol, ck, "hf-bias-mean-pooling")
    # A numeric target from the same messages: the share of letters in capitals (labels as JSON numbers).
    caps = lambda t: round(sum(c.isupper() for c in t) / max(1, sum(c.isalpha() for c in t)), 4)
    rtrain, rvalid = os.path.join(work, "caps-train.jsonl"), os.path.join(work, "caps-valid.jsonl")
    write_jsonl(rtrain, [{"text": r["text"], "label": caps(r["text"])} for r in tr])
    write_jsonl(rvalid, [{"text": r["text"], "label": caps(r["text"])} for r in va])
    guarded(ck, "finetune regression", check_regression, bertpt, ckpts["l3-h64-bias-mean-tanh"], rtrain, rvalid, work,
            args.tol, ck)

    guarded(ck, "finetune NER", check_ner, bertpt, ckpts["l3-h64-bias-mean-tanh"],
            os.path.join(args.shared_data, "scibert", "ner", "NCBI-disease"), work, args.tol, ck)

    print(f"{ck.passed} passed, {ck.failed} failed" + (f": {ck.failures}" if ck.failed else ""))
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
