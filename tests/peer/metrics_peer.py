#!/usr/bin/env python3
"""The metrics' references: scikit-learn, scipy and seqeval on the predictions in a JSON file.

  metrics_peer.py CASES.json  ->  one JSON object on stdout

CASES.json: {"classification": [{"gold": [ids], "predicted": [ids], "classes": N}, ...],
             "regression": [{"gold": [x], "predicted": [y]}, ...],
             "entities": [{"gold": [[tags]], "predicted": [[tags]]}, ...]}
Output: the same lists, each case the reference's numbers (bertpt's tests/classify/metrics_peer_test.cc
compares its own to them).
"""
import json
import sys
import warnings

import numpy as np
from scipy import stats
from seqeval import metrics as seq
from sklearn import metrics as sk

warnings.filterwarnings("ignore")  # zero-division and constant-input warnings: the values are compared


def classification(case):
    gold, pred, labels = case["gold"], case["predicted"], list(range(case["classes"]))
    out = {
        "accuracy": sk.accuracy_score(gold, pred),
        "macro_f1": sk.f1_score(gold, pred, average="macro", zero_division=0),
        "macro_precision": sk.precision_score(gold, pred, average="macro", zero_division=0),
        "macro_recall": sk.recall_score(gold, pred, average="macro", zero_division=0),
        "mcc": sk.matthews_corrcoef(gold, pred),
        "per_class_f1": list(sk.f1_score(gold, pred, labels=labels, average=None, zero_division=0)),
    }
    if case["classes"] == 2:
        out["binary_f1"] = sk.f1_score(gold, pred, average="binary", pos_label=1, zero_division=0)
    return out


def finite(v):
    return None if v is None or not np.isfinite(v) else float(v)


def regression(case):
    gold, pred = np.array(case["gold"]), np.array(case["predicted"])
    return {
        "pearson": finite(stats.pearsonr(gold, pred)[0]) if len(gold) > 1 else None,
        "spearman": finite(stats.spearmanr(gold, pred)[0]) if len(gold) > 1 else None,
        "mse": float(sk.mean_squared_error(gold, pred)),
    }


def entities(case):
    gold, pred = case["gold"], case["predicted"]
    report = seq.classification_report(gold, pred, output_dict=True, zero_division=0)
    per_type = {t: {"precision": r["precision"], "recall": r["recall"], "f1": r["f1-score"], "support": int(r["support"])}
                for t, r in report.items() if t not in ("micro avg", "macro avg", "weighted avg")}
    return {
        "precision": seq.precision_score(gold, pred, zero_division=0),
        "recall": seq.recall_score(gold, pred, zero_division=0),
        "f1": seq.f1_score(gold, pred, zero_division=0),
        "accuracy": seq.accuracy_score(gold, pred),
        "entities": [[list(e) for e in seq.sequence_labeling.get_entities(s)] for s in gold],
        "per_type": per_type,
    }


cases = json.load(open(sys.argv[1]))
json.dump({"classification": [classification(c) for c in cases["classification"]],
           "regression": [regression(c) for c in cases["regression"]],
           "entities": [entities(c) for c in cases["entities"]]}, sys.stdout)
