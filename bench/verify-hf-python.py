#!/usr/bin/env python3
"""Check bertpt's output directories with Hugging Face's own Python `transformers` code.

Loads a bertpt MLM checkpoint (and optionally a fine-tuned classifier) with the real
`transformers` classes and asserts that

  * BertForMaskedLM / AutoModelForMaskedLM / BertForSequenceClassification load with no missing,
    unexpected or mismatched keys and no loading errors, and the MLM decoder is tied to the word
    embeddings (weight) and to cls.predictions.bias (bias);
  * config.json is read by AutoConfig as a BertConfig, and every field bertpt wrote is one that
    BertConfig knows (unknown fields are reported);
  * tokenizer.json parses as a WordPiece BERT pipeline whose vocabulary equals vocab.txt, and the
    slow BertTokenizer (pure Python) gives the same ids as `bertpt tokenizer encode`;
  * top-k fill-mask tokens and probabilities equal `bertpt fill-mask --json` within --tol
    (model.eval(), fp32);
  * the classifier's id2label/label2id are the ones bertpt wrote, and predicted labels and
    probabilities equal `bertpt predict` within --tol;
  * with --bertpt: a copy written by HF's save_pretrained(safe_serialization=True) is read back by
    `bertpt fill-mask` with the same numbers (the HF -> bertpt direction).

Needs: python3 with `torch` and `transformers` (and `safetensors`, which transformers installs).
Only the slow BertTokenizer is used, but transformers 4.57 cannot be imported without the
`tokenizers` (Rust) package (a hard dependency it installs); 4.31 from source could be.
Checked with transformers 4.31.0 + torch 1.13.1, 4.57.6 + torch 2.13.0, and 5.23.0 + torch 2.13.0
(requirements/hf-peer.txt, what CI runs: tests/peer/hf_python_interop.sh).

Run it either on outputs you already made:

  bertpt tokenizer encode -t CKPT -i sents.txt -o ids.txt
  bertpt fill-mask --model CKPT "The capital of France is [MASK]." --top-k 5 --json > fm.json
  bertpt predict --model CLF/best --input examples.jsonl --output pred.jsonl
  python3 bench/verify-hf-python.py --mlm CKPT --encode-input sents.txt --encode-output ids.txt \
      --fill-mask-json fm.json --clf CLF/best --predict-input examples.jsonl --predict-output pred.jsonl

or let it run bertpt for you (it writes those files to a temporary directory):

  python3 bench/verify-hf-python.py --bertpt build/bertpt --mlm RUN/checkpoint-100 \
      [--clf CLF/best --predict-input examples.jsonl] [--reg REG/best --reg-input pairs.jsonl]
      [--ner NER/best --ner-input sentences.conll]

(--reg: a regression model, `bertpt finetune --problem-type regression`: problem_type and one output
checked, and transformers' output equal to `bertpt predict`'s score within --tol, relative above 1.
--ner: a token classifier, `bertpt finetune --task token-classification`: loaded by
BertForTokenClassification and AutoModelForTokenClassification with every tensor, and each word's tag
and probability from transformers — its first sub-token, words split by BertTokenizerFast with
is_split_into_words=True — equal to `bertpt predict`'s.)

Exit status 0 when every check passes, 1 otherwise; each check prints one PASS/FAIL line.
"""

import argparse
import contextlib
import io
import json
import logging
import math
import os
import subprocess
import sys
import tempfile

DEFAULT_TEXTS = [
    "The capital of France is [MASK].",
    "Paris is the [MASK] of [MASK].",
    "He was born in [MASK] and studied at the university of [MASK].",
    "I don't know what it's [MASK], he said 'hello' to me.",
    "[MASK] [MASK] [MASK]",
]

DEFAULT_SENTENCES = [
    "The capital of France is Paris.",
    "H\u00e9llo W\u00f6rld! Na\u00efve caf\u00e9 \u2014 r\u00e9sum\u00e9, \"quoted\" text; it's 3.14% (approx.) e.g. U.S.A.",
    "\u4e2d\u6587\u5b57\u7b26 and \u65e5\u672c\u8a9e mixed with \u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac and \u0420\u0443\u0441\u0441\u043a\u0438\u0439.",
    "Emoji \U0001F600 and symbols \u00a9\u00ae\u2122 \u20ac \u00a3 \u00a5 \u00a7 ~ ` ^ | \\ / @ # $ & * + = < > _",
    "x" * 120 + " end",
    "  leading   and trailing spaces\twith\ttabs   ",
    "UPPER lower MiXeD \ufb01 ligature \uff46\uff55\uff4c\uff4c\uff57\uff49\uff44\uff54\uff48 zero\u200bwidth",
    "Anarchism is a political philosophy that advocates self-governed societies.",
]


