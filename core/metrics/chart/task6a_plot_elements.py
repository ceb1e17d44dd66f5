"""Task 6a, plot element detection: bars, box plots, line points and scatter markers (px).

The chart type (``task1.output.chart_type``) selects the element list: ``box`` -> boxplots,
``bar`` -> bars, ``scatter`` -> scatter points, ``line`` -> lines.

- Bars and boxes: each GT x predicted pair costs ``c = min(1, L1(v_gt, v_pred) / (0.05 ·
  min image side))``; bar vector ``[y0, x0, y0 + h, x0 + w]``. The default pairs elements by
  the minimum-cost assignment (missing/extra elements cost 1) and scores ``1 - Σc / k``,
  k = max(#GT, #pred). The official scripts solve the same assignment on ``1 - c/β``, a
  similarity, so they pick the *worst* pairing (β = 1 in 2020, 2 in 2019), use a fixed
  960 px side, and build the box vector from the five y values and the x of the last key
  in dict order (``[y(k0)..y(k4), x(k4), 0, 0]``). The default box vector is the box's
  centre and its five values (y for vertical boxes, x for horizontal ones), by stat name.
- Scatter: per series, ``c = min(1, euclid / min side)``, minimum-cost assignment, ``1 - Σc
  / k``; series are paired by the maximum summed score, divided by #GT series (2020) or by
  max(#GT, #pred) series (default). 2019 uses a Mahalanobis cost (inverse covariance of the
  GT points) on a flat list only.
- Lines: F1 of the continuous recall/precision (continuous.py) for each GT x predicted
  line, lines paired by the maximum summed F1. 2020 divides by #GT lines (extra lines are
  free) and takes ε from the predicted line (swapped arguments); 2019 puts the F1 through
  the bar assignment as ``1 - F1/2`` (a perfect prediction scores 0.5). The default takes ε
  from the GT line and divides by max(#GT, #pred).

Official runs average over the prediction files; the default over every GT chart of a
scored type (bar, box, line, scatter), a missing prediction being empty.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from scipy.spatial.distance import cdist

from ...errors import InputError
from .assignment import max_sum_pairs, padded_min_cost_score, solve_min
from .common import (
    ChartEvaluation,
    chart_id,
    crash,
    describe_exception,
    json_files,
    mode_name,
    nothing_scored,
    read_json,
)
from .continuous import SeriesError, continuous_score
from .images import chart_size

OFFICIAL_IMAGE_DIM = (1280, 960.0)  # the scripts' default img_dim, argv[6] unusable
BOX_STATS = ("min", "first_quartile", "median", "third_quartile", "max")
ELEMENT_KEYS = {"box": "boxplots", "bar": "bars", "scatter": "scatter points",
                "line": "lines"}


def element_kind(gt_type: str) -> str | None:
    """'box', 'bar', 'scatter' or 'line' by substring of the lower-cased type, else None."""
    low = gt_type.lower()
    return next((kind for kind in ELEMENT_KEYS if kind in low), None)


def visual_elements(doc: Any, official: int | None) -> Any:
    """The ``visual elements`` object (2020 and default also read ``task6_output``)."""
    if official == 2019:
        return doc["task6"]["output"]["visual elements"]
    if "task6_output" in doc:
        return doc["task6_output"]["visual elements"]
    if "task6" in doc:
        return doc["task6"]["output"]["visual elements"]
    return None


def _indexable_twice(seq: Any) -> bool:
    """The scripts' ``check_groups``: does ``seq[0][0]`` work (a list of lists)?"""
    try:
        seq[0][0]
    except (KeyError, IndexError, TypeError):
        return False
    return True


# ---- element vectors -------------------------------------------------------------------

def bar_vector(bar: dict) -> np.ndarray:
    """``[y0, x0, y0 + height, x0 + width]`` of a bar."""
    y0, x0 = float(bar["y0"]), float(bar["x0"])
    return np.array([y0, x0, float(bar["height"]) + y0, float(bar["width"]) + x0])


