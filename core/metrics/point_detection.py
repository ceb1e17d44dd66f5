"""MapSeg task 3: PDS, the area under the F-beta vs distance-threshold curve of point detection.

Points are ``(N, 2)`` arrays of pixel coordinates ``(x, y)``, x right, y down. Each predicted
point is paired with its nearest reference point (the lowest index on ties). Taking the
predictions by increasing distance, a prediction within ``radius`` pixels of a reference point
not yet taken is a true positive; one whose nearest reference point is taken already is an
extra match (a false positive), as is any prediction farther than ``radius`` (the limit itself
counts as within). After each true positive the F-beta score (from TP, FP = P - TP and
FN = T - TP) is a point of the curve at x = distance / radius; PDS is the trapezoidal area
under the curve from (0, 0) to the last point, plus a rectangle out to x = 1. PDS is in
[0, 1]; an empty prediction or an empty reference scores 0.

This is the algorithm of ``icdar21-mapseg-eval`` 1.0.4 (``eval_pt_detect``) with the same
arithmetic, so the values are equal bit for bit; only its command line differed (it crashes on
a header-only or one-row CSV file), see docs/metrics-mapseg.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError

MATCH = 0  # error types, as the official per-prediction table
EXTRA = 1
TOO_FAR = 2
_PAIRS_PER_CHUNK = 1 << 22


@dataclass(frozen=True)
class PdsResult:
    """PDS and its intermediate values. Per-prediction arrays are in processing order
    (increasing distance to the nearest reference point)."""

    score: float
    radius: float
    beta: float
    n_ref: int
    n_pred: int
    distance: np.ndarray  # pixels to the nearest reference point (inf without reference)
    pred_index: np.ndarray  # row of the prediction in the input
    nearest_ref: np.ndarray  # row of its nearest reference point (-1 without reference)
    error_type: np.ndarray  # MATCH, EXTRA or TOO_FAR
    true_positives: np.ndarray  # running counts after this prediction
    false_positives: np.ndarray
    false_negatives: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    fbeta: np.ndarray
    curve_distance: np.ndarray  # normalized distance (distance / radius), 0 to 1
    curve_fbeta: np.ndarray
    pred_points: np.ndarray  # predictions in processing order, (N, 2)


def _as_points(points: np.ndarray, what: str) -> np.ndarray:
    pts = np.asarray(points, dtype=np.float64)
    if pts.size == 0:
        return pts.reshape(0, 2)
    if pts.ndim != 2 or pts.shape[1] != 2:
        raise InputError(f"{what} must be an (N, 2) array of x, y pixels, not shape {pts.shape}")
    if not np.isfinite(pts).all():
        raise InputError(f"{what} has non-finite coordinates")
    return pts


def nearest_points(pred: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the nearest ``ref`` point of each ``pred`` point (lowest index on ties) and the
    Euclidean distance, computed as ``sqrt(dx*dx + dy*dy)`` in float64 (as scipy's ``vq``)."""
    n = len(pred)
    if len(ref) == 0:
        return np.full(n, -1, dtype=np.int64), np.full(n, np.inf)
    index = np.empty(n, dtype=np.int64)
    dist2 = np.empty(n)
    step = max(1, _PAIRS_PER_CHUNK // len(ref))
    for i in range(0, n, step):
        dx = ref[None, :, 0] - pred[i:i + step, None, 0]
        dy = ref[None, :, 1] - pred[i:i + step, None, 1]
        d2 = dx * dx + dy * dy
        index[i:i + step] = np.argmin(d2, axis=1)
        dist2[i:i + step] = np.take_along_axis(d2, index[i:i + step, None], axis=1)[:, 0]
    return index, np.sqrt(dist2)


def f_beta(tp, fn, fp, beta: float):
    """F-beta from counts (scalars or arrays), in the official tool's order of operations."""
    return (1 + beta ** 2) * tp / ((1 + beta ** 2) * tp + beta ** 2 * fn + fp)


def pds(ref_points: np.ndarray, pred_points: np.ndarray, *, radius: float = 50,
        beta: float = 0.5, official: bool = False) -> PdsResult:
    """PDS of ``pred_points`` against ``ref_points`` (``(N, 2)`` pixels, x right, y down).

    ``official`` is accepted for symmetry with the other MapSeg metrics: the official
    library gives these same values on every array input (its command line is what fails on
    header-only and one-row CSV files, see :mod:`core.metrics.mapseg_cli`).
    """
    del official
    if not radius > 0:
        raise ValueError(f"radius must be positive, not {radius}")
    ref = _as_points(ref_points, "reference points")
    pred = _as_points(pred_points, "predicted points")
    n_ref, n_pred = len(ref), len(pred)
    nearest, dist = nearest_points(pred, ref)
    order = np.argsort(dist)
    dist, nearest = dist[order], nearest[order]

    seen = np.zeros(n_ref, dtype=bool)
    error = np.empty(n_pred, dtype=np.int64)
    tp = np.empty(n_pred, dtype=np.int64)
    count = 0
    for k in range(n_pred):
        if dist[k] > radius:
            error[k] = TOO_FAR
        else:
            j = nearest[k]
            error[k] = EXTRA if seen[j] else MATCH
            if not seen[j]:
                seen[j] = True
                count += 1
        tp[k] = count
    fn = n_ref - tp
    fp = n_pred - tp
    precision = tp / n_pred if n_pred else np.zeros(0)
    recall = tp / n_ref if n_ref else np.zeros(n_pred)
    fb = f_beta(tp, fn, fp, beta) if n_pred else np.zeros(0)

    area, prev_x, prev_y = 0.0, 0.0, 0.0
    curve_x, curve_y = [0.0], [0.0]
    for k in np.flatnonzero(error == MATCH):
        x, y = float(dist[k] / radius), float(fb[k])
        area += (x - prev_x) * ((y + prev_y) / 2)
        prev_x, prev_y = x, y
        curve_x.append(x)
        curve_y.append(y)
    area += (1.0 - prev_x) * prev_y
    curve_x.append(1.0)
    curve_y.append(prev_y)
    return PdsResult(
        score=float(area), radius=float(radius), beta=float(beta), n_ref=n_ref, n_pred=n_pred,
        distance=dist, pred_index=order.astype(np.int64), nearest_ref=nearest,
        error_type=error, true_positives=tp, false_positives=fp, false_negatives=fn,
        precision=np.asarray(precision, dtype=np.float64),
        recall=np.asarray(recall, dtype=np.float64), fbeta=np.asarray(fb, dtype=np.float64),
        curve_distance=np.array(curve_x), curve_fbeta=np.array(curve_y),
        pred_points=pred[order])
