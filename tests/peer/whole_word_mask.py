#!/usr/bin/env python3
"""bertpt's --whole-word-mask against transformers' DataCollatorForLanguageModeling(whole_word_mask=True):

  whole_word_mask.py BERTPT_BIN TOKENIZER_DIR DUMP_DIR

DUMP_DIR holds the micro-batches of `bertpt train --whole-word-mask --dump-batches` on a corpus of
lowercase words. Each packed block is cut at its special tokens into segments; a segment is decoded
and re-encoded by the HF fast tokenizer (the same vocabulary), which gives the offsets from which the
collator derives its words (_calc_word_ids_and_prob_mask: tokens with no gap between them). Then:
- every HF word is selected by bertpt whole or not at all (labels set on all its tokens or none);
- bertpt's word-selection rate, its share of selected tokens and its 80/10/10 split equal the
  collator's own on the same segments (its masks drawn 20 times) within 4 standard errors (for the
  share of tokens, the standard error of a ratio over words, whose tokens are selected together).
"""
import glob
import math
import os
import sys

import numpy as np
import torch
from transformers import BertTokenizerFast, DataCollatorForLanguageModeling

P = 0.15


def main(tok_dir, dump):
    tok = BertTokenizerFast.from_pretrained(tok_dir)
    special = set(tok.all_special_ids)
    mask_id = tok.mask_token_id
    segments = []  # (ids, bertpt labels, bertpt inputs)
    for d in sorted(glob.glob(os.path.join(dump, "step-*", "rank-*", "micro-*"))):
        ids_in = np.load(os.path.join(d, "input_ids.npy"))
        labels = np.load(os.path.join(d, "labels.npy"))
        for row_in, row_lab in zip(ids_in, labels):
            orig = np.where(row_lab != -100, row_lab, row_in)
            start = 0
            for i in range(len(orig) + 1):
                if i == len(orig) or int(orig[i]) in special:
                    if i - start >= 2:
                        segments.append((orig[start:i], row_lab[start:i], row_in[start:i]))
                    start = i + 1
    failures, words, selected_words, tokens, selected_tokens = [], 0, 0, 0, 0
    word_sizes = []  # (tokens of the word, selected or not): the token share's sampling units
    masked = randomized = 0
    usable = []
    for ids, lab, inp in segments:
        enc = tok(tok.decode(ids.tolist()), add_special_tokens=False, return_offsets_mapping=True)
        if enc["input_ids"] != ids.tolist():
            continue  # the segment starts inside a word ("##…"): its text does not re-encode to it
        offsets = np.array(enc["offset_mapping"])[None]
        word_ids, _ = DataCollatorForLanguageModeling._calc_word_ids_and_prob_mask(offsets, np.zeros((1, len(ids)), int))
        word_ids = word_ids[0]
        usable.append((ids, offsets))
        sel = lab != -100
        for w in set(word_ids.tolist()):
            member = word_ids == w
            if sel[member].any() and not sel[member].all():
                failures.append(f"a word split by the mask: tokens {ids[member].tolist()} selected {sel[member].tolist()}")
            whole = bool(sel[member].all())
            words += 1
            selected_words += whole
            word_sizes.append((int(member.sum()), whole))
        tokens += len(ids)
        selected_tokens += int(sel.sum())
        masked += int((inp[sel] == mask_id).sum())
        randomized += int(((inp[sel] != mask_id) & (inp[sel] != ids[sel])).sum())
    if len(usable) < 0.5 * len(segments) or words < 2000:
        failures.append(f"too few segments to compare: {len(usable)} of {len(segments)}, {words} words")
    # The collator on the same segments, 20 draws each.
    coll = DataCollatorForLanguageModeling(tok, mlm=True, mlm_probability=P, whole_word_mask=True, return_tensors="pt")
    coll.generator = torch.Generator().manual_seed(34)
    h_words = h_sel_words = h_tokens = h_sel = h_masked = h_random = 0
    h_word_sizes = []
    for ids, offsets in usable:
        for _ in range(20):
            inputs = torch.tensor(ids[None], dtype=torch.long)
            out, labels = coll.torch_mask_tokens(inputs.clone(), torch.zeros_like(inputs), torch.tensor(offsets))
            sel = (labels[0] != -100).numpy()
            word_ids, _ = DataCollatorForLanguageModeling._calc_word_ids_and_prob_mask(offsets, np.zeros((1, len(ids)), int))
            for w in set(word_ids[0].tolist()):
                m = word_ids[0] == w
                whole = bool(sel[m].all())
                h_words += 1
                h_sel_words += whole
                h_word_sizes.append((int(m.sum()), whole))
            h_tokens += len(ids)
            h_sel += int(sel.sum())
            o = out[0].numpy()[sel]
            h_masked += int((o == mask_id).sum())
            h_random += int(((o != mask_id) & (o != ids[sel])).sum())

    def token_share_variance(units):
        # The variance of the share of tokens selected, as a ratio over words (every token belongs to
        # one): a word's tokens are selected together, so a binomial over tokens understates it.
        t = np.array([u[0] for u in units], float)
        s = np.array([u[1] for u in units], float)
        share = (t * s).sum() / t.sum()
        return ((t * (s - share)) ** 2).sum() / t.sum() ** 2

    def close(name, a, n_a, b, n_b, se=None):
        pa, pb = a / n_a, b / n_b
        if se is None:
            se = math.sqrt(pa * (1 - pa) / n_a + pb * (1 - pb) / n_b)
        ok = abs(pa - pb) <= 4 * se + 1e-12
        print(("ok   " if ok else "FAIL ") + f"{name}: bertpt {pa:.4f} (n={n_a}), transformers {pb:.4f} (n={n_b})")
        if not ok:
            failures.append(name)

    print(f"{len(usable)} segments, {words} words, {tokens} tokens compared")
    close("words selected", selected_words, words, h_sel_words, h_words)
    se_tokens = math.sqrt(token_share_variance(word_sizes) + token_share_variance(h_word_sizes))
    close("tokens selected", selected_tokens, tokens, h_sel, h_tokens, se=se_tokens)
    close("selected tokens replaced by [MASK]", masked, selected_tokens, h_masked, h_sel)
    close("selected tokens replaced by a random id", randomized, selected_tokens, h_random, h_sel)
    for f in failures[:10]:
        print("FAIL", f)
    print(f"whole_word_mask: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[2], sys.argv[3]))
