"""Optimal pairings (scipy's Hungarian solver) as the CHART metrics use them."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment


def pad_square(cost: np.ndarray, fill: float = 1.0) -> np.ndarray:
    """Pad a (h, w) matrix with ``fill`` to (k, k), k = max(h, w): unmatched rows/columns."""
    h, w = cost.shape
    if h == w:
        return cost
    k = max(h, w)
    out = np.full((k, k), fill, dtype=float)
    out[:h, :w] = cost
    return out


def solve_min(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the minimum-cost assignment.

    Raises ValueError ("matrix contains invalid numeric entries") on nan, as scipy does.
    """
    return linear_sum_assignment(cost)


def padded_min_cost_score(cost: np.ndarray) -> float:
    """Pad with 1s to a square, take the minimum-cost assignment: ``1 - cost / k``.

    This is the scripts' ``get_score``: with costs in [0, 1], unmatched elements of either
    side cost 1. An empty (0 x 0) matrix gives nan (0/0), as in the scripts.
    """
    square = pad_square(np.asarray(cost, dtype=float))
    k = square.shape[0]
    rows, cols = solve_min(square)
    total = square[rows, cols].sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(1 - np.float64(total) / k) if k else float("nan")


def max_sum_pairs(score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the assignment that maximises the summed score (rectangular ok)."""
    return linear_sum_assignment(np.asarray(score, dtype=float), maximize=True)