def box_vector_official(box: dict) -> np.ndarray:
    """The scripts' box vector: writes y then x per key at a step of 1 (the index bug)."""
    n = np.zeros(8)
    for i, key in enumerate(box):
        n[i] = float(box[key]["y"])
        n[i + 1] = float(box[key]["x"])
    return n


def box_vector(box: dict, horizontal: bool) -> np.ndarray | None:
    """``[centre, v(min), v(q1), v(median), v(q3), v(max)]`` in px, or None if incomplete.

    v is the stat's y for vertical boxes and its x for horizontal ones; the centre is the
    mean of the other coordinate.
    """
    try:
        pts = [(float(box[s]["x"]), float(box[s]["y"])) for s in BOX_STATS]
    except (KeyError, TypeError, ValueError):
        return None
    value, across = (0, 1) if horizontal else (1, 0)
    centre = sum(p[across] for p in pts) / len(pts)
    return np.array([centre, *(p[value] for p in pts)])


def _points_array(points: Any) -> np.ndarray:
    return np.array([[float(p["x"]), float(p["y"])] for p in points], dtype=float).reshape(-1, 2)


# ---- bars and boxes ----------------------------------------------------------------------

def _cost_matrix(gt: list, pred: list, vector, scale: float) -> np.ndarray:
    """``min(1, L1 / scale)`` of every GT x predicted element."""
    mat = np.full((len(gt), len(pred)), -1.0)
    for i, g in enumerate(gt):
        vg = vector(g)
        for j, p in enumerate(pred):
            vp = vector(p)
            if vg is None or vp is None:
                mat[i, j] = 1.0
            else:
                mat[i, j] = min(1.0, float(np.abs(vg - vp).sum()) / scale)
    return mat


def official_element_score(pred: Any, gt: Any, vector, beta: float, grouped: bool) -> float:
    """The scripts' inverted assignment on ``1 - c/β`` (max over predicted groups in 2020)."""
    scale = min(OFFICIAL_IMAGE_DIM) * 0.05
    if grouped and _indexable_twice(gt):
        gt_groups, pred_groups = gt, pred
    else:
        gt_groups, pred_groups = [gt], [pred]
    total = 0.0
    for g in gt_groups:
        best = 0.0
        for p in pred_groups:
            score = padded_min_cost_score(1 - _cost_matrix(g, p, vector, scale) / beta)
            best = score if score > best else best
        total += best
    return total / float(len(gt_groups))


def default_element_score(pred: list, gt: list, vector, min_side: float) -> float:
    """Minimum-cost pairing of capped L1 costs: ``1 - Σc / max(#GT, #pred)``."""
    if not gt and not pred:
        return 1.0
    return padded_min_cost_score(_cost_matrix(gt, pred, vector, 0.05 * min_side))


def _flatten(elements: Any) -> list:
    if _indexable_twice(elements) and all(isinstance(e, list) for e in elements):
        return [x for group in elements for x in group]
    return list(elements)


# ---- scatter ---------------------------------------------------------------------------

def _scatter_group_score(pred: Any, gt: Any, scale: float) -> float:
    cost = np.minimum(1, cdist(_points_array(pred), _points_array(gt), "euclidean") / scale)
    return padded_min_cost_score(cost)


def scatter_score_2020(pred: Any, gt: Any, gamma: float = 1.0, beta: float = 1.0) -> float:
    """Euclidean / (960 γ) per series, series paired by the maximum summed score.

    A flat list is one series (an empty GT and prediction give 0/0 = nan, as documented).
    """
    scale = min(OFFICIAL_IMAGE_DIM) * gamma
    if not _indexable_twice(gt):
        return _scatter_group_score(pred, gt, scale) / beta
    score = np.array([[_scatter_group_score(p, g, scale) for p in pred] for g in gt],
                     dtype=float).reshape(len(gt), len(pred))
    rows, cols = solve_min(-score)
    return float(score[rows, cols].sum() / (float(len(gt)) * beta))


