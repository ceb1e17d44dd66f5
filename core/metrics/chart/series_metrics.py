"""Task 6b data-series comparisons: discrete (categories), box plot and scatter series.

Each function returns a score in [0, 1] for one predicted series against one GT series
(lists of ``{"x", "y"}`` points, or a dict of box statistics). Point costs go through the
padded minimum-cost assignment: ``1 - Σ cost / max(#pred, #GT)``.

- Discrete, 2020: ``cost = (1 - β2)·NED(str(px), str(gx))^α + β2·min(1, |py - gy| / (σγ))``,
  σ = max(mean|gy| / 20, population std of gy). 2019: ``cost = 1 - (1 - NED^α)·(1 - min(1,
  |py - gy| / sample std))`` (nan, so a crash, for a one-point or constant GT series).
  Default: the 2019/metric.tex product form with the 2020 σ (a standard deviation with a
  floor; metric.tex's variance has the wrong units).
- Box, 2020: the stats as a discrete series with the arguments swapped as in the script,
  so the stat names are ignored (β2 = 1) and γ = 0.75; missing stats are left out. 2019:
  all five stats required, 2019 discrete formula. Default: each GT stat against the
  predicted stat of the same name, error ``min(1, |Δ| / σ)`` with σ of the five GT stats
  (as above), a missing stat costs 1; the score is 1 - the mean error.
- Scatter: Mahalanobis distance with the inverse covariance of the GT points, cost
  ``min(1, d/γ)``. 2020 caps the inverse's diagonal at 400/mean² and, when the covariance
  is singular, falls back to ``[[400, 0], [0, 400/mean_y]]`` (a typo). 2019 has no cap and
  crashes on a singular covariance. Default: variances floored at (mean/20)² before the
  inversion (the cap of metric.tex, kept positive definite), correlation dropped if still
  singular.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.spatial.distance import cdist

from .assignment import padded_min_cost_score
from .common import is_number_like
from .strings import normalized_edit_distance

BOX_STATS = ("first_quartile", "max", "min", "median", "third_quartile")


def _values(series: list) -> np.ndarray:
    return np.array([float(p["y"]) for p in series], dtype=float)


def _sigma_2020(gt_y: np.ndarray) -> float:
    return max(float(np.mean(np.abs(gt_y))) / 20.0, float(np.std(gt_y)))


def _value_error(pred_y: np.ndarray, gt_y: np.ndarray, scale: float) -> np.ndarray:
    """min(1, |py - gy| / scale) as a (pred, GT) matrix; a zero scale: 0 if equal else 1."""
    delta = np.abs(pred_y[:, None] - gt_y[None, :])
    if scale > 0:
        return np.minimum(1.0, delta / scale)
    return (delta > 0).astype(float)


def _name_matrix(pred_x: list, gt_x: list, alpha: float, *, rule: str) -> np.ndarray:
    """NED(pred x, GT x)^α.

    ``rule`` "2019": raw values (a non-string raises TypeError, as editdistance does);
    "2020": ``str(pred x)`` against the raw GT x (a non-string GT x raises AttributeError,
    as the script's ``startswith`` test does); "default": ``str()`` of both.
    """
    mat = np.empty((len(pred_x), len(gt_x)))
    for i, p in enumerate(pred_x):
        for j, g in enumerate(gt_x):
            if rule == "default":
                p, g = str(p), str(g)
            elif rule == "2020":
                p = str(p)
                if not isinstance(g, str):
                    raise AttributeError(f"{type(g).__name__!r} object has no attribute "
                                         "'startswith'")
            elif not (isinstance(p, str) and isinstance(g, str)):
                raise TypeError("a category (x) that is not a string has no edit distance")
            mat[i, j] = normalized_edit_distance(p, g) ** alpha
    return mat


def discrete_2020(pred: list, gt: list, alpha: float, beta2: float, gamma: float) -> float:
    """2020 weighted-sum point cost (see the module docstring)."""
    gt_y, pred_y = _values(gt), _values(pred)
    names = _name_matrix([p["x"] for p in pred], [g["x"] for g in gt], alpha, rule="2020")
    sigma = _sigma_2020(gt_y) if len(gt_y) else float("nan")
    values = _value_error(pred_y, gt_y, sigma * gamma)
    return padded_min_cost_score((1 - beta2) * names + beta2 * values)


def discrete_2019(pred: list, gt: list, alpha: float, gamma: float) -> float:
    """2019 product point cost with the sample standard deviation (nan -> crash)."""
    names = 1 - _name_matrix([p["x"] for p in pred], [g["x"] for g in gt], alpha,
                             rule="2019")
    gt_y, pred_y = _values(gt), _values(pred)
    with np.errstate(invalid="ignore", divide="ignore"):
        vi = 1 / np.cov(gt_y)
        d = np.sqrt((pred_y[:, None] - gt_y[None, :]) ** 2 * vi)
        values = 1 - np.minimum(1, d / gamma)
    return padded_min_cost_score(1 - names * values)


def discrete_default(pred: list, gt: list, alpha: float = 1.0, gamma: float = 1.0) -> float:
    """metric.tex fuzzy discrete cost ``1 - (1 - NED^α)(1 - min(1, |Δ| / (γσ)))``."""
    if not pred and not gt:
        return 1.0
    if not pred or not gt:
        return 0.0
    gt_y, pred_y = _values(gt), _values(pred)
    names = _name_matrix([p["x"] for p in pred], [g["x"] for g in gt], alpha, rule="default")
    values = _value_error(pred_y, gt_y, _sigma_2020(gt_y) * gamma)
    return padded_min_cost_score(1 - (1 - names) * (1 - values))


def box_points(box: dict, *, require_all: bool) -> list[dict]:
    """The box statistics as ``{"x": stat name, "y": value}`` points."""
    if require_all:
        return [{"x": s, "y": box[s]} for s in BOX_STATS]
    return [{"x": s, "y": box[s]} for s in BOX_STATS if s in box]


def box_2020(pred: dict, gt: dict, alpha: float, beta2: float, gamma: float) -> float:
    """2020: ``compare_box(…, alpha, gamma, beta2)`` lands in (β2, γ): names ignored."""
    return discrete_2020(box_points(pred, require_all=False),
                         box_points(gt, require_all=False), alpha, gamma, beta2)


def box_2019(pred: dict, gt: dict, alpha: float, gamma: float) -> float:
    """2019: the five stats as a discrete series, 2019 formula."""
    return discrete_2019(box_points(pred, require_all=True), box_points(gt, require_all=True),
                         alpha, gamma)


def box_default(pred: Any, gt: dict, gamma: float = 1.0) -> float:
    """1 - mean over the GT stats of min(1, |Δ| / (γσ)); a missing stat has error 1."""
    stats = [s for s in BOX_STATS if s in gt and is_number_like(gt[s])]
    if not stats:
        return 1.0
    gt_y = np.array([float(gt[s]) for s in stats])
    scale = _sigma_2020(gt_y) * gamma
    errors = []
    for s, g in zip(stats, gt_y, strict=True):
        value = pred.get(s) if isinstance(pred, dict) else None
        if not is_number_like(value):
            errors.append(1.0)
        else:
            errors.append(float(_value_error(np.array([float(value)]), np.array([g]),
                                             scale)[0, 0]))
    return 1.0 - sum(errors) / len(errors)


def _xy(series: list) -> np.ndarray:
    return np.array([[float(p["x"]), float(p["y"])] for p in series], dtype=float).reshape(-1, 2)


def scatter_2020(pred: list, gt: list, gamma: float) -> float:
    """2020 capped Mahalanobis cost; non-numeric predicted points are dropped."""
    pred = [p for p in pred if is_number_like(p["x"]) and is_number_like(p["y"])]
    p, g = _xy(pred), _xy(gt)
    means = g.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        try:
            vi = np.linalg.inv(np.cov(g.T)).T
            for i in range(vi.shape[0]):
                vi[i, i] = min(vi[i, i], 400 / means[i] ** 2)
        except np.linalg.LinAlgError:
            vi = np.asarray([[400 / means[0] ** 0, 0], [0, 400 / means[1]]])
        cost = np.fmin(1, cdist(p, g, "mahalanobis", VI=vi) / gamma)
    return padded_min_cost_score(cost)


def scatter_2019(pred: list, gt: list, gamma: float) -> float:
    """2019 plain Mahalanobis cost (LinAlgError on a singular covariance)."""
    p, g = _xy(pred), _xy(gt)
    vi = np.linalg.inv(np.cov(g.T)).T
    with np.errstate(invalid="ignore"):
        cost = np.minimum(1, cdist(p, g, "mahalanobis", VI=vi) / gamma)
    return padded_min_cost_score(cost)


def scatter_default(pred: list, gt: list, gamma: float = 1.0) -> float:
    """Mahalanobis cost with a floored, positive definite GT covariance."""
    pred = [p for p in pred if is_number_like(p.get("x")) and is_number_like(p.get("y"))]
    gt = [p for p in gt if is_number_like(p.get("x")) and is_number_like(p.get("y"))]
    if not pred and not gt:
        return 1.0
    if not pred or not gt:
        return 0.0
    p, g = _xy(pred), _xy(gt)
    cov = np.cov(g.T) if len(g) > 1 else np.zeros((2, 2))
    means = g.mean(axis=0)
    for i in range(2):
        floor = (means[i] / 20.0) ** 2
        if floor == 0:
            floor = cov[i, i] if cov[i, i] > 0 else 1.0
        cov[i, i] = max(cov[i, i], floor)
    if np.linalg.det(cov) <= 1e-12 * cov[0, 0] * cov[1, 1]:
        cov = np.diag(np.diag(cov))
    cost = np.minimum(1, cdist(p, g, "mahalanobis", VI=np.linalg.inv(cov)) / gamma)
    return padded_min_cost_score(cost)