class Checker:
    def __init__(self):
        self.failed = 0
        self.passed = 0

    def check(self, ok, what, detail=""):
        tag = "PASS" if ok else "FAIL"
        print(f"{tag}  {what}" + (f": {detail}" if detail else ""), flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok

    def note(self, what):
        print(f"NOTE  {what}", flush=True)


class CaptureLogs(logging.Handler):
    """Collects transformers' warnings (e.g. 'Some weights ... were not used')."""

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


def run_bertpt(binary, args, stdout_path=None):
    cmd = [binary] + args
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if res.returncode != 0:
        sys.exit(f"verify-hf-python: {' '.join(cmd)} failed ({res.returncode}):\n{res.stderr}")
    if stdout_path:
        with open(stdout_path, "w", encoding="utf-8") as f:
            f.write(res.stdout)
    return res.stdout


def load_model(cls, path, ck, label):
    with captured_hf_warnings() as warns:
        model, info = cls.from_pretrained(path, output_loading_info=True)
    for key in ("missing_keys", "unexpected_keys", "mismatched_keys", "error_msgs"):
        ck.check(len(info.get(key, [])) == 0, f"{label}: no {key}", str(info.get(key, [])) or "")
    ck.check(not warns, f"{label}: no transformers warnings while loading", " | ".join(warns))
    model.eval()
    return model


def check_config(path, ck):
    from transformers import AutoConfig, BertConfig

    with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
        raw = json.load(f)
    cfg = AutoConfig.from_pretrained(path)
    ck.check(isinstance(cfg, BertConfig), f"AutoConfig({path}) is a BertConfig", type(cfg).__name__)
    # torch_dtype was renamed dtype in later transformers: either spelling is a known field.
    dtype_keys = {"torch_dtype", "dtype"}
    known = set(BertConfig().to_dict().keys()) | dtype_keys
    # transformers 5 dropped position_embedding_type (its BERT implements absolute positions only);
    # 4.x reads the field, and "absolute" is what both do.
    if raw.get("position_embedding_type") == "absolute":
        known.add("position_embedding_type")
    unknown = sorted(k for k in raw if k not in known)
    ck.check(not unknown, "config.json: every field is a BertConfig field", ", ".join(unknown))
    back = cfg.to_dict()  # to_dict, not getattr: torch_dtype is a torch.dtype on the object
    diffs = [f"{k}: {v!r} -> {back.get(k)!r}" for k, v in raw.items()
             if k in known and k not in {"id2label", "label2id"} | dtype_keys and back.get(k) != v]
    ck.check(not diffs, "config.json: values read back unchanged", ", ".join(diffs))
    return raw, cfg


def check_tokenizer_files(path, ck):
    tj_path = os.path.join(path, "tokenizer.json")
    if not os.path.exists(tj_path):
        ck.note(f"{path} has no tokenizer.json")
        return
    with open(tj_path, encoding="utf-8") as f:
        tj = json.load(f)
    model = tj.get("model", {})
    ck.check(model.get("type") == "WordPiece", "tokenizer.json: model.type is WordPiece", str(model.get("type")))
    ck.check(model.get("continuing_subword_prefix") == "##", "tokenizer.json: continuing_subword_prefix '##'")
    norm = (tj.get("normalizer") or {}).get("type")
    pre = (tj.get("pre_tokenizer") or {}).get("type")
    post = (tj.get("post_processor") or {}).get("type")
    dec = (tj.get("decoder") or {}).get("type")
    ck.check(norm == "BertNormalizer" and pre == "BertPreTokenizer" and post in ("TemplateProcessing", "BertProcessing")
             and dec == "WordPiece", "tokenizer.json: BERT normalizer/pre-tokenizer/post-processor/decoder",
             f"{norm}/{pre}/{post}/{dec}")
    vocab_txt = os.path.join(path, "vocab.txt")
    if os.path.exists(vocab_txt):
        with open(vocab_txt, encoding="utf-8") as f:
            lines = [l.rstrip("\n") for l in f]
        vocab = model.get("vocab", {})
        same = len(vocab) == len(lines) and all(vocab.get(t) == i for i, t in enumerate(lines))
        ck.check(same, "tokenizer.json vocab equals vocab.txt (tokens and ids)", f"{len(vocab)} vs {len(lines)}")
    with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    ck.check(len(model.get("vocab", {})) == cfg.get("vocab_size"), "tokenizer vocab size == config vocab_size",
             f"{len(model.get('vocab', {}))} vs {cfg.get('vocab_size')}")


def check_encode(tok, enc_in, enc_out, ck):
    with open(enc_in, encoding="utf-8", newline="") as f:
        texts = f.read().split("\n")
    if texts and texts[-1] == "":
        texts.pop()
    with open(enc_out, encoding="utf-8") as f:
        out_lines = f.read().split("\n")
    if out_lines and out_lines[-1] == "":
        out_lines.pop()
    ids = [[int(x) for x in l.split()] for l in out_lines]
    ck.check(len(texts) == len(ids), "bertpt encode: one id line per input line", f"{len(ids)} vs {len(texts)}")
    bad = []
    for i, (t, want) in enumerate(zip(texts, ids)):
        got = tok(t)["input_ids"]
        if got != want:
            bad.append(f"line {i + 1}: HF {got} bertpt {want}")
    ck.check(not bad, f"BertTokenizer ids == bertpt tokenizer encode ids ({len(ids)} lines)", "; ".join(bad[:3]))


def check_decode(binary, path, enc_out, ck):
    """`bertpt tokenizer decode` of the encoded ids (with the ids of "don ' t"-style spacing added)
    against transformers' decode(), which cleans up tokenization spaces as tokenizer_config.json says."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    with open(enc_out, encoding="utf-8") as f:
        seqs = [[int(x) for x in l.split()] for l in f.read().split("\n") if l.strip()]
    seqs.append(tok("don't stop, it's fine. isn't it? I'm sure they've gone!")["input_ids"])
    ids_path = enc_out + ".decode-in"
    with open(ids_path, "w", encoding="utf-8") as f:
        f.write("\n".join(" ".join(map(str, s)) for s in seqs) + "\n")
    for skip in (False, True):
        args = ["tokenizer", "decode", "-t", path, "-i", ids_path, "-q"] + (["--skip-special-tokens"] if skip else [])
        got = subprocess.run([binary] + args, check=True, capture_output=True, text=True).stdout.split("\n")[:-1]
        want = [tok.decode(s, skip_special_tokens=skip) for s in seqs]
        bad = [f"ids {s}: HF {w!r} bertpt {g!r}" for s, w, g in zip(seqs, want, got) if w != g]
        ck.check(len(got) == len(want) and not bad,
                 f"bertpt tokenizer decode == transformers decode() ({len(want)} lines, skip_special_tokens={skip})",
                 "; ".join(bad[:3]) or f"{len(got)} vs {len(want)} lines")


def check_fill_mask(model, tok, fm, tol, ck, label="fill-mask"):
    import torch

    max_diff = 0.0
    problems = []
    n_masks = 0
    for res in fm["results"]:
        text = res["text"]
        enc = tok(text, return_tensors="pt")
        with torch.no_grad():
            logits = model(**enc).logits[0]
        ids = enc["input_ids"][0].tolist()
        positions = [i for i, t in enumerate(ids) if t == tok.mask_token_id]
        bp_positions = [m["position"] for m in res["masks"]]
        if positions != bp_positions:
            problems.append(f"{text!r}: mask positions HF {positions} bertpt {bp_positions}")
            continue
        for m in res["masks"]:
            n_masks += 1
            probs = torch.softmax(logits[m["position"]].double(), dim=-1)
            k = len(m["predictions"])
            top_p, top_i = probs.topk(k)
            for r, pred in enumerate(m["predictions"]):
                hf_tok, hf_p = int(top_i[r]), float(top_p[r])
                # bertpt's own token's HF probability: robust to ties that swap order
                d = abs(float(probs[pred["token"]]) - pred["score"])
                max_diff = max(max_diff, d)
                if hf_tok != pred["token"] and abs(float(probs[hf_tok]) - float(probs[pred["token"]])) > tol:
                    problems.append(f"{text!r} pos {m['position']} rank {r}: HF token {hf_tok} ({hf_p:.6f}) "
                                    f"bertpt {pred['token']} ({pred['score']:.6f})")
                if d > tol:
                    problems.append(f"{text!r} pos {m['position']} token {pred['token']}: HF p {float(probs[pred['token']]):.6f} "
                                    f"bertpt {pred['score']:.6f}")
                ts = tok.convert_ids_to_tokens(pred["token"])
                if "token_str" in pred and pred["token_str"] != ts.replace(" ", ""):
                    problems.append(f"token_str {pred['token_str']!r} vs HF {ts!r}")
    ck.check(not problems, f"{label}: top-k tokens and probabilities ({n_masks} masks), max |dp| = {max_diff:.2e}",
             "; ".join(problems[:4]))
    return max_diff


def check_fill_mask_sequences(model, tok, fm, ck):
    """'sequence'/'token_str' strings as HF's pipeline('fill-mask') makes them.

    Uses the pipeline when it imports; some transformers versions cannot import pipelines without
    the Rust `tokenizers` package, and then the same decode is done here: each [MASK] in turn
    replaced by the predicted id, then tokenizer.decode(..., skip_special_tokens=<one [MASK]>) (with
    several masks the pipeline keeps the special tokens, so the other [MASK]s stay visible)."""
    fill = None
    try:
        from transformers import pipeline

        fill = pipeline("fill-mask", model=model, tokenizer=tok)
    except Exception as e:  # noqa: BLE001 - any import problem means: decode by hand
        ck.note(f"pipeline('fill-mask') unavailable ({type(e).__name__}); decoding as it does instead")
    bad = []
    for res in fm["results"]:
        masks = res["masks"]
        single = len(masks) == 1
        if fill is not None:
            hf_all = fill(res["text"], top_k=len(masks[0]["predictions"]))
            if single:
                hf_all = [hf_all]
        else:
            ids = tok(res["text"])["input_ids"]
            hf_all = []
            for m in masks:
                hf = []
                for p in m["predictions"]:
                    filled = list(ids)
                    filled[m["position"]] = p["token"]
                    hf.append({"token": p["token"], "token_str": tok.decode([p["token"]]),
                               "sequence": tok.decode(filled, skip_special_tokens=single)})
                hf_all.append(hf)
        for m, hf in zip(masks, hf_all):
            for h, bp in zip(hf, m["predictions"]):
                if h["token"] != bp["token"]:
                    continue
                if "sequence" in bp and h["sequence"] != bp["sequence"]:
                    bad.append(f"sequence HF {h['sequence']!r} bertpt {bp['sequence']!r}")
                if "token_str" in bp and h["token_str"] != bp["token_str"]:
                    bad.append(f"token_str HF {h['token_str']!r} bertpt {bp['token_str']!r}")
    ck.check(not bad, f"fill-mask sequence/token_str strings as HF's pipeline ({len(fm['results'])} texts)",
             "; ".join(bad[:3]))


def read_examples(path, text_field, pair_field):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                o = json.loads(line)
                rows.append((o[text_field], o[pair_field] if pair_field else None))
    return rows


def check_classifier(path, pred_in, pred_out, text_field, pair_field, tol, ck):
    import torch
    from transformers import BertForSequenceClassification, BertTokenizer

    raw, cfg = check_config(path, ck)
    check_tokenizer_files(path, ck)
    model = load_model(BertForSequenceClassification, path, ck, "BertForSequenceClassification")
    want_id2label = {int(k): v for k, v in raw.get("id2label", {}).items()}
    ck.check(model.config.id2label == want_id2label and model.config.label2id == raw.get("label2id"),
             "classifier id2label/label2id as bertpt wrote them", f"{model.config.id2label} / {model.config.label2id}")
    ck.check(model.config.num_labels == model.classifier.out_features == len(want_id2label),
             "num_labels == classifier rows == len(id2label)")
    regression = raw.get("problem_type") == "regression"
    ck.check(model.config.problem_type == raw.get("problem_type"), f"problem_type {model.config.problem_type}")
    if not pred_in or not pred_out:
        return 0.0
    tok = BertTokenizer.from_pretrained(path)
    rows = read_examples(pred_in, text_field, pair_field)
    with open(pred_out, encoding="utf-8") as f:
        preds = [json.loads(l) for l in f if l.strip()]
    ck.check(len(rows) == len(preds), "bertpt predict: one output line per example", f"{len(preds)} vs {len(rows)}")
    max_diff, bad = 0.0, []
    for i, ((a, b), p) in enumerate(zip(rows, preds)):
        enc = tok(a, b, truncation=True, max_length=cfg.max_position_embeddings, return_tensors="pt")
        with torch.no_grad():
            logits = model(**enc).logits[0].double()
        if regression:  # one output, compared as a number (relative to its size above 1)
            d = abs(float(logits[0]) - p["score"]) / max(1.0, abs(float(logits[0])))
            max_diff = max(max_diff, d)
            if d > tol or p["label"] != model.config.id2label[0]:
                bad.append(f"example {i}: HF {float(logits[0]):.6f} bertpt {p['score']:.6f} ({p['label']})")
            continue
        probs = torch.softmax(logits, dim=-1)
        label = model.config.id2label[int(probs.argmax())]
        for j, name in model.config.id2label.items():
            d = abs(float(probs[j]) - p["probabilities"][name])
            max_diff = max(max_diff, d)
            if d > tol:
                bad.append(f"example {i}: p({name}) HF {float(probs[j]):.6f} bertpt {p['probabilities'][name]:.6f}")
        if label != p["label"] and abs(float(probs.max()) - p["score"]) > tol:
            bad.append(f"example {i}: label HF {label} bertpt {p['label']}")
    what = "regression outputs" if regression else "classifier labels and probabilities"
    ck.check(not bad, f"{what} ({len(preds)} examples), max difference = {max_diff:.2e}",
             "; ".join(bad[:4]))
    return max_diff


def read_conll(path):
    """Sentences of a CoNLL file as (words, tags): word first, tag last, -DOCSTART- skipped."""
    sentences, words, tags = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in list(f) + [""]:
            cols = line.split()
            if not cols:
                if words:
                    sentences.append((words, tags))
                words, tags = [], []
            elif cols[0] != "-DOCSTART-":
                words.append(cols[0])
                tags.append(cols[-1] if len(cols) > 1 else None)
    return sentences


def check_tagger(path, conll_in, pred_out, tol, ck):
    """A token classifier (finetune --task token-classification): loads in transformers with every
    tensor, and its tag per word — the softmax of the word's first sub-token, as the token-classification
    example predicts — equals `bertpt predict`'s label and score."""
    from transformers import AutoModelForTokenClassification, BertForTokenClassification, BertTokenizerFast

    raw, cfg = check_config(path, ck)
    check_tokenizer_files(path, ck)
    model = load_model(BertForTokenClassification, path, ck, "BertForTokenClassification")
    auto = load_model(AutoModelForTokenClassification, path, ck, "AutoModelForTokenClassification")
    ck.check(type(auto).__name__ == "BertForTokenClassification", "AutoModelForTokenClassification picks "
             "BertForTokenClassification", type(auto).__name__)
    want_id2label = {int(k): v for k, v in raw.get("id2label", {}).items()}
    ck.check(model.config.id2label == want_id2label and model.classifier.out_features == len(want_id2label),
             "tagger id2label and classifier rows as bertpt wrote them", str(model.config.id2label))
    tok = BertTokenizerFast.from_pretrained(path)
    sentences = read_conll(conll_in)
    with open(pred_out, encoding="utf-8") as f:
        preds = [json.loads(l) for l in f if l.strip()]
    ck.check(len(sentences) == len(preds), "bertpt predict: one line per sentence", f"{len(preds)} vs {len(sentences)}")
    max_diff, bad, words = tagger_differences(model, tok, sentences, preds, cfg.max_position_embeddings, tol)
    ck.check(not bad and words > 0, f"tagger labels and scores ({words} words), max difference = {max_diff:.2e}",
             "; ".join(bad[:4]))
    return max_diff


def tagger_differences(model, tok, sentences, preds, max_length, tol):
    """transformers' tag and probability of every word (the softmax of its first sub-token, the words
    split with is_split_into_words=True) against `bertpt predict`'s lines: (largest |probability
    difference|, the disagreements, the words compared)."""
    import torch

    max_diff, bad, words = 0.0, [], 0
    for i, ((ws, _), p) in enumerate(zip(sentences, preds)):
        enc = tok(ws, is_split_into_words=True, truncation=True, max_length=max_length, return_tensors="pt")
        with torch.no_grad():
            probs = torch.softmax(model(**enc).logits[0].double(), dim=-1)
        first = {}
        for t, w in enumerate(enc.word_ids()):
            if w is not None and w not in first:
                first[w] = t
        for w in range(len(ws)):
            if w not in first:  # cut off by truncation: bertpt gives no tag either
                if p["labels"][w] is not None:
                    bad.append(f"sentence {i} word {w}: HF has no token, bertpt {p['labels'][w]}")
                continue
            words += 1
            row = probs[first[w]]
            label, score = model.config.id2label[int(row.argmax())], float(row.max())
            d = abs(score - p["scores"][w])
            max_diff = max(max_diff, d)
            if d > tol or label != p["labels"][w]:
                bad.append(f"sentence {i} word {w} {ws[w]!r}: HF {label} {score:.6f} bertpt {p['labels'][w]} "
                           f"{p['scores'][w]:.6f}")
    return max_diff, bad, words


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mlm", required=True, help="bertpt MLM checkpoint dir (RUN/checkpoint-N)")
    ap.add_argument("--fill-mask-json", help="output of `bertpt fill-mask --json` on --mlm")
    ap.add_argument("--encode-input", help="text file given to `bertpt tokenizer encode -i`")
    ap.add_argument("--encode-output", help="its output (ids, one line per input line)")
    ap.add_argument("--clf", help="fine-tuned classifier dir (finetune's OUT/best)")
    ap.add_argument("--predict-input", help="JSONL examples given to `bertpt predict --input`")
    ap.add_argument("--predict-output", help="bertpt predict's JSONL output")
    ap.add_argument("--reg", help="fine-tuned regression model dir (finetune --problem-type regression: OUT/best)")
    ap.add_argument("--reg-input", help="JSONL pairs (text, text_pair) given to `bertpt predict` with --reg")
    ap.add_argument("--ner", help="fine-tuned token classifier dir (finetune --task token-classification: OUT/best)")
    ap.add_argument("--ner-input", help="CoNLL sentences given to `bertpt predict` with --ner")
    ap.add_argument("--text-field", default="text")
    ap.add_argument("--text-pair-field", default=None)
    ap.add_argument("--bertpt", help="bertpt binary: make whichever outputs were not given, and check HF -> bertpt")
    ap.add_argument("--text", action="append", help="fill-mask text (with --bertpt; repeatable)")
    ap.add_argument("--top-k", type=int, default=5)
    ap.add_argument("--tol", type=float, default=1e-3, help="largest allowed |probability difference|")
    ap.add_argument("--threads", type=int, default=0, help="torch and bertpt threads (0: default)")
    args = ap.parse_args()

    import torch
    import transformers
    from transformers import AutoConfig, AutoModelForMaskedLM, BertForMaskedLM, BertTokenizer

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    transformers.logging.set_verbosity_warning()
    print(f"transformers {transformers.__version__}, torch {torch.__version__}, python {sys.version.split()[0]}")
    ck = Checker()
    tmp = tempfile.TemporaryDirectory(prefix="verify-hf-")
    thr = ["--threads", str(args.threads)] if args.threads > 0 else []

    if args.bertpt:
        if not args.fill_mask_json:
            args.fill_mask_json = os.path.join(tmp.name, "fill-mask.json")
            run_bertpt(args.bertpt, ["fill-mask", "--model", args.mlm, "--top-k", str(args.top_k), "--json", "-q"]
                       + thr + (args.text or DEFAULT_TEXTS), args.fill_mask_json)
        if not args.encode_input:
            args.encode_input = os.path.join(tmp.name, "sentences.txt")
            with open(args.encode_input, "w", encoding="utf-8") as f:
                f.write("\n".join(DEFAULT_SENTENCES) + "\n")
            args.encode_output = None
        if not args.encode_output:
            args.encode_output = os.path.join(tmp.name, "ids.txt")
            run_bertpt(args.bertpt, ["tokenizer", "encode", "-t", args.mlm, "-i", args.encode_input,
                                     "-o", args.encode_output, "-q"])
        if args.clf and args.predict_input and not args.predict_output:
            args.predict_output = os.path.join(tmp.name, "pred.jsonl")
            run_bertpt(args.bertpt, ["predict", "--model", args.clf, "--input", args.predict_input,
                                     "--output", args.predict_output, "--text-field", args.text_field, "-q"]
                       + (["--text-pair-field", args.text_pair_field] if args.text_pair_field else []) + thr)

        if args.reg:
            args.reg_output = os.path.join(tmp.name, "pred-reg.jsonl")
            run_bertpt(args.bertpt, ["predict", "--model", args.reg, "--input", args.reg_input, "--output",
                                     args.reg_output, "--text-field", "text", "--text-pair-field", "text_pair", "-q"]
                       + thr)

        if args.ner:
            args.ner_output = os.path.join(tmp.name, "pred-ner.jsonl")
            run_bertpt(args.bertpt, ["predict", "--model", args.ner, "--input", args.ner_input, "--output",
                                     args.ner_output, "-q"] + thr)

    # --- MLM checkpoint
    raw, cfg = check_config(args.mlm, ck)
    check_tokenizer_files(args.mlm, ck)
    model = load_model(BertForMaskedLM, args.mlm, ck, "BertForMaskedLM")
    auto = load_model(AutoModelForMaskedLM, args.mlm, ck, "AutoModelForMaskedLM")
    ck.check(type(auto).__name__ == "BertForMaskedLM", "AutoModelForMaskedLM picks BertForMaskedLM", type(auto).__name__)
    dec = model.cls.predictions.decoder
    emb = model.bert.embeddings.word_embeddings
    ck.check(dec.weight.data_ptr() == emb.weight.data_ptr(), "decoder.weight is tied to word_embeddings.weight")
    ck.check(dec.bias is not None and dec.bias.data_ptr() == model.cls.predictions.bias.data_ptr(),
             "decoder.bias is cls.predictions.bias")
    same = all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), auto.state_dict().values()))
    ck.check(same, "AutoModelForMaskedLM weights == BertForMaskedLM weights")

    with captured_hf_warnings() as warns:
        tok = BertTokenizer.from_pretrained(args.mlm)
    ck.check(not warns, "BertTokenizer.from_pretrained: no warnings", " | ".join(warns))
    specials = {"pad": tok.pad_token_id, "unk": tok.unk_token_id, "cls": tok.cls_token_id,
                "sep": tok.sep_token_id, "mask": tok.mask_token_id}
    ck.check(None not in specials.values() and tok.unk_token_id != tok.mask_token_id,
             "BertTokenizer special token ids", str(specials))
    ck.check(specials["pad"] == raw.get("pad_token_id", 0), "config pad_token_id == tokenizer [PAD] id",
             f"{raw.get('pad_token_id')} vs {specials['pad']}")
    ck.check(len(tok) == cfg.vocab_size, "len(BertTokenizer) == config vocab_size", f"{len(tok)} vs {cfg.vocab_size}")
    if args.encode_input and args.encode_output:
        check_encode(tok, args.encode_input, args.encode_output, ck)
        if args.bertpt:
            check_decode(args.bertpt, args.mlm, args.encode_output, ck)

    if args.fill_mask_json:
        with open(args.fill_mask_json, encoding="utf-8") as f:
            fm = json.load(f)
        check_fill_mask(model, tok, fm, args.tol, ck)
        check_fill_mask_sequences(model, tok, fm, ck)
        if args.bertpt:
            # HF -> bertpt: a copy saved by transformers must give bertpt the same numbers.
            hf_dir = os.path.join(tmp.name, "hf-saved")
            model.save_pretrained(hf_dir, safe_serialization=True)
            tok.save_pretrained(hf_dir)
            texts = [r["text"] for r in fm["results"]]
            back = os.path.join(tmp.name, "fill-mask-hf-saved.json")
            run_bertpt(args.bertpt, ["fill-mask", "--model", hf_dir, "--top-k", str(args.top_k), "--json", "-q"]
                       + thr + texts, back)
            with open(back, encoding="utf-8") as f:
                fm2 = json.load(f)
            check_fill_mask(model, tok, fm2, args.tol, ck, label="bertpt fill-mask on HF save_pretrained copy")

    if args.clf:
        check_classifier(args.clf, args.predict_input, args.predict_output, args.text_field,
                         args.text_pair_field, args.tol, ck)

    if args.reg and args.bertpt:
        check_classifier(args.reg, args.reg_input, args.reg_output, "text", "text_pair", args.tol, ck)

    if args.ner and args.bertpt:
        check_tagger(args.ner, args.ner_input, args.ner_output, args.tol, ck)

    print(f"{ck.passed} passed, {ck.failed} failed")
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