def scatter_score_2019(pred: Any, gt: Any, gamma: float = 1.0) -> float:
    """Mahalanobis distance with the inverse covariance of the GT points, capped at 1."""
    p, g = _points_array(pred), _points_array(gt)
    vi = np.linalg.inv(np.cov(g.T)).T
    return padded_min_cost_score(np.minimum(1, cdist(p, g, "mahalanobis", VI=vi) / gamma))


def scatter_score_default(pred: Any, gt: Any, min_side: float) -> float:
    """Euclidean / min side per series; series paired by max summed score / max count."""
    gt_groups = gt if _indexable_twice(gt) else ([gt] if gt else [])
    pred_groups = pred if _indexable_twice(pred) else ([pred] if pred else [])
    if not gt_groups and not pred_groups:
        return 1.0
    if not gt_groups or not pred_groups:
        return 0.0
    score = np.array([[_scatter_group_score(p, g, min_side) for p in pred_groups]
                      for g in gt_groups], dtype=float)
    rows, cols = max_sum_pairs(score)
    return float(score[rows, cols].sum() / max(len(gt_groups), len(pred_groups)))


# ---- lines -------------------------------------------------------------------------------

def line_score_2020(pred: Any, gt: Any) -> float:
    """F1 matrix with swapped arguments, max assignment, divided by #GT lines."""
    if not _indexable_twice(gt):
        return continuous_score(pred, gt, "2020-6a")
    score = np.array([[continuous_score(g, p, "2020-6a") for p in pred] for g in gt],
                     dtype=float).reshape(len(gt), len(pred))
    rows, cols = solve_min(-score)
    return float(score[rows, cols].sum() / len(gt))


def line_score_2019(pred: Any, gt: Any, beta: float = 2.0) -> float:
    """F1 matrix through the padded assignment as ``1 - F1/β``."""
    f1 = np.array([[continuous_score(p, g, "2019") for g in gt] for p in pred],
                  dtype=float).reshape(len(pred), len(gt))
    return padded_min_cost_score(1 - f1 / beta)


def line_score_default(pred: Any, gt: Any) -> float:
    """F1 (ε from the GT line, extrapolation), max assignment, / max(#GT, #pred)."""
    if not gt and not pred:
        return 1.0
    if not gt or not pred:
        return 0.0
    score = np.array([[continuous_score(p, g, "default") for p in pred] for g in gt],
                     dtype=float)
    rows, cols = max_sum_pairs(score)
    return float(score[rows, cols].sum() / max(len(gt), len(pred)))


# ---- one chart ---------------------------------------------------------------------------

def score_chart(pred_ve: Any, gt_ve: Any, gt_type: str, official: int | None,
                min_side: float | None = None) -> float:
    """Score of one chart; raises like the scripts (KeyError, TypeError...) officially."""
    kind = element_kind(gt_type)
    if kind is None:
        raise ValueError("Exception: Odd Case, a chart type without plot elements")
    key = ELEMENT_KEYS[kind]
    if official:
        pred, gt = pred_ve[key], gt_ve[key]
        beta = 1.0 if official == 2020 else 2.0
        if kind in ("bar", "box"):
            vector = bar_vector if kind == "bar" else box_vector_official
            return official_element_score(pred, gt, vector, beta, grouped=official == 2020)
        if kind == "scatter":
            return scatter_score_2020(pred, gt) if official == 2020 else (
                scatter_score_2019(pred, gt))
        return line_score_2020(pred, gt) if official == 2020 else line_score_2019(pred, gt)
    pred = (pred_ve or {}).get(key) or []
    gt = gt_ve.get(key) or []
    if kind == "bar":
        return default_element_score(_flatten(pred), _flatten(gt), bar_vector, min_side)
    if kind == "box":
        horizontal = "horizontal" in gt_type.lower()
        return default_element_score(_flatten(pred), _flatten(gt),
                                     lambda b: box_vector(b, horizontal), min_side)
    if kind == "scatter":
        return scatter_score_default(pred, gt, min_side)
    return line_score_default(pred, gt)


