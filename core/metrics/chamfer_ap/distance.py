"""Chamfer distance between every prediction and every GT polyline of one frame and class.

For resampled point sets A (prediction) and B (GT):
``CD = (sum_a min_b |a-b| / len(A) + sum_b min_a |a-b| / len(B)) / 2``, with Euclidean 2-D
distances. Distances come from ``cdist`` over many lines at once (in blocks of bounded size);
each sum is numpy's pairwise sum over one contiguous run of minima, exactly like the
reference's ``dist.min(-1).sum()`` per pair, so the distances are the reference's to the last
bit. Minima are taken on squared distances and square-rooted afterwards: ``sqrt`` is monotonic
and correctly rounded, so ``min(sqrt(s)) == sqrt(min(s))`` exactly.

Pruning (``max_cd``): a pair is computed only if a lower bound of its CD is ``<= max_cd``.
The bound replaces each line by its samples' bounding box: the distance from a point to a
line's samples is at least its distance to their box. Pairs whose boxes are farther apart than
``max_cd`` are dropped first, then the bound is computed for the rest.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

MAX_BLOCK = 1 << 22
"""Largest array of distances computed at once (4 Mi float64 = 32 MB)."""


def chamfer_matrix(pred_samples: np.ndarray, pred_offsets: np.ndarray, gt_samples: np.ndarray,
                   gt_offsets: np.ndarray, *, max_cd: float | None = None,
                   max_block: int = MAX_BLOCK) -> np.ndarray:
    """Chamfer distances ``(P, G)`` between P resampled predictions and G resampled GT lines.

    ``pred_samples[pred_offsets[i]:pred_offsets[i + 1]]`` is prediction i's ``(n_i, 2)``
    samples (``n_i >= 1``), likewise for the GT; offsets start at 0. Coordinates in any unit;
    the result is in the same unit.

    With ``max_cd``, only pairs whose distance may be ``<= max_cd`` are computed (exactly);
    the others are ``inf`` (their distance is larger). That keeps every decision
    "CD <= threshold" and the nearest GT of every prediction that has one within ``max_cd``,
    at a fraction of the cost.
    """
    n_pred = len(pred_offsets) - 1
    n_gt = len(gt_offsets) - 1
    if n_pred == 0 or n_gt == 0:
        return np.zeros((n_pred, n_gt))
    if max_cd is None:
        return _exact(pred_samples, pred_offsets, gt_samples, gt_offsets, max_block)
    # a relative margin far above rounding errors (~1e-15) keeps exact ties such as CD == thr
    limit = max_cd + 1e-9 * max(1.0, max_cd)
    pred_lo, pred_hi = _boxes(pred_samples, pred_offsets)
    gt_lo, gt_hi = _boxes(gt_samples, gt_offsets)
    pairs = []
    rows = max(1, max_block // (2 * n_gt))
    for r0 in range(0, n_pred, rows):  # pairs of boxes at most `limit` apart
        lo, hi = pred_lo[r0:r0 + rows, None], pred_hi[r0:r0 + rows, None]
        gap = np.maximum(np.maximum(gt_lo[None] - hi, lo - gt_hi[None]), 0.0)  # (p, G, 2)
        a, b = np.nonzero(np.hypot(gap[..., 0], gap[..., 1]) <= limit)
        pairs.append((a + r0, b))
    pi = np.concatenate([a for a, _ in pairs])
    gj = np.concatenate([b for _, b in pairs])
    keep = _pair_bounds(pi, gj, pred_samples, pred_offsets, gt_samples, gt_offsets,
                        (pred_lo, pred_hi), (gt_lo, gt_hi), max_block) <= limit
    pi, gj = pi[keep], gj[keep]

    out = np.full((n_pred, n_gt), np.inf)
    gt_counts = np.diff(gt_offsets)
    starts = np.searchsorted(pi, np.arange(n_pred + 1))  # pairs are sorted by prediction
    for i in np.flatnonzero(np.diff(starts)).tolist():
        near = gj[starts[i]:starts[i + 1]]
        pred = pred_samples[pred_offsets[i]:pred_offsets[i + 1]]
        if len(near) == 1:
            j = int(near[0])
            gts = gt_samples[gt_offsets[j]:gt_offsets[j + 1]]
        else:
            gts = np.concatenate([gt_samples[gt_offsets[j]:gt_offsets[j + 1]] for j in near])
        offsets = np.zeros(len(near) + 1, dtype=np.intp)
        np.cumsum(gt_counts[near], out=offsets[1:])
        if len(pred) * len(gts) <= max_block:
            out[i, near] = _exact_one(pred, gts, offsets)
        else:
            out[i, near] = _exact(pred, np.array([0, len(pred)]), gts, offsets, max_block)[0]
    return out


def _boxes(samples: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(n, 2)`` lower and upper corners of each line's samples."""
    return (np.minimum.reduceat(samples, offsets[:-1], axis=0),
            np.maximum.reduceat(samples, offsets[:-1], axis=0))


