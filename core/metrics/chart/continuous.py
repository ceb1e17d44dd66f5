"""The continuous (line) series metric: F1 of an interpolation-based recall and precision.

For GT points (u_i, v_i) sorted by x and a prediction P (metric.tex, "Continuous Metric"):
``recall = Σ (1 - min(1, |v_i - P(u_i)| / (|v_i| + ε))) · w_i / Σ w_i`` with half-interval
weights ``w_i`` ((u_{i+1} - u_{i-1}) / 2, one-sided at the ends, 1 for a single point);
precision is the same with the roles exchanged, and the score is their harmonic mean.

Variants (``rule``):

- ``"2019"``: ε = (max - min of the GT y) / 100; no guard for empty or one-point series
  (the 2019 scripts crash on them).
- ``"2020-6a"``: as 2019, with an empty-series guard (both empty 1, one empty 0) and a
  weight of 1 for a single point.
- ``"2020-6b"``: as 2020-6a, ε = max(range / 100, mean|y| / 100), points whose x is not a
  number are dropped first, and a zero total interval (all x equal) gives 0, not nan.
- ``"default"``: as 2020-6b, but the prediction is *extrapolated* linearly beyond its x
  range (metric.tex) instead of clamped, a zero denominator counts as error 0 for an exact
  value and 1 otherwise, and GT points that all share one x get equal weights.

P(u) is ``numpy.interp`` (clamped outside the predicted x range) except for the default.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import is_number_like

RULES = ("2019", "2020-6a", "2020-6b", "default")


class SeriesError(Exception):
    """A series the scripts cannot score (they crash): message says why."""


def _points(series: list, drop_bad_x: bool) -> tuple[np.ndarray, np.ndarray]:
    if drop_bad_x:
        series = [p for p in series if is_number_like(p["x"])]
    series = sorted(series, key=lambda p: float(p["x"]))
    xs = np.array([float(p["x"]) for p in series], dtype=float)
    ys = np.array([float(p["y"]) for p in series], dtype=float)
    return xs, ys


def _weights(xs: np.ndarray, rule: str) -> np.ndarray:
    n = len(xs)
    if n == 1:
        if rule == "2019":
            raise SeriesError("IndexError: a one-point series")
        return np.ones(1)
    w = np.empty(n)
    w[0] = (xs[1] - xs[0]) / 2
    w[-1] = (xs[-1] - xs[-2]) / 2
    w[1:-1] = (xs[2:] - xs[:-2]) / 2
    if rule == "default" and not w.sum() > 0:
        return np.ones(n)
    return w


def _extrapolate(x: np.ndarray, xp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """Linear interpolation, extended linearly beyond the ends (constant for one x)."""
    y = np.interp(x, xp, fp)
    distinct = np.flatnonzero(xp > xp[0])
    if len(distinct) == 0:
        return y
    j = distinct[0]
    left = x < xp[0]
    y[left] = fp[0] + (x[left] - xp[0]) * (fp[j] - fp[0]) / (xp[j] - xp[0])
    k = np.flatnonzero(xp < xp[-1])[-1]
    right = x > xp[-1]
    y[right] = fp[-1] + (x[right] - xp[-1]) * (fp[-1] - fp[k]) / (xp[-1] - xp[k])
    return y


def continuous_recall(p_xs: np.ndarray, p_ys: np.ndarray, g_xs: np.ndarray,
                      g_ys: np.ndarray, eps: float, rule: str) -> float:
    """Weighted share of the G points that P reproduces (see the module docstring)."""
    w = _weights(g_xs, rule)
    interpolate = _extrapolate if rule == "default" else np.interp
    y_hat = interpolate(g_xs, p_xs, p_ys)
    residual = np.abs(g_ys - y_hat)
    denominator = np.abs(g_ys) + eps
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = residual / denominator
    if rule == "default":
        ratio = np.where(denominator > 0, ratio, np.where(residual > 0, 1.0, 0.0))
    error = np.where(ratio < 1, ratio, 1.0)  # min(1, ratio); nan counts as 1 like min()
    total_interval = w.sum()
    if len(g_xs) != 1 and not np.isclose(total_interval, g_xs[-1] - g_xs[0]) \
            and rule != "default":
        raise SeriesError("AssertionError: the x intervals do not add up")
    if rule == "2020-6b" and not total_interval:
        return 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.float64(((1 - error) * w).sum()) / total_interval)


def continuous_score(pred: list[Any], gt: list[Any], rule: str) -> float:
    """F1 of the continuous recall and precision of ``pred`` against ``gt``."""
    if rule != "2019":
        if not pred and not gt:
            return 1.0
        if not pred or not gt:
            return 0.0
    drop = rule in ("2020-6b", "default")
    p_xs, p_ys = _points(pred, drop)
    g_xs, g_ys = _points(gt, drop)
    if rule != "2019" and (len(p_xs) == 0 or len(g_xs) == 0):
        return 1.0 if len(p_xs) == len(g_xs) else 0.0
    if len(g_xs) == 0:
        raise SeriesError("ValueError: an empty series")
    eps = (g_ys.max() - g_ys.min()) / 100.0
    if rule in ("2020-6b", "default"):
        eps = max(eps, float(np.mean(np.abs(g_ys))) / 100.0)
    if len(p_xs) == 0:
        raise SeriesError("ValueError: an empty series")
    recall = continuous_recall(p_xs, p_ys, g_xs, g_ys, eps, rule)
    precision = continuous_recall(g_xs, g_ys, p_xs, p_ys, eps, rule)
    return (2 * precision * recall) / (precision + recall) if (precision + recall) else 0.0
