#!/usr/bin/env python3
"""bertpt's RoBERTa and XLM-R (src/model/roberta.h) with the real `transformers` as the referee.

Tokenizers written by `tokenizers` itself, trained here on the fixtures' text: a byte-level BPE with
RobertaProcessing (RoBERTa's) and a Unigram with Metaspace (XLM-R's shape), `<s> <pad> </s> <unk>
<mask>` = 0..4, the mask with lstrip, saved with transformers' PreTrainedTokenizerFast.

HF -> bertpt: a random RobertaForMaskedLM and a random XLMRobertaForMaskedLM (untied decoder) written
by transformers' save_pretrained (safetensors, weights spread out so outputs are far from uniform),
read by

  * `bertpt fill-mask --save-logits`: the logits at every position equal transformers'
    model(**enc).logits within --tol (1e-4) relative to their scale, and the top-5 tokens, scores and
    strings equal pipeline("fill-mask")'s, with the model's own `<mask>`;
  * `bertpt eval`: loss and accuracy equal transformers' on the same masked batches of a dataset
    prepared with `--packing document` (padded rows: RoBERTa's positions skip the padding);
  * `bertpt train --init-from` (3 steps): every weight starts from the HF checkpoint, and the
    checkpoint it writes loads in AutoModelForMaskedLM as the same class with no missing or unexpected
    keys and gives bertpt's logits;
  * `bertpt embed` equals XLMRobertaModel's mean-pooled last hidden states, and on a
    sentence-transformers directory built on the RoBERTa (saved by sentence-transformers),
    SentenceTransformer.encode.

bertpt -> HF: `bertpt train --model roberta-tiny` on data of `bertpt tokenizer train --model bpe`
writes a RobertaForMaskedLM that transformers loads with every key and equal logits.

Fine-tuning (the MLM head dropped, a new head initialised as transformers does), 1 epoch each:

  * `bertpt finetune` of the RoBERTa on SMS Spam Collection lines writes a best/ that
    AutoModelForSequenceClassification loads as RobertaForSequenceClassification with no missing or
    unexpected keys, whose class probabilities equal `bertpt predict`'s (1e-4);
  * the same for regression (GLUE's STS-B pairs) on the untied XLM-R: XLMRobertaForSequenceClassification,
    problem_type regression, scores equal;
  * `bertpt finetune --task token-classification` of the RoBERTa on NCBI-disease sentences:
    AutoModelForTokenClassification loads RobertaForTokenClassification; each word's tag and
    probability on the ids of run_ner.py's tokenization (is_split_into_words with add_prefix_space=True)
    equal `bertpt predict`'s.

Bad input: a directory with only pytorch_model.bin, and a config.json of an unknown model_type, are
refused by fill-mask, eval and train --init-from with exit 1 and one error line naming the file.

Usage: roberta_peer.py --bertpt BIN --shared-data DIR. Exit 0 when every check passes, else 1.
"""

import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_to_bertpt import (start_model_peer, check_eval, check_mlm_logits, guarded,  # noqa: E402
                          load_hf, make_corpus, max_param_delta, spread_weights)

SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]

# The model's own mask token, with the space before it (lstrip), masks near both ends.
TEXTS = [
    "The history of <mask> began in the early years of the century, when several families moved to the "
    "city and built their houses near the river, which is still <mask> today.",
    "<mask> the council decided that the new bridge would be built of stone.",
    "Music and art were taught in every school of the region, and the <mask> grew each year.",
]

# name: (transformers classes, tokenizer, config overrides)
SPECS = {
    "roberta": ("RobertaConfig", "RobertaForMaskedLM", "bpe",
                dict(num_hidden_layers=3, hidden_size=64, num_attention_heads=4, intermediate_size=128)),
    "xlm-roberta-untied": ("XLMRobertaConfig", "XLMRobertaForMaskedLM", "unigram",
                           dict(num_hidden_layers=2, hidden_size=48, num_attention_heads=2, intermediate_size=96,
                                hidden_act="gelu_new", tie_word_embeddings=False)),
}


