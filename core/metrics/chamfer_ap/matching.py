"""Greedy matching of one frame's predictions to its GT polylines of one class.

Each prediction is compared with its single nearest GT (smallest chamfer distance; the first
in GT order on exact ties), once for all thresholds. Predictions are visited by descending
score (a stable sort: tied scores keep their input order). At threshold ``thr`` a prediction
is a true positive when ``min_cd <= thr`` and its nearest GT is not yet taken; it then takes
it. Otherwise it is a false positive, even if another free GT is within the threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FrameMatch:
    """Matching of P predictions of one frame and class.

    nearest_gt: ``(P,)`` index of each prediction's nearest GT, -1 when the frame has no GT.
    min_cd: ``(P,)`` its chamfer distance (NaN when there is no GT), coordinate units.
    tp: ``(T, P)`` bool, True where the prediction is a true positive at threshold t.
    """

    nearest_gt: np.ndarray
    min_cd: np.ndarray
    tp: np.ndarray


def score_order(scores: np.ndarray) -> np.ndarray:
    """Indices by descending score; ties keep their input order (stable sort)."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


def match_frame(cd: np.ndarray, scores: np.ndarray, thresholds: Sequence[float]) -> FrameMatch:
    """Match predictions to GT from their ``(P, G)`` chamfer distances and ``(P,)`` scores."""
    n_pred, n_gt = cd.shape
    tp = np.zeros((len(thresholds), n_pred), dtype=bool)
    if n_gt == 0:
        return FrameMatch(np.full(n_pred, -1), np.full(n_pred, np.nan), tp)
    nearest = cd.argmin(axis=1)
    min_cd = cd[np.arange(n_pred), nearest]
    order = score_order(scores)
    for t, thr in enumerate(thresholds):
        candidates = order[min_cd[order] <= thr]  # in score order
        # the first candidate (highest score) of each GT takes it; later ones are FPs
        _, first = np.unique(nearest[candidates], return_index=True)
        tp[t, candidates[first]] = True
    return FrameMatch(nearest, min_cd, tp)