def _pair_bounds(pi: np.ndarray, gj: np.ndarray, pred_samples: np.ndarray,
                 pred_offsets: np.ndarray, gt_samples: np.ndarray, gt_offsets: np.ndarray,
                 pred_box: tuple[np.ndarray, np.ndarray], gt_box: tuple[np.ndarray, np.ndarray],
                 max_block: int) -> np.ndarray:
    """Lower bounds of the CD of the pairs ``(pi[k], gj[k])``: each sample's distance to the
    other line's box, averaged as in the CD."""
    bound = np.empty(len(pi))
    pred_n = np.diff(pred_offsets)
    gt_n = np.diff(gt_offsets)
    work = np.cumsum(pred_n[pi] + gt_n[gj])
    first = 0
    while first < len(pi):  # chunks of pairs with at most max_block samples in all
        last = max(first + 1, int(np.searchsorted(work, work[first] - (pred_n[pi[first]]
                                                                       + gt_n[gj[first]])
                                                  + max_block, side="right")))
        a, b = pi[first:last], gj[first:last]
        pred_side = _mean_box_distance(pred_samples, pred_offsets, a, gt_box, b)
        gt_side = _mean_box_distance(gt_samples, gt_offsets, b, pred_box, a)
        bound[first:last] = (pred_side + gt_side) / 2
        first = last
    return bound


def _mean_box_distance(samples: np.ndarray, offsets: np.ndarray, lines: np.ndarray,
                       boxes: tuple[np.ndarray, np.ndarray], box_of: np.ndarray) -> np.ndarray:
    """For each k: mean distance from the samples of ``lines[k]`` to box ``box_of[k]``."""
    counts = offsets[lines + 1] - offsets[lines]
    pair_start = np.zeros(len(lines), dtype=np.intp)
    np.cumsum(counts[:-1], out=pair_start[1:])
    pair = np.repeat(np.arange(len(lines)), counts)
    index = offsets[lines][pair] + (np.arange(len(pair)) - pair_start[pair])
    pts = samples[index]
    lo, hi = boxes[0][box_of][pair], boxes[1][box_of][pair]
    gap = np.maximum(np.maximum(lo - pts, pts - hi), 0.0)
    dist = np.sqrt(gap[:, 0] * gap[:, 0] + gap[:, 1] * gap[:, 1])
    return np.add.reduceat(dist, pair_start) / counts