def corpus_lines(corpus):
    with open(corpus, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def hf_tokenizer(kind, lines, out):
    """A RoBERTa (bpe) or XLM-R-shaped (unigram) tokenizer trained by `tokenizers`, saved as
    transformers saves a fast tokenizer."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from tokenizers import trainers
    from transformers import PreTrainedTokenizerFast

    if kind == "bpe":
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=1200, special_tokens=SPECIALS, show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
        tok.train_from_iterator(lines, trainer)
        tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True,
                                                          add_prefix_space=False)
    else:
        tok = Tokenizer(models.Unigram())
        tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        tok.train_from_iterator(lines, trainers.UnigramTrainer(vocab_size=1500, special_tokens=SPECIALS,
                                                               unk_token="<unk>", show_progress=False))
        tok.post_processor = processors.TemplateProcessing(single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
                                                           special_tokens=[("<s>", 0), ("</s>", 2)])
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True, normalized=False)])
    # clean_up_tokenization_spaces written out: a file without it decodes with the clean-up in bertpt
    # (transformers 4's default) and without it in transformers 5.
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                                   cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>",
                                   clean_up_tokenization_spaces=False)
    fast.save_pretrained(out)
    return fast


def make_hf_checkpoint(work, name, tok, ck):
    import torch
    import transformers

    config_cls, model_cls, _, over = SPECS[name]
    cfg = getattr(transformers, config_cls)(vocab_size=len(tok), pad_token_id=tok.pad_token_id, bos_token_id=0,
                                            eos_token_id=2, max_position_embeddings=130, type_vocab_size=1,
                                            layer_norm_eps=1e-5, **over)
    torch.manual_seed(300)
    model = getattr(transformers, model_cls)(cfg)
    spread_weights(model, 300)
    tied = model.lm_head.decoder.weight is model.roberta.embeddings.word_embeddings.weight
    ck.check(tied == over.get("tie_word_embeddings", True), f"{name}: transformers built the decoder as configured")
    d = os.path.join(work, "hf", name)
    model.save_pretrained(d)
    tok.save_pretrained(d)
    return d


def check_logits(bertpt, d, label, cls_name, tol, ck):
    """fill-mask --save-logits vs transformers' logits, and the pipeline's top-5 (hf_to_bertpt.py)."""
    return check_mlm_logits(bertpt, d, label, cls_name, TEXTS, tol, ck)


def state_of(d):
    import torch
    from transformers import AutoModelForMaskedLM

    m = AutoModelForMaskedLM.from_pretrained(d, dtype=torch.float32)
    return {k: v.detach().clone() for k, v in m.state_dict().items()}


def check_init_from(bertpt, d, data_dir, work, cls_name, tol, ck, steps=3, lr=1e-3):
    name = os.path.basename(d)
    out = os.path.join(work, "init-" + name)
    bertpt.run(["train", "--data", data_dir, "--init-from", d, "--output-dir", out, "--max-steps", str(steps),
                "--save-steps", str(steps), "--per-device-batch-size", "8", "--learning-rate", str(lr),
                "--precision", "fp32", "--report-to", "none", "-q"])
    cdir = os.path.join(out, f"checkpoint-{steps}")
    max_param_delta(state_of(d), state_of(cdir), ck, f"train --init-from {name}", 3 * steps * lr)
    check_logits(bertpt, cdir, f"train --init-from {name} -> checkpoint-{steps}", cls_name, tol, ck)


def check_trained(bertpt, corpus, work, tol, ck):
    """bertpt -> HF: roberta-tiny trained from scratch on a `tokenizer train --model bpe` tokenizer."""
    tok, data, out = (os.path.join(work, n) for n in ("bpe-tok", "bpe-data", "trained"))
    bertpt.run(["tokenizer", "train", "--model", "bpe", "-i", corpus, "--vocab-size", "1000", "--out", tok, "-q"])
    bertpt.run(["prepare", "-i", corpus, "--tokenizer", tok, "--seq-len", "64", "--valid-fraction", "0.1",
                "--out", data, "-q"])
    bertpt.run(["train", "--data", data, "--model", "roberta-tiny", "--output-dir", out, "--max-steps", "12",
                "--save-steps", "12", "--per-device-batch-size", "16", "--learning-rate", "2e-3", "--warmup-steps", "2",
                "--logging-steps", "4", "--precision", "fp32", "--report-to", "none", "-q"])
    metrics = [json.loads(line) for line in open(os.path.join(out, "metrics.jsonl")) if line.strip()]
    losses = [m["loss"] for m in metrics if "loss" in m]
    ck.check(len(losses) >= 2 and losses[-1] < losses[0], "bertpt train --model roberta-tiny: the MLM loss falls",
             str([round(x, 3) for x in losses]))
    cdir = os.path.join(out, "checkpoint-12")
    cfg = json.load(open(os.path.join(cdir, "config.json")))
    ck.check(cfg.get("model_type") == "roberta" and cfg.get("pad_token_id") == 1
             and cfg.get("max_position_embeddings") == 514, "roberta-tiny checkpoint: RoBERTa's config.json",
             json.dumps({k: cfg.get(k) for k in ("model_type", "pad_token_id", "max_position_embeddings")}))
    check_logits(bertpt, cdir, "bertpt-trained roberta-tiny checkpoint-12", "RobertaForMaskedLM", tol, ck)


def check_embed(bertpt, d, work, ck):
    """bertpt embed on an XLM-R: XLMRobertaModel's last hidden states, mean-pooled over the tokens."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    path = os.path.join(work, "embed.npy")
    bertpt.run(["embed", "--model", d, "--pooling", "mean", "--no-normalize", "--output", path, "-q"] + TEXTS)
    tok = AutoTokenizer.from_pretrained(d)
    model = AutoModel.from_pretrained(d, dtype=torch.float32).eval()
    with torch.no_grad():
        want = np.stack([model(**tok(t, return_tensors="pt")).last_hidden_state[0].double().mean(0).numpy()
                         for t in TEXTS])
    got = np.load(path)
    diff = float(np.abs(got - want).max()) if got.shape == want.shape else float("inf")
    ck.check(diff <= 1e-4, f"bertpt embed == {type(model).__name__}'s mean-pooled last hidden states "
                           f"(max |d| {diff:.1e})")


def check_embed_sentence_transformers(bertpt, d, work, ck):
    """A sentence-transformers directory built on the RoBERTa (Transformer -> mean Pooling -> Normalize, saved
    by the pinned sentence-transformers): `bertpt embed --model ST_DIR`, no flags, == SentenceTransformer.encode."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer

    st_dir = os.path.join(work, "st-roberta")
    word = Transformer(d, max_seq_length=64)
    SentenceTransformer(modules=[word, Pooling(word.get_word_embedding_dimension(), pooling_mode="mean"),
                                 Normalize()], device="cpu").save(st_dir)
    want = SentenceTransformer(st_dir, device="cpu").encode(TEXTS, convert_to_numpy=True).astype(np.float64)
    path = os.path.join(work, "embed-st-roberta.npy")
    bertpt.run(["embed", "--model", st_dir, "--output", path, "-q"] + TEXTS)
    got = np.load(path)
    diff = float(np.abs(got - want).max()) if got.shape == want.shape else float("inf")
    ck.check(diff <= 1e-5, f"sentence-transformers on a RoBERTa: bertpt embed == SentenceTransformer.encode "
                           f"(max |d| {diff:.1e})")


def sms_jsonl(data, out, start, count):
    """`count` SMS Spam Collection lines from line `start` as JSONL {"text", "label"}."""
    with open(os.path.join(data, "sms_spam", "SMSSpamCollection"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t", 1) for line in f if "\t" in line][start:start + count]
    with open(out, "w", encoding="utf-8") as f:
        for label, text in rows:
            f.write(json.dumps({"text": text, "label": label}) + "\n")
    return out


def stsb_jsonl(data, split, out):
    """GLUE's STS-B sample as JSONL pairs with numeric labels."""
    import csv

    with open(os.path.join(data, "glue_samples", "STS-B", split + ".tsv"), encoding="utf-8") as f, \
            open(out, "w", encoding="utf-8") as o:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            o.write(json.dumps({"text": row["sentence1"], "text_pair": row["sentence2"],
                                "label": float(row["score"])}) + "\n")
    return out


def read_jsonl(path):
    return [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]


def check_sequence_finetune(bertpt, d, name, cls_name, data, work, ck, regression=False):
    """finetune a MaskedLM checkpoint for 1 epoch -> best/ loads in AutoModelForSequenceClassification as
    cls_name with every key, and its outputs equal `bertpt predict`'s."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    out = os.path.join(work, "ft-" + name)
    if regression:
        train, valid = (stsb_jsonl(data, s, os.path.join(work, f"stsb-{s}.jsonl")) for s in ("train", "dev"))
        pair = ["--text-pair-field", "text_pair"]
    else:
        train = sms_jsonl(data, os.path.join(work, "sms-train.jsonl"), 0, 64)
        valid = sms_jsonl(data, os.path.join(work, "sms-valid.jsonl"), 64, 24)
        pair = []
    bertpt.run(["finetune", "--model", d, "--train", train, "--valid", valid, "--output-dir", out, "--epochs", "1",
                "--per-device-batch-size", "8", "--max-seq-len", "64", "--learning-rate", "1e-3", "--precision",
                "fp32", "--report-to", "none", "-q"] + pair)
    best = os.path.join(out, "best")
    cfg = json.load(open(os.path.join(best, "config.json")))
    want_type = "regression" if regression else "single_label_classification"
    ck.check(cfg.get("architectures") == [cls_name] and cfg.get("problem_type") == want_type
             and "id2label" in cfg and "label2id" in cfg,
             f"finetune {name}: best/config.json names {cls_name}, {want_type}, id2label/label2id",
             json.dumps({k: cfg.get(k) for k in ("architectures", "problem_type", "id2label")}))
    label = f"finetune {name} -> best/"
    model = load_hf(AutoModelForSequenceClassification, best, ck, label)
    ck.check(type(model).__name__ == cls_name, f"{label}: transformers reads it as {cls_name}", type(model).__name__)
    pred = os.path.join(work, f"pred-{name}.jsonl")
    bertpt.run(["predict", "--model", best, "--input", valid, "--output", pred, "--max-seq-len", "64", "-q"] + pair)
    tok = AutoTokenizer.from_pretrained(best)
    rows, preds = read_jsonl(valid), read_jsonl(pred)
    worst, spread = 0.0, []
    with torch.no_grad():
        for row, p in zip(rows, preds):
            enc = tok(row["text"], row.get("text_pair"), truncation=True, max_length=64, return_tensors="pt")
            logits = model(**enc).logits[0].double()
            if regression:
                worst = max(worst, abs(float(logits[0]) - p["score"]))
                spread.append(float(logits[0]))
            else:
                probs = torch.softmax(logits, -1)
                for i, lab in model.config.id2label.items():
                    worst = max(worst, abs(float(probs[int(i)]) - p["probabilities"][lab]))
                spread.append(float(logits[0] - logits[-1]))
    ok = len(rows) == len(preds) and worst <= 1e-4
    ck.check(ok, f"{label}: transformers' {'scores' if regression else 'probabilities'} == bertpt predict's on "
                 f"{len(rows)} examples (max |d| {worst:.1e})", f"{len(preds)} lines for {len(rows)}")
    ck.check(float(np.std(spread)) > 1e-3, f"{label}: the outputs differ between examples (the check can fail)")


def check_token_finetune(bertpt, d, name, cls_name, data, work, ck):
    """finetune --task token-classification (NCBI-disease) -> best/ loads in AutoModelForTokenClassification
    with every key; its per-word tags and probabilities on the ids run_ner.py gives RoBERTa
    (is_split_into_words, add_prefix_space=True) equal `bertpt predict`'s."""
    import torch
    from tokenizers import pre_tokenizers
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    ner = os.path.join(data, "scibert", "ner", "NCBI-disease")
    blocks = open(os.path.join(ner, "train.txt"), encoding="utf-8").read().strip().split("\n\n")
    train, valid = os.path.join(work, "ner-train.txt"), os.path.join(work, "ner-valid.txt")
    open(train, "w", encoding="utf-8").write("\n\n".join(blocks[:48]) + "\n")
    open(valid, "w", encoding="utf-8").write("\n\n".join(blocks[48:64]) + "\n")
    out = os.path.join(work, "ner-" + name)
    bertpt.run(["finetune", "--task", "token-classification", "--model", d, "--train", train, "--valid", valid,
                "--output-dir", out, "--epochs", "1", "--per-device-batch-size", "8", "--max-seq-len", "128",
                "--learning-rate", "1e-3", "--precision", "fp32", "--report-to", "none", "-q"])
    best = os.path.join(out, "best")
    label = f"finetune --task token-classification {name} -> best/"
    cfg = json.load(open(os.path.join(best, "config.json")))
    ck.check(cfg.get("architectures") == [cls_name] and "id2label" in cfg,
             f"{label}: config.json names {cls_name} with id2label", json.dumps(cfg.get("architectures")))
    model = load_hf(AutoModelForTokenClassification, best, ck, label)
    ck.check(type(model).__name__ == cls_name, f"{label}: transformers reads it as {cls_name}", type(model).__name__)
    pred = os.path.join(work, f"ner-pred-{name}.jsonl")
    bertpt.run(["predict", "--model", best, "--input", valid, "--output", pred, "-q"])
    tok = AutoTokenizer.from_pretrained(best)
    backend = tok.backend_tokenizer
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)  # RobertaTokenizerFast's
    sentences = [[line.split("\t")[0] for line in b.split("\n")] for b in blocks[48:64]]
    preds = read_jsonl(pred)
    worst, wrong, n = 0.0, 0, 0
    with torch.no_grad():
        for words, p in zip(sentences, preds):
            # The words as run_ner.py tokenizes them for RoBERTa (is_split_into_words, add_prefix_space=True),
            # cut to 128 ids with truncation=True; a word's first piece is scored, a word cut off has none.
            enc = backend.encode(words, is_pretokenized=True)
            ids, word_ids = enc.ids, enc.word_ids
            if len(ids) > 128:
                ids, word_ids = ids[:127] + [tok.sep_token_id], word_ids[:127] + [None]
            first = [word_ids.index(i) if i in word_ids else None for i in range(len(words))]
            probs = torch.softmax(model(input_ids=torch.tensor([ids])).logits[0].double(), -1)
            for i, f in enumerate(first):
                if f is None:
                    wrong += p["scores"][i] is not None
                    continue
                k = int(probs[f].argmax())
                wrong += model.config.id2label[k] != p["labels"][i]
                worst = max(worst, abs(float(probs[f, k]) - p["scores"][i]))
                n += 1
    ck.check(len(preds) == len(sentences) and wrong == 0 and worst <= 1e-4,
             f"{label}: transformers' tag and probability of {n} words == bertpt predict's (max |d| {worst:.1e})",
             f"{wrong} tags differ, {len(preds)} lines for {len(sentences)}")


