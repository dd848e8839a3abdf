"""transformers' token classifiers as the referee of bertpt's (tests/model/token_classifier_peer_test.cc).

  token_classifier.py OUT_DIR ARCH NUM_LABELS
      ARCH bert or modernbert: a small random BertForTokenClassification /
      ModernBertForTokenClassification with spread weights, saved by save_pretrained to OUT_DIR, and
      its eval-mode logits on a padded batch of fixed ids written to OUT_DIR/logits.json as
      {"input_ids": [[...]], "attention_mask": [[...]], "logits": [[[...]]]}.
"""
import json
import os
import sys

import torch
from transformers import (BertConfig, BertForTokenClassification, ModernBertConfig,
                          ModernBertForTokenClassification)


def main(out_dir, arch, num_labels):
    torch.manual_seed(7)
    if arch == "bert":
        config = BertConfig(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                            intermediate_size=64, max_position_embeddings=64, num_labels=num_labels)
        model = BertForTokenClassification(config)
    else:
        config = ModernBertConfig(vocab_size=99, hidden_size=32, num_hidden_layers=3, num_attention_heads=4,
                                  intermediate_size=48, max_position_embeddings=64, local_attention=8,
                                  global_attn_every_n_layers=2, num_labels=num_labels, pad_token_id=0)
        model = ModernBertForTokenClassification(config)
    with torch.no_grad():  # spread: a swapped or missing tensor must change the logits
        for name, p in model.named_parameters():
            p.add_(torch.randn_like(p) * (0.2 if "norm" in name.lower() else 0.05))
    model.eval()
    ids = torch.tensor([[2, 11, 12, 13, 14, 15, 3, 0, 0, 0], [2, 21, 22, 23, 24, 25, 26, 27, 28, 3]])
    mask = (ids != 0).long()
    mask[1] = 1
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=mask).logits
    os.makedirs(out_dir, exist_ok=True)
    model.save_pretrained(out_dir, safe_serialization=True)
    with open(os.path.join(out_dir, "logits.json"), "w") as f:
        json.dump({"input_ids": ids.tolist(), "attention_mask": mask.tolist(), "logits": logits.tolist()}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