def _exact_one(pred: np.ndarray, gts: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Chamfer distances between one prediction and the GT lines concatenated in ``gts``
    (line j is ``gts[offsets[j]:offsets[j + 1]]``), when ``len(pred) x len(gts)`` is small."""
    sq = cdist(pred, gts, "sqeuclidean")
    gt_side = np.sqrt(sq.min(axis=0))
    n = float(len(pred))
    if len(offsets) == 2:
        pred_sum = np.sqrt(sq.min(axis=1)).sum()
        return np.array([(pred_sum / n + gt_side.sum() / float(len(gts))) / 2])
    per_gt = np.sqrt(np.minimum.reduceat(sq, offsets[:-1], axis=1).T.copy())  # (J, n)
    pred_sums = per_gt.sum(axis=1)  # pairwise sum of each contiguous row
    gt_sums = np.array([gt_side[a:b].sum() for a, b in zip(offsets[:-1].tolist(),
                                                           offsets[1:].tolist(), strict=True)])
    return (pred_sums / n + gt_sums / np.diff(offsets)) / 2


def _exact(pred_samples: np.ndarray, pred_offsets: np.ndarray, gt_samples: np.ndarray,
           gt_offsets: np.ndarray, max_block: int) -> np.ndarray:
    """Every chamfer distance ``(P, G)``, the reference's to the last bit, with at most about
    ``max_block`` distances in memory: predictions are taken in groups, a long one in rows."""
    n_pred = len(pred_offsets) - 1
    n_cols = int(gt_offsets[-1])
    out = np.empty((n_pred, len(gt_offsets) - 1))
    i = 0
    while i < n_pred:
        # predictions i..k-1 together: at most max_block distances (at least one prediction)
        k = max(i + 1, int(np.searchsorted(pred_offsets, pred_offsets[i] + max_block // n_cols,
                                           side="right")) - 1)
        rows = pred_offsets[i:k + 1] - pred_offsets[i]
        out[i:k] = _exact_group(pred_samples[pred_offsets[i]:pred_offsets[k]], rows, gt_samples,
                                gt_offsets, max_block)
        i = k
    return out


def _exact_group(pred_samples: np.ndarray, pred_offsets: np.ndarray, gt_samples: np.ndarray,
                 gt_offsets: np.ndarray, max_block: int) -> np.ndarray:
    n_pred = len(pred_offsets) - 1
    n_gt = len(gt_offsets) - 1
    n_rows = int(pred_offsets[-1])
    n_cols = int(gt_offsets[-1])
    # pred_to_gt[r, j]: squared distance from prediction sample r to GT line j (its nearest
    # sample); gt_to_pred[i, c]: from GT sample c to prediction line i.
    pred_to_gt = np.empty((n_rows, n_gt))
    gt_to_pred = np.full((n_pred, n_cols), np.inf)
    rows_per_block = max(1, max_block // n_cols)
    for r0 in range(0, n_rows, rows_per_block):
        r1 = min(n_rows, r0 + rows_per_block)
        sq = cdist(pred_samples[r0:r1], gt_samples, "sqeuclidean")
        pred_to_gt[r0:r1] = np.minimum.reduceat(sq, gt_offsets[:-1], axis=1)
        first = int(np.searchsorted(pred_offsets, r0, side="right")) - 1
        last = int(np.searchsorted(pred_offsets, r1 - 1, side="right")) - 1
        for i in range(first, last + 1):
            a = max(int(pred_offsets[i]), r0) - r0
            b = min(int(pred_offsets[i + 1]), r1) - r0
            np.minimum(gt_to_pred[i], sq[a:b].min(axis=0), out=gt_to_pred[i])
    np.sqrt(pred_to_gt, out=pred_to_gt)
    np.sqrt(gt_to_pred, out=gt_to_pred)

    # Pairwise sums over contiguous runs, one prediction (resp. GT line) at a time.
    gt_from_pred_rows = np.ascontiguousarray(pred_to_gt.T)  # (G, n_rows)
    sum_pred_side = np.empty((n_pred, n_gt))
    for i in range(n_pred):
        sum_pred_side[i] = gt_from_pred_rows[:, pred_offsets[i]:pred_offsets[i + 1]].sum(axis=1)
    sum_gt_side = np.empty((n_pred, n_gt))
    for j in range(n_gt):
        sum_gt_side[:, j] = gt_to_pred[:, gt_offsets[j]:gt_offsets[j + 1]].sum(axis=1)
    n_pred_samples = np.diff(pred_offsets).astype(np.float64)
    n_gt_samples = np.diff(gt_offsets).astype(np.float64)
    return (sum_pred_side / n_pred_samples[:, None] + sum_gt_side / n_gt_samples[None, :]) / 2


def chamfer_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Chamfer distance between two resampled point sets ``(n, 2)`` and ``(m, 2)``."""
    d = cdist(a, b)
    return float((d.min(axis=1).sum() / len(a) + d.min(axis=0).sum() / len(b)) / 2)