def one_error_line(res, ck, label, *needles):
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    errs = [line for line in lines if line.startswith("bertpt: error:")]
    others = [line for line in lines if line not in errs and not line.strip().startswith("hint:")]
    text = " ".join(lines)
    ok = res.returncode == 1 and len(errs) == 1 and not others and all(n in text for n in needles)
    ck.check(ok, f"{label}: exit 1, one error line naming {', '.join(needles)}",
             f"exit {res.returncode}; stderr: {res.stderr.strip()!r}")


def check_bad_input(bertpt, d, data_dir, work, ck):
    import torch
    from safetensors.torch import load_file

    binonly, unknown = os.path.join(work, "bin-only"), os.path.join(work, "unknown-type")
    for out in (binonly, unknown):
        shutil.copytree(d, out)
    os.remove(os.path.join(binonly, "model.safetensors"))
    torch.save(load_file(os.path.join(d, "model.safetensors")), os.path.join(binonly, "pytorch_model.bin"))
    cfg = json.load(open(os.path.join(unknown, "config.json")))
    cfg["model_type"] = "gpt2"
    json.dump(cfg, open(os.path.join(unknown, "config.json"), "w"))
    # fill-mask and eval name the file and the class that converts it; train's own message names the
    # directory.
    named = (os.path.join(binonly, "pytorch_model.bin"), cfg["architectures"][0])
    for label, m, needles in (("pytorch_model.bin only", binonly,
                               (binonly, "pytorch_model.bin", "safe_serialization=True")),
                              ("model_type gpt2", unknown, (os.path.join(unknown, "config.json"), "'gpt2'",
                                                            '"roberta"', '"xlm-roberta"'))):
        cases = {"fill-mask": ["fill-mask", "--model", m, "-q", "<mask> is here."],
                 "eval": ["eval", "--model", m, "--data", data_dir, "-q"],
                 "train --init-from": ["train", "--data", data_dir, "--init-from", m, "--output-dir",
                                       os.path.join(work, "bad-run"), "--max-steps", "1", "-q"]}
        for what, args in cases.items():
            extra = named if m == binonly and what != "train --init-from" else ()
            one_error_line(bertpt.run(args, check=False), ck, f"{label}: {what} refuses it", *needles, *extra)


