"""Average precision from true/false positives pooled over frames (VOC "area" mode).

As the reference (mmdet's ``average_precision``): rows sorted by descending score (stable
here), cumulative TP and FP, ``recall = tp / max(num_gts, eps)``,
``precision = tp / max(tp + fp, eps)`` with ``eps = finfo(float32).eps``; the precision
envelope is made non-increasing from the end, and AP is the area under it where recall
changes. No GT gives recall 0 and AP 0; no prediction gives AP 0.
"""

from __future__ import annotations

import numpy as np

from .matching import score_order

EPS = float(np.finfo(np.float32).eps)


def voc_area_ap(tp_sorted: np.ndarray, num_gts: int) -> float:
    """AP of predictions already sorted by descending score; ``tp_sorted`` is bool ``(N,)``."""
    tp_sorted = np.asarray(tp_sorted, dtype=np.float64)
    tp = np.cumsum(tp_sorted)
    fp = np.cumsum(1.0 - tp_sorted)
    recalls = tp / max(float(num_gts), EPS)
    precisions = tp / np.maximum(tp + fp, EPS)
    mrec = np.concatenate(([0.0], recalls, [1.0]))
    mpre = np.concatenate(([0.0], precisions, [0.0]))
    mpre = np.maximum.accumulate(mpre[::-1])[::-1]
    changed = np.flatnonzero(mrec[1:] != mrec[:-1])
    return float(np.sum((mrec[changed + 1] - mrec[changed]) * mpre[changed + 1]))


def average_precisions(scores: np.ndarray, tp: np.ndarray, num_gts: int) -> list[float]:
    """AP at each threshold from pooled ``(N,)`` scores and ``(T, N)`` bool TP flags."""
    order = score_order(scores)
    return [voc_area_ap(row[order], num_gts) for row in np.asarray(tp, dtype=bool)]