def evaluate_task6a(gt_dir: Path, pred_dir: Path, *, official: int | None = None,
                    images: Path | None = None) -> ChartEvaluation:
    """Score plot elements of ``pred_dir`` against ``gt_dir`` (``images``: chart sizes)."""
    if official is None and images is None:
        raise InputError("task 6a needs the chart images for their size; give --images DIR "
                         "(the official scripts assume 1280 x 960 instead)")
    ev = ChartEvaluation(task="6a", mode=mode_name(official), result={})
    gt_paths = {chart_id(p): p for p in json_files(gt_dir, "GT")}
    pred_paths = {chart_id(p): p for p in json_files(pred_dir, "prediction")}
    ev.charts_without_prediction = sorted(set(gt_paths) - set(pred_paths))
    types: dict[str, str] = {}
    for cid in sorted(pred_paths) if official else sorted(gt_paths):
        try:
            result = _score_files(cid, gt_paths.get(cid), pred_paths.get(cid), official,
                                  images, ev)
        except InputError as exc:
            if official:
                raise
            ev.problems.append((cid, str(exc)))
            continue
        if result is not None:
            ev.per_chart[cid] = {"score": result[0]}
            types[cid] = result[1]
    if official is None:
        ev.problems += [(cid, "prediction without a GT file; ignored")
                        for cid in sorted(set(pred_paths) - set(gt_paths))]
    if not ev.per_chart:
        if official:
            raise crash(official, "6a", None, "ZeroDivisionError: no chart to average")
        raise nothing_scored(ev)
    scores = [c["score"] for c in ev.per_chart.values()]
    ev.result = {"score": sum(scores) / len(scores)}
    if official != 2019:
        by_type: dict[str, list[float]] = {}
        for cid, t in types.items():
            by_type.setdefault(t, []).append(ev.per_chart[cid]["score"])
        ev.result["score_by_type"] = {t: sum(v) / len(v) for t, v in sorted(by_type.items())}
    return ev


def _score_files(cid: str, gt_path: Path | None, pred_path: Path | None,
                 official: int | None, images: Path | None,
                 ev: ChartEvaluation) -> tuple[float, str] | None:
    if official:
        try:
            if gt_path is None:
                raise FileNotFoundError(f"no GT file for {cid}")
            pred, gt = read_json(pred_path), read_json(gt_path)
        except (InputError, FileNotFoundError) as exc:
            if official == 2019:
                raise crash(2019, "6a", cid, describe_exception(exc)) from exc
            ev.notes.append(f"{cid}: skipped, the pair does not load ({exc})")
            return None
        try:
            gt_type = gt["task1"]["output"]["chart_type"]
            score = score_chart(visual_elements(pred, official), visual_elements(gt, official),
                                gt_type, official)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError,
                np.linalg.LinAlgError, SeriesError) as exc:
            raise crash(official, "6a", cid, describe_exception(exc)) from exc
        return score, gt_type
    gt = read_json(gt_path)
    try:
        gt_type = gt["task1"]["output"]["chart_type"]
        gt_ve = visual_elements(gt, None)
        if not isinstance(gt_ve, dict) or not isinstance(gt_type, str):
            raise TypeError("no visual elements object")
    except (KeyError, TypeError) as exc:
        raise InputError(f"{gt_path}: no usable chart type or task6 visual elements "
                         f"({describe_exception(exc)})") from exc
    if element_kind(gt_type) is None:
        ev.notes.append(f"{cid}: not scored, a {gt_type} chart has no plot elements")
        return None
    pred_ve: Any = {}
    if pred_path is not None:
        try:
            pred_ve = visual_elements(read_json(pred_path), None)
            if not isinstance(pred_ve, dict):
                raise TypeError("no visual elements object")
        except (InputError, KeyError, TypeError) as exc:
            ev.problems.append((cid, f"prediction unusable, scored as empty "
                                     f"({describe_exception(exc)})"))
            pred_ve = {}
    width, height = chart_size(images, cid, task="6a")
    try:
        return score_chart(pred_ve, gt_ve, gt_type, None, float(min(width, height))), gt_type
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{cid}: unusable plot elements ({describe_exception(exc)})") from exc