def main():
    args, ck, work, bertpt, tmp = start_model_peer(__doc__.split("\n\n")[0], "roberta-peer-")  # noqa: F841 (tmp: keeps work)

    corpus = make_corpus(args.shared_data, work, wiki_bytes=120_000)
    lines = corpus_lines(corpus)
    ckpts = {}
    for name, (_, cls_name, kind, _) in SPECS.items():
        tok_dir, data = os.path.join(work, "tok-" + name), os.path.join(work, "data-" + name)
        tok = hf_tokenizer(kind, lines, tok_dir)
        bertpt.run(["prepare", "-i", corpus, "--tokenizer", tok_dir, "--seq-len", "64", "--packing", "document",
                    "--valid-fraction", "0.15", "--out", data, "-q"])
        d = make_hf_checkpoint(work, name, tok, ck)
        ckpts[name] = d
        model = guarded(ck, f"{name}: logits", check_logits, bertpt, d, name, cls_name, args.tol, ck)
        if model is not None:
            guarded(ck, f"{name}: eval", check_eval, bertpt, d, data, name, model, ck)
        guarded(ck, f"{name}: train --init-from", check_init_from, bertpt, d, data, work, cls_name, args.tol, ck)
        if name == "roberta":
            guarded(ck, f"{name}: finetune", check_sequence_finetune, bertpt, d, name,
                    "RobertaForSequenceClassification", args.shared_data, work, ck)
            guarded(ck, f"{name}: finetune --task token-classification", check_token_finetune, bertpt, d, name,
                    "RobertaForTokenClassification", args.shared_data, work, ck)
            guarded(ck, f"{name}: embed (sentence-transformers)", check_embed_sentence_transformers, bertpt, d, work,
                    ck)
        else:
            guarded(ck, f"{name}: finetune (regression)", check_sequence_finetune, bertpt, d, name,
                    "XLMRobertaForSequenceClassification", args.shared_data, work, ck, True)
        if name.startswith("xlm"):
            guarded(ck, f"{name}: embed", check_embed, bertpt, d, work, ck)
            guarded(ck, f"{name}: bad input", check_bad_input, bertpt, d, data, work, ck)
    guarded(ck, "train --model roberta-tiny", check_trained, bertpt, corpus, work, args.tol, ck)

    print(f"{ck.passed} passed, {ck.failed} failed" + (f": {ck.failures}" if ck.failed else ""))
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
